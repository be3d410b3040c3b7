// SPDX-License-Identifier: MIT
// Tests of compressed output's engine (src/stages/compression_internal.h): round
// trips through libzstd's and libdeflate's own decoders and through the
// zstd, gzip and bgzip tools; flush(); threads that start late and never
// outlive finish(); failures of the file (through the fake system calls and
// for real), of the compressor (out of memory) and of thread creation; and
// fork(). These drive the engine alone, through a descriptor sink of the
// tests' own (compression_test_sink.h), as the writer does: each buffer
// filled to capacity before it is handed over. The writer that uses it is
// tested in compression_stage_test.cpp.
#include <fastout/compression.h>

#include <gtest/gtest.h>

#include <libdeflate.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "stages/compression_internal.h"
#include "compression_test_sink.h"
#include "compression_test_util.h"
#include "test_util.h"

namespace {

using fastout::compression_format;
using fastout::detail::compressed_output;
using fastout::detail::compression_settings;
using fastout::detail::compression_step;
using fastout_test::fd_output_sink;
using fastout_test::bgzf_block_size;
using fastout_test::bgzf_decode;
using fastout_test::decode;
using fastout_test::describe_status;
using fastout_test::log_text;
using fastout_test::thread_count;
using fastout_test::thread_count_before_workers;
using fastout_test::thread_count_once_settled;
using fastout_test::zstd_decode;
using fastout_test::read_file;
using fastout_test::temp_dir;

constexpr compression_format formats[] = {compression_format::zstd, compression_format::gzip};

compression_settings settings_for(compression_format format, unsigned workers,
                                  std::size_t buffer_size) {
  compression_settings settings;
  settings.format = format;
  settings.level = format == compression_format::zstd ? 3 : 6;
  settings.workers = workers;
  settings.buffer_size = buffer_size;
  settings.name = "out";
  return settings;
}

// Bytes feed() has handed over, the failing call's included.
std::size_t fed = 0;

// Feeds `data` as the writer does: each buffer filled to capacity and handed
// over, the rest handed over before finish(). Returns finish()'s result, or
// the errno of the first call that failed.
int feed(compressed_output& out, const std::string& data, std::size_t from = 0,
         std::size_t to = std::string::npos, char** buffer_in_use = nullptr) {
  if (to == std::string::npos) to = data.size();
  char* buffer =
      buffer_in_use != nullptr && *buffer_in_use != nullptr ? *buffer_in_use : out.buffer();
  std::size_t filled = 0;
  for (std::size_t i = from; i < to;) {
    std::size_t piece = std::min(out.capacity() - filled, to - i);
    std::memcpy(buffer + filled, data.data() + i, piece);
    filled += piece;
    i += piece;
    if (filled == out.capacity()) {
      fed += filled;
      buffer = out.hand_over(buffer, filled);
      if (buffer == nullptr) return out.error();
      filled = 0;
    }
  }
  if (filled > 0) {
    fed += filled;
    buffer = out.hand_over(buffer, filled);
    if (buffer == nullptr) return out.error();
  }
  if (buffer_in_use != nullptr) *buffer_in_use = buffer;
  return 0;
}

// The command-line tools' verdict: their exit status.
int tool_check(compression_format format, const std::string& path, bool with_bgzip = true) {
#if defined(_WIN32)
  // The tools are Linux programs, which a Windows test under Wine cannot
  // start: the decoder in this test checks the bytes, and
  // compression_tools_test runs the tools on Linux.
  (void)format, (void)path, (void)with_bgzip;
  return 0;
#endif
  std::string command =
      format == compression_format::zstd ? "zstd -tq '" + path + "'" : "gzip -t '" + path + "'";
  int status = std::system((command + " 2>&1").c_str());
  if (status != 0 || format == compression_format::zstd || !with_bgzip) return status;
  return std::system(("bgzip -t '" + path + "' 2>&1").c_str());
}

// A file to write to, with a sink on it.
struct output_file {
  explicit output_file(const std::string& p) : path(p) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::system_error(errno, std::system_category(), path);
  }
  ~output_file() { ::close(fd); }
  std::string path;
  int fd;
};

// ------------------------------------------------------------ round trips

TEST(compression, round_trips_at_every_worker_count_and_buffer_size) {
  temp_dir dir;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u, 4u}) {
      for (std::size_t buffer_size : {std::size_t{1}, std::size_t{7}, std::size_t{4096},
                                      std::size_t{65281}, std::size_t{256} * 1024}) {
        // Empty, one byte, less than a buffer, and many buffers (bounded so
        // that a 1-byte buffer, one frame or block per byte, stays quick).
        std::size_t many = std::min<std::size_t>(buffer_size * 9 + 5, 3000000);
        if (buffer_size < 16) many = 20000;
        for (std::size_t size : {std::size_t{0}, std::size_t{1}, buffer_size / 2, many}) {
          SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " +
                       std::to_string(workers) + " buffer " + std::to_string(buffer_size) +
                       " size " + std::to_string(size));
          std::string data = log_text(size, static_cast<unsigned>(size));
          output_file file(dir.file("out"));
          fd_output_sink sink(file.fd);
          compressed_output out(settings_for(format, workers, buffer_size), sink);
          ASSERT_EQ(feed(out, data), 0);
          ASSERT_EQ(out.finish(), 0);
          std::string compressed = read_file(file.path);
          bool complete = false;
          EXPECT_TRUE(decode(format, compressed, &complete) == data);
          EXPECT_TRUE(complete);
          fastout::detail::compression_stats stats = out.stats();
          EXPECT_EQ(stats.bytes_in, size);
          EXPECT_EQ(stats.bytes_delivered, size);
          EXPECT_EQ(stats.bytes_out, compressed.size());
          EXPECT_EQ(stats.threads, 0u);
          // The tools, on a few sizes: they are processes of their own.
          if (size == many && (buffer_size == 4096 || buffer_size == 256 * 1024)) {
            EXPECT_EQ(tool_check(format, file.path), 0);
          }
        }
      }
    }
  }
}

