/* SPDX-License-Identifier: MIT */
/* Compressed output through the C API (fastout_options' compression fields),
 * built as C99 and C11: the defaults and the older layout of the options,
 * round trips through the zstd and gzip tools (on Windows, the codec
 * libraries' decoders) for every output call, buffer
 * sizes from 1 to the default and 0 to 4 workers, flush in the middle, the
 * extension chooser, bad options, and /dev/full. The C API's faults through
 * the fake system calls are in test/compression_stage_test.cpp. */
#include "c_test.h"

#include <fastout/c_api.h>

#include <limits.h>
#include <stddef.h>

#if defined(_WIN32)
/* A Windows test cannot start Linux's zstd and gzip programs: under Wine
 * the bytes are checked by the codec libraries' own decoders instead, built
 * for Windows beside fastout (scripts/windows/build-deps), as the C++ tests
 * check them everywhere (compression_test_util.h). Each is as strict as the
 * program's -t: every zstd frame complete and its checksum right, every
 * gzip member's CRC-32 and size right, nothing after the last. */
#  include <libdeflate.h>
#  include <zstd.h>

static int have_tool(const char* tool) {
  (void)tool;
  return 1;
}

static int decodes_to(const char* tool, const char* compressed, const char* plain) {
  size_t compressed_size = 0, plain_size = 0, produced = 0;
  char* in = c_test_read_file(compressed, &compressed_size);
  char* expected = c_test_read_file(plain, &plain_size);
  char* out = expected != NULL ? (char*)malloc(plain_size + 1) : NULL;
  int same = 0;
  if (in == NULL || out == NULL) goto done;
  if (strcmp(tool, "zstd") == 0) {
    ZSTD_DCtx* context = ZSTD_createDCtx();
    ZSTD_inBuffer input;
    ZSTD_outBuffer output;
    size_t left = 1;
    input.src = in;
    input.size = compressed_size;
    input.pos = 0;
    output.dst = out;
    output.size = plain_size + 1;
    output.pos = 0;
    while (input.pos < input.size) {
      left = ZSTD_decompressStream(context, &output, &input);
      if (ZSTD_isError(left) || output.pos == output.size) break;
    }
    ZSTD_freeDCtx(context);
    if (ZSTD_isError(left) || left != 0) goto done; /* an error, or a frame cut short */
    produced = output.pos;
  } else {
    struct libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
    size_t at = 0;
    enum libdeflate_result result = LIBDEFLATE_SUCCESS;
    if (decompressor == NULL) goto done;
    while (at < compressed_size && result == LIBDEFLATE_SUCCESS) {
      size_t used = 0, got = 0;
      result =
          libdeflate_gzip_decompress_ex(decompressor, in + at, compressed_size - at, out + produced,
                                        plain_size + 1 - produced, &used, &got);
      at += used;
      produced += got;
    }
    libdeflate_free_decompressor(decompressor);
    if (result != LIBDEFLATE_SUCCESS || compressed_size == 0) goto done;
  }
  same = produced == plain_size && memcmp(out, expected, plain_size) == 0;
done:
  free(in);
  free(expected);
  free(out);
  return same;
}
#else
/* Runs `command` through the shell: its exit status, or -1. */
static int shell(const char* command) {
  int status = system(command);
  return status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
}

static int have_tool(const char* tool) {
  char command[128];
  snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", tool);
  return shell(command) == 0;
}

/* Whether `compressed` decodes with `tool` (zstd or gzip) to exactly what
 * `plain` holds, and passes `tool -t`. */
static int decodes_to(const char* tool, const char* compressed, const char* plain) {
  char command[1200];
  snprintf(command, sizeof command, "%s -t %s '%s' >/dev/null 2>&1", tool,
           strcmp(tool, "zstd") == 0 ? "-q" : "", compressed);
  if (shell(command) != 0) return 0;
  snprintf(command, sizeof command, "%s -dc '%s' 2>/dev/null | cmp -s - '%s'", tool, compressed,
           plain);
  return shell(command) == 0;
}
#endif

