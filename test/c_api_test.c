/* SPDX-License-Identifier: MIT */
/* fastout's C API from C (include/fastout/c_api.h), built as C99 with
 * -pedantic and as C11: the normal paths through buffer sizes 0, 1, 2, 3, 7,
 * 64 and the default, and every error path made to happen for real --
 * /dev/full (ENOSPC), RLIMIT_FSIZE (EFBIG), a pipe whose reader is gone
 * (EPIPE, or SIGPIPE), writes after an error, NULL arguments, formats glibc
 * refuses -- the cursor, and the flush at exit. Faults the system cannot make on demand
 * (EIO, short writes, EINTR, a failing close) are in test/c_api_faults_test.cpp,
 * through the mock system-call layer. */
#include "c_test.h"

#include <fastout/c_api.h>

#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <wchar.h>

static const size_t buffer_sizes[] = {0, 1, 2, 3, 7, 64, FASTOUT_DEFAULT_BUFFER_SIZE};
#define BUFFER_SIZE_COUNT (sizeof buffer_sizes / sizeof buffer_sizes[0])

static fastout_file* open_with_buffer(const char* path, size_t buffer_size) {
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = buffer_size;
  return fastout_open(path, &options);
}

/* A call named after stdio's (putc, putchar, fputs, puts, fflush, fclose)
 * failed as stdio's does: EOF, never a code, with errno the cause `code`
 * (negative, as fastout_last_error() holds it). */
static int is_eof_with(int result, int code) { return result == EOF && errno == -code; }

/* The bytes i of the test data: a pattern with newlines and every byte value. */
static char byte_at(size_t i) { return (char)(i % 251 == 0 ? '\n' : (i * 7 + i / 13) % 256); }

/* Writes `size` bytes of the pattern with every output call in turn. */
static int write_mixed(fastout_file* f, size_t size) {
  static char piece[5000];
  size_t i = 0, step = 0;
  while (i < size) {
    size_t left = size - i, n, k;
    switch (step++ % 5) {
      case 0:
        if (fastout_putc((unsigned char)byte_at(i), f) != (unsigned char)byte_at(i)) return -1;
        ++i;
        break;
      case 1:
      case 2:
        n = step % 3 == 0 ? 1 + step % 17 : 1 + (step * 131) % 4000;
        if (n > left) n = left;
        for (k = 0; k < n; ++k) piece[k] = byte_at(i + k);
        /* fwrite's two ways round: items of one byte, or one item */
        if (step % 2 ? fastout_write(piece, 1, n, f) != n : fastout_write(piece, n, 1, f) != 1)
          return -1;
        i += n;
        break;
      case 3:
        /* puts stops at a NUL: take the piece up to the first one */
        n = 1 + step % 40;
        if (n > left) n = left;
        for (k = 0; k < n && byte_at(i + k) != '\0'; ++k) piece[k] = byte_at(i + k);
        piece[k] = '\0';
        if (k == 0) {
          if (fastout_putc(0, f) != 0) return -1;
          ++i;
          break;
        }
        if (fastout_fputs(piece, f) < 0) return -1;
        i += k;
        break;
      default:
        n = 1 + step % 30;
        if (n > left) n = left;
        for (k = 0; k < n && byte_at(i + k) != '\0'; ++k) piece[k] = byte_at(i + k);
        if (k == 0) {
          if (fastout_fprintf(f, "%c", 0) != 1) return -1;
          ++i;
          break;
        }
        if (fastout_fprintf(f, "%.*s", (int)k, piece) != (int)k) return -1;
        i += k;
        break;
    }
  }
  return 0;
}

static char* pattern(size_t size) {
  char* data = (char*)malloc(size + 1);
  size_t i;
  for (i = 0; i < size; ++i) data[i] = byte_at(i);
  data[size] = '\0';
  return data;
}

/* ------------------------------------------------------------ normal use */

TEST(options_have_the_cxx_defaults) {
  fastout_options o;
  memset(&o, 0x5a, sizeof o);
  fastout_options_init(&o);
  CHECK_EQ(o.size, sizeof o);
  CHECK_EQ(o.buffer_size, 256 * 1024);
  CHECK_EQ(o.mode, FASTOUT_TRUNCATE);
  CHECK_EQ(o.buffering, FASTOUT_BUFFERING_AUTOMATIC);
  CHECK_EQ(o.permissions, 0666);
  CHECK(o.name == NULL);
}

TEST(every_output_call_through_every_buffer_size) {
  size_t s;
  const size_t size = 50000;
  char* expected = pattern(size);
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    const char* path = c_test_path("out");
    fastout_file* f = open_with_buffer(path, buffer_sizes[s]);
    fastout_stats stats;
    CHECK(f != NULL);
    CHECK_EQ(write_mixed(f, size), 0);
    CHECK_EQ(fastout_error(f), 0);
    CHECK_EQ(fastout_get_stats(f, &stats), 0);
    CHECK_EQ(stats.bytes_accepted, size);
    CHECK_EQ(stats.bytes_written + stats.bytes_pending, size);
    CHECK_EQ(fastout_close(f), 0);
    CHECK_FILE(path, expected, size);
  }
  free(expected);
}

TEST(stdio_return_values) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  CHECK(f != NULL);
  CHECK_EQ(fastout_putc('a', f), 'a');
  CHECK_EQ(fastout_putc(-1, f), 255); /* (unsigned char)c, as putc */
  CHECK_EQ(fastout_putc(0x141, f), 0x41);
  CHECK_EQ(fastout_write("bcd", 1, 3, f), 3);
  CHECK_EQ(fastout_write("efgh", 2, 2, f), 2);
  CHECK_EQ(fastout_write("ijk", 3, 1, f), 1);
  CHECK_EQ(fastout_write("xyz", 0, 3, f), 0); /* nothing written, no error */
  CHECK_EQ(fastout_write("xyz", 3, 0, f), 0);
  CHECK_EQ(fastout_error(f), 0);
  CHECK(fastout_fputs("lmn", f) >= 0);
  CHECK(fastout_fputs("", f) >= 0);
  CHECK_EQ(fastout_fprintf(f, "%d|%s|%.2f", 42, "o", 2.5), 9);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"),
                  "a\xff"
                  "Abcdefghijklmn42|o|2.50");
}

static int vprintf_through(fastout_file* f, const char* format, ...) {
  va_list args;
  int result;
  va_start(args, format);
  result = fastout_vfprintf(f, format, args);
  va_end(args);
  return result;
}

TEST(vprintf_takes_a_va_list) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  CHECK(f != NULL);
  CHECK_EQ(vprintf_through(f, "%s=%05d %x\n", "n", -42, 255u), 11);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "n=-0042 ff\n");
}

TEST(printf_positional_and_n) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  const char* positional = "%2$s-%1$d%%"; /* POSIX, not ISO C: not a literal under -pedantic */
  int n = -1;
  CHECK(f != NULL);
  CHECK_EQ(fastout_fprintf(f, positional, 7, "x"), 4);
  CHECK_EQ(fastout_fprintf(f, "ab%ncd", &n), 4);
  CHECK_EQ(n, 2);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "x-7%abcd");
}

/* A text larger than the whole buffer streams to the file. */
TEST(printf_larger_than_the_buffer) {
  size_t s;
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    const char* path = c_test_path("out");
    fastout_file* f = open_with_buffer(path, buffer_sizes[s]);
    char* expected = (char*)malloc(300002);
    CHECK(f != NULL);
    memset(expected, ' ', 299999);
    memcpy(expected + 299999, "7|x", 3);
    CHECK_EQ(fastout_fprintf(f, "%300000d|", 7), 300001);
    CHECK_EQ(fastout_putc('x', f), 'x');
    CHECK_EQ(fastout_close(f), 0);
    CHECK_FILE(path, expected, 300002);
    free(expected);
  }
}

/* Writes of 1 to 16 bytes copy without branches (fastout_copy_small): they
 * must read only their own bytes -- the source here ends where an
 * inaccessible page begins, so reading one byte more kills the test -- and
 * land right at every position of buffers of every small size. */
TEST(small_writes_read_only_their_bytes) {
  C_TEST_SKIP_ON_WINDOWS("needs mmap(), which Windows has not");
  long page = sysconf(_SC_PAGESIZE);
  int zero = open("/dev/zero", O_RDONLY); /* MAP_ANONYMOUS is not POSIX */
  char* pages = (char*)mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE, zero, 0);
  char* page_end;
  close(zero);
  char expected[20000];
  size_t buffer_size, used = 0, i;
  CHECK(pages != MAP_FAILED);
  CHECK_EQ(mprotect(pages + page, (size_t)page, PROT_NONE), 0);
  page_end = pages + page;
  for (i = 0; i < 16; ++i) page_end[-16 + (long)i] = (char)('a' + i);
  for (buffer_size = 16; buffer_size <= 40; ++buffer_size) {
    const char* path = c_test_path("out");
    fastout_file* f = open_with_buffer(path, buffer_size);
    size_t size, start;
    CHECK(f != NULL);
    used = 0;
    for (start = 0; start < 17; ++start) {
      for (size = 1; size <= 16; ++size) {
        const char* from = page_end - size; /* its last byte is the page's last */
        CHECK_EQ(fastout_write(from, size, 1, f), 1);
        memcpy(expected + used, from, size);
        used += size;
      }
      CHECK_EQ(fastout_putc('|', f), '|'); /* shifts where the next round lands */
      expected[used++] = '|';
    }
    CHECK_EQ(fastout_close(f), 0);
    CHECK_FILE(path, expected, used);
  }
  munmap(pages, (size_t)page * 2);
}

/* Data at least as large as the buffer goes out in one system call with
 * what is buffered. */
TEST(large_write_is_one_system_call) {
  const size_t size = 1 << 20;
  char* data = pattern(size);
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  fastout_stats stats;
  CHECK(f != NULL);
  CHECK_EQ(fastout_putc('<', f), '<');
  CHECK_EQ(fastout_write(data, 1, size, f), size);
  CHECK_EQ(fastout_get_stats(f, &stats), 0);
  CHECK_EQ(stats.write_calls, 1);
  CHECK_EQ(stats.bytes_written, size + 1);
  CHECK_EQ(fastout_close(f), 0);
  free(data);
}

