// SPDX-License-Identifier: MIT
// What <fastout/file.h> declares on behalf of <fastout/print.h> and
// <fastout/cursor.h>: file's print(), println() and <<, fastout::hex() and
// fastout::cursor, as stand-ins that those headers complete. A program that
// uses them having included only file.h stops at compile time with one
// error naming the header to include, instead of a link error, "'hex' is
// not a member of 'fastout'" or "incomplete type".
//
// Each stand-in is a template of a tag that only the real header completes:
// print.h specializes printing<print_h, ...> and hex_maker<print_h>,
// cursor.h basic_cursor<cursor_h>. The primary templates below are
// instantiated only by a use, and then fail.
#ifndef FASTOUT_DETAIL_STAND_INS_H_
#define FASTOUT_DETAIL_STAND_INS_H_

#if __cplusplus >= 201703L

#  include <type_traits>

namespace fastout {

class file;

namespace detail {

struct print_h;
struct cursor_h;

// What file's print(), println() and << forward to; <fastout/print.h>
// specializes it for print_h.
template <typename Tag, typename... T>
struct printing {
  static_assert(!std::is_same<Tag, Tag>::value,
                "fastout::file's print(), println() and << are in <fastout/print.h>: include it "
                "(or <fastout/fastout.h>, which has everything)");
  template <bool Newline, typename... A>
  static void runtime(A&&...) noexcept {}
  template <bool Newline, typename... A>
  static void compiled(A&&...) noexcept {}
  template <typename... A>
  static void shift(A&&...) noexcept {}
};

// hex()'s maker; <fastout/print.h> specializes it for print_h.
template <typename Tag>
struct hex_maker {
  static_assert(!std::is_same<Tag, Tag>::value,
                "fastout::hex() is in <fastout/print.h>: include it "
                "(or <fastout/fastout.h>, which has everything)");
  // Only so that the assertion above is the one error.
  template <typename T>
  static constexpr T make(T value) noexcept {
    return value;
  }
};

// fastout::cursor; <fastout/cursor.h> specializes it for cursor_h. The
// members mirror the real cursor's, so that the assertion is the one error
// (after them: clang drops the members that follow a failed assertion).
template <typename Tag>
class basic_cursor {
 public:
  explicit basic_cursor(file&) noexcept {}
  template <typename... A>
  void put(A&&...) noexcept {}
  template <typename... A>
  void write(A&&...) noexcept {}
  void flush() noexcept {}
  void commit() noexcept {}

  static_assert(!std::is_same<Tag, Tag>::value,
                "fastout::cursor and file::make_cursor() are in <fastout/cursor.h>: include it "
                "(or <fastout/fastout.h>, which has everything)");
};

}  // namespace detail

/// A writer's buffer cursor in local variables, for byte-at-a-time loops:
/// <fastout/cursor.h> defines it and says how to use it.
using cursor = detail::basic_cursor<detail::cursor_h>;

/// Writes an integer as hexadecimal digits, as fmt's "{:x}": `out <<
/// hex(255)` writes "ff". In <fastout/print.h>, with the << that writes it.
template <typename T, typename Tag = detail::print_h>
constexpr auto hex(T value) noexcept {
  return detail::hex_maker<Tag>::make(value);
}

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_DETAIL_STAND_INS_H_