/* Line i of the test text. */
static int line_of(char* out, size_t room, unsigned i) {
  return snprintf(out, room, "%u\tline %u of the output, value %.3f\n", i * 7919u % 100003u, i,
                  i / 7.0);
}

/* Writes `lines` lines through every output call in turn into `f` and,
 * plainly, into `plain`. */
static int write_lines(fastout_file* f, FILE* plain, unsigned lines) {
  unsigned i;
  char line[128];
  for (i = 0; i < lines; ++i) {
    int size = line_of(line, sizeof line, i);
    fwrite(line, 1, (size_t)size, plain);
    switch (i % 4) {
      case 0:
        if (fastout_fprintf(f, "%u\tline %u of the output, value %.3f\n", i * 7919u % 100003u, i,
                            i / 7.0) != size)
          return -1;
        break;
      case 1:
        if (fastout_write(line, 1, (size_t)size, f) != (size_t)size) return -1;
        break;
      case 2:
        if (fastout_fputs(line, f) < 0) return -1;
        break;
      default: {
        int k;
        for (k = 0; k < size; ++k)
          if (fastout_putc((unsigned char)line[k], f) < 0) return -1;
      }
    }
  }
  return 0;
}

TEST(options_default_to_plain_output_and_the_formats_defaults) {
  fastout_options options;
  fastout_options_init(&options);
  CHECK_EQ(options.compression, FASTOUT_COMPRESSION_NONE);
  CHECK_EQ(options.compression_level, FASTOUT_COMPRESSION_DEFAULT_LEVEL);
  CHECK_EQ(options.compression_level, INT_MIN);
  CHECK_EQ(options.compression_workers, FASTOUT_COMPRESSION_POOL);
  CHECK_EQ(FASTOUT_DEFAULT_COMPRESSION_WORKERS, FASTOUT_COMPRESSION_POOL);
  CHECK_EQ(fastout_compression_available(FASTOUT_COMPRESSION_NONE), 1);
  CHECK_EQ(fastout_compression_available(FASTOUT_COMPRESSION_BY_EXTENSION), 1);
  CHECK_EQ(fastout_compression_available(FASTOUT_COMPRESSION_ZSTD), 1);
  CHECK_EQ(fastout_compression_available(FASTOUT_COMPRESSION_GZIP), 1);
  CHECK_EQ(fastout_compression_available(42), 0);
}

/* A program built against 0.2.0's header passes the smaller size: taken,
 * with plain output. */
