// SPDX-License-Identifier: MIT
// Decimal digits of an integer (include/fastout/detail/decimal.h), the
// printf engine's and the format cache's for a plain "{}": every
// eight-digit chunk there is, the numbers at and around every power of ten
// and at the ends of each type, and random ones, against {fmt}'s digits;
// and no byte stored past what the header promises.
#include <gtest/gtest.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <fastout/detail/decimal.h>

namespace {

namespace decimal = fastout::detail::decimal;

TEST(decimal, every_eight_digit_chunk) {
  // An odometer of the eight digits, turned once per value: an independent
  // count to compare with.
  char expected[8];
  std::memset(expected, '0', sizeof expected);
  for (std::uint32_t v = 0; v < 100000000; ++v) {
    char got[8];
    decimal::store_lowest_first(got, decimal::eight_digit_values(v) | decimal::ascii_zeros);
    if (std::memcmp(got, expected, sizeof got) != 0) {
      ADD_FAILURE() << "chunk " << v << ": " << std::string(got, 8) << " instead of "
                    << std::string(expected, 8);
      return;
    }
    for (int i = 7; i >= 0 && ++expected[i] > '9'; --i) expected[i] = '0';
  }
}

// write(n) into a buffer of guard bytes: the same digits as {fmt}'s, and
// nothing stored past most_bytes_stored.
void expect_digits(std::uint64_t n) {
  char area[decimal::most_bytes_stored + 8];
  std::memset(area, '#', sizeof area);
  char* end = decimal::write(area, n);
  char expected[24];
  char* expected_end = fmt::format_to(expected, FMT_COMPILE("{}"), n);
  ASSERT_EQ(std::string(area, end), std::string(expected, expected_end)) << n;
  for (std::size_t i = decimal::most_bytes_stored; i < sizeof area; ++i)
    ASSERT_EQ(area[i], '#') << n << ": byte " << i << " stored";
}

void expect_signed_digits(long long value) {
  char area[decimal::most_bytes_stored + 1 + 8];
  std::memset(area, '#', sizeof area);
  char* end = decimal::write_signed(area, value);
  char expected[24];
  char* expected_end = fmt::format_to(expected, FMT_COMPILE("{}"), value);
  ASSERT_EQ(std::string(area, end), std::string(expected, expected_end)) << value;
  for (std::size_t i = decimal::most_bytes_stored + 1; i < sizeof area; ++i)
    ASSERT_EQ(area[i], '#') << value << ": byte " << i << " stored";
}

TEST(decimal, every_length_at_and_around_each_power_of_ten) {
  std::uint64_t power = 1;
  for (int exponent = 0; exponent <= 19; ++exponent, power *= 10) {
    for (std::uint64_t delta = 0; delta <= 3; ++delta) {
      expect_digits(power + delta);
      if (power > delta) expect_digits(power - delta - 1);
      expect_signed_digits(static_cast<long long>(power + delta));
      expect_signed_digits(-static_cast<long long>(power + delta));
    }
  }
  expect_digits(0);
  expect_digits(std::numeric_limits<std::uint64_t>::max());
  expect_digits(std::numeric_limits<std::uint64_t>::max() - 1);
  expect_digits(UINT_MAX);
  expect_signed_digits(0);
  expect_signed_digits(-1);
  expect_signed_digits(LLONG_MIN);
  expect_signed_digits(LLONG_MIN + 1);
  expect_signed_digits(LLONG_MAX);
  expect_signed_digits(INT_MIN);
  expect_signed_digits(INT_MAX);
}

TEST(decimal, random_numbers_of_every_length) {
  std::mt19937_64 random(20261128);
  for (int i = 0; i < 2000000; ++i) {
    const std::uint64_t bits = random();
    // Whole-range values, and shorter ones: every digit count is common.
    const std::uint64_t n = bits >> (bits % 64);
    expect_digits(bits);
    expect_digits(n);
    expect_signed_digits(static_cast<long long>(bits));
    // Negated in unsigned arithmetic: n may be 2^63, whose signed negation
    // would overflow.
    expect_signed_digits(static_cast<long long>((bits & 1) ? 0 - n : n));
  }
}

}  // namespace
