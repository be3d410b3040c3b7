// SPDX-License-Identifier: MIT
// Descriptors beyond the process's limit (src/stages/descriptors.cpp and the
// file stage's release and reopen; docs/guide.md, "Many outputs"): the soft
// limit raised once on EMFILE, ENFILE left alone, idle writers' descriptors
// released and their files reopened with every byte in place, the refusals
// (a file renamed or replaced, a reopen that fails), what is never released
// (a descriptor given out, keep_descriptor_open, borrowed and adopted ones,
// devices), threads; through the platform table's fakes (a descriptor limit
// of a few) and for real with setrlimit(RLIMIT_NOFILE) in forked children.
#include <fastout/c_api.h>
#include <fastout/fastout.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "test_util.h"
#if defined(FASTOUT_DESCRIPTORS_TEST_CODECS)
#  include "compression_test_util.h"
#endif

namespace {

using fastout_test::quoted;
using fastout_test::read_file;
using fastout_test::real;
using fastout_test::scoped_platform;
using fastout_test::temp_dir;
using fastout_test::write_file;
namespace detail = fastout::detail;

// A descriptor limit of the fakes' own: opens through the table fail with
// EMFILE while `limit` descriptors they made are open. The raise the library
// asks for is counted and refused (EPERM: at the hard limit), unless
// `raise_to` is set, which it then becomes. Thread-safe: the threads test
// opens from two threads.
struct limit_plan {
  std::mutex lock;
  std::set<int> open;
  std::size_t limit = SIZE_MAX;
  std::size_t raise_to = 0;
  int raises = 0;
  int emfiles = 0;
  int closes = 0;                     // of descriptors opened through the fakes
  int all_closes = 0;                 // of any descriptor
  int fail_next_open = 0;             // the next open fails with this (ENFILE, say)
  int fail_reopen = 0;                // an open without O_CREAT fails with this
  std::vector<std::string> reopened;  // the paths opened without O_CREAT
  // The close() of this descriptor (a release's) waits, once, until
  // let_close_go is set, having set close_held.
  std::atomic<int> hold_close_of{-1};
  std::atomic<bool> close_held{false};
  std::atomic<bool> let_close_go{false};
};
limit_plan* plan = nullptr;

int limited_open(const char* path, int flags, mode_t mode) {
  {
    std::lock_guard<std::mutex> hold(plan->lock);
    if (plan->fail_next_open != 0) {
      errno = plan->fail_next_open;
      plan->fail_next_open = 0;
      return -1;
    }
    if ((flags & O_CREAT) == 0) {
      plan->reopened.push_back(path);
      if (plan->fail_reopen != 0) {
        errno = plan->fail_reopen;
        return -1;
      }
    }
    if (plan->open.size() >= plan->limit) {
      ++plan->emfiles;
      errno = EMFILE;
      return -1;
    }
  }
  const int fd = real().open(path, flags, mode);
  if (fd >= 0) {
    std::lock_guard<std::mutex> hold(plan->lock);
    plan->open.insert(fd);
  }
  return fd;
}

int limited_close(int fd) {
  int held = fd;
  if (plan->hold_close_of.compare_exchange_strong(held, -1)) {
    plan->close_held = true;
    while (!plan->let_close_go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    std::lock_guard<std::mutex> hold(plan->lock);
    if (plan->open.erase(fd) != 0) ++plan->closes;
    ++plan->all_closes;
  }
  return real().close(fd);
}

int limited_openat(int dir, const char* path, int flags, mode_t mode) {
  {
    std::lock_guard<std::mutex> hold(plan->lock);
    if (plan->open.size() >= plan->limit) {
      ++plan->emfiles;
      errno = EMFILE;
      return -1;
    }
  }
  const int fd = real().openat(dir, path, flags, mode);
  if (fd >= 0) {
    std::lock_guard<std::mutex> hold(plan->lock);
    plan->open.insert(fd);
  }
  return fd;
}

int counted_raise() {
  std::lock_guard<std::mutex> hold(plan->lock);
  ++plan->raises;
  if (plan->raise_to > plan->limit) {
    plan->limit = plan->raise_to;
    return 0;
  }
  errno = EPERM;
  return -1;
}

// Installs the fakes for a test's lifetime.
class descriptor_limit : public ::testing::Test {
 protected:
  void SetUp() override {
    plan = &plan_;
    detail::platform.open = limited_open;
    detail::platform.openat = limited_openat;
    detail::platform.close = limited_close;
    detail::platform.raise_descriptor_limit = counted_raise;
  }
  void TearDown() override { plan = nullptr; }
  std::size_t open_now() {
    std::lock_guard<std::mutex> hold(plan_.lock);
    return plan_.open.size();
  }

  scoped_platform saved_;
  limit_plan plan_;
  temp_dir dir_;
};

// Whether `what` is `start` and then fastout's text for `error_number`
// (glibc's words on every platform); on Windows, with what Windows said of
// a real failure after it, "(Windows error 2: ...)" (docs/platforms.md).
::testing::AssertionResult is_message(const std::string& what, const std::string& start,
                                      int error_number) {
  const std::string expected = start + detail::error_text(error_number);
  if (what == expected) return ::testing::AssertionSuccess();
#if defined(_WIN32)
  const std::string with_windows_words = expected + " (Windows error ";
  if (what.compare(0, with_windows_words.size(), with_windows_words) == 0 && what.back() == ')')
    return ::testing::AssertionSuccess();
#endif
  return ::testing::AssertionFailure()
         << "the message is \"" << what << "\", expected \"" << expected << "\"";
}

// Records of 100 bytes that say which output and which record they are.
std::string record(std::size_t output, std::size_t number) {
  char text[101];
  std::snprintf(text, sizeof text, "%05zu %08zu ", output, number);
  std::string line(text);
  line.resize(99, static_cast<char>('a' + (output + number) % 26));
  return line + "\n";
}

fastout::file_options small_buffers(fastout::open_mode mode = fastout::open_mode::truncate) {
  fastout::file_options options;
  options.mode = mode;
  options.buffer_size = 256;
  return options;
}

// Writes `rounds` records to each writer in turn, and closes them all.
// Returns each output's expected content (after `before`).
std::vector<std::string> write_round_robin(std::vector<fastout::file>& outputs, std::size_t rounds,
                                           const std::vector<std::string>& before) {
  std::vector<std::string> expected = before;
  expected.resize(outputs.size());
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::string text = record(i, r);
      outputs[i].write(text.data(), text.size());
      expected[i] += text;
    }
  }
  for (auto& out : outputs) out.close();
  return expected;
}