TEST(flush_sends_everything) {
  const char* path = c_test_path("out");
  fastout_file* f = fastout_open(path, NULL);
  struct stat st;
  fastout_stats stats;
  CHECK(f != NULL);
  CHECK(fastout_fputs("pending", f) >= 0);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 0);
  CHECK_EQ(fastout_get_stats(f, &stats), 0);
  CHECK_EQ(stats.bytes_pending, 7);
  CHECK_EQ(fastout_flush(f), 0);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 7);
  CHECK_EQ(fastout_get_stats(f, &stats), 0);
  CHECK_EQ(stats.bytes_pending, 0);
  CHECK_EQ(stats.flushes, 1);
  CHECK_EQ(fastout_close(f), 0);
}

TEST(line_buffering_sends_complete_lines) {
  const char* path = c_test_path("out");
  fastout_options o;
  fastout_file* f;
  struct stat st;
  fastout_options_init(&o);
  o.buffering = FASTOUT_BUFFERING_LINE;
  f = fastout_open(path, &o);
  CHECK(f != NULL);
  CHECK_EQ(fastout_fprintf(f, "one\ntw"), 6);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 4); /* the partial line waits */
  CHECK_EQ(fastout_putc('o', f), 'o');
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 4);
  CHECK_EQ(fastout_putc('\n', f), '\n');
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 8);
  CHECK_EQ(fastout_write("x\ny", 1, 3, f), 3);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 10);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(path, "one\ntwo\nx\ny");
}

TEST(open_modes_and_permissions) {
  const char* path = c_test_path("out");
  fastout_options o;
  fastout_file* f;
  struct stat st;
  mode_t mask = (mode_t)umask(022);
  fastout_options_init(&o);
  o.permissions = 0640;
  o.mode = FASTOUT_EXCLUSIVE;
  f = fastout_open(path, &o);
  CHECK(f != NULL);
  CHECK(fastout_fputs("first\n", f) >= 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_mode & 0777, c_test_kept_bits(0640));
  errno = 0;
  CHECK(fastout_open(path, &o) == NULL); /* exists */
  CHECK_EQ(errno, EEXIST);
  o.mode = FASTOUT_APPEND;
  f = fastout_open(path, &o);
  CHECK(f != NULL);
  CHECK(fastout_fputs("second\n", f) >= 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(path, "first\nsecond\n");
  f = fastout_open(path, NULL); /* truncates */
  CHECK(f != NULL);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(path, "");
  /* Without write permission: a file no one may write (on Windows, a
   * read-only one, as the runtime's _open() makes it), which the writer
   * that created it still writes. */
  path = c_test_path("read-only");
  o.permissions = 0444;
  o.mode = FASTOUT_EXCLUSIVE;
  f = fastout_open(path, &o);
  CHECK(f != NULL);
  CHECK(fastout_fputs("written\n", f) >= 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_mode & 0777, 0444);
  CHECK_FILE_TEXT(path, "written\n");
  CHECK_EQ(chmod(path, 0644), 0); /* so that the test's directory can be removed */
  umask(mask);
}

TEST(fdopen_adopts_or_borrows) {
  const char* path = c_test_path("out");
  fastout_options o;
  fastout_file* f;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0);
  fastout_options_init(&o);
  o.name = "the log";
  f = fastout_fdopen(fd, FASTOUT_BORROW, &o);
  CHECK(f != NULL);
  CHECK(strcmp(fastout_path(f), "the log") == 0);
  CHECK_EQ(fastout_fileno(f), fd);
  CHECK(fastout_fputs("borrowed ", f) >= 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK(fcntl(fd, F_GETFD) != -1); /* still open */
  f = fastout_fdopen(fd, FASTOUT_ADOPT, NULL);
  CHECK(f != NULL);
  CHECK(fastout_path(f) != NULL && strncmp(fastout_path(f), "<fd ", 4) == 0);
  CHECK(fastout_fputs("adopted", f) >= 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF); /* closed with the writer */
  CHECK_FILE_TEXT(path, "borrowed adopted");
}

/* The buffer budget from C: the setter refuses too small a budget, a writer
 * with the default buffer_size is sized by it, another size is exact. */
TEST(buffer_budget_sizes_default_writers_only) {
  fastout_buffer_budget before, now;
  fastout_options o;
  fastout_file* budgeted;
  fastout_file* chosen;
  size_t size = 0;
  CHECK_EQ(fastout_get_buffer_budget(&before), 0);
  CHECK_EQ(fastout_get_buffer_budget(NULL), -EINVAL);
  errno = 0;
  CHECK_EQ(fastout_set_buffer_budget(FASTOUT_SMALLEST_BUFFER_BUDGET - 1), -EINVAL);
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(fastout_set_buffer_budget(8192), 0);
  budgeted = fastout_open(c_test_path("budgeted"), NULL);
  CHECK(budgeted != NULL);
  fastout_options_init(&o);
  o.buffer_size = 300000;
  chosen = fastout_open(c_test_path("chosen"), &o);
  CHECK(chosen != NULL);
  CHECK_EQ(fastout_get_buffer_size(budgeted, &size), 0);
  CHECK_EQ(size, 4096);
  CHECK_EQ(fastout_get_buffer_size(chosen, &size), 0);
  CHECK_EQ(size, 300000);
  CHECK_EQ(fastout_get_buffer_size(NULL, &size), -EINVAL);
  CHECK_EQ(fastout_get_buffer_budget(&now), 0);
  CHECK_EQ(now.limit, 8192);
  CHECK_EQ(now.in_use - before.in_use, 4096 + 300000);
  CHECK_EQ(now.holders - before.holders, 2);
  CHECK(fastout_fputs("budgeted\n", budgeted) >= 0);
  CHECK_EQ(fastout_close(budgeted), 0);
  CHECK_EQ(fastout_close(chosen), 0);
  CHECK_FILE_TEXT(c_test_path("budgeted"), "budgeted\n");
  CHECK_EQ(fastout_get_buffer_budget(&now), 0);
  CHECK_EQ(now.in_use, before.in_use);
  CHECK_EQ(now.holders, before.holders);
  CHECK_EQ(fastout_set_buffer_budget(before.limit), 0);
}

static int stdout_and_stderr_child(void) {
  const char* path = c_test_path("captured");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fastout_file* out;
  fastout_file* err;
  fastout_stats stats;
  if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) return 1;
  out = fastout_open_stdout(NULL);
  err = fastout_open_stderr(NULL);
  if (out == NULL || err == NULL) return 2;
  if (strcmp(fastout_path(out), "<stdout>") != 0 || strcmp(fastout_path(err), "<stderr>") != 0)
    return 3;
  if (fastout_fputs("to stdout, buffered\n", out) < 0) return 4;
  if (fastout_fputs("to stderr, ", err) < 0 || fastout_putc('!', err) < 0) return 5;
  /* stderr is unbuffered: each call is one write */
  if (fastout_get_stats(err, &stats) != 0 || stats.write_calls != 2 || stats.bytes_pending != 0)
    return 6;
  if (fastout_close(out) != 0 || fastout_close(err) != 0) return 7;
  /* closed as fclose(stdout) and fclose(stderr) close them */
  if (fcntl(1, F_GETFD) != -1 || fcntl(2, F_GETFD) != -1 || errno != EBADF) return 8;
  /* Opened again (on the descriptor given back, as freopen() would),
   * stderr is unbuffered again. */
  if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0) return 11;
  err = fastout_open_stderr(NULL);
  if (err == NULL || fastout_putc('.', err) < 0) return 9;
  if (fastout_get_stats(err, &stats) != 0 || stats.bytes_pending != 0) return 10;
  return 0;
}

TEST(stdout_and_stderr) {
  int status = c_test_run_in_child(stdout_and_stderr_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("captured"), "to stderr, !to stdout, buffered\n.");
}

/* fastout_open_stdout() is the process's one writer to fd 1: every call
 * returns it, a closed one opens again, and what is left in it at exit is
 * flushed. */
static int one_stdout_child(void) {
  const char* path = c_test_path("one-stdout");
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fastout_file* out;
  if (fd < 0 || dup2(fd, 1) < 0) return 1;
  out = fastout_open_stdout(NULL);
  if (out == NULL || fastout_open_stdout(NULL) != out) return 2;
  if (fastout_fputs("first, ", out) < 0) return 3;
  if (fastout_fputs("in order\n", fastout_open_stdout(NULL)) < 0) return 4;
  if (fastout_close(out) != 0) return 5;
  if (fastout_fputs("closed", out) >= 0) return 6; /* as fclose(stdout) */
  if (dup2(fd, 1) < 0) return 9;                   /* fd 1 was closed with it */
  out = fastout_open_stdout(NULL);
  if (out == NULL || fastout_error(out) != 0) return 7;
  if (fastout_fputs("opened again, left for exit\n", out) < 0) return 8;
  exit(0);
}

TEST(stdout_is_one_writer_flushed_at_exit) {
  int status = c_test_run_in_child(one_stdout_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("one-stdout"), "first, in order\nopened again, left for exit\n");
}

/* What stdout cannot write at exit is reported, and the process fails, as
 * coreutils' close_stdout() does. */
