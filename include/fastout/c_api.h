/* SPDX-License-Identifier: MIT */
/* fastout's C API: stdio-style output for C programs and C-style C++.
 *
 * One opaque handle, fastout_file, and stdio's calls under stdio's names
 * with a fastout_ prefix, in stdio's argument order and with its return
 * conventions, so that moving a hot loop over is a search and replace:
 *
 *   to a handle      fputc, putc -> fastout_putc     fwrite -> fastout_write
 *                    fputs -> fastout_fputs          fprintf -> fastout_fprintf
 *                    vfprintf -> fastout_vfprintf    fflush -> fastout_flush
 *                    fclose -> fastout_close         fileno -> fastout_fileno
 *   standard output  putchar -> fastout_putchar      puts -> fastout_puts
 *                    printf -> fastout_printf        vprintf -> fastout_vprintf
 *                    stdout -> fastout_stdout()      stderr -> fastout_stderr()
 *
 * What differs from stdio: no lock (a handle is for one thread at a time), a
 * 256 KiB buffer, and errors that are never lost (a short write is
 * continued, EINTR retried, anything else reported by the call that met it
 * and sticky afterwards). fastout's standard output is a buffer of its own
 * beside stdio's stdout: what goes through both comes out in order only
 * after fastout_sync_with_stdio(), or with a flush of one before the other
 * is used (docs/c-api.md, "Moving from stdio").
 *
 * 0.2.0's fastout_puts(text, file), fastout_printf(file, format, ...) and
 * fastout_vprintf(file, format, args) behaved as fputs, fprintf and
 * vfprintf. They still do, for one more release, with a deprecation warning
 * naming the new call; see "0.2.0's names" at the end of this header.
 *
 * C99 and later, and C++ (any standard): a C++ program may use it too, and
 * share one writer between C and C++ code (fastout::c_handle()).
 *
 * Errors. A call named after a stdio function fails as that function does,
 * so that a port by name keeps its checks:
 *   EOF (-1)     fastout_putc, fastout_putchar, fastout_fputs, fastout_puts,
 *                fastout_flush, fastout_close (putc, fputc, putchar, fputs,
 *                puts, fflush, fclose)
 *   a short count  fastout_write (fwrite): 0 items
 *   a negative value  the printf family: the negative error code itself
 *   -1           fastout_fileno, fastout_fseek, fastout_ftell (and their
 *                o forms)
 * and each sets errno to the cause. The cause is also kept as a negative
 * error code, the negation of an errno value (<errno.h>), which never
 * changes meaning: fastout_last_error() holds the failed call's,
 * fastout_error() a sticky write error's. A program written for `< 0`
 * keeps working: every failure above is negative (but a short count).
 * fastout's own calls (no stdio name: fastout_open_*, fastout_set_*,
 * fastout_get_stats, fastout_error, the cursor, ...) return the negative
 * error code itself. fastout_error_name() gives a text for any code. The
 * codes of fastout's own:
 *   -EINVAL     a NULL handle, a NULL pointer with a nonzero length, options
 *               that are not valid or not initialized, a printf format that
 *               glibc refuses
 *   -EBADF      the writer is closed (or a negative descriptor was given)
 *   -EBUSY      a C++ fastout::cursor is writing to the same writer
 *   -ENOMEM     memory could not be allocated
 *   -EOVERFLOW  size * count does not fit in a size_t; a printf text longer
 *               than INT_MAX
 *   -EILSEQ     printf could not convert a wide character (%lc, %ls)
 *   -ENOTSUP    a compression format this build of fastout was built without
 *   -EPERM      a compressing writer used in a child of fork() (see
 *               docs/compression.md)
 *   -EALREADY   fastout_set_stdout_options() once standard output has been
 *               written to, closed, or given options
 *   -ESTALE     a writer whose descriptor was released beyond the descriptor
 *               limit finds another file at its path (docs/c-api.md,
 *               "Many outputs")
 * and every errno that open(2), write(2) or close(2) report: -ENOSPC,
 * -EFBIG, -EPIPE, -EIO, -EDQUOT, -EACCES, -ENOENT, -EEXIST, -EISDIR, ...
 * (0.2.0's stdio-named calls returned these codes too; they return EOF
 * now, and the code is in errno and fastout_last_error(): CHANGELOG.md.)
 *
 * A write error is sticky: every later output call, fastout_flush() and
 * fastout_close() fail with it again, fastout_error() holds it, and
 * fastout_get_stats() says exactly how many bytes reached the file; what the
 * program writes after it is counted as accepted, and lost. A call can also
 * fail on its own (a NULL pointer, an overflowing size, a bad format):
 * nothing is written, the writer is unchanged, and fastout_error() stays 0.
 * Either way fastout_last_error() is the failed call's code:
 *
 *   if (fastout_write(records, sizeof *records, n, out) != n)
 *     fprintf(stderr, "%s: %s\n", fastout_path(out),
 *             fastout_error_name(fastout_last_error(out)));
 *
 * No C++ exception ever leaves this API, and it never aborts the process. */
#ifndef FASTOUT_C_API_H_
#define FASTOUT_C_API_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <fastout/config.h>
#include <fastout/detail/hot_path.h>

#if defined(__MINGW32__)
/* MinGW's "printf" is Microsoft's (no %zu, %lld as %I64d): fastout_printf()
 * takes C99's and glibc's directives on every platform. */
#  define FASTOUT_PRINTF_FORMAT(format_index, first_argument) \
    __attribute__((format(gnu_printf, format_index, first_argument)))
#elif defined(__GNUC__) || defined(__clang__)
/* The compiler checks the arguments of fastout_printf() as printf's. */
#  define FASTOUT_PRINTF_FORMAT(format_index, first_argument) \
    __attribute__((format(printf, format_index, first_argument)))
#else
#  define FASTOUT_PRINTF_FORMAT(format_index, first_argument)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- opening */

/** A writer. Opaque: only fastout's functions look inside. */
typedef struct fastout_file fastout_file;

/** The buffer size a writer gets unless told otherwise: 256 KiB, as the C++
 * writer's (docs/buffer-size.md says why). */
