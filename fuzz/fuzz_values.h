// SPDX-License-Identifier: MIT
// Values the targets read from their input: mostly the edges where
// formatting code turns (INT_MIN, 4096, DBL_TRUE_MIN, ties, NaN, ...), the
// rest any bits. One byte chooses: below 0x80 a small or tabled value, from
// 0x80 (0xc0 for integers) the next bytes as the value's bits.
#ifndef FASTOUT_FUZZ_VALUES_H_
#define FASTOUT_FUZZ_VALUES_H_

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_input.h"

namespace fastout_fuzz {

template <typename T, std::size_t N>
T from_table(const T (&table)[N], std::size_t index) {
  return table[index % N];
}

inline constexpr int int_edges[] = {
    0,      1,      -1,    2,       7,          9,       10,     11,          15,
    16,     99,     100,   127,     128,        255,     256,    1000,        4095,
    4096,   4097,   65535, 65536,   INT_MAX,    INT_MIN, -2,     -100,        -4096,
    181,    4701,   20,    1 << 30, -(1 << 30), 100000,  262143, INT_MAX - 1, INT_MIN + 1,
    0x7fff, -32768, -129,  300,     5000,       65537};

inline constexpr long long long_edges[] = {0,
                                           1,
                                           -1,
                                           LLONG_MAX,
                                           LLONG_MIN,
                                           LLONG_MIN + 1,
                                           INT_MAX,
                                           INT_MIN,
                                           4294967295LL,
                                           4294967296LL,
                                           9007199254740992LL,
                                           1000000000000000000LL,
                                           999999999999999999LL,
                                           99999999LL,
                                           100000000LL,
                                           1LL << 62,
                                           -(1LL << 62),
                                           0x123456789abcdefLL,
                                           10000000000000000LL,
                                           255,
                                           256,
                                           65536};

// In an order seeds rely on (a byte below 0x80 is an index): add at the end.
inline constexpr double double_edges[] = {
    // signs
    0.0, -0.0, 1.0, -1.0,
    // halfway cases, exact (0.5, 2.5, 0.125) or only in decimal (0.05, 0.95)
    0.5, 1.5, 2.5, 0.25, 0.125, 0.375, 9.5, 0.05, 0.95, 99.5, 999.5,
    // no binary digits end them
    0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3,
    // where %g and the shortest form change notation
    1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 1e-5, 1e-4, 123456789.0,
    // the range's ends: subnormals (2.2250738585072009e-308 the largest), infinities, NaNs
    1e300, 1e-300, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN, 2.2250738585072009e-308, HUGE_VAL,
    -HUGE_VAL, __builtin_nan(""), -__builtin_nan(""),
    // past 2^52 and 2^53, where halves and odd integers round
    4503599627370496.5, 9007199254740993.0,
    // and a few more
    0.000001, 1e6, 1e-7, 5.5, 6.5, 1e100};

// Code points a locale may not convert, or converts to several bytes.
inline constexpr std::uint32_t wide_edges[] = {
    0x80,   0xa0,    0xe9,    0xff,     0x100,    0x7ff,      0x800,       0x20ac,
    0xd7ff, 0xd800,  0xdbff,  0xdc00,   0xdfff,   0xe000,     0xfffd,      0xfffe,
    0xffff, 0x10000, 0x1f600, 0x10ffff, 0x110000, 0x7fffffff, 0x80000000u, 0xffffffffu,
    0x7f,   0x1,     0x3b1,   0x4e2d,   0xfeff,   0x2028};

// An int, or a long long when `eight_bytes`.
inline long long read_integer(input& in, bool eight_bytes) {
  const std::uint8_t s = in.byte();
  if (s < 0x80) return static_cast<long long>(s) - 32;
  if (s < 0xc0)
    return eight_bytes ? from_table(long_edges, s - 0x80u) : from_table(int_edges, s - 0x80u);
  if (eight_bytes) return static_cast<long long>(in.bits(8));
  return static_cast<int>(static_cast<std::uint32_t>(in.bits(4)));
}

inline double read_double(input& in) {
  const std::uint8_t s = in.byte();
  if (s < 0x80) return from_table(double_edges, s);
  const std::uint64_t bits = in.bits(8);
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// A long double: tabled, or 10 bytes of x87 bits (pseudo-denormals and the
// encodings the x87 takes for NaN included) where it is the x87's.
inline long double read_long_double(input& in) {
  const std::uint8_t s = in.byte();
  if (s < 0x80) {
    switch (s % 8) {
      case 0: return LDBL_MAX;
      case 1: return LDBL_MIN;
      case 2: return -LDBL_MAX;
      case 3: return LDBL_MIN / 4;
      default: {
        const long double value = from_table(double_edges, s / 8u);
        return s % 2 != 0 ? value : -value;
      }
    }
  }
  long double value = 0;
  unsigned char bytes[sizeof(long double)] = {};
  for (std::size_t i = 0; i < 10 && i < sizeof bytes; ++i) bytes[i] = in.byte();
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

// A wide character: ASCII, a tabled code point, or any 4 bytes; past the
// input's end, 'a' + position % 26.
inline wchar_t read_wide_char(input& in, std::size_t position) {
  if (in.empty()) return static_cast<wchar_t>(L'a' + static_cast<wchar_t>(position % 26));
  const std::uint8_t b = in.byte();
  if (b < 0x80) return static_cast<wchar_t>(b);
  if (b < 0xf0) return static_cast<wchar_t>(from_table(wide_edges, b - 0x80u));
  return static_cast<wchar_t>(static_cast<std::uint32_t>(in.bits(4)));
}

}  // namespace fastout_fuzz

#endif  // FASTOUT_FUZZ_VALUES_H_
