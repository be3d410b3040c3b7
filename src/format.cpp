// SPDX-License-Identifier: MIT
// The out-of-line part of fastout's formatting (include/fastout/format.h):
// what happens when a formatted piece does not fit in the free space, and
// printing through unbuffered and line-buffered writers. It reaches the
// writer only through the writer's internal interface (file.h).
#include <fastout/file.h>

#include <cstring>

namespace fastout {
namespace detail {

void throw_null_string() { throw fmt::format_error("string pointer is null"); }

void print_buffer::on_grow(std::size_t capacity) {
  file& f = *file_;
  if (streaming_) {
    // The streaming area is full: its text goes out, and fmt carries on.
    f.send(data(), size());
    clear();
    return;
  }
  // A piece in the writer's buffer starts at the writer's position; older
  // text may sit in front of it.
  const bool in_buffer = f.buffer_capacity() != 0 && data() == f.hot_state().pos;
  if (in_buffer && capacity <= f.buffer_capacity()) {
    // It fits in the buffer once the older text is sent: it stays whole.
    set(f.make_room(data(), size()), f.buffer_capacity());
    // Unless sending failed, with write_errors::report: the piece is dropped
    // from here on as a streaming piece is sent, and the writer's end of
    // the call (finish_streaming()) is out of line, where it can be ended
    // consistently.
    if (f.error()) streaming_ = true;
    return;
  }
  // The piece is larger than the whole buffer (or there is none): from here
  // it streams to the file as fmt makes it, through an area of at least
  // streaming_chunk_size bytes where the writer can give one.
  streaming_ = true;
  auto [area, area_size] = f.streaming_area();
  if (area == f.buffer_begin() && in_buffer) {
    f.send(data(), size());  // the older text and the piece so far, one writev
    set(area, area_size);
    clear();
  } else if (area != nullptr && area != f.buffer_begin() && size() < area_size) {
    // A larger area of the writer's own: the piece moves there, and the
    // older text goes out first.
    std::memcpy(area, data(), size());
    if (in_buffer) f.send(nullptr, 0);
    set(area, area_size);
  } else {
    // No larger area to be had: stream through the one we have.
    f.send(data(), size());
    if (in_buffer) set(f.buffer_begin(), f.buffer_capacity());
    clear();
  }
}

void print_buffer::finish_streaming() {
  streaming_ = false;  // done, whatever happens below
  file& f = *file_;
  if (data() == f.buffer_begin() && f.buffer_capacity() != 0) {
    // The writer's own buffer was the streaming area: the rest is in place.
    f.hot_state().pos = data() + size();
    f.end_call(data());
    return;
  }
  // The rest is in a side area: into the buffer as any other text.
  f.write(data(), size());
}

void print_out_of_line(file& f, format_function format, void* context) {
  f.begin_call();
  buffer_state& state = f.hot_state();
  if (f.buffer_capacity() == 0) {
    // No buffer to format into: the stack, and one write for the piece
    // unless it outgrows this (see print_buffer::on_grow).
    char stack[4096];
    print_buffer out(f, stack, stack + sizeof stack);
    format(context, out);
    if (out.streaming()) {
      out.finish_streaming();
    } else {
      f.write(out.data(), out.size());
    }
    return;
  }
  if (state.pos == f.buffer_end()) f.send(nullptr, 0);  // room for the first char
  // Line buffering keeps limit at pos to send every call here; the piece
  // may still use all the free space.
  print_buffer out(f, state.pos, f.buffer_end());
  format(context, out);
  if (out.streaming()) {
    out.finish_streaming();
    return;
  }
  char* text = out.data();
  state.pos = text + out.size();
  f.end_call(text);
}

#ifdef FASTOUT_FMT_HAS_WRITER
void writer_buffer::on_grow(std::size_t) {
  file& f = *file_;
  if (size() != 0 || data() != nullptr) give_back(f);  // the text so far, in order
  f.begin_call();
  if (f.buffer_capacity() == 0) {
    // Unbuffered: nothing to borrow. Text waits in spare_, and goes out
    // when it fills or when the writer is next called.
    f.lend(this);
    set(spare_, sizeof spare_);
    return;
  }
  if (f.hot_state().pos == f.buffer_end()) f.send(nullptr, 0);
  char* begin = f.lend(this).pos;
  set(begin, static_cast<std::size_t>(f.buffer_end() - begin));
}

void writer_buffer::give_back(file& writer) {
  char* begin = data();
  std::size_t length = size();
  set(nullptr, 0);
  clear();
  if (begin == spare_) {
    writer.take_back(writer.hot_state().pos);
    writer.send(spare_, length);
    return;
  }
  if (begin == nullptr) {
    writer.take_back(writer.hot_state().pos);
    return;
  }
  writer.take_back(begin + length);
  writer.end_call(begin);
}
#endif

}  // namespace detail

#ifdef FASTOUT_FMT_HAS_WRITER
file::operator fmt::writer() { return fmt::writer(writer_buffer_); }
#endif

void file::vprint(fmt::string_view format, fmt::format_args args) {
  auto format_into = [&](detail::fmt_buffer_base& out) {
    fmt::vformat_to(fmt::appender(out), format, args);
  };
  format_with(format_into);
}

}  // namespace fastout