// ------------------------------------------------------ the soft limit raised

TEST_F(descriptor_limit, emfile_raises_the_soft_limit_once_per_process) {
  FASTOUT_SKIP_ON_WINDOWS("fork(): the raise is once per process, so each run needs a fresh one");
  const std::string a = dir_.file("a"), b = dir_.file("b"), c = dir_.file("c");
  const int status = fastout_test::run_in_child([&] {
    plan->limit = 0;     // every open fails with EMFILE ...
    plan->raise_to = 2;  // ... until the raise, which gives room for two
    fastout::file first(a, small_buffers());
    if (plan->raises != 1 || plan->emfiles != 1) return 1;
    first.print("first\n");
    fastout::file second(b, small_buffers());  // within the raised limit
    // At the limit again: no second raise, the idle first writer released.
    fastout::file third(c, small_buffers());
    if (plan->raises != 1) return 2;
    if (plan->closes != 1) return 3;  // the first one's descriptor
    first.print("more\n");            // reopened: the second is released now
    if (plan->raises != 1) return 4;
    first.close();
    second.close();
    third.close();
    if (read_file(a) != "first\nmore\n") return 5;
    return 0;
  });
  EXPECT_EQ(status, 0);
}

TEST_F(descriptor_limit, the_raise_is_tried_once_even_when_it_cannot_raise) {
  FASTOUT_SKIP_ON_WINDOWS("fork(): the raise is once per process");
  const std::string a = dir_.file("a"), b = dir_.file("b");
  const int status = fastout_test::run_in_child([&] {
    plan->limit = 0;
    for (const std::string& path : {a, b}) {
      try {
        fastout::file f(path, small_buffers());
        return 1;
      } catch (const std::system_error& e) {
        if (e.code().value() != EMFILE) return 2;
      }
    }
    return plan->raises == 1 ? 0 : 3;
  });
  EXPECT_EQ(status, 0);
}