#define FASTOUT_DEFAULT_BUFFER_SIZE (FASTOUT_C_CONVERT(size_t, 256) * 1024)

/** What happens to an existing file (fastout_options.mode). */
enum fastout_open_mode {
  FASTOUT_TRUNCATE = 0, /**< create, or empty an existing file: fopen's "w" (default) */
  FASTOUT_APPEND = 1,   /**< create, or write at the end: "a" */
  FASTOUT_EXCLUSIVE = 2 /**< create; fail with -EEXIST if it exists: "wx" */
};

/** When the buffer goes to the file besides fastout_flush() and
 * fastout_close() (fastout_options.buffering). */
enum fastout_buffering {
  FASTOUT_BUFFERING_AUTOMATIC =
      0,                      /**< line-buffered on a terminal, else full: stdio's rule (default) */
  FASTOUT_BUFFERING_FULL = 1, /**< only when the buffer is full */
  FASTOUT_BUFFERING_LINE = 2  /**< also after every call whose text holds a '\n' */
};

/** Whether fastout_close() closes a descriptor given to fastout_fdopen(). */
enum fastout_ownership {
  FASTOUT_BORROW = 0, /**< flush into it, never close it */
  FASTOUT_ADOPT = 1   /**< the writer owns it: fastout_close() closes it */
};

/** Compressed output (fastout_options.compression): docs/compression.md. */
enum fastout_compression {
  FASTOUT_COMPRESSION_NONE = 0,        /**< plain output (default) */
  FASTOUT_COMPRESSION_ZSTD = 1,        /**< zstd frames, .zst: needs libzstd */
  FASTOUT_COMPRESSION_GZIP = 2,        /**< gzip written as BGZF, .gz: needs libdeflate */
  FASTOUT_COMPRESSION_BY_EXTENSION = 3 /**< by the path: .zst is zstd, .gz and .bgz
                                            gzip, anything else plain */
};

/** fastout_options.compression_level: the format's own default, zstd's 3
 * or gzip's 6. */
#define FASTOUT_COMPRESSION_DEFAULT_LEVEL (-2147483647 - 1)

/** fastout_options.compression_workers for a writer whose buffers the
 * process's shared pool of worker threads compresses (issue 28): every such
 * writer shares the pool's threads (fastout_set_compression_pool_threads()).
 * Any other value gives the writer workers of its own. */
#define FASTOUT_COMPRESSION_POOL (~0u)

/** fastout_options.compression_workers unless changed: the shared pool. */
#define FASTOUT_DEFAULT_COMPRESSION_WORKERS FASTOUT_COMPRESSION_POOL

/** Everything that can be chosen when a writer is opened. Initialize it
 * with fastout_options_init(), then change the fields you need: `size`
 * lets a later version add fields at the end without breaking programs
 * built against this one. */
typedef struct fastout_options {
  size_t size;          /**< sizeof(fastout_options), set by fastout_options_init() */
  size_t buffer_size;   /**< bytes, fixed at open; 0 is unbuffered; the default,
                             FASTOUT_DEFAULT_BUFFER_SIZE (256 KiB), lets the
                             buffer budget size it (fastout_set_buffer_budget()) */
  int mode;             /**< an enum fastout_open_mode (default FASTOUT_TRUNCATE) */
  int buffering;        /**< an enum fastout_buffering (default automatic) */
  unsigned permissions; /**< of a created file, masked by the umask (default 0666) */
  /** What error messages call a descriptor given to fastout_fdopen() (default
   * "<fd N>"); copied at open. Not used by fastout_open(). */
  const char* name;
  /* Added after 0.2.0: a program built against an older header passes a smaller
   * `size`, and gets these defaults. */
  /** An enum fastout_compression (default FASTOUT_COMPRESSION_NONE). A format
   * this build of fastout lacks is refused at open with -ENOTSUP (see
   * fastout_compression_available()). */
  int compression;
  /** The level, in the format's terms: zstd 1 (fast) to 19 (small), up to
   * 22, negative for more speed; gzip 0 (stored) to 9, 10 to 12 slower and
   * smaller. FASTOUT_COMPRESSION_DEFAULT_LEVEL (the default) is the format's
   * own default; with FASTOUT_COMPRESSION_BY_EXTENSION, another value is the
   * level of whichever format the path picks. Out of range: -EINVAL at open. */
  int compression_level;
  /** Who compresses while the caller formats: FASTOUT_COMPRESSION_POOL (the
   * default) is the process's shared pool; n threads of the writer's own;
   * 0 compresses on the caller's thread. */
  unsigned compression_workers;
  /** Nonzero: never close this writer's descriptor to make room for
   * another. 0 (the default): a writer that opened a regular file by path
   * may have its descriptor closed while idle when another writer's open
   * meets the descriptor limit (EMFILE) even after the soft limit was
   * raised, and reopens the same file where it left off when it next
   * writes (docs/c-api.md, "Many outputs"). fastout_fileno() keeps the
   * descriptor open from then on too. */
  int keep_descriptor_open;
} fastout_options;

/** Sets every field of `options` to its default. */
FASTOUT_C_INLINE void fastout_options_init(fastout_options* options) FASTOUT_C_NOEXCEPT {
  memset(options, 0, sizeof *options);
  options->size = sizeof *options;
  options->buffer_size = FASTOUT_DEFAULT_BUFFER_SIZE;
  options->mode = FASTOUT_TRUNCATE;
  options->buffering = FASTOUT_BUFFERING_AUTOMATIC;
  options->permissions = 0666;
  options->name = FASTOUT_C_NULL;
  options->compression = FASTOUT_COMPRESSION_NONE;
  options->compression_level = FASTOUT_COMPRESSION_DEFAULT_LEVEL;
  options->compression_workers = FASTOUT_DEFAULT_COMPRESSION_WORKERS;
}

/** 1 if this build of fastout can write `compression` (an enum
 * fastout_compression: zstd needs libzstd, gzip libdeflate, when fastout is
 * built; NONE and BY_EXTENSION always can), 0 if not or unknown. */
