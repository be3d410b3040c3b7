// SPDX-License-Identifier: MIT
// What every fuzz target reads its input with: the bytes libFuzzer gives,
// taken from the front, a few at a time. Past the end every read gives 0,
// so that a short input is still a whole case (its defaults), as zstd's
// tests/fuzz/fuzz_data_producer.h does; a target's comment says what each
// byte means, so that a seed can be written by hand.
#ifndef FASTOUT_FUZZ_INPUT_H_
#define FASTOUT_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace fastout_fuzz {

class input {
 public:
  input(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  bool empty() const noexcept { return at_ == size_; }
  std::size_t left() const noexcept { return size_ - at_; }

  std::uint8_t byte() noexcept { return at_ < size_ ? data_[at_++] : 0; }

  // `count` bytes (at most 8), little-endian.
  std::uint64_t bits(unsigned count) noexcept {
    std::uint64_t value = 0;
    for (unsigned i = 0; i < count; ++i) value |= std::uint64_t{byte()} << (8 * i);
    return value;
  }

  // A number below `limit` (not 0): one byte, or two where the limit needs them.
  std::size_t below(std::size_t limit) noexcept {
    const std::size_t raw = limit <= 256 ? byte() : static_cast<std::size_t>(bits(2));
    return raw % limit;
  }

  // The bytes up to the next '\0' (which is skipped), or to the end.
  std::string_view text() noexcept {
    const std::size_t begin = at_;
    while (at_ < size_ && data_[at_] != 0) ++at_;
    const std::string_view result(reinterpret_cast<const char*>(data_) + begin, at_ - begin);
    if (at_ < size_) ++at_;
    return result;
  }

  // Up to `count` bytes, fewer where the input ends.
  std::string_view take(std::size_t count) noexcept {
    if (count > left()) count = left();
    const std::string_view result(reinterpret_cast<const char*>(data_) + at_, count);
    at_ += count;
    return result;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// `bytes` as a C string literal would show them, for reports.
inline std::string escaped(std::string_view bytes, std::size_t most = 400) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < most; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (bytes.size() > most) out += "...(" + std::to_string(bytes.size()) + " bytes)";
  return out;
}

// A finding: what differed, on stderr, then abort() -- which libFuzzer
// reports as a crash and saves the input for.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "\n==fastout fuzz== %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace fastout_fuzz

#endif  // FASTOUT_FUZZ_INPUT_H_
