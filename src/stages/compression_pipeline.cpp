// SPDX-License-Identifier: MIT
// The compression pipeline: full buffers go to worker threads without a
// copy, each worker compresses with a codec of its own, and the caller's
// thread writes the results in order whenever it hands a buffer over (or
// flushes, or finishes). docs/compression.md has the measurements behind
// this shape: independent units per buffer, the caller writing, workers + 3
// buffers in flight.
#include "stages/compression_internal.h"

#include "memory/buffer_budget_internal.h"
#include "platform/platform_internal.h"
#include "stages/compression_pool_internal.h"
#include "stages/messages_internal.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <system_error>

namespace fastout {

namespace detail {
namespace {
bool codec_loads(bool (*ready)(std::string& problem)) noexcept {
#ifdef FASTOUT_LOAD_CODECS
  try {
    std::string problem;
    return ready(problem);
  } catch (...) {
    return false;  // no memory for the message: say no, the open will say why
  }
#else
  (void)ready;
  return true;
#endif
}

// The formats this build has code for, whether or not their libraries load.
constexpr bool compiled_in(compression_format format) noexcept {
#ifdef FASTOUT_HAVE_ZSTD
  if (format == compression_format::zstd) return true;
#endif
#ifdef FASTOUT_HAVE_LIBDEFLATE
  if (format == compression_format::gzip) return true;
#endif
  return format == compression_format::none;
}
}  // namespace
}  // namespace detail

// Where the codecs are loaded when first needed (FASTOUT_LOAD_CODECS), a
// format is available when its library loads: the question loads it.
bool compression_available(compression_format format) noexcept {
  if (!detail::compiled_in(format)) return false;
  switch (format) {
    case compression_format::none: return true;
    case compression_format::zstd: return detail::codec_loads(detail::zstd_library_ready);
    case compression_format::gzip: return detail::codec_loads(detail::bgzf_library_ready);
  }
  return false;
}

namespace detail {
namespace {
int real_start_thread(thread_handle& thread, void* (*run)(void*), void* argument) {
  // The workers take no signals: a handler the program installs runs on
  // its own thread, as it would without compression (start_thread()).
  return detail::start_thread(thread, run, argument);
}
}  // namespace

const compression_hooks real_compression_hooks = {std::malloc, std::free, real_start_thread};
compression_hooks compression_system = {std::malloc, std::free, real_start_thread};

// ------------------------------------------------------------- memory

bool byte_buffer::reserve_more(std::size_t more) noexcept {
  if (capacity_ - size_ >= more) return true;
  std::size_t wanted = size_ + more;
  if (wanted < size_) return false;  // overflow
  if (wanted < capacity_ * 2) wanted = capacity_ * 2;
  auto* bigger = static_cast<char*>(compression_system.allocate(wanted));
  if (bigger == nullptr) return false;
  if (size_ > 0) std::memcpy(bigger, data_, size_);
  compression_system.release(data_);
  data_ = bigger;
  capacity_ = wanted;
  return true;
}

// Without a codec in this build, the factories say so: the constructor
// turns that into ENOTSUP before it ever calls them.
#ifndef FASTOUT_HAVE_ZSTD
std::unique_ptr<encoder> make_zstd_stream_encoder(int, int& error) noexcept {
  error = ENOTSUP;
  return nullptr;
}
std::unique_ptr<encoder> make_zstd_frame_encoder(int, int& error) noexcept {
  error = ENOTSUP;
  return nullptr;
}
void zstd_level_range(int& lowest, int& highest) noexcept { lowest = highest = 0; }
bool zstd_library_ready(std::string&) { return false; }
#endif
#ifndef FASTOUT_HAVE_LIBDEFLATE
std::unique_ptr<encoder> make_bgzf_encoder(int, int& error) noexcept {
  error = ENOTSUP;
  return nullptr;
}
void bgzf_level_range(int& lowest, int& highest) noexcept { lowest = highest = 0; }
bool bgzf_library_ready(std::string&) { return false; }
#endif

// ------------------------------------------------------------- the pipeline

struct compressed_output::job {
  char* input = nullptr;  // capacity_ bytes, or null until first needed
  std::size_t size = 0;
  byte_buffer output;
  // Under shared::mutex while in flight:
  bool compressed = false;
  int error = 0;
  const char* what_failed = nullptr;  // a static string of the codec's
  // The caller's alone:
  bool in_flight = false;  // handed over and not yet written
};

struct compressed_output::worker {
  shared* owner = nullptr;
  std::unique_ptr<encoder> codec;
  thread_handle thread;
};

struct compressed_output::shared {
  std::mutex mutex;
  std::condition_variable work_ready;  // the workers wait on it
  std::condition_variable job_done;    // the caller waits on it
  bool stopping = false;               // no more jobs will come
  bool abandon = false;                // leave the queued jobs alone, too

