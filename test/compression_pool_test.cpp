// SPDX-License-Identifier: MIT
// Tests of the shared pool of compression workers
// (src/stages/compression_pool_internal.h), the default of every compressed
// writer: many outputs through one pool decode to exactly what each was
// given (zstd and gzip); a codec that fails for one output among many fails
// that one only, with its counts; the process runs the pool's threads and
// no more, however many outputs; memory does not grow by a codec per
// writer, and the budget gets back what it lent; fork() while the pool
// works; explicit workers stay a writer's own; one writer flushed and
// closed while another's jobs run on another thread; writers of the pool
// take their buffers' size from the budget. The engine is driven as the
// writer drives it (compression_test.cpp), through a descriptor sink,
// except where a writer's opening is the subject.
#include <fastout/budget.h>
#include <fastout/compression.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <malloc.h>  // malloc_usable_size, or Windows' _msize
#include <libdeflate.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "memory/buffer_budget_internal.h"
#include "platform/platform_internal.h"
#include "stages/compression_internal.h"
#include "stages/compression_pool_internal.h"
#include "compression_test_sink.h"
#include "compression_test_util.h"
#include "test_util.h"

namespace {

using fastout::compression_format;
using fastout::detail::compressed_output;
using fastout::detail::compression_pool;
using fastout::detail::compression_settings;
using fastout::detail::compression_step;
using fastout_test::decode;
using fastout_test::describe_status;
using fastout_test::fd_output_sink;
using fastout_test::log_text;
using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::thread_count;
using fastout_test::thread_count_before_workers;
using fastout_test::thread_count_once_settled;

compression_settings pooled_settings(compression_format format, std::size_t buffer_size,
                                     unsigned workers = fastout::shared_compression_pool) {
  compression_settings settings;
  settings.format = format;
  settings.level = format == compression_format::zstd ? 3 : 6;
  settings.workers = workers;
  settings.buffer_size = buffer_size;
  settings.name = "out";
  return settings;
}

// The pool's size for one test, then the default again.
struct pool_size {
  explicit pool_size(unsigned threads) { fastout::set_compression_pool_threads(threads); }
  ~pool_size() { fastout::set_compression_pool_threads(0); }
};

// One output as a writer drives its engine: text copied into the buffer,
// each full buffer handed over, the rest handed over at finish().
struct output {
  output(const std::string& file, compression_format f, std::size_t buffer_size,
         unsigned workers = fastout::shared_compression_pool)
      : path(file),
        format(f),
        fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)),
        sink(fd),
        engine(pooled_settings(f, buffer_size, workers), sink),
        buffer(engine.buffer()) {}
  ~output() { ::close(fd); }

  // 0, or the errno of the hand-over that failed.
  int write(const char* data, std::size_t size) {
    while (size > 0) {
      const std::size_t piece = std::min(engine.capacity() - filled, size);
      std::memcpy(buffer + filled, data, piece);
      filled += piece;
      data += piece;
      size -= piece;
      accepted += piece;
      if (filled == engine.capacity() && hand_over() != 0) return engine.error();
    }
    return 0;
  }
  int hand_over() {
    char* next = engine.hand_over(buffer, filled);
    filled = 0;
    if (next == nullptr) return engine.error();
    buffer = next;
    return 0;
  }
  int flush() {
    if (filled > 0 && hand_over() != 0) return engine.error();
    return engine.flush();
  }
  int finish() {
    if (filled > 0 && hand_over() != 0) return engine.finish();
    return engine.finish();
  }

  std::string path;
  compression_format format;
  int fd;
  fd_output_sink sink;
  compressed_output engine;
  char* buffer;
  std::size_t filled = 0;
  std::uint64_t accepted = 0;
};

// How much each of `count` outputs gets: a few busy ones and a long tail,
// as barcodes are.
std::size_t share_of(std::size_t index, std::size_t busiest) { return busiest / (index + 1) + 300; }

