/* SPDX-License-Identifier: MIT */
/* A small harness for fastout's tests written in C (C99 and later).
 *
 * A test file defines its tests with TEST(name), lists them in
 * `#define ALL_TESTS(X) X(first) X(second) ...`, and ends with
 * C_TEST_MAIN(ALL_TESTS). test/CMakeLists.txt reads the X(name) entries and
 * registers each test with CTest on its own: `program name` runs one test,
 * `program` runs them all. A failed CHECK prints where and what, and ends
 * that test; the program exits 1 if any test failed, and 77 if the one test
 * it ran was skipped (c_test_skip()).
 *
 * Include it first: it asks for the POSIX and XSI interfaces the tests use. */
#ifndef FASTOUT_C_TEST_H_
#define FASTOUT_C_TEST_H_

#ifndef _XOPEN_SOURCE
#  define _XOPEN_SOURCE 700
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sanitizers.h"

/* AddressSanitizer's printf interceptor parses every format itself, and
 * stops the process on some that glibc accepts or refuses by design (the I
 * flag, a '%' at the end): the very formats these tests give snprintf and
 * fastout_printf. Its own checks of the arguments are off; ASan still
 * watches every byte the formatting reads and writes. */
#ifdef FASTOUT_TEST_ASAN
const char* __asan_default_options(void);
const char* __asan_default_options(void) { return "check_printf=0"; }
#endif

static int c_test_failed = 0;
static int c_test_skipped = 0;
static const char* c_test_current = "";
/* In a child that c_test_run_in_child() started on Windows (where there is
 * no fork()): the number of the call whose body it runs, and it replays
 * the test up to that call without checking anything (the parent checks).
 * 0 otherwise, and always 0 on every other system. */
static int c_test_child_target = 0;

/* Marks the running test as skipped (CTest's SKIP_RETURN_CODE 77 when it
 * runs alone); the test then returns. */
static inline void c_test_skip(const char* reason) {
  fprintf(stderr, "%s: skipped: %s\n", c_test_current, reason);
  c_test_skipped = 1;
}

static inline void c_test_report(const char* file, int line, const char* what) {
  /* What a skipped test checks after the skip is moot, and a child's replay
   * checks nothing: its parent does. */
  if (c_test_skipped || c_test_child_target != 0) return;
  fprintf(stderr, "%s:%d: %s: check failed: %s\n", file, line, c_test_current, what);
  c_test_failed = 1;
}

#define TEST(name) static void name(void)

/* Skips the running test on Windows, saying why, and returns from it. */
#if defined(_WIN32)
#  define C_TEST_SKIP_ON_WINDOWS(why)      \
    do {                                   \
      c_test_skip("not on Windows: " why); \
      return;                              \
    } while (0)
#else
#  define C_TEST_SKIP_ON_WINDOWS(why) \
    do {                              \
    } while (0)
#endif

/* Skips the running test under ThreadSanitizer, saying why (sanitizers.h:
 * a sweep that starts no thread), and returns from it. */
#if defined(FASTOUT_TEST_TSAN)
#  define C_TEST_SKIP_UNDER_THREAD_SANITIZER()        \
    do {                                              \
      c_test_skip(FASTOUT_TEST_SWEEP_NOT_UNDER_TSAN); \
      return;                                         \
    } while (0)
#else
#  define C_TEST_SKIP_UNDER_THREAD_SANITIZER() \
    do {                                       \
    } while (0)
#endif

#if defined(_WIN32)
/* Windows has no RLIMIT_FSIZE: from this call on, every file the platform
 * table writes stops at `limit` bytes, and the next write fails as Windows'
 * do where a file outgrows what its filesystem takes (ERROR_FILE_TOO_LARGE,
 * which the platform makes EFBIG). test/windows/file_size_limit.h. */
void c_test_limit_file_size(long long limit);
#endif