FASTOUT_API int fastout_compression_available(int compression) FASTOUT_C_NOEXCEPT;

/* The shared pool of compression workers (docs/compression.md). */
/** Sets how many threads the shared pool runs at most, before or after
 * writers exist; 0 goes back to the default (FASTOUT_COMPRESSION_THREADS,
 * else the machine's cores). 0, or -EINVAL above 1024. */
FASTOUT_API int fastout_set_compression_pool_threads(unsigned threads) FASTOUT_C_NOEXCEPT;
/** The shared pool's size now. */
FASTOUT_API unsigned fastout_compression_pool_threads(void) FASTOUT_C_NOEXCEPT;

/** Opens `path` for writing (close-on-exec), as fopen(path, "w") by default.
 * `options` may be NULL for the defaults. Returns NULL and sets errno on
 * failure: ENOENT (a missing directory), EISDIR, EACCES, EEXIST
 * (FASTOUT_EXCLUSIVE), ENOMEM (the buffer), EINVAL (a NULL path, options not
 * initialized by fastout_options_init() or holding an unknown value). Nothing
 * is created or truncated unless the writer could be made. */
FASTOUT_API fastout_file* fastout_open(const char* path,
                                       const fastout_options* options) FASTOUT_C_NOEXCEPT;

/** A writer to a descriptor you already have. `ownership` is FASTOUT_ADOPT
 * (fastout_close() closes `fd`) or FASTOUT_BORROW (it never does). Returns
 * NULL and sets errno: EBADF for a negative fd, EINVAL for an unknown
 * ownership or bad options, ENOMEM. A borrowed non-blocking descriptor is
 * waited on (poll) when full instead of failing. */
FASTOUT_API fastout_file* fastout_fdopen(int fd, int ownership,
                                         const fastout_options* options) FASTOUT_C_NOEXCEPT;

/** The process's writer to standard output (fd 1, borrowed), named
 * "<stdout>": the one C++'s fastout::standard_output() returns, so that
 * every part of a program, C or C++, writes into one buffer, in order. As
 * stdio's stdout, it is line-buffered on a terminal and fully buffered
 * otherwise, and it is flushed at exit, where an error is reported and
 * turns an exit status of 0 into 1 (see docs/c-api.md). Every call returns
 * the same handle. NULL options leave its options as they are; options set
 * buffer_size, buffering and the compression fields (docs/compression.md),
 * as setvbuf() does, after flushing what it holds, and end a compressed
 * stream it was writing (mode, permissions and name do not apply to fd 1).
 * To choose them once, with no such effect, before anything is written, use
 * fastout_set_stdout_options(). fastout_close() flushes and closes it and
 * closes fd 1, as fclose(stdout); the next fastout_open_stdout() opens it
 * again, on whatever fd 1 is then (give it one first, as freopen() would).
 * NULL and errno on failure. */
FASTOUT_API fastout_file* fastout_open_stdout(const fastout_options* options) FASTOUT_C_NOEXCEPT;

/** The process's writer to standard error (fd 2, borrowed), named
 * "<stderr>", C++'s fastout::standard_error(): unbuffered unless options
 * say otherwise, as stdio's stderr; otherwise as fastout_open_stdout(). */
FASTOUT_API fastout_file* fastout_open_stderr(const fastout_options* options) FASTOUT_C_NOEXCEPT;

/* ----------------------------------------------------- standard output */

/** The handle of the process's writer to standard output, as stdio's
 * `stdout`: fastout_fputs(text, fastout_stdout()) is fputs(text, stdout).
 * The same writer as fastout_open_stdout()'s, made at the first call with
 * the defaults (or the options fastout_set_stdout_options() chose); unlike
 * fastout_open_stdout() it never changes options and never opens again a
 * writer that fastout_close() closed (calls on it then return -EBADF, as
 * stdio's do after fclose(stdout)). NULL, with errno ENOMEM, only if the
 * writer's buffer cannot be allocated. */
FASTOUT_API fastout_file* fastout_stdout(void) FASTOUT_C_NOEXCEPT;

/** The same for standard error (unbuffered, as stdio's stderr). */
FASTOUT_API fastout_file* fastout_stderr(void) FASTOUT_C_NOEXCEPT;

/** Chooses standard output's options before anything is written to it, once,
 * without side effects: buffer_size, buffering and the compression fields of
 * `options` (mode, permissions and name do not apply to fd 1). Nothing is
 * written, flushed or ended. Returns 0, or a negative error code and
 * changes nothing:
 *   -EALREADY  standard output has already been written to (by any door: C,
 *              C++, stdio through fastout_sync_with_stdio()), closed, or
 *              given options (by this call, fastout_open_stdout() with
 *              options, or C++'s set_standard_output_options()): the
 *              options must come before the first byte
 *   -EBUSY     a cursor holds standard output
 *   -EINVAL    NULL, or options not initialized by fastout_options_init() or
 *              holding an unknown value
 *   -ENOTSUP   a compression format this build lacks
 *   -ENOMEM    the buffer
 *
 *   fastout_options options;
 *   fastout_options_init(&options);
 *   options.compression = FASTOUT_COMPRESSION_ZSTD;      (tool | zstd -d)
 *   if (fastout_set_stdout_options(&options) < 0) ...    first, in main()
 */
FASTOUT_API int fastout_set_stdout_options(const fastout_options* options) FASTOUT_C_NOEXCEPT;

/** Keeps stdio's standard output and fastout's in order, as C++'s
 * fastout::sync_with_stdio() (which this is): with `on` nonzero, stdio's
 * stdout and stderr become streams that hand every call (printf, puts,
 * putchar, fwrite to stdout ...) to fastout's standard output and standard
 * error writers, so that stdio's and fastout's calls fill one buffer, in the
 * order they are made (and std::cout, in a program that has C++). What stdio
 * held is flushed first. Each stdio call then costs a trip through stdio's
 * unbuffered path into fastout's buffer: port the hot calls to fastout's
 * and leave the rest. With `on` zero, stdio's own streams come back, after
 * fastout's writers are flushed. Returns 1 if they were synced before the
 * call, 0 if not, or a negative error code (-ENOMEM; the flush's error when
 * turning it off, after which stdio's streams are back all the same). Call
 * it from one thread, before other threads write to stdout; code that
 * kept the old `stdout` pointer and write(1, ...) are not affected. */
