// SPDX-License-Identifier: MIT
// Floating point for fastout's printf engine (printf_internal.h): %f %F %e
// %E %g %G %a %A of a double or a long double, as glibc 2.36's printf_fp
// and printf_fphex print them in the "C" locale, in the current rounding
// mode, at any precision.
//
// Both print the exact binary value's decimal (or hexadecimal) digits,
// rounded once, by the rounding mode, at the last digit kept: to nearest
// with ties to even by default. {fmt} rounds the same way to nearest, so a
// double to nearest at a precision up to 128 takes {fmt}'s digits
// (fmt_compat.h's float_digits(), the fast path: Grisu, Dragonbox and
// Dragon4). {fmt} cannot give the rest -- another rounding mode, a long
// double, a larger precision -- and for those this file makes the exact
// digits itself, with big numbers: the value as a fraction num/den of
// integers, scaled to [1, 10), one digit per step. %a is its own: the
// value's bits in hexadecimal, rounded by the rounding mode.
//
// The layout is glibc's, with its corners kept: %g chooses between %e and
// %f by the exponent after rounding, '#' keeps its zeros and point, a '0'
// flag pads after the sign, inf and nan are padded with spaces, and %La of
// an x87 long double shows the 64-bit mantissa's explicit leading digit
// ("0x8p-3" for 1).
#include <algorithm>
#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include <fastout/detail/fmt_compat.h>

#include "doors/printf_internal.h"

namespace fastout {
namespace detail {
namespace printf_engine {

int rounding_mode() noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  // glibc reads the x87 control word (fnstcw), not the SSE one: a program
  // that sets only MXCSR does not change printf's rounding. The rounding
  // bits are FE_TONEAREST, FE_DOWNWARD, FE_UPWARD and FE_TOWARDZERO.
  unsigned short control;
  __asm__ __volatile__("fnstcw %0" : "=m"(control));
  return control & 0xc00;
#else
  return std::fegetround();
#endif
}

namespace {

// glibc's round_away(): whether the digits kept go up by one, from the sign,
// the parity of the last digit kept, whether the rest is at least half a
// unit of it (half) and whether it is anything but zero or exactly half
// (more).
bool round_away(bool negative, bool last_odd, bool half, bool more, int mode) {
#ifdef FE_DOWNWARD
  if (mode == FE_DOWNWARD) return negative && (half || more);
#endif
#ifdef FE_UPWARD
  if (mode == FE_UPWARD) return !negative && (half || more);
#endif
#ifdef FE_TOWARDZERO
  if (mode == FE_TOWARDZERO) return false;
#endif
  (void)negative;
  (void)mode;
  return half && (last_odd || more);
}

// ----------------------------------------------------------- the value

// A finite value's magnitude as mantissa * 2^exponent (mantissa up to 128
// bits: hi, lo), and what %a prints of its bits: the leading hexadecimal
// digit, the fraction's digits and the binary exponent, as glibc's
// printf_fphex of its format takes them.
struct binary_value {
  std::uint64_t hi = 0, lo = 0;  // the mantissa
  int exponent = 0;
  bool negative = false;
  bool zero = false;
  // For %a.
  bool hex_zero = false;       // printf_fphex's zero_mantissa
  std::uint64_t hex_bits = 0;  // x87: the mantissa's bits as they are
  char leading = '0';
  int fraction_bits = 0;  // how many bits of (hi, lo) are the fraction's
  int hex_exponent = 0;   // with its sign
};

binary_value decompose(double value) {
  static_assert(sizeof(double) == 8 && DBL_MANT_DIG == 53, "IEEE binary64 doubles");
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  binary_value v;
  v.negative = (bits >> 63) != 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  v.fraction_bits = 52;
  v.lo = fraction;
  v.hex_zero = fraction == 0;
  if (biased == 0) {
    v.zero = fraction == 0;
    v.exponent = -1074;
    v.leading = '0';
    v.hex_exponent = v.zero ? 0 : -1022;
  } else {
    v.lo = fraction | (std::uint64_t{1} << 52);
    v.exponent = biased - 1075;
    v.leading = '1';
    v.hex_exponent = biased - 1023;
  }
  return v;
}

binary_value decompose(long double value) {
  binary_value v;
#if LDBL_MANT_DIG == 53
  v = decompose(static_cast<double>(value));
#elif LDBL_MANT_DIG == 64
  // x87 extended: a 64-bit mantissa with an explicit leading bit, a 15-bit
  // exponent and the sign, in the first 10 bytes (little-endian).
  unsigned char bytes[sizeof(long double)];
  std::memcpy(bytes, &value, sizeof bytes);
  std::uint64_t mantissa;
  std::memcpy(&mantissa, bytes, 8);
  const unsigned top = static_cast<unsigned>(bytes[8]) | static_cast<unsigned>(bytes[9]) << 8;
  v.negative = (top & 0x8000) != 0;
  const int biased = static_cast<int>(top & 0x7fff);
  v.lo = mantissa;
  v.zero = mantissa == 0;
  v.hex_zero = mantissa == 0;  // the explicit bit included
  v.hex_bits = mantissa;
  // A biased exponent of 0 is the minimum's, for denormals, and for the
  // x87's pseudo-denormals (leading bit set), whose leading bit glibc
  // clears, as invalid, unless it is the only one (then 2^-16382).
  v.exponent = (biased == 0 ? 1 : biased) - 16383 - 63;
  constexpr std::uint64_t leading_bit = std::uint64_t{1} << 63;
  if (biased == 0 && (mantissa & ~leading_bit) != 0) v.lo = mantissa & ~leading_bit;
  // printf_fphex: a whole nibble for the leading digit (3 bits of the
  // fraction in it), and the bias raised by 3.
  v.fraction_bits = 60;
  v.leading = "0123456789abcdef"[mantissa >> 60];
  if (biased == 0)
    v.hex_exponent = v.zero ? 0 : -(16382 + 3);
  else
    v.hex_exponent = biased - (16383 + 3);
#elif LDBL_MANT_DIG == 113
  // IEEE binary128: 112 bits of fraction.
  unsigned char bytes[16];
  std::memcpy(bytes, &value, sizeof bytes);
  std::uint64_t low, high;
#  if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  std::memcpy(&high, bytes, 8);
  std::memcpy(&low, bytes + 8, 8);
#  else
  std::memcpy(&low, bytes, 8);
  std::memcpy(&high, bytes + 8, 8);
#  endif
  v.negative = (high >> 63) != 0;
  const int biased = static_cast<int>((high >> 48) & 0x7fff);
  const std::uint64_t fraction_high = high & ((std::uint64_t{1} << 48) - 1);
  v.fraction_bits = 112;
  v.hi = fraction_high;
  v.lo = low;
  v.hex_zero = (fraction_high | low) == 0;
  if (biased == 0) {
    v.zero = (fraction_high | low) == 0;
    v.exponent = -16382 - 112;
    v.leading = '0';
    v.hex_exponent = v.zero ? 0 : -16382;
  } else {
    v.hi |= std::uint64_t{1} << 48;
    v.exponent = biased - 16383 - 112;
    v.leading = '1';
    v.hex_exponent = biased - 16383;
  }
#else
#  error "fastout's printf: this long double format is not supported"
#endif
  return v;
}

// --------------------------------------------------------- big numbers

// A non-negative integer of up to capacity 32-bit limbs, least significant
// first: enough for any double's, x87's or binary128's value scaled to
// [1, 10) (about 11,700 bits, at 2^16384 or 2^-16494), normalized, times
// ten.
class big {
 public:
  static constexpr std::size_t capacity = 380;

