// SPDX-License-Identifier: MIT
// iostreams over fastout: code written for std::ofstream or std::ostream&
// gets fastout's buffer without being rewritten.
//
//   fastout::ofstream out("results.txt");         // was: std::ofstream out("results.txt");
//   out << id << ',' << score << std::endl;       // the same text, the same stream state
//
//   fastout::ofstream fast("results.txt", fastout::flush_policy::on_close);
//   fast << id << ',' << score << std::endl;      // std::endl no longer writes every line
//
// fastout::streambuf is a std::streambuf whose put area is the free space of
// a fastout writer, borrowed through the writer's internal interface: `<<`
// and sputc() fill the writer's own buffer at libstdc++'s inline speed, with
// no second buffer. fastout::ofstream owns a writer and such a stream buffer,
// as std::ofstream owns a std::filebuf. fastout::sync_with_stdio() points
// std::cout, printf and fastout::standard_output() at one buffer, in order.
// docs/iostream.md has the details.
#ifndef FASTOUT_IOSTREAM_H_
#define FASTOUT_IOSTREAM_H_

#include <fastout/file.h>

#if __cplusplus >= 201703L

#  include <cstddef>
#  include <ios>
#  include <ostream>
#  include <streambuf>
#  include <string>
#  include <system_error>
#  include <type_traits>

namespace fastout {

/// What std::flush, std::endl, std::unitbuf and a tied stream's flush
/// (pubsync()) do to a stream over a fastout writer.
enum class flush_policy {
  /// As the standard says: whatever is buffered goes to the file.
  standard,
  /// Nothing: the text stays in the buffer until the buffer is full, the
  /// stream is closed or destroyed, or the writer itself is flushed. (A
  /// writer on a terminal is line-buffered and still sends every line.)
  /// The file ends with the same bytes; only the number of writes changes.
  on_close,
};

/// How a fastout::ofstream (or filebuf) opens its file, besides the
/// std::ios::openmode.
struct stream_options {
  flush_policy flush = flush_policy::standard;
  /// The writer's buffer, as file_options::buffer_size: left at
  /// default_buffer_size, the buffer budget sizes it; 0 is unbuffered.
  std::size_t buffer_size = default_buffer_size;
  /// As file_options::buffer_size_exact: set by `fastout::buffer_size = n`.
  bool buffer_size_exact = false;
  buffering buffer_mode = buffering::automatic;
  /// Permission bits for a file that is created, masked by the umask.
  unsigned permissions = 0666;
  /// Compressed output, as file_options::compression: also the parameters
  /// fastout::compression = zstd{...} and fastout::compression_workers = n.
  /// Each std::flush and std::endl then ends a compressed block (so that a
  /// reader decodes everything before it): write '\n', or use
  /// flush_policy::on_close, where that is not wanted.
  compression_options compression;
};

/// A std::streambuf over a fastout writer that it does not own.
///
/// Its put area is the writer's free space, lent to it through the writer's
/// internal interface, so `<<` writes straight into the writer's buffer;
/// when it fills (overflow()) or is flushed (sync(), std::endl), the writer
/// sends it with what is before it, and the stream keeps the space. Text
/// written through the stream and through the writer itself comes out in
/// the order it was written: any call on the writer takes the lent space
/// back first. A line-buffered or unbuffered writer lends nothing: every
/// character and string goes through the writer's own calls, which apply
/// its line rule, as stdio's putc() does.
///
/// Failures follow the std::streambuf contract: overflow() and sputc()
/// return eof, xsputn() writes less than asked and sync() returns -1, so
/// that the std::ostream sets badbit (and throws std::ios_base::failure if
/// its exceptions() say so). None of them throws. The cause stays in the
/// writer (its sticky error, also error() here), and a writer destroyed
/// with text it could not write reports it through the error handler.
///
/// The writer must outlive the stream buffer. Not thread-safe, as the writer.
class FASTOUT_API streambuf : public std::streambuf, private detail::buffer_borrower {
 public:
  explicit streambuf(file& writer, flush_policy policy = flush_policy::standard) noexcept
      : writer_(&writer), policy_(policy) {}
  /// Gives the writer back any text it holds; flushes nothing.
  ~streambuf() override;
  streambuf(const streambuf&) = delete;
  streambuf& operator=(const streambuf&) = delete;

  /// The writer it writes to.
  file& writer() const noexcept { return *writer_; }
  flush_policy policy() const noexcept { return policy_; }
  void set_policy(flush_policy policy) noexcept { policy_ = policy; }

