// The out-of-line part of fastout's formatting (include/fastout/format.h):
// what happens when a formatted piece does not fit in the free space, and
// printing through unbuffered and line-buffered writers.
#include <fastout/format.h>

#include <cstring>

namespace fastout {
namespace detail {

void print_buffer::grow(std::size_t) {
  if (overflowed_) {  // discarding: fmt only needs room to finish checking
    clear();
    return;
  }
  file& f = *file_;
  if (data() != f.buffer_) {
    // Older text sits in front of this piece: send it, so the piece gets the
    // whole buffer. The writer's position still marks where the piece began.
    f.drain_buffer();
    std::memmove(f.buffer_, data(), size());
    set(f.buffer_, f.buffer_capacity());
    return;
  }
  // The piece alone is larger than the buffer. Writing part of it now would
  // leave half a piece in the file if fmt later finds an error, so let fmt
  // run to the end into scratch space; file::print_streaming() then writes
  // it for real.
  overflowed_ = true;
  set(scratch_, sizeof scratch_);
  clear();
}

}  // namespace detail

void file::vprint(fmt::string_view format, fmt::format_args args) {
  auto format_into = [&](fmt::detail::buffer<char>& out) {
    fmt::detail::vformat_to(out, format, args);
  };
  format_with(format_into);
}

void file::print_slow(detail::format_function format, void* context, bool validated) {
  if (!validated) {
    ensure_usable();
    if (buffer_ == buffer_end_) {
      print_unbuffered(format, context);
      return;
    }
    if (state_.pos == buffer_end_) drain_buffer();
    // Line buffering keeps limit at pos to send every call here; the piece
    // may still use all the free space.
    detail::print_buffer out(*this, buffer_end_);
    format(context, out);
    if (!out.overflowed()) {
      state_.pos = out.data() + out.size();
      if (line_buffered_) flush_complete_lines(out.data());
      return;
    }
  }
  print_streaming(format, context);
}

// Prints a piece larger than the buffer, whose format fmt has already
// checked to the end: through the buffer, draining it whenever it is full.
void file::print_streaming(detail::format_function format, void* context) {
  // A local class has the member function's access to file's internals.
  class streaming_buffer final : public fmt::detail::buffer<char> {
   public:
    explicit streaming_buffer(file& f)
        : buffer<char>(f.state_.pos, 0, static_cast<std::size_t>(f.buffer_end_ - f.state_.pos)),
          file_(f) {}

   private:
    void grow(std::size_t) override {
      file_.state_.pos = data() + size();
      file_.drain_buffer();
      set(file_.buffer_, file_.buffer_capacity());
      clear();
    }
    file& file_;
  };
  streaming_buffer out(*this);
  format(context, out);
  state_.pos = out.data() + out.size();
  if (line_buffered_) flush_complete_lines(out.data());
}

// An unbuffered writer has no buffer to format into: format on the stack and
// send each piece with one write (two passes if it is larger than that).
void file::print_unbuffered(detail::format_function format, void* context) {
  class stack_buffer final : public fmt::detail::buffer<char> {
   public:
    stack_buffer(file& f, bool streaming) : file_(f), streaming_(streaming) {
      set(storage_, sizeof storage_);
    }
    bool overflowed() const { return overflowed_; }
    void send() {
      if (int error_number = file_.write_buffer_and(data(), size())) file_.fail(error_number);
      clear();
    }

   private:
    void grow(std::size_t) override {
      if (streaming_) {
        send();
      } else {
        overflowed_ = true;  // keep going only to let fmt check the format
        clear();
      }
    }
    file& file_;
    bool streaming_;
    bool overflowed_ = false;
    char storage_[4096];
  };
  {
    stack_buffer first(*this, false);
    format(context, first);
    if (!first.overflowed()) {
      first.send();
      return;
    }
  }
  stack_buffer second(*this, true);
  format(context, second);
  second.send();
}

// Line buffering after a print: everything through the last newline of the
// text just printed goes to the file; a trailing partial line stays.
void file::flush_complete_lines(const char* text_begin) {
  char* text_end = state_.pos;
  const void* last_newline =
      ::memrchr(text_begin, '\n', static_cast<std::size_t>(text_end - text_begin));
  if (last_newline != nullptr) {
    char* partial_line = static_cast<char*>(const_cast<void*>(last_newline)) + 1;
    std::size_t partial_size = static_cast<std::size_t>(text_end - partial_line);
    state_.pos = partial_line;
    int error_number = write_buffer_and(nullptr, 0);
    std::memmove(buffer_, partial_line, partial_size);
    if (error_number != 0) {
      bytes_drained_ += partial_size;  // accepted, and lost with the rest
      state_.pos = state_.limit = buffer_;
      fail(error_number);
    }
    state_.pos = buffer_ + partial_size;
  }
  state_.limit = state_.pos;
}

}  // namespace fastout