/* The permission bits a regular file shows after it was given `bits`: the
 * bits themselves on POSIX systems; on Windows, whose files have one
 * permission of POSIX's, the read-only attribute (set where `bits` has no
 * S_IWUSR), 0444 for a read-only file and 0666 for any other, as the C
 * runtime's stat() shows them (test_util.h's kept_bits()). */
static inline unsigned c_test_kept_bits(unsigned bits) {
#if defined(_WIN32)
  return (bits & 0200u) != 0 ? 0666u : 0444u;
#else
  return bits;
#endif
}

/* Skips the running test where there is no /dev/full (Windows), saying
 * why, and returns from it. Under Wine, whose drive Z: is the Unix root and
 * holds the tests' directory, "/dev/full" is the real device, and its
 * writes fail with ERROR_DISK_FULL as a full disk's do (test_util.h's
 * dev_full_is_here() says more). */
#if defined(_WIN32)
static inline int c_test_dev_full_is_here(void) {
  DWORD written = 0;
  int full;
  HANDLE device = CreateFileA("/dev/full", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                              OPEN_EXISTING, 0, NULL);
  if (device == INVALID_HANDLE_VALUE) return 0;
  full = !WriteFile(device, "x", 1, &written, NULL) && GetLastError() == ERROR_DISK_FULL;
  CloseHandle(device);
  return full;
}
#  define C_TEST_SKIP_UNLESS_DEV_FULL()                                            \
    do {                                                                           \
      if (!c_test_dev_full_is_here()) {                                            \
        c_test_skip(                                                               \
            "not on Windows: needs /dev/full, which Windows has not (under "       \
            "Wine, whose drive Z: is the Unix root, the tests use the real one)"); \
        return;                                                                    \
      }                                                                            \
    } while (0)
#else
#  define C_TEST_SKIP_UNLESS_DEV_FULL() \
    do {                                \
    } while (0)
#endif