  /// The first failure this stream buffer met (opening, writing, closing),
  /// else the writer's sticky error; empty while all is well.
  std::error_code error() const noexcept;
  /// What that failure's std::system_error said: the path, the cause and
  /// how many bytes reached the file. Empty if error() is.
  std::string error_message() const;

 protected:
  /// For fastout::filebuf, which sets its own writer.
  explicit streambuf(flush_policy policy) noexcept : writer_(nullptr), policy_(policy) {}
  void set_writer(file* writer) noexcept { writer_ = writer; }
  /// Hands the lent space and the text in it back to the writer, if any is
  /// lent; a write error it meets is recorded, not thrown.
  void release() noexcept;
  /// Records a failure for error() and error_message(), keeping the first.
  void record(const std::system_error& e) noexcept;
  void record(std::error_code code, const char* message) noexcept;
  void clear_error() noexcept;
  void swap(streambuf& other) noexcept;

  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char_type* data, std::streamsize size) override;
  int sync() override;
  /// tellp() (seekp(0, cur)) is the file position plus what is buffered;
  /// seekp() elsewhere flushes and moves the file position (lseek), so a
  /// file on a disk can be written at any offset, as with std::filebuf.
  pos_type seekoff(off_type offset, std::ios_base::seekdir way,
                   std::ios_base::openmode which) override;
  pos_type seekpos(pos_type position, std::ios_base::openmode which) override;

 private:
  void give_back(detail::writer& w) override;
  std::size_t bytes_held() const noexcept override;
  void borrow() noexcept;
  void put_area_at(char* at) noexcept;
  void advance(std::size_t size) noexcept;

  file* writer_;
  flush_policy policy_;
  bool lent_ = false;  // the put area is piece_, lent by the writer
  detail::piece piece_ = {nullptr, nullptr, 0, detail::piece_place::buffer_streaming};
  std::error_code error_;  // the first failure met here
  std::string error_message_;
};

/// A std::filebuf-like stream buffer that owns its writer: open(), close(),
/// is_open(), as std::filebuf's, with fastout's buffer behind them.
class FASTOUT_API filebuf : public streambuf {
 public:
  filebuf() noexcept : streambuf(flush_policy::standard) { set_writer(&file_); }
  /// Closes the file; what cannot be written goes to the error handler.
  ~filebuf() override;
  filebuf(filebuf&& other) noexcept;
  filebuf& operator=(filebuf&& other) noexcept;
  void swap(filebuf& other) noexcept;

  bool is_open() const noexcept { return file_.is_open(); }
  /// Opens `path` as std::filebuf::open() does for these modes (see
  /// docs/iostream.md): returns this, or nullptr if the buffer is already
  /// open, or `mode` is not one std::filebuf can write with, or the file
  /// cannot be opened (in these two cases error() and error_message() say
  /// why, naming the path).
  filebuf* open(detail::cstring_view path, std::ios_base::openmode mode,
                const stream_options& options = {});
  /// Writes what is buffered and closes the file. Returns this, or nullptr
  /// if it was not open or anything could not be written or closed (the
  /// file is closed either way; error() says why).
  filebuf* close();

 protected:
  /// pubsetbuf() before open(), as with std::filebuf: (nullptr, 0) makes
  /// the next open() unbuffered, and (p, n) gives it an n-byte buffer --
  /// of its own: the memory at p is not used. After open() it does nothing.
  std::streambuf* setbuf(char_type* buffer, std::streamsize size) override;

 private:
  file file_;
  std::streamsize requested_buffer_size_ = -1;  // from setbuf(); -1: none
};

namespace detail {
template <typename P>
struct unsupported_stream_parameter : std::false_type {};

// The parameters of output_file() that an ofstream takes too, read by
// options.h's apply_option() into the stream_options field of each name.
template <typename P>
using is_stream_option =
    std::integral_constant<bool, std::is_same<P, buffer_size_param>::value ||
                                     std::is_same<P, buffering>::value ||
                                     std::is_same<P, permissions_param>::value ||
                                     std::is_same<P, compression_options>::value ||
                                     std::is_same<P, compression_choice_param>::value ||
                                     std::is_same<P, compression_workers_param>::value>;

template <typename P>
void apply_stream_param(std::ios_base::openmode& mode, stream_options& options, const P& p) {
  if constexpr (std::is_same<P, std::ios_base::openmode>::value) {
    mode = p;
  } else if constexpr (std::is_same<P, flush_policy>::value) {
    options.flush = p;
  } else if constexpr (std::is_same<P, stream_options>::value) {
    options = p;
  } else if constexpr (is_stream_option<P>::value) {
    apply_option(options, p);
  } else {
    static_assert(unsupported_stream_parameter<P>::value,
                  "fastout::ofstream takes a std::ios::openmode, a fastout::flush_policy, "
                  "fastout::buffer_size = n, a fastout::buffering, fastout::permissions = bits, "
                  "fastout::compression = ..., fastout::compression_workers = n "
                  "or a fastout::stream_options");
  }
}
}  // namespace detail