// Records of about 100 bytes dealt to the outputs by their shares, in turn,
// as a demultiplexer writes; calls `now` between rounds.
template <typename Check>
void deal(std::vector<std::unique_ptr<output>>& outputs, const std::vector<std::string>& texts,
          Check&& now) {
  std::vector<std::size_t> at(outputs.size(), 0);
  bool more = true;
  while (more) {
    more = false;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (at[i] >= texts[i].size()) continue;
      const std::size_t piece = std::min<std::size_t>(100 + i % 7, texts[i].size() - at[i]);
      ASSERT_EQ(outputs[i]->write(texts[i].data() + at[i], piece), 0) << outputs[i]->path;
      at[i] += piece;
      more = true;
    }
    now();
  }
}

// ------------------------------------------------------------ sharing

// Hundreds of outputs, zstd and gzip, share the pool: each file decodes to
// exactly its own text, the process never runs more than the pool's threads
// beside its own, and once every writer has finished the threads are gone.
TEST(compression_pool, hundreds_of_outputs_share_its_threads_byte_exact) {
  temp_dir dir;
  pool_size two(2);
  const int before = thread_count_before_workers();
  std::vector<std::unique_ptr<output>> outputs;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < 300; ++i) {
    const auto format = i % 2 == 0 ? compression_format::zstd : compression_format::gzip;
    outputs.push_back(std::make_unique<output>(dir.file(std::to_string(i)), format, 16 * 1024));
    texts.push_back(log_text(share_of(i, 600000), static_cast<unsigned>(i) + 1));
  }
  // Counted every 16th round: on Windows a count is a Toolhelp snapshot,
  // milliseconds under Wine, and the deal has 6,000 rounds.
  int most = 0;
  std::size_t round = 0;
  deal(outputs, texts, [&] {
    if (round++ % 16 == 0) most = std::max(most, thread_count());
  });
  EXPECT_LE(most, before + 2) << "threads beyond the pool's 2 and the caller";
  EXPECT_GT(compression_pool::get().running_threads(), 0u) << "the busy outputs used the pool";
  for (auto& out : outputs) ASSERT_EQ(out->finish(), 0) << out->path;
  std::vector<std::pair<std::string, compression_format>> files;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(outputs[i]->engine.stats().bytes_delivered, texts[i].size()) << outputs[i]->path;
    files.emplace_back(outputs[i]->path, outputs[i]->format);
  }
  outputs.clear();
  // The last writer to leave joined them: no thread outlives the writers.
  // Counted before the files are decoded: under Wine, decoding them starts
  // a thread of Wine's own.
  EXPECT_EQ(compression_pool::get().running_threads(), 0u);
  EXPECT_EQ(thread_count_once_settled(before), before);
  for (std::size_t i = 0; i < files.size(); ++i)
    EXPECT_TRUE(decode(files[i].second, read_file(files[i].first)) == texts[i]) << files[i].first;
}

// The pool's size changed while writers use it: more threads start when
// there is work, fewer end between jobs; nothing is lost, and the process
// never runs more than the largest size asked for beside its own thread.
TEST(compression_pool, resizing_while_writers_work_loses_nothing) {
  temp_dir dir;
  pool_size one(1);
  const int before = thread_count_before_workers();
  std::vector<std::unique_ptr<output>> outputs;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < 12; ++i) {
    outputs.push_back(std::make_unique<output>(
        dir.file(std::to_string(i)), i % 2 ? compression_format::gzip : compression_format::zstd,
        16 * 1024));
    texts.push_back(log_text(300000, static_cast<unsigned>(i) + 51));
  }
  int most = 0;
  const unsigned sizes[] = {1, 3, 1};
  for (std::size_t pass = 0; pass < 3; ++pass) {
    fastout::set_compression_pool_threads(sizes[pass]);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::size_t third = texts[i].size() / 3;
      const std::size_t from = pass * third;
      const std::size_t to = pass == 2 ? texts[i].size() : from + third;
      ASSERT_EQ(outputs[i]->write(texts[i].data() + from, to - from), 0);
      most = std::max(most, thread_count());
    }
  }
  EXPECT_LE(most, before + 3);
  for (auto& out : outputs) ASSERT_EQ(out->finish(), 0);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    EXPECT_TRUE(decode(outputs[i]->format, read_file(outputs[i]->path)) == texts[i]);
  outputs.clear();
  EXPECT_EQ(thread_count_once_settled(before), before);
}