TEST(compression, empty_output_is_a_valid_empty_file) {
  FASTOUT_SKIP_ON_WINDOWS(
      "runs the Linux zstd and gzip tools through a shell pipeline, which a Windows test cannot start; the decoder in the other tests checks the bytes");
  temp_dir dir;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u}) {
      output_file file(dir.file(std::string("empty.") + fastout::format_name(format)));
      fd_output_sink sink(file.fd);
      compressed_output out(settings_for(format, workers, 4096), sink);
      ASSERT_EQ(out.finish(), 0);
      std::string compressed = read_file(file.path);
      EXPECT_FALSE(compressed.empty());  // neither tool takes an empty file
      EXPECT_EQ(decode(format, compressed), "");
      EXPECT_EQ(tool_check(format, file.path), 0);
      std::string command = format == compression_format::zstd ? "zstd -dc '" : "gzip -dc '";
      EXPECT_EQ(std::system((command + file.path + "' | cmp -s - /dev/null").c_str()), 0);
    }
  }
}

TEST(compression, tools_decode_to_the_same_bytes) {
  FASTOUT_SKIP_ON_WINDOWS(
      "runs the Linux zstd and gzip tools through a shell pipeline, which a Windows test cannot start; the decoder in the other tests checks the bytes");
  temp_dir dir;
  std::string data = log_text(3 * 256 * 1024 + 12345, 3);
  fastout_test::write_file(dir.file("reference"), data);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 2u}) {
      std::string path = dir.file("out");
      {
        output_file file(path);
        fd_output_sink sink(file.fd);
        compressed_output out(settings_for(format, workers, 256 * 1024), sink);
        ASSERT_EQ(feed(out, data), 0);
        ASSERT_EQ(out.finish(), 0);
      }
      std::string reference = dir.file("reference");
      if (format == compression_format::zstd) {
        EXPECT_EQ(std::system(("zstd -dcq '" + path + "' | cmp -s - '" + reference + "'").c_str()),
                  0);
      } else {
        EXPECT_EQ(std::system(("gzip -dc '" + path + "' | cmp -s - '" + reference + "'").c_str()),
                  0);
        EXPECT_EQ(std::system(("zcat '" + path + "' | cmp -s - '" + reference + "'").c_str()), 0);
        EXPECT_EQ(std::system(("bgzip -dc '" + path + "' | cmp -s - '" + reference + "'").c_str()),
                  0);
      }
    }
  }
}

TEST(compression, level_changes_the_output_and_a_bad_level_is_refused) {
  temp_dir dir;
  std::string data = log_text(300000, 4);
  for (compression_format format : formats) {
    std::size_t sizes[2];
    int levels[2] = {1, format == compression_format::zstd ? 19 : 12};
    for (int i = 0; i < 2; ++i) {
      output_file file(dir.file("out"));
      fd_output_sink sink(file.fd);
      compression_settings settings = settings_for(format, 1, 64 * 1024);
      settings.level = levels[i];
      compressed_output out(settings, sink);
      ASSERT_EQ(feed(out, data), 0);
      ASSERT_EQ(out.finish(), 0);
      sizes[i] = read_file(file.path).size();
      EXPECT_TRUE(decode(format, read_file(file.path)) == data);
    }
    EXPECT_LT(sizes[1], sizes[0]);
    output_file file(dir.file("out"));
    fd_output_sink sink(file.fd);
    compression_settings settings = settings_for(format, 1, 4096);
    settings.level = 99;
    settings.name = "some/path.out";
    try {
      compressed_output out(settings, sink);
      ADD_FAILURE() << "level 99 was taken";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EINVAL);
      EXPECT_TRUE(fastout_test::contains(e.what(), "\"some/path.out\"")) << e.what();
      EXPECT_TRUE(fastout_test::contains(e.what(), "level 99")) << e.what();
    }
  }
}

TEST(compression, settings_without_a_format_or_a_buffer_are_refused) {
  int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  fd_output_sink sink(fd);
  for (auto settings : {settings_for(compression_format::none, 1, 4096),
                        settings_for(compression_format::zstd, 1, 0),
                        settings_for(compression_format::gzip, 0, 0)}) {
    try {
      compressed_output out(settings, sink);
      ADD_FAILURE() << "taken";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EINVAL) << e.what();
      EXPECT_TRUE(fastout_test::contains(e.what(), "\"out\"")) << e.what();
    }
  }
  ::close(fd);
}

