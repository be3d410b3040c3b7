// SPDX-License-Identifier: MIT
// Tests of fastout::file's behaviour when all goes well: buffering, line
// buffering, flushing, closing, moving and stats. Opening is in
// open_test.cpp, the cursor in cursor_test.cpp; failures are in
// *_faults_test.cpp and real_failures_test.cpp.
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "test_util.h"

namespace {

using fastout::buffering;
using fastout::file;
using fastout_test::contains;
using fastout_test::read_file;
using fastout_test::read_syscw;
using fastout_test::temp_dir;

using fastout_test::with_buffer;

using fastout_test::size_list;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------- buffer sizes

// Drives a writer through a random mix of put(), write() and cursor calls and
// checks the invariants after each one; returns the bytes it wrote.
std::string random_workout(file& f, std::uint32_t seed, bool check_each_call) {
  std::mt19937 rng(seed);
  auto next = [&](std::uint32_t bound) { return static_cast<std::uint32_t>(rng() % bound); };
  auto random_bytes = [&](std::size_t n) {
    std::string s(n, '\0');
    for (char& c : s) {
      std::uint32_t r = next(64);
      c = r == 0 ? '\n' : static_cast<char>('!' + next(90));
    }
    return s;
  };
  const std::size_t capacity = f.buffer_capacity();
  const bool unbuffered = capacity == 0;
  std::string expected;
  for (int op = 0; op < 600; ++op) {
    std::uint64_t calls_before = f.stats().write_calls;
    std::uint32_t kind = next(20);
    std::size_t call_size = 0;
    std::string last_call;
    if (kind < 7) {
      char c = random_bytes(1)[0];
      f.put(c);
      expected += c;
      last_call.assign(1, c);
    } else if (kind < 13) {
      std::string s = random_bytes(next(201));
      f.write(s);
      expected += s;
      last_call = s;
    } else if (kind < 16) {
      std::string s = random_bytes(next(201));
      f.write(s.data(), s.size());
      expected += s;
      last_call = s;
    } else if (kind < 19) {
      fastout::cursor cur = f.make_cursor();
      for (std::uint32_t i = 0, n = next(30); i < n; ++i) {
        if (next(3) == 0) {
          std::string s = random_bytes(next(201));
          cur.write(s);
          expected += s;
        } else {
          char c = random_bytes(1)[0];
          cur.put(c);
          expected += c;
        }
        if (next(50) == 0) cur.flush();
      }
      continue;  // per-call invariants apply to file calls, checked at the next one
    } else {
      f.flush();
      EXPECT_EQ(f.bytes_pending(), 0u);
      EXPECT_EQ(fastout_test::file_size(f.descriptor()), static_cast<long long>(expected.size()));
    }
    call_size = last_call.size();
    fastout::file_stats s = f.stats();
    EXPECT_EQ(s.bytes_accepted, expected.size());
    EXPECT_EQ(s.bytes_written + f.bytes_pending(), s.bytes_accepted);
    EXPECT_LE(f.bytes_pending(), capacity);
    if (!check_each_call) continue;
    long long on_disk = fastout_test::file_size(f.descriptor());
    EXPECT_EQ(on_disk, static_cast<long long>(s.bytes_written));
    if (unbuffered) {
      // Straight to the file: one write call per non-empty call.
      EXPECT_EQ(s.write_calls - calls_before, call_size > 0 ? 1u : 0u) << "op " << op;
      EXPECT_EQ(on_disk, static_cast<long long>(expected.size()));
    }
    if (f.line_buffered()) {
      std::size_t newline = last_call.rfind('\n');
      if (newline != std::string::npos) {
        std::size_t tail = last_call.size() - newline - 1;
        EXPECT_EQ(f.bytes_pending(), tail < capacity ? tail : 0u) << "op " << op;
      }
      // Everything through the last newline is in the file.
      std::size_t last_newline = expected.rfind('\n');
      if (last_newline != std::string::npos) {
        EXPECT_GE(on_disk, static_cast<long long>(last_newline + 1)) << "op " << op;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  return expected;
}

std::vector<std::size_t> buffer_sizes_to_test() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 64; ++n) sizes.push_back(n);
  for (std::size_t n : size_list{100, 127, 128, 129, 200, 201, 1000, 4096, 65536})
    sizes.push_back(n);
  sizes.push_back(fastout::default_buffer_size);
  return sizes;
}

void check_random_workouts(buffering mode) {
  temp_dir dir;
  for (std::size_t size : buffer_sizes_to_test()) {
    SCOPED_TRACE("buffer size " + std::to_string(size));
    std::string path = dir.file("random" + std::to_string(size));
    file f(path, with_buffer(size, mode));
    ASSERT_EQ(f.buffer_capacity(), size);
    ASSERT_EQ(f.line_buffered(), mode == buffering::line);
    std::string expected = random_workout(f, static_cast<std::uint32_t>(size * 7919 + 1), true);
    f.close();
    std::string actual = read_file(path);
    ASSERT_EQ(actual.size(), expected.size());
    ASSERT_TRUE(actual == expected) << "content differs";
  }
}

TEST(buffering, random_calls_fully_buffered_through_every_buffer_size) {
  check_random_workouts(buffering::full);
}
TEST(buffering, random_calls_line_buffered_through_every_buffer_size) {
  check_random_workouts(buffering::line);
}

TEST(buffering, unbuffered_goes_straight_to_the_file) {
  temp_dir dir;
  file f(dir.file("u"), with_buffer(0));
  EXPECT_EQ(f.buffer_capacity(), 0u);
  f.put('a');
  EXPECT_EQ(f.stats().write_calls, 1u);
  EXPECT_EQ(read_file(dir.file("u")), "a");
  f.write("bcd");
  EXPECT_EQ(f.stats().write_calls, 2u);
  EXPECT_EQ(read_file(dir.file("u")), "abcd");
  f.write("", 0);
  EXPECT_EQ(f.stats().write_calls, 2u);
  {
    fastout::cursor c = f.make_cursor();
    c.put('e');
    c.write("fg");
  }
  EXPECT_EQ(f.stats().write_calls, 4u);
  EXPECT_EQ(read_file(dir.file("u")), "abcdefg");
  f.flush();
  f.close();
  EXPECT_EQ(f.stats().write_calls, 4u);
  EXPECT_EQ(f.stats().flushes, 0u);
}

TEST(buffering, empty_writes_are_harmless) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 1, 5}) {
    file f(dir.file("e"), with_buffer(size));
    f.write(std::string_view());
    f.write(nullptr, 0);
    f.write("");
    std::string empty;
    f.write(empty);
    {
      fastout::cursor c = f.make_cursor();
      c.write(std::string_view());
      c.write(nullptr, 0);
    }
    EXPECT_EQ(f.stats().bytes_accepted, 0u);
    f.close();
    EXPECT_EQ(f.stats().write_calls, 0u);
    EXPECT_EQ(read_file(dir.file("e")), "");
  }
}