/// An output file stream, as std::ofstream, over a fastout writer.
///
/// Code written for std::ofstream switches by changing the type: the same
/// constructors and open() (a path, then a std::ios::openmode, mapped to the
/// file as libstdc++ maps it: `out`/`trunc` truncate, `app` appends, `in`
/// opens an existing file without truncating, `ate` starts at its end), the
/// same is_open(), close() and rdbuf(), and the same stream state rules: a
/// failed open or close sets failbit, a write error badbit. After the mode,
/// or instead of it, in any order: a flush_policy, fastout::buffer_size = n,
/// a fastout::buffering, fastout::permissions = bits, fastout::compression =
/// zstd{level} / gzip{level} / by_extension{}, fastout::compression_workers =
/// n, or a stream_options.
///
///   fastout::ofstream out("log.txt", std::ios::app, fastout::flush_policy::on_close);
///
/// open() and close() failing with exceptions(failbit) set throw a
/// std::ios_base::failure whose what() names the path and the cause and
/// whose code() is the errno. The destructor closes the file and reports
/// what it could not write through fastout's error handler, as a writer's.
class FASTOUT_API ofstream : public std::ostream {
 public:
  ofstream() : std::ostream(nullptr) { init(&buf_); }
  template <typename... Params>
  explicit ofstream(detail::cstring_view path, const Params&... params) : ofstream() {
    open(path, params...);
  }
  ofstream(ofstream&& other);
  ofstream& operator=(ofstream&& other);
  void swap(ofstream& other);
  ~ofstream() override;

  /// The stream buffer, as std::ofstream::rdbuf() (not the one a plain
  /// std::ostream::rdbuf(sb) would install).
  filebuf* rdbuf() const noexcept { return const_cast<filebuf*>(&buf_); }
  bool is_open() const noexcept { return buf_.is_open(); }

  /// Opens `path`; on success clears the stream state, on failure sets
  /// failbit. Parameters as the constructor's; `std::ios::out` is always
  /// added to the mode, as std::ofstream does.
  template <typename... Params>
  void open(detail::cstring_view path, const Params&... params) {
    std::ios_base::openmode mode = std::ios_base::out;
    stream_options options;
    (detail::apply_stream_param(mode, options, params), ...);
    (detail::apply_workers_param(options.compression, params), ...);  // in any order
    open_with(path, mode, options);
  }
  /// Writes what is buffered and closes; sets failbit if that fails or the
  /// stream was not open.
  void close();

  /// The cause of the first failure (open, write, close), or empty.
  std::error_code error() const noexcept { return buf_.error(); }
  /// Its message, naming the path.
  std::string error_message() const { return buf_.error_message(); }

 private:
  void open_with(detail::cstring_view path, std::ios_base::openmode mode,
                 const stream_options& options);
  void set_failbit(std::error_code code = {}, const std::string& message = {});

  filebuf buf_;
};

inline void swap(filebuf& a, filebuf& b) noexcept { a.swap(b); }
inline void swap(ofstream& a, ofstream& b) { a.swap(b); }

/// Keeps standard output in order between fastout, printf and std::cout.
///
/// With `on` true, std::cout writes into fastout::standard_output()
/// through a fastout::streambuf with `policy`, and std::cerr and std::clog
/// into fastout::standard_error(); C's stdout and stderr become stdio
/// streams that hand every call to the same writers (a fopencookie()
/// stream, unbuffered). So printf, puts, std::cout and fastout's own calls
/// all fill one buffer, in the order they are made, and it goes out as
/// fastout's does (fully buffered to a file or pipe; on a terminal, every
/// line, and printf's text at once, since fastout cannot see when stdio
/// would flush it before reading stdin). What stdio and std::cout held
/// before is flushed first.
///
/// With `on` false, the original streams come back, after fastout's
/// writers are flushed (throws std::system_error if that fails). Returns
/// whether they were synced before. Call it from one thread, before others
/// use these streams, and after std::ios::sync_with_stdio(false) if the
/// program calls that. Code that kept the old `stdout` pointer, wide
/// streams, and write(1, ...) are not affected. docs/iostream.md has more.
FASTOUT_API bool sync_with_stdio(bool on = true, flush_policy policy = flush_policy::standard);

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_IOSTREAM_H_