// A writer that leaves the default uses the pool; one with workers of its
// own keeps them (n threads of its own, or none), whatever the pool does.
TEST(compression_pool, explicit_workers_stay_the_writers_own) {
  temp_dir dir;
  pool_size one(1);
  const std::string text = log_text(400000, 3);
  const std::size_t charged_before = fastout::detail::budget_now().in_use;
  for (unsigned workers : {0u, 2u}) {
    SCOPED_TRACE("workers " + std::to_string(workers));
    output own(dir.file("own"), compression_format::zstd, 16 * 1024, workers);
    output pooled(dir.file("pooled"), compression_format::zstd, 16 * 1024);
    // A writer with workers of its own has its buffers counted too.
    EXPECT_EQ(fastout::detail::budget_now().in_use, charged_before + 2 * 16 * 1024);
    ASSERT_EQ(own.write(text.data(), text.size()), 0);
    ASSERT_EQ(pooled.write(text.data(), text.size()), 0);
    EXPECT_EQ(own.engine.stats().threads, workers);
    EXPECT_EQ(pooled.engine.stats().threads, 1u);  // the pool's one
    ASSERT_EQ(own.finish(), 0);
    ASSERT_EQ(pooled.finish(), 0);
    EXPECT_TRUE(decode(compression_format::zstd, read_file(own.path)) == text);
    EXPECT_TRUE(decode(compression_format::zstd, read_file(pooled.path)) == text);
    // With none, one frame on the caller's thread, as before the pool; the
    // pool's jobs, a frame per buffer.
    const std::string own_bytes = read_file(own.path);
    const std::string pooled_bytes = read_file(pooled.path);
    EXPECT_EQ(ZSTD_findFrameCompressedSize(own_bytes.data(), own_bytes.size()) == own_bytes.size(),
              workers == 0);
    EXPECT_LT(ZSTD_findFrameCompressedSize(pooled_bytes.data(), pooled_bytes.size()),
              pooled_bytes.size());
  }
  EXPECT_EQ(fastout::detail::budget_now().in_use, charged_before);
  EXPECT_THROW(fastout::set_compression_pool_threads(fastout::most_compression_pool_threads + 1),
               std::system_error);
  EXPECT_EQ(fastout::compression_pool_threads(), 1u);
}

// ------------------------------------------------------------ failures

// Allocations of a size in (40000, 41000] fail: the output buffer of a
// 40,000-byte buffer's BGZF blocks, which only one writer uses.
void* allocate_failing_one_size(std::size_t size) {
  if (size > 40000 && size <= 41000) return nullptr;
  return std::malloc(size);
}

// One output's codec fails (no memory for its compressed data, on a worker
// or on the caller): that writer reports it, at a hand-over or at finish(),
// with its counts; every other output completes, byte-exact.
TEST(compression_pool, one_failing_output_among_many_fails_alone) {
  temp_dir dir;
  pool_size two(2);
  const std::string text = log_text(300000, 5);
  std::vector<std::unique_ptr<output>> outputs;
  std::vector<std::string> texts;
  fastout::detail::compression_system.allocate = allocate_failing_one_size;
  for (std::size_t i = 0; i < 41; ++i) {
    outputs.push_back(std::make_unique<output>(
        dir.file(std::to_string(i)), compression_format::gzip, i == 20 ? 40000 : 16 * 1024));
    texts.push_back(text.substr(i * 1000));
  }
  int failure = 0;
  std::vector<std::size_t> at(outputs.size(), 0);
  for (bool more = true; more;) {
    more = false;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (at[i] >= texts[i].size() || (i == 20 && failure != 0)) continue;
      const std::size_t piece = std::min<std::size_t>(4000, texts[i].size() - at[i]);
      const int result = outputs[i]->write(texts[i].data() + at[i], piece);
      at[i] += piece;
      more = true;
      if (i == 20) {
        failure = result;
      } else {
        ASSERT_EQ(result, 0) << outputs[i]->path;
      }
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const int result = outputs[i]->finish();
    if (i == 20) {
      if (failure == 0) failure = result;
      EXPECT_EQ(result, ENOMEM);
    } else {
      ASSERT_EQ(result, 0) << outputs[i]->path;
    }
  }
  fastout::detail::compression_system = fastout::detail::real_compression_hooks;
  EXPECT_EQ(failure, ENOMEM);
  compressed_output& failed = outputs[20]->engine;
  EXPECT_EQ(failed.failed_step(), compression_step::compress);
  EXPECT_TRUE(fastout_test::contains(failed.describe_failure(), "compressing with gzip failed"))
      << failed.describe_failure();
  EXPECT_EQ(failed.stats().bytes_in, outputs[20]->accepted);
  EXPECT_LT(failed.stats().bytes_delivered, failed.stats().bytes_in);
  // What it counts as delivered is in the file, whole.
  EXPECT_TRUE(decode(compression_format::gzip, read_file(outputs[20]->path)) ==
              texts[20].substr(0, failed.stats().bytes_delivered));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (i == 20) continue;
    SCOPED_TRACE(outputs[i]->path);
    EXPECT_TRUE(decode(compression_format::gzip, read_file(outputs[i]->path)) == texts[i]);
  }
}