// ---------------------------------------------------------------- write-call counts

TEST(write_calls, put_makes_ceil_n_over_b_calls) {
  temp_dir dir;
  for (std::size_t size = 1; size <= 70; ++size) {
    for (std::size_t n : size_list{std::size_t{0}, std::size_t{1}, size - 1, size, size + 1,
                                   3 * size, std::size_t{1000}, std::size_t{4099}}) {
      SCOPED_TRACE("buffer " + std::to_string(size) + ", bytes " + std::to_string(n));
      file f(dir.file("put"), with_buffer(size));
      for (std::size_t i = 0; i < n; ++i) f.put(static_cast<char>('a' + i % 26));
      f.close();
      EXPECT_EQ(f.stats().write_calls, ceil_div(n, size));
      EXPECT_EQ(f.stats().flushes, ceil_div(n, size));
      EXPECT_EQ(f.stats().bytes_written, n);
      ASSERT_EQ(read_file(dir.file("put")).size(), n);
    }
  }
}

TEST(write_calls, small_writes_make_ceil_n_over_b_calls) {
  temp_dir dir;
  std::mt19937 rng(42);
  // Buffer 1 is left out: no non-empty write is smaller than it.
  for (std::size_t size : size_list{2, 3, 7, 16, 63, 64, 100, 4096}) {
    for (std::size_t n : size_list{10, 999, 100000}) {
      SCOPED_TRACE("buffer " + std::to_string(size) + ", bytes " + std::to_string(n));
      std::string expected;
      file f(dir.file("small"), with_buffer(size));
      std::size_t largest_small = size - 1;
      while (expected.size() < n) {
        std::size_t piece = std::min<std::size_t>(1 + rng() % largest_small, n - expected.size());
        std::string s(piece, static_cast<char>('a' + expected.size() % 26));
        f.write(s);
        expected += s;
      }
      f.close();
      EXPECT_EQ(f.stats().write_calls, ceil_div(n, size));
      ASSERT_EQ(read_file(dir.file("small")), expected);
    }
  }
}