  void set(std::uint64_t hi, std::uint64_t lo) {
    limb_[0] = static_cast<std::uint32_t>(lo);
    limb_[1] = static_cast<std::uint32_t>(lo >> 32);
    limb_[2] = static_cast<std::uint32_t>(hi);
    limb_[3] = static_cast<std::uint32_t>(hi >> 32);
    size_ = 4;
    trim();
  }
  bool is_zero() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::uint32_t limb(std::size_t i) const { return i < size_ ? limb_[i] : 0; }

  void shift_left(std::size_t bits) {
    if (size_ == 0 || bits == 0) return;
    const std::size_t limbs = bits / 32;
    const unsigned rest = static_cast<unsigned>(bits % 32);
    if (rest != 0) {
      std::uint32_t carry = 0;
      for (std::size_t i = 0; i < size_; ++i) {
        const std::uint32_t next = limb_[i] >> (32 - rest);
        limb_[i] = limb_[i] << rest | carry;
        carry = next;
      }
      if (carry != 0) limb_[size_++] = carry;
    }
    if (limbs != 0) {
      std::memmove(limb_ + limbs, limb_, size_ * sizeof limb_[0]);
      std::memset(limb_, 0, limbs * sizeof limb_[0]);
      size_ += limbs;
    }
  }

  void multiply(std::uint32_t factor) {
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      const std::uint64_t product = std::uint64_t{limb_[i]} * factor + carry;
      limb_[i] = static_cast<std::uint32_t>(product);
      carry = product >> 32;
    }
    if (carry != 0) limb_[size_++] = static_cast<std::uint32_t>(carry);
  }

  void multiply_by_power_of_5(int n) {
    constexpr std::uint32_t five_13 = 1220703125;  // 5^13
    for (; n >= 13; n -= 13) multiply(five_13);
    std::uint32_t rest = 1;
    for (; n > 0; --n) rest *= 5;
    if (rest != 1) multiply(rest);
  }

  int compare(const big& other) const {
    if (size_ != other.size_) return size_ < other.size_ ? -1 : 1;
    for (std::size_t i = size_; i-- > 0;)
      if (limb_[i] != other.limb_[i]) return limb_[i] < other.limb_[i] ? -1 : 1;
    return 0;
  }

