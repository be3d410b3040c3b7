/* SPDX-License-Identifier: MIT */
/* fastout's configuration, shared by the C++ headers and the C header:
 * the version, the export macro, and the macros that let one header be
 * C (C99 and later) and C++ (any standard) alike. */
#ifndef FASTOUT_CONFIG_H_
#define FASTOUT_CONFIG_H_

#define FASTOUT_VERSION_MAJOR 0
#define FASTOUT_VERSION_MINOR 3
#define FASTOUT_VERSION_PATCH 0
/* 0.2.0 is 200: major * 10000 + minor * 100 + patch, as FMT_VERSION. */
#define FASTOUT_VERSION \
  (FASTOUT_VERSION_MAJOR * 10000 + FASTOUT_VERSION_MINOR * 100 + FASTOUT_VERSION_PATCH)

#if defined(_WIN32)
/* Windows: a static library (docs/install.md), nothing to export. */
#  define FASTOUT_API
#elif defined(__GNUC__) || defined(__clang__)
/* The library is built with hidden visibility; what users may call is
 * exported by name. */
#  define FASTOUT_API __attribute__((visibility("default")))
#endif
#if defined(__GNUC__) || defined(__clang__)
#  define FASTOUT_ALWAYS_INLINE inline __attribute__((always_inline))
#  define FASTOUT_NOINLINE __attribute__((noinline))
#  define FASTOUT_LIKELY(x) __builtin_expect(!!(x), 1)
#  define FASTOUT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* An out-of-line function that runs on every call of a busy writer's way
 * out (a drain, a flush, a printf call): the compiler puts it in .text.hot,
 * which the linker places together, so that a call touches few pages of
 * code. It counts where every system call costs the TLB (a kernel with
 * page-table isolation and no PCID, as in many virtual machines): W16,
 * a write() per record, runs 60 cycles a record faster with these together
 * (docs/benchmarks.md). */
#  define FASTOUT_HOT __attribute__((hot))
#else
#  ifndef FASTOUT_API
#    define FASTOUT_API
#  endif
#  define FASTOUT_ALWAYS_INLINE inline
#  define FASTOUT_NOINLINE
#  define FASTOUT_LIKELY(x) (x)
#  define FASTOUT_UNLIKELY(x) (x)
#  define FASTOUT_HOT
#endif

/* Marks a declaration that goes away in a later release: a use is a
 * compiler warning (-Wdeprecated-declarations) that says what to call
 * instead. CHANGELOG.md says when each goes. */
#if defined(__cplusplus) && __cplusplus >= 201402L
#  define FASTOUT_DEPRECATED(message) [[deprecated(message)]]
#elif defined(__GNUC__) || defined(__clang__)
#  define FASTOUT_DEPRECATED(message) __attribute__((deprecated(message)))
#elif defined(_MSC_VER)
#  define FASTOUT_DEPRECATED(message) __declspec(deprecated(message))
#else
#  define FASTOUT_DEPRECATED(message)
#endif

/* What a header that is C and C++ alike spells differently in each. */
#ifdef __cplusplus
#  if __cplusplus >= 201103L
#    define FASTOUT_C_NOEXCEPT noexcept
/* NULL is 0 in C++, which -Wzero-as-null-pointer-constant refuses. */
#    define FASTOUT_C_NULL nullptr
#  else
#    define FASTOUT_C_NOEXCEPT throw()
#    define FASTOUT_C_NULL NULL
#  endif
#  define FASTOUT_C_INLINE inline
/* Casts that C++ code compiled with -Wold-style-cast accepts. */
#  define FASTOUT_C_CAST(type, value) reinterpret_cast<type>(value)
#  define FASTOUT_C_CONVERT(type, value) static_cast<type>(value)
#else
#  define FASTOUT_C_NOEXCEPT
#  define FASTOUT_C_NULL NULL
#  define FASTOUT_C_INLINE static inline
#  define FASTOUT_C_CAST(type, value) ((type)(value))
#  define FASTOUT_C_CONVERT(type, value) ((type)(value))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the libfastout a program runs with, as FASTOUT_VERSION
 * (300 for 0.3.0). It differs from the FASTOUT_VERSION the program was
 * compiled with when a shared libfastout was replaced by another release of
 * the same ABI (the same SONAME, libfastout.so.0.3: only its patch number). */
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