TEST(write_calls, the_kernel_counts_the_same_write_calls) {
  FASTOUT_SKIP_ON_WINDOWS("needs /proc, which Windows has not");
  temp_dir dir;
  std::string big(3 * 4096, 'y');
  {
    // The process's count has every write(), the sanitizers' too: UBSan's
    // first check of a virtual call on a new dynamic type (the writer's
    // stages) tests the vtable's memory with a write() to a pipe. A writer
    // that goes the same way first has those checks made before counting.
    file warm_up(dir.file("warm_up"), with_buffer(4096));
    warm_up.write(big);
    warm_up.put('x');
    warm_up.close();
  }
  file f(dir.file("syscw"), with_buffer(4096));
  std::uint64_t before = 0;
  if (!read_syscw(before)) GTEST_SKIP() << "/proc/self/io is not readable here";
  const std::size_t n = 1000003;
  for (std::size_t i = 0; i < n; ++i) f.put('x');
  f.write(big);  // with what is buffered, in one writev
  f.close();
  std::uint64_t after = 0;
  ASSERT_TRUE(read_syscw(after));
  EXPECT_EQ(f.stats().write_calls, n / 4096 + 1);  // full buffers, then one writev
  EXPECT_EQ(after - before, f.stats().write_calls);
}

// Records every write()/writev() the writer makes, then does it for real.
struct recorded_call {
  bool vectored;
  std::vector<iovec> iov;
};
std::vector<recorded_call> recorded_calls;

ssize_t recording_write(int fd, const void* data, size_t size) {
  recorded_calls.push_back({false, {iovec{const_cast<void*>(data), size}}});
  return fastout::detail::real_platform.write(fd, data, size);
}
ssize_t recording_writev(int fd, const iovec* iov, int count) {
  recorded_calls.push_back({true, std::vector<iovec>(iov, iov + count)});
  return fastout::detail::real_platform.writev(fd, iov, count);
}

class large_writes : public ::testing::Test {
 protected:
  void SetUp() override {
    recorded_calls.clear();
    fastout::detail::platform.write = recording_write;
    fastout::detail::platform.writev = recording_writev;
  }
  fastout_test::scoped_platform restore_;
  temp_dir dir_;
};