FASTOUT_API int fastout_sync_with_stdio(int on) FASTOUT_C_NOEXCEPT;

/* -------------------------------------------------------------- output */

/* The out-of-line halves of the inline functions below. Call those instead. */
FASTOUT_API int fastout_putc_slow(int c, fastout_file* file) FASTOUT_C_NOEXCEPT;
FASTOUT_API size_t fastout_write_slow(const void* data, size_t size, size_t count,
                                      fastout_file* file) FASTOUT_C_NOEXCEPT;
FASTOUT_API int fastout_fputs_slow(const char* text, fastout_file* file) FASTOUT_C_NOEXCEPT;
FASTOUT_API int fastout_putchar_slow(int c) FASTOUT_C_NOEXCEPT;
FASTOUT_API int fastout_puts_slow(const char* text) FASTOUT_C_NOEXCEPT;

/** Writes the byte (unsigned char)c, as putc(c, file). Returns it, or EOF
 * with errno set and the code in fastout_last_error(). Inline: one comparison and a store while the buffer
 * has room, as glibc's putc_unlocked. */
FASTOUT_C_INLINE int fastout_putc(int c, fastout_file* file) FASTOUT_C_NOEXCEPT {
  fastout_buffer_state* state = FASTOUT_C_CAST(fastout_buffer_state*, file);
  if (FASTOUT_LIKELY(state != FASTOUT_C_NULL &&
                     fastout_buffer_put(state, FASTOUT_C_CONVERT(char, c))))
    return FASTOUT_C_CONVERT(unsigned char, c);
  return fastout_putc_slow(c, file);
}

/** Writes `count` items of `size` bytes, as fwrite(data, size, count, file).
 * Returns `count`, or 0 on failure with errno set and fastout_last_error()
 * holding the code (fastout_error() holds a write error; a bad argument,
 * -EINVAL or -EOVERFLOW, is not sticky). 0 when size or count is 0. Inline
 * while the data fits in the buffer, and without a branch on the size up to
 * 16 bytes; data at least as large as the buffer goes to the file in one
 * system call together with what is buffered, without being copied. */
FASTOUT_C_INLINE size_t fastout_write(const void* data, size_t size, size_t count,
                                      fastout_file* file) FASTOUT_C_NOEXCEPT {
  fastout_buffer_state* state = FASTOUT_C_CAST(fastout_buffer_state*, file);
  /* Both below 2^16, so the product cannot overflow; fwrite(p, 1, n, f) and
   * fwrite(p, n, 1, f) of small pieces stay inline. */
  if (FASTOUT_LIKELY(state != FASTOUT_C_NULL && data != FASTOUT_C_NULL &&
                     ((size | count) >> 16) == 0 &&
                     fastout_buffer_write_varying(state, data, size * count)))
    return count;
  return fastout_write_slow(data, size, count, file);
}

/** Writes the string `text` without its '\0' and without adding a newline,
 * as fputs(text, file). Returns a nonnegative value (1, as glibc's fputs), or
 * EOF with errno set and the code in fastout_last_error(). */
FASTOUT_C_INLINE int fastout_fputs(const char* text, fastout_file* file) FASTOUT_C_NOEXCEPT {
  fastout_buffer_state* state = FASTOUT_C_CAST(fastout_buffer_state*, file);
  if (FASTOUT_LIKELY(state != FASTOUT_C_NULL && text != FASTOUT_C_NULL &&
                     fastout_buffer_write(state, text, strlen(text))))
    return 1;
  return fastout_fputs_slow(text, file);
}

/** Writes the byte (unsigned char)c to standard output, as putchar(c):
 * fastout_putc(c, fastout_stdout()). Returns it, or EOF (errno set).
 * Finding standard output is a function call each time, which makes it
 * cost about what glibc's putchar() does; in a loop over bytes,
 * fastout_putc() with the handle in a local is as fast as
 * putchar_unlocked(). */
FASTOUT_C_INLINE int fastout_putchar(int c) FASTOUT_C_NOEXCEPT {
  fastout_buffer_state* state = FASTOUT_C_CAST(fastout_buffer_state*, fastout_stdout());
  if (FASTOUT_LIKELY(state != FASTOUT_C_NULL &&
                     fastout_buffer_put(state, FASTOUT_C_CONVERT(char, c))))
    return FASTOUT_C_CONVERT(unsigned char, c);
  return fastout_putchar_slow(c);
}

/** Writes the string `text` and a newline to standard output, as puts(text).
 * Returns a nonnegative value (1), or EOF (errno set). */
FASTOUT_C_INLINE int fastout_puts(const char* text) FASTOUT_C_NOEXCEPT {
  fastout_buffer_state* state = FASTOUT_C_CAST(fastout_buffer_state*, fastout_stdout());
  size_t size;
  /* size < room: the text and its newline fit. An empty buffer (full,
   * line-buffered, closed, failed: pos == limit) goes out of line. */
  if (FASTOUT_LIKELY(state != FASTOUT_C_NULL && text != FASTOUT_C_NULL &&
                     (size = strlen(text)) <
                         FASTOUT_C_CONVERT(size_t, state->limit - state->pos))) {
    memcpy(state->pos, text, size);
    state->pos[size] = '\n';
    state->pos += size + 1;
    return 1;
  }
  return fastout_puts_slow(text);
}

/* ------------------------------------------------------------- cursor */

/** A copy of a writer's fill position in local variables, for loops that
 * write one byte at a time.
 *
 * fastout_putc() must reload the writer's position after every byte,
 * because a char store may change any object, the writer included. A
 * cursor is a local variable whose address never leaves the function: the
 * compiler keeps its pointers in registers, and fastout_cursor_putc() in a
 * loop is a compare and a store, as a hand-written buffer is.
 *
 *   fastout_cursor cursor = fastout_cursor_begin(out);
 *   for (i = 0; i < n; ++i) fastout_cursor_putc(text[i], &cursor);
 *   error = fastout_cursor_end(cursor);
 *
 * While a cursor is alive the writer's buffer is lent to it: any other call
 * on the writer returns -EBUSY and writes nothing. Always end it; pass it by
 * value, as above, and never its address to a function that is not inline
 * (which would keep it out of registers). Its fields are fastout's. */