TEST_F(descriptor_limit, enfile_is_not_raised_and_releases_nothing) {
  fastout::file idle(dir_.file("idle"), small_buffers());
  idle.print("idle\n");
  plan_.fail_next_open = ENFILE;
  const std::string path = dir_.file("new");
  try {
    fastout::file f(path, small_buffers());
    FAIL() << "opened despite ENFILE";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENFILE);
    EXPECT_EQ(std::string(e.what()),
              "cannot open " + quoted(path) + " for writing: Too many open files in system");
  }
  EXPECT_EQ(plan_.raises, 0);
  EXPECT_EQ(plan_.closes, 0);
  idle.close();
  EXPECT_EQ(read_file(dir_.file("idle")), "idle\n");
}

// ------------------------------------------------- released and reopened

// A writer that writes while an open on another thread is releasing its
// descriptor waits until the release is over (the stage's lock), then
// reopens the file where the release left it: the release read the offset
// before closing, so a write let through meanwhile would be overwritten by
// the next one ("a2" over "a1" below). Two descriptors: when the writer
// reopens, an idle writer (c) is there to give one back, so that it need
// not take the one the opener was given.
TEST_F(descriptor_limit, a_write_during_a_release_waits_for_it_and_loses_nothing) {
  plan_.limit = 2;
  fastout::file a(dir_.file("a"), small_buffers());
  a.print("a0 ");
  a.flush();
  int a_descriptor;
  {
    std::lock_guard<std::mutex> hold(plan_.lock);
    ASSERT_EQ(plan_.open.size(), 1u);
    a_descriptor = *plan_.open.begin();
  }
  fastout::file c(dir_.file("c"), small_buffers());  // used after a: a goes first
  plan_.hold_close_of = a_descriptor;
  std::thread opener([&] {
    fastout::file b(dir_.file("b"), small_buffers());  // releases a, slowly
    b.print("b0 ");
    b.close();
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!plan_.close_held && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const bool release_began = plan_.close_held;
  std::thread writer([&] {
    a.print("a1 ");
    a.flush();  // waits for the release
  });
  // Long enough for the writer to reach the lock and wait: a writer that
  // did not wait would have written "a1 " through the descriptor being
  // released by now.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  plan_.let_close_go = true;
  opener.join();
  writer.join();
  ASSERT_TRUE(release_began) << "the open of b did not release a within 30 s";
  a.print("a2 ");
  a.close();
  c.close();
  EXPECT_EQ(read_file(dir_.file("a")), "a0 a1 a2 ");
  EXPECT_EQ(read_file(dir_.file("b")), "b0 ");
  EXPECT_EQ(open_now(), 0u);
}

TEST_F(descriptor_limit, idle_writers_are_released_and_reopened_with_every_byte) {
  plan_.limit = 3;
  std::vector<fastout::file> outputs;
  for (int i = 0; i < 12; ++i) outputs.emplace_back(dir_.file(std::to_string(i)), small_buffers());
  EXPECT_LE(open_now(), 3u);
  const auto expected = write_round_robin(outputs, 40, {});
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(read_file(dir_.file(std::to_string(i))), expected[i]) << i;
  EXPECT_GT(plan_.closes, 12);  // released and reopened, many times
  EXPECT_EQ(open_now(), 0u);
}

TEST_F(descriptor_limit, an_appending_writer_reopens_at_the_end) {
  plan_.limit = 2;
  std::vector<std::string> before;
  std::vector<fastout::file> outputs;
  for (int i = 0; i < 5; ++i) {
    before.push_back("old content " + std::to_string(i) + "\n");
    write_file(dir_.file(std::to_string(i)), before.back());
    outputs.emplace_back(dir_.file(std::to_string(i)), small_buffers(fastout::open_mode::append));
  }
  // Another process appending meanwhile: O_APPEND puts the writer's next
  // bytes after it, as before the release.
  const auto expected = write_round_robin(outputs, 30, before);
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(read_file(dir_.file(std::to_string(i))), expected[i]) << i;
  EXPECT_GT(plan_.closes, 5);
}

TEST_F(descriptor_limit, a_writer_is_reopened_where_it_left_off) {
  // Truncate mode, not O_APPEND: the reopen goes back to the file position
  // the release found, or "AAAA" would land on "aaaa".
  plan_.limit = 1;
  fastout::file a(dir_.file("a"), small_buffers());
  a.print("aaaa");
  a.flush();
  fastout::file b(dir_.file("b"), small_buffers());  // a released
  EXPECT_EQ(plan_.closes, 1);
  b.print("bbbb");
  a.print("AAAA");
  a.flush();  // a reopened at 4, b released
  b.close();
  a.close();
  EXPECT_EQ(read_file(dir_.file("a")), "aaaaAAAA");
  EXPECT_EQ(read_file(dir_.file("b")), "bbbb");
}

#if defined(FASTOUT_DESCRIPTORS_TEST_CODECS)
TEST_F(descriptor_limit, compressed_writers_are_released_too) {
  plan_.limit = 2;
  std::vector<fastout::file> outputs;
  for (int i = 0; i < 6; ++i) {
    fastout::file_options options = small_buffers();
    options.buffer_size = 4096;
    options.compression = fastout::gzip{1};
    outputs.emplace_back(dir_.file(std::to_string(i) + ".gz"), options);
  }
  std::vector<std::string> expected(outputs.size());
  for (std::size_t r = 0; r < 200; ++r) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::string text = record(i, r);
      outputs[i].write(text.data(), text.size());
      expected[i] += text;
      if (r % 50 == 49) outputs[i].flush();  // a block to the file now
    }
  }
  for (auto& out : outputs) out.close();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    bool eof = false;
    EXPECT_EQ(fastout_test::bgzf_decode(read_file(dir_.file(std::to_string(i) + ".gz")), &eof),
              expected[i])
        << i;
    EXPECT_TRUE(eof) << i;
  }
  EXPECT_GT(plan_.closes, 6);
}
#else
TEST_F(descriptor_limit, compressed_writers_are_released_too) {
  GTEST_SKIP() << "this build has no codecs to compress with (libzstd, libdeflate)";
}
#endif