  unsigned job_count = 0;
  std::unique_ptr<job[]> jobs;
  // Jobs waiting for a worker, oldest first (a ring; under mutex).
  std::unique_ptr<job*[]> queue;
  unsigned queue_head = 0;
  unsigned queue_size = 0;
  // Jobs in flight in the order they were handed over (the caller's alone).
  std::unique_ptr<job*[]> order;
  unsigned order_head = 0;
  unsigned order_size = 0;

  unsigned worker_count = 0;  // started
  std::unique_ptr<worker[]> workers;

  static void* run(void* argument) noexcept;
};

void* compressed_output::shared::run(void* argument) noexcept {
  auto* self = static_cast<worker*>(argument);
  shared& s = *self->owner;
  std::unique_lock<std::mutex> lock(s.mutex);
  for (;;) {
    while (!s.stopping && s.queue_size == 0) s.work_ready.wait(lock);
    if (s.abandon || s.queue_size == 0) break;
    job* j = s.queue[s.queue_head];
    s.queue_head = (s.queue_head + 1) % s.job_count;
    --s.queue_size;
    lock.unlock();
    j->output.clear();
    int error_number = self->codec->compress(j->input, j->size, j->output);
    const char* what_failed = error_number != 0 ? self->codec->what_failed() : nullptr;
    lock.lock();
    j->error = error_number;
    j->what_failed = what_failed;
    j->compressed = true;
    s.job_done.notify_one();
  }
  return nullptr;
}

namespace {
[[noreturn]] void refuse(int error_number, const std::string& message) {
  throw std::system_error(error_number, detail::error_category(), message);
}
}  // namespace

compressed_output::compressed_output(const compression_settings& settings, output_sink& sink)
    : sink_(sink), settings_(settings), capacity_(settings.buffer_size), owner_(process_id()) {
  const std::string& name = settings_.name;
  const char* format = format_name(settings_.format);
  if (settings_.format == compression_format::none)
    refuse(EINVAL, "cannot compress " + quoted(name) + ": no compression format was chosen");
  // Compiled in, not available(): where the codecs are loaded when first
  // needed, available() is false for a library that does not load too,
  // which the loader's own message below names.
  if (!compiled_in(settings_.format)) refuse(ENOTSUP, compiled_out_message(settings_.format, name));
  // A codec loaded when first needed (FASTOUT_LOAD_CODECS) is loaded here,
  // at the first compressed open.
  std::string load_problem;
  if (!(settings_.format == compression_format::zstd ? zstd_library_ready(load_problem)
                                                     : bgzf_library_ready(load_problem)))
    refuse(ENOTSUP,
           "cannot write " + quoted(name) + " compressed with " + format + ": " + load_problem +
               " (install " +
               (settings_.format == compression_format::zstd ? "libzstd" : "libdeflate") +
               ", e.g. Debian's " +
               (settings_.format == compression_format::zstd ? "libzstd1" : "libdeflate0") + ")");
  if (capacity_ == 0)
    refuse(EINVAL, "cannot write " + quoted(name) + " compressed with " + format +
                       ": compression needs a buffer (buffer_size 0 means unbuffered)");
  int lowest = 0;
  int highest = 0;
  if (settings_.format == compression_format::zstd) {
    zstd_level_range(lowest, highest);
  } else {
    bgzf_level_range(lowest, highest);
  }
  if (settings_.level < lowest || settings_.level > highest)
    refuse(EINVAL, "cannot write " + quoted(name) + " compressed with " + format + " at level " +
                       std::to_string(settings_.level) + ": " + format + " levels run from " +
                       std::to_string(lowest) + " to " + std::to_string(highest));
  if (settings_.workers == shared_compression_pool) {
    use_pool_ = true;
    const std::string problem = compression_pool::environment_error();
    if (!problem.empty())
      refuse(EINVAL,
             "cannot write " + quoted(name) + " compressed with " + format + ": " + problem);
    // No codec of its own: the caller's thread has one for the format and
    // level (made here, so that a codec that cannot be had is refused at
    // open, as without the pool), and the pool's threads theirs.
    std::unique_ptr<encoder> spare;
    int error_number = 0;
    if (caller_encoder(settings_.format, settings_.level, spare, error_number) == nullptr)
      refuse(error_number, "cannot write " + quoted(name) + " compressed with " + format +
                               ": the compressor could not be set up");
    compression_pool& pool = compression_pool::get();
    first_buffer_ = pool.take_spare_input(capacity_);
    if (first_buffer_ == nullptr) {
      first_buffer_ = static_cast<char*>(compression_system.allocate(capacity_));
      if (first_buffer_ == nullptr)
        refuse(ENOMEM, "cannot allocate a " + std::to_string(capacity_) + "-byte buffer for " +
                           quoted(name));
      // The one buffer a writer needs is charged whatever the budget says.
      charge(capacity_);
    }
    add_holder();
    pool.add_writer();
    filling_buffer_ = first_buffer_;
    return;
  }
  if (settings_.buffers == 0) settings_.buffers = settings_.workers + 3;
  if (settings_.buffers < 2) settings_.buffers = 2;
  int error_number = 0;
  if (settings_.format == compression_format::zstd) {
    own_encoder_ = settings_.workers == 0 ? make_zstd_stream_encoder(settings_.level, error_number)
                                          : make_zstd_frame_encoder(settings_.level, error_number);
  } else {
    own_encoder_ = make_bgzf_encoder(settings_.level, error_number);
  }
  if (own_encoder_ == nullptr)
    refuse(error_number, "cannot write " + quoted(name) + " compressed with " + format +
                             ": the compressor could not be set up");
  first_buffer_ = static_cast<char*>(compression_system.allocate(capacity_));
  if (first_buffer_ == nullptr)
    refuse(ENOMEM,
           "cannot allocate a " + std::to_string(capacity_) + "-byte buffer for " + quoted(name));
  filling_buffer_ = first_buffer_;
  // Workers of its own: its buffers are counted in the budget, never
  // refused by it (the writer asked for these threads and their buffers).
  charge(capacity_);
  own_charged_ = capacity_;
  add_holder();
}

compressed_output::~compressed_output() {
  if (process_id() != owner_) {
    // A child of fork(): the workers, and any lock they held, exist only in
    // the parent. Touch nothing they share; what is private goes.
    shared_ = nullptr;
    pooled_ = nullptr;
    first_buffer_ = second_buffer_ = nullptr;
    return;
  }
  if (use_pool_) {
    pooled_cancel();
    pooled_release();
    return;
  }
  stop_workers(true);
  release();
}

void compressed_output::release() noexcept {
  if (shared_ != nullptr) {
    for (unsigned i = 0; i < shared_->job_count; ++i) {
      char* input = shared_->jobs[i].input;
      if (input != first_buffer_ && input != second_buffer_) compression_system.release(input);
    }
    delete shared_;
    shared_ = nullptr;
  }
  compression_system.release(first_buffer_);
  compression_system.release(second_buffer_);
  first_buffer_ = second_buffer_ = filling_buffer_ = held_ = nullptr;
  filling_ = nullptr;
  own_encoder_.reset();
  helper_encoder_.reset();
  if (own_charged_ != 0) {
    refund(own_charged_);
    own_charged_ = 0;
    remove_holder();
  }
}

int compressed_output::fail(int error_number, compression_step stage, const char* detail) noexcept {
  if (error_ == 0) {
    error_ = error_number;
    stage_ = stage;
    // A child of fork(): what was handed over before it first called is
    // the parent's, which writes it (its workers have it); only what the
    // child hands over is its own to lose.
    if (stage == compression_step::fork) parents_bytes_ = bytes_in_;
    try {
      detail_ = detail != nullptr ? detail : "";
    } catch (...) {
      // The errno and the stage still say what failed.
    }
    if (use_pool_ && stage != compression_step::fork) pooled_cancel();
    if (shared_ != nullptr && stage != compression_step::fork) {
      // Nothing queued will be written now: let the workers stop early.
      std::lock_guard<std::mutex> lock(shared_->mutex);
      shared_->abandon = true;
      shared_->work_ready.notify_all();
    }
  }
  return error_;
}

bool compressed_output::usable() noexcept {
  if (error_ != 0) return false;
  if (process_id() != owner_) {
    fail(EPERM, compression_step::fork);
    return false;
  }
  if (finished_) {
    fail(EBADF, compression_step::none, "the compressed output was already finished");
    return false;
  }
  return true;
}

int compressed_output::write_output(byte_buffer& out) noexcept {
  if (out.size() == 0) return 0;
  struct iovec iov = {out.data(), out.size()};
  int error_number = sink_.write(&iov, 1, bytes_out_);
  out.clear();
  if (error_number != 0) return fail(error_number, compression_step::write);
  return 0;
}

// Compresses on the caller's thread and writes the result.
int compressed_output::compress_here(char* data, std::size_t size) noexcept {
  own_output_.clear();
  if (int error_number = own_encoder_->compress(data, size, own_output_))
    return fail(error_number, compression_step::compress, own_encoder_->what_failed());
  ++buffers_;
  if (int error_number = write_output(own_output_)) return error_number;
  if (own_encoder_->independent_units()) bytes_delivered_ += size;
  return 0;
}

// The buffer held back, compressed here: the output was one buffer (or
// flush() came before a second).
int compressed_output::compress_held() noexcept {
  if (held_ == nullptr) return 0;
  char* held = held_;
  held_ = nullptr;
  return compress_here(held, held_size_);
}

// Puts a job on the workers' queue.
void compressed_output::queue(job* j, std::size_t size) noexcept {
  shared& s = *shared_;
  j->size = size;
  j->compressed = false;
  j->in_flight = true;
  s.order[(s.order_head + s.order_size) % s.job_count] = j;
  ++s.order_size;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.queue[(s.queue_head + s.queue_size) % s.job_count] = j;
    ++s.queue_size;
  }
  s.work_ready.notify_one();
}

bool compressed_output::start_workers() noexcept {
  auto* s = new (std::nothrow) shared;
  if (s == nullptr) return false;
  const unsigned count = settings_.buffers;
  s->jobs.reset(new (std::nothrow) job[count]);
  s->queue.reset(new (std::nothrow) job*[count]);
  s->order.reset(new (std::nothrow) job*[count]);
  s->workers.reset(new (std::nothrow) worker[settings_.workers]);
  if (!s->jobs || !s->queue || !s->order || !s->workers) {
    delete s;
    return false;  // compress on the caller's thread, as with workers = 0
  }
  s->job_count = count;
  s->jobs[0].input = first_buffer_;
  s->jobs[1].input = second_buffer_;
  for (unsigned i = 0; i < settings_.workers; ++i) {
    worker& w = s->workers[i];
    w.owner = s;
    if (i == 0) {
      w.codec = std::move(own_encoder_);
    } else {
      int error_number = 0;
      w.codec = settings_.format == compression_format::zstd
                    ? make_zstd_frame_encoder(settings_.level, error_number)
                    : make_bgzf_encoder(settings_.level, error_number);
      if (w.codec == nullptr) break;  // fewer workers, as many as there is memory for
    }
    if (compression_system.start_thread(w.thread, &shared::run, &w) != 0) {
      if (i == 0) own_encoder_ = std::move(w.codec);
      break;
    }
    ++s->worker_count;
  }
  if (s->worker_count == 0) {
    // No thread could start (a process limit, say): compress here instead.
    delete s;
    settings_.workers = 0;
    return false;
  }
  shared_ = s;
  return true;
}

// A buffer to fill that is not in flight, allocated on first use; null when
// every buffer that could be had is in flight.
compressed_output::job* compressed_output::take_free_job() noexcept {
  job* unallocated = nullptr;
  for (unsigned i = 0; i < shared_->job_count; ++i) {
    job& j = shared_->jobs[i];
    if (j.in_flight) continue;
    if (j.input != nullptr) return &j;
    if (unallocated == nullptr) unallocated = &j;
  }
  if (unallocated == nullptr) return nullptr;
  unallocated->input = static_cast<char*>(compression_system.allocate(capacity_));
  if (unallocated->input != nullptr) {
    charge(capacity_);
    own_charged_ += capacity_;
  }
  // Out of memory: make do with the buffers there are.
  return unallocated->input != nullptr ? unallocated : nullptr;
}

// While every buffer is in flight, the caller compresses the oldest job no
// worker has taken yet instead of waiting for one to finish: with one
// worker, two threads compress, and on a busy machine the caller loses
// nothing it would not have spent waiting. Returns false when no job is
// waiting for a worker (or the caller's codec cannot be had: it waits).
bool compressed_output::help() noexcept {
  shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.queue_size == 0) return false;
  }
  if (helper_encoder_ == nullptr) {
    if (helper_unavailable_) return false;
    int error_number = 0;
    helper_encoder_ = settings_.format == compression_format::zstd
                          ? make_zstd_frame_encoder(settings_.level, error_number)
                          : make_bgzf_encoder(settings_.level, error_number);
    if (helper_encoder_ == nullptr) {
      helper_unavailable_ = true;  // out of memory: the workers do it all
      return false;
    }
  }
  job* j;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.queue_size == 0) return false;  // a worker took it meanwhile
    j = s.queue[s.queue_head];
    s.queue_head = (s.queue_head + 1) % s.job_count;
    --s.queue_size;
  }
  j->output.clear();
  const int error_number = helper_encoder_->compress(j->input, j->size, j->output);
  const char* what_failed = error_number != 0 ? helper_encoder_->what_failed() : nullptr;
  std::lock_guard<std::mutex> lock(s.mutex);
  j->error = error_number;
  j->what_failed = what_failed;
  j->compressed = true;
  return true;
}