TEST_F(large_writes, go_out_in_one_writev_with_the_buffer_and_without_a_copy) {
  file f(dir_.file("big"), with_buffer(16));
  f.write("hello");
  EXPECT_TRUE(recorded_calls.empty());
  std::string big(100, 'x');
  f.write(big);
  ASSERT_EQ(recorded_calls.size(), 1u);
  const recorded_call& call = recorded_calls[0];
  EXPECT_TRUE(call.vectored);
  ASSERT_EQ(call.iov.size(), 2u);
  EXPECT_EQ(call.iov[0].iov_len, 5u);
  EXPECT_EQ(std::string_view(static_cast<const char*>(call.iov[0].iov_base), 5), "hello");
  EXPECT_EQ(call.iov[1].iov_base, static_cast<const void*>(big.data()));  // no copy
  EXPECT_EQ(call.iov[1].iov_len, 100u);
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.stats().write_calls, 1u);
  EXPECT_EQ(f.stats().flushes, 1u);
  f.close();
  EXPECT_EQ(recorded_calls.size(), 1u);
  EXPECT_EQ(read_file(dir_.file("big")), "hello" + big);
}

TEST_F(large_writes, exactly_the_buffer_size_goes_out_uncopied) {
  file f(dir_.file("exact"), with_buffer(16));
  f.write("abc");
  std::string sixteen(16, 's');
  f.write(sixteen.data(), sixteen.size());
  ASSERT_EQ(recorded_calls.size(), 1u);
  ASSERT_EQ(recorded_calls[0].iov.size(), 2u);
  EXPECT_EQ(recorded_calls[0].iov[0].iov_len, 3u);
  EXPECT_EQ(recorded_calls[0].iov[1].iov_base, static_cast<const void*>(sixteen.data()));
  EXPECT_EQ(recorded_calls[0].iov[1].iov_len, 16u);
  f.close();
  EXPECT_EQ(read_file(dir_.file("exact")), "abc" + sixteen);
}

TEST_F(large_writes, an_empty_buffer_means_one_plain_write_of_the_callers_data) {
  file f(dir_.file("plain"), with_buffer(16));
  std::string big(1000, 'b');
  f.write(big);
  ASSERT_EQ(recorded_calls.size(), 1u);
  ASSERT_EQ(recorded_calls[0].iov.size(), 1u);
  EXPECT_EQ(recorded_calls[0].iov[0].iov_base, static_cast<const void*>(big.data()));
  EXPECT_EQ(recorded_calls[0].iov[0].iov_len, 1000u);
  EXPECT_EQ(f.stats().flushes, 0u);
  f.close();
  EXPECT_EQ(recorded_calls.size(), 1u);
}

TEST_F(large_writes, smaller_than_the_buffer_is_copied) {
  file f(dir_.file("copied"), with_buffer(16));
  f.write("abc");
  std::string fifteen(15, 'f');
  f.write(fifteen);  // does not fit, smaller than the buffer: fill, send, keep
  ASSERT_EQ(recorded_calls.size(), 1u);
  std::size_t sent = 0;
  for (const iovec& v : recorded_calls[0].iov) {
    sent += v.iov_len;
    const char* base = static_cast<const char*>(v.iov_base);
    if (v.iov_len > 0) {
      EXPECT_FALSE(base >= fifteen.data() && base < fifteen.data() + fifteen.size());
    }
  }
  EXPECT_EQ(sent, 16u);  // one full buffer
  EXPECT_EQ(f.bytes_pending(), 2u);
  f.close();
  EXPECT_EQ(read_file(dir_.file("copied")), "abc" + fifteen);
}

TEST_F(large_writes, a_large_line_when_line_buffered_goes_out_with_the_buffer_in_one_writev) {
  file f(dir_.file("line"), with_buffer(16, buffering::line));
  f.write("ab");
  EXPECT_TRUE(recorded_calls.empty());
  std::string line(40, 'l');
  line += '\n';
  line += "tail";
  f.write(line);
  ASSERT_EQ(recorded_calls.size(), 1u);
  ASSERT_EQ(recorded_calls[0].iov.size(), 2u);
  EXPECT_EQ(recorded_calls[0].iov[0].iov_len, 2u);
  EXPECT_EQ(recorded_calls[0].iov[1].iov_base, static_cast<const void*>(line.data()));
  EXPECT_EQ(recorded_calls[0].iov[1].iov_len, 41u);
  EXPECT_EQ(f.bytes_pending(), 4u);
  f.close();
  EXPECT_EQ(read_file(dir_.file("line")), "ab" + line);
}