// ---------------------------------------------------------------- refusals

TEST_F(descriptor_limit, a_file_renamed_away_is_not_reopened) {
  plan_.limit = 1;
  const std::string path = dir_.file("a");
  fastout::file a(path, small_buffers());
  a.print("reached\n");
  a.flush();
  fastout::file b(dir_.file("b"), small_buffers());  // a released
  ASSERT_EQ(std::rename(path.c_str(), dir_.file("moved").c_str()), 0);
  a.print("kept in the buffer\n");
  try {
    a.flush();
    FAIL() << "wrote to a path that names no file";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOENT);
    EXPECT_TRUE(is_message(
        e.what(),
        "cannot reopen " + quoted(path) + " to go on writing (8 of 27 bytes reached the file): ",
        ENOENT));
  }
  const fastout::file_stats s = a.stats();
  EXPECT_EQ(s.bytes_accepted, 27u);
  EXPECT_EQ(s.bytes_written, 8u);
  EXPECT_THROW(a.close(), std::system_error);
  b.close();
  EXPECT_EQ(read_file(dir_.file("moved")), "reached\n");
  EXPECT_NE(::access(path.c_str(), F_OK), 0);  // never created again
}

TEST_F(descriptor_limit, a_file_replaced_at_its_path_is_not_written) {
  plan_.limit = 1;
  const std::string path = dir_.file("a");
  fastout::file a(path, small_buffers());
  a.print("reached\n");
  a.flush();
  fastout::file b(dir_.file("b"), small_buffers());  // a released
  ASSERT_EQ(std::rename(path.c_str(), dir_.file("moved").c_str()), 0);
  write_file(path, "another file\n");
  a.print("not for the other file\n");
  try {
    a.close();
    FAIL() << "wrote into another file";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ESTALE);
    EXPECT_EQ(std::string(e.what()),
              "cannot reopen " + quoted(path) +
                  " to go on writing: the path no longer names the file fastout was writing "
                  "(renamed or replaced; 8 of 31 bytes reached the file): Stale file handle");
  }
  b.close();
  EXPECT_EQ(read_file(path), "another file\n");
  EXPECT_EQ(read_file(dir_.file("moved")), "reached\n");
}