// Writes the jobs at the front of the order that are compressed, in one
// system call where it can: all of them with wait == wait_for_all, at least
// the oldest with wait_for_one, and only those ready with no_wait.
int compressed_output::write_compressed(int wait) noexcept {
  shared& s = *shared_;
  while (s.order_size > 0) {
    // At most IOV_MAX, and the jobs are few (workers + 3).
    constexpr unsigned most = 64;
    struct iovec iov[most];
    job* ready[most];
    unsigned count = 0;
    {
      std::unique_lock<std::mutex> lock(s.mutex);
      job* oldest = s.order[s.order_head];
      if (!oldest->compressed) {
        if (wait == no_wait) return 0;
        while (!oldest->compressed) s.job_done.wait(lock);
      }
      while (count < s.order_size && count < most) {
        job* j = s.order[(s.order_head + count) % s.job_count];
        if (!j->compressed) break;
        ready[count++] = j;
      }
    }
    // The compressed jobs before a failed one still go to the file.
    unsigned good = 0;
    while (good < count && ready[good]->error == 0) {
      iov[good] = {ready[good]->output.data(), ready[good]->output.size()};
      ++good;
    }
    std::uint64_t before = bytes_out_;
    int error_number = good > 0 ? sink_.write(iov, static_cast<int>(good), bytes_out_) : 0;
    // Exact counts after a failure too: a job is delivered when all of its
    // output got through.
    std::uint64_t written = bytes_out_ - before;
    for (unsigned i = 0; i < good; ++i) {
      job& j = *ready[i];
      if (written < j.output.size()) break;
      written -= j.output.size();
      bytes_delivered_ += j.size;
      ++buffers_;
      j.output.clear();
      j.in_flight = false;
      s.order_head = (s.order_head + 1) % s.job_count;
      --s.order_size;
    }
    if (error_number != 0) return fail(error_number, compression_step::write);
    if (good < count) {
      job& failed = *ready[good];
      return fail(failed.error, compression_step::compress, failed.what_failed);
    }
    if (wait == wait_for_one) wait = no_wait;  // the oldest is out: the rest only if ready
  }
  return 0;
}

