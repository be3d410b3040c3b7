/* SPDX-License-Identifier: MIT */
/* echo, as many C programs write it: one putchar() per character, each of
 * which takes stdout's lock. examples/putchar_echo.c is this program moved to
 * fastout; the tests run both and compare their output.
 *
 *   putchar_echo [-n] [ARG...]    prints the arguments, separated by spaces */
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int newline = 1, i = 1;
  if (argc > 1 && strcmp(argv[1], "-n") == 0) {
    newline = 0;
    i = 2;
  }
  for (; i < argc; ++i) {
    const char* p;
    for (p = argv[i]; *p != '\0'; ++p) putchar(*p);
    if (i + 1 < argc) putchar(' ');
  }
  if (newline) putchar('\n');
  if (fflush(stdout) != 0) {
    perror("putchar_echo: stdout");
    return 1;
  }
  return 0;
}
