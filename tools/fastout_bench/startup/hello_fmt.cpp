// SPDX-License-Identifier: MIT
// W18's small program in C++ with {fmt}'s print.
#include <fmt/core.h>

int main() {
  fmt::print("{} {}\n", "startup", 18);
  fmt::print("a line of text\n");
  fmt::print("done\n");
  return 0;
}