  // this -= other, for other <= this.
  void subtract(const big& other) {
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      std::int64_t difference = static_cast<std::int64_t>(limb_[i]) - other.limb(i) - borrow;
      borrow = difference < 0 ? 1 : 0;
      limb_[i] = static_cast<std::uint32_t>(difference + (borrow << 32));
    }
    trim();
  }

  // this -= q * other, for q * other <= this.
  void subtract_multiple(const big& other, std::uint32_t q) {
    std::uint64_t carry = 0;
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      const std::uint64_t product = std::uint64_t{other.limb(i)} * q + carry;
      carry = product >> 32;
      std::int64_t difference = static_cast<std::int64_t>(limb_[i]) -
                                static_cast<std::int64_t>(product & 0xffffffffu) - borrow;
      borrow = difference < 0 ? 1 : 0;
      limb_[i] = static_cast<std::uint32_t>(difference + (borrow << 32));
    }
    trim();
  }

  // The number of leading zero bits of the top limb.
  unsigned top_zeros() const {
    std::uint32_t top = limb_[size_ - 1];
    unsigned zeros = 0;
    while ((top & 0x80000000u) == 0) {
      top <<= 1;
      ++zeros;
    }
    return zeros;
  }

 private:
  void trim() {
    while (size_ > 0 && limb_[size_ - 1] == 0) --size_;
  }

  std::uint32_t limb_[capacity];
  std::size_t size_ = 0;
};

// The exact decimal digits of mantissa * 2^exponent (> 0), one at a time:
// num/den, scaled so that the first digit is num/den's integer part.
class exact_digits {
 public:
  exact_digits(const binary_value& v) {
    num_.set(v.hi, v.lo);
    const int bits = bit_length(v.hi, v.lo);
    // The decimal exponent of the first digit, within one: floor(e *
    // log10(2)), in integers, with log10(2) as 646456993 / 2^31 (exact for
    // every |e| up to 17,000, beyond a long double's exponents): std::floor()
    // is a libm call where the compiler does not inline it (-Os, -O0), and a
    // C program links libfastout-c without libm.
    constexpr std::int64_t log10_2_scaled = 646456993;
    constexpr std::int64_t scale = std::int64_t{1} << 31;
    const std::int64_t scaled = std::int64_t{v.exponent + bits - 1} * log10_2_scaled;
    int k = static_cast<int>(scaled >= 0 ? scaled / scale : -((-scaled + scale - 1) / scale));
    // value / 10^k = mantissa * 2^exponent / (5^k * 2^k), with the powers of
    // two on one side only.
    den_.set(0, 1);
    if (k >= 0)
      den_.multiply_by_power_of_5(k);
    else
      num_.multiply_by_power_of_5(-k);
    const int twos = v.exponent - k;  // num * 2^twos / den
    if (twos >= 0)
      num_.shift_left(static_cast<std::size_t>(twos));
    else
      den_.shift_left(static_cast<std::size_t>(-twos));
    // The estimate may be one off either way.
    big ten_den = den_;
    ten_den.multiply(10);
    if (num_.compare(ten_den) >= 0) {
      den_ = ten_den;
      ++k;
    } else if (num_.compare(den_) < 0) {
      num_.multiply(10);
      --k;
    }
    exponent_ = k;
    // The divisor's top limb with its top bit set, for the quotient's
    // estimate.
    const unsigned shift = den_.top_zeros();
    den_.shift_left(shift);
    num_.shift_left(shift);
  }

  int exponent() const { return exponent_; }
  bool rest_is_zero() const { return num_.is_zero(); }

  // The next digit; the rest is then num/den, in [0, 1).
  int next() {
    if (num_.is_zero()) return 0;
    const std::size_t n = den_.size();
    // num < 10 * den: its top 64 bits over den's top limb plus one is the
    // quotient or one less (den's top limb is at least 2^31).
    const std::uint64_t top = std::uint64_t{num_.limb(n)} << 32 | num_.limb(n - 1);
    auto q = static_cast<std::uint32_t>(top / (std::uint64_t{den_.limb(n - 1)} + 1));
    if (q != 0) num_.subtract_multiple(den_, q);
    while (num_.compare(den_) >= 0) {
      num_.subtract(den_);
      ++q;
    }
    num_.multiply(10);
    return static_cast<int>(q);
  }

  // The rest after the digits taken, against half a unit of the last:
  // glibc's half and more bits. (num is the rest times ten here.)
  void rest(bool& half, bool& more) const {
    if (num_.is_zero()) {
      half = more = false;
      return;
    }
    // rest = num / (10 * den): compare num with 5 * den.
    big five_den = den_;
    five_den.multiply(5);
    const int c = num_.compare(five_den);
    half = c >= 0;
    more = c != 0;
  }