// ------------------------------------------------------------ memory

// Bytes the engine holds through compression_system (buffers, libzstd's
// contexts), and the most it held.
std::atomic<long long> live_bytes{0};

long long usable_size(void* data) {
#if defined(_WIN32)
  return static_cast<long long>(_msize(data));
#else
  return static_cast<long long>(malloc_usable_size(data));
#endif
}
std::atomic<long long> most_live_bytes{0};

void* counting_allocate(std::size_t size) {
  void* data = std::malloc(size);
  if (data == nullptr) return nullptr;
  const long long now = live_bytes += usable_size(data);
  long long most = most_live_bytes;
  while (now > most && !most_live_bytes.compare_exchange_weak(most, now)) {
  }
  return data;
}

void counting_release(void* data) {
  if (data == nullptr) return;
  live_bytes -= usable_size(data);
  std::free(data);
}

// 200 writers, zstd and gzip, each with a little text: what they hold
// together is their buffers and the pool's few codecs, not a codec each (a
// level-6 libdeflate compressor is 656 KiB, a level-3 zstd context up to
// about a MiB), and the budget gets back every byte once they are gone.
TEST(compression_pool, memory_does_not_grow_by_a_codec_per_writer) {
  temp_dir dir;
  pool_size two(2);
  constexpr std::size_t writers = 200;
  constexpr std::size_t buffer_size = 64 * 1024;
  const std::size_t charged_before = fastout::detail::budget_now().in_use;
  const std::size_t holders_before = fastout::detail::budget_now().holders;
  live_bytes = 0;
  most_live_bytes = 0;
  fastout::detail::compression_system.allocate = counting_allocate;
  fastout::detail::compression_system.release = counting_release;
  libdeflate_set_memory_allocator(counting_allocate, counting_release);
  {
    std::vector<std::unique_ptr<output>> outputs;
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < writers; ++i) {
      outputs.push_back(std::make_unique<output>(
          dir.file(std::to_string(i)),
          i % 2 == 0 ? compression_format::zstd : compression_format::gzip, buffer_size));
      texts.push_back(log_text(i == 0 ? 1000000 : 3000, static_cast<unsigned>(i) + 7));
    }
    const auto figures = fastout::detail::budget_now();
    EXPECT_EQ(figures.holders, holders_before + writers);
    // One buffer each, charged whatever the budget says: no more.
    EXPECT_LE(figures.in_use, charged_before + writers * buffer_size);
    deal(outputs, texts, [] {});
    for (auto& out : outputs) ASSERT_EQ(out->finish(), 0);
    for (std::size_t i = 0; i < writers; ++i)
      ASSERT_TRUE(decode(outputs[i]->format, read_file(outputs[i]->path)) == texts[i]);
  }
  fastout::detail::compression_system = fastout::detail::real_compression_hooks;
  libdeflate_set_memory_allocator(std::malloc, std::free);
  // Buffers (and the busy one's jobs in flight, with their outputs), plus
  // at most the codecs of the pool's 2 threads and the caller: 8 MiB
  // covers those with room; a codec per writer would be well over 100 MiB.
  EXPECT_LE(most_live_bytes.load(), static_cast<long long>(writers * buffer_size + (8 << 20)));
  const auto after = fastout::detail::budget_now();
  EXPECT_EQ(after.in_use, charged_before);
  EXPECT_EQ(after.holders, holders_before);
}