char* compressed_output::hand_over(char* full, std::size_t size) noexcept {
  if (error_ == 0 && process_id() != owner_) fail(EPERM, compression_step::fork);
  bytes_in_ += size;
  if (!usable()) return nullptr;
  const bool ours = shared_ != nullptr && !use_pool_
                        ? filling_ != nullptr && full == filling_->input
                        : full == filling_buffer_;
  if (!ours || size > capacity_) {
    fail(EINVAL, compression_step::none,
         !ours ? "a buffer that is not the one last handed out" : "more bytes than a buffer holds");
    return nullptr;
  }
  if (size == 0) return full;
  if (use_pool_) return pooled_hand_over(full, size);
  if (shared_ == nullptr) {
    if (settings_.workers == 0) {
      if (compress_here(full, size) != 0) return nullptr;
      return full;
    }
    if (held_ == nullptr) {
      // The first buffer of output may be the only one: hold it, and give
      // the caller the second buffer.
      if (second_buffer_ == nullptr) {
        second_buffer_ = static_cast<char*>(compression_system.allocate(capacity_));
        if (second_buffer_ != nullptr) {
          charge(capacity_);
          own_charged_ += capacity_;
        }
      }
      if (second_buffer_ == nullptr) {
        // No second buffer: compress here, and try again next time.
        if (compress_here(full, size) != 0) return nullptr;
        return full;
      }
      held_ = full;
      held_size_ = size;
      filling_buffer_ = full == first_buffer_ ? second_buffer_ : first_buffer_;
      return filling_buffer_;
    }
    // A second buffer: more output is coming, so the workers start.
    if (!start_workers()) {
      if (compress_held() != 0 || compress_here(full, size) != 0) return nullptr;
      return full;
    }
    shared& s = *shared_;
    job* held = held_ == s.jobs[0].input ? &s.jobs[0] : &s.jobs[1];
    queue(held, held_size_);
    held_ = nullptr;
    filling_ = held == &s.jobs[0] ? &s.jobs[1] : &s.jobs[0];
  }
  queue(filling_, size);
  filling_ = nullptr;
  if (write_compressed(no_wait) != 0) return nullptr;
  job* next = take_free_job();
  while (next == nullptr) {
    if (write_compressed(help() ? no_wait : wait_for_one) != 0) return nullptr;
    next = take_free_job();
  }
  filling_ = next;
  return next->input;
}

