// SPDX-License-Identifier: MIT
// The iostream adapter (include/fastout/iostream.h): a std::streambuf whose
// put area is a fastout writer's free space, an ofstream over it, and
// sync_with_stdio(). It reaches the writer only through the writer's
// internal interface (file.h): lend(), grow_piece(), take_back().
#include <fastout/iostream.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>

#include <fastout/standard_streams.h>

#include "doors/stdio_sync_internal.h"
#include "platform/platform_internal.h"
#include "stages/messages_internal.h"

namespace fastout {

using detail::quoted;

// ------------------------------------------------------------- streambuf

streambuf::~streambuf() { release(); }

std::error_code streambuf::error() const noexcept {
  if (error_) return error_;
  return writer_ != nullptr ? writer_->error() : std::error_code();
}

std::string streambuf::error_message() const {
  if (error_) return error_message_;
  if (writer_ != nullptr && writer_->error())
    return "cannot write to \"" + writer_->path() + "\": " + writer_->error().message();
  return {};
}

void streambuf::record(const std::system_error& e) noexcept { record(e.code(), e.what()); }

void streambuf::record(std::error_code code, const char* message) noexcept {
  if (error_) return;  // the first failure is the one that explains the others
  error_ = code;
  try {
    error_message_ = message;
  } catch (const std::bad_alloc&) {
    error_message_.clear();
  }
}

void streambuf::clear_error() noexcept {
  error_ = {};
  error_message_.clear();
}

void streambuf::swap(streambuf& other) noexcept {
  release();
  other.release();
  std::swap(policy_, other.policy_);
  std::swap(error_, other.error_);
  error_message_.swap(other.error_message_);
}

// The put area is the lent piece: [piece_.text, epptr()), and the text
// written into it is [piece_.text, pptr()).
std::size_t streambuf::bytes_held() const noexcept {
  return lent_ ? static_cast<std::size_t>(pptr() - piece_.text) : 0;
}

void streambuf::give_back(detail::writer& w) {
  char* at = pptr();
  lent_ = false;
  setp(nullptr, nullptr);
  w.take_back(piece_, at);  // the line rule, for the text given back
}

void streambuf::release() noexcept {
  if (!lent_) return;
  try {
    give_back(detail::writer_of(*writer_));
  } catch (const std::system_error& e) {
    record(e);  // and the writer keeps it as its sticky error
  }
}

// Lends the writer's free space to the put area, where sputc() and `<<`
// fill it inline. Only a fully buffered writer lends: on a line-buffered
// one every call must go through the writer's line rule, and an unbuffered
// one has no space, and a failed one (write_errors::report, which does not
// throw) must see every call, so that the stream learns of its error. Called
// right after a call on the writer returned, so the writer is open.
void streambuf::borrow() noexcept {
  detail::writer& writer = detail::writer_of(*writer_);
  if (writer.line_buffered() || writer.buffer_capacity() == 0 || writer.error()) return;
  // Full: the next call sends it, where a failure can be reported.
  if (writer.bytes_pending() == writer.buffer_capacity()) return;
  try {
    piece_ = writer.lend(*this, nullptr, 0);
    lent_ = true;
    setp(piece_.text, piece_.end);
  } catch (const std::system_error&) {
    // Lent to a cursor (EBUSY): the next call goes to the writer, and fails.
  }
}

// The put area after the writer moved the piece: text up to `at`.
void streambuf::put_area_at(char* at) noexcept {
  setp(piece_.text, piece_.end);
  advance(static_cast<std::size_t>(at - piece_.text));
}

// pbump() takes an int; a put area can be larger.
void streambuf::advance(std::size_t size) noexcept {
  while (size > 0) {
    const std::size_t step = size < static_cast<std::size_t>(INT_MAX) ? size : INT_MAX;
    pbump(static_cast<int>(step));
    size -= step;
  }
}

// The put area is full (or there is none): the writer's own put() sends
// what is buffered, as for any put(), and the stream borrows again.
streambuf::int_type streambuf::overflow(int_type c) {
  if (writer_ == nullptr) return traits_type::eof();
  try {
    if (lent_) give_back(detail::writer_of(*writer_));
    if (traits_type::eq_int_type(c, traits_type::eof())) {
      // The text is with the writer; to tell whether it is well, ask it.
      writer_->write(nullptr, 0);  // throws if the writer is closed or has failed
      return writer_->error() ? traits_type::eof() : traits_type::not_eof(c);
    }
    writer_->put(traits_type::to_char_type(c));
    // A writer with write_errors::report (the standard streams) does not
    // throw its write error: the stream reads it.
    if (writer_->error()) return traits_type::eof();
    borrow();
    return c;
  } catch (const std::system_error& e) {
    record(e);
    return traits_type::eof();
  }
}

std::streamsize streambuf::xsputn(const char_type* data, std::streamsize size) {
  if (size <= 0) return 0;
  const auto length = static_cast<std::size_t>(size);
  if (length <= static_cast<std::size_t>(epptr() - pptr())) {
    std::memcpy(pptr(), data, length);
    advance(length);
    return size;
  }
  if (writer_ == nullptr) return 0;
  try {
    if (lent_) give_back(detail::writer_of(*writer_));
    // The writer's own write(): a piece as large as the buffer goes out in
    // one writev() with what is buffered, uncopied.
    writer_->write(data, length);
    if (writer_->error()) return 0;  // write_errors::report: not thrown
    borrow();
    return size;
  } catch (const std::system_error& e) {
    record(e);
    return 0;
  }
}

int streambuf::sync() {
  if (writer_ == nullptr) return -1;
  if (policy_ == flush_policy::on_close) {
    // Nothing to send; the text stays lent. A writer that has failed still
    // fails the flush, so the stream learns of it.
    return writer_->error() ? -1 : 0;
  }
  try {
    if (lent_) {
      // What the put area holds goes out with everything before it, and
      // the stream keeps the space: std::endl costs one write, no lending.
      put_area_at(detail::writer_of(*writer_).grow_piece(piece_, pptr(), 0));
      if (!writer_->error()) return 0;
      release();  // write_errors::report: not thrown
      return -1;
    }
    writer_->flush();
    if (writer_->error()) return -1;  // write_errors::report: not thrown
    borrow();
    return 0;
  } catch (const std::system_error& e) {
    record(e);
    if (lent_) {
      put_area_at(piece_.text);
      release();
    }
    return -1;
  }
}

streambuf::pos_type streambuf::seekoff(off_type offset, std::ios_base::seekdir way,
                                       std::ios_base::openmode which) {
  const pos_type failed = pos_type(off_type(-1));
  if (writer_ == nullptr || !writer_->is_open() || (which & std::ios_base::out) == 0) return failed;
  if (detail::writer_of(*writer_).compression().format != compression_format::none) {
    // Compressed: the position in the text written so far, which is all
    // tellp() can mean; a file of compressed frames cannot be patched.
    if (way == std::ios_base::cur && offset == 0)
      return pos_type(off_type(writer_->stats().bytes_accepted));
    return failed;
  }
  const int fd = writer_->descriptor();
  if (way == std::ios_base::cur && offset == 0) {
    // tellp(): where the next byte will land, as libstdc++'s filebuf says
    // it: the file position plus what is buffered, without writing.
    off_t position = detail::platform.lseek(fd, 0, SEEK_CUR);
    if (position < 0) return failed;
    return pos_type(off_type(position) + off_type(writer_->bytes_pending()));
  }
  const int whence = way == std::ios_base::beg   ? SEEK_SET
                     : way == std::ios_base::end ? SEEK_END
                                                 : SEEK_CUR;
  try {
    if (lent_) give_back(detail::writer_of(*writer_));
    writer_->flush();  // what is buffered belongs where it was written
  } catch (const std::system_error& e) {
    record(e);
    return failed;
  }
  if (writer_->error()) return failed;  // write_errors::report: not thrown
  off_t position = detail::platform.lseek(fd, static_cast<off_t>(offset), whence);
  if (position < 0) return failed;
  return pos_type(off_type(position));
}

streambuf::pos_type streambuf::seekpos(pos_type position, std::ios_base::openmode which) {
  return seekoff(off_type(position), std::ios_base::beg, which);
}

// ------------------------------------------------------------- filebuf

namespace {

// libstdc++'s table (basic_file_stdio.cc, fopen_mode()) with fopen()'s
// meaning of each mode, as fastout::file's {fmt}-style flags; -1 for a mode
// std::filebuf refuses or cannot write with ("r").
int open_flags(std::ios_base::openmode mode) {
  using std::ios_base;
  const ios_base::openmode in = ios_base::in, out = ios_base::out, trunc = ios_base::trunc,
                           app = ios_base::app;
  int flags = -1;
  const ios_base::openmode m = mode & (in | out | trunc | app);
  if (m == out || m == (out | trunc)) {
    flags = file::WRONLY | file::CREATE | file::TRUNC;  // "w"
  } else if (m == (out | app) || m == app) {
    flags = file::WRONLY | file::CREATE | file::APPEND;  // "a"
  } else if (m == (in | out)) {
    flags = file::RDWR;  // "r+": the file must exist, and be readable
  } else if (m == (in | out | trunc)) {
    flags = file::RDWR | file::CREATE | file::TRUNC;  // "w+"
  } else if (m == (in | out | app) || m == (in | app)) {
    flags = file::RDWR | file::CREATE | file::APPEND;  // "a+"
  }
#ifdef __cpp_lib_ios_noreplace
  if ((mode & ios_base::noreplace) != 0) {
    // "wx" and "w+x": only with truncating modes.
    if (flags == -1 || (flags & file::TRUNC) == 0) return -1;
    flags = (flags & ~file::TRUNC) | file::EXCL;
  }
#endif
  return flags;
}

std::string describe_mode(std::ios_base::openmode mode) {
  std::string text;
  const std::pair<std::ios_base::openmode, const char*> names[] = {
      {std::ios_base::in, "in"},   {std::ios_base::out, "out"}, {std::ios_base::trunc, "trunc"},
      {std::ios_base::app, "app"}, {std::ios_base::ate, "ate"}, {std::ios_base::binary, "binary"},
  };
  for (const auto& [bit, name] : names) {
    if ((mode & bit) == 0) continue;
    if (!text.empty()) text += '|';
    text += name;
  }
  return text.empty() ? "none" : text;
}

}  // namespace

filebuf::~filebuf() {
  // The writer's destructor closes the file and reports what it lost; the
  // lent text goes back to it first.
  release();
}

filebuf::filebuf(filebuf&& other) noexcept : streambuf(other.policy()) {
  set_writer(&file_);
  swap(other);
}

filebuf& filebuf::operator=(filebuf&& other) noexcept {
  filebuf old(std::move(other));
  swap(old);
  return *this;
}

void filebuf::swap(filebuf& other) noexcept {
  streambuf::swap(other);  // gives both writers their text back
  file_.swap(other.file_);
  std::swap(requested_buffer_size_, other.requested_buffer_size_);
}

filebuf* filebuf::open(detail::cstring_view path, std::ios_base::openmode mode,
                       const stream_options& options) {
  if (is_open()) return nullptr;  // as std::filebuf; the stream says why
  clear_error();
  const int flags = open_flags(mode);
  if (flags == -1) {
    record(std::error_code(EINVAL, detail::error_category()),
           ("cannot open " + quoted(path.c_str()) + ": std::ios open mode " + describe_mode(mode) +
            " is not one a std::ofstream can write with")
               .c_str());
    return nullptr;
  }
  // The stream's options as output_file()'s parameters (options.h), the
  // mode as {fmt}-style flags; pubsetbuf() before open() chose the buffer.
  file_options file_opts;
  detail::apply_options(
      file_opts, flags, fastout::permissions = options.permissions,
      fastout::buffer_size = requested_buffer_size_ >= 0
                                 ? static_cast<std::size_t>(requested_buffer_size_)
                                 : options.buffer_size,
      options.buffer_mode, options.compression);
  // Sized by the budget unless the program chose the size (the key above
  // says it did, whatever the stream's options say).
  file_opts.buffer_size_exact = requested_buffer_size_ >= 0 || options.buffer_size_exact;
  try {
    file opened(path, file_opts);
    // Where the file position starts, which tellp() shows: fopen()'s "a"
    // (glibc) starts at the end, "a+" at 0; and std::ios::ate starts at the
    // end or, as libstdc++, does not open a file that has none (a pipe).
    const bool append_only = (flags & file::APPEND) != 0 && (flags & file::RDWR) == 0;
    const bool at_end = (mode & std::ios_base::ate) != 0;
    if ((append_only || at_end) && detail::platform.lseek(opened.descriptor(), 0, SEEK_END) < 0 &&
        (at_end || errno != ESPIPE)) {
      int error_number = errno;
      opened.close();
      throw std::system_error(error_number, detail::error_category(),
                              "cannot open " + quoted(path.c_str()) + " at its end");
    }
    file_ = std::move(opened);
  } catch (const std::system_error& e) {
    record(e);
    return nullptr;
  }
  set_policy(options.flush);
  return this;
}

std::streambuf* filebuf::setbuf(char_type*, std::streamsize size) {
  if (!is_open() && size >= 0) requested_buffer_size_ = size;
  return this;
}

filebuf* filebuf::close() {
  if (!is_open()) return nullptr;
  release();
  try {
    file_.close();  // closed even when it throws
  } catch (const std::system_error& e) {
    record(e);
    return nullptr;
  }
  return this;
}

// ------------------------------------------------------------- ofstream

ofstream::ofstream(ofstream&& other) : std::ostream(std::move(other)), buf_(std::move(other.buf_)) {
  set_rdbuf(&buf_);
}

ofstream& ofstream::operator=(ofstream&& other) {
  std::ostream::operator=(std::move(other));
  buf_ = std::move(other.buf_);
  return *this;
}

void ofstream::swap(ofstream& other) {
  std::ostream::swap(other);
  buf_.swap(other.buf_);
}

ofstream::~ofstream() = default;

// Sets failbit. With exceptions(failbit) set, throws a std::ios_base::failure
// that says what failed (`message`, or else the stream buffer's first
// failure), instead of the library's generic one.
void ofstream::set_failbit(std::error_code code, const std::string& message) {
  try {
    setstate(std::ios_base::failbit);
  } catch (const std::ios_base::failure&) {
    if (!code) {
      code = buf_.error();
      if (!code) throw;
      throw std::ios_base::failure(buf_.error_message(), code);
    }
    throw std::ios_base::failure(message, code);
  }
}

void ofstream::open_with(detail::cstring_view path, std::ios_base::openmode mode,
                         const stream_options& options) {
  if (buf_.is_open()) {
    set_failbit(std::error_code(EBUSY, detail::error_category()),
                "cannot open " + quoted(path.c_str()) + ": the stream is already open on " +
                    quoted(buf_.writer().path().c_str()));
    return;
  }
  if (buf_.open(path, mode | std::ios_base::out, options) != nullptr) {
    clear();
  } else {
    set_failbit();
  }
}

void ofstream::close() {
  if (!buf_.is_open()) {
    set_failbit(std::error_code(EBADF, detail::error_category()),
                "cannot close the stream: it is not open");
    return;
  }
  if (buf_.close() == nullptr) set_failbit();
}

// ------------------------------------------------------- sync_with_stdio

namespace {

// What sync_with_stdio() replaced in the C++ streams, to put back (stdio's
// half is stdio_sync.cpp's). Everything here lives for the rest of the
// process: std::cout may still flush through these stream buffers while the
// process exits.
struct cxx_streams_sync {
  bool synced = false;
  streambuf* out = nullptr;
  streambuf* err = nullptr;
  std::streambuf* saved_cout = nullptr;
  std::streambuf* saved_cerr = nullptr;
  std::streambuf* saved_clog = nullptr;
};
cxx_streams_sync sync_state;

alignas(streambuf) unsigned char out_storage[sizeof(streambuf)];
alignas(streambuf) unsigned char err_storage[sizeof(streambuf)];

}  // namespace

bool sync_with_stdio(bool on, flush_policy policy) {
  cxx_streams_sync& s = sync_state;
  const bool was_synced = s.synced;
  if (on) {
    if (s.out == nullptr) {
      s.out = new (out_storage) streambuf(standard_output(), policy);
      s.err = new (err_storage) streambuf(standard_error(), flush_policy::standard);
    }
    s.out->set_policy(policy);
    if (was_synced) return true;
    // What the standard streams hold now goes out before anything written
    // through fastout from here on; stdio's, and stdio handed over, next
    // (may throw: nothing changed).
    std::cout.flush();
    std::cerr.flush();
    std::clog.flush();
    detail::sync_stdio_streams(true);
    s.saved_cout = std::cout.rdbuf(s.out);
    s.saved_cerr = std::cerr.rdbuf(s.err);
    s.saved_clog = std::clog.rdbuf(s.err);
    s.synced = true;
    return false;
  }
  if (!was_synced) return false;
  std::cout.rdbuf(s.saved_cout);
  std::cerr.rdbuf(s.saved_cerr);
  std::clog.rdbuf(s.saved_clog);
  s.synced = false;
  // stdio's streams back, and everything written while synced sent before
  // what the original streams write next (may throw).
  detail::sync_stdio_streams(false);
  return true;
}

}  // namespace fastout
