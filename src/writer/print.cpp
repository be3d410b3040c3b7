// SPDX-License-Identifier: MIT
// The out-of-line part of printing (include/fastout/print.h): fmt's buffer
// over a piece of text the writer grows (writer::grow_piece()), and printing
// through writers whose hot path is closed. It reaches the writer only
// through the writer's internal interface (detail/writer.h).
#include <fastout/print.h>

namespace fastout {
namespace detail {

void print_buffer::on_grow(std::size_t wanted) {
  piece p{data(), data() + capacity(), 0, place_};
  char* at = writer_->grow_piece(p, data() + size(), wanted - size());
  place_ = p.place;
  out_of_line_ = true;  // the end is out of line from now on: finish()
  set(p.text, static_cast<std::size_t>(p.end - p.text));
  if (at == p.text) clear();  // what it had went to the file
}

void print_buffer::finish() {
  piece p{data(), data() + capacity(), 0, place_};
  writer_->end_piece(p, data() + size());
}

void print_out_of_line(file& f, format_function format, void* context) {
  // An unbuffered writer's piece starts on the stack, and goes out in one
  // write unless it outgrows this.
  char spare[4096];
  writer& w = writer_of(f);
  print_buffer out(w, w.begin_piece(spare, sizeof spare));
  format(context, out);
  out.finish();
}

}  // namespace detail

void file::vprint(fmt::string_view format, fmt::format_args args) {
  auto format_into = [&](detail::fmt_buffer_base& out) {
    fmt::vformat_to(fmt::appender(out), format, args);
  };
  detail::format_with(*this, format_into);
}

}  // namespace fastout