int compressed_output::flush() noexcept {
  if (!usable()) return error_;
  if (use_pool_) return pooled_flush();
  if (shared_ != nullptr) {
    while (help()) {
    }
    return write_compressed(wait_for_all);
  }
  if (compress_held() != 0) return error_;
  own_output_.clear();
  if (int error_number = own_encoder_->flush(own_output_))
    return fail(error_number, compression_step::compress, own_encoder_->what_failed());
  if (int error_number = write_output(own_output_)) return error_number;
  bytes_delivered_ = bytes_in_;
  return 0;
}

void compressed_output::stop_workers(bool abandon) noexcept {
  if (shared_ == nullptr || shared_->worker_count == 0) return;
  shared& s = *shared_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.stopping = true;
    if (abandon) s.abandon = true;
  }
  s.work_ready.notify_all();
  for (unsigned i = 0; i < s.worker_count; ++i) join_thread(s.workers[i].thread);
  s.worker_count = 0;
  // The stream's end needs an encoder of the right kind: worker 0 had the
  // caller's.
  if (own_encoder_ == nullptr) own_encoder_ = std::move(s.workers[0].codec);
}

int compressed_output::finish() noexcept {
  if (finished_) return error_;
  if (process_id() != owner_) {
    // Never wait for the parent's threads, never write the parent's data.
    fail(EPERM, compression_step::fork);
    return error_;
  }
  if (use_pool_) return pooled_finish();
  if (error_ == 0 && shared_ != nullptr) {
    while (help()) {
    }
    write_compressed(wait_for_all);
  }
  if (error_ == 0) compress_held();
  stop_workers(error_ != 0);
  if (error_ == 0) {
    own_output_.clear();
    if (int error_number = own_encoder_->end(own_output_, buffers_ > 0)) {
      fail(error_number, compression_step::compress, own_encoder_->what_failed());
    } else if (write_output(own_output_) == 0) {
      bytes_delivered_ = bytes_in_;
    }
  }
  finished_ = true;
  release();
  return error_;
}