TEST(compression, misuse_is_an_error_not_a_crash) {
  temp_dir dir;
  for (unsigned workers : {0u, 2u}) {
    output_file file(dir.file("out"));
    fd_output_sink sink(file.fd);
    compressed_output out(settings_for(compression_format::zstd, workers, 4096), sink);
    char other[16] = {};
    EXPECT_EQ(out.hand_over(other, 1), nullptr);
    EXPECT_EQ(out.error(), EINVAL);
    EXPECT_EQ(out.failed_step(), compression_step::none);
    EXPECT_TRUE(fastout_test::contains(out.describe_failure(), "not the one"))
        << out.describe_failure();
    EXPECT_EQ(out.finish(), EINVAL);
  }
  output_file file(dir.file("out"));
  fd_output_sink sink(file.fd);
  compressed_output out(settings_for(compression_format::gzip, 1, 4096), sink);
  EXPECT_EQ(out.hand_over(out.buffer(), 4097), nullptr);
  EXPECT_EQ(out.error(), EINVAL);
  compressed_output done(settings_for(compression_format::gzip, 1, 4096), sink);
  char* buffer = done.buffer();
  ASSERT_EQ(done.finish(), 0);
  EXPECT_EQ(done.finish(), 0);  // a second finish() returns the first one's result
  EXPECT_EQ(done.hand_over(buffer, 0), nullptr);
  EXPECT_EQ(done.error(), EBADF);
}

// ------------------------------------------------------------ flush

TEST(compression, what_the_file_holds_after_flush_decodes_to_everything_before_it) {
  temp_dir dir;
  std::string data = log_text(1000000, 5);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u}) {
      for (std::size_t cut : {std::size_t{10}, std::size_t{100000}, std::size_t{700001}}) {
        SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " +
                     std::to_string(workers) + " cut " + std::to_string(cut));
        output_file file(dir.file("out"));
        fd_output_sink sink(file.fd);
        compressed_output out(settings_for(format, workers, 64 * 1024), sink);
        char* buffer = nullptr;
        ASSERT_EQ(feed(out, data, 0, cut, &buffer), 0);
        ASSERT_EQ(out.flush(), 0);
        EXPECT_EQ(out.stats().bytes_delivered, cut);
        bool complete = false;
        EXPECT_TRUE(decode(format, read_file(file.path), &complete) == data.substr(0, cut));
        // A whole zstd file, or BGZF without only its EOF marker.
        EXPECT_EQ(complete, format == compression_format::zstd);
        EXPECT_EQ(tool_check(format, file.path), 0);
        // The rest goes on in the buffer the last call returned.
        ASSERT_EQ(feed(out, data, cut, data.size(), &buffer), 0);
        ASSERT_EQ(out.finish(), 0);
        EXPECT_TRUE(decode(format, read_file(file.path), &complete) == data);
        EXPECT_TRUE(complete);
        EXPECT_EQ(tool_check(format, file.path, false), 0);
      }
    }
  }
}

// ------------------------------------------------------------ threads

TEST(compression_threads, start_with_the_second_buffer_and_end_with_finish) {
  temp_dir dir;
  const int before = thread_count_before_workers();
  for (compression_format format : formats) {
    output_file file(dir.file("out"));
    fd_output_sink sink(file.fd);
    compressed_output out(settings_for(format, 2, 4096), sink);
    std::string data = log_text(3 * 4096, 6);
    // One buffer of output, flushed: compressed here, no thread.
    char* buffer = out.hand_over(out.buffer(), 0);
    std::memcpy(buffer, data.data(), 100);
    buffer = out.hand_over(buffer, 100);
    ASSERT_NE(buffer, nullptr);
    ASSERT_EQ(out.flush(), 0);
    EXPECT_EQ(out.stats().bytes_delivered, 100u);
    EXPECT_EQ(thread_count_once_settled(before), before);
    EXPECT_EQ(out.stats().threads, 0u);
    // A second buffer, not separated from the first by flush(): more is
    // coming, and the workers start.
    std::memcpy(buffer, data.data() + 100, 4096);
    buffer = out.hand_over(buffer, 4096);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(out.stats().threads, 0u);
    std::memcpy(buffer, data.data() + 4196, 2000);
    buffer = out.hand_over(buffer, 2000);  // a partial buffer counts too
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(out.stats().threads, 2u);
    EXPECT_EQ(thread_count(), before + 2);
    std::memcpy(buffer, data.data() + 6196, 4096);
    buffer = out.hand_over(buffer, 4096);
    ASSERT_NE(buffer, nullptr);
    ASSERT_EQ(out.finish(), 0);
    EXPECT_EQ(thread_count_once_settled(before), before);
    EXPECT_EQ(out.stats().threads, 0u);
    EXPECT_TRUE(decode(format, read_file(file.path)) == data.substr(0, 6196 + 4096));
  }
}