/* Ends the test (a `return` from it) when `condition` is false. */
#define CHECK(condition)                             \
  do {                                               \
    if (!(condition) && c_test_child_target == 0) {  \
      c_test_report(__FILE__, __LINE__, #condition); \
      return;                                        \
    }                                                \
  } while (0)

/* CHECK for two integers, printing both. */
#define CHECK_EQ(actual, expected)                                                         \
  do {                                                                                     \
    long long c_test_a = (long long)(actual), c_test_e = (long long)(expected);            \
    if (c_test_a != c_test_e && c_test_child_target == 0) {                                \
      char c_test_what[512];                                                               \
      snprintf(c_test_what, sizeof c_test_what, "%s == %s (%lld, expected %lld)", #actual, \
               #expected, c_test_a, c_test_e);                                             \
      c_test_report(__FILE__, __LINE__, c_test_what);                                      \
      return;                                                                              \
    }                                                                                      \
  } while (0)

/* CHECK that a file holds exactly `size` bytes of `expected`. */
#define CHECK_FILE(path, expected, size)                                         \
  do {                                                                           \
    size_t c_test_size = 0;                                                      \
    char* c_test_content = c_test_read_file(path, &c_test_size);                 \
    int c_test_same = c_test_content != NULL && c_test_size == (size_t)(size) && \
                      memcmp(c_test_content, expected, c_test_size) == 0;        \
    if (!c_test_same && c_test_child_target == 0) {                              \
      char c_test_what[512];                                                     \
      snprintf(c_test_what, sizeof c_test_what,                                  \
               "%s holds %lu bytes \"%.60s\", expected %lu \"%.60s\"", path,     \
               (unsigned long)c_test_size, c_test_content ? c_test_content : "", \
               (unsigned long)(size), (const char*)(expected));                  \
      free(c_test_content);                                                      \
      c_test_report(__FILE__, __LINE__, c_test_what);                            \
      return;                                                                    \
    }                                                                            \
    free(c_test_content);                                                        \
  } while (0)

/* CHECK_FILE for a NUL-terminated text. */
#define CHECK_FILE_TEXT(path, text) CHECK_FILE(path, text, strlen(text))

/* The whole file at `path`, NUL-terminated (malloc'd), or NULL. */
static inline char* c_test_read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* content = NULL;
  size_t used = 0, capacity = 0;
  if (f == NULL) return NULL;
  for (;;) {
    size_t n;
    if (capacity - used < 4096) {
      char* bigger;
      capacity = capacity * 2 + 8192;
      bigger = (char*)realloc(content, capacity);
      if (bigger == NULL) {
        free(content);
        fclose(f);
        return NULL;
      }
      content = bigger;
    }
    n = fread(content + used, 1, capacity - used - 1, f);
    used += n;
    if (n == 0) break;
  }
  fclose(f);
  content[used] = '\0';
  *size = used;
  return content;
}

/* A fresh directory under $TMPDIR or /tmp for the test's files; removed
 * (with its files, not subdirectories) by c_test_remove_dir(). */
static char c_test_dir_path[256];
static inline const char* c_test_make_dir(void) {
#if defined(_WIN32)
  const char* base = getenv("TEMP"); /* Windows' %TEMP% */
  const char* parents = getenv("FASTOUT_C_TEST_DIR");
  if (c_test_child_target != 0 && parents != NULL) { /* a child: its parent's */
    snprintf(c_test_dir_path, sizeof c_test_dir_path, "%s", parents);
    return c_test_dir_path;
  }
#else
  const char* base = getenv("TMPDIR");
#endif
  snprintf(c_test_dir_path, sizeof c_test_dir_path, "%s/fastout-c-test-XXXXXX",
           base != NULL && *base != '\0' ? base : "/tmp");
  if (mkdtemp(c_test_dir_path) == NULL) {
    perror("mkdtemp");
    exit(2);
  }
  return c_test_dir_path;
}

/* dir/name in a static buffer (one of four, so a few can be alive). */
static inline const char* c_test_path(const char* name) {
  static char paths[4][512];
  static int next = 0;
  char* path = paths[next++ % 4];
  snprintf(path, 512, "%s/%s", c_test_dir_path, name);
  return path;
}

static inline void c_test_remove_dir(void) {
  char command[600];
  int ignored;
  if (c_test_dir_path[0] == '\0' || c_test_child_target != 0) return; /* a child: its parent's */
#if defined(_WIN32)
  snprintf(command, sizeof command, "rmdir /s /q \"%s\"", c_test_dir_path);
#else
  snprintf(command, sizeof command, "rm -rf '%s'", c_test_dir_path);
#endif
  ignored = system(command);
  (void)ignored;
  c_test_dir_path[0] = '\0';
}

/* Runs `body` in a forked child, for tests that change process-wide state
 * (limits, signal dispositions, standard output). Returns the child's wait
 * status; the child exits (_exit) with what body() returns.
 *
 * Windows has no fork(): there the child is this program started again
 * (_spawnv) on the same test, with FASTOUT_C_TEST_CHILD set to the number
 * of this call in the test and FASTOUT_C_TEST_DIR to the test's directory.
 * As GoogleTest's "threadsafe" death tests do, the child runs the test
 * again from its start: the earlier calls return 0 at once, no CHECK
 * stops or reports anything, and the call with that number runs body() and
 * exits with what it returns. So what a test does before such a call must
 * be safe to do twice (opening its own files, say); the standard
 * descriptors are the parent's, as after fork(). The status is the
 * child's exit code as waitpid() gives it (code << 8). */
static int c_test_child_calls = 0; /* this test's calls so far */
static inline int c_test_run_in_child(int (*body)(void)) {
#if defined(_WIN32)
  char self[MAX_PATH];
  char quoted_self[MAX_PATH + 2];
  char call_setting[64];
  char dir_setting[sizeof c_test_dir_path + 32];
  const char* argv[3];
  intptr_t code;
  int attempt;
  DWORD self_size;
  ++c_test_child_calls;
  if (c_test_child_target != 0) {
    if (c_test_child_calls == c_test_child_target) _exit(body());
    return 0; /* an earlier call: the parent's */
  }
  fflush(NULL);
  self_size = GetModuleFileNameA(NULL, self, sizeof self);
  if (self_size == 0 || self_size >= sizeof self) {
    fprintf(stderr, "GetModuleFileNameA failed\n");
    exit(2);
  }
  snprintf(quoted_self, sizeof quoted_self, "\"%s\"", self); /* _spawnv joins with spaces */
  snprintf(call_setting, sizeof call_setting, "FASTOUT_C_TEST_CHILD=%d", c_test_child_calls);
  snprintf(dir_setting, sizeof dir_setting, "FASTOUT_C_TEST_DIR=%s", c_test_dir_path);
  _putenv(call_setting);
  _putenv(dir_setting);
  argv[0] = quoted_self;
  argv[1] = c_test_current;
  argv[2] = NULL;
  /* Under Wine on a busy machine, starting a process has failed now and
   * then (once in a whole run, EINVAL, the same call passing on its own):
   * the harness's failure, not the test's, so it is tried again, and said. */
  for (attempt = 1;; ++attempt) {
    code = _spawnv(_P_WAIT, self, argv);
    if (code >= 0 || attempt == 3) break;
    fprintf(stderr, "c_test: _spawnv failed (%s): starting the child again\n", strerror(errno));
  }
  _putenv("FASTOUT_C_TEST_CHILD=");
  _putenv("FASTOUT_C_TEST_DIR=");
  if (code < 0) {
    perror("_spawnv");
    exit(2);
  }
  return (int)((code & 0xff) << 8);
#else
  pid_t pid;
  int status = 0;
  fflush(NULL);
  pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(2);
  }
  if (pid == 0) _exit(body());
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("waitpid");
      exit(2);
    }
  }
  return status;