// ---------------------------------------------------------------- line buffering

TEST(line_buffering, flushes_through_the_last_newline_of_each_call) {
  temp_dir dir;
  std::string path = dir.file("lines");
  file f(path, with_buffer(64, buffering::line));
  EXPECT_TRUE(f.line_buffered());
  f.write("ab\ncd");
  EXPECT_EQ(read_file(path), "ab\n");
  EXPECT_EQ(f.bytes_pending(), 2u);
  f.put('x');
  EXPECT_EQ(read_file(path), "ab\n");
  EXPECT_EQ(f.bytes_pending(), 3u);
  f.put('\n');
  EXPECT_EQ(read_file(path), "ab\ncdx\n");
  EXPECT_EQ(f.bytes_pending(), 0u);
  f.write("1\n2\n3");
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n");
  EXPECT_EQ(f.bytes_pending(), 1u);
  f.write("no newline here");
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n");
  EXPECT_EQ(f.bytes_pending(), 16u);
  {
    fastout::cursor c = f.make_cursor();
    c.put('!');
    c.put('\n');
  }
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n3no newline here!\n");
  EXPECT_EQ(f.bytes_pending(), 0u);
  f.write("partial");
  f.close();
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n3no newline here!\npartial");
}

TEST(line_buffering, a_long_partial_line_still_goes_out_when_the_buffer_fills) {
  temp_dir dir;
  std::string path = dir.file("long");
  file f(path, with_buffer(8, buffering::line));
  for (char c : std::string("0123456789")) f.put(c);
  EXPECT_EQ(read_file(path), "01234567");
  EXPECT_EQ(f.bytes_pending(), 2u);
  f.close();
  EXPECT_EQ(read_file(path), "0123456789");
}

TEST(line_buffering, full_buffering_keeps_lines) {
  temp_dir dir;
  std::string path = dir.file("full");
  file f(path, with_buffer(64, buffering::full));
  EXPECT_FALSE(f.line_buffered());
  f.write("ab\ncd\n");
  f.put('\n');
  EXPECT_EQ(read_file(path), "");
  EXPECT_EQ(f.bytes_pending(), 7u);
}

TEST(line_buffering, automatic_on_a_terminal_is_line_buffered) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) GTEST_SKIP() << "no pseudo-terminals here: " << std::strerror(errno);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const char* slave_name = ::ptsname(master);
  ASSERT_NE(slave_name, nullptr);
  int slave = ::open(slave_name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  ASSERT_GE(slave, 0) << std::strerror(errno);
  {
    file f = file::borrow(slave, {}, "tty");
    EXPECT_TRUE(f.line_buffered());
    f.write("hi\nthere");
    EXPECT_EQ(f.bytes_pending(), 5u);
    EXPECT_EQ(f.stats().write_calls, 1u);
    // The line is on the terminal already: read it from the master side
    // (the terminal turns "\n" into "\r\n").
    char got[16] = {};
    ssize_t n = ::read(master, got, sizeof got);
    EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0u), "hi\r\n");
    f.close();
    EXPECT_EQ(::read(master, got, sizeof got), 5);  // "there", sent by close()

    file full = file::borrow(slave, with_buffer(64, buffering::full));
    EXPECT_FALSE(full.line_buffered());
    full.close();

    // An unbuffered writer on a terminal, as stderr_file() is: each call goes
    // out whole in one write(), not split at its last newline.
    file unbuffered = file::borrow(slave, with_buffer(0, buffering::automatic), "tty");
    EXPECT_TRUE(unbuffered.line_buffered());
    unbuffered.write("x\ny");
    EXPECT_EQ(unbuffered.stats().write_calls, 1u);
    n = ::read(master, got, sizeof got);
    EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0u), "x\r\ny");
  }
  ::close(slave);
  ::close(master);
}