 private:
  static int bit_length(std::uint64_t hi, std::uint64_t lo) {
    int bits = 0;
    if (hi != 0) {
      bits = 64;
      for (; hi != 0; hi >>= 1) ++bits;
    } else {
      for (; lo != 0; lo >>= 1) ++bits;
    }
    return bits;
  }

  big num_;
  big den_;
  int exponent_ = 0;
};

// ------------------------------------------------------------- digits

// A value's decimal digits, rounded: digits[0] is at 10^exponent, the
// digits past `size` (up to the position asked for) are zeros.
class decimal {
 public:
  char* digits = local_;
  std::size_t size = 0;
  int exponent = 0;
  bool carried = false;  // rounding made the digits "10..0" and the exponent one more

  decimal() = default;
  decimal(const decimal&) = delete;
  decimal& operator=(const decimal&) = delete;

  // Room for n digits and a carry.
  void reserve(std::size_t n) {
    if (n + 2 > sizeof local_) {
      heap_.reset(new char[n + 2]);
      digits = heap_.get();
    }
  }

 private:
  char local_[800];
  std::unique_ptr<char[]> heap_;
};

// Adds one unit at the last digit kept; a carry out of the first makes the
// digits "1" and the exponent one more.
void increment(decimal& d) {
  std::size_t i = d.size;
  while (i > 0 && d.digits[i - 1] == '9') d.digits[--i] = '0';
  if (i > 0) {
    ++d.digits[i - 1];
    return;
  }
  // All nines (or none): 10^(exponent + 1).
  std::memmove(d.digits + 1, d.digits, d.size);
  d.digits[0] = '1';
  ++d.size;
  ++d.exponent;
  d.carried = true;
}

// The digits of v down to 10^last (fixed: last = -precision), or its first
// `significant` ones, exact, rounded by `mode`.
void exact(const binary_value& v, bool fixed, int last, std::size_t significant, int mode,
           decimal& out) {
  exact_digits e(v);
  const int first = e.exponent();
  if (!fixed) last = first - static_cast<int>(significant) + 1;
  const long long count = static_cast<long long>(first) - last + 1;  // digits kept
  out.exponent = first;
  out.size = 0;
  bool half = false, more = false, last_odd = false;
  if (count < 0) {
    more = true;  // under a tenth of the last place's unit, and not zero
  } else if (count == 0) {
    // No digit kept: the first one is the next.
    const int next = e.next();
    half = next >= 5;
    more = (next != 0 && next != 5) || !e.rest_is_zero();
  } else {
    // Digits until the rest is zero; the ones after that are zeros. A
    // double has at most 767 significant digits, a long double about
    // 11,600.
    const auto wanted = static_cast<std::size_t>(count);
    out.reserve(std::min<std::size_t>(wanted, 12000));
    std::size_t i = 0;
    for (; i < wanted && !e.rest_is_zero(); ++i) out.digits[i] = static_cast<char>('0' + e.next());
    out.size = i;
    if (i == wanted) {
      last_odd = ((out.digits[i - 1] - '0') & 1) != 0;
      e.rest(half, more);
    }
  }
  if (!round_away(v.negative, last_odd, half, more, mode)) return;
  if (count <= 0) {
    // One unit of the last place.
    out.digits[0] = '1';
    out.size = 1;
    out.exponent = last;
    return;
  }
  increment(out);
  if (!fixed && out.size > significant) out.size = significant;  // "10..0"
}

// {fmt}'s digits for a double, to nearest: as exact() would make them.
void from_fmt(double magnitude, bool fixed, int precision, std::size_t significant, decimal& out) {
  fmt::memory_buffer buffer;
  const int last =
      float_digits(magnitude, fixed ? precision : static_cast<int>(significant), fixed, buffer);
  const char* d = buffer.data();
  std::size_t n = buffer.size();
  while (n > 0 && *d == '0') {  // a fixed value that rounds to zero, or "0..."
    ++d;
    --n;
  }
  out.size = n;
  out.exponent = last + static_cast<int>(n) - 1;
  if (!fixed && n > significant) out.size = significant;  // only zeros past it
  out.reserve(out.size);
  std::memcpy(out.digits, d, out.size);
}

// ------------------------------------------------------------ the layout

// A text made of parts: runs of digits, runs of one character, and the
// exponent; laid out once its length is known.
struct parts {
  struct part {
    const char* data;  // nullptr: `size` times `fill`
    std::size_t size;
    char fill;
  };
  part list[10];
  int n = 0;
  std::size_t size = 0;

  void text(const char* data, std::size_t length) {
    if (length == 0) return;
    list[n++] = {data, length, 0};
    size += length;
  }
  void run(char c, std::size_t length) {
    if (length == 0) return;
    list[n++] = {nullptr, length, c};
    size += length;
  }
};