TEST(options_of_the_older_layout_are_taken) {
  fastout_options options;
  fastout_file* f;
  const char* path = c_test_path("old");
  fastout_options_init(&options);
  options.size = offsetof(fastout_options, compression);
  options.compression = FASTOUT_COMPRESSION_ZSTD; /* beyond `size`: not read */
  f = fastout_open(path, &options);
  CHECK(f != NULL);
  CHECK(fastout_fputs("plain\n", f) >= 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(path, "plain\n");
  options.size = offsetof(fastout_options, compression) + 1; /* no release's layout */
  CHECK(fastout_open(path, &options) == NULL);
  CHECK_EQ(errno, EINVAL);
}

TEST(bad_compression_options_are_refused) {
  fastout_options options;
  const char* path = c_test_path("bad.zst");
  fastout_options_init(&options);
  options.compression = 7;
  CHECK(fastout_open(path, &options) == NULL);
  CHECK_EQ(errno, EINVAL);
  options.compression = FASTOUT_COMPRESSION_ZSTD;
  options.compression_level = 99;
  CHECK(fastout_open(path, &options) == NULL);
  CHECK_EQ(errno, EINVAL);
  options.compression = FASTOUT_COMPRESSION_GZIP;
  options.compression_level = 13;
  CHECK(fastout_open(path, &options) == NULL);
  CHECK_EQ(errno, EINVAL);
  options.compression_level = FASTOUT_COMPRESSION_DEFAULT_LEVEL;
  options.buffer_size = 0; /* compression needs a buffer */
  CHECK(fastout_open(path, &options) == NULL);
  CHECK_EQ(errno, EINVAL);
}

/* Every output call, buffer sizes from 1 to the default, 0 to 4 workers:
 * the tools decode the file to the plain text. */
TEST(round_trips_through_the_tools) {
  static const size_t sizes[] = {1, 7, 4096, FASTOUT_DEFAULT_BUFFER_SIZE};
  static const unsigned workers[] = {0, 1, 2, 4, FASTOUT_COMPRESSION_POOL};
  static const int formats[] = {FASTOUT_COMPRESSION_ZSTD, FASTOUT_COMPRESSION_GZIP};
  size_t s, w, k;
  if (!have_tool("zstd") || !have_tool("gzip")) {
    c_test_skip("the zstd and gzip programs are not installed");
    return;
  }
  for (k = 0; k < 2; ++k) {
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
      for (w = 0; w < sizeof workers / sizeof workers[0]; ++w) {
        fastout_options options;
        fastout_stats stats;
        fastout_file* f;
        FILE* plain;
        const char* path = c_test_path("out");
        const char* plain_path = c_test_path("plain");
        /* one line with a 1-byte buffer: a frame or block per byte */
        unsigned lines = sizes[s] < 16 ? 300 : 20000;
        fastout_options_init(&options);
        options.compression = formats[k];
        options.compression_workers = workers[w];
        options.buffer_size = sizes[s];
        f = fastout_open(path, &options);
        CHECK(f != NULL);
        plain = fopen(plain_path, "wb");
        CHECK(plain != NULL);
        CHECK_EQ(write_lines(f, plain, lines), 0);
        CHECK_EQ(fastout_get_stats(f, &stats), 0);
        CHECK_EQ(stats.bytes_accepted, ftell(plain)); /* uncompressed */
        fclose(plain);
        CHECK_EQ(fastout_flush(f), 0);
        CHECK_EQ(fastout_get_stats(f, &stats), 0);
        CHECK_EQ(stats.bytes_delivered, stats.bytes_accepted);
        CHECK_EQ(fastout_close(f), 0);
        if (!decodes_to(k == 0 ? "zstd" : "gzip", path, plain_path)) {
          fprintf(stderr, "format %d, buffer %lu, workers %u\n", formats[k],
                  (unsigned long)sizes[s], workers[w]);
          c_test_report(__FILE__, __LINE__, "the output decodes to the plain text");
          return;
        }
      }
    }
  }
}

/* fastout_flush() makes what was written so far decodable by a reader. */
TEST(flush_makes_everything_so_far_decodable) {
  static const int formats[] = {FASTOUT_COMPRESSION_ZSTD, FASTOUT_COMPRESSION_GZIP};
  size_t k;
  if (!have_tool("zstd") || !have_tool("gzip")) {
    c_test_skip("the zstd and gzip programs are not installed");
    return;
  }
  for (k = 0; k < 2; ++k) {
    fastout_options options;
    fastout_file* f;
    FILE* plain;
    const char* path = c_test_path("flushed");
    const char* plain_path = c_test_path("plain");
    fastout_options_init(&options);
    options.compression = formats[k];
    options.buffer_size = 4096;
    f = fastout_open(path, &options);
    CHECK(f != NULL);
    plain = fopen(plain_path, "wb");
    CHECK(write_lines(f, plain, 2000) == 0);
    fclose(plain);
    CHECK_EQ(fastout_flush(f), 0);
    CHECK(decodes_to(k == 0 ? "zstd" : "gzip", path, plain_path));
    CHECK(fastout_fputs("after the flush\n", f) >= 0);
    CHECK_EQ(fastout_close(f), 0);
  }
}