TEST(line_buffering, automatic_on_a_pipe_file_or_device_is_fully_buffered) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  {
    file f = file::borrow(fds[1]);
    EXPECT_FALSE(f.line_buffered());
    f.write("a\n");
    EXPECT_EQ(f.bytes_pending(), 2u);
  }
  char got[4] = {};
  EXPECT_EQ(::read(fds[0], got, sizeof got), 2);
  ::close(fds[0]);
  ::close(fds[1]);

  temp_dir dir;
  file regular(dir.file("regular"));
  EXPECT_FALSE(regular.line_buffered());
  regular.write("a\n");
  EXPECT_EQ(regular.bytes_pending(), 2u);

  file null_device("/dev/null");  // a character device, but not a terminal
  EXPECT_FALSE(null_device.line_buffered());
}

TEST(line_buffering, line_mode_on_a_regular_file_flushes_lines) {
  temp_dir dir;
  file f = fastout::output_file(dir.file("x"), buffering::line);
  EXPECT_TRUE(f.line_buffered());
}

// ---------------------------------------------------------------- flush, close, move

TEST(lifetime, flush_sends_the_buffer) {
  temp_dir dir;
  std::string path = dir.file("f");
  file f(path, with_buffer(64));
  f.write("abc");
  EXPECT_EQ(read_file(path), "");
  f.flush();
  EXPECT_EQ(read_file(path), "abc");
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.stats().flushes, 1u);
  EXPECT_EQ(f.stats().write_calls, 1u);
  f.flush();  // nothing to send: no system call
  EXPECT_EQ(f.stats().flushes, 1u);
  EXPECT_EQ(f.stats().write_calls, 1u);
  f.put('d');
  f.flush();
  EXPECT_EQ(read_file(path), "abcd");
}

TEST(lifetime, close_is_idempotent) {
  temp_dir dir;
  file f(dir.file("c"), with_buffer(64));
  f.write("abc");
  f.close();
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(f.descriptor(), -1);
  EXPECT_NO_THROW(f.close());
  EXPECT_NO_THROW(f.close());
  EXPECT_EQ(read_file(dir.file("c")), "abc");
  EXPECT_EQ(f.stats().write_calls, 1u);
  EXPECT_EQ(f.stats().bytes_written, 3u);
}

void expect_closed_error(const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << "no error from a closed writer";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(EBADF)) << e.what();
  }
}

TEST(lifetime, using_a_closed_writer_throws_ebadf) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 1, 64}) {
    file f(dir.file("closed"), with_buffer(size));
    f.close();
    expect_closed_error([&] { f.put('x'); });
    expect_closed_error([&] { f.write("abc"); });
    expect_closed_error([&] { f.write(std::string_view()); });  // even an empty one
    expect_closed_error([&] { f.write(std::string(1000, 'z')); });
    EXPECT_NO_THROW(f.flush());  // nothing is pending on a closed writer: as fmt::ostream
    expect_closed_error([&] {
      fastout::cursor c = f.make_cursor();
      c.put('x');
    });
    EXPECT_EQ(read_file(dir.file("closed")), "");
    file never_opened;
    EXPECT_FALSE(never_opened.is_open());
    expect_closed_error([&] { never_opened.put('x'); });
    expect_closed_error([&] { never_opened.write("x"); });
    expect_closed_error([&] { never_opened.write(nullptr, 0); });
    EXPECT_NO_THROW(never_opened.flush());
    EXPECT_NO_THROW(never_opened.close());
  }
}

// What a call on a writer that has no file says: why it has none, in words
// a user reads once, never `cannot write to ""`.
std::string closed_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(EBADF)) << e.what();
    EXPECT_FALSE(contains(e.what(), "\"\"")) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error from a closed writer";
  return {};
}

