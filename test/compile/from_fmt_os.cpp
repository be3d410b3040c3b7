// SPDX-License-Identifier: MIT
// A program written for <fmt/os.h> after the switch docs/guide.md ("Coming
// from {fmt}") describes: the include becomes <fastout/fastout.h> and fmt::
// becomes fastout:: in front of output_file, ostream, buffer_size and the
// flags. Everything else it used from {fmt} -- fmt::format, FMT_STRING,
// FMT_COMPILE -- must still compile with no other include.
// test/CMakeLists.txt compiles it as C++17 and C++20 with strict warnings.
// With FASTOUT_TEST_FMT_BUFFER_SIZE it also keeps fmt::buffer_size, which
// only <fmt/os.h> declares: that must fail, as the guide says.
#include <fastout/fastout.h>

#include <string>

void write_report(const char* path, int count, double seconds) {
  fastout::ostream out = fastout::output_file(
      path, fastout::file::WRONLY | fastout::file::CREATE | fastout::file::TRUNC,
      fastout::buffer_size = 1 << 16);
  out.print("{} items\n", count);
  out.print(FMT_STRING("{:.2f} s\n"), seconds);
  out.print(FMT_COMPILE("{},{}\n"), count, seconds);
  const std::string line = fmt::format("{}/{}\n", count, seconds);
  out.print("{}", line);
#ifdef FASTOUT_TEST_FMT_BUFFER_SIZE
  auto more = fastout::output_file(path, fmt::buffer_size = 4096);
  more.close();
#endif
  out.close();
}