TEST(compression_threads, one_buffer_of_output_never_starts_them) {
  temp_dir dir;
  const int before = thread_count_before_workers();
  for (compression_format format : formats) {
    output_file file(dir.file("out"));
    fd_output_sink sink(file.fd);
    compressed_output out(settings_for(format, 4, 4096), sink);
    std::string data = log_text(4096, 17);
    std::memcpy(out.buffer(), data.data(), data.size());
    ASSERT_NE(out.hand_over(out.buffer(), data.size()), nullptr);
    EXPECT_EQ(out.stats().bytes_out, 0u);  // held until finish() says it is all
    ASSERT_EQ(out.finish(), 0);
    EXPECT_EQ(out.stats().buffers, 1u);
    EXPECT_EQ(thread_count_once_settled(before), before);
    EXPECT_TRUE(decode(format, read_file(file.path)) == data);
  }
}

// A worker that does nothing until released: only the caller compresses.
std::atomic<bool> worker_released{false};
void* (*stalled_run)(void*) = nullptr;
void* stalled_argument = nullptr;
void* stalled_worker(void*) {
  while (!worker_released.load()) ::usleep(1000);
  return stalled_run(stalled_argument);
}
int start_stalled_thread(fastout::detail::thread_handle& thread, void* (*run)(void*),
                         void* argument) {
  stalled_run = run;
  stalled_argument = argument;
  return fastout::detail::start_thread(thread, stalled_worker, nullptr);
}

TEST(compression_threads, caller_compresses_while_every_buffer_is_in_flight) {
  temp_dir dir;
  for (compression_format format : formats) {
    output_file file(dir.file("helped"));
    fd_output_sink sink(file.fd);
    worker_released = false;
    fastout::detail::compression_system.start_thread = start_stalled_thread;
    std::string data = log_text(40 * 4096 + 7, 21);
    {
      compressed_output out(settings_for(format, 1, 4096), sink);
      // Forty buffers with a worker that takes none: without the caller's
      // help this would wait for ever once the four buffers are in flight.
      ASSERT_EQ(feed(out, data), 0);
      EXPECT_EQ(out.flush(), 0);
      EXPECT_TRUE(decode(format, read_file(file.path)) == data);
      EXPECT_EQ(out.stats().bytes_delivered, data.size());
      worker_released = true;
      ASSERT_EQ(out.finish(), 0);
    }
    fastout::detail::compression_system = fastout::detail::real_compression_hooks;
    bool complete = false;
    EXPECT_TRUE(decode(format, read_file(file.path), &complete) == data);
    EXPECT_TRUE(complete);
  }
}

TEST(compression_threads, destructor_without_finish_joins_them) {
  temp_dir dir;
  const int before = thread_count_before_workers();
  for (compression_format format : formats) {
    output_file file(dir.file("out"));
    fd_output_sink sink(file.fd);
    {
      compressed_output out(settings_for(format, 4, 4096), sink);
      std::string data = log_text(100000, 7);
      char* buffer = nullptr;
      ASSERT_EQ(feed(out, data, 0, data.size(), &buffer), 0);
      EXPECT_EQ(thread_count(), before + 4);
    }
    EXPECT_EQ(thread_count_once_settled(before), before);
  }
}

TEST(compression_threads, workers_take_no_signals) {
  FASTOUT_SKIP_ON_WINDOWS("needs /proc, which Windows has not");
  temp_dir dir;
  // Threads of the runtime's own (a sanitizer's) are not the engine's.
  thread_count_before_workers();
  std::vector<std::string> before = fastout_test::names_in("/proc/self/task");
  output_file file(dir.file("out"));
  fd_output_sink sink(file.fd);
  compressed_output out(settings_for(compression_format::zstd, 2, 4096), sink);
  std::string data = log_text(20000, 8);
  char* buffer = nullptr;
  ASSERT_EQ(feed(out, data, 0, data.size(), &buffer), 0);
  // Every thread but this one blocks the signals a program handles.
  int blocking = 0;
  for (const std::string& task : fastout_test::names_in("/proc/self/task")) {
    if (std::find(before.begin(), before.end(), task) != before.end()) continue;
    std::string status = read_file("/proc/self/task/" + task + "/status");
    std::size_t at = status.find("SigBlk:\t");
    ASSERT_NE(at, std::string::npos);
    unsigned long long blocked = std::stoull(status.substr(at + 8, 16), nullptr, 16);
    bool all = true;
    for (int signal : {SIGINT, SIGTERM, SIGALRM, SIGPIPE, SIGUSR1, SIGXFSZ, SIGCHLD})
      all = all && (blocked >> (signal - 1) & 1) != 0;
    if (all) ++blocking;
  }
  EXPECT_EQ(blocking, 2);
  ASSERT_EQ(out.finish(), 0);
}

// ------------------------------------------------------------ fake system calls

struct write_plan {
  std::uint64_t budget = UINT64_MAX;  // bytes that may reach the file
  int error = EIO;                    // then writes fail with this
  std::size_t max_chunk = SIZE_MAX;   // short writes
  int eintr_every = 0;                // every n-th call fails with EINTR
  int eagain_every = 0;               // every n-th call fails with EAGAIN
  int calls = 0;
  int waits = 0;
  pid_t writer = 0;  // the thread that must make every call
  bool other_thread_wrote = false;
};
write_plan plan;