static int stdout_full_at_exit_child(void) {
  int err = open(c_test_path("stdout-full-stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  int full = open("/dev/full", O_WRONLY);
  fastout_file* out;
  if (err < 0 || full < 0 || dup2(err, 2) < 0 || dup2(full, 1) < 0) return 1;
  out = fastout_open_stdout(NULL);
  if (out == NULL || fastout_fputs("lost", out) < 0) return 2;
  exit(0);
}

TEST(stdout_that_cannot_be_written_at_exit_fails_the_process) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  int status = c_test_run_in_child(stdout_full_at_exit_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 1);
  CHECK_FILE_TEXT(c_test_path("stdout-full-stderr"),
                  "fastout: lost 4 bytes writing \"<stdout>\": No space left on device\n");
}

/* ------------------------------------- standard output as stdio has it */

/* fd 1 onto the file `name` in the test's directory, and fd 2 onto `err`
 * unless it is NULL. 0, or -1 if it could not be done. */
/* Binary on Windows: the runtime's text mode would add a \r before each \n
 * the tests' own write()s send (fastout's never has one). */
#if !defined(O_BINARY)
#  define O_BINARY 0
#endif

static int redirect_standard(const char* name, const char* err) {
  int fd = open(c_test_path(name), O_WRONLY | O_CREAT | O_TRUNC | O_BINARY, 0600);
  if (fd < 0 || dup2(fd, 1) < 0) return -1;
  close(fd);
  if (err == NULL) return 0;
  fd = open(c_test_path(err), O_WRONLY | O_CREAT | O_TRUNC | O_BINARY, 0600);
  if (fd < 0 || dup2(fd, 2) < 0) return -1;
  close(fd);
  return 0;
}

/* The size of what fd 1 holds now. */
static long stdout_size(void) {
  struct stat st;
  return fstat(1, &st) == 0 ? (long)st.st_size : -1;
}

static int vprintf_to_stdout(const char* format, ...) {
  va_list args;
  int result;
  va_start(args, format);
  result = fastout_vprintf(format, args);
  va_end(args);
  return result;
}

/* What stdout_calls_child() writes. */
static const char stdout_calls_text[] =
    "a\xff"
    "puts adds a newline\n\n42|printf|2.50\nno arguments\nv=-0042\nfputs adds none\n"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n";

/* Options for the next child: its buffer size and buffering. */
static size_t child_buffer_size;
static int child_buffering;

/* Every call that needs no handle, with stdio's meaning and return value --
 * putchar, puts (adding the newline), printf, vprintf -- and fputs and putc
 * to fastout_stdout(), into one buffer in order, flushed at exit. */
static int stdout_calls_child(void) {
  fastout_options options;
  if (redirect_standard("out", NULL) < 0) return 100;
  fastout_options_init(&options);
  options.buffer_size = child_buffer_size;
  options.buffering = child_buffering;
  if (fastout_set_stdout_options(&options) != 0) return 101;
  if (fastout_putchar('a') != 'a') return 1;
  if (fastout_putchar(0x1ff) != 0xff) return 2; /* (unsigned char)c, as putchar */
  if (fastout_puts("puts adds a newline") < 0) return 3;
  if (fastout_puts("") < 0) return 4;
  if (fastout_printf("%d|%s|%.2f\n", 42, "printf", 2.5) != 15) return 5;
  if (fastout_printf("no arguments\n") != 13) return 6;
  if (vprintf_to_stdout("%s=%05d\n", "v", -42) != 8) return 7;
  if (fastout_fputs("fputs adds none", fastout_stdout()) < 0) return 8;
  if (fastout_putc('\n', fastout_stdout()) != '\n') return 9;
  if (fastout_puts("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") < 0)
    return 10;
  if (fastout_error(fastout_stdout()) != 0) return 11;
  exit(0);
}

TEST(stdout_calls_without_a_handle_through_every_buffer_size) {
  size_t s;
  int buffering;
  for (buffering = FASTOUT_BUFFERING_FULL; buffering <= FASTOUT_BUFFERING_LINE; ++buffering) {
    for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
      int status;
      child_buffer_size = buffer_sizes[s];
      child_buffering = buffering;
      status = c_test_run_in_child(stdout_calls_child);
      CHECK(WIFEXITED(status));
      CHECK_EQ(WEXITSTATUS(status), 0);
      CHECK_FILE(c_test_path("out"), stdout_calls_text, sizeof stdout_calls_text - 1);
    }
  }
}

/* fastout_stdout() and fastout_stderr() are the writers fastout_open_stdout()
 * and fastout_open_stderr() return; a line-buffered stdout sends each line
 * of puts() at once, as stdio's does on a terminal. */
static int standard_handles_child(void) {
  fastout_options options;
  if (redirect_standard("out", "err") < 0) return 100;
  if (fastout_stdout() == NULL || fastout_stdout() != fastout_open_stdout(NULL)) return 1;
  if (fastout_stderr() == NULL || fastout_stderr() != fastout_open_stderr(NULL)) return 2;
  if (strcmp(fastout_path(fastout_stdout()), "<stdout>") != 0) return 3;
  if (strcmp(fastout_path(fastout_stderr()), "<stderr>") != 0) return 4;
  /* Made, nothing written: options may still be chosen. */
  fastout_options_init(&options);
  options.buffering = FASTOUT_BUFFERING_LINE;
  if (fastout_set_stdout_options(&options) != 0) return 5;
  if (fastout_puts("one line") < 0 || stdout_size() != 9) return 6;
  if (fastout_printf("no newline") < 0 || stdout_size() != 9) return 7;
  if (fastout_putchar('\n') != '\n' || stdout_size() != 20) return 8;
  if (fastout_fputs("unbuffered", fastout_stderr()) < 0) return 9;
  return 0;
}

TEST(stdout_and_stderr_handles_are_the_process_writers) {
  int status = c_test_run_in_child(standard_handles_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "one line\nno newline\n");
  CHECK_FILE_TEXT(c_test_path("err"), "unbuffered");
}

/* As stdio's calls after fclose(stdout): those without a handle fail once
 * it is closed, and fastout_stdout() does not open it again;
 * fastout_open_stdout() does. A NULL text fails the call only. */
static int closed_stdout_child(void) {
  fastout_file* out;
  int fd;
  if (redirect_standard("out", NULL) < 0) return 100;
  out = fastout_stdout();
  if (fastout_puts("before") < 0) return 1;
  errno = 0;
  if (!is_eof_with(fastout_puts(NULL), -EINVAL) || errno != EINVAL) return 2;
  if (fastout_error(out) != 0) return 3;
  if (fastout_close(out) != 0) return 4;
  if (!is_eof_with(fastout_putchar('x'), -EBADF)) return 5;
  if (!is_eof_with(fastout_puts("x"), -EBADF)) return 6;
  if (fastout_printf("%d", 1) != -EBADF) return 7;
  if (vprintf_to_stdout("%d", 1) != -EBADF) return 8;
  if (fastout_stdout() != out || fastout_fileno(out) != -1) return 9;
  /* fd 1 was closed with it: given back, as freopen() would, positioned
   * at the end (not O_APPEND: the Windows runtime's append is a seek of its
   * own before each of its writes, which fastout's WriteFile() does not
   * make; docs/platforms.md) */
  fd = open(c_test_path("out"), O_WRONLY | O_BINARY);
  if (fd < 0 || lseek(fd, 0, SEEK_END) < 0 || dup2(fd, 1) < 0) return 12;
  if (fastout_open_stdout(NULL) != out) return 10;
  if (fastout_puts("opened again") < 0) return 11;
  exit(0);
}

TEST(stdout_calls_after_close_fail_until_it_is_opened_again) {
  int status = c_test_run_in_child(closed_stdout_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "before\nopened again\n");
}

/* A write error is sticky for the calls without a handle too, and what they
 * lost is reported at exit. */
static int full_stdout_without_handle_child(void) {
  fastout_options options;
  int full = open("/dev/full", O_WRONLY);
  if (redirect_standard("out", "err") < 0 || full < 0 || dup2(full, 1) < 0) return 100;
  fastout_options_init(&options);
  options.buffer_size = 0;
  if (fastout_set_stdout_options(&options) != 0) return 101;
  if (!is_eof_with(fastout_putchar('x'), -ENOSPC)) return 1;
  errno = 0;
  if (!is_eof_with(fastout_puts("x"), -ENOSPC) || errno != ENOSPC) return 2;
  if (fastout_printf("%d", 5) != -ENOSPC) return 3;
  if (fastout_last_error(fastout_stdout()) != -ENOSPC) return 4;
  exit(0);
}

TEST(stdout_calls_without_a_handle_meet_a_write_error) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  int status = c_test_run_in_child(full_stdout_without_handle_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 1);
  CHECK_FILE_TEXT(c_test_path("err"),
                  "fastout: lost 4 bytes writing \"<stdout>\": No space left on device\n");
}

/* fastout_set_stdout_options() before the first write: it writes nothing,
 * the options hold, and it works once. */
static int stdout_options_once_child(void) {
  fastout_options options;
  fastout_stats stats;
  if (redirect_standard("out", NULL) < 0) return 100;
  fastout_options_init(&options);
  options.buffer_size = 4;
  options.buffering = FASTOUT_BUFFERING_FULL;
  if (fastout_set_stdout_options(&options) != 0) return 1;
  if (fastout_get_stats(fastout_stdout(), &stats) != 0 || stats.write_calls != 0) return 2;
  if (stdout_size() != 0) return 3;
  errno = 0;
  if (fastout_set_stdout_options(&options) != -EALREADY || errno != EALREADY) return 4;
  /* A buffer of 4 bytes: the fifth byte sends the first four. */
  if (fastout_puts("abc") < 0 || stdout_size() != 0) return 5;
  if (fastout_putchar('d') != 'd' || stdout_size() != 4) return 6;
  exit(0);
}

TEST(stdout_options_are_set_once_before_the_first_write) {
  int status = c_test_run_in_child(stdout_options_once_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "abc\nd");
}

/* After a write, fastout_set_stdout_options() is refused with -EALREADY and
 * changes nothing: what is buffered stays buffered, the options stay, and
 * the output goes on. */
static int stdout_options_after_a_write_child(void) {
  fastout_options options;
  fastout_stats stats;
  if (redirect_standard("out", NULL) < 0) return 100;
  if (fastout_putchar('x') != 'x') return 1;
  fastout_options_init(&options);
  options.buffer_size = 0;
  errno = 0;
  if (fastout_set_stdout_options(&options) != -EALREADY || errno != EALREADY) return 2;
  if (fastout_get_stats(fastout_stdout(), &stats) != 0) return 3;
  if (stats.write_calls != 0 || stats.bytes_pending != 1 || stdout_size() != 0) return 4;
  if (fastout_puts("y") < 0 || stdout_size() != 0) return 5; /* still buffered */
  exit(0);
}