typedef struct fastout_cursor {
  fastout_buffer_state space; /* the writer's free space, lent to the cursor */
  fastout_file* file;
  int error; /* 0, or the negative error code that stopped the cursor */
} fastout_cursor;

/* The out-of-line halves of the cursor's inline functions. They take and
 * return only scalars and a fastout_buffer_state, which travel in registers,
 * so that no cursor's address is ever passed out of line. */
FASTOUT_API fastout_buffer_state fastout_cursor_begin_slow(fastout_file* file,
                                                           int* error) FASTOUT_C_NOEXCEPT;
FASTOUT_API fastout_buffer_state fastout_cursor_putc_slow(int c, fastout_file* file, char* pos,
                                                          int* error) FASTOUT_C_NOEXCEPT;
FASTOUT_API int fastout_cursor_end_slow(fastout_file* file, char* pos,
                                        int error) FASTOUT_C_NOEXCEPT;

/** Lends the writer's free space to a new cursor. If it cannot (a NULL
 * handle: -EINVAL; a closed or failed writer; another cursor alive: -EBUSY),
 * the cursor carries the error: every fastout_cursor_putc() returns it and
 * fastout_cursor_end() too. */
FASTOUT_C_INLINE fastout_cursor fastout_cursor_begin(fastout_file* file) FASTOUT_C_NOEXCEPT {
  fastout_cursor cursor;
  int error = 0;
  cursor.space = fastout_cursor_begin_slow(file, &error);
  cursor.file = file;
  cursor.error = error;
  return cursor;
}

/** Writes the byte (unsigned char)c, as fastout_putc(). Returns it, or the
 * negative error code that stopped the cursor (sticky, as the writer's). */
FASTOUT_C_INLINE int fastout_cursor_putc(int c, fastout_cursor* cursor) FASTOUT_C_NOEXCEPT {
  int error;
  if (FASTOUT_LIKELY(fastout_buffer_put(&cursor->space, FASTOUT_C_CONVERT(char, c))))
    return FASTOUT_C_CONVERT(unsigned char, c);
  error = cursor->error;
  cursor->space = fastout_cursor_putc_slow(c, cursor->file, cursor->space.pos, &error);
  cursor->error = error;
  return error < 0 ? error : FASTOUT_C_CONVERT(unsigned char, c);
}

/** Hands the cursor's position back to its writer, whose calls work again.
 * Returns 0, or the error that stopped the cursor. */
FASTOUT_C_INLINE int fastout_cursor_end(fastout_cursor cursor) FASTOUT_C_NOEXCEPT {
  return fastout_cursor_end_slow(cursor.file, cursor.space.pos, cursor.error);
}

/** Formats as fprintf(file, format, ...) and returns the number of bytes
 * written, or a negative error code. The text is exactly glibc's printf's
 * for the same arguments: every conversion, flag, width, precision and
 * length modifier glibc accepts, %n, %ls, %m and positional arguments
 * (%1$d) included. It goes straight into the buffer: no temporary string,
 * and no allocation while the call's text fits in the buffer.
 *
 * A text that fits in the buffer is never split across a flush. If the call
 * fails -- a format glibc refuses (-EINVAL), a wide character that cannot be
 * converted (-EILSEQ), a text over INT_MAX bytes (-EOVERFLOW) -- none of its
 * text is written, unless it was larger than the buffer and had begun to
 * stream to the file; such failures are not sticky. A write error is. */
FASTOUT_API int fastout_fprintf(fastout_file* file, const char* format, ...) FASTOUT_C_NOEXCEPT
    FASTOUT_PRINTF_FORMAT(2, 3);

/** fastout_fprintf() with a va_list, as vfprintf(). `args` is used as by
 * vfprintf: call va_end() on it afterwards, and do not use it again. */
FASTOUT_API int fastout_vfprintf(fastout_file* file, const char* format,
                                 va_list args) FASTOUT_C_NOEXCEPT FASTOUT_PRINTF_FORMAT(2, 0);

/** Formats to standard output, as printf(format, ...):
 * fastout_fprintf(fastout_stdout(), format, ...). */
FASTOUT_API int fastout_printf(const char* format, ...) FASTOUT_C_NOEXCEPT
    FASTOUT_PRINTF_FORMAT(1, 2);

/** fastout_printf() with a va_list, as vprintf(). */
FASTOUT_API int fastout_vprintf(const char* format, va_list args) FASTOUT_C_NOEXCEPT
    FASTOUT_PRINTF_FORMAT(1, 0);

/** Sends everything buffered to the file, as fflush(file). Returns 0, or EOF
 * with errno set and the code in fastout_last_error(). Unlike fflush(NULL),
 * a NULL handle is an error (EINVAL). */
FASTOUT_API int fastout_flush(fastout_file* file) FASTOUT_C_NOEXCEPT;

/** Flushes, closes the descriptor (unless borrowed) and frees the handle --
 * always, even when it returns an error, as fclose(file). Returns 0 if
 * everything the writer accepted reached the file and the descriptor closed
 * cleanly; otherwise EOF, with errno the first error (a sticky write error,
 * the flush's, or close's): the handle is gone, so errno is where the cause
 * is (fastout_error_name(errno) names it). NULL is accepted and returns 0.
 *
 * Given standard output's or standard error's handle, it closes fd 1 or 2
 * as well, as fclose(stdout) does (once: closing it again leaves alone
 * whatever has taken the descriptor since). Given the handle of a C++
 * fastout::file (fastout::c_handle()), it closes
 * that writer as file::close() does and leaves the object to its C++
 * owner. Writers still open when the process exits (return from main,
 * exit()) are flushed and closed as stdio's are; what cannot be written then
 * goes to fastout's error handler, which prints one line to stderr unless
 * fastout_set_error_handler() chose otherwise. */
