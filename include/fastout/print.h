// SPDX-License-Identifier: MIT
// Formatting into a fastout writer, with {fmt}: the writer's print(),
// println(), vprint() and <<, its conversion to fmt::writer, and hex().
//
//   out.print("{} items in {:.2f} s\n", count, seconds);
//   out.print(FMT_COMPILE("{},{}\n"), id, name);  // compiled: the fastest
//   out << id << ',' << fastout::hex(mask) << '\n';
//
// The text is always {fmt}'s, and every argument is formatted exactly once,
// straight into the writer's buffer:
//
// - print(fmt, args...) is fmt::ostream's print(): when the format string
//   is checked is {fmt}'s rule (at compile time in C++20, or in C++17 inside
//   FMT_STRING; otherwise at run time, where a bad one throws
//   fmt::format_error). println() adds '\n' to the same piece, and vprint()
//   takes type-erased arguments, as fmt::vprint.
// - print(FMT_COMPILE(...), args...), which fmt::output_file cannot take,
//   formats with a compiled format.
// - << writes a scalar without a format string, the text fmt's "{}" makes:
//   integers, floating point (shortest round trip), bool, char, strings,
//   hex(x), and any type with a fmt::formatter.
// - Text that fits in the buffer is never split across a flush, and a format
//   error leaves none of it in the file. Text larger than the whole buffer
//   streams to the file as {fmt} makes it, in chunks of at least
//   streaming_chunk_size; a format error then leaves only the chunks that
//   had gone out (file_stats says what is counted).
// - A file converts to fmt::writer ({fmt} 11.1 and later), as fmt::ostream
//   does: text printed through it and through the writer comes out in the
//   order it was printed, and line buffering applies to it at the writer's
//   next call.
#ifndef FASTOUT_PRINT_H_
#define FASTOUT_PRINT_H_

#include <fastout/file.h>

#if __cplusplus >= 201703L

#  include <cstddef>
#  include <string>
#  include <string_view>
#  include <type_traits>
#  include <utility>

#  include <fastout/detail/bounded_format.h>
#  include <fastout/detail/fmt_compat.h>
#  include <fastout/detail/format_cache.h>

namespace fastout {
namespace detail {

// fastout::hex(x), which writes an integer as hexadecimal digits, as fmt's
// "{:x}": `out << hex(255)` writes "ff". <fastout/file.h> declares hex() so
// that without this header it fails with a message naming it
// (detail/stand_ins.h); here is what it makes.
template <>
struct hex_maker<print_h> {
  template <typename T>
  static constexpr hex_value<T> make(T value) noexcept {
    static_assert(std::is_integral<T>::value, "fastout::hex takes an integer");
    return hex_value<T>{value};
  }
};

// fmt's buffer over a piece of text in a writer, for one print. It starts
// either over the free space of a writer whose hot path is open (the inline
// print) or over a piece the writer began out of line; when fmt needs more
// room, the writer grows the piece (writer::grow_piece()), which keeps it whole
// while it fits in the buffer and streams it to the file once it does not.
class FASTOUT_API print_buffer final : public fmt_buffer<print_buffer> {
 public:
  FASTOUT_ALWAYS_INLINE print_buffer(writer& w, char* begin, char* end) noexcept
      : fmt_buffer(begin, static_cast<std::size_t>(end - begin)), writer_(&w) {}
  print_buffer(writer& w, const piece& p) noexcept
      : fmt_buffer(p.text, static_cast<std::size_t>(p.end - p.text)),
        writer_(&w),
        place_(p.place),
        out_of_line_(true) {}
  print_buffer(const print_buffer&) = delete;
  print_buffer& operator=(const print_buffer&) = delete;
  // A format error leaves the writer as the last chunk sent left it: the
  // text not yet sent -- all of a piece that never had to leave the buffer
  // -- is dropped, uncounted, with nothing to undo.

  // True when the piece must be ended out of line, with finish(): it began
  // there, or it grew. An inline print that did neither ends with
  // writer::commit_room().
  bool out_of_line() const noexcept { return out_of_line_; }
  void finish();
  // fmt wants room for `capacity` chars in all.
  void on_grow(std::size_t capacity);