/* ... and so after fastout_open_stdout() with options, which gave some. */
static int stdout_options_after_open_child(void) {
  fastout_options options;
  if (redirect_standard("out", NULL) < 0) return 100;
  fastout_options_init(&options);
  if (fastout_open_stdout(&options) == NULL) return 1;
  if (fastout_set_stdout_options(&options) != -EALREADY) return 2;
  if (fastout_puts("z") < 0) return 3;
  exit(0);
}

/* A child's status when fastout_sync_with_stdio() is not available here
 * (-ENOTSUP: a C library without fopencookie() or funopen()). */
#define NO_STDIO_SYNC 77
static int skipped_without_stdio_sync(int status) {
  if (!WIFEXITED(status) || WEXITSTATUS(status) != NO_STDIO_SYNC) return 0;
  c_test_skip(
      "fastout_sync_with_stdio() returned -ENOTSUP: this C library has neither "
      "fopencookie() nor funopen() (docs/platforms.md)");
  return 1;
}

/* ... and after stdio wrote into it through fastout_sync_with_stdio(). */
static int stdout_options_after_stdio_child(void) {
  fastout_options options;
  int synced;
  if (redirect_standard("out", NULL) < 0) return 100;
  synced = fastout_sync_with_stdio(1);
  if (synced == -ENOTSUP) return NO_STDIO_SYNC;
  if (synced != 0) return 1;
  if (printf("w") != 1) return 2;
  fastout_options_init(&options);
  if (fastout_set_stdout_options(&options) != -EALREADY) return 3;
  exit(0);
}

#if defined(_WIN32)
/* ... but not after fastout_sync_with_stdio() was refused (-ENOTSUP: the
 * Windows C runtime has no cookie streams): a refusal changes nothing. */
static int stdout_options_after_a_refused_stdio_sync_child(void) {
  fastout_options options;
  if (redirect_standard("out", NULL) < 0) return 100;
  if (fastout_sync_with_stdio(1) != -ENOTSUP) return 1;
  fastout_options_init(&options);
  options.buffer_size = 0;
  if (fastout_set_stdout_options(&options) != 0) return 2;
  if (fastout_putchar('v') != 'v' || stdout_size() != 1) return 3; /* unbuffered */
  exit(0);
}
#endif

TEST(stdout_options_after_output_are_refused_and_change_nothing) {
  int status = c_test_run_in_child(stdout_options_after_a_write_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "xy\n");
  status = c_test_run_in_child(stdout_options_after_open_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "z\n");
#if defined(_WIN32)
  status = c_test_run_in_child(stdout_options_after_a_refused_stdio_sync_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "v");
  return;
#endif
  status = c_test_run_in_child(stdout_options_after_stdio_child);
  if (skipped_without_stdio_sync(status)) return;
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "w");
}

/* Bad options, a closed standard output and a cursor: refused, and nothing
 * is set -- a good call afterwards still works. */
static int stdout_options_refused_child(void) {
  struct {
    fastout_options options;
    char more[8];
  } bigger;
  fastout_options options;
  fastout_cursor cursor;
  if (redirect_standard("out", NULL) < 0) return 100;
  if (fastout_set_stdout_options(NULL) != -EINVAL) return 1;
  memset(&options, 0, sizeof options); /* not initialized */
  if (fastout_set_stdout_options(&options) != -EINVAL) return 2;
  fastout_options_init(&options);
  options.buffering = 7;
  if (fastout_set_stdout_options(&options) != -EINVAL) return 3;
  fastout_options_init(&bigger.options);
  bigger.options.size = sizeof bigger;
  memset(bigger.more, 1, sizeof bigger.more);
  if (fastout_set_stdout_options(&bigger.options) != -EINVAL) return 4;
  fastout_options_init(&options);
  options.compression = 99;
  if (fastout_set_stdout_options(&options) != -EINVAL) return 5;
  cursor = fastout_cursor_begin(fastout_stdout());
  fastout_options_init(&options);
  if (fastout_set_stdout_options(&options) != -EBUSY) return 6;
  if (fastout_cursor_end(cursor) != 0) return 7;
  options.buffering = FASTOUT_BUFFERING_LINE;
  if (fastout_set_stdout_options(&options) != 0) return 8;
  if (fastout_puts("line") < 0 || stdout_size() != 5) return 9;
  return 0;
}

static int stdout_options_after_close_child(void) {
  fastout_options options;
  if (redirect_standard("out", NULL) < 0) return 100;
  if (fastout_close(fastout_stdout()) != 0) return 1;
  fastout_options_init(&options);
  if (fastout_set_stdout_options(&options) != -EALREADY) return 2;
  return 0;
}

TEST(stdout_options_refused_for_bad_options_a_cursor_or_a_closed_stdout) {
  int status = c_test_run_in_child(stdout_options_refused_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "line\n");
  status = c_test_run_in_child(stdout_options_after_close_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

/* After fastout_sync_with_stdio(1), stdio's calls to stdout and fastout's
 * fill one buffer in the order they are made; what stdio held before comes
 * first. Turned off, stdio's own stdout is back, after fastout's is
 * flushed. */
static int sync_with_stdio_child(void) {
  int synced;
  if (redirect_standard("out", NULL) < 0) return 100;
  if (printf("before ") != 7) return 1; /* in stdio's buffer */
  synced = fastout_sync_with_stdio(1);
  if (synced == -ENOTSUP) return NO_STDIO_SYNC;
  if (synced != 0) return 2;
  if (printf("stdio %d\n", 1) != 8) return 3;
  if (fastout_puts("fastout 2") < 0) return 4;
  if (putchar('3') != '3') return 5;
  if (fastout_putchar('4') != '4') return 6;
  if (puts(" stdio 5") < 0) return 7;
  if (fastout_printf("fastout %d\n", 6) != 10) return 8;
  if (fwrite("7", 1, 1, stdout) != 1) return 9;
  if (fastout_fputs("8\n", fastout_stdout()) < 0) return 10;
  if (fastout_sync_with_stdio(1) != 1) return 11; /* already */
  if (fastout_sync_with_stdio(0) != 1) return 12;
  if (stdout_size() != 49) return 13; /* fastout's flushed */
  if (fastout_sync_with_stdio(0) != 0) return 14;
  if (printf("stdio's own again\n") < 0) return 15;
  exit(0);
}

TEST(sync_with_stdio_keeps_stdio_and_fastout_in_order) {
  C_TEST_SKIP_ON_WINDOWS(
      "needs sync_with_stdio(), whose cookie streams the Windows C runtime has not");
  int status = c_test_run_in_child(sync_with_stdio_child);
  if (skipped_without_stdio_sync(status)) return;
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"),
                  "before stdio 1\nfastout 2\n34 stdio 5\nfastout 6\n78\nstdio's own again\n");
}

/* Without it they are two buffers, each sent when it is flushed: a flush
 * of the one written before the other is used keeps the order. */
static int two_buffers_child(void) {
  if (redirect_standard("out", NULL) < 0) return 100;
  if (printf("stdio first\n") < 0) return 1;
  if (fastout_puts("fastout second") < 0 || fastout_flush(fastout_stdout()) != 0) return 2;
  if (stdout_size() != 15) return 3; /* stdio's line still waits in stdio */
  exit(0);
}

static int two_buffers_flushed_child(void) {
  if (redirect_standard("out", NULL) < 0) return 100;
  if (printf("stdio first\n") < 0 || fflush(stdout) != 0) return 1;
  if (fastout_puts("fastout second") < 0 || fastout_flush(fastout_stdout()) != 0) return 2;
  if (printf("stdio third\n") < 0) return 3;
  exit(0);
}

TEST(stdio_and_fastout_are_two_buffers_without_sync) {
  C_TEST_SKIP_ON_WINDOWS(
      "the Windows C runtime (msvcrt) writes printf's text to a file at the end of each call, when stdout has no buffer of its own: glibc's stdio buffer, which the test shows waiting, is not there");
  int status = c_test_run_in_child(two_buffers_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "fastout second\nstdio first\n");
  status = c_test_run_in_child(two_buffers_flushed_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "stdio first\nfastout second\nstdio third\n");
}

/* 0.2.0's names keep 0.2.0's meaning for one more release, with a
 * deprecation warning (which test/CMakeLists.txt checks): fastout_puts(text,
 * file) writes no newline, fastout_printf(file, ...) and
 * fastout_vprintf(file, ...) write to the file. */
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static int old_vprintf(fastout_file* f, const char* format, ...) {
  va_list args;
  int result;
  va_start(args, format);
  result = fastout_vprintf(f, format, args);
  va_end(args);
  return result;
}

TEST(names_of_0_2_keep_their_meaning) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  fastout_file* const constant = f;
  CHECK(f != NULL);
  CHECK_EQ(fastout_puts("fputs, ", f), 1);
  CHECK_EQ(fastout_printf(f, "%s %d, ", "fprintf", 2), 11);
  CHECK_EQ(fastout_printf(constant, "plain, "), 7);
  CHECK_EQ(old_vprintf(f, "%s", "vfprintf"), 8);
  /* ... their failures too: the old form returns 0.2.0's code, where
   * fastout_fputs() returns EOF */
  CHECK_EQ(fastout_puts(NULL, f), -EINVAL);
  CHECK(is_eof_with(fastout_fputs(NULL, f), -EINVAL));
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "fputs, fprintf 2, plain, vfprintf");
}
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif

/* A program that writes 10 MB to stdout and checks nothing: every call, in
 * lines of exactly 100 bytes through each output call, and then exit(). */
static void write_ten_megabytes_unchecked(fastout_file* out) {
  static const char five[5] = {'-', '-', '-', '-', '-'};
  fastout_cursor cursor;
  int i;
  for (i = 0; i < 100000; ++i) {
    fastout_fprintf(out, "%87d", i);
    fastout_write(five, 1, 5, out);
    fastout_write(five, 5, 1, out);
    fastout_fputs(":", out);
    cursor = fastout_cursor_begin(out);
    fastout_cursor_putc('|', &cursor);
    fastout_cursor_end(cursor);
    fastout_putc('\n', out);
  }
}