FASTOUT_API int fastout_close(fastout_file* file) FASTOUT_C_NOEXCEPT;

/* ------------------------------------------- errors nobody was told of */

/** What a writer could not write and no call could report: one left open at
 * exit (standard output's, or one of fastout_open()'s), or a C++ writer
 * destroyed without close(). As C++'s fastout::error_report. */
typedef struct fastout_error_report {
  const char* path;    /**< the path, or a name such as "<stdout>" */
  int error;           /**< the cause: a negative error code (-ENOSPC, -EPIPE, ...) */
  uint64_t bytes_lost; /**< bytes accepted that never reached the file */
  int close_failed;    /**< 1 if the cause came from close() itself */
  int sync_failed;     /**< 1 if it came from syncing (durability options) */
  int not_replaced;    /**< 1 if a replacement (C++'s open_mode::replace) was discarded */
} fastout_error_report;

/** A handler of such reports. It runs on the thread that finished the
 * writer -- at exit, the exiting one -- and must not call exit() or
 * longjmp(); `context` is what fastout_set_error_handler() was given. */
typedef void (*fastout_error_handler)(const fastout_error_report* report, void* context);

/** Chooses what happens to a write error still unreported when a writer is
 * finished without fastout_close() -- standard output at exit, above all:
 *
 *   report   fastout_set_error_handler(NULL, NULL): the default, one line
 *            on stderr ("fastout: lost 4 bytes writing "<stdout>": No
 *            space left on device")
 *   silent   fastout_set_error_handler(fastout_silent_error_handler, NULL)
 *   your own fastout_set_error_handler(handler, context), which may chain
 *            to fastout_default_error_handler()
 *
 * Either way an exit status of 0 still becomes 1 when standard output lost
 * something at exit, as coreutils' close_stdout() does: a program that wants
 * another status checks fastout_close(fastout_stdout()) itself before it
 * exits. Process-wide and thread-safe; the same handler as C++'s
 * fastout::set_error_handler(), which replaces it (and which it replaces).
 * Returns 0. */
FASTOUT_API int fastout_set_error_handler(fastout_error_handler handler,
                                          void* context) FASTOUT_C_NOEXCEPT;

/** The default handler: prints the report's line on stderr. */
FASTOUT_API void fastout_default_error_handler(const fastout_error_report* report,
                                               void* context) FASTOUT_C_NOEXCEPT;

/** A handler that does nothing: the "silent" policy. */
FASTOUT_API void fastout_silent_error_handler(const fastout_error_report* report,
                                              void* context) FASTOUT_C_NOEXCEPT;

/* ------------------------------------------------------------- seeking */

/* As stdio's on a stream opened for writing. `whence` is SEEK_SET, SEEK_CUR
 * or SEEK_END from <stdio.h> (0, 1 and 2 on every system fastout builds
 * for). A seek first sends what is buffered to the file, then moves the
 * file position, so the next byte lands there: seek back and overwrite, as
 * `xxd -r` does. Where the output cannot seek -- a pipe, a terminal, a
 * compressed writer, standard output that is one of those -- they fail with
 * ESPIPE having sent nothing. A failed seek is not sticky: the writer is as
 * it was (fastout_last_error() holds the code); a write error met by its
 * flush is, and a writer that has failed cannot seek (the sticky error).
 * Seeking changes no count: fastout_stats counts bytes, not positions. With
 * FASTOUT_APPEND every write goes to the end, wherever the position was
 * moved (O_APPEND), and the position starts there, as fopen()'s "a". docs/c-api.md, "Seeking", says what a seek means for a
 * writer with durability options. */

/** Moves the position to `offset` from `whence`, as fseek(). Returns 0, or
 * -1 with errno set: ESPIPE (see above), EINVAL (another `whence`, or a
 * position before the start), EOVERFLOW, EBADF (closed), EBUSY (a cursor
 * holds the writer), or the write error of the flush. */
FASTOUT_API int fastout_fseek(fastout_file* file, long offset, int whence) FASTOUT_C_NOEXCEPT;

/** Where the next byte lands, as ftell(): the file position plus what is
 * buffered, without writing anything; -1 with errno set on failure (ESPIPE
 * on a pipe; EOVERFLOW past LONG_MAX, which is 2 GiB where long has 32
 * bits: use fastout_ftello()). A compressed writer answers with the bytes
 * of text written so far, as zlib's gztell(), and cannot seek. */
FASTOUT_API long fastout_ftell(fastout_file* file) FASTOUT_C_NOEXCEPT;

/** fseeko() and ftello(), with 64-bit positions on every system (off_t's
 * width depends on _FILE_OFFSET_BITS; an int64_t does not). */
FASTOUT_API int fastout_fseeko(fastout_file* file, int64_t offset, int whence) FASTOUT_C_NOEXCEPT;
FASTOUT_API int64_t fastout_ftello(fastout_file* file) FASTOUT_C_NOEXCEPT;

/** fastout_fseek(file, 0, SEEK_SET), as rewind(), whose failure it reports
 * only in errno and fastout_last_error(). Unlike rewind(), it clears no
 * error: a write error stays sticky (fastout never forgets one). */
FASTOUT_API void fastout_rewind(fastout_file* file) FASTOUT_C_NOEXCEPT;

/* ---------------------------------------------------------- inspecting */

/** The sticky error: 0 while all is well, else the negative error code of
 * the write or close that failed. -EINVAL for NULL. A call that failed on
 * its own (a NULL pointer, an overflowing size, a bad format) leaves it at
 * 0: see fastout_last_error(). */
FASTOUT_API int fastout_error(const fastout_file* file) FASTOUT_C_NOEXCEPT;

/** The negative error code of the last call on `file` that failed -- an
 * output call (putc, write, fputs, fprintf, a cursor's), fastout_flush(), or
 * fastout_close() of a C++ writer's handle -- whether the writer's sticky
 * error or the call's own (-EINVAL, -EOVERFLOW, -EILSEQ); 0 if none has
 * failed. A call that succeeds does not reset it, as it does not reset
 * errno: read it when a call's result says it failed. -EINVAL for NULL,
 * which is also what any call given a NULL handle returned. */
