/* SPDX-License-Identifier: MIT */
/* examples/original/pack.c moved to fastout: fopen becomes fastout_open,
 * fwrite becomes fastout_write (same arguments), and fclose becomes
 * fastout_close, whose result says whether everything reached the file.
 * fastout_write() of a few bytes is inline, takes no lock, and copies
 * without a branch on the size.
 *
 *   pack OUTPUT < lines */
#include <fastout/c_api.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  char line[65536];
  fastout_file* out;
  int error;
  if (argc != 2) {
    fprintf(stderr, "usage: pack OUTPUT < lines\n");
    return 2;
  }
  out = fastout_open(argv[1], NULL);
  if (out == NULL) {
    perror(argv[1]); /* errno says why, as after fopen */
    return 1;
  }
  while (fgets(line, sizeof line, stdin) != NULL) {
    size_t size = strcspn(line, "\n");
    unsigned char header[2];
    header[0] = (unsigned char)(size & 0xff);
    header[1] = (unsigned char)(size >> 8);
    fastout_write(header, 1, sizeof header, out);
    fastout_write(line, 1, size, out);
  }
  /* The first error, if any: a write error is sticky, so the calls above
   * need no checks of their own. */
  error = fastout_close(out);
  if (error == EOF) { /* as fclose(): the cause is in errno */
    fprintf(stderr, "%s: %s\n", argv[1], fastout_error_name(errno));
    return 1;
  }
  return 0;
}