char* emit(output& out, char* pos, const parts& p) {
  if (FASTOUT_LIKELY(p.size <= out.room(pos))) {
    for (int i = 0; i < p.n; ++i) {
      const parts::part& x = p.list[i];
      if (x.data != nullptr)
        std::memcpy(pos, x.data, x.size);
      else
        std::memset(pos, x.fill, x.size);
      pos += x.size;
    }
    return pos;
  }
  for (int i = 0; i < p.n; ++i) {
    const parts::part& x = p.list[i];
    pos = x.data != nullptr ? out.append(pos, x.data, x.size) : out.fill(pos, x.fill, x.size);
  }
  return pos;
}

// [spaces][sign][zeros]body[padding], as printf_fp and printf_fphex pad:
// `zero_pad` is whether the '0' flag pads this body (not inf or nan).
char* pad_and_emit(output& out, char* pos, const float_spec& spec, bool negative, const parts& body,
                   bool zero_pad, bool hex) {
  const std::uint16_t flags = spec.flags;
  const char sign = negative                  ? '-'
                    : (flags & flag_showsign) ? '+'
                    : (flags & flag_space)    ? ' '
                                              : '\0';
  const std::size_t padding = output::padding(spec.width, (sign != '\0' ? 1 : 0) + body.size);
  const bool left = (flags & flag_left) != 0;
  const bool pad_zero = (flags & flag_pad_zero) != 0;
  std::size_t before = 0, zeros = 0, after = 0;
  char after_fill = ' ';
  if (!left) {
    if (zero_pad && pad_zero)
      zeros = padding;
    else
      before = padding;
  } else if (!zero_pad) {
    after = padding;  // inf and nan: spaces
  } else if (hex) {
    after = pad_zero ? 0 : padding;  // printf_fphex pads nothing then
  } else {
    after = padding;  // printf_fp pads with its pad character
    after_fill = pad_zero ? '0' : ' ';
  }
  const std::size_t prefix = hex ? 2 : 0;  // "0x" goes before the zeros
  const std::size_t total = before + (sign != '\0') + zeros + body.size + after;
  if (FASTOUT_UNLIKELY(out.too_long(pos, total))) return pos;
  if (FASTOUT_UNLIKELY(total > out.room(pos))) pos = out.make_room(pos, total);
  pos = out.fill(pos, ' ', before);
  if (sign != '\0') pos = out.put(pos, sign);
  if (prefix != 0 && zeros != 0) {
    // The body starts with "0x": the zeros go after it.
    parts rest_of_body;
    pos = out.append(pos, body.list[0].data, 2);
    pos = out.fill(pos, '0', zeros);
    for (int i = 1; i < body.n; ++i) rest_of_body.list[rest_of_body.n++] = body.list[i];
    rest_of_body.size = body.size - 2;
    pos = emit(out, pos, rest_of_body);
  } else {
    pos = out.fill(pos, '0', zeros);
    pos = emit(out, pos, body);
  }
  return out.fill(pos, after_fill, after);
}

// The exponent's text: the letter, the sign, at least two digits.
std::size_t exponent_text(char* text, char letter, int exponent) {
  char* t = text;
  *t++ = letter;
  *t++ = exponent < 0 ? '-' : '+';
  unsigned magnitude = static_cast<unsigned>(exponent < 0 ? -exponent : exponent);
  char digits[12];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  if (n < 2) digits[n++] = '0';
  while (n > 0) *t++ = digits[--n];
  return static_cast<std::size_t>(t - text);
}

// %f of d (digits down to 10^-precision, or fewer: zeros), with '#'.
void fixed_parts(const decimal& d, int precision, bool alt, parts& p) {
  const auto size = static_cast<long long>(d.size);
  const long long first = d.exponent;  // 10^first is digits[0]
  // The integer part.
  long long used = 0;  // digits of d already placed
  if (size == 0 || first < 0) {
    p.text("0", 1);
  } else {
    used = std::min(size, first + 1);
    p.text(d.digits, static_cast<std::size_t>(used));
    p.run('0', static_cast<std::size_t>(first + 1 - used));
  }
  if (precision > 0 || alt) p.text(".", 1);
  if (precision <= 0) return;
  // The fraction: zeros down to the first digit, the digits, zeros.
  long long leading = 0;
  if (size != 0 && first < -1) leading = std::min<long long>(precision, -first - 1);
  if (size == 0) leading = precision;
  p.run('0', static_cast<std::size_t>(leading));
  const long long digits = size - used;
  const long long shown = std::min<long long>(digits, precision - leading);
  if (shown > 0) p.text(d.digits + used, static_cast<std::size_t>(shown));
  p.run('0', static_cast<std::size_t>(precision - leading - std::max<long long>(shown, 0)));
}

// %e of d (`precision` + 1 significant digits, or fewer: zeros).
void exponent_parts(const decimal& d, int precision, bool alt, char letter, char* exponent,
                    parts& p) {
  if (d.size == 0)
    p.text("0", 1);
  else
    p.text(d.digits, 1);
  if (precision > 0 || alt) p.text(".", 1);
  const std::size_t rest = d.size > 0 ? d.size - 1 : 0;
  const std::size_t shown = std::min<std::size_t>(rest, static_cast<std::size_t>(precision));
  p.text(d.digits + 1, shown);
  p.run('0', static_cast<std::size_t>(precision) - shown);
  p.text(exponent, exponent_text(exponent, letter, d.size == 0 ? 0 : d.exponent));
}

