/* SPDX-License-Identifier: MIT */
/* fastout's configuration, shared by the C++ headers and the C header.
 *
 * It is C (C99 and later) as well as C++, so that the C API's inline
 * fastout_putc() and the C++ writer's inline put() share one definition of
 * the buffer state they both advance. It holds only what both languages need:
 * the export macro, the version, the inline-hot-path macros, and
 * fastout_buffer_state. */
#ifndef FASTOUT_CONFIG_H_
#define FASTOUT_CONFIG_H_

#define FASTOUT_VERSION_MAJOR 0
#define FASTOUT_VERSION_MINOR 2
#define FASTOUT_VERSION_PATCH 0
/* 0.2.0 is 200: major * 10000 + minor * 100 + patch, as FMT_VERSION. */
#define FASTOUT_VERSION \
  (FASTOUT_VERSION_MAJOR * 10000 + FASTOUT_VERSION_MINOR * 100 + FASTOUT_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
/* The library is built with hidden visibility; what users may call is
 * exported by name. */
#  define FASTOUT_API __attribute__((visibility("default")))
#  define FASTOUT_ALWAYS_INLINE inline __attribute__((always_inline))
#  define FASTOUT_NOINLINE __attribute__((noinline))
#  define FASTOUT_LIKELY(x) __builtin_expect(!!(x), 1)
#  define FASTOUT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#  define FASTOUT_API
#  define FASTOUT_ALWAYS_INLINE inline
#  define FASTOUT_NOINLINE
#  define FASTOUT_LIKELY(x) (x)
#  define FASTOUT_UNLIKELY(x) (x)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The part of a writer that the inline hot paths touch, in C and C++ alike:
 * a byte goes to *pos while pos != limit. Everything else -- a full buffer,
 * line buffering, an error, a closed writer, a buffer lent to a cursor --
 * sets limit = pos, so that the next call goes out of line, where the writer
 * decides what to do. Only the writer changes limit. */
typedef struct fastout_buffer_state {
  char* pos;   /* where the next byte goes */
  char* limit; /* the hot path may fill up to here */
} fastout_buffer_state;

/* The version of the libfastout a program runs with, as FASTOUT_VERSION
 * (200 for 0.2.0). It differs from the FASTOUT_VERSION the program was
 * compiled with when a shared libfastout was replaced by another release of
 * the same ABI (the same SONAME, libfastout.so.0.2: only its patch number). */
FASTOUT_API int fastout_version(void);

/* The FMT_VERSION of the {fmt} headers libfastout was compiled with (120100
 * for {fmt} 12.1.0). A program that uses fastout's C++ API must be compiled
 * with the same {fmt}: comparing this with its own FMT_VERSION tells a
 * program that embeds fastout beside its own {fmt} that fastout used that
 * {fmt}, not another one installed on the system. */
FASTOUT_API int fastout_fmt_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FASTOUT_CONFIG_H_ */