/* stdout on `fd` (with SIGPIPE ignored), stderr into the file `stderr`;
 * then 10 MB unchecked, and exit(status). */
static int unchecked_stdout_child(int fd, int status) {
  int err = open(c_test_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fastout_file* out;
  signal(SIGPIPE, SIG_IGN);
  if (err < 0 || fd < 0 || dup2(err, 2) < 0 || dup2(fd, 1) < 0) return 100;
  out = fastout_open_stdout(NULL);
  if (out == NULL) return 101;
  write_ten_megabytes_unchecked(out);
  exit(status);
}

static int full_stdout_child(void) {
  return unchecked_stdout_child(open("/dev/full", O_WRONLY), 0);
}
static int full_stdout_status_3_child(void) {
  return unchecked_stdout_child(open("/dev/full", O_WRONLY), 3);
}
static int no_reader_fd(void) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  close(fds[0]); /* the reader is gone */
  return fds[1];
}
static int broken_pipe_stdout_child(void) { return unchecked_stdout_child(no_reader_fd(), 0); }
static int broken_pipe_stdout_status_4_child(void) {
  return unchecked_stdout_child(no_reader_fd(), 4);
}

/* Never an abort: one report at exit, with every byte the program wrote --
 * not only the buffer that met the error -- and a status of 0 becomes 1;
 * a failing one is kept. */
TEST(stdout_on_a_full_disk_ends_with_one_report_and_a_failing_status) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  int status = c_test_run_in_child(full_stdout_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 1);
  CHECK_FILE_TEXT(c_test_path("stderr"),
                  "fastout: lost 10000000 bytes writing \"<stdout>\": No space left on device\n");
  if (strcmp(FASTOUT_TEST_PLATFORM, "linux") != 0) {
    c_test_skip(
        "a failing status kept at exit: atexit() passes no status (glibc's on_exit() does), so on this platform layer a failing status becomes 1 (docs/platforms.md)");
    return;
  }
  status = c_test_run_in_child(full_stdout_status_3_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 3);
  CHECK_FILE_TEXT(c_test_path("stderr"),
                  "fastout: lost 10000000 bytes writing \"<stdout>\": No space left on device\n");
}

TEST(stdout_into_a_pipe_without_reader_ends_with_one_report_and_a_failing_status) {
  int status = c_test_run_in_child(broken_pipe_stdout_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 1);
  CHECK_FILE_TEXT(c_test_path("stderr"),
                  "fastout: lost 10000000 bytes writing \"<stdout>\": Broken pipe\n");
  if (strcmp(FASTOUT_TEST_PLATFORM, "linux") != 0) {
    c_test_skip(
        "a failing status kept at exit: atexit() passes no status (glibc's on_exit() does), so on this platform layer a failing status becomes 1 (docs/platforms.md)");
    return;
  }
  status = c_test_run_in_child(broken_pipe_stdout_status_4_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 4);
  CHECK_FILE_TEXT(c_test_path("stderr"),
                  "fastout: lost 10000000 bytes writing \"<stdout>\": Broken pipe\n");
}

/* A writer of the C API's own, left open: the report at exit counts what
 * the program wrote after the error too. */
static int full_writer_left_open_child(void) {
  int err = open(c_test_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fastout_file* f = fastout_open("/dev/full", NULL);
  if (err < 0 || dup2(err, 2) < 0 || f == NULL) return 100;
  write_ten_megabytes_unchecked(f);
  exit(0);
}

TEST(what_a_writer_lost_after_its_error_is_reported_at_exit) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  int status = c_test_run_in_child(full_writer_left_open_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("stderr"),
                  "fastout: lost 10000000 bytes writing \"/dev/full\": No space left on device\n");
}

/* Writers still open at exit are flushed, as stdio's. */
static int leave_open_child(void) {
  fastout_file* f = fastout_open(c_test_path("left-open"), NULL);
  fastout_file* closed = fastout_open(c_test_path("closed"), NULL);
  if (f == NULL || closed == NULL) return 1;
  if (fastout_fprintf(f, "written at %s\n", "exit") < 0) return 2;
  if (fastout_fputs("closed", closed) < 0 || fastout_close(closed) != 0) return 3;
  exit(0); /* as a return from main */
}

TEST(writers_left_open_are_flushed_at_exit) {
  int status = c_test_run_in_child(leave_open_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("left-open"), "written at exit\n");
  CHECK_FILE_TEXT(c_test_path("closed"), "closed");
}

/* ... and what cannot be written then is reported on stderr. */
static int lose_at_exit_child(void) {
  int fd = open(c_test_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fastout_file* f = fastout_open("/dev/full", NULL);
  if (fd < 0 || dup2(fd, 2) < 0 || f == NULL) return 1;
  if (fastout_fputs("lost", f) < 0) return 2;
  exit(0);
}

TEST(what_exit_cannot_write_is_reported) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  int status = c_test_run_in_child(lose_at_exit_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("stderr"),
                  "fastout: lost 4 bytes writing \"/dev/full\": No space left on device\n");
}

/* --------------------------------------------------------------- cursor */

TEST(cursor_writes_what_putc_writes) {
  size_t s;
  const size_t size = 100000;
  char* expected = pattern(size);
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    const char* path = c_test_path("out");
    fastout_file* f = open_with_buffer(path, buffer_sizes[s]);
    size_t i = 0;
    CHECK(f != NULL);
    while (i < size) {
      /* cursors of every length, with the writer's own calls between them */
      fastout_cursor cursor = fastout_cursor_begin(f);
      size_t end = i + (i % 7919) + 1;
      if (end > size) end = size;
      CHECK_EQ(cursor.error, 0);
      for (; i < end; ++i)
        CHECK_EQ(fastout_cursor_putc(expected[i], &cursor), (unsigned char)expected[i]);
      CHECK_EQ(fastout_cursor_end(cursor), 0);
      if (i < size) {
        CHECK_EQ(fastout_putc(expected[i], f), (unsigned char)expected[i]);
        ++i;
      }
    }
    CHECK_EQ(fastout_close(f), 0);
    CHECK_FILE(path, expected, size);
  }
  free(expected);
}

/* While a cursor holds the buffer, the writer's own calls and a second
 * cursor are refused, and nothing of the first cursor's is lost. */
TEST(cursor_makes_other_calls_busy) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  fastout_cursor cursor, second;
  CHECK(f != NULL);
  cursor = fastout_cursor_begin(f);
  CHECK_EQ(fastout_cursor_putc('a', &cursor), 'a');
  CHECK(is_eof_with(fastout_putc('x', f), -EBUSY));
  CHECK(is_eof_with(fastout_fputs("x", f), -EBUSY));
  CHECK_EQ(fastout_fprintf(f, "%d", 1), -EBUSY);
  CHECK(is_eof_with(fastout_flush(f), -EBUSY));
  second = fastout_cursor_begin(f);
  CHECK_EQ(second.error, -EBUSY);
  CHECK_EQ(fastout_cursor_putc('y', &second), -EBUSY);
  CHECK_EQ(fastout_cursor_end(second), -EBUSY);
  CHECK_EQ(fastout_cursor_putc('b', &cursor), 'b'); /* the first one still works */
  CHECK_EQ(fastout_cursor_end(cursor), 0);
  CHECK_EQ(fastout_putc('c', f), 'c');
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "abc");
}

TEST(cursor_errors_are_sticky) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  size_t s;
  fastout_cursor cursor = fastout_cursor_begin(NULL);
  CHECK_EQ(cursor.error, -EINVAL);
  CHECK_EQ(fastout_cursor_putc('x', &cursor), -EINVAL);
  CHECK_EQ(fastout_cursor_end(cursor), -EINVAL);
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    fastout_file* f = open_with_buffer("/dev/full", buffer_sizes[s]);
    fastout_stats stats;
    int result = 0, i;
    CHECK(f != NULL);
    cursor = fastout_cursor_begin(f);
    for (i = 0; i < 300000 && result >= 0; ++i) result = fastout_cursor_putc('a', &cursor);
    CHECK_EQ(result, -ENOSPC);
    CHECK_EQ(fastout_cursor_putc('a', &cursor), -ENOSPC);
    CHECK_EQ(fastout_cursor_end(cursor), -ENOSPC);
    CHECK_EQ(fastout_error(f), -ENOSPC); /* the writer's, sticky */
    cursor = fastout_cursor_begin(f);    /* a failed writer lends nothing */
    CHECK_EQ(cursor.error, -ENOSPC);
    CHECK_EQ(fastout_cursor_end(cursor), -ENOSPC);
    CHECK_EQ(fastout_get_stats(f, &stats), 0);
    CHECK_EQ(stats.bytes_written, 0);
    CHECK(is_eof_with(fastout_close(f), -ENOSPC));
  }
}

TEST(cursor_on_a_line_buffered_writer) {
  const char* path = c_test_path("out");
  fastout_options o;
  fastout_file* f;
  fastout_cursor cursor;
  struct stat st;
  fastout_options_init(&o);
  o.buffering = FASTOUT_BUFFERING_LINE;
  f = fastout_open(path, &o);
  CHECK(f != NULL);
  cursor = fastout_cursor_begin(f);
  fastout_cursor_putc('a', &cursor);
  fastout_cursor_putc('\n', &cursor);
  fastout_cursor_putc('b', &cursor);
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_size, 2); /* the line went out at once; "b" waits */
  CHECK_EQ(fastout_cursor_end(cursor), 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(path, "a\nb");
}

/* ----------------------------------------------------------- bad input */