TEST(closed_writer, message_says_the_writer_was_moved_from) {
  temp_dir dir;
  const std::string moved_from =
      "cannot write through a fastout::file that was moved from: it is closed, and its file "
      "belongs to the writer it was moved to: Bad file descriptor";
  file a(dir.file("a"), with_buffer(64));
  file b(std::move(a));
  EXPECT_EQ(closed_message([&] { a.put('x'); }), moved_from);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(closed_message([&] { a.write("text"); }), moved_from);
  EXPECT_EQ(closed_message([&] { a.print("{}", 1); }), moved_from);
  EXPECT_EQ(closed_message([&] { a << 2.5; }), moved_from);
  file c;
  c = std::move(b);  // by assignment too
  EXPECT_EQ(closed_message([&] { b.write("text"); }),
            moved_from);  // NOLINT(bugprone-use-after-move)
  // Given a writer again, it is that writer.
  b = fastout::output_file(dir.file("b"));
  EXPECT_NO_THROW(b.write("b"));
  b.close();
  EXPECT_EQ(closed_message([&] { b.write("text"); }),
            "cannot write to \"" + dir.file("b") + "\": the writer is closed: Bad file descriptor");
  c.close();
}

TEST(closed_writer, message_says_the_writer_was_never_opened) {
  file never;
  EXPECT_EQ(closed_message([&] { never.write("text"); }),
            "cannot write through a fastout::file that was never opened: a default-constructed "
            "writer is closed: Bad file descriptor");
}

TEST(lifetime, the_destructor_flushes) {
  temp_dir dir;
  {
    file f(dir.file("d"), with_buffer(1024));
    f.write("written by the destructor");
    EXPECT_EQ(read_file(dir.file("d")), "");
  }
  EXPECT_EQ(read_file(dir.file("d")), "written by the destructor");
}

TEST(lifetime, move_construction_takes_the_writer) {
  temp_dir dir;
  file a(dir.file("m"), with_buffer(64));
  a.write("before ");
  int fd = a.descriptor();
  file b(std::move(a));
  EXPECT_FALSE(a.is_open());  // NOLINT(bugprone-use-after-move): it is the point
  EXPECT_EQ(a.bytes_pending(), 0u);
  expect_closed_error([&] { a.put('x'); });
  EXPECT_NO_THROW(a.close());
  EXPECT_TRUE(b.is_open());
  EXPECT_EQ(b.descriptor(), fd);
  EXPECT_EQ(b.path(), dir.file("m"));
  EXPECT_EQ(b.bytes_pending(), 7u);
  b.write("after");
  b.close();
  EXPECT_EQ(read_file(dir.file("m")), "before after");
  EXPECT_EQ(b.stats().bytes_accepted, 12u);
}

TEST(lifetime, move_assignment_flushes_and_closes_the_target) {
  temp_dir dir;
  file a(dir.file("a"), with_buffer(64));
  a.write("aaa");
  int a_fd = a.descriptor();
  file b(dir.file("b"), with_buffer(64));
  b.write("bbb");
  a = std::move(b);
  EXPECT_FALSE(fastout_test::fd_is_open(a_fd));  // closed by the assignment
  EXPECT_EQ(read_file(dir.file("a")), "aaa");    // after flushing
  EXPECT_NE(a.descriptor(), a_fd);
  EXPECT_EQ(a.path(), dir.file("b"));
  EXPECT_EQ(a.bytes_pending(), 3u);
  EXPECT_FALSE(b.is_open());  // NOLINT(bugprone-use-after-move)
  expect_closed_error([&] { b.write("x"); });
  a.write("!");
  a.close();
  EXPECT_EQ(read_file(dir.file("b")), "bbb!");
  // A moved-from writer can be assigned to again.
  b = file(dir.file("c"), with_buffer(2));
  b.write("ccc");
  b.close();
  EXPECT_EQ(read_file(dir.file("c")), "ccc");
}

TEST(lifetime, self_move_assignment_keeps_the_writer) {
  temp_dir dir;
  file a(dir.file("self"), with_buffer(64));
  a.write("x");
  file& alias = a;
  a = std::move(alias);
  EXPECT_TRUE(a.is_open());
  a.write("y");
  a.close();
  EXPECT_EQ(read_file(dir.file("self")), "xy");
}

