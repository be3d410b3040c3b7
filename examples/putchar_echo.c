/* SPDX-License-Identifier: MIT */
/* examples/original/putchar_echo.c moved to fastout: an include, a writer on
 * stdout, putchar(c) becomes fastout_putc(c, out), and a checked close.
 * fastout_putc() is inline and takes no lock: a comparison and a store per
 * character while the buffer has room.
 *
 *   putchar_echo [-n] [ARG...]    prints the arguments, separated by spaces */
#include <fastout/c_api.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int newline = 1, i = 1, error;
  fastout_file* out = fastout_open_stdout(NULL);
  if (out == NULL) {
    perror("putchar_echo: stdout");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "-n") == 0) {
    newline = 0;
    i = 2;
  }
  for (; i < argc; ++i) {
    const char* p;
    for (p = argv[i]; *p != '\0'; ++p) fastout_putc(*p, out);
    if (i + 1 < argc) fastout_putc(' ', out);
  }
  if (newline) fastout_putc('\n', out);
  /* A write error is sticky, so one check at the end sees any of them. */
  error = fastout_close(out);
  if (error == EOF) { /* as fclose(): the cause is in errno */
    fprintf(stderr, "putchar_echo: stdout: %s\n", fastout_error_name(errno));
    return 1;
  }
  return 0;
}
