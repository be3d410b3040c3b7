/* SPDX-License-Identifier: MIT */
/* A C program linked with libfastout-c (pkg-config fastout-c, CMake
 * fastout::c), as docs/c-api.md says: it writes three lines to the file
 * argv[1] through fastout's C API and reads them back. With argv[2]
 * "unloadable" (run.cmake sets FASTOUT_ZSTD_LIBRARY to a file that is not
 * there, or the build has no codec) a zstd writer cannot be had:
 * fastout_compression_available() says so and the open fails with ENOTSUP,
 * leaving no file. Then stdio's stdout
 * is handed to fastout's and back (fastout_sync_with_stdio(), which in
 * libfastout-c is stdio's half alone): run.cmake finds "synced: abc" and
 * then "unsynced: d" in the output, in that order. run.cmake also reads
 * the program's needed libraries and its symbols: no C++ runtime, no {fmt},
 * no codec. */
#include <fastout/c_api.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int failed(const char* what, const char* detail) {
  fprintf(stderr, "C light consumer: %s%s\n", what, detail);
  return 1;
}

int main(int argc, char** argv) {
  static const char expected[] = "one 1\ntwo\nthree\n";
  char path[4096];
  char got[64];
  size_t size;
  fastout_file* out;
  FILE* in;
  if (argc < 2) return failed("usage: c_light FILE [unloadable]", "");
  out = fastout_open(argv[1], NULL);
  if (out == NULL) return failed("cannot open ", argv[1]);
  if (fastout_fprintf(out, "one %d\n", 1) < 0 || fastout_fputs("two\n", out) == EOF ||
      fastout_fputs("three\n", out) == EOF)
    return failed("a write failed: ", strerror(errno));
  if (fastout_close(out) != 0) return failed("close failed: ", strerror(errno));
  in = fopen(argv[1], "rb");
  if (in == NULL) return failed("cannot read back ", argv[1]);
  size = fread(got, 1, sizeof got, in);
  fclose(in);
  if (size != strlen(expected) || memcmp(got, expected, size) != 0)
    return failed("wrong contents in ", argv[1]);
  if (argc > 2 && strcmp(argv[2], "unloadable") == 0) {
    fastout_options options;
    fastout_options_init(&options);
    options.compression = FASTOUT_COMPRESSION_ZSTD;
    if (fastout_compression_available(FASTOUT_COMPRESSION_ZSTD))
      return failed("zstd is available though its library cannot be loaded", "");
    snprintf(path, sizeof path, "%s.zst", argv[1]);
    errno = 0;
    out = fastout_open(path, &options);
    if (out != NULL) return failed("a zstd writer opened without its library: ", path);
    if (errno != ENOTSUP) return failed("the open failed, but not with ENOTSUP: ", strerror(errno));
    in = fopen(path, "rb");
    if (in != NULL) {
      fclose(in);
      return failed("the failed open left a file: ", path);
    }
    printf("C light consumer: zstd refused with ENOTSUP without its library\n");
  }
  if (fastout_sync_with_stdio(1) != 0) return failed("stdio was synced before the call", "");
  printf("synced: a");
  if (fastout_fputs("b", fastout_stdout()) == EOF) return failed("fastout_fputs failed", "");
  printf("c\n");
  if (fastout_sync_with_stdio(0) != 1) return failed("stdio was not synced", "");
  printf("unsynced: d\n");
  printf("C light consumer: ok\n");
  return 0;
}