 private:
  writer* writer_;
  piece_place place_ = piece_place::buffer;
  bool out_of_line_ = false;
};

// Formats into a fmt buffer; lets out-of-line code run an inline format.
using format_function = void (*)(void* context, fmt_buffer_base& out);

// A print whose writer's hot path is closed (pos == limit): a full buffer,
// line buffering, no buffer, an error, a closed writer, lent space.
FASTOUT_API void print_out_of_line(file& f, format_function format, void* context);

template <typename F>
void call_format(void* context, fmt_buffer_base& out) {
  (*static_cast<F*>(context))(out);
}

// Formats into the writer's free space, through a print_buffer: inline while
// the hot path is open and the piece fits, out of line otherwise.
template <typename F>
FASTOUT_ALWAYS_INLINE void format_with(file& f, F& format) {
  writer& w = writer_of(f);
  const buffer_state room = w.room();
  if (FASTOUT_LIKELY(room.pos != room.limit)) {
    print_buffer out(w, room.pos, room.limit);
    format(out);
    if (FASTOUT_LIKELY(!out.out_of_line())) {
      w.commit_room(out.data() + out.size());
      return;
    }
    out.finish();
    return;
  }
  print_out_of_line(f, &call_format<F>, &format);
}

// A compiled format whose text is at most `bound` bytes: one room check,
// then fmt writes through a char*. The arguments are copies
// (fast_argument), in both paths: had the slow path taken the caller's by
// reference, they would live in memory that every char the fast path writes
// might change, for all the compiler knows.
template <bool Newline, typename S, typename... V>
FASTOUT_ALWAYS_INLINE void print_bounded(file& f, std::size_t bound, const S& format, V... values) {
  writer& w = writer_of(f);
  const buffer_state room = w.room();
  const auto space = static_cast<std::size_t>(room.limit - room.pos);
  // print: bound - 1, as file::write(): an empty text goes out of line, so
  // that a closed writer, or one with a sticky error, throws even for it.
  // println: bound < space leaves a byte for the '\n', and cannot wrap as
  // bound + 1 would.
  if (FASTOUT_LIKELY(Newline ? bound < space : bound - 1 < space)) {
    char* end = fmt::format_to(room.pos, format, values...);
    if constexpr (Newline) *end++ = '\n';
    w.commit_room(end);
    return;
  }
  // By copy: a value whose address reached this lambda would be stored to
  // memory before the fast path on every call.
  auto format_into = [&format, values...](fmt_buffer_base& out) {
    fmt::format_to(fmt::appender(out), format, values...);
    if constexpr (Newline) out.push_back('\n');
  };
  format_with(f, format_into);
}

// Out of line, so that the inline path keeps its few registers.
template <typename T>
FASTOUT_NOINLINE void write_scalar_slow(file& f, T value) {
  char text[max_scalar_size<T>()];
  char* end = format_scalar(text, value);
  f.write(text, static_cast<std::size_t>(end - text));
}

template <typename T>
FASTOUT_ALWAYS_INLINE void write_scalar(file& f, T value) {
  constexpr std::size_t max_size = max_scalar_size<T>();
  writer& w = writer_of(f);
  const buffer_state room = w.room();
  if (FASTOUT_LIKELY(static_cast<std::size_t>(room.limit - room.pos) >= max_size)) {
    w.commit_room(format_scalar(room.pos, value));
    return;
  }
  write_scalar_slow(f, value);
}

// What file's print(), println() and << do (file.h forwards them here).
template <typename... T>
struct printing<print_h, T...> {
  template <bool Newline>
  static void runtime(file& f, fmt::format_string<T...> format, T&&... args) {
    fmt::string_view format_string = format;
    auto format_into = [&](fmt_buffer_base& out) {
      format_static(out, format_string, args...);
      if constexpr (Newline) out.push_back('\n');
    };
    format_with(f, format_into);
  }

  template <bool Newline, typename S>
  static void compiled(file& f, const S& format, T&&... args) {
    if constexpr (bounded_format<S, T...>::value &&
                  copies_cheaply<fmt::remove_cvref_t<T>...>::value) {
      print_bounded<Newline>(f, bounded_format<S, T...>::max_size(args...), format,
                             fast_argument(args)...);
    } else {
      auto format_into = [&](fmt_buffer_base& out) {
        fmt::format_to(fmt::appender(out), format, std::forward<T>(args)...);
        if constexpr (Newline) out.push_back('\n');
      };
      format_with(f, format_into);
    }
  }

  template <typename U>
  static void shift(file& f, const U& value) {
    if constexpr (is_fast_scalar<U>::value || is_hex_value<U>::value) {
      write_scalar(f, value);
    } else if constexpr (std::is_same<U, char>::value) {
      f.put(value);
    } else if constexpr (std::is_same<U, bool>::value) {
      f.write(value ? std::string_view("true") : std::string_view("false"));
    } else if constexpr (formats_as_string<U>::value) {
      if constexpr (std::is_pointer<U>::value) {
        if (value == nullptr) {  // fmt's format_error, not strlen(nullptr)
          f.print(FMT_COMPILE("{}"), value);
          return;
        }
      }
      f.write(std::string_view(value));
    } else {
      // fmt's runtime "{}", the definition of the text; its compiled "{}"
      // differs for some types (nullptr throws instead of writing "0x0").
      f.print("{}", value);
    }
  }
};

}  // namespace detail
}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_PRINT_H_
