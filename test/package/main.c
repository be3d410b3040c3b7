/* SPDX-License-Identifier: MIT */
/* A C program that uses fastout's C API the way a user's would: built with
 * the C compiler as C99 by the C-only consumer project beside this file (an
 * installed fastout through find_package, or an embedded one) and by a plain
 * compiler command line with pkg-config. It links the C++ library as any C
 * program does: a static libfastout brings the C++ runtime in its link
 * interface and in fastout.pc.
 *
 * Usage: consumer OUTPUT_PATH EXPECTED_VERSION */
#include <fastout/c_api.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char* what, const char* detail) {
  fprintf(stderr, "C consumer: %s%s\n", what, detail);
  return 1;
}

int main(int argc, char** argv) {
  char version[32], line[64];
  char* expected;
  char* actual;
  size_t expected_size = 0, actual_size;
  long argument_count = argc;
  int narrowed, i, result;
  fastout_options options;
  fastout_file* out;
  FILE* in;

  if (argc != 3) return failed("usage: consumer OUTPUT_PATH EXPECTED_VERSION", "");
  /* The consumer is built with its compiler's default warnings: this only
   * compiles if fastout's own -Wconversion -Werror did not leak to it. */
  narrowed = argument_count;
  (void)narrowed;

  snprintf(version, sizeof version, "%d.%d.%d", FASTOUT_VERSION_MAJOR, FASTOUT_VERSION_MINOR,
           FASTOUT_VERSION_PATCH);
  if (strcmp(version, argv[2]) != 0) return failed("the header says version ", version);
  if (fastout_version() != FASTOUT_VERSION) return failed("libfastout is another version", "");

  expected = (char*)malloc(100000);
  fastout_options_init(&options);
  options.buffer_size = 1 << 10; /* small, so that it drains many times */
  out = fastout_open(argv[1], &options);
  if (out == NULL) return failed("cannot open the output: ", strerror(errno));
  for (i = 0; i < 1000; ++i) {
    int size = snprintf(line, sizeof line, "line %d %.2f\n", i, i / 8.0);
    if (fastout_fprintf(out, "line %d %.2f\n", i, i / 8.0) != size) return failed("printf", "");
    memcpy(expected + expected_size, line, (size_t)size);
    expected_size += (size_t)size;
  }
  fastout_fputs("puts ", out);
  fastout_write("write ", 1, 6, out);
  for (i = 'a'; i <= 'z'; ++i) fastout_putc(i, out);
  fastout_putc('\n', out);
  memcpy(expected + expected_size, "puts write abcdefghijklmnopqrstuvwxyz\n", 38);
  expected_size += 38;
  result = fastout_close(out);
  if (result != 0) return failed("close: ", fastout_error_name(errno));

  in = fopen(argv[1], "rb");
  if (in == NULL) return failed("cannot read the output back", "");
  actual = (char*)malloc(expected_size + 1);
  actual_size = fread(actual, 1, expected_size + 1, in);
  fclose(in);
  if (actual_size != expected_size || memcmp(actual, expected, expected_size) != 0)
    return failed("wrong contents in ", argv[1]);
  printf("C consumer: fastout %s wrote %lu bytes correctly\n", version, (unsigned long)actual_size);
  /* The codecs a static libfastout brings must link too: run.cmake checks
   * the list, and decodes OUTPUT_PATH.zst and .gz, written here by
   * extension with the same text. */
  for (i = 0; i < 2; ++i) {
    char path[4096];
    fastout_file* compressed;
    if (!fastout_compression_available(i == 0 ? FASTOUT_COMPRESSION_ZSTD
                                              : FASTOUT_COMPRESSION_GZIP))
      continue;
    snprintf(path, sizeof path, "%s%s", argv[1], i == 0 ? ".zst" : ".gz");
    options.compression = FASTOUT_COMPRESSION_BY_EXTENSION;
    compressed = fastout_open(path, &options);
    if (compressed == NULL) return failed("cannot open the compressed output: ", strerror(errno));
    if (fastout_write(expected, 1, expected_size, compressed) != expected_size)
      return failed("compressed write failed: ", path);
    result = fastout_close(compressed);
    if (result != 0) return failed("close of the compressed output: ", fastout_error_name(errno));
  }
  printf("C consumer: compression: [%s%s%s]\n",
         fastout_compression_available(FASTOUT_COMPRESSION_ZSTD) ? "zstd" : "",
         fastout_compression_available(FASTOUT_COMPRESSION_ZSTD) &&
                 fastout_compression_available(FASTOUT_COMPRESSION_GZIP)
             ? ","
             : "",
         fastout_compression_available(FASTOUT_COMPRESSION_GZIP) ? "gzip" : "");
  free(actual);
  free(expected);
  return 0;
}
