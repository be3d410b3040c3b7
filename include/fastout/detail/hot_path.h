/* SPDX-License-Identifier: MIT */
/* The hot path, once for C and C++: the C API's inline fastout_putc(),
 * fastout_write() and fastout_fputs(), the C++ writer's put() and write(),
 * and both cursors expand these functions, so that a change to the hot path
 * is made here and nowhere else. */
#ifndef FASTOUT_DETAIL_HOT_PATH_H_
#define FASTOUT_DETAIL_HOT_PATH_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <fastout/config.h>

#if defined(__GNUC__) || defined(__clang__)
/* Inlined even where the compiler would not: the size test below is only
 * free once the size is the caller's. */
#  ifdef __cplusplus
#    define FASTOUT_HOT_INLINE inline __attribute__((always_inline))
#  else
#    define FASTOUT_HOT_INLINE static inline __attribute__((always_inline))
#  endif
/* A size the compiler knows: memcpy becomes a few moves. */
#  define FASTOUT_SIZE_IS_CONSTANT(size) __builtin_constant_p(size)
#else
#  define FASTOUT_HOT_INLINE FASTOUT_C_INLINE
#  define FASTOUT_SIZE_IS_CONSTANT(size) 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The part of a writer that the hot path touches: a byte goes to *pos while
 * pos != limit. Everything else -- a full buffer, line buffering, an error,
 * a closed writer, space lent out -- sets limit = pos, so that the next call
 * goes out of line, where the writer decides what to do. Only the writer
 * changes limit. */
typedef struct fastout_buffer_state {
  char* pos;   /* where the next byte goes */
  char* limit; /* the hot path may fill up to here */
} fastout_buffer_state;

/* Copies 1 to 16 bytes to `to`, which has room for 16, without a branch:
 * the sizes of small binary writes are as unpredictable as their data, and
 * one mispredicted branch costs more than this whole copy. It reads only
 * [from, from + size) and a block of zeros, and writes only [to, to + 16):
 * each size class that does not apply copies zeros, which a smaller class
 * or a later write overwrites. */
FASTOUT_HOT_INLINE void fastout_copy_small(char* to, const char* from,
                                           size_t size) FASTOUT_C_NOEXCEPT {
  static const char zeros[8] = {0};
  const size_t eight = FASTOUT_C_CONVERT(size_t, 0) - FASTOUT_C_CONVERT(size_t, size >= 8);
  const size_t four = FASTOUT_C_CONVERT(size_t, 0) - FASTOUT_C_CONVERT(size_t, size >= 4);
  const uintptr_t source = FASTOUT_C_CAST(uintptr_t, from);
  const uintptr_t zero = FASTOUT_C_CAST(uintptr_t, zeros);
  const char* from8 = FASTOUT_C_CAST(const char*, (source & eight) | (zero & ~eight));
  const char* from4 = FASTOUT_C_CAST(const char*, (source & four) | (zero & ~four));
  const size_t tail8 = (size - 8) & eight;
  const size_t tail4 = (size - 4) & four;
  uint64_t head64, tail64;
  uint32_t head32, tail32;
  memcpy(&head64, from8, 8);
  memcpy(&tail64, from8 + tail8, 8);
  memcpy(to, &head64, 8);
  memcpy(to + tail8, &tail64, 8);
  memcpy(&head32, from4, 4);
  memcpy(&tail32, from4 + tail4, 4);
  memcpy(to, &head32, 4);
  memcpy(to + tail4, &tail32, 4);
  to[0] = from[0];
  to[size / 2] = from[size / 2];
  to[size - 1] = from[size - 1];
}

/* Puts `c` at pos and returns 1 if there is room; else returns 0, and the
 * caller goes out of line. */
FASTOUT_HOT_INLINE int fastout_buffer_put(fastout_buffer_state* state, char c) FASTOUT_C_NOEXCEPT {
  if (FASTOUT_LIKELY(state->pos != state->limit)) {
    *state->pos++ = c;
    return 1;
  }
  return 0;
}

/* Copies `size` bytes to pos and returns 1 if they fit; else returns 0,
 * and the caller goes out of line. `size - 1 < room`: an empty write goes
 * out of line too, so that memcpy never sees the null data of an empty
 * string (undefined behaviour) and a closed writer reports even that. */
FASTOUT_HOT_INLINE int fastout_buffer_write(fastout_buffer_state* state, const void* data,
                                            size_t size) FASTOUT_C_NOEXCEPT {
  if (FASTOUT_LIKELY(size - 1 < FASTOUT_C_CONVERT(size_t, state->limit - state->pos))) {
    memcpy(state->pos, data, size);
    state->pos += size;
    return 1;
  }
  return 0;
}

/* fastout_buffer_write() for sizes that vary from call to call as
 * unpredictably as the data (fwrite() of binary records): 1 to 16 bytes
 * are copied without a branch on the size. Where the size repeats (lines
 * of text), memcpy's branches are predicted and fastout_buffer_write() is
 * faster: docs/benchmarks.md, "Why the hot path is what it is". */
FASTOUT_HOT_INLINE int fastout_buffer_write_varying(fastout_buffer_state* state, const void* data,
                                                    size_t size) FASTOUT_C_NOEXCEPT {
  if (!FASTOUT_SIZE_IS_CONSTANT(size) && size - 1 < 16 &&
      FASTOUT_C_CONVERT(size_t, state->limit - state->pos) >= 16) {
    fastout_copy_small(state->pos, FASTOUT_C_CAST(const char*, data), size);
    state->pos += size;
    return 1;
  }
  return fastout_buffer_write(state, data, size);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FASTOUT_DETAIL_HOT_PATH_H_ */
