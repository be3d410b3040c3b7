// SPDX-License-Identifier: MIT
// The smallest fastout program: open, write, close.
//
//   hello [PATH]    writes "hello\n" to PATH (default out.txt)
#include <fastout/fastout.h>

#include <cstdio>
#include <system_error>

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "out.txt";
  try {
    auto out = fastout::output_file(path, fastout::buffer_size = 1 << 20);
    out.write("hello");
    out.put('\n');
    // close() is the checked way out: it throws if anything accepted could
    // not be written. Without it the destructor still flushes, but can only
    // report a failure to the error handler.
    out.close();
  } catch (const std::system_error& e) {
    // e.what() names the path and the cause, e.code() holds the errno.
    std::fprintf(stderr, "hello: %s\n", e.what());
    return 1;
  }
  return 0;
}