TEST_F(descriptor_limit, a_reopen_that_fails_is_reported_with_what_reached_the_file) {
  for (const int error_number : {EACCES, ENOENT}) {
    SCOPED_TRACE(error_number);
    temp_dir dir;
    plan_.limit = 1;
    plan_.fail_reopen = 0;
    const std::string path = dir.file("a");
    fastout::file a(path, small_buffers());
    a.print("12345");
    a.flush();
    fastout::file b(dir.file("b"), small_buffers());  // a released
    plan_.fail_reopen = error_number;
    a.print("678");
    try {
      a.flush();
      FAIL() << "reopened despite the fake";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), error_number);
      EXPECT_TRUE(is_message(
          e.what(),
          "cannot reopen " + quoted(path) + " to go on writing (5 of 8 bytes reached the file): ",
          error_number));
    }
    EXPECT_EQ(a.stats().bytes_written, 5u);
    plan_.fail_reopen = 0;
    EXPECT_THROW(a.close(), std::system_error);
    b.close();
    EXPECT_EQ(read_file(path), "12345");
  }
}

// ----------------------------------------------------- never released

void expect_emfile(const std::string& path) {
  try {
    fastout::file f(path, small_buffers());
    FAIL() << "opened beyond the limit: something was released";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EMFILE);
    EXPECT_EQ(std::string(e.what()),
              "cannot open " + quoted(path) + " for writing: Too many open files");
  }
}

TEST_F(descriptor_limit, a_writer_whose_descriptor_was_given_out_is_never_released) {
  plan_.limit = 1;
  fastout::file a(dir_.file("a"), small_buffers());
  const int fd = a.descriptor();
  expect_emfile(dir_.file("b"));
  EXPECT_EQ(a.descriptor(), fd);
  EXPECT_EQ(plan_.closes, 0);
  a.print("still mine\n");
  a.close();
  EXPECT_EQ(read_file(dir_.file("a")), "still mine\n");
}

TEST_F(descriptor_limit, a_released_writer_asked_for_its_descriptor_reopens_and_keeps_it) {
  plan_.limit = 1;
  fastout::file a(dir_.file("a"), small_buffers());
  a.print("a");
  fastout::file b(dir_.file("b"), small_buffers());  // a released
  b.print("b");
  EXPECT_GE(a.descriptor(), 0);  // reopened: b released
  EXPECT_EQ(plan_.closes, 2);
  expect_emfile(dir_.file("c"));  // a is pinned, b is closed and c had no room
  a.close();
  b.close();
  EXPECT_EQ(read_file(dir_.file("a")), "a");
  EXPECT_EQ(read_file(dir_.file("b")), "b");
}

TEST_F(descriptor_limit, keep_descriptor_open_is_never_released) {
  plan_.limit = 1;
  fastout::file a = fastout::output_file(dir_.file("a"), fastout::keep_descriptor_open = true);
  expect_emfile(dir_.file("b"));
  EXPECT_EQ(plan_.closes, 0);
}

TEST_F(descriptor_limit, the_c_api_releases_by_default_and_keeps_when_asked) {
  plan_.limit = 1;
  fastout_options keep;
  fastout_options_init(&keep);
  EXPECT_EQ(keep.keep_descriptor_open, 0);
  fastout_file* a = fastout_open(dir_.file("a").c_str(), nullptr);
  ASSERT_NE(a, nullptr);
  ASSERT_GE(fastout_fputs("a\n", a), 0);
  keep.keep_descriptor_open = 1;
  fastout_file* b = fastout_open(dir_.file("b").c_str(), &keep);  // a released
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(plan_.closes, 1);
  errno = 0;
  EXPECT_EQ(fastout_open(dir_.file("c").c_str(), nullptr), nullptr);  // b is kept
  EXPECT_EQ(errno, EMFILE);
  EXPECT_EQ(fastout_close(b), 0);
  EXPECT_EQ(fastout_close(a), 0);  // reopened
  EXPECT_EQ(read_file(dir_.file("a")), "a\n");
}

TEST_F(descriptor_limit, durable_writers_are_never_released) {
  fastout::file a = fastout::output_file(dir_.file("a"), fastout::sync = true);
  plan_.limit = open_now();
  expect_emfile(dir_.file("b"));
  a.close();
  EXPECT_EQ(plan_.closes, 1);
  // A replacement's new file (openat(), or O_TMPFILE through openat()).
  plan_.limit = SIZE_MAX;
  fastout::file_options replacing;
  replacing.mode = fastout::open_mode::replace;
  fastout::file r(dir_.file("r"), replacing);
  plan_.limit = open_now();
  expect_emfile(dir_.file("c"));
  EXPECT_EQ(plan_.closes, 1);
  r.print("replaced\n");
  r.close();
  EXPECT_EQ(read_file(dir_.file("r")), "replaced\n");
}

