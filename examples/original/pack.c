/* SPDX-License-Identifier: MIT */
/* pack, as a C program writes binary records: each line of standard input
 * becomes a record of its length (two bytes, little-endian) and its bytes,
 * written with two small fwrite() calls, each of which takes the FILE's
 * lock. examples/pack.c is this program moved to fastout; the tests run both
 * and compare the files they write.
 *
 *   pack OUTPUT < lines */
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  char line[65536];
  FILE* out;
  if (argc != 2) {
    fprintf(stderr, "usage: pack OUTPUT < lines\n");
    return 2;
  }
  out = fopen(argv[1], "wb");
  if (out == NULL) {
    perror(argv[1]);
    return 1;
  }
  while (fgets(line, sizeof line, stdin) != NULL) {
    size_t size = strcspn(line, "\n");
    unsigned char header[2];
    header[0] = (unsigned char)(size & 0xff);
    header[1] = (unsigned char)(size >> 8);
    fwrite(header, 1, sizeof header, out);
    fwrite(line, 1, size, out);
  }
  if (ferror(out) || fclose(out) != 0) {
    perror(argv[1]);
    return 1;
  }
  return 0;
}