ssize_t planned_write(int fd, const void* data, size_t size) {
  ++plan.calls;
  if (::gettid() != plan.writer) plan.other_thread_wrote = true;
  if (plan.eintr_every > 0 && plan.calls % plan.eintr_every == 0) {
    errno = EINTR;
    return -1;
  }
  if (plan.eagain_every > 0 && plan.calls % plan.eagain_every == 0) {
    errno = EAGAIN;
    return -1;
  }
  if (plan.budget == 0) {
    errno = plan.error;
    return -1;
  }
  size = std::min<std::size_t>({size, plan.max_chunk, static_cast<std::size_t>(plan.budget)});
  ssize_t written = fastout::detail::real_platform.write(fd, data, size);
  if (written > 0) plan.budget -= static_cast<std::uint64_t>(written);
  return written;
}

ssize_t planned_writev(int fd, const iovec* iov, int count) {
  // As one write of the first piece: a short writev.
  (void)count;
  return planned_write(fd, iov[0].iov_base, iov[0].iov_len);
}

int planned_wait_writable(int fd) {
  ++plan.waits;
  return fastout::detail::real_platform.wait_writable(fd);
}

struct fake_calls {
  fake_calls() {
    plan = write_plan();
    plan.writer = ::gettid();
    fastout::detail::platform.write = planned_write;
    fastout::detail::platform.writev = planned_writev;
    fastout::detail::platform.wait_writable = planned_wait_writable;
  }
  fastout_test::scoped_platform restore;
};

TEST(compression_faults, short_writes_eintr_and_eagain_lose_nothing) {
  temp_dir dir;
  std::string data = log_text(600000, 9);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u}) {
      fake_calls fakes;
      plan.max_chunk = 1000;
      plan.eintr_every = 3;
      plan.eagain_every = 5;
      output_file file(dir.file("out"));
      fd_output_sink sink(file.fd);
      compressed_output out(settings_for(format, workers, 32 * 1024), sink);
      ASSERT_EQ(feed(out, data), 0);
      ASSERT_EQ(out.finish(), 0);
      EXPECT_TRUE(decode(format, read_file(file.path)) == data);
      EXPECT_GT(plan.waits, 0);
      EXPECT_EQ(sink.write_calls(), static_cast<std::uint64_t>(plan.calls));
      EXPECT_FALSE(plan.other_thread_wrote);
    }
  }
}

// A write failure at every point of the stream: reported at the call that
// met it, sticky, and the file holds exactly the buffers counted delivered.
TEST(compression_faults, write_failure_is_sticky_with_exact_counts) {
  temp_dir dir;
  std::string data = log_text(400000, 10);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u}) {
      for (int error : {EIO, ENOSPC}) {
        for (std::uint64_t budget : {0ull, 1ull, 5000ull, 30000ull, 60000ull}) {
          SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " +
                       std::to_string(workers) + " budget " + std::to_string(budget));
          fake_calls fakes;
          plan.budget = budget;
          plan.error = error;
          plan.max_chunk = 777;
          output_file file(dir.file("out"));
          fd_output_sink sink(file.fd);
          compressed_output out(settings_for(format, workers, 16 * 1024), sink);
          fed = 0;
          int result = feed(out, data);
          if (result == 0) result = out.flush();
          if (result == 0) result = out.finish();
          EXPECT_EQ(result, error);
          EXPECT_EQ(out.error(), error);
          EXPECT_EQ(out.failed_step(), compression_step::write);
          fastout::detail::compression_stats stats = out.stats();
          std::string compressed = read_file(file.path);
          EXPECT_EQ(stats.bytes_out, compressed.size());
          EXPECT_EQ(stats.bytes_out, budget);
          EXPECT_LT(stats.bytes_delivered, stats.bytes_in);
          EXPECT_EQ(stats.bytes_in, fed) << "every byte handed over is counted";
          // Every later call reports it again and writes nothing more.
          const int calls = plan.calls;
          EXPECT_EQ(out.hand_over(out.buffer(), 0), nullptr);
          EXPECT_EQ(out.flush(), error);
          EXPECT_EQ(out.finish(), error);
          EXPECT_EQ(plan.calls, calls);
          EXPECT_EQ(out.stats().threads, 0u);
          if (workers > 0 || format == compression_format::gzip) {
            // Independent units: the whole ones in the file are exactly
            // those counted delivered.
            std::string whole = compressed;
            std::string decoded;
            if (format == compression_format::zstd) {
              // Cut at the last frame that ends within the file.
              std::size_t end = 0;
              while (end < whole.size()) {
                std::size_t frame =
                    ZSTD_findFrameCompressedSize(whole.data() + end, whole.size() - end);
                if (ZSTD_isError(frame)) break;
                end += frame;
              }
              decoded = zstd_decode(whole.substr(0, end));
            } else {
              std::size_t end = 0;
              while (end + 18 <= whole.size()) {
                std::size_t block = bgzf_block_size(whole.data() + end);
                if (end + block > whole.size()) break;
                end += block;
              }
              decoded = bgzf_decode(whole.substr(0, end));
            }
            EXPECT_EQ(decoded.size(), stats.bytes_delivered);
            EXPECT_TRUE(decoded == data.substr(0, decoded.size()));
          }
          std::string message = out.describe_failure();
          EXPECT_TRUE(fastout_test::contains(message, "writing")) << message;
        }
      }
    }
  }
}