/* By the path's extension: .zst, .gz, and plain for anything else. */
TEST(extension_chooses_the_format) {
  fastout_options options;
  fastout_file* f;
  const char* names[] = {"x.zst", "x.gz", "x.txt"};
  size_t i;
  fastout_options_init(&options);
  options.compression = FASTOUT_COMPRESSION_BY_EXTENSION;
  for (i = 0; i < 3; ++i) {
    const char* path = c_test_path(names[i]);
    size_t size = 0;
    char* content;
    f = fastout_open(path, &options);
    CHECK(f != NULL);
    CHECK(fastout_fputs("hello\n", f) >= 0);
    CHECK_EQ(fastout_close(f), 0);
    content = c_test_read_file(path, &size);
    CHECK(content != NULL);
    if (i == 0) CHECK(size > 4 && memcmp(content, "\x28\xb5\x2f\xfd", 4) == 0);
    if (i == 1) CHECK(size > 2 && memcmp(content, "\x1f\x8b", 2) == 0);
    if (i == 2) CHECK(size == 6 && memcmp(content, "hello\n", 6) == 0);
    free(content);
  }
}

/* A compressed stream cannot be patched: fseek fails with ESPIPE, as on a
 * pipe, having sent nothing; ftell is the text's position, as gztell's. */
TEST(a_compressed_writer_cannot_seek) {
  fastout_options options;
  fastout_file* f;
  fastout_stats stats;
  int format;
  for (format = FASTOUT_COMPRESSION_ZSTD; format <= FASTOUT_COMPRESSION_GZIP; ++format) {
    if (!fastout_compression_available(format)) continue;
    fastout_options_init(&options);
    options.compression = format;
    f = fastout_open(c_test_path("seek"), &options);
    CHECK(f != NULL);
    CHECK(fastout_fputs("hello\n", f) >= 0);
    errno = 0;
    CHECK_EQ(fastout_fseek(f, 0, SEEK_SET), -1);
    CHECK_EQ(errno, ESPIPE);
    CHECK_EQ(fastout_last_error(f), -ESPIPE);
    errno = 0;
    fastout_rewind(f);
    CHECK_EQ(errno, ESPIPE);
    CHECK_EQ(fastout_ftell(f), 6);
    CHECK_EQ(fastout_get_stats(f, &stats), 0);
    CHECK_EQ(stats.bytes_written, 0); /* nothing sent by trying */
    CHECK_EQ(fastout_error(f), 0);
    CHECK(fastout_fputs("world\n", f) >= 0);
    CHECK_EQ(fastout_ftello(f), 12);
    CHECK_EQ(fastout_close(f), 0);
  }
}

/* A full disk: the sticky ENOSPC at close, nothing claimed as written. */
TEST(dev_full_is_reported_at_close) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  fastout_options options;
  fastout_file* f;
  unsigned i;
  int result = 0;
  fastout_options_init(&options);
  options.compression = FASTOUT_COMPRESSION_ZSTD;
  options.buffer_size = 4096;
  f = fastout_open("/dev/full", &options);
  CHECK(f != NULL);
  for (i = 0; i < 5000 && result >= 0; ++i) result = fastout_fprintf(f, "line %u\n", i);
  errno = 0;
  CHECK_EQ(fastout_close(f), EOF); /* as fclose(): EOF, the cause in errno */
  CHECK_EQ(errno, ENOSPC);
}

/* The shared pool's size: set, read back, the default again; too many
 * threads refused. */
TEST(the_pool_size_is_set_and_read) {
  const unsigned initial = fastout_compression_pool_threads();
  CHECK(initial >= 1);
  CHECK_EQ(fastout_set_compression_pool_threads(3), 0);
  CHECK_EQ(fastout_compression_pool_threads(), 3);
  CHECK_EQ(fastout_set_compression_pool_threads(1025), -EINVAL);
  CHECK_EQ(fastout_compression_pool_threads(), 3);
  CHECK_EQ(fastout_set_compression_pool_threads(0), 0);
  CHECK_EQ(fastout_compression_pool_threads(), initial);
}

#define ALL_TESTS(X)                                          \
  X(options_default_to_plain_output_and_the_formats_defaults) \
  X(options_of_the_older_layout_are_taken)                    \
  X(bad_compression_options_are_refused)                      \
  X(round_trips_through_the_tools)                            \
  X(flush_makes_everything_so_far_decodable)                  \
  X(extension_chooses_the_format)                             \
  X(dev_full_is_reported_at_close)                            \
  X(the_pool_size_is_set_and_read)                            \
  X(a_compressed_writer_cannot_seek)

C_TEST_MAIN(ALL_TESTS)
