// SPDX-License-Identifier: MIT
// The process's shared pool of compression workers
// (compression_pool_internal.h): one queue of jobs from every writer, the
// threads that compress them with encoders of their own, and the memory
// kept between jobs.
#include "stages/compression_pool_internal.h"

#include <atomic>
#include <new>

#include "memory/buffer_budget_internal.h"
#include "platform/platform_internal.h"
#include "stages/messages_internal.h"

namespace fastout::detail {

// ------------------------------------------------------------- encoders

encoder* encoder_cache::get(compression_format format, int level, int& error) noexcept {
  entry* oldest = &entries_[0];
  for (entry& e : entries_) {
    if (e.codec != nullptr && e.format == format && e.level == level) {
      e.last_use = ++uses_;
      return e.codec.get();
    }
    if (e.codec == nullptr ? oldest->codec != nullptr
                           : e.last_use < oldest->last_use && oldest->codec != nullptr)
      oldest = &e;
  }
  // The one that makes way goes first, so that two never coexist beyond
  // the cache's size.
  oldest->codec.reset();
  std::unique_ptr<encoder> made = format == compression_format::zstd
                                      ? make_zstd_frame_encoder(level, error)
                                      : make_bgzf_encoder(level, error);
  if (made == nullptr) return nullptr;
  oldest->format = format;
  oldest->level = level;
  oldest->last_use = ++uses_;
  oldest->codec = std::move(made);
  return oldest->codec.get();
}

unsigned encoder_cache::size() const noexcept {
  unsigned count = 0;
  for (const entry& e : entries_) count += e.codec != nullptr;
  return count;
}

namespace {
// The calling thread's cache, made on first use and freed when the thread
// ends. `caller_cache_gone` is trivially destructible, so that a writer
// closed by a later thread_local's destructor, or by exit() after this
// one's, still finds out.
struct caller_cache_holder {
  encoder_cache* cache = nullptr;
  ~caller_cache_holder();
};
thread_local bool caller_cache_gone = false;
thread_local caller_cache_holder caller_cache;
caller_cache_holder::~caller_cache_holder() {
  delete cache;
  cache = nullptr;
  caller_cache_gone = true;
}
}  // namespace

encoder* caller_encoder(compression_format format, int level, std::unique_ptr<encoder>& spare,
                        int& error) noexcept {
  if (!caller_cache_gone) {
    if (caller_cache.cache == nullptr) caller_cache.cache = new (std::nothrow) encoder_cache;
    if (caller_cache.cache != nullptr) return caller_cache.cache->get(format, level, error);
  }
  spare = format == compression_format::zstd ? make_zstd_frame_encoder(level, error)
                                             : make_bgzf_encoder(level, error);
  return spare.get();
}

// ------------------------------------------------------------- the pool

struct compression_pool::slot {
  compression_pool* pool = nullptr;
  thread_handle thread;
  unsigned generation = 0;
  bool started = false;  // a thread was started here and not yet joined
  bool ended = false;    // it returned (joining it does not wait)
};

namespace {
std::atomic<compression_pool*> current_pool{nullptr};
}  // namespace

compression_pool::compression_pool() noexcept : owner_(process_id()) {
  slots_.reset(new (std::nothrow) slot[most_compression_pool_threads]);
  const unsigned spares = 2 * most_compression_pool_threads + 4;
  spare_inputs_.reset(new (std::nothrow) spare_input[spares]);
  spare_outputs_.reset(new (std::nothrow) spare_output[spares]);
}

compression_pool& compression_pool::get() noexcept {
  compression_pool* pool = current_pool.load(std::memory_order_acquire);
  if (pool != nullptr && pool->owner_ == process_id()) return *pool;
  // None yet, or the parent's in a child of fork(): that one is left as it
  // is (its threads are not here, its lock may be held for good) and never
  // freed. Made without a lock, for the same reason: two threads that race
  // here agree on one.
  auto* made = new (std::nothrow) compression_pool;
  if (made == nullptr || made->slots_ == nullptr) {
    // Out of memory for a pool's bookkeeping: a pool with no thread, whose
    // writers compress every job themselves (take_back()) -- the object
    // itself is small and static.
    delete made;
    static compression_pool fallback;
    return fallback;
  }
  if (current_pool.compare_exchange_strong(pool, made, std::memory_order_acq_rel)) return *made;
  delete made;
  return *pool;
}

unsigned compression_pool::keep_spares() const noexcept {
  return 2 * compression_pool_threads() + 4;
}

unsigned compression_pool::running_threads() noexcept {
  return live_now_.load(std::memory_order_relaxed);
}

void compression_pool::add_writer() noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  ++writers_;
}

void compression_pool::remove_writer() noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  if (--writers_ > 0 || slots_ == nullptr) return;
  // The last writer leaves. The buffers kept go back to the system and the
  // budget, and the threads end: this writer joins them, so that no thread
  // outlives the writers (no job is queued or running: every writer waited
  // for its own).
  while (spare_input_count_ > 0) {
    spare_input& kept = spare_inputs_[--spare_input_count_];
    compression_system.release(kept.data);
    refund(kept.capacity);
  }
  while (spare_output_count_ > 0) {
    spare_output& kept = spare_outputs_[--spare_output_count_];
    kept.buffer.free_memory();
    refund(kept.charged);
    kept.charged = 0;
  }
  ++generation_;
  work_ready_.notify_all();
  bool joining[most_compression_pool_threads] = {};
  for (unsigned i = 0; i < most_compression_pool_threads; ++i)
    joining[i] = slots_[i].started && slots_[i].generation != generation_;
  lock.unlock();
  for (unsigned i = 0; i < most_compression_pool_threads; ++i)
    if (joining[i]) join_thread(slots_[i].thread);
  lock.lock();
  for (unsigned i = 0; i < most_compression_pool_threads; ++i)
    if (joining[i]) slots_[i].started = slots_[i].ended = false;
  // A writer made meanwhile may have queued a job that the ending threads
  // left: it gets a thread of the new generation.
  if (queue_head_ != nullptr) start_thread_if_needed();
}