// The last bytes of the stream (zstd's last frame, BGZF's EOF marker) that
// cannot be written make finish() fail too: a file without its end is not
// reported as whole.
TEST(compression_faults, failure_writing_the_end_of_the_stream_is_reported) {
  temp_dir dir;
  std::string data = log_text(100000, 18);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u}) {
      SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " +
                   std::to_string(workers));
      std::uint64_t whole = 0;
      {
        output_file file(dir.file("out"));
        fd_output_sink sink(file.fd);
        compressed_output out(settings_for(format, workers, 16 * 1024), sink);
        ASSERT_EQ(feed(out, data), 0);
        ASSERT_EQ(out.finish(), 0);
        whole = out.stats().bytes_out;
      }
      fake_calls fakes;
      plan.budget = whole - 1;
      plan.error = ENOSPC;
      output_file file(dir.file("out"));
      fd_output_sink sink(file.fd);
      compressed_output out(settings_for(format, workers, 16 * 1024), sink);
      // zstd's last frame may be written by the last hand-over already, if
      // its worker was quick.
      int result = feed(out, data);
      if (result == 0) result = out.finish();
      EXPECT_EQ(result, ENOSPC);
      EXPECT_EQ(out.finish(), ENOSPC);
      EXPECT_EQ(out.failed_step(), compression_step::write);
      EXPECT_EQ(out.stats().bytes_out, whole - 1);
      EXPECT_EQ(fastout_test::file_size_at(file.path), static_cast<long long>(whole - 1));
    }
  }
}

// ------------------------------------------------------------ real failures

TEST(compression_faults, dev_full_reports_enospc) {
  std::string data = log_text(300000, 11);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 2u}) {
      int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
      ASSERT_GE(fd, 0);
      fd_output_sink sink(fd);
      compressed_output out(settings_for(format, workers, 16 * 1024), sink);
      int result = feed(out, data);
      if (result == 0) result = out.finish();
      EXPECT_EQ(result, ENOSPC);
      EXPECT_EQ(out.stats().bytes_out, 0u);
      EXPECT_EQ(out.stats().bytes_delivered, 0u);
      EXPECT_EQ(out.finish(), ENOSPC);
      ::close(fd);
    }
  }
}

// On Windows, which has no RLIMIT_FSIZE, the platform table's writes stop
// the file at 20000 bytes as Windows does one that outgrows its filesystem
// (ERROR_FILE_TOO_LARGE, EFBIG: windows_file_size_limit, test_util.h).
TEST(compression_faults, file_size_limit_reports_efbig) {
  temp_dir dir;
  std::string path = dir.file("limited");
  auto body = [&] {
    std::string data = log_text(1000000, 12);
    for (compression_format format : formats) {
      for (unsigned workers : {0u, 1u, 2u}) {
        output_file file(path);
        fd_output_sink sink(file.fd);
        compressed_output out(settings_for(format, workers, 16 * 1024), sink);
        int result = feed(out, data);
        if (result == 0) result = out.finish();
        if (result != EFBIG) return 3;
        if (out.stats().bytes_out != 20000) return 4;
        if (fastout_test::file_size_at(path) != 20000) return 5;
      }
    }
    return 0;
  };
  int status = fastout_test::run_with_file_size_limit(20000, body);
  EXPECT_EQ(status, 0) << describe_status(status);
}

TEST(compression_faults, pipe_without_reader_reports_epipe) {
  int status = fastout_test::run_in_child([] {
    std::signal(SIGPIPE, SIG_IGN);
    std::string data = log_text(500000, 13);
    for (compression_format format : formats) {
      for (unsigned workers : {0u, 2u}) {
        int ends[2];
        if (::pipe2(ends, O_CLOEXEC) != 0) return 2;
        ::close(ends[0]);
        fd_output_sink sink(ends[1]);
        compressed_output out(settings_for(format, workers, 16 * 1024), sink);
        int result = feed(out, data);
        if (result == 0) result = out.finish();
        ::close(ends[1]);
        if (result != EPIPE) return 3;
      }
    }
    return 0;
  });
  EXPECT_EQ(status, 0) << describe_status(status);
}

// ------------------------------------------------------------ memory

// Allocation number `fail_at` (from 1) and every later one fail, across
// threads.
std::atomic<int> allocations{0};
std::atomic<int> fail_at{0};

void* failing_allocate(std::size_t size) {
  int n = ++allocations;
  if (fail_at > 0 && n >= fail_at) return nullptr;
  return std::malloc(size);
}

struct failing_memory {
  explicit failing_memory(int at) {
    allocations = 0;
    fail_at = at;
    fastout::detail::compression_system.allocate = failing_allocate;
    libdeflate_set_memory_allocator(failing_allocate, std::free);
  }
  ~failing_memory() {
    fastout::detail::compression_system = fastout::detail::real_compression_hooks;
    libdeflate_set_memory_allocator(std::malloc, std::free);
  }
};