TEST(open_errors_name_the_cause) {
  fastout_options o;
  struct {
    fastout_options options;
    unsigned char newer_fields[16];
  } bigger;
  errno = 0;
  CHECK(fastout_open(c_test_path("missing/out"), NULL) == NULL);
  CHECK_EQ(errno, ENOENT);
  CHECK(fastout_open(c_test_dir_path, NULL) == NULL);
  CHECK_EQ(errno, EISDIR);
  CHECK(fastout_open(NULL, NULL) == NULL);
  CHECK_EQ(errno, EINVAL);
  /* options not made by fastout_options_init(), or with unknown values */
  memset(&o, 0, sizeof o);
  CHECK(fastout_open(c_test_path("out"), &o) == NULL);
  CHECK_EQ(errno, EINVAL);
  fastout_options_init(&o);
  o.mode = 3;
  CHECK(fastout_open(c_test_path("out"), &o) == NULL);
  CHECK_EQ(errno, EINVAL);
  fastout_options_init(&o);
  o.buffering = -1;
  CHECK(fastout_open(c_test_path("out"), &o) == NULL);
  CHECK_EQ(errno, EINVAL);
  fastout_options_init(&o);
  o.permissions = 010000;
  CHECK(fastout_open(c_test_path("out"), &o) == NULL);
  CHECK_EQ(errno, EINVAL);
  CHECK(access(c_test_path("out"), F_OK) != 0); /* nothing was created */
  /* a newer program's larger struct: its new fields must be at their defaults (0) */
  memset(&bigger, 0, sizeof bigger);
  fastout_options_init(&bigger.options);
  bigger.options.size = sizeof bigger;
  {
    fastout_file* f = fastout_open(c_test_path("out"), &bigger.options);
    CHECK(f != NULL);
    CHECK_EQ(fastout_close(f), 0);
  }
  bigger.newer_fields[7] = 1;
  CHECK(fastout_open(c_test_path("out"), &bigger.options) == NULL);
  CHECK_EQ(errno, EINVAL);
  CHECK(fastout_fdopen(-1, FASTOUT_ADOPT, NULL) == NULL);
  CHECK_EQ(errno, EBADF);
  CHECK(fastout_fdopen(1, 2, NULL) == NULL);
  CHECK_EQ(errno, EINVAL);
}

TEST(null_arguments_are_einval) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  fastout_stats stats;
  const char* no_format = NULL;
  CHECK(f != NULL);
  errno = 0;
  CHECK(is_eof_with(fastout_putc('x', NULL), -EINVAL));
  CHECK_EQ(errno, EINVAL);
  errno = 0;
  CHECK_EQ(fastout_write("x", 1, 1, NULL), 0);
  CHECK_EQ(errno, EINVAL);
  errno = 0;
  CHECK_EQ(fastout_write(NULL, 1, 5, f), 0);
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(fastout_write(NULL, 0, 5, f), 0); /* nothing to write: as fwrite */
  CHECK(is_eof_with(fastout_fputs(NULL, f), -EINVAL));
  CHECK(is_eof_with(fastout_fputs("x", NULL), -EINVAL));
  CHECK_EQ(fastout_fprintf(NULL, "%d", 1), -EINVAL);
  CHECK_EQ(fastout_fprintf(f, no_format, 1), -EINVAL);
  CHECK(is_eof_with(fastout_flush(NULL), -EINVAL));
  CHECK_EQ(fastout_error(NULL), -EINVAL);
  CHECK_EQ(fastout_get_stats(NULL, &stats), -EINVAL);
  CHECK_EQ(fastout_get_stats(f, NULL), -EINVAL);
  errno = 0;
  CHECK_EQ(fastout_fileno(NULL), -1); /* as fileno(): -1 and errno */
  CHECK_EQ(errno, EINVAL);
  CHECK(fastout_path(NULL) == NULL);
  CHECK_EQ(fastout_close(NULL), 0);
  /* none of it touched the writer */
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_putc('k', f), 'k');
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "k");
}

TEST(size_times_count_overflow) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  CHECK(f != NULL);
  errno = 0;
  CHECK_EQ(fastout_write("x", SIZE_MAX / 2, 3, f), 0);
  CHECK_EQ(errno, EOVERFLOW);
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_close(f), 0);
}

/* A format glibc refuses fails the call, writes none of it, and is not
 * sticky. (Not literals: the compiler would refuse them.) */
TEST(bad_formats_fail_the_call_only) {
  const char* formats[3];
  int i;
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  CHECK(f != NULL);
  formats[0] = "text %";
  formats[1] = "%5";
  formats[2] = "%-#";
  for (i = 0; i < 3; ++i) {
    errno = 0;
    CHECK_EQ(fastout_fprintf(f, formats[i], 1), -EINVAL);
    CHECK_EQ(errno, EINVAL);
  }
  errno = 0;
  CHECK_EQ(fastout_fprintf(f, "ab%lsc", L"\x263a"), -EILSEQ); /* not in the "C" locale */
  CHECK_EQ(errno, EILSEQ);
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_fprintf(f, "%s", "fine"), 4);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "fine");
}

TEST(error_names_are_stable_text) {
  CHECK(strcmp(fastout_error_name(-ENOSPC), "No space left on device") == 0);
  CHECK(strcmp(fastout_error_name(ENOSPC), "No space left on device") == 0);
  CHECK(strcmp(fastout_error_name(-EPIPE), "Broken pipe") == 0);
  CHECK(strcmp(fastout_error_name(-EINVAL), "Invalid argument") == 0);
  CHECK(strcmp(fastout_error_name(0), "Success") == 0);
  CHECK(strcmp(fastout_error_name(-99999), "Unknown error") == 0);
  CHECK(strcmp(fastout_error_name(INT_MIN), "Unknown error") == 0);
}

/* ------------------------------------------------------ failures for real */

/* Every output call after the error returns it again. */
static int all_calls_fail_with(fastout_file* f, int code) {
  if (!is_eof_with(fastout_putc('x', f), code)) return 1;
  errno = 0;
  if (fastout_write("xy", 1, 2, f) != 0 || errno != -code) return 2;
  if (!is_eof_with(fastout_fputs("xyz", f), code)) return 3;
  if (!is_eof_with(fastout_fputs("", f), code)) return 4;
  if (fastout_fprintf(f, "%d", 5) != code) return 5;
  if (!is_eof_with(fastout_flush(f), code)) return 6;
  if (fastout_error(f) != code) return 7;
  return 0;
}

/* After a write error every call still returns it, and what it was given
 * counts as accepted (and lost); fastout_close() returns the error and
 * reports nothing on stderr. */
static int counted_after_error_child(void) {
  int err = open(c_test_path("stderr"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  fastout_file* f = open_with_buffer("/dev/full", 64);
  fastout_stats stats;
  static char thousand[1000];
  int i;
  if (err < 0 || dup2(err, 2) < 0 || f == NULL) return 100;
  for (i = 0; i < 64; ++i)
    if (fastout_putc('a', f) != 'a') return 1;               /* fills the buffer */
  if (!is_eof_with(fastout_putc('b', f), -ENOSPC)) return 2; /* meets the error */
  if (fastout_write("0123456789", 1, 10, f) != 0 || errno != ENOSPC) return 3;
  if (fastout_fprintf(f, "%d", 12345) != -ENOSPC) return 4;
  if (!is_eof_with(fastout_fputs("xyz", f), -ENOSPC)) return 5;
  if (fastout_write(thousand, 10, 100, f) != 0) return 6; /* larger than the buffer */
  if (fastout_get_stats(f, &stats) != 0) return 7;
  if (stats.bytes_written != 0 || stats.write_calls != 1) return 8;
  if (stats.bytes_accepted != 64 + 1 + 10 + 5 + 3 + 1000) return 9;
  if (!is_eof_with(fastout_close(f), -ENOSPC)) return 10;
  return 0;
}

TEST(calls_after_an_error_are_counted_as_lost) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  int status = c_test_run_in_child(counted_after_error_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("stderr"), "");
}

/* Each call's error can be read from the handle, whether the writer's
 * sticky one or the call's own, which fastout_error() does not show. */
TEST(last_error_is_the_failed_calls_code) {
  fastout_file* f = fastout_open(c_test_path("out"), NULL);
  const char* bad_format = "text %";
  size_t n = 3;
  CHECK(f != NULL);
  CHECK_EQ(fastout_last_error(f), 0);
  CHECK_EQ(fastout_last_error(NULL), -EINVAL);
  /* the check of a short fastout_write, as docs/c-api.md shows it */
  CHECK(fastout_write(NULL, 4, n, f) != n);
  CHECK_EQ(fastout_error(f), 0); /* not sticky: the writer is well */
  CHECK_EQ(fastout_last_error(f), -EINVAL);
  CHECK(strcmp(fastout_error_name(fastout_last_error(f)), "Invalid argument") == 0);
  CHECK_EQ(fastout_write("abc", 1, 3, f), 3);
  CHECK_EQ(fastout_last_error(f), -EINVAL); /* as errno: not reset by a success */
  CHECK_EQ(fastout_write("x", SIZE_MAX / 2, 3, f), 0);
  CHECK_EQ(fastout_last_error(f), -EOVERFLOW);
  CHECK_EQ(fastout_fprintf(f, bad_format, 1), -EINVAL);
  CHECK_EQ(fastout_last_error(f), -EINVAL);
  CHECK_EQ(fastout_fprintf(f, "%ls", L"\x263a"), -EILSEQ); /* not in the "C" locale */
  CHECK_EQ(fastout_last_error(f), -EILSEQ);
  CHECK(is_eof_with(fastout_fputs(NULL, f), -EINVAL));
  CHECK_EQ(fastout_last_error(f), -EINVAL);
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "abc");
}

TEST(last_error_is_the_sticky_write_error_too) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  size_t s;
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    fastout_file* f = open_with_buffer("/dev/full", buffer_sizes[s]);
    fastout_cursor cursor;
    char data[300];
    int i, result = 0;
    memset(data, 'd', sizeof data);
    CHECK(f != NULL);
    for (i = 0; i < 2000 && result == 0; ++i)
      if (fastout_write(data, 1, sizeof data, f) != sizeof data) result = -1;
    if (result == 0) CHECK(is_eof_with(fastout_flush(f), -ENOSPC));
    CHECK_EQ(fastout_last_error(f), -ENOSPC);
    CHECK(strcmp(fastout_error_name(fastout_last_error(f)), "No space left on device") == 0);
    CHECK_EQ(fastout_write(NULL, 1, 1, f), 0); /* a call's own error after it */
    CHECK_EQ(fastout_last_error(f), -EINVAL);
    CHECK(is_eof_with(fastout_putc('x', f), -ENOSPC));
    CHECK_EQ(fastout_last_error(f), -ENOSPC);
    CHECK_EQ(fastout_write(NULL, 1, 1, f), 0);
    cursor = fastout_cursor_begin(f);
    CHECK_EQ(cursor.error, -ENOSPC);
    CHECK_EQ(fastout_last_error(f), -ENOSPC);
    CHECK_EQ(fastout_cursor_end(cursor), -ENOSPC);
    CHECK(is_eof_with(fastout_close(f), -ENOSPC));
  }
}

