/* SPDX-License-Identifier: MIT */
/* W18's small C program through fastout's C API: hello_stdio.c moved over
 * by name, linked as docs/c-api.md says (libfastout-c). */
#include <fastout/c_api.h>

int main(void) {
  fastout_printf("%s %d\n", "startup", 18);
  fastout_fputs("a line of text\n", fastout_stdout());
  fastout_puts("done");
  return 0;
}