// A budget far too small for every writer's buffers: each writer still has
// the one it fills (charged regardless), works with the jobs the budget
// allows, and every output is complete.
TEST(compression_pool, a_small_budget_slows_writers_but_loses_nothing) {
  temp_dir dir;
  pool_size two(2);
  const std::size_t limit = fastout::detail::budget_limit();
  ASSERT_EQ(fastout::detail::set_budget_limit(256 * 1024), 0);
  const std::size_t charged_before = fastout::detail::budget_now().in_use;
  std::vector<std::unique_ptr<output>> outputs;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < 20; ++i) {
    outputs.push_back(std::make_unique<output>(
        dir.file(std::to_string(i)), i % 2 ? compression_format::gzip : compression_format::zstd,
        64 * 1024));
    texts.push_back(log_text(share_of(i, 2000000), static_cast<unsigned>(i) + 11));
  }
  std::size_t most = 0;
  deal(outputs, texts, [&] { most = std::max(most, fastout::detail::budget_now().in_use); });
  for (auto& out : outputs) ASSERT_EQ(out->finish(), 0);
  ASSERT_EQ(fastout::detail::set_budget_limit(limit), 0);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    EXPECT_TRUE(decode(outputs[i]->format, read_file(outputs[i]->path)) == texts[i]);
  // The buffers they fill, the budget's worth of jobs, and the compressed
  // output of the jobs one writer may have in flight (charged once made).
  EXPECT_LE(most, charged_before + 20 * 64 * 1024 + 256 * 1024 + 4 * 66 * 1024);
  outputs.clear();
  EXPECT_EQ(fastout::detail::budget_now().in_use, charged_before);
}

// ------------------------------------------------------------ threads

// A writer flushed and closed on the main thread while another thread's
// writer keeps the pool busy: the flush waits for its own jobs only and the
// file then decodes to everything before it; both outputs are whole. Under
// ThreadSanitizer this is the pool used from two threads at once.
// Writers of the pool whose size the program did not choose open with the
// buffer the budget gives, as plain writers do: 256 KiB while what is in
// use stays within a sixteenth of it, else one unit of their format (a
// BGZF block's 0xff00 bytes, a 64 KiB zstd frame), never less. A size the
// program chose, and a writer with workers of its own, keep their buffers.
// Every output decodes to its text, and the budget gets back every byte.
TEST(compression_pool, writers_take_their_buffer_size_from_the_budget) {
  temp_dir dir;
  pool_size two(2);
  constexpr std::size_t largest = 256 * 1024;
  const std::size_t limit = fastout::buffer_budget().limit;
  const std::size_t before = fastout::buffer_budget().in_use;
  // Room for the first two writers' 256 KiB within a sixteenth.
  fastout::set_buffer_budget(16 * (before + 2 * largest));
  std::vector<fastout::file> files;
  std::vector<std::pair<std::string, compression_format>> names;
  std::vector<std::string> texts;
  std::size_t charged = 0;
  for (std::size_t i = 0; i < 40; ++i) {
    SCOPED_TRACE(i);
    const auto format = i % 2 == 0 ? compression_format::gzip : compression_format::zstd;
    const std::size_t in_use = fastout::buffer_budget().in_use;
    const std::size_t expected = in_use + largest <= fastout::buffer_budget().limit / 16 ? largest
                                 : format == compression_format::gzip                    ? 0xff00
                                                                      : 64 * 1024;
    names.emplace_back(dir.file(std::to_string(i) + (i % 2 == 0 ? ".gz" : ".zst")), format);
    files.push_back(
        fastout::output_file(names.back().first, fastout::compression = fastout::by_extension{}));
    EXPECT_EQ(files.back().stats().buffer_size, expected);
    EXPECT_EQ(fastout::buffer_budget().in_use, in_use + expected);  // its one buffer
    charged += expected;
    texts.push_back(log_text(share_of(i, 3000000), static_cast<unsigned>(i) + 91));
  }
  EXPECT_EQ(files[0].stats().buffer_size, largest);
  EXPECT_EQ(files[1].stats().buffer_size, largest);
  EXPECT_EQ(fastout::buffer_budget().in_use, before + charged);
  // Chosen by the program, or with workers of its own: kept as asked.
  fastout::file chosen =
      fastout::output_file(dir.file("chosen.gz"), fastout::compression = fastout::by_extension{},
                           fastout::buffer_size = largest);
  EXPECT_EQ(chosen.stats().buffer_size, largest);
  fastout::file_options own_workers;
  own_workers.compression = fastout::zstd{3};
  own_workers.compression.workers = 1;
  fastout::file own(dir.file("own.zst"), own_workers);
  EXPECT_EQ(own.stats().buffer_size, largest);
  chosen.close();
  own.close();
  for (std::size_t i = 0; i < files.size(); ++i) files[i].print("{}", texts[i]);
  for (auto& f : files) f.close();
  files.clear();
  fastout::set_buffer_budget(limit);
  EXPECT_EQ(fastout::buffer_budget().in_use, before);
  for (std::size_t i = 0; i < names.size(); ++i)
    EXPECT_TRUE(decode(names[i].second, read_file(names[i].first)) == texts[i]) << names[i].first;
}

