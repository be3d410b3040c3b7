// SPDX-License-Identifier: MIT
// When fastout's print() checks a format string against its arguments
// (docs/guide.md, "Formatting"): test/CMakeLists.txt compiles this with
// -fsyntax-only, as C++17 and C++20, with the format string as a plain
// literal or in FMT_STRING, and with one argument too few
// (FASTOUT_TEST_BAD_FORMAT). A check at compile time refuses the bad one;
// the good one must compile, so that the bad one fails for that reason.
#include <fastout/print.h>

#ifdef FASTOUT_TEST_FMT_STRING
#  define FASTOUT_TEST_FORMAT(text) FMT_STRING(text)
#else
#  define FASTOUT_TEST_FORMAT(text) text
#endif

void print_two(fastout::file& out) {
#ifdef FASTOUT_TEST_BAD_FORMAT
  out.print(FASTOUT_TEST_FORMAT("{} {}\n"), 1);
  out.println(FASTOUT_TEST_FORMAT("{:d}"), "not a number");
#else
  out.print(FASTOUT_TEST_FORMAT("{} {}\n"), 1, 2);
  out.println(FASTOUT_TEST_FORMAT("{:d}"), 3);
#endif
}