TEST(dev_full_is_enospc_and_sticky) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  size_t s;
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    fastout_file* f = open_with_buffer("/dev/full", buffer_sizes[s]);
    fastout_stats stats;
    int result = 0, i;
    CHECK(f != NULL);
    /* the first call that reaches the file meets the error */
    for (i = 0; i < 1000 && result >= 0; ++i) result = fastout_putc('a', f);
    if (result >= 0) result = fastout_flush(f);
    CHECK(is_eof_with(result, -ENOSPC)); /* putc's and fflush's failure */
    CHECK_EQ(fastout_last_error(f), -ENOSPC);
    CHECK_EQ(all_calls_fail_with(f, -ENOSPC), 0);
    CHECK_EQ(fastout_get_stats(f, &stats), 0);
    CHECK_EQ(stats.bytes_written, 0);
    CHECK(stats.bytes_accepted > 0);
    CHECK(is_eof_with(fastout_close(f), -ENOSPC));
  }
}

static int file_size_limit_child(void) {
  size_t s;
#if defined(_WIN32)
  c_test_limit_file_size(1000);
#else
  struct rlimit limit;
  signal(SIGXFSZ, SIG_IGN);
  limit.rlim_cur = limit.rlim_max = 1000;
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 1;
#endif
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    fastout_file* f = open_with_buffer(c_test_path("limited"), buffer_sizes[s]);
    fastout_stats stats;
    int result = 0, i;
    if (f == NULL) return 2;
    for (i = 0; i < 2000 && result >= 0; ++i) result = fastout_fprintf(f, "%d", i % 10);
    /* printf's failure is the code itself; fflush's is EOF */
    if (result >= 0 && !is_eof_with(fastout_flush(f), -EFBIG)) return 3;
    if (result < 0 && result != -EFBIG) return 3;
    if (all_calls_fail_with(f, -EFBIG) != 0) return 4;
    if (fastout_get_stats(f, &stats) != 0 || stats.bytes_written != 1000) return 5;
    if (!is_eof_with(fastout_close(f), -EFBIG)) return 6;
  }
  return 0;
}

/* On Windows, which has no RLIMIT_FSIZE, the platform table stands in for
 * it (c_test_limit_file_size()), in the child as on Linux. */