TEST_F(descriptor_limit, borrowed_adopted_and_devices_are_never_released) {
  FASTOUT_SKIP_ON_WINDOWS("/dev/null and POSIX pipes");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  fastout::file borrowed = fastout::file::borrow(pipe_fds[1]);
  fastout::file adopted = fastout::file::adopt(::dup(pipe_fds[1]));
  plan_.limit = 1;
  // Opened by path, but a character device: not a file to reopen where it
  // was left.
  fastout::file device("/dev/null", small_buffers());
  expect_emfile(dir_.file("b"));
  EXPECT_EQ(plan_.all_closes, 0);
  borrowed.print("x");
  borrowed.close();
  adopted.close();
  device.close();
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

// ---------------------------------------------------------------- threads

TEST_F(descriptor_limit, two_threads_each_with_its_own_writers) {
  plan_.limit = 4;
  std::vector<std::vector<std::string>> expected(2);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (std::size_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      try {
        std::vector<fastout::file> outputs;
        for (std::size_t i = 0; i < 10; ++i)
          outputs.emplace_back(dir_.file(std::to_string(t) + "-" + std::to_string(i)),
                               small_buffers());
        expected[t] = write_round_robin(outputs, 60, {});
      } catch (const std::exception& e) {
        ADD_FAILURE() << "thread " << t << ": " << e.what();
        ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  ASSERT_EQ(failures.load(), 0);
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t i = 0; i < expected[t].size(); ++i)
      EXPECT_EQ(read_file(dir_.file(std::to_string(t) + "-" + std::to_string(i))), expected[t][i]);
  EXPECT_EQ(open_now(), 0u);
}

// ------------------------------------------------- for real, with setrlimit

// In a forked child: `outputs` plain outputs under RLIMIT_NOFILE `soft` and
// `hard` (0: as it is), each given `rounds` records in turn with 1 KiB
// buffers, all checked. 0, or the step that failed.
int write_under_limit(const std::string& dir, rlim_t soft, rlim_t hard, std::size_t outputs,
                      std::size_t rounds) {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 10;
  limit.rlim_cur = soft;
  if (hard != 0) limit.rlim_max = hard;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) return 11;
  std::vector<fastout::file> files;
  files.reserve(outputs);
  fastout::file_options options;
  options.buffer_size = 1024;
  try {
    for (std::size_t i = 0; i < outputs; ++i)
      files.emplace_back(dir + "/" + std::to_string(i), options);
    std::vector<std::string> expected(outputs);
    for (std::size_t r = 0; r < rounds; ++r) {
      for (std::size_t i = 0; i < outputs; ++i) {
        const std::string text = record(i, r);
        files[i].write(text.data(), text.size());
      }
    }
    for (auto& f : files) f.close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 12;
  }
  for (std::size_t i = 0; i < outputs; ++i) {
    std::string want;
    for (std::size_t r = 0; r < rounds; ++r) want += record(i, r);
    if (read_file(dir + "/" + std::to_string(i)) != want) {
      std::fprintf(stderr, "output %zu differs\n", i);
      return 13;
    }
  }
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 14;
  std::fprintf(stderr, "soft limit at the end: %llu\n",
               static_cast<unsigned long long>(limit.rlim_cur));
  return 0;
}

TEST(descriptor_limit_real, ten_thousand_outputs_under_a_soft_limit_of_256) {
  FASTOUT_SKIP_ON_WINDOWS("setrlimit(RLIMIT_NOFILE) and fork()");
  struct rlimit limit;
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max <= 256)
    GTEST_SKIP() << "the hard limit of descriptors is " << limit.rlim_max
                 << ": no room above a soft limit of 256 to raise it to";
  temp_dir dir;
  EXPECT_EQ(
      fastout_test::run_in_child([&] { return write_under_limit(dir.path(), 256, 0, 10000, 12); }),
      0);
}

TEST(descriptor_limit_real, ten_thousand_outputs_under_a_hard_limit_of_256) {
  FASTOUT_SKIP_ON_WINDOWS("setrlimit(RLIMIT_NOFILE) and fork()");
  temp_dir dir;
  EXPECT_EQ(fastout_test::run_in_child(
                [&] { return write_under_limit(dir.path(), 256, 256, 10000, 12); }),
            0);
}

}  // namespace