#endif
}

/* The call of c_test_run_in_child() this process is the child of, on
 * Windows (FASTOUT_C_TEST_CHILD); 0 in a test's own process. */
static inline int c_test_child_call(void) {
#if defined(_WIN32)
  const char* call = getenv("FASTOUT_C_TEST_CHILD");
  return call != NULL && *call != '\0' ? atoi(call) : 0;
#else
  return 0;
#endif
}

struct c_test_entry {
  const char* name;
  void (*run)(void);
};

#define C_TEST_ENTRY(name) {#name, name},

/* main(): runs the test named by argv[1], or every test. */
#define C_TEST_MAIN(ALL)                                                        \
  int main(int argc, char** argv) {                                             \
    static const struct c_test_entry tests[] = {ALL(C_TEST_ENTRY){NULL, NULL}}; \
    int i, found = 0, any_failed = 0, skipped = 0;                              \
    c_test_child_target = c_test_child_call();                                  \
    for (i = 0; tests[i].name != NULL; ++i) {                                   \
      if (argc > 1 && strcmp(argv[1], tests[i].name) != 0) continue;            \
      found = 1;                                                                \
      c_test_current = tests[i].name;                                           \
      c_test_failed = 0;                                                        \
      c_test_skipped = 0;                                                       \
      c_test_child_calls = 0;                                                   \
      c_test_make_dir();                                                        \
      tests[i].run();                                                           \
      c_test_remove_dir();                                                      \
      any_failed |= c_test_failed;                                              \
      skipped = c_test_skipped;                                                 \
      fprintf(stderr, "%s: %s\n",                                               \
              c_test_failed ? "FAILED"                                          \
              : skipped     ? "skipped"                                         \
                            : "ok",                                                 \
              tests[i].name);                                                   \
    }                                                                           \
    if (!found) {                                                               \
      fprintf(stderr, "no test named %s\n", argc > 1 ? argv[1] : "");           \
      return 2;                                                                 \
    }                                                                           \
    if (argc > 1 && skipped && !any_failed) return 77;                          \
    return any_failed;                                                          \
  }

#endif /* FASTOUT_C_TEST_H_ */
