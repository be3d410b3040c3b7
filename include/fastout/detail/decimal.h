// SPDX-License-Identifier: MIT
// Decimal digits of an integer, as {fmt}'s "{}" and printf's "%lld" write
// them, eight digits at a time in one 64-bit word, the chunks of a number
// independent of each other: the printf engine's (src/doors/printf*.cpp),
// and the runtime format cache's for a plain "{}" (format_cache.h).
//
// Why not {fmt}'s format_decimal(): it makes two digits per step, each step
// a division by 100 that waits for the one before (nine in a row for the
// usual 19-digit int64), and branches on the sign. Here a number splits into
// at most three chunks of eight digits with two independent divisions, each
// chunk becomes eight digit bytes in one register with three multiplications
// (SWAR: the two halves of four digits, then their four pairs, then eight
// digits, side by side in the word's lanes), and is stored at once. The
// leading chunk is stored whole and its leading zeros skipped by counting
// the word's zero bytes. In a loop over values like W6's (int64 over the
// whole range, either sign) into a buffer, this took 9 ns a number against
// format_decimal()'s 15 when it was written (Intel Xeon, {fmt} 9.1); W6's
// fastout_printf went from 1.29x to 0.91x printf_limit's time. The bytes are
// the same: test/decimal_test.cpp holds every chunk value, every length
// and random numbers to {fmt}'s. Not part of the API: detail.
#ifndef FASTOUT_DETAIL_DECIMAL_H_
#define FASTOUT_DETAIL_DECIMAL_H_

#include <cstdint>
#include <cstring>

#include <fastout/config.h>

#if defined(_MSC_VER) && !defined(__clang__)
#  include <intrin.h>
#endif

namespace fastout {
namespace detail {
namespace decimal {

/// The most bytes write() stores: 20 digits (2^64 - 1 has 20), and it
/// stores 8 bytes for a number of fewer than 8 digits, which the caller's
/// room must hold (the bytes past the number's end are left unspecified).
constexpr std::size_t most_bytes_stored = 20;

/// The digits of `v` < 10^8, leading zeros kept, as the values 0-9 in the
/// eight bytes of a word, the first digit in the word's lowest byte.
FASTOUT_ALWAYS_INLINE std::uint64_t eight_digit_values(std::uint32_t v) {
  const std::uint32_t high = v / 10000;
  const std::uint32_t low = v - high * 10000;
  // Two 32-bit lanes of four digits each (the first four in the low lane).
  std::uint64_t x = high | (std::uint64_t{low} << 32);
  // Each lane / 100 (x * 10486 >> 20 is exact below 10^4, and no lane's
  // product reaches the next lane): 16-bit lanes of two digits.
  const std::uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007F0000007Fu;
  x = hundreds | ((x - hundreds * 100) << 16);
  // Each 16-bit lane / 10 (x * 103 >> 10 is exact below 100): byte lanes.
  const std::uint64_t tens = ((x * 103) >> 10) & 0x000F000F000F000Fu;
  return tens | ((x - tens * 10) << 8);
}

constexpr std::uint64_t ascii_zeros = 0x3030303030303030u;

/// Stores `word`'s bytes at `pos`, its lowest byte first, on any byte order.
FASTOUT_ALWAYS_INLINE void store_lowest_first(char* pos, std::uint64_t word) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  word = __builtin_bswap64(word);
#endif
  std::memcpy(pos, &word, sizeof word);
}

/// The number of zero bytes at the low end of `word` (not 0).
FASTOUT_ALWAYS_INLINE int low_zero_bytes(std::uint64_t word) {
#if defined(_MSC_VER) && !defined(__clang__)
  unsigned long bit;
  _BitScanForward64(&bit, word);
  return static_cast<int>(bit) >> 3;
#else
  return __builtin_ctzll(word) >> 3;
#endif
}

/// The digits of 1 <= `v` < 10^8 at `pos`, no leading zeros; stores 8
/// bytes; returns the end of the digits.
FASTOUT_ALWAYS_INLINE char* write_leading(char* pos, std::uint32_t v) {
  const std::uint64_t values = eight_digit_values(v);
  const int zeros = low_zero_bytes(values);  // v's leading zero digits
  store_lowest_first(pos, (values | ascii_zeros) >> (8 * zeros));
  return pos + 8 - zeros;
}

/// The decimal digits of `n` at `pos`, as printf's "%llu" writes them;
/// stores up to most_bytes_stored bytes; returns the end of the digits.
FASTOUT_ALWAYS_INLINE char* write(char* pos, std::uint64_t n) {
  constexpr std::uint64_t e8 = 100000000;
  if (n < e8) {
    if (n < 10) {
      *pos = static_cast<char>('0' + n);
      return pos + 1;
    }
    return write_leading(pos, static_cast<std::uint32_t>(n));
  }
  const std::uint64_t high = n / e8;
  const auto low = static_cast<std::uint32_t>(n - high * e8);
  if (high < e8) {
    pos = write_leading(pos, static_cast<std::uint32_t>(high));
    store_lowest_first(pos, eight_digit_values(low) | ascii_zeros);
    return pos + 8;
  }
  // n / 10^16 beside n / 10^8 rather than after it: the two divisions
  // (multiplications) run side by side.
  const auto top = static_cast<std::uint32_t>(n / (e8 * e8));
  const auto middle = static_cast<std::uint32_t>(high - top * e8);
  pos = write_leading(pos, top);
  store_lowest_first(pos, eight_digit_values(middle) | ascii_zeros);
  store_lowest_first(pos + 8, eight_digit_values(low) | ascii_zeros);
  return pos + 16;
}

/// A '-' if `value` is negative, then its magnitude's digits; stores up to
/// most_bytes_stored + 1 bytes. No branch on the sign: the '-' is always
/// stored, and kept only where it belongs.
FASTOUT_ALWAYS_INLINE char* write_signed(char* pos, long long value) {
  const bool negative = value < 0;
  const auto magnitude = negative ? 0 - static_cast<unsigned long long>(value)
                                  : static_cast<unsigned long long>(value);
  *pos = '-';
  return write(pos + negative, magnitude);
}

}  // namespace decimal
}  // namespace detail
}  // namespace fastout

#endif  // FASTOUT_DETAIL_DECIMAL_H_