void compression_pool::submit(pool_job& job) noexcept {
  job.state = pool_job::queued;
  job.queue_next = nullptr;
  job.queue_prev = queue_tail_;
  if (queue_tail_ != nullptr) {
    queue_tail_->queue_next = &job;
  } else {
    queue_head_ = &job;
  }
  queue_tail_ = &job;
  ++queued_;
  if (idle_ > 0) work_ready_.notify_one();
  if (queued_ > idle_) start_thread_if_needed();
}

bool compression_pool::take_back(pool_job& job) noexcept {
  if (job.state != pool_job::queued) return false;
  if (job.queue_prev != nullptr) {
    job.queue_prev->queue_next = job.queue_next;
  } else {
    queue_head_ = job.queue_next;
  }
  if (job.queue_next != nullptr) {
    job.queue_next->queue_prev = job.queue_prev;
  } else {
    queue_tail_ = job.queue_prev;
  }
  job.queue_prev = job.queue_next = nullptr;
  job.state = pool_job::free;
  --queued_;
  return true;
}

// Under the mutex.
void compression_pool::start_thread_if_needed() noexcept {
  if (slots_ == nullptr || live_ >= compression_pool_threads()) return;
  for (unsigned i = 0; i < most_compression_pool_threads; ++i) {
    slot& s = slots_[i];
    if (s.started) {
      if (!s.ended || s.generation != generation_) continue;
      // A thread that ended when the pool shrank: reuse its slot. It holds
      // no lock now, so joining it here does not wait on this one.
      join_thread(s.thread);
      s.started = s.ended = false;
    }
    s.pool = this;
    s.generation = generation_;
    if (compression_system.start_thread(s.thread, &compression_pool::run, &s) != 0) return;
    s.started = true;
    live_now_.store(++live_, std::memory_order_relaxed);
    return;
  }
}

void* compression_pool::run(void* argument) noexcept {
  auto& self = *static_cast<slot*>(argument);
  compression_pool& pool = *self.pool;
  // The worker's own codecs: as many as the formats and levels its jobs
  // ask for (a few), freed when it ends.
  encoder_cache codecs;
  std::unique_lock<std::mutex> lock(pool.mutex_);
  for (;;) {
    if (self.generation != pool.generation_) break;
    if (pool.queue_head_ == nullptr) {
      ++pool.idle_;
      pool.work_ready_.wait(lock);
      --pool.idle_;
      continue;
    }
    // Fewer threads were asked for: this one ends between jobs, and
    // passes the wake-up it took on to a thread that stays.
    if (pool.live_ > compression_pool_threads()) {
      pool.work_ready_.notify_one();
      break;
    }
    pool_job& job = *pool.queue_head_;
    pool.take_back(job);
    job.state = pool_job::running;
    pool_client& client = *job.client;
    ++client.running;
    lock.unlock();
    job.output.clear();
    int error_number = 0;
    const char* what_failed = nullptr;
    if (encoder* codec = codecs.get(client.format, client.level, error_number)) {
      error_number = codec->compress(job.input, job.size, job.output);
      if (error_number != 0) what_failed = codec->what_failed();
    } else {
      what_failed = "the compressor could not be set up";
    }
    lock.lock();
    job.error = error_number;
    job.what_failed = what_failed;
    job.state = pool_job::done;
    --client.running;
    client.job_done.notify_all();
  }
  pool.live_now_.store(--pool.live_, std::memory_order_relaxed);
  self.ended = true;
  return nullptr;
}

// ------------------------------------------------------------- memory kept

char* compression_pool::take_spare_input(std::size_t capacity) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  for (unsigned i = spare_input_count_; i-- > 0;) {
    if (spare_inputs_[i].capacity != capacity) continue;
    char* data = spare_inputs_[i].data;
    spare_inputs_[i] = spare_inputs_[--spare_input_count_];
    return data;
  }
  return nullptr;
}

void compression_pool::give_spare_input(char* input, std::size_t capacity) noexcept {
  if (input == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_inputs_ != nullptr && writers_ > 0 && spare_input_count_ < keep_spares()) {
      spare_inputs_[spare_input_count_++] = {input, capacity};
      return;
    }
  }
  compression_system.release(input);
  refund(capacity);
}

void compression_pool::take_spare_output(byte_buffer& out, std::size_t& charged) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_output_count_ == 0) return;
  spare_output& last = spare_outputs_[--spare_output_count_];
  out.swap(last.buffer);
  charged = last.charged;
  last.charged = 0;
}

void compression_pool::give_spare_output(byte_buffer& out, std::size_t charged) noexcept {
  out.clear();
  if (out.capacity() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (spare_outputs_ != nullptr && writers_ > 0 && spare_output_count_ < keep_spares()) {
      spare_output& kept = spare_outputs_[spare_output_count_++];
      kept.buffer.swap(out);
      kept.charged = charged;
      return;
    }
  }
  out.free_memory();
  refund(charged);
}

}  // namespace fastout::detail
