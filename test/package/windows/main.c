/* SPDX-License-Identifier: MIT */
/* The same as a C program would: the C API against the installed header. */
#include <fastout/c_api.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

int main(void) {
  fastout_options options;
  fastout_file* out;
  int fds[2];
  fastout_options_init(&options);
  out = fastout_open("c-\xc3\xa9t\xc3\xa9.txt", &options); /* c-été.txt */
  check(out != NULL, "fastout_open with a UTF-8 name");
  if (out == NULL) return 1;
  fastout_fprintf(out, "%d %s\n", 42, "lines");
  fastout_fputs("end\n", out);
  check(fastout_close(out) == 0, "fastout_close");

  options.mode = FASTOUT_APPEND;
  out = fastout_open("c-\xc3\xa9t\xc3\xa9.txt", &options);
  check(out != NULL && fastout_fputs("appended\n", out) >= 0 && fastout_close(out) == 0, "append");

  if (_pipe(fds, 4096, _O_BINARY) != 0) return 2;
  _close(fds[0]);
  out = fastout_fdopen(fds[1], FASTOUT_ADOPT, NULL);
  fastout_fputs("nobody reads this\n", out);
  check(fastout_close(out) == EOF && errno == EPIPE,
        "EOF and EPIPE from a pipe whose reader is gone");
  printf("   (%s)\n", fastout_error_name(-EPIPE));
  return failures == 0 ? 0 : 1;
}
