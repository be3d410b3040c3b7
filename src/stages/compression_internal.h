// SPDX-License-Identifier: MIT
// The engine behind compressed output: codecs, and the pipeline that hands
// full buffers to worker threads and puts the results into the file in
// order. A writer that compresses owns one compressed_output and sends every
// full buffer through hand_over(); docs/compression.md says why it is built
// this way and what it costs. This header is internal: it is not installed.
#ifndef FASTOUT_COMPRESSION_INTERNAL_H_
#define FASTOUT_COMPRESSION_INTERNAL_H_

#include <fastout/compression.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "platform/platform_internal.h"  // ssize_t, struct iovec
#include "stages/messages_internal.h"

namespace fastout::detail {

struct thread_handle;  // platform/platform_internal.h

// What the engine allocates with and how it starts threads: every buffer,
// every codec's own memory (libzstd through ZSTD_customMem) and every
// thread, so that tests can make each fail. Like the platform table, it is not
// thread-safe to change: swap it only while no engine is in use.
struct compression_hooks {
  void* (*allocate)(std::size_t size);  // malloc: null when out of memory
  void (*release)(void* data);          // free
  // platform's start_thread(): 0 or an errno.
  int (*start_thread)(thread_handle& thread, void* (*run)(void*), void* argument);
};
FASTOUT_API extern compression_hooks compression_system;
FASTOUT_API extern const compression_hooks real_compression_hooks;

// Where compressed bytes go: the writer's own write path, so that the
// compressed bytes leave by the same route as plain output does (counts,
// errors, messages and write flags in one place). Only the thread that calls
// hand_over(), flush() and finish() writes: workers never do.
class output_sink {
 public:
  // Writes every byte of iov[0..count), which it may change: short writes
  // continued, EINTR retried, EAGAIN waited out. Adds the bytes that reached
  // the file to `written` (exact, also on failure) and returns 0, or the
  // errno that stopped it.
  virtual int write(struct iovec* iov, int count, std::uint64_t& written) noexcept = 0;

 protected:
  ~output_sink() = default;
};

// Memory that grows, allocated through compression_system; never throws.
class byte_buffer {
 public:
  byte_buffer() noexcept = default;
  ~byte_buffer() { compression_system.release(data_); }
  byte_buffer(const byte_buffer&) = delete;
  byte_buffer& operator=(const byte_buffer&) = delete;