bool is_upper(char conversion) { return conversion >= 'A' && conversion <= 'Z'; }

// inf or nan, padded with spaces.
char* special(output& out, char* pos, const float_spec& spec, bool negative, bool nan) {
  parts body;
  const bool upper = is_upper(spec.conversion);
  body.text(nan ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3);
  return pad_and_emit(out, pos, spec, negative, body, false, false);
}

// %f %e %g of a finite value.
char* decimal_conversion(output& out, char* pos, const float_spec& spec, const binary_value& v,
                         double as_double, bool is_double) {
  const char c = spec.conversion;
  const bool alt = (spec.flags & flag_alt) != 0;
  const int mode = rounding_mode();
  // {fmt}'s digits where they are glibc's: a double, to nearest, at a
  // precision small enough for {fmt}'s exact path.
  constexpr int largest_fmt_precision = 128;
  const bool by_fmt = is_double && mode == FE_TONEAREST && spec.precision <= largest_fmt_precision;
  const int precision = spec.precision < 0 ? 6 : spec.precision;
  decimal d;
  parts body;
  char exponent[16];
  const double magnitude = std::fabs(as_double);
  if (c == 'f' || c == 'F') {
    if (v.zero)
      d.size = 0;
    else if (by_fmt)
      from_fmt(magnitude, true, precision, 0, d);
    else
      exact(v, true, -precision, 0, mode, d);
    fixed_parts(d, precision, alt, body);
  } else if (c == 'e' || c == 'E') {
    const auto significant = static_cast<std::size_t>(precision) + 1;
    if (v.zero)
      d.size = 0;
    else if (by_fmt)
      from_fmt(magnitude, false, 0, significant, d);
    else
      exact(v, false, 0, significant, mode, d);
    exponent_parts(d, precision, alt, c == 'E' ? 'E' : 'e', exponent, body);
  } else {
    // %g: P significant digits; %e's layout if the exponent X (after
    // rounding) is below -4 or at least P, else %f's with P - 1 - X
    // decimals; without '#', no trailing zeros, nor a point without digits
    // after it.
    const int p = spec.precision < 0 ? 6 : spec.precision == 0 ? 1 : spec.precision;
    const auto significant = static_cast<std::size_t>(p);
    if (v.zero)
      d.size = 0;
    else if (by_fmt)
      from_fmt(magnitude, false, 0, significant, d);
    else
      exact(v, false, 0, significant, mode, d);
    const int x = d.size == 0 ? 0 : d.exponent;
    // glibc chooses %f's layout from the exponent before rounding, and
    // keeps '#''s zeros by the count it had then: a value whose P integer
    // digits round up to 10^P ("%#.2g" of 99.6) is printed "1.e+02".
    bool carried = d.carried;
    if (by_fmt && x == p && !carried) {
      static const double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
      carried = p <= 22 && magnitude < powers[p];
    }
    std::size_t kept = d.size;
    if (!alt || (carried && x == p))
      while (kept > 0 && d.digits[kept - 1] == '0') --kept;
    if (x < -4 || x >= p) {
      int decimals = p - 1;
      if (!alt || (carried && x == p)) decimals = kept > 0 ? static_cast<int>(kept) - 1 : 0;
      const std::size_t size = d.size;
      d.size = std::min(kept, size);
      exponent_parts(d, decimals, alt, is_upper(c) ? 'E' : 'e', exponent, body);
    } else {
      int decimals = p - 1 - x;
      if (!alt) {
        // The last nonzero digit's place, if it is after the point.
        const long long last_place = static_cast<long long>(x) - static_cast<long long>(kept) + 1;
        decimals = kept == 0 || last_place >= 0 ? 0 : static_cast<int>(-last_place);
      }
      d.size = kept;
      fixed_parts(d, decimals, alt, body);
    }
  }
  return pad_and_emit(out, pos, spec, v.negative, body, true, false);
}

// %a's digits of a value: the leading one, the fraction's (all of them),
// and the binary exponent, rounded to a precision.
struct hex_digits {
  char leading;
  char fraction[32];
  int count;   // of the fraction's digits
  int digits;  // of them to the last nonzero one
  int exponent;
};