// A compressed writer the budget sizes follows the plain writers' rules
// after open: its buffer grows when it is the busy one (x4, to at most
// 256 KiB), and gives back, to one unit of its format, at a drain while
// the budget is under pressure; chosen sizes stay as asked. Every byte
// comes out across the resizes.
TEST(compression_pool, busy_compressed_writers_grow_and_give_back_under_pressure) {
  temp_dir dir;
  pool_size two(2);
  const std::size_t limit = fastout::buffer_budget().limit;
  const std::size_t before = fastout::buffer_budget().in_use;
  // Crowded at open (a sixteenth is less than 256 KiB): units; room to grow.
  fastout::set_buffer_budget(before + 3 * 1024 * 1024);
  struct output_of {
    std::string name;
    compression_format format;
    std::size_t unit;
    fastout::file file;
    std::string text;
  };
  std::vector<output_of> outputs;
  for (std::size_t i = 0; i < 6; ++i) {
    const bool gzip = i % 2 == 0;
    const std::string name = dir.file(std::to_string(i) + (gzip ? ".gz" : ".zst"));
    outputs.push_back({name, gzip ? compression_format::gzip : compression_format::zstd,
                       gzip ? std::size_t{0xff00} : std::size_t{64 * 1024},
                       fastout::output_file(name, fastout::compression = fastout::by_extension{}),
                       ""});
    ASSERT_EQ(outputs.back().file.stats().buffer_size, outputs.back().unit) << i;
  }
  fastout::file chosen =
      fastout::output_file(dir.file("chosen.zst"), fastout::compression = fastout::by_extension{},
                           fastout::buffer_size = 96 * 1024);
  std::string chosen_text;
  const std::string busy_text = log_text(6000000, 41);
  const std::string thin_text = log_text(60000, 42);
  // Outputs 0 (gzip) and 1 (zstd) are busy, one after the other; the rest
  // and the chosen one get a line now and then.
  std::size_t thin_at = 0;
  for (std::size_t busy : {std::size_t{0}, std::size_t{1}}) {
    for (std::size_t at = 0; at < busy_text.size(); at += 1000) {
      const std::string piece = busy_text.substr(at, 1000);
      outputs[busy].file.write(piece.data(), piece.size());
      outputs[busy].text += piece;
      if (at % 50000 == 0 && thin_at + 100 <= thin_text.size()) {
        const std::string line = thin_text.substr(thin_at, 100);
        thin_at += 100;
        output_of& thin = outputs[2 + at / 50000 % 4];
        thin.file.write(line.data(), line.size());
        thin.text += line;
        chosen.write(line.data(), line.size());
        chosen_text += line;
      }
    }
  }
  EXPECT_EQ(outputs[0].file.stats().buffer_size, std::size_t{0xff00} * 4) << "gzip did not grow";
  EXPECT_EQ(outputs[1].file.stats().buffer_size, std::size_t{256 * 1024}) << "zstd did not grow";
  for (std::size_t i = 2; i < outputs.size(); ++i)
    EXPECT_EQ(outputs[i].file.stats().buffer_size, outputs[i].unit) << i;
  EXPECT_EQ(chosen.stats().buffer_size, std::size_t{96 * 1024});
  // Under pressure (the budget lowered below what is in use), a drain that
  // is not busy gives the memory back.
  fastout::set_buffer_budget(64 * 1024);
  for (std::size_t busy : {std::size_t{0}, std::size_t{1}}) {
    outputs[busy].file.write("paused\n", 7);
    outputs[busy].text += "paused\n";
    outputs[busy].file.flush();
    EXPECT_EQ(outputs[busy].file.stats().buffer_size, outputs[busy].unit) << busy;
    outputs[busy].file.print("{}", thin_text);
    outputs[busy].text += thin_text;
  }
  EXPECT_EQ(chosen.stats().buffer_size, std::size_t{96 * 1024});
  chosen.close();
  for (auto& o : outputs) o.file.close();
  fastout::set_buffer_budget(limit);
  EXPECT_EQ(fastout::buffer_budget().in_use, before);
  for (auto& o : outputs) EXPECT_TRUE(decode(o.format, read_file(o.name)) == o.text) << o.name;
  EXPECT_TRUE(decode(compression_format::zstd, read_file(dir.file("chosen.zst"))) == chosen_text);
}

