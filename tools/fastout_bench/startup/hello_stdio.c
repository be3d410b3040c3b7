/* SPDX-License-Identifier: MIT */
/* W18's small C program, with stdio: three lines, as a tiny tool prints. */
#include <stdio.h>

int main(void) {
  printf("%s %d\n", "startup", 18);
  fputs("a line of text\n", stdout);
  puts("done");
  return 0;
}