  // Room for `more` bytes after size(); false (nothing changed) when out of
  // memory.
  bool reserve_more(std::size_t more) noexcept;
  char* data() noexcept { return data_; }
  char* end() noexcept { return data_ + size_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t room() const noexcept { return capacity_ - size_; }
  void swap(byte_buffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }
  // Frees the memory (release()d, as the destructor does).
  void free_memory() noexcept {
    compression_system.release(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }
  void grow(std::size_t added) noexcept { size_ += added; }
  void clear() noexcept { size_ = 0; }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// One compressor. Each thread that compresses has its own.
class encoder {
 public:
  virtual ~encoder() = default;
  // Compresses `size` bytes, appending to `out`. Returns 0 or an errno
  // (ENOMEM when the codec or `out` could not get memory); what_failed()
  // then says more.
  virtual int compress(const char* data, std::size_t size, byte_buffer& out) noexcept = 0;
  // Makes everything compressed so far decodable once `out` is written: the
  // file is then a whole file of its format (but for BGZF's EOF marker).
  virtual int flush(byte_buffer& out) noexcept = 0;
  // Ends the stream. `anything_compressed` is false when no buffer was ever
  // compressed, by this encoder or another one of the same output.
  virtual int end(byte_buffer& out, bool anything_compressed) noexcept = 0;
  // Whether each compress() call makes a unit a reader can decode on its
  // own (a zstd frame, BGZF blocks): then buffers can be compressed apart.
  virtual bool independent_units() const noexcept = 0;
  // The codec's words for the last failure ("libzstd: Allocation error").
  virtual const char* what_failed() const noexcept = 0;
};

// nullptr when `level` is out of range (EINVAL) or memory is short
// (ENOMEM): `error` says which. Each is defined only where its library was
// found (FASTOUT_HAVE_ZSTD, FASTOUT_HAVE_LIBDEFLATE).
std::unique_ptr<encoder> make_zstd_stream_encoder(int level, int& error) noexcept;
std::unique_ptr<encoder> make_zstd_frame_encoder(int level, int& error) noexcept;
std::unique_ptr<encoder> make_bgzf_encoder(int level, int& error) noexcept;
// Whether the codec's library can be used: always where it is linked; where
// it is loaded when first needed (FASTOUT_LOAD_CODECS), whether that load
// worked, else false with `problem` saying why (the library's name and
// dlerror()'s text). Defined only where the library was found, as above.
bool zstd_library_ready(std::string& problem);
bool bgzf_library_ready(std::string& problem);
// The levels each accepts, for the message that refuses another.
void zstd_level_range(int& lowest, int& highest) noexcept;
void bgzf_level_range(int& lowest, int& highest) noexcept;

// Why a writer of `name` cannot have `format` (zstd or gzip): this fastout
// was built without its library, and is refused with ENOTSUP. One text for
// the engine (compression_pipeline.cpp) and for a build with neither
// codec, which has no engine (compression_absent.cpp). Appended piece by
// piece: a chain of + is three times the code, in every static C program.
inline std::string compiled_out_message(compression_format format, const std::string& name) {
  const bool zstd = format == compression_format::zstd;
  std::string text = "cannot write " + quoted(name);
  text.append(" compressed with ").append(format_name(format));
  text.append(": this fastout was built without ").append(zstd ? "libzstd" : "libdeflate");
  text.append(" (install it, e.g. Debian's ").append(zstd ? "libzstd-dev" : "libdeflate-dev");
  text.append(", and rebuild fastout)");
  return text;
}

// The most input one BGZF block holds: htslib's choice, which keeps even
// incompressible input (stored blocks) within the block's 64 KiB.
inline constexpr std::size_t bgzf_block_input = 0xff00;

struct compression_settings {
  compression_format format = compression_format::none;  // zstd or gzip
  int level = 0;
  unsigned workers = default_compression_workers;  // or shared_compression_pool
  // The capacity of every buffer the writer fills and hands over.
  std::size_t buffer_size = 0;
  // Buffers in flight at most, the one being filled included; 0 means
  // workers + 3 (enough that no worker waits for the caller).
  unsigned buffers = 0;
  // The path or name, for messages.
  std::string name;
};

// Which part of compressing failed.
enum class compression_step {
  none,      // misuse: a call after finish(), a buffer not the engine's
  compress,  // the codec, or memory for its output (ENOMEM), in a worker or here
  write,     // the sink
  fork,      // used by a process that did not create it
};

struct compression_stats {
  std::uint64_t bytes_in = 0;  // uncompressed bytes handed over (accepted)
  // Of those, the ones whose compressed form reached the file whole, so a
  // reader of the file decodes them: bytes_in - bytes_delivered is what a
  // failure lost. In a child of fork(), what the parent had handed over
  // counts as delivered: the parent writes it, and it is not the child's to
  // lose. Grows buffer by buffer (by flush() with workers = 0 and
  // zstd, whose one frame is a stream).
  std::uint64_t bytes_delivered = 0;
  std::uint64_t bytes_out = 0;  // compressed bytes that reached the file: exact
  std::uint64_t buffers = 0;    // buffers compressed
  unsigned threads = 0;         // worker threads running now
};

// One writer's compressed output. Used by one thread at a time (the
// writer's); its workers never touch the sink.
//
// Memory: `buffers` input buffers of buffer_size (one only until threads
// start), an output buffer of about the same size per buffer, and one codec
// state per worker, plus one on the caller (with workers = 0, or once it
// helps the workers): the figures are in docs/compression.md.
//
// With workers = shared_compression_pool (the default), the jobs go to the
// process's shared pool (compression_pool_internal.h): the writer holds the
// buffer it fills and those of its jobs in flight (at most the pool's
// threads + 2), charged to the buffer budget, and no codec of its own (the
// pool's threads and the caller's thread have theirs).
class FASTOUT_API compressed_output {
 public:
  // Throws std::system_error: ENOTSUP when the format was compiled out
  // (naming the library), EINVAL for a level out of range, no format or a
  // buffer_size of 0, ENOMEM when the first buffer or the codec cannot be
  // had. Starts no thread.
  compressed_output(const compression_settings& settings, output_sink& sink);
  // Waits for the workers and joins them; what was handed over since the
  // last flush() or finish() is dropped unwritten (call finish() first). In a
  // child of fork() it only lets go of memory: the workers are the parent's.
  ~compressed_output();
  compressed_output(const compressed_output&) = delete;
  compressed_output& operator=(const compressed_output&) = delete;

  // The empty buffer to fill first, of capacity() bytes.
  char* buffer() const noexcept { return first_buffer_; }
  std::size_t capacity() const noexcept { return capacity_; }

  // Takes `size` bytes at `full` (the buffer last returned) without a copy,
  // and returns the next empty buffer of capacity() bytes, which may be the
  // same one. Blocks only while every buffer is in flight. Writes the
  // results that are ready, in order. The workers start at the second
  // hand-over that flush() does not separate from the first. Returns
  // nullptr on failure (see error()): then, and after any earlier failure,
  // `size` bytes are counted as handed over, and lost, and no buffer may
  // be written to any more.
  char* hand_over(char* full, std::size_t size) noexcept;
  // With the shared pool: `empty`, the buffer hand_over() returned last,
  // nothing written to it yet, becomes one of `capacity` bytes, which is
  // returned (capacity() says so from then on); the buffers in flight keep
  // their size. Larger: charged to the buffer budget if it has room
  // (refused growth is noted); smaller: charged whatever the budget says,
  // and the larger ones go back to the system, not to the pool's spares,
  // since the budget wants them. nullptr, and nothing changed, when the
  // budget refuses, memory is short, or the writer has failed.
  char* resize_buffer(char* empty, std::size_t capacity) noexcept;
  // Waits until everything handed over is in the file and decodable by a
  // reader: the file ends with a whole zstd frame or BGZF block (only
  // BGZF's EOF marker is missing until finish()). 0 or an errno.
  int flush() noexcept;
  // flush(), then the end of the stream (zstd's frame end, BGZF's EOF
  // marker); joins the workers and frees the buffers. 0 or an errno; a
  // second call returns the first one's result.
  int finish() noexcept;
  // Ends without writing anything more (after a failure, or when what was
  // written is being discarded): joins the workers and frees the buffers.
  // In a child of fork() it leaves the parent's threads alone, as the
  // destructor does. Later calls fail with EBADF; finish() returns error().
  void abandon() noexcept;
  // After a failure: joins the workers now, so that no buffer is read any
  // more and the caller may scribble on the one it holds (a writer that
  // reports errors keeps accepting, and dropping, text). The buffers stay
  // until finish(), abandon() or the destructor.
  void stop_after_failure() noexcept;
  // Whether this is a child of fork() of the process that made the engine.
  bool in_child() const noexcept;

  // The first failure, sticky: 0 or an errno, and the stage it came from.
  // It changes only inside the calls above, on the caller's thread.
  int error() const noexcept { return error_; }
  compression_step failed_step() const noexcept { return stage_; }
  // "compressing with zstd failed (libzstd: ...)", for a message that
  // names the path and counts: what failed, without the errno's text.
  std::string describe_failure() const;
  compression_stats stats() const noexcept;

 private:
  struct job;
  struct worker;
  struct shared;
  struct pooled;

  bool usable() noexcept;
  int fail(int error_number, compression_step stage, const char* detail = nullptr) noexcept;
  int compress_here(char* data, std::size_t size) noexcept;
  int compress_held() noexcept;
  int write_output(byte_buffer& out) noexcept;
  bool start_workers() noexcept;
  void queue(job* j, std::size_t size) noexcept;
  job* take_free_job() noexcept;
  bool help() noexcept;
  enum wait_mode : int { no_wait, wait_for_one, wait_for_all };
  int write_compressed(int wait) noexcept;
  void stop_workers(bool abandon) noexcept;
  void release() noexcept;
  // With the shared pool (compression_pool_internal.h): the same calls,
  // for a writer whose jobs go to the process's workers.
  char* pooled_hand_over(char* full, std::size_t size) noexcept;
  char* pooled_next_buffer() noexcept;
  bool pooled_help() noexcept;
  int pooled_write(int wait) noexcept;
  int pooled_flush() noexcept;
  int pooled_finish() noexcept;
  void pooled_cancel() noexcept;
  void pooled_release() noexcept;

  output_sink& sink_;
  compression_settings settings_;
  std::size_t capacity_;
  int owner_;  // the process that made it (process_id())
  // The encoder the caller uses: the stream's with workers = 0, and for the
  // small outputs that never start a thread, and for the end of the stream.
  std::unique_ptr<encoder> own_encoder_;
  byte_buffer own_output_;
  // Before threads start: the buffer the caller fills, and the one it
  // handed over last, held uncompressed until a second one shows that more
  // output is coming (then the workers start) or flush() or finish() says
  // it is all (then it is compressed here).
  char* first_buffer_ = nullptr;
  char* second_buffer_ = nullptr;  // allocated with the first hand-over
  char* filling_buffer_ = nullptr;
  char* held_ = nullptr;
  std::size_t held_size_ = 0;
  // Set once a thread runs; threads run until finish() or the destructor.
  shared* shared_ = nullptr;
  job* filling_ = nullptr;  // the job whose buffer the caller fills (with threads)
  // The caller's own codec for the jobs it compresses while it would
  // otherwise wait for a worker (help()), made when first needed.
  std::unique_ptr<encoder> helper_encoder_;
  bool helper_unavailable_ = false;  // it could not be made: wait instead
  // With the shared pool: the writer's jobs, made at its first hand-over.
  bool use_pool_ = false;
  pooled* pooled_ = nullptr;
  char* reusable_ = nullptr;  // a written job's buffer, the next to fill
  // With workers of its own: the bytes of its buffers charged to the budget.
  std::size_t own_charged_ = 0;
  bool finished_ = false;
  int error_ = 0;
  compression_step stage_ = compression_step::none;
  std::string detail_;
  std::uint64_t bytes_in_ = 0;
  std::uint64_t bytes_delivered_ = 0;
  std::uint64_t parents_bytes_ = 0;  // in a child of fork(): bytes_in_ when it first called
  std::uint64_t bytes_out_ = 0;
  std::uint64_t buffers_ = 0;
};

}  // namespace fastout::detail

#endif  // FASTOUT_COMPRESSION_INTERNAL_H_