// Out of memory at each allocation in turn: refused at construction with
// ENOMEM, or reported at a later call with the compressor named, or (for
// buffers and workers beyond the first) absorbed by doing with fewer. Never
// a crash, never output lost without a report.
TEST(compression_faults, allocation_failure_at_every_allocation) {
  temp_dir dir;
  std::string data = log_text(200000, 14);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u}) {
      int total = 0;
      {
        failing_memory count(0);
        output_file file(dir.file("out"));
        fd_output_sink sink(file.fd);
        compressed_output out(settings_for(format, workers, 16 * 1024), sink);
        ASSERT_EQ(feed(out, data), 0);
        ASSERT_EQ(out.finish(), 0);
        total = allocations;
      }
      ASSERT_GT(total, 1);
      int refused = 0;
      int reported = 0;
      for (int at = 1; at <= total; ++at) {
        SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " +
                     std::to_string(workers) + " allocation " + std::to_string(at));
        output_file file(dir.file("out"));
        fd_output_sink sink(file.fd);
        int result = 0;
        bool in_finish = false;
        std::unique_ptr<compressed_output> out;
        {
          failing_memory memory(at);
          try {
            out =
                std::make_unique<compressed_output>(settings_for(format, workers, 16 * 1024), sink);
          } catch (const std::system_error& e) {
            EXPECT_EQ(e.code().value(), ENOMEM) << e.what();
            ++refused;
            continue;
          }
          result = feed(*out, data);
          in_finish = result == 0;
          // finish() joins the workers before the hooks go back.
          int finished = out->finish();
          if (result == 0) result = finished;
        }
        if (result == 0) {
          EXPECT_TRUE(decode(format, read_file(file.path)) == data);
        } else {
          ++reported;
          EXPECT_EQ(result, ENOMEM);
          EXPECT_EQ(out->failed_step(), compression_step::compress);
          EXPECT_TRUE(fastout_test::contains(out->describe_failure(), "compressing with"))
              << out->describe_failure();
          // All may be in the file when only the stream's end failed.
          if (in_finish) {
            EXPECT_LE(out->stats().bytes_delivered, out->stats().bytes_in);
          } else {
            EXPECT_LT(out->stats().bytes_delivered, out->stats().bytes_in);
          }
          EXPECT_EQ(out->finish(), ENOMEM);
        }
      }
      EXPECT_GT(refused, 0);
      if (format == compression_format::zstd) {
        EXPECT_GT(reported, 0);
      }
    }
  }
}

int refuse_thread(fastout::detail::thread_handle&, void* (*)(void*), void*) { return EAGAIN; }

TEST(compression_faults, no_thread_means_compressing_on_the_caller) {
  temp_dir dir;
  std::string data = log_text(300000, 15);
  for (compression_format format : formats) {
    fastout::detail::compression_system.start_thread = refuse_thread;
    output_file file(dir.file("out"));
    fd_output_sink sink(file.fd);
    compressed_output out(settings_for(format, 2, 16 * 1024), sink);
    EXPECT_EQ(feed(out, data), 0);
    EXPECT_EQ(out.stats().threads, 0u);
    EXPECT_EQ(out.finish(), 0);
    fastout::detail::compression_system = fastout::detail::real_compression_hooks;
    EXPECT_TRUE(decode(format, read_file(file.path)) == data);
  }
}

// ------------------------------------------------------------ fork

// A child that uses the engine it inherited gets EPERM at once: it never
// waits for the parent's threads and writes nothing; the parent goes on.
TEST(compression_fork, child_gets_an_error_and_the_parent_goes_on) {
  FASTOUT_SKIP_ON_WINDOWS(
      "the child must inherit the parent's writer through fork(), which Windows has not");
  temp_dir dir;
  std::string data = log_text(500000, 16);
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 2u}) {
      SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " +
                   std::to_string(workers));
      output_file file(dir.file("out"));
      fd_output_sink sink(file.fd);
      auto out =
          std::make_unique<compressed_output>(settings_for(format, workers, 16 * 1024), sink);
      char* buffer = nullptr;
      ASSERT_EQ(feed(*out, data, 0, 250000, &buffer), 0);
      long long size_at_fork = fastout_test::file_size(file.fd);
      int status = fastout_test::run_in_child([&] {
        if (out->hand_over(buffer, 10) != nullptr) return 2;
        if (out->error() != EPERM || out->failed_step() != compression_step::fork) return 3;
        if (!fastout_test::contains(out->describe_failure(), "fork")) return 4;
        if (out->flush() != EPERM || out->finish() != EPERM) return 5;
        out.reset();  // the destructor neither joins nor writes
        return 0;
      });
      EXPECT_EQ(status, 0) << describe_status(status);
      // Only the parent's own thread writes, and it was waiting.
      EXPECT_EQ(fastout_test::file_size(file.fd), size_at_fork);
      ASSERT_EQ(feed(*out, data, 250000, data.size(), &buffer), 0);
      ASSERT_EQ(out->finish(), 0);
      EXPECT_TRUE(decode(format, read_file(file.path)) == data);
    }
  }
}