TEST(lifetime, a_moved_unbuffered_writer_stays_unbuffered) {
  temp_dir dir;
  file a(dir.file("u"), with_buffer(0));
  a.put('1');
  file b = std::move(a);
  b.put('2');
  EXPECT_EQ(read_file(dir.file("u")), "12");
}

// A moved-from writer reads as a closed one: no error, zero counters, so
// that summing stats() over writers counts nothing twice.
void expect_reads_as_closed(const file& f) {
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(f.descriptor(), -1);
  EXPECT_FALSE(f.error());
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.buffer_capacity(), 0u);
  fastout::file_stats s = f.stats();
  EXPECT_EQ(s.bytes_accepted, 0u);
  EXPECT_EQ(s.bytes_written, 0u);
  EXPECT_EQ(s.write_calls, 0u);
  EXPECT_EQ(s.flushes, 0u);
}

TEST(lifetime, a_moved_from_writer_has_zero_counters_and_no_error) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  temp_dir dir;
  file a(dir.file("counted"), with_buffer(4));
  a.write("0123456789");  // flushes, counts
  file b(std::move(a));
  expect_reads_as_closed(a);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.stats().bytes_accepted, 10u);
  EXPECT_GT(b.stats().write_calls, 0u);
  file c(dir.file("other"), with_buffer(4));
  c.write("xy");
  c = std::move(b);
  expect_reads_as_closed(b);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.stats().bytes_accepted, 10u);
  EXPECT_EQ(read_file(dir.file("other")), "xy");  // the old c was flushed and closed
  // A failed writer: its error goes with the move too.
  file failed("/dev/full", with_buffer(4));
  EXPECT_THROW(failed.write("0123456789"), std::system_error);
  file d(std::move(failed));
  expect_reads_as_closed(failed);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(d.error(), fastout_test::system_error_code(ENOSPC));
  EXPECT_THROW(d.close(), std::system_error);
}

TEST(lifetime, swap_exchanges_everything) {
  temp_dir dir;
  file a(dir.file("a"), with_buffer(64));
  file b(dir.file("b"), with_buffer(8));
  a.write("aaa");
  b.write("b");
  swap(a, b);
  EXPECT_EQ(a.path(), dir.file("b"));
  EXPECT_EQ(a.buffer_capacity(), 8u);
  EXPECT_EQ(a.bytes_pending(), 1u);
  EXPECT_EQ(b.stats().bytes_accepted, 3u);
  a.write("!");
  b.write("?");
  a.close();
  b.close();
  EXPECT_EQ(read_file(dir.file("a")), "aaa?");
  EXPECT_EQ(read_file(dir.file("b")), "b!");
}

// ---------------------------------------------------------------- stats

TEST(stats, count_every_byte_call_and_flush) {
  temp_dir dir;
  file f(dir.file("s"), with_buffer(8));
  auto expect = [&](std::uint64_t accepted, std::uint64_t written, std::uint64_t calls,
                    std::uint64_t flushes) {
    fastout::file_stats s = f.stats();
    EXPECT_EQ(s.bytes_accepted, accepted);
    EXPECT_EQ(s.bytes_written, written);
    EXPECT_EQ(s.write_calls, calls);
    EXPECT_EQ(s.flushes, flushes);
  };
  expect(0, 0, 0, 0);
  f.write("12345");
  expect(5, 0, 0, 0);
  f.write("67890");  // fills the buffer, sends 8, keeps 2
  expect(10, 8, 1, 1);
  f.flush();
  expect(10, 10, 2, 2);
  f.write(std::string(20, 'z'));  // bypasses the empty buffer: not a flush
  expect(30, 30, 3, 2);
  f.put('x');
  {
    fastout::cursor c = f.make_cursor();
    c.put('y');
  }
  expect(32, 30, 3, 2);
  f.close();
  expect(32, 32, 4, 3);
}

}  // namespace