void compressed_output::stop_after_failure() noexcept {
  if (in_child()) return;  // a child has no workers to stop
  if (use_pool_) {
    pooled_cancel();
  } else {
    stop_workers(true);
  }
}

bool compressed_output::in_child() const noexcept { return process_id() != owner_; }

void compressed_output::abandon() noexcept {
  if (finished_) return;
  finished_ = true;
  if (process_id() != owner_) return;  // the destructor lets go of the memory
  if (use_pool_) {
    pooled_cancel();
    pooled_release();
    return;
  }
  stop_workers(true);
  release();
}

// ------------------------------------------------------------- with the shared pool

// The writer's side of the shared pool: its jobs in flight, in the order
// they were handed over. Only the writer's thread touches it, but for the
// jobs' states and the client, which are under the pool's mutex.
struct compressed_output::pooled {
  pool_client client;
  unsigned job_count = 0;  // at most in flight: the pool's threads + 2
  std::unique_ptr<pool_job[]> jobs;
  std::unique_ptr<pool_job*[]> order;  // a ring
  unsigned order_head = 0;
  unsigned order_size = 0;
};

char* compressed_output::pooled_hand_over(char* full, std::size_t size) noexcept {
  compression_pool& pool = compression_pool::get();
  if (pooled_ == nullptr) {
    auto* p = new (std::nothrow) pooled;
    if (p != nullptr) {
      p->job_count = compression_pool_threads() + 2;
      p->jobs.reset(new (std::nothrow) pool_job[p->job_count]);
      p->order.reset(new (std::nothrow) pool_job*[p->job_count]);
      if (p->jobs == nullptr || p->order == nullptr) {
        delete p;
        p = nullptr;
      }
    }
    if (p == nullptr) {
      fail(ENOMEM, compression_step::compress, "no memory for the compression jobs");
      return nullptr;
    }
    p->client.format = settings_.format;
    p->client.level = settings_.level;
    for (unsigned i = 0; i < p->job_count; ++i) p->jobs[i].client = &p->client;
    pooled_ = p;
  }
  pooled& p = *pooled_;
  // A job object to carry the buffer: one is free, since the next buffer
  // was handed out only while fewer than job_count were in flight.
  pool_job* task = nullptr;
  for (unsigned i = 0; i < p.job_count && task == nullptr; ++i)
    if (p.jobs[i].input == nullptr) task = &p.jobs[i];
  if (task == nullptr) {
    fail(EINVAL, compression_step::none, "more jobs than the writer may have in flight");
    return nullptr;
  }
  task->input = full;
  task->input_capacity = capacity_;
  task->size = size;
  task->error = 0;
  task->what_failed = nullptr;
  if (task->output.capacity() == 0) pool.take_spare_output(task->output, task->output_charged);
  p.order[(p.order_head + p.order_size) % p.job_count] = task;
  ++p.order_size;
  {
    std::lock_guard<std::mutex> lock(pool.mutex());
    pool.submit(*task);
  }
  char* next = pooled_write(no_wait) == 0 ? pooled_next_buffer() : nullptr;
  if (next == nullptr) {
    // The writer keeps `full` (compression_stage::failed() lets it drop
    // text into it): written already, it must not be handed out again.
    if (reusable_ == full) reusable_ = nullptr;
    return nullptr;
  }
  filling_buffer_ = next;
  return next;
}

// The next buffer to fill: a written task's, one the pool kept, or a new one
// if the budget has room; else the writer waits for its own jobs (helping
// with them), so that a writer short of budget works on with the buffers it
// has and stalls no one else.
char* compressed_output::pooled_next_buffer() noexcept {
  compression_pool& pool = compression_pool::get();
  pooled& p = *pooled_;
  for (;;) {
    if (p.order_size < p.job_count) {
      if (reusable_ != nullptr) {
        char* next = reusable_;
        reusable_ = nullptr;
        return next;
      }
      if (char* next = pool.take_spare_input(capacity_)) return next;
      if (try_charge(capacity_)) {
        if (auto* next = static_cast<char*>(compression_system.allocate(capacity_))) return next;
        refund(capacity_);  // out of memory: make do with the buffers there are
      }
    }
    if (pooled_write(pooled_help() ? no_wait : wait_for_one) != 0) return nullptr;
  }
}

