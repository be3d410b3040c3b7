// SPDX-License-Identifier: MIT
// Saving a file safely: standard input replaces PATH all at once, and is on
// disk when the program says it is done. If anything fails -- or the input
// is empty, which this program refuses -- PATH keeps its old content.
//
//   save PATH < new-content
#include <fastout/fastout.h>

#include <cstdio>
#include <system_error>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: save PATH < new-content\n");
    return 2;
  }
  try {
    // The new content goes to a new file beside PATH; close() puts it in
    // place. sync and sync_directory make the result survive a power loss.
    auto out = fastout::output_file(argv[1], fastout::open_mode::replace, fastout::sync = true,
                                    fastout::sync_directory = true);
    char chunk[65536];
    std::size_t total = 0;
    while (std::size_t n = std::fread(chunk, 1, sizeof chunk, stdin)) {
      out.write(chunk, n);
      total += n;
    }
    if (std::ferror(stdin) || total == 0) {
      // Nothing is replaced: cancel() removes the new file. (Returning
      // without close() would too, and tell the error handler.)
      out.cancel();
      std::fprintf(stderr, "save: %s, so \"%s\" is left as it was\n",
                   total == 0 ? "no input" : "cannot read the input", argv[1]);
      return 1;
    }
    out.close();
  } catch (const std::system_error& e) {
    // The message names the path, and says whether it was left as it was.
    std::fprintf(stderr, "save: %s\n", e.what());
    return 1;
  }
  return 0;
}