// ------------------------------------------------------------ options

TEST(compression_options, extension_picks_the_format) {
  using fastout::format_for_path;
  static_assert(format_for_path("log.zst") == compression_format::zstd);
  static_assert(format_for_path("reads.fastq.gz") == compression_format::gzip);
  static_assert(format_for_path("calls.vcf.bgz") == compression_format::gzip);
  static_assert(format_for_path("table.tsv") == compression_format::none);
  static_assert(format_for_path("dir.gz/file") == compression_format::none);
  static_assert(format_for_path(".gz") == compression_format::none);
  static_assert(format_for_path("dir/.zst") == compression_format::none);
  static_assert(format_for_path("LOG.ZST") == compression_format::none);
  constexpr fastout::compression_options chosen =
      fastout::resolve_compression(fastout::by_extension{19, 9}, "x.zst");
  static_assert(chosen.format == compression_format::zstd && chosen.level == 19);
  constexpr fastout::compression_options gz =
      fastout::resolve_compression(fastout::by_extension{}, "x.gz");
  static_assert(gz.format == compression_format::gzip && gz.level == 6);
  constexpr fastout::compression_options plain =
      fastout::resolve_compression(fastout::by_extension{}, "x.txt");
  static_assert(plain.format == compression_format::none);
  SUCCEED();
}

// `options.compression = zstd{5}` is about the format: the workers set
// before it stay, and setting them after works as well.
TEST(compression_options, assigning_a_format_keeps_the_workers) {
  using fastout::compression_options;
  struct format_case {
    const char* name;
    void (*assign)(compression_options&);
    compression_format format;
    int level;
    bool from_extension;
  };
  const format_case cases[] = {
      {"zstd{5}", [](compression_options& o) { o = fastout::zstd{5}; }, compression_format::zstd, 5,
       false},
      {"gzip{1}", [](compression_options& o) { o = fastout::gzip{1}; }, compression_format::gzip, 1,
       false},
      {"by_extension{19, 9}",
       [](compression_options& o) {
         o = fastout::by_extension{19, 9};
       },
       compression_format::none, 0, true},
      // The key's result, kept in a variable and assigned later.
      {"(compression = zstd{7})",
       [](compression_options& o) { o = (fastout::compression = fastout::zstd{7}); },
       compression_format::zstd, 7, false},
  };
  for (const format_case& c : cases) {
    SCOPED_TRACE(c.name);
    for (unsigned workers : {0u, 3u}) {
      // Workers first, then the format; then the other way round.
      compression_options before;
      before.workers = workers;
      c.assign(before);
      compression_options after;
      c.assign(after);
      after.workers = workers;
      for (const compression_options& o : {before, after}) {
        EXPECT_EQ(o.workers, workers);
        EXPECT_EQ(o.format, c.format);
        EXPECT_EQ(o.level, c.level);
        EXPECT_EQ(o.from_extension, c.from_extension);
      }
    }
  }
  // A format after by_extension is no longer chosen by the path; its
  // levels for the extension are what a format on its own has.
  compression_options o = fastout::by_extension{19, 9};
  o.workers = 2;
  o = fastout::gzip{4};
  EXPECT_FALSE(o.from_extension);
  EXPECT_EQ(fastout::resolve_compression(o, "x.zst").format, compression_format::gzip);
  EXPECT_EQ(o.zstd_level, fastout::zstd{}.level);
  EXPECT_EQ(o.workers, 2u);
  // And in a constant expression.
  constexpr compression_options kept = [] {
    compression_options options;
    options.workers = 4;
    options = fastout::zstd{9};
    return options;
  }();
  static_assert(kept.workers == 4 && kept.format == compression_format::zstd && kept.level == 9);
}

// Assigning a whole compression_options replaces all of it, as assigning
// any struct does: `= {}` is plain output with the default workers.
TEST(compression_options, assigning_whole_options_replaces_the_workers) {
  fastout::compression_options o;
  o.workers = 3;
  o = fastout::compression_options(fastout::zstd{5});
  EXPECT_EQ(o.workers, fastout::default_compression_workers);
  EXPECT_EQ(o.level, 5);
  o.workers = 3;
  o = {};
  EXPECT_EQ(o.workers, fastout::default_compression_workers);
  EXPECT_EQ(o.format, compression_format::none);
}

TEST(compression_options, keys_in_fmt_style) {
  constexpr fastout::compression_options z = (fastout::compression = fastout::zstd{7});
  static_assert(z.format == compression_format::zstd && z.level == 7 &&
                z.workers == fastout::default_compression_workers);
  constexpr fastout::compression_options g = (fastout::compression = fastout::gzip{});
  static_assert(g.format == compression_format::gzip && g.level == 6);
  constexpr auto workers = (fastout::compression_workers = 3);
  static_assert(workers.value == 3);
  EXPECT_TRUE(fastout::compression_available(compression_format::zstd));
  EXPECT_TRUE(fastout::compression_available(compression_format::gzip));
  EXPECT_TRUE(fastout::compression_available(compression_format::none));
}

}  // namespace
