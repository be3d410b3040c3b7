// SPDX-License-Identifier: MIT
// The out-of-line part of fastout's formatting (include/fastout/format.h):
// fmt's buffer over a piece of text the writer grows (file::grow_piece()),
// and printing through writers whose hot path is closed. It reaches the
// writer only through the writer's internal interface (file.h).
#include <fastout/file.h>

#include <cstring>

namespace fastout {
namespace detail {

void throw_null_string() { throw fmt::format_error("string pointer is null"); }

void print_buffer::on_grow(std::size_t wanted) {
  piece p{data(), data() + capacity(), 0, place_};
  char* at = file_->grow_piece(p, data() + size(), wanted - size());
  place_ = p.place;
  out_of_line_ = true;  // the end is out of line from now on: finish()
  set(p.text, static_cast<std::size_t>(p.end - p.text));
  if (at == p.text) clear();  // what it had went to the file
}

void print_buffer::finish() {
  piece p{data(), data() + capacity(), 0, place_};
  file_->end_piece(p, data() + size());
}

void print_out_of_line(file& f, format_function format, void* context) {
  // An unbuffered writer's piece starts on the stack, and goes out in one
  // write unless it outgrows this.
  char spare[4096];
  print_buffer out(f, f.begin_piece(spare, sizeof spare));
  format(context, out);
  out.finish();
}

#ifdef FASTOUT_FMT_HAS_WRITER
void writer_buffer::on_grow(std::size_t wanted) {
  file& f = *file_;
  if (data() == nullptr) {
    // Not lent (yet, or since the writer took it back): borrow.
    piece_ = f.lend(*this, spare_, sizeof spare_);
  } else {
    // The borrowed piece streams: what fmt wrote goes to the file with
    // everything before it. If that throws, fmt's view must still match
    // the piece, whose text now starts afresh.
    struct resync {
      writer_buffer& b;
      ~resync() {
        b.set(b.piece_.text, static_cast<std::size_t>(b.piece_.end - b.piece_.text));
        b.clear();
      }
    } after{*this};
    f.grow_piece(piece_, data() + size(), wanted - size());
    return;
  }
  set(piece_.text, static_cast<std::size_t>(piece_.end - piece_.text));
  clear();
}

void writer_buffer::give_back(file& writer) {
  char* at = data() + size();
  set(nullptr, 0);
  clear();
  writer.take_back(piece_, at);
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