hex_digits hex_digits_of(const binary_value& v, bool upper) {
  const char* hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  hex_digits h;
  h.count = v.fraction_bits / 4;
  for (int i = 0; i < h.count; ++i) {
    const int shift = v.fraction_bits - 4 * (i + 1);
    const std::uint64_t lo = v.fraction_bits == 60 ? v.hex_bits : v.lo;  // x87: as it is
    std::uint64_t bits;
    if (shift >= 64)
      bits = v.hi >> (shift - 64);
    else if (shift == 0)
      bits = lo;
    else
      bits = lo >> shift | v.hi << (64 - shift);
    h.fraction[i] = hex[bits & 15];
  }
  h.leading = v.leading;
  if (upper && h.leading >= 'a') h.leading = static_cast<char>(h.leading - 'a' + 'A');
  h.exponent = v.hex_exponent;
  h.digits = 0;
  if (!v.hex_zero) {
    h.digits = h.count;
    while (h.digits > 0 && h.fraction[h.digits - 1] == '0') --h.digits;
  }
  return h;
}

// One unit more in the last of the first `precision` fraction digits,
// carried as far as it goes: into the leading digit, which past 'f' (an
// x87 mantissa) becomes 1 with the exponent 4 more.
void round_hex_up(hex_digits& h, int precision, bool upper) {
  int i = precision;
  while (--i >= 0) {
    const char c = h.fraction[i];
    if (c == '9') {
      h.fraction[i] = upper ? 'A' : 'a';
      return;
    }
    if ((c | 0x20) < 'f') {
      ++h.fraction[i];
      return;
    }
    h.fraction[i] = '0';
  }
  if (h.leading == '9') {
    h.leading = upper ? 'A' : 'a';
  } else if ((h.leading | 0x20) < 'f') {
    ++h.leading;
  } else {
    h.leading = '1';
    h.exponent += 4;
  }
}

// Rounds the fraction to `precision` digits, as glibc does, by the
// rounding mode, if it has more.
void round_hex(hex_digits& h, int precision, bool negative, bool upper) {
  if (precision < 0 || precision >= h.digits) return;
  auto value_of = [](char c) {
    return c >= 'a' ? c - 'a' + 10 : c >= 'A' ? c - 'A' + 10 : c - '0';
  };
  const int last = value_of(precision > 0 ? h.fraction[precision - 1] : h.leading);
  const int next = value_of(h.fraction[precision]);
  const bool more = (next & 7) != 0 || precision + 1 < h.digits;
  if (round_away(negative, (last & 1) != 0, next >= 8, more, rounding_mode()))
    round_hex_up(h, precision, upper);
}