TEST(compression_pool, flush_and_close_of_one_writer_while_another_works) {
  temp_dir dir;
  pool_size two(2);
  const std::string busy_text = log_text(3000000, 21);
  const std::string text = log_text(500000, 22);
  for (compression_format format : {compression_format::zstd, compression_format::gzip}) {
    SCOPED_TRACE(fastout::format_name(format));
    output busy(dir.file("busy"), format, 32 * 1024);
    std::atomic<bool> started{false};
    int busy_result = -1;
    std::thread other([&] {
      int result = 0;
      for (std::size_t at = 0; at < busy_text.size() && result == 0; at += 10000) {
        result =
            busy.write(busy_text.data() + at, std::min<std::size_t>(10000, busy_text.size() - at));
        started = true;
      }
      busy_result = result == 0 ? busy.finish() : result;
    });
    while (!started) std::this_thread::yield();
    {
      output quiet(dir.file("quiet"), format, 16 * 1024);
      ASSERT_EQ(quiet.write(text.data(), 200000), 0);
      ASSERT_EQ(quiet.flush(), 0);
      EXPECT_TRUE(decode(format, read_file(quiet.path)) == text.substr(0, 200000));
      ASSERT_EQ(quiet.write(text.data() + 200000, text.size() - 200000), 0);
      ASSERT_EQ(quiet.finish(), 0);
      EXPECT_TRUE(decode(format, read_file(quiet.path)) == text);
    }
    other.join();
    EXPECT_EQ(busy_result, 0);
    EXPECT_TRUE(decode(format, read_file(busy.path)) == busy_text);
  }
}

// ------------------------------------------------------------ fork

int refuse_thread(fastout::detail::thread_handle&, void* (*)(void*), void*) { return EAGAIN; }