TEST(file_size_limit_is_efbig) {
  int status = c_test_run_in_child(file_size_limit_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

static int broken_pipe_child(void) {
  size_t s;
  signal(SIGPIPE, SIG_IGN);
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    int fds[2];
    fastout_file* f;
    int result = 0, i;
    if (pipe(fds) != 0) return 1;
    close(fds[0]); /* the reader is gone */
    f = fastout_fdopen(fds[1], FASTOUT_ADOPT, NULL);
    if (f == NULL) return 2;
    for (i = 0; i < 1000 && result >= 0; ++i) result = fastout_fputs("data\n", f);
    if (result >= 0) result = fastout_flush(f);
    if (!is_eof_with(result, -EPIPE) || fastout_last_error(f) != -EPIPE) return 3;
    if (all_calls_fail_with(f, -EPIPE) != 0) return 4;
    if (!is_eof_with(fastout_close(f), -EPIPE)) return 5;
  }
  return 0;
}

TEST(pipe_without_reader_is_epipe) {
  int status = c_test_run_in_child(broken_pipe_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

/* With SIGPIPE's default disposition the process dies, as with stdio. */
static int sigpipe_child(void) {
  int fds[2];
  fastout_file* f;
  signal(SIGPIPE, SIG_DFL);
  if (pipe(fds) != 0) return 1;
  close(fds[0]);
  f = fastout_fdopen(fds[1], FASTOUT_ADOPT, NULL);
  if (f == NULL) return 2;
  fastout_fputs("data\n", f);
  fastout_flush(f);
  return 3;
}

TEST(pipe_without_reader_raises_sigpipe_by_default) {
  C_TEST_SKIP_ON_WINDOWS(
      "a write to a pipe without a reader kills with SIGPIPE on Linux; Windows has no SIGPIPE (pipe_without_reader_is_epipe)");
  int status = c_test_run_in_child(sigpipe_child);
  CHECK(WIFSIGNALED(status));
  CHECK_EQ(WTERMSIG(status), SIGPIPE);
}

/* ----------------------------------------- closing stdout, and at exit */

/* fastout_close(fastout_stdout()) closes descriptor 1, as fclose(stdout)
 * does (strace of a stdio program shows close(1)), once: closing the closed
 * writer again leaves alone whatever took descriptor 1 since. */
static int close_stdout_child(void) {
  int taken;
  if (redirect_standard("out", NULL) < 0) return 100;
  if (fastout_puts("written") < 0) return 1;
  if (fastout_close(fastout_stdout()) != 0) return 2;
  errno = 0;
  if (fcntl(1, F_GETFD) != -1 || errno != EBADF) return 3; /* closed */
  taken = open(c_test_path("other"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (taken != 1) return 4; /* the lowest free descriptor */
  if (fastout_close(fastout_stdout()) != 0) return 5;
  if (fcntl(1, F_GETFD) == -1) return 6; /* not closed a second time */
  if (!is_eof_with(fastout_puts("lost"), -EBADF)) return 7;
  return 0;
}

TEST(closing_stdout_closes_descriptor_1) {
  int status = c_test_run_in_child(close_stdout_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
  CHECK_FILE_TEXT(c_test_path("out"), "written\n");
}

/* What happens to a write error still unreported at exit, chosen from C:
 * report (the default's line), silent, or the program's own handler. The
 * status of 0 becomes 1 whichever. stdout is /dev/full. */
static int exit_policy;

static void own_handler(const fastout_error_report* report, void* context) {
  char line[200];
  int size = snprintf(line, sizeof line, "own: %s %s %lu %s\n", report->path,
                      fastout_error_name(report->error), (unsigned long)report->bytes_lost,
                      (const char*)context);
  if (size > 0) (void)!write(2, line, (unsigned)size); /* MinGW's write() counts in unsigned */
}

static void chaining_handler(const fastout_error_report* report, void* context) {
  (void)!write(2, "chained: ", 9);
  fastout_default_error_handler(report, context);
}

static int exit_policy_child(void) {
  static char context[] = "context";
  int full = open("/dev/full", O_WRONLY);
  if (full < 0 || redirect_standard("out", "err") < 0 || dup2(full, 1) < 0) return 100;
  switch (exit_policy) {
    case 0: break; /* report: the default */
    case 1: fastout_set_error_handler(fastout_silent_error_handler, NULL); break;
    case 2: fastout_set_error_handler(own_handler, context); break;
    case 3: fastout_set_error_handler(chaining_handler, NULL); break;
    default: /* silent, then the default again */
      fastout_set_error_handler(fastout_silent_error_handler, NULL);
      fastout_set_error_handler(NULL, NULL);
      break;
  }
  fastout_puts("lost"); /* buffered: the error is met at exit */
  exit(0);
}

TEST(exit_policy_for_an_unreported_error) {
  static const char* const expected[] = {
      "fastout: lost 5 bytes writing \"<stdout>\": No space left on device\n",
      "",
      "own: <stdout> No space left on device 5 context\n",
      "chained: fastout: lost 5 bytes writing \"<stdout>\": No space left on device\n",
      "fastout: lost 5 bytes writing \"<stdout>\": No space left on device\n",
  };
  C_TEST_SKIP_UNLESS_DEV_FULL();
  for (exit_policy = 0; exit_policy < 5; ++exit_policy) {
    int status = c_test_run_in_child(exit_policy_child);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 1); /* lost output is never a success */
    CHECK_FILE_TEXT(c_test_path("err"), expected[exit_policy]);
  }
}

/* ------------------------------------------------------------- seeking */

/* Seeking back and overwriting, as `xxd -r` patches its output: what is
 * buffered goes out first, ftell() counts it, SEEK_CUR is from the
 * writer's position, SEEK_END from the file's end, past the end leaves a
 * hole, and the counts count bytes. Through every buffer size. */
TEST(seek_back_and_overwrite_a_file) {
  size_t s;
  for (s = 0; s < BUFFER_SIZE_COUNT; ++s) {
    fastout_file* f = open_with_buffer(c_test_path("seek"), buffer_sizes[s]);
    fastout_stats stats;
    CHECK(f != NULL);
    CHECK_EQ(fastout_ftell(f), 0);
    CHECK_EQ(fastout_fputs("hello world\n", f), 1);
    CHECK_EQ(fastout_ftell(f), 12); /* buffered or not */
    CHECK_EQ(fastout_ftello(f), 12);
    CHECK_EQ(fastout_fseek(f, 6, SEEK_SET), 0);
    CHECK_EQ(fastout_ftell(f), 6);
    CHECK_EQ(fastout_fputs("WORLD", f), 1);
    CHECK_EQ(fastout_ftell(f), 11);
    CHECK_EQ(fastout_fseek(f, -2, SEEK_CUR), 0); /* from the writer's 11, not the file's */
    CHECK_EQ(fastout_putc('X', f), 'X');
    CHECK_EQ(fastout_fseeko(f, 0, SEEK_END), 0);
    CHECK_EQ(fastout_ftell(f), 12);
    CHECK_EQ(fastout_fprintf(f, "%s\n", "end"), 4);
    fastout_rewind(f);
    CHECK_EQ(fastout_ftell(f), 0);
    CHECK_EQ(fastout_putc('H', f), 'H');
    CHECK_EQ(fastout_fseek(f, 20, SEEK_SET), 0); /* past the end: a hole of zeros */
    CHECK_EQ(fastout_write("!", 1, 1, f), 1);
    CHECK_EQ(fastout_get_stats(f, &stats), 0);
    CHECK_EQ(stats.bytes_accepted, 12 + 5 + 1 + 4 + 1 + 1); /* bytes, not positions */
    CHECK_EQ(fastout_error(f), 0);
    CHECK_EQ(fastout_close(f), 0);
    CHECK_FILE(c_test_path("seek"), "Hello WORXD\nend\n\0\0\0\0!", 21);
  }
}

/* FASTOUT_APPEND, as fopen(path, "a"): ftell starts at the end, and every
 * write goes there, wherever a seek moved the position. */
TEST(seek_in_append_mode) {
  fastout_options options;
  fastout_file* f = fastout_open(c_test_path("append"), NULL);
  CHECK(f != NULL);
  CHECK_EQ(fastout_fputs("hello", f), 1);
  CHECK_EQ(fastout_close(f), 0);
  fastout_options_init(&options);
  options.mode = FASTOUT_APPEND;
  f = fastout_open(c_test_path("append"), &options);
  CHECK(f != NULL);
  CHECK_EQ(fastout_ftell(f), 5);
  CHECK_EQ(fastout_fputs("ab", f), 1);
  CHECK_EQ(fastout_ftell(f), 7);
  CHECK_EQ(fastout_fseek(f, 0, SEEK_SET), 0);
  CHECK_EQ(fastout_fputs("c", f), 1); /* at the end all the same */
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("append"), "helloabc");
}

/* A seek that fails is the call's error only: -1, errno, the code in
 * fastout_last_error(), and the writer goes on as it was. */
TEST(a_failed_seek_changes_nothing) {
  fastout_file* f = fastout_open(c_test_path("seek"), NULL);
  CHECK(f != NULL);
  CHECK_EQ(fastout_fputs("abc", f), 1);
  errno = 0;
  CHECK_EQ(fastout_fseek(f, -1, SEEK_SET), -1); /* before the start */
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(fastout_last_error(f), -EINVAL);
  errno = 0;
  CHECK_EQ(fastout_fseek(f, 0, 7), -1); /* no such whence */
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_ftell(f), 3);
  CHECK_EQ(fastout_fputs("d", f), 1);
  errno = 0;
  CHECK_EQ(fastout_fseek(NULL, 0, SEEK_SET), -1);
  CHECK_EQ(errno, EINVAL);
  errno = 0;
  CHECK_EQ(fastout_ftell(NULL), -1);
  CHECK_EQ(errno, EINVAL);
  fastout_rewind(NULL); /* errno EINVAL, nothing else */
  CHECK_EQ(errno, EINVAL);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_FILE_TEXT(c_test_path("seek"), "abcd");
}

/* A writer whose write failed cannot seek: the position after a lost
 * write is nobody's to know. The error is the sticky one. */
TEST(a_failed_writer_cannot_seek) {
  C_TEST_SKIP_UNLESS_DEV_FULL();
  fastout_file* f = open_with_buffer("/dev/full", 64);
  int i;
  CHECK(f != NULL);
  for (i = 0; i < 10; ++i) CHECK_EQ(fastout_putc('x', f), 'x');
  CHECK(is_eof_with(fastout_flush(f), -ENOSPC));
  errno = 0;
  CHECK_EQ(fastout_fseek(f, 0, SEEK_SET), -1);
  CHECK_EQ(errno, ENOSPC);
  errno = 0;
  CHECK_EQ(fastout_ftell(f), -1);
  CHECK_EQ(errno, ENOSPC);
  CHECK(is_eof_with(fastout_close(f), -ENOSPC));
#if !defined(_WIN32)
  /* Linux's /dev/full can seek (Wine's cannot: ESPIPE, nothing sent), so
   * there a seek's own flush meets the error, and it sticks. */
  f = open_with_buffer("/dev/full", 64);
  CHECK(f != NULL);
  for (i = 0; i < 10; ++i) CHECK_EQ(fastout_putc('x', f), 'x');
  errno = 0;
  CHECK_EQ(fastout_fseek(f, 0, SEEK_SET), -1);
  CHECK_EQ(errno, ENOSPC);
  CHECK_EQ(fastout_error(f), -ENOSPC);
  CHECK(is_eof_with(fastout_close(f), -ENOSPC));
#endif
}

/* A pipe cannot seek: ESPIPE, and nothing was sent by trying. */
TEST(seek_on_a_pipe_is_espipe) {
  int fds[2];
  fastout_file* f;
  fastout_stats stats;
  char got[16];
  CHECK_EQ(pipe(fds), 0);
  f = fastout_fdopen(fds[1], FASTOUT_ADOPT, NULL);
  CHECK(f != NULL);
  CHECK_EQ(fastout_fputs("data", f), 1);
  errno = 0;
  CHECK_EQ(fastout_fseek(f, 0, SEEK_SET), -1);
  CHECK_EQ(errno, ESPIPE);
  CHECK_EQ(fastout_last_error(f), -ESPIPE);
  errno = 0;
  CHECK_EQ(fastout_ftell(f), -1);
  CHECK_EQ(errno, ESPIPE);
  errno = 0;
  CHECK_EQ(fastout_ftello(f), -1);
  CHECK_EQ(errno, ESPIPE);
  errno = 0;
  fastout_rewind(f);
  CHECK_EQ(errno, ESPIPE);
  CHECK_EQ(fastout_get_stats(f, &stats), 0);
  CHECK_EQ(stats.write_calls, 0); /* refused before the flush */
  CHECK_EQ(fastout_error(f), 0);
  CHECK_EQ(fastout_close(f), 0);
  CHECK_EQ(read(fds[0], got, sizeof got), 4);
  CHECK(memcmp(got, "data", 4) == 0);
  close(fds[0]);
}

/* Standard output that is a pipe cannot seek either. */
static int stdout_pipe_seek_child(void) {
  int fds[2];
  if (pipe(fds) != 0 || dup2(fds[1], 1) < 0) return 100;
  errno = 0;
  if (fastout_fseek(fastout_stdout(), 0, SEEK_SET) != -1 || errno != ESPIPE) return 1;
  errno = 0;
  if (fastout_ftell(fastout_stdout()) != -1 || errno != ESPIPE) return 2;
  return 0;
}

TEST(seek_on_a_stdout_pipe_is_espipe) {
  int status = c_test_run_in_child(stdout_pipe_seek_child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

#define ALL_TESTS(X)                                                             \
  X(options_have_the_cxx_defaults)                                               \
  X(every_output_call_through_every_buffer_size)                                 \
  X(stdio_return_values)                                                         \
  X(vprintf_takes_a_va_list)                                                     \
  X(printf_positional_and_n)                                                     \
  X(printf_larger_than_the_buffer)                                               \
  X(small_writes_read_only_their_bytes)                                          \
  X(large_write_is_one_system_call)                                              \
  X(flush_sends_everything)                                                      \
  X(line_buffering_sends_complete_lines)                                         \
  X(open_modes_and_permissions)                                                  \
  X(fdopen_adopts_or_borrows)                                                    \
  X(stdout_and_stderr)                                                           \
  X(stdout_is_one_writer_flushed_at_exit)                                        \
  X(stdout_that_cannot_be_written_at_exit_fails_the_process)                     \
  X(stdout_calls_without_a_handle_through_every_buffer_size)                     \
  X(stdout_and_stderr_handles_are_the_process_writers)                           \
  X(stdout_calls_after_close_fail_until_it_is_opened_again)                      \
  X(stdout_calls_without_a_handle_meet_a_write_error)                            \
  X(stdout_options_are_set_once_before_the_first_write)                          \
  X(stdout_options_after_output_are_refused_and_change_nothing)                  \
  X(stdout_options_refused_for_bad_options_a_cursor_or_a_closed_stdout)          \
  X(sync_with_stdio_keeps_stdio_and_fastout_in_order)                            \
  X(stdio_and_fastout_are_two_buffers_without_sync)                              \
  X(names_of_0_2_keep_their_meaning)                                             \
  X(cursor_writes_what_putc_writes)                                              \
  X(cursor_makes_other_calls_busy)                                               \
  X(cursor_errors_are_sticky)                                                    \
  X(cursor_on_a_line_buffered_writer)                                            \
  X(writers_left_open_are_flushed_at_exit)                                       \
  X(what_exit_cannot_write_is_reported)                                          \
  X(stdout_on_a_full_disk_ends_with_one_report_and_a_failing_status)             \
  X(stdout_into_a_pipe_without_reader_ends_with_one_report_and_a_failing_status) \
  X(what_a_writer_lost_after_its_error_is_reported_at_exit)                      \
  X(open_errors_name_the_cause)                                                  \
  X(null_arguments_are_einval)                                                   \
  X(size_times_count_overflow)                                                   \
  X(bad_formats_fail_the_call_only)                                              \
  X(error_names_are_stable_text)                                                 \
  X(calls_after_an_error_are_counted_as_lost)                                    \
  X(last_error_is_the_failed_calls_code)                                         \
  X(last_error_is_the_sticky_write_error_too)                                    \
  X(dev_full_is_enospc_and_sticky)                                               \
  X(file_size_limit_is_efbig)                                                    \
  X(pipe_without_reader_is_epipe)                                                \
  X(pipe_without_reader_raises_sigpipe_by_default)                               \
  X(buffer_budget_sizes_default_writers_only)                                    \
  X(closing_stdout_closes_descriptor_1)                                          \
  X(exit_policy_for_an_unreported_error)                                         \
  X(seek_back_and_overwrite_a_file)                                              \
  X(seek_in_append_mode)                                                         \
  X(a_failed_seek_changes_nothing)                                               \
  X(a_failed_writer_cannot_seek)                                                 \
  X(seek_on_a_pipe_is_espipe)                                                    \
  X(seek_on_a_stdout_pipe_is_espipe)

C_TEST_MAIN(ALL_TESTS)
