// SPDX-License-Identifier: MIT
// W18's small program in C++ through fastout's standard output.
#include <fastout/print.h>
#include <fastout/standard_streams.h>

int main() {
  fastout::file& out = fastout::standard_output();
  out.print("{} {}\n", "startup", 18);
  out.write("a line of text\n");
  out.write("done\n");
  return 0;
}