// %a's exponent: 'p' (or 'P'), its sign, its decimal digits, at `text`;
// returns their size.
std::size_t hex_exponent_text(char* text, int exponent, bool upper) {
  char* t = text;
  *t++ = upper ? 'P' : 'p';
  *t++ = exponent < 0 ? '-' : '+';
  unsigned magnitude = static_cast<unsigned>(exponent < 0 ? -exponent : exponent);
  char reversed[12];
  int n = 0;
  do {
    reversed[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  while (n > 0) *t++ = reversed[--n];
  return static_cast<std::size_t>(t - text);
}

// %a %A: glibc's printf_fphex. Without a precision, the fraction's digits
// to the last nonzero one (none for a zero mantissa).
char* hex_conversion(output& out, char* pos, const float_spec& spec, const binary_value& v) {
  const bool upper = spec.conversion == 'A';
  hex_digits h = hex_digits_of(v, upper);
  round_hex(h, spec.precision, v.negative, upper);
  const int precision = spec.precision == -1 ? h.digits : spec.precision;
  parts body;
  body.text(upper ? "0X" : "0x", 2);
  body.text(&h.leading, 1);
  if (precision > 0 || (spec.flags & flag_alt)) body.text(".", 1);
  const int shown = std::min(h.digits, precision);
  body.text(h.fraction, static_cast<std::size_t>(shown > 0 ? shown : 0));
  body.run('0', static_cast<std::size_t>(precision - (shown > 0 ? shown : 0)));
  char exponent[16];
  body.text(exponent, hex_exponent_text(exponent, h.exponent, upper));
  return pad_and_emit(out, pos, spec, v.negative, body, true, true);
}

// The exponent's text at pos: the letter, the sign, at least two digits.
FASTOUT_ALWAYS_INLINE char* put_exponent(char* pos, char letter, int exponent) {
  *pos++ = letter;
  *pos++ = exponent < 0 ? '-' : '+';
  auto magnitude = static_cast<unsigned>(exponent < 0 ? -exponent : exponent);
  if (magnitude >= 100) {
    *pos++ = static_cast<char>('0' + magnitude / 100);
    magnitude %= 100;
  }
  pos[0] = static_cast<char>('0' + magnitude / 10);
  pos[1] = static_cast<char>('0' + magnitude % 10);
  return pos + 2;
}

// digits[0, size) with their first at 10^first, as %f with `decimals`
// digits after the point (the digits past `size` are zeros), at pos.
FASTOUT_ALWAYS_INLINE char* put_fixed(char* pos, const char* digits, int size, int first,
                                      int decimals, bool point) {
  int used = 0;
  if (size == 0 || first < 0) {
    *pos++ = '0';
  } else {
    used = size < first + 1 ? size : first + 1;
    std::memcpy(pos, digits, static_cast<std::size_t>(used));
    pos += used;
    const int zeros = first + 1 - used;
    if (zeros > 0) {
      std::memset(pos, '0', static_cast<std::size_t>(zeros));
      pos += zeros;
    }
  }
  if (point) *pos++ = '.';
  if (decimals <= 0) return pos;
  int leading = size == 0 ? decimals : first < -1 ? std::min(decimals, -first - 1) : 0;
  std::memset(pos, '0', static_cast<std::size_t>(leading));
  pos += leading;
  int shown = std::min(size - used, decimals - leading);
  if (shown < 0) shown = 0;
  std::memcpy(pos, digits + used, static_cast<std::size_t>(shown));
  pos += shown;
  const int trailing = decimals - leading - shown;
  std::memset(pos, '0', static_cast<std::size_t>(trailing));
  return pos + trailing;
}

}  // namespace

char* put_plain_double(char* pos, char conversion, int precision, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (bits >> 63) *pos++ = '-';
  if (FASTOUT_UNLIKELY((bits & 0x7ff0000000000000u) == 0x7ff0000000000000u)) {
    const bool upper = conversion >= 'A' && conversion <= 'Z';
    const bool nan = (bits & 0x000fffffffffffffu) != 0;
    std::memcpy(pos, nan ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"), 3);
    return pos + 3;
  }
  const double magnitude = std::fabs(value);
  const bool zero = magnitude == 0;
  const char c = static_cast<char>(conversion | 0x20);
  fmt::basic_memory_buffer<char, 512> buffer;
  if (c == 'f') {
    const int decimals = precision < 0 ? 6 : precision;
    int size = 0, first = 0;
    const char* digits = "";
    if (!zero) {
      const int last = float_digits(magnitude, decimals, true, buffer);
      digits = buffer.data();
      size = static_cast<int>(buffer.size());
      while (size > 0 && *digits == '0') {
        ++digits;
        --size;
      }
      first = last + size - 1;
    }
    return put_fixed(pos, digits, size, first, decimals, decimals > 0);
  }
  const int p = precision < 0 ? 6 : precision;
  if (c == 'e') {
    char zeros[1] = {'0'};
    const char* digits = zeros;
    int first = 0;
    if (!zero) {
      const int last = float_digits(magnitude, p + 1, false, buffer);
      digits = buffer.data();
      first = last + static_cast<int>(buffer.size()) - 1;
    }
    *pos++ = digits[0];
    if (p > 0) {
      *pos++ = '.';
      if (zero)
        std::memset(pos, '0', static_cast<std::size_t>(p));
      else
        std::memcpy(pos, digits + 1, static_cast<std::size_t>(p));
      pos += p;
    }
    return put_exponent(pos, conversion == 'E' ? 'E' : 'e', first);
  }
  // %g: P significant digits, %e's layout for an exponent (after rounding)
  // under -4 or from P on, else %f's; no trailing zeros, nor a bare point.
  const int significant = p == 0 ? 1 : p;
  if (zero) {
    *pos = '0';
    return pos + 1;
  }
  const int last = float_digits(magnitude, significant, false, buffer);
  const char* digits = buffer.data();
  const int x = last + static_cast<int>(buffer.size()) - 1;
  int kept = std::min(significant, static_cast<int>(buffer.size()));
  while (kept > 1 && digits[kept - 1] == '0') --kept;
  if (x < -4 || x >= significant) {
    *pos++ = digits[0];
    if (kept > 1) {
      *pos++ = '.';
      std::memcpy(pos, digits + 1, static_cast<std::size_t>(kept - 1));
      pos += kept - 1;
    }
    return put_exponent(pos, conversion == 'G' ? 'E' : 'e', x);
  }
  const int last_place = x - kept + 1;
  const int decimals = last_place >= 0 ? 0 : -last_place;
  return put_fixed(pos, digits, kept, x, decimals, decimals > 0);
}

char* put_double(output& out, char* pos, const float_spec& spec, double value) {
  if (std::isnan(value) || std::isinf(value))
    return special(out, pos, spec, std::signbit(value), std::isnan(value));
  const binary_value v = decompose(value);
  if (spec.conversion == 'a' || spec.conversion == 'A') return hex_conversion(out, pos, spec, v);
  return decimal_conversion(out, pos, spec, v, value, true);
}

char* put_long_double(output& out, char* pos, const float_spec& spec, long double value) {
  // As glibc: the compiler's isnan (on x87, unnormals and pseudo-NaNs too).
  if (std::isnan(value) || std::isinf(value))
    return special(out, pos, spec, std::signbit(value), std::isnan(value));
  const binary_value v = decompose(value);
  if (spec.conversion == 'a' || spec.conversion == 'A') return hex_conversion(out, pos, spec, v);
  return decimal_conversion(out, pos, spec, v, static_cast<double>(value),
                            LDBL_MANT_DIG == DBL_MANT_DIG);
}

}  // namespace printf_engine
}  // namespace detail
}  // namespace fastout