FASTOUT_API int fastout_last_error(const fastout_file* file) FASTOUT_C_NOEXCEPT;

/** A text for an error code, never NULL: "No space left on device" for
 * -ENOSPC (a positive errno works too), "Success" for 0, "Unknown error" for
 * anything else. Static, English, the same in every locale and thread. */
FASTOUT_API const char* fastout_error_name(int code) FASTOUT_C_NOEXCEPT;

/** Counters the writer keeps anyway; as the C++ writer's stats(). */
typedef struct fastout_stats {
  /** bytes handed to the writer, including those of a call that failed */
  uint64_t bytes_accepted;
  /** bytes the kernel reported as written: exact even after an error */
  uint64_t bytes_written;
  /** write()/writev() system calls made, including interrupted ones */
  uint64_t write_calls;
  /** times buffered data was sent to the file (full, flush, close) */
  uint64_t flushes;
  /** bytes accepted that are still in the buffer */
  uint64_t bytes_pending;
  /** of bytes_accepted, those that reached the file: bytes_written for a
   * plain writer; for one that compresses (whose bytes_written counts
   * compressed bytes), those whose compressed form reached the file whole */
  uint64_t bytes_delivered;
} fastout_stats;

/** Fills `stats`; they stay readable after an error and after the C++
 * writer behind a handle is closed. Returns 0, or -EINVAL for NULL. After
 * an error, bytes_accepted - bytes_delivered is what was lost. */
FASTOUT_API int fastout_get_stats(const fastout_file* file,
                                  fastout_stats* stats) FASTOUT_C_NOEXCEPT;

/** The path the writer was opened with, or its name ("<stdout>", "<fd 5>"),
 * for messages; valid until fastout_close(). NULL for a NULL handle. */
FASTOUT_API const char* fastout_path(const fastout_file* file) FASTOUT_C_NOEXCEPT;

/** The descriptor, as fileno(); -1 with errno EBADF once closed, -1 with
 * errno EINVAL for NULL. The writer keeps it open from then on (see
 * keep_descriptor_open). */
FASTOUT_API int fastout_fileno(const fastout_file* file) FASTOUT_C_NOEXCEPT;

/* ---------------------------------------------------- the buffer budget */

/* One limit on the memory every writer's buffers hold together (C++:
 * <fastout/budget.h>; docs/guide.md, "Many outputs"). A writer opened with
 * buffer_size FASTOUT_DEFAULT_BUFFER_SIZE (NULL options included) gets its
 * buffer from it: 256 KiB while the budget has ample room, else 4 KiB,
 * growing (x4, up to 256 KiB) while it is busy; another size is charged as
 * it is. The environment variable FASTOUT_BUFFER_BUDGET sets it for a
 * program that does not; a value that is not a size makes every open of a
 * buffered writer fail with EINVAL. Thread-safe. */

/** The smallest budget, and a budgeted writer's smallest buffer. */
#define FASTOUT_SMALLEST_BUFFER_BUDGET 4096u

/** What the budget is and holds now. */
typedef struct fastout_buffer_budget {
  size_t limit;   /**< the budget, in bytes */
  size_t in_use;  /**< held by every writer's buffers (a writer's smallest
                       buffer and a size the program chose are granted even
                       past the limit) */
  size_t holders; /**< writers holding memory charged to it */
} fastout_buffer_budget;

/** Sets the budget of every writer's buffers, before or after writers
 * exist. Returns 0, or -EINVAL if `bytes` is below
 * FASTOUT_SMALLEST_BUFFER_BUDGET (the budget is then unchanged). */
FASTOUT_API int fastout_set_buffer_budget(size_t bytes) FASTOUT_C_NOEXCEPT;

/** Fills `budget` with the budget, what is in use and how many writers hold
 * memory. Returns 0, or -EINVAL for NULL. */
FASTOUT_API int fastout_get_buffer_budget(fastout_buffer_budget* budget) FASTOUT_C_NOEXCEPT;

/** Stores the size of the writer's buffer now in `*size` (0: unbuffered or
 * closed; a budgeted one changes as the writer's output does). Returns 0,
 * or -EINVAL for NULL. */
FASTOUT_API int fastout_get_buffer_size(const fastout_file* file, size_t* size) FASTOUT_C_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */

namespace fastout {
class file;
/** The C handle of a C++ writer: C code writing through it shares the
 * writer's buffer, and the C++ object stays the owner. Valid while `f` is
 * alive and not moved; fastout_close() on it closes the writer without
 * freeing it. */
FASTOUT_API fastout_file* c_handle(file& f) FASTOUT_C_NOEXCEPT;
/** The C++ writer behind a C handle, from fastout_open() or c_handle(). A
 * writer made by the C API belongs to its handle: use it, but free it only
 * with fastout_close(). `handle` must not be NULL. */
FASTOUT_API file& from_c_handle(fastout_file* handle) FASTOUT_C_NOEXCEPT;
}  // namespace fastout
#endif

/* ------------------------------------------------------- 0.2.0's names */

/* 0.2.0 gave the calls that take a handle the names of stdio's calls that
 * take none: fastout_puts(text, file) was fputs, fastout_printf(file,
 * format, ...) fprintf, fastout_vprintf(file, format, args) vfprintf. Those
 * forms still compile and do what they did until the next release, with a
 * deprecation warning that names the call to use (fastout_fputs,
 * fastout_fprintf, fastout_vfprintf); the forms without a handle are stdio's
 * puts, printf and vprintf. What they did includes what they return: the old
 * fastout_puts(text, file) still returns the negative error code (-ENOSPC,
 * ...) where fastout_fputs() returns EOF, so that a 0.2.0 program that
 * compares it with a code keeps working until it moves to the new name.
 *
 * C has no overloading, so in C each of the three names is also a macro that
 * picks the function by its arguments: fastout_puts and fastout_vprintf by
 * their number (one or two for puts, two or three for vprintf),
 * fastout_printf by the type of the first (a fastout_file* is the old form),
 * through C11's _Generic or, in C99, GCC's and Clang's
 * __builtin_types_compatible_p. Every argument is evaluated once, and the
 * compiler checks the format as before. As with any function-like macro,
 * (fastout_puts)(text) and &fastout_puts name the function itself. In C++
 * the old forms are overloads. The macros and overloads go with the old
 * forms. */
