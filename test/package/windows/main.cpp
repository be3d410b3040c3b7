// SPDX-License-Identifier: MIT
// What a Windows user does with fastout, against the installed headers:
// a file with a non-ASCII UTF-8 name, a replacement (the old content or the
// whole new one, nothing left beside it), an append, compressed output,
// "\n" bytes only, and EPIPE from a pipe whose reader is gone. Prints one
// line per check and returns 0 if all held; run.cmake checks the files.
#include <fastout/fastout.h>

#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main() {
  const std::string name = "r\xc3\xa9sum\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.txt";  // résumé-日本.txt
  const std::filesystem::path wide_name = std::filesystem::u8path(name);
  try {
    auto out = fastout::output_file(name);
    out.print("line {}\nline {}\n", 1, 2);
    out.close();
    check(read(wide_name) == "line 1\nline 2\n", "a UTF-8 name, \\n bytes only");
    check(std::filesystem::exists(L"r\u00e9sum\u00e9-\u65e5\u672c.txt"), "the name Windows sees");

    auto more = fastout::output_file(wide_name, fastout::open_mode::append);
    more.print("line 3\n");
    more.close();
    check(read(wide_name) == "line 1\nline 2\nline 3\n", "append");

    {
      auto replacing = fastout::output_file(name, fastout::open_mode::replace);
      replacing.print("new\n");
      // Destroyed without close(): the old content stays.
    }
    check(read(wide_name) == "line 1\nline 2\nline 3\n",
          "an abandoned replacement changes nothing");
    auto replacing = fastout::output_file(name, fastout::open_mode::replace);
    replacing.print("new content\n");
    replacing.close();
    check(read(wide_name) == "new content\n", "replace");
    int entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(".")) {
      (void)entry;
      ++entries;
    }
    check(entries >= 1, "the directory can be listed");

    auto packed = fastout::output_file("packed.txt.zst", fastout::compression = fastout::zstd{3});
    for (int i = 0; i < 100000; ++i) packed.print("{} compressed\n", i);
    packed.close();
    const std::string bytes = read("packed.txt.zst");
    check(bytes.size() > 4 && bytes.size() < 200000 && bytes.compare(0, 4, "\x28\xb5\x2f\xfd") == 0,
          "compressed output (zstd)");
  } catch (const std::system_error& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }

  int fds[2];
  if (_pipe(fds, 4096, _O_BINARY) != 0) return 2;
  _close(fds[0]);
  auto piped = fastout::file::adopt(fds[1]);
  piped.print("nobody reads this\n");
  try {
    piped.close();
    check(false, "EPIPE from a pipe whose reader is gone");
  } catch (const std::system_error& e) {
    check(e.code() == std::errc::broken_pipe, "EPIPE from a pipe whose reader is gone");
    std::printf("   (%s)\n", e.what());
  }
  return failures == 0 ? 0 : 1;
}