char* compressed_output::resize_buffer(char* empty, std::size_t capacity) noexcept {
  if (!use_pool_ || error_ != 0 || finished_ || empty != filling_buffer_ || capacity == 0 ||
      capacity == capacity_)
    return nullptr;
  compression_pool& pool = compression_pool::get();
  const bool growing = capacity > capacity_;
  char* resized = pool.take_spare_input(capacity);  // charged already
  if (resized == nullptr) {
    if (!growing) {
      charge(capacity);
    } else if (!try_charge(capacity)) {
      note_refused_growth();
      return nullptr;
    }
    resized = static_cast<char*>(compression_system.allocate(capacity));
    if (resized == nullptr) {
      refund(capacity);
      return nullptr;
    }
  }
  // What the writer held of its old size: kept by the pool for writers of
  // that size while it grows; given back to the system when the budget
  // asks for memory.
  auto let_go = [&](char* old) {
    if (old == nullptr) return;
    if (growing) {
      pool.give_spare_input(old, capacity_);
    } else {
      compression_system.release(old);
      refund(capacity_);
    }
  };
  let_go(empty);
  let_go(reusable_);
  reusable_ = nullptr;
  if (first_buffer_ == empty) first_buffer_ = resized;
  filling_buffer_ = resized;
  capacity_ = capacity;
  return resized;
}

// Takes back the writer's newest task that no worker has started and
// compresses it on the writer's thread: instead of waiting, the writer
// works, while the workers take the older jobs. False when none is queued.
bool compressed_output::pooled_help() noexcept {
  compression_pool& pool = compression_pool::get();
  pooled& p = *pooled_;
  pool_job* task = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool.mutex());
    for (unsigned i = p.order_size; i-- > 0 && task == nullptr;) {
      pool_job* candidate = p.order[(p.order_head + i) % p.job_count];
      if (pool.take_back(*candidate)) task = candidate;
    }
  }
  if (task == nullptr) return false;
  std::unique_ptr<encoder> spare;
  int error_number = 0;
  const char* what_failed = nullptr;
  task->output.clear();
  if (encoder* codec = caller_encoder(settings_.format, settings_.level, spare, error_number)) {
    error_number = codec->compress(task->input, task->size, task->output);
    if (error_number != 0) what_failed = codec->what_failed();
  } else {
    what_failed = "the compressor could not be set up";
  }
  std::lock_guard<std::mutex> lock(pool.mutex());
  task->error = error_number;
  task->what_failed = what_failed;
  task->state = pool_job::done;
  return true;
}

// Writes the writer's jobs at the front of its order that are compressed,
// as write_compressed() does for a writer with workers of its own.
int compressed_output::pooled_write(int wait) noexcept {
  compression_pool& pool = compression_pool::get();
  pooled& p = *pooled_;
  while (p.order_size > 0) {
    constexpr unsigned most = 64;
    struct iovec iov[most];
    pool_job* ready[most];
    unsigned count = 0;
    {
      std::unique_lock<std::mutex> lock(pool.mutex());
      pool_job* oldest = p.order[p.order_head];
      if (oldest->state != pool_job::done) {
        if (wait == no_wait) return 0;
        if (oldest->state == pool_job::queued) {
          // No worker has it: compress it here rather than wait.
          lock.unlock();
          pooled_help();
          continue;
        }
        while (oldest->state != pool_job::done) p.client.job_done.wait(lock);
      }
      while (count < p.order_size && count < most) {
        pool_job* task = p.order[(p.order_head + count) % p.job_count];
        if (task->state != pool_job::done) break;
        ready[count++] = task;
      }
    }
    unsigned good = 0;
    while (good < count && ready[good]->error == 0) {
      iov[good] = {ready[good]->output.data(), ready[good]->output.size()};
      ++good;
    }
    std::uint64_t before = bytes_out_;
    int error_number = good > 0 ? sink_.write(iov, static_cast<int>(good), bytes_out_) : 0;
    std::uint64_t written = bytes_out_ - before;
    for (unsigned i = 0; i < good; ++i) {
      pool_job& task = *ready[i];
      if (written < task.output.size()) break;
      written -= task.output.size();
      bytes_delivered_ += task.size;
      ++buffers_;
      // What the worker's codec grew the output to is memory held: counted.
      if (task.output.capacity() > task.output_charged) {
        charge(task.output.capacity() - task.output_charged);
        task.output_charged = task.output.capacity();
      }
      pool.give_spare_output(task.output, task.output_charged);
      task.output_charged = 0;
      // The buffer being handed over (filling_buffer_ until hand_over()
      // returns) stays the writer's: if the call fails, the writer holds it.
      // One of another size than the writer's now (resize_buffer()) is
      // not the writer's to fill again.
      if (task.input_capacity != capacity_) {
        pool.give_spare_input(task.input, task.input_capacity);
      } else if (reusable_ == nullptr) {
        reusable_ = task.input;
      } else if (task.input == filling_buffer_) {
        pool.give_spare_input(reusable_, capacity_);
        reusable_ = task.input;
      } else {
        pool.give_spare_input(task.input, capacity_);
      }
      task.input = nullptr;
      task.state = pool_job::free;
      p.order_head = (p.order_head + 1) % p.job_count;
      --p.order_size;
    }
    if (error_number != 0) return fail(error_number, compression_step::write);
    if (good < count) {
      pool_job& failed = *ready[good];
      return fail(failed.error, compression_step::compress, failed.what_failed);
    }
    if (wait == wait_for_one) wait = no_wait;
  }
  return 0;
}