#define FASTOUT_PUTS_DEPRECATION_                                            \
  "fastout_puts(text, file) is 0.2's name for fputs and writes no newline: " \
  "call fastout_fputs(text, file); fastout_puts(text) is puts"
#define FASTOUT_PRINTF_DEPRECATION_                                    \
  "fastout_printf(file, format, ...) is 0.2's name for fprintf: call " \
  "fastout_fprintf(file, format, ...); fastout_printf(format, ...) is printf"
#define FASTOUT_VPRINTF_DEPRECATION_                                      \
  "fastout_vprintf(file, format, args) is 0.2's name for vfprintf: call " \
  "fastout_vfprintf(file, format, args); fastout_vprintf(format, args) is vprintf"

#ifdef __cplusplus

FASTOUT_DEPRECATED(FASTOUT_PUTS_DEPRECATION_)
inline int fastout_puts(const char* text, fastout_file* file) FASTOUT_C_NOEXCEPT {
  int result = fastout_fputs(text, file);
  return result < 0 ? fastout_last_error(file) : result; /* 0.2.0's code, not EOF */
}

FASTOUT_DEPRECATED(FASTOUT_PRINTF_DEPRECATION_)
inline int fastout_printf(fastout_file* file, const char* format, ...) FASTOUT_C_NOEXCEPT
    FASTOUT_PRINTF_FORMAT(2, 3);
inline int fastout_printf(fastout_file* file, const char* format, ...) FASTOUT_C_NOEXCEPT {
  va_list args;
  va_start(args, format);
  int result = fastout_vfprintf(file, format, args);
  va_end(args);
  return result;
}

FASTOUT_DEPRECATED(FASTOUT_VPRINTF_DEPRECATION_)
inline int fastout_vprintf(fastout_file* file, const char* format, va_list args) FASTOUT_C_NOEXCEPT
    FASTOUT_PRINTF_FORMAT(2, 0);
inline int fastout_vprintf(fastout_file* file, const char* format,
                           va_list args) FASTOUT_C_NOEXCEPT {
  return fastout_vfprintf(file, format, args);
}

#else /* C */

FASTOUT_DEPRECATED(FASTOUT_PUTS_DEPRECATION_)
FASTOUT_C_INLINE int fastout_puts_with_handle(const char* text, fastout_file* file) {
  int result = fastout_fputs(text, file);
  return result < 0 ? fastout_last_error(file) : result; /* 0.2.0's code, not EOF */
}

FASTOUT_DEPRECATED(FASTOUT_VPRINTF_DEPRECATION_)
FASTOUT_C_INLINE int fastout_vprintf_with_handle(fastout_file* file, const char* format,
                                                 va_list args) FASTOUT_PRINTF_FORMAT(2, 0);
FASTOUT_C_INLINE int fastout_vprintf_with_handle(fastout_file* file, const char* format,
                                                 va_list args) {
  return fastout_vfprintf(file, format, args);
}

/* The argument in a given place; `~` fills the places a short list lacks,
 * so that `...` is never empty (which C99 and C11 do not allow). */
#  define FASTOUT_FIRST_(first, ...) first
#  define FASTOUT_THIRD_(first, second, third, ...) third
#  define FASTOUT_FOURTH_(first, second, third, fourth, ...) fourth

#  define fastout_puts(...) \
    FASTOUT_THIRD_(__VA_ARGS__, fastout_puts_with_handle, fastout_puts, ~)(__VA_ARGS__)
#  define fastout_vprintf(...) \
    FASTOUT_FOURTH_(__VA_ARGS__, fastout_vprintf_with_handle, fastout_vprintf, ~)(__VA_ARGS__)

/* fastout_printf: the expression `if_handle` if `x` is a fastout_file*,
 * else `otherwise`. Only `x`'s type is looked at: it is not evaluated. */
#  if defined(__GNUC__) || defined(__clang__)
#    if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#      define FASTOUT_IF_HANDLE_(x, if_handle, otherwise) \
        _Generic((x), fastout_file * : if_handle, default : otherwise)
#    else
#      define FASTOUT_IF_HANDLE_(x, if_handle, otherwise)                                 \
        __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(x), fastout_file*), \
                              if_handle, otherwise)
#    endif
/* The compilers warn of a deprecated function named in either branch of a
 * choice, the one not taken included. A member is named only in the branch
 * taken: the old form's warning comes from this one. */
struct fastout_printf_old_form {
  int fastout_printf_with_handle FASTOUT_DEPRECATED(FASTOUT_PRINTF_DEPRECATION_);
};
struct fastout_printf_new_form {
  int fastout_printf_with_handle;
};
#    define fastout_printf(...)                                            \
      ((void)sizeof(FASTOUT_IF_HANDLE_(FASTOUT_FIRST_(__VA_ARGS__, ~),     \
                                       (struct fastout_printf_old_form*)0, \
                                       (struct fastout_printf_new_form*)0) \
                        ->fastout_printf_with_handle),                     \
       FASTOUT_IF_HANDLE_(FASTOUT_FIRST_(__VA_ARGS__, ~), fastout_fprintf, \
                          fastout_printf)(__VA_ARGS__))
#  elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Another C11 compiler: the old form works, without the warning. */
#    define fastout_printf(...)                                 \
      _Generic((FASTOUT_FIRST_(__VA_ARGS__, ~)), fastout_file * \
               : fastout_fprintf, default                       \
               : fastout_printf)(__VA_ARGS__)
#  endif
/* Elsewhere (C99 without GCC's builtins) only the new form compiles: a
 * fastout_file* where a format belongs is a constraint violation the
 * compiler must report. */

#endif /* C */

#endif /* FASTOUT_C_API_H_ */
