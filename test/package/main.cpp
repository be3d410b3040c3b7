// SPDX-License-Identifier: MIT
// A program that uses fastout the way a user's program would: built by the
// consumer projects beside this file against an installed fastout
// (find_package, pkg-config) or an embedded one (add_subdirectory).
//
// Usage: consumer OUTPUT_PATH EXPECTED_VERSION
//
// A consumer that embeds fastout beside its own {fmt} defines
// EXPECT_FMT_VERSION (120100): it must compile with that {fmt}, not with
// another one installed on the system.
#include <fastout/compression.h>
#include <fastout/errors.h>
#include <fastout/fastout.h>
#include <fmt/format.h>

#ifdef EXPECT_FMT_VERSION
static_assert(FMT_VERSION == EXPECT_FMT_VERSION,
              "the consumer compiles with another {fmt} than its project's own");
#endif

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

namespace {

int failed(const std::string& what) {
  std::fprintf(stderr, "consumer: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return failed("usage: consumer OUTPUT_PATH EXPECTED_VERSION");

  // The consumer is built with its compiler's default warnings. This line
  // narrows a long to an int on purpose: it only compiles if fastout's own
  // -Wconversion -Werror did not leak into its users.
  long argument_count = argc;
  int narrowed = argument_count;
  (void)narrowed;

  std::string version = std::to_string(FASTOUT_VERSION_MAJOR) + "." +
                        std::to_string(FASTOUT_VERSION_MINOR) + "." +
                        std::to_string(FASTOUT_VERSION_PATCH);
  if (version != argv[2])
    return failed("the header says version " + version + ", the package " + argv[2]);
  // The library is the one the headers belong to, and was compiled with the
  // {fmt} this program is compiled with.
  if (fastout_version() != FASTOUT_VERSION)
    return failed(fmt::format("libfastout is version {}, its headers {}", fastout_version(),
                              FASTOUT_VERSION));
  if (fastout_fmt_version() != FMT_VERSION)
    return failed(fmt::format("libfastout was compiled with {{fmt}} {}, this program with {}",
                              fastout_fmt_version(), FMT_VERSION));

  std::string expected;
  try {
    // A small buffer, so that the writer drains it many times.
    auto out = fastout::output_file(argv[1], fastout::buffer_size = 1 << 10);
    for (int i = 0; i < 1000; ++i) {
      // fmt::format needs libfmt at link time: this proves that fastout's
      // public dependency on fmt::fmt reaches its users.
      std::string line = fmt::format("line {}", i);
      out.write(line);
      out.put('\n');
      expected += line + '\n';
    }
    {
      fastout::cursor cursor = out.make_cursor();
      for (char c = 'a'; c <= 'z'; ++c) cursor.put(c);
      cursor.put('\n');
    }
    expected += "abcdefghijklmnopqrstuvwxyz\n";
    // The formatting templates instantiate in the user's code and call into
    // both libfastout and libfmt.
    out.println("{} and {:.1f}", "print", 2.5);
    out << 42 << ' ' << fastout::hex(255) << '\n';
    expected += "print and 2.5\n42 ff\n";
    out.close();
    fastout::file_stats stats = out.stats();
    if (stats.bytes_written != expected.size())
      return failed(fmt::format("stats say {} bytes written, expected {}", stats.bytes_written,
                                expected.size()));
  } catch (const std::system_error& e) {
    return failed(e.what());
  }

  std::ifstream in(argv[1], std::ios::binary);
  std::string actual((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (actual != expected) return failed(std::string("wrong contents in ") + argv[1]);

  // Compressed output: the codecs libfastout was built with must link into
  // this program (a static libfastout's users link libzstd and libdeflate
  // through the package files). run.cmake checks the list it prints.
  // Each writes the same text to OUTPUT_PATH.zst and .gz, by extension,
  // which run.cmake decodes with the zstd and gzip programs.
  std::string codecs;
  for (auto format : {fastout::compression_format::zstd, fastout::compression_format::gzip}) {
    if (!fastout::compression_available(format)) continue;
    codecs += std::string(codecs.empty() ? "" : ",") + fastout::format_name(format);
    std::string path =
        std::string(argv[1]) + (format == fastout::compression_format::zstd ? ".zst" : ".gz");
    try {
      auto compressed = fastout::output_file(path, fastout::compression = fastout::by_extension{},
                                             fastout::buffer_size = 1 << 12);
      compressed.write(expected);
      compressed.close();
      if (compressed.stats().bytes_delivered != expected.size())
        return failed("compressed output lost bytes: " + path);
    } catch (const std::system_error& e) {
      return failed(e.what());
    }
  }
  std::printf(
      "consumer: fastout %s, compiled with {fmt} %d as this program, wrote %zu bytes "
      "correctly\n",
      version.c_str(), fastout_fmt_version(), actual.size());
  std::printf("consumer: compression: [%s]\n", codecs.c_str());
  return 0;
}
