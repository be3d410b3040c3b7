// SPDX-License-Identifier: MIT
// fastout::cursor: a writer's free space in local variables, for loops that
// write a byte at a time as fast as a hand-written buffer.
#ifndef FASTOUT_CURSOR_H_
#define FASTOUT_CURSOR_H_

#include <fastout/file.h>

#if __cplusplus >= 201703L

#  include <cstddef>
#  include <string_view>

namespace fastout {
namespace detail {

/// fastout::cursor: a copy of a writer's buffer cursor in local variables,
/// for tight loops. (<fastout/file.h> names fastout::cursor as this
/// specialization, so that using it without this header fails with a
/// message naming it: detail/stand_ins.h.)
///
/// file::put() must reload the buffer pointer after every byte, because a
/// `char` store may alias the writer itself. A cursor is a local object whose
/// address never escapes, so the compiler keeps its pointers in registers:
/// `put()` in a loop compiles to a compare and a store, as fast as a
/// hand-written buffer. Use it for byte-at-a-time loops; use file::put() and
/// file::write() everywhere else.
///
/// While a cursor is alive the writer's buffer is lent to it: write only
/// through the cursor. A call on the writer itself (write, print, flush,
/// close, ...) throws std::system_error(EBUSY) instead of losing the
/// cursor's bytes, and stats() counts them once the cursor commits. The
/// cursor hands its position back in commit() and in its destructor.
template <>
class basic_cursor<cursor_h> {
 public:
  /// Throws std::system_error(EBUSY) if another cursor is alive on `f`.
  explicit basic_cursor(file& f) : file_(&f) { borrow(); }
  ~basic_cursor() {
    if (space_.pos != nullptr) detail::writer_of(*file_).take_back_from_cursor(space_.pos);
  }
  basic_cursor(const basic_cursor&) = delete;
  basic_cursor& operator=(const basic_cursor&) = delete;

  FASTOUT_ALWAYS_INLINE void put(char c) {
    if (FASTOUT_LIKELY(fastout_buffer_put(&space_, c))) return;
    sync_around([&] { file_->put(c); });
  }
  FASTOUT_ALWAYS_INLINE void write(const void* data, std::size_t size) {
    if (FASTOUT_LIKELY(fastout_buffer_write(&space_, data, size))) return;
    sync_around([&] { file_->write(data, size); });
  }
  FASTOUT_ALWAYS_INLINE void write(std::string_view s) { write(s.data(), s.size()); }
  void flush() {
    sync_around([&] { file_->flush(); });
  }

  /// Hands the position back to the writer, so that its stats() count the
  /// cursor's bytes; the cursor stays usable.
  void commit() {
    sync_around([] {});
  }

 private:
  void borrow() { space_ = detail::writer_of(*file_).lend_to_cursor(); }
  template <typename F>
  FASTOUT_ALWAYS_INLINE void sync_around(F&& call_on_the_writer) {
    // If the call throws, the writer's own position is the truth: the
    // cursor stays null, gives nothing back in its destructor, and its next
    // call goes out of line again to meet the sticky error.
    if (space_.pos != nullptr) detail::writer_of(*file_).take_back_from_cursor(space_.pos);
    space_.pos = space_.limit = nullptr;
    call_on_the_writer();
    borrow();
  }

  file* file_;
  buffer_state space_ = {nullptr, nullptr};
};

}  // namespace detail

inline cursor file::make_cursor() { return cursor(*this); }

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_CURSOR_H_