int compressed_output::pooled_flush() noexcept {
  if (pooled_ == nullptr) return 0;  // nothing handed over yet: each task was written
  while (pooled_help()) {
  }
  const int result = pooled_write(wait_for_all);
  // A writer that pauses keeps only the buffer it fills.
  if (reusable_ != nullptr) {
    compression_pool::get().give_spare_input(reusable_, capacity_);
    reusable_ = nullptr;
  }
  return result;
}

int compressed_output::pooled_finish() noexcept {
  if (error_ == 0 && pooled_ != nullptr) {
    while (pooled_help()) {
    }
    pooled_write(wait_for_all);
  }
  if (error_ == 0) {
    // The end of the stream, with the caller's codec; its output buffer
    // comes from the pool and goes back to it.
    compression_pool& pool = compression_pool::get();
    std::size_t charged = 0;
    pool.take_spare_output(own_output_, charged);
    own_output_.clear();
    std::unique_ptr<encoder> spare;
    int error_number = 0;
    encoder* codec = caller_encoder(settings_.format, settings_.level, spare, error_number);
    if (codec == nullptr) {
      fail(error_number, compression_step::compress, "the compressor could not be set up");
    } else if ((error_number = codec->end(own_output_, buffers_ > 0)) != 0) {
      fail(error_number, compression_step::compress, codec->what_failed());
    } else if (write_output(own_output_) == 0) {
      bytes_delivered_ = bytes_in_;
    }
    if (own_output_.capacity() > charged) {
      charge(own_output_.capacity() - charged);
      charged = own_output_.capacity();
    }
    pool.give_spare_output(own_output_, charged);
  }
  finished_ = true;
  pooled_cancel();
  pooled_release();
  return error_;
}

// Takes the writer's queued jobs out of the pool and waits for the ones a
// worker has: afterwards no thread reads its buffers.
void compressed_output::pooled_cancel() noexcept {
  if (pooled_ == nullptr) return;
  compression_pool& pool = compression_pool::get();
  pooled& p = *pooled_;
  std::unique_lock<std::mutex> lock(pool.mutex());
  for (unsigned i = 0; i < p.order_size; ++i)
    pool.take_back(*p.order[(p.order_head + i) % p.job_count]);
  while (p.client.running > 0) p.client.job_done.wait(lock);
}

// After pooled_cancel(): every buffer goes back to the pool (or is freed,
// and refunded), and the writer stops using it.
void compressed_output::pooled_release() noexcept {
  if (first_buffer_ == nullptr && pooled_ == nullptr) return;  // released already
  compression_pool& pool = compression_pool::get();
  if (pooled_ != nullptr) {
    pooled& p = *pooled_;
    for (unsigned i = 0; i < p.job_count; ++i) {
      pool_job& task = p.jobs[i];
      // After a failure the buffer being handed over is both a task's and
      // the one the writer holds: given back once.
      if (task.input != nullptr && task.input != filling_buffer_)
        pool.give_spare_input(task.input, task.input_capacity);
      task.input = nullptr;
      if (task.output.capacity() > task.output_charged) {
        charge(task.output.capacity() - task.output_charged);
        task.output_charged = task.output.capacity();
      }
      pool.give_spare_output(task.output, task.output_charged);
    }
    delete pooled_;
    pooled_ = nullptr;
  }
  pool.give_spare_input(reusable_, capacity_);
  reusable_ = nullptr;
  pool.give_spare_input(filling_buffer_, capacity_);
  own_output_.free_memory();
  first_buffer_ = filling_buffer_ = nullptr;
  pool.remove_writer();
  remove_holder();
}

std::string compressed_output::describe_failure() const {
  const char* format = format_name(settings_.format);
  switch (stage_) {
    case compression_step::none: return detail_;
    case compression_step::compress:
      return std::string("compressing with ") + format + " failed" +
             (detail_.empty() ? "" : " (" + detail_ + ")");
    case compression_step::write: return "writing the compressed data failed";
    case compression_step::fork:
      return "used after fork(): the writer belongs to process " + std::to_string(owner_) +
             ", whose compressing threads did not come along";
  }
  return detail_;
}

compression_stats compressed_output::stats() const noexcept {
  compression_stats s;
  s.bytes_in = bytes_in_;
  // In a child of fork(), the parent's bytes are not the child's loss.
  s.bytes_delivered = std::max(bytes_delivered_, parents_bytes_);
  s.bytes_out = bytes_out_;
  s.buffers = buffers_;
  s.threads = shared_ != nullptr ? shared_->worker_count : 0;
  if (use_pool_ && pooled_ != nullptr && !in_child())
    s.threads = compression_pool::get().running_threads();
  return s;
}

}  // namespace detail
}  // namespace fastout
