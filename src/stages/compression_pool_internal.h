// SPDX-License-Identifier: MIT
// The process's shared pool of compression workers (issue 28): the threads
// that compress the buffers of every writer whose compression_options say
// shared_compression_pool (the default). A job is one buffer of one writer;
// the writer keeps its jobs in order and writes their results itself, so
// the pool only compresses: it never touches a file. Codec states belong to
// the threads (an encoder per format and level on each worker, and one per
// thread that compresses on its own behalf), not to the writers, so a
// program with a thousand outputs holds the pool's few codecs. The writer's
// side is in compression_pipeline.cpp (compressed_output's pooled mode);
// docs/compression.md says what it costs. Internal: not installed.
#ifndef FASTOUT_STAGES_COMPRESSION_POOL_INTERNAL_H_
#define FASTOUT_STAGES_COMPRESSION_POOL_INTERNAL_H_

#include <fastout/compression.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "stages/compression_internal.h"

namespace fastout::detail {

struct pool_client;

// One buffer of one writer on its way through the pool.
struct pool_job {
  enum state_t : unsigned char {
    free,     // the writer's, not handed over
    queued,   // in the pool's queue
    running,  // a worker compresses it
    done,     // compressed (or failed): the writer writes it
  };
  pool_client* client = nullptr;
  char* input = nullptr;           // the writer's buffer, handed over
  std::size_t input_capacity = 0;  // its size: the writer's may change meanwhile
  std::size_t size = 0;
  byte_buffer output;
  std::size_t output_charged = 0;  // of output's capacity, charged to the budget
  // Under the pool's mutex:
  state_t state = free;
  int error = 0;
  const char* what_failed = nullptr;  // a static string of the codec's
  pool_job* queue_prev = nullptr;     // in the pool's queue
  pool_job* queue_next = nullptr;
};

// What the pool knows of one writer: what it compresses with, and where
// its jobs' completion is signalled. Owned by the writer; the pool uses it
// only while one of its jobs is queued or running.
struct pool_client {
  compression_format format = compression_format::none;
  int level = 0;
  std::condition_variable job_done;  // under the pool's mutex
  unsigned running = 0;              // its jobs a worker holds (under the mutex)
};

// A few encoders of one thread, by format and level: a worker's, or the
// one a writer's own thread uses for the end of its stream and the jobs it
// takes back while it would otherwise wait.
class encoder_cache {
 public:
  // The encoder for `format` at `level`, made on first use (the least
  // recently used one makes way when the cache is full): null when it
  // cannot be made, with `error` saying why (ENOMEM).
  encoder* get(compression_format format, int level, int& error) noexcept;
  // Encoders it holds now (for tests).
  unsigned size() const noexcept;

 private:
  static constexpr unsigned slots = 4;
  struct entry {
    compression_format format = compression_format::none;
    int level = 0;
    unsigned long long last_use = 0;
    std::unique_ptr<encoder> codec;
  };
  entry entries_[slots];
  unsigned long long uses_ = 0;
};

// The calling thread's encoder_cache (thread_local): null once the thread
// is ending and its cache is gone; the caller then makes an encoder of its
// own for the moment (`spare`).
FASTOUT_API encoder* caller_encoder(compression_format format, int level,
                                    std::unique_ptr<encoder>& spare, int& error) noexcept;

class FASTOUT_API compression_pool {
 public:
  // This process's pool, made on first use. In a child of fork() the
  // parent's pool (whose threads did not come along, and whose lock one of
  // them may have held) is left alone and a fresh one made.
  static compression_pool& get() noexcept;
  // Why FASTOUT_COMPRESSION_THREADS cannot be used ("" if it can, or is not
  // set): a writer that would use the pool refuses to open (EINVAL). With
  // the pool's size, in compression_pool_size.cpp.
  static std::string environment_error();

  std::mutex& mutex() noexcept { return mutex_; }

  // A writer that uses the pool is made and ends. Once none is left, the
  // memory the pool keeps is freed and its threads end (joined by the
  // writer that leaves last), so that no thread outlives the writers, as
  // without the pool.
  void add_writer() noexcept;
  void remove_writer() noexcept;

  // Under mutex(): puts `job` (state free) at the end of the queue and makes
  // sure a thread will take it, starting one if none is idle and the pool
  // has fewer than its size. A thread that cannot start is no error: the
  // writer compresses its job itself when it waits for it (take_back()).
  void submit(pool_job& job) noexcept;
  // Under mutex(): takes a queued job out of the queue (state free again)
  // for the writer to compress itself; false when a worker has it.
  bool take_back(pool_job& job) noexcept;

  // Memory the pool keeps between writers' jobs: buffers of a writer's
  // capacity and output buffers, up to a few per thread, still charged to
  // the budget; take_* return null (or an empty buffer) when there is none.
  // Not under mutex(): they lock it.
  char* take_spare_input(std::size_t capacity) noexcept;
  void give_spare_input(char* input, std::size_t capacity) noexcept;  // frees what it cannot keep
  void take_spare_output(byte_buffer& out, std::size_t& charged) noexcept;
  void give_spare_output(byte_buffer& out, std::size_t charged) noexcept;

  // Threads running now (read without the lock: a moment's figure).
  unsigned running_threads() noexcept;

 private:
  struct slot;
  compression_pool() noexcept;
  static void* run(void* argument) noexcept;
  void start_thread_if_needed() noexcept;
  unsigned keep_spares() const noexcept;

  int owner_;  // process_id() of the process it belongs to
  std::mutex mutex_;
  std::condition_variable work_ready_;
  pool_job* queue_head_ = nullptr;
  pool_job* queue_tail_ = nullptr;
  unsigned queued_ = 0;                // jobs in the queue
  unsigned writers_ = 0;               // writers made and not yet ended
  unsigned live_ = 0;                  // threads started and not yet ended
  std::atomic<unsigned> live_now_{0};  // live_, for running_threads() without the lock
  unsigned idle_ = 0;                  // of those, waiting for work
  unsigned generation_ = 0;            // a thread of an older one ends
  std::unique_ptr<slot[]> slots_;
  struct spare_input {
    char* data;
    std::size_t capacity;
  };
  std::unique_ptr<spare_input[]> spare_inputs_;
  unsigned spare_input_count_ = 0;
  struct spare_output {
    byte_buffer buffer;
    std::size_t charged;
  };
  std::unique_ptr<spare_output[]> spare_outputs_;
  unsigned spare_output_count_ = 0;
};

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_COMPRESSION_POOL_INTERNAL_H_