// fork() while the pool has the parent's jobs: the child's use of a
// parent's writer fails with EPERM (it never waits for the parent's
// threads), and a writer the child opens works through a fresh pool of
// the child's own; the parent's outputs are whole.
TEST(compression_pool, fork_while_it_works) {
  FASTOUT_SKIP_ON_WINDOWS("fork() is POSIX");
  temp_dir dir;
  pool_size two(2);
  std::vector<std::unique_ptr<output>> outputs;
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < 20; ++i) {
    outputs.push_back(std::make_unique<output>(
        dir.file(std::to_string(i)), i % 2 ? compression_format::gzip : compression_format::zstd,
        16 * 1024));
    texts.push_back(log_text(400000, static_cast<unsigned>(i) + 31));
  }
  const std::string child_text = log_text(1000000, 40);
  const std::string child_path = dir.file("child.zst");
  for (std::size_t i = 0; i < outputs.size(); ++i)
    ASSERT_EQ(outputs[i]->write(texts[i].data(), 200000), 0);
  const int status = fastout_test::run_in_child([&] {
#if defined(__SANITIZE_THREAD__)
    // ThreadSanitizer cannot start threads in a child of a process that
    // had some: the child's pool then has none, and its writer compresses
    // every job on its own thread (which is what happens anywhere a thread
    // cannot be started).
    fastout::detail::compression_system.start_thread = refuse_thread;
#else
    (void)refuse_thread;
#endif
    output& parents = *outputs[3];
    if (parents.engine.hand_over(parents.buffer, 10) != nullptr) return 2;
    if (parents.engine.error() != EPERM || parents.engine.failed_step() != compression_step::fork)
      return 3;
    output own(child_path, compression_format::zstd, 16 * 1024);
    if (own.write(child_text.data(), child_text.size()) != 0) return 4;
    if (own.finish() != 0) return 5;
    return 0;
  });
  EXPECT_EQ(status, 0) << describe_status(status);
  EXPECT_TRUE(decode(compression_format::zstd, read_file(child_path)) == child_text);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    ASSERT_EQ(outputs[i]->write(texts[i].data() + 200000, texts[i].size() - 200000), 0);
  for (auto& out : outputs) ASSERT_EQ(out->finish(), 0);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    SCOPED_TRACE(outputs[i]->path);
    EXPECT_TRUE(decode(outputs[i]->format, read_file(outputs[i]->path)) == texts[i]);
  }
}

// Run by ctest's compression_pool_environment_* entries
// (test/CMakeLists.txt), each with FASTOUT_COMPRESSION_THREADS set and
// FASTOUT_TEST_POOL_EXPECT saying what it must do: "invalid", or the
// pool's size. The variable is read once per process, so each value needs
// a process of its own.
TEST(compression_pool_environment, is_used_or_refused_at_open) {
  const char* value = std::getenv("FASTOUT_COMPRESSION_THREADS");
  const char* expect = std::getenv("FASTOUT_TEST_POOL_EXPECT");
  if (value == nullptr || expect == nullptr)
    GTEST_SKIP() << "run by ctest's compression_pool_environment_* entries, which set "
                    "FASTOUT_COMPRESSION_THREADS and FASTOUT_TEST_POOL_EXPECT";
  temp_dir dir;
  const std::string path = dir.file("out.zst");
  if (std::string(expect) == "invalid") {
    // Unusable, the pool keeps its default size, and every writer of the
    // pool is refused, naming the variable, its value and the path.
    const unsigned cores = std::thread::hardware_concurrency();
    EXPECT_EQ(fastout::compression_pool_threads(),
              cores == 0 ? 1u : std::min(cores, fastout::most_compression_pool_threads));
    for (int attempt = 0; attempt < 2; ++attempt) {  // every open, not only the first
      try {
        fastout::file f = fastout::output_file(path, fastout::compression = fastout::zstd{3});
        FAIL() << "FASTOUT_COMPRESSION_THREADS=" << value << " was accepted";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EINVAL);
        const std::string what = e.what();
        EXPECT_NE(what.find(std::string("FASTOUT_COMPRESSION_THREADS=\"") + value + "\""),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("from 1 to 1024"), std::string::npos) << what;
        EXPECT_NE(what.find(fastout_test::quoted(path)), std::string::npos) << what;
      }
    }
    // A writer with workers of its own does not use the pool: it opens.
    fastout::file own = fastout::output_file(path, fastout::compression = fastout::zstd{3},
                                             fastout::compression_workers = 1);
    own.write("own workers\n", 12);
    own.close();
    EXPECT_TRUE(decode(compression_format::zstd, read_file(path)) == "own workers\n");
    return;
  }
  EXPECT_EQ(fastout::compression_pool_threads(),
            static_cast<unsigned>(std::strtoul(expect, nullptr, 10)));
  fastout::file f = fastout::output_file(path, fastout::compression = fastout::zstd{3});
  f.write("pooled\n", 7);
  f.close();
  EXPECT_TRUE(decode(compression_format::zstd, read_file(path)) == "pooled\n");
}

}  // namespace
