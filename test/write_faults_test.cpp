// SPDX-License-Identifier: MIT
// Writes that fail, through the fake system calls: EINTR and short writes
// are continued, EAGAIN waits in poll(), and any other error is reported
// at the call that met it, sticks, and leaves exact counts; the cursor's
// slow path and the accounting of what reached the file.
#include <fastout/c_api.h>
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault_util.h"
#include "test_util.h"

namespace {

using namespace fastout_faults;  // NOLINT(google-build-using-namespace): the shared fakes,
                                 // and the names every fault test uses (fault_util.h)

using write_faults = faked_platform;
using cursor_faults = faked_platform;

// ---------------------------------------------------------------- EINTR and short writes

TEST_F(write_faults, eintr_is_retried) {
  std::string data = pattern(20000);
  for (std::size_t size : size_list{0, 1, 16, 64, 1000}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    plan = fake_plan();
    plan.eintr_every = 2;  // every other call is interrupted before it writes
    file f(path("eintr"), with_buffer(size));
    write_mixed(f, data, 1);
    f.close();
    EXPECT_GT(plan.eintrs, 0);
    EXPECT_EQ(f.stats().write_calls, static_cast<std::uint64_t>(plan.calls));
    EXPECT_EQ(f.stats().bytes_written, data.size());
    ASSERT_EQ(read_file(path("eintr")), data);
  }
}

// A flush costs what stdio's costs: one write() of the pending bytes, not a
// writev() with an empty second segment (seqtk's flush per record paid
// about 100 ns more per flush for it). Text larger than the buffer still
// goes out with what is buffered in one writev().
TEST_F(write_faults, a_flush_is_one_plain_write) {
  plan = fake_plan();
  plan.record_steps = true;
  file f(path("flush"), with_buffer(64));
  f.write("record 1\n", 9);
  f.flush();
  f.write("record 2\n", 9);
  f.flush();
  f.flush();  // nothing pending: no call at all
  EXPECT_EQ(plan.step_names, (std::vector<std::string>{"open", "write", "write"}));
  plan.step_names.clear();
  f.write("x", 1);
  std::string large = pattern(100);
  f.write(large.data(), large.size());  // larger than the buffer: with it, in one call
  f.close();
  EXPECT_EQ(plan.step_names, (std::vector<std::string>{"writev", "close"}));
  EXPECT_EQ(read_file(path("flush")), "record 1\nrecord 2\nx" + large);
}

TEST_F(write_faults, one_byte_writes_are_continued) {
  std::string data = pattern(5000);
  for (std::size_t size : size_list{0, 1, 7, 64, 4096}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    plan = fake_plan();
    plan.max_chunk = 1;
    file f(path("short"), with_buffer(size));
    write_mixed(f, data, 2);
    f.write(std::string(3 * size + 10, 'L'));  // a large write after buffered data
    f.close();
    std::size_t total = data.size() + 3 * size + 10;
    EXPECT_EQ(f.stats().write_calls, total);  // one byte per call, nothing skipped
    EXPECT_EQ(f.stats().bytes_written, total);
    ASSERT_EQ(read_file(path("short")), data + std::string(3 * size + 10, 'L'));
  }
}

TEST_F(write_faults, short_writes_across_the_buffer_and_the_callers_data_lose_nothing) {
  std::string data = pattern(30000);
  for (std::size_t chunk : size_list{2, 3, 5, 17, 100, 4095}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    plan = fake_plan();
    plan.max_chunk = chunk;
    plan.eintr_every = 3;
    file f(path("short"), with_buffer(64));
    write_mixed(f, data, static_cast<std::uint32_t>(chunk));
    f.close();
    EXPECT_EQ(f.stats().bytes_written, data.size());
    ASSERT_EQ(read_file(path("short")), data);
  }
}

// ---------------------------------------------------------------- the cap on a call

namespace past_the_cap {
// The sizes of each call's segments. The data is never read: it is address
// space that nothing may touch.
std::vector<std::vector<std::size_t>> calls;
ssize_t write(int, const void*, size_t size) {
  calls.push_back({size});
  return static_cast<ssize_t>(size);
}
ssize_t writev(int, const struct iovec* iov, int count) {
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (int i = 0; i < count; ++i) {
    sizes.push_back(iov[i].iov_len);
    total += iov[i].iov_len;
  }
  calls.push_back(sizes);
  return static_cast<ssize_t>(total);
}
}  // namespace past_the_cap

// One write larger than a system call may take (max_write_size: 0x7ffff000
// bytes on Linux) after a few buffered bytes: the first call carries the
// buffered bytes and the large piece's first part, up to the cap, as the
// kernel would cut one writev() of both itself, and the second the rest --
// two calls for 2,148,536,324 bytes, not three (the buffered bytes alone,
// then the piece in two). The piece is address space reserved with
// PROT_NONE, which nothing reads: the fakes count sizes, and nothing
// allocates 2 GiB.
TEST_F(write_faults, a_write_past_the_cap_fills_the_first_call_up_to_the_cap) {
  FASTOUT_SKIP_ON_WINDOWS(
      "reserves address space with mmap(); platform_write_cap.* runs the same loop there");
  const std::size_t cap = fastout::detail::max_write_size;
  const std::size_t buffered = 4;
  for (std::size_t beyond : size_list{1, 1056772, cap - buffered}) {
    SCOPED_TRACE("beyond the cap by " + std::to_string(beyond));
    const std::size_t size = cap - buffered + beyond;  // with the buffered bytes: cap + beyond
    void* space = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (space == MAP_FAILED)
      GTEST_SKIP() << "cannot reserve " << size
                   << " bytes of address space: " << std::strerror(errno);
    fastout::detail::platform.write = past_the_cap::write;
    fastout::detail::platform.writev = past_the_cap::writev;
    past_the_cap::calls.clear();
    file f(path("large"), with_buffer(64));
    f.write("abcd", buffered);
    f.write(static_cast<const char*>(space), size);
    f.close();
    ::munmap(space, size);
    using sizes = std::vector<std::size_t>;
    const std::vector<sizes> expected = {sizes{buffered, cap - buffered}, sizes{beyond}};
    EXPECT_EQ(past_the_cap::calls, expected);
    EXPECT_EQ(f.stats().write_calls, 2u);
    EXPECT_EQ(f.stats().bytes_written, cap + beyond);
  }
}

// What fits under the cap with the buffered bytes is still one writev(),
// and a flush still one write().
TEST_F(write_faults, a_write_up_to_the_cap_is_one_call_with_the_buffered_bytes) {
  FASTOUT_SKIP_ON_WINDOWS(
      "reserves address space with mmap(); platform_write_cap.* runs the same loop there");
  const std::size_t cap = fastout::detail::max_write_size;
  const std::size_t size = cap - 4;
  void* space = ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (space == MAP_FAILED)
    GTEST_SKIP() << "cannot reserve " << size
                 << " bytes of address space: " << std::strerror(errno);
  fastout::detail::platform.write = past_the_cap::write;
  fastout::detail::platform.writev = past_the_cap::writev;
  past_the_cap::calls.clear();
  file f(path("large"), with_buffer(64));
  f.write("abcd", 4);
  f.write(static_cast<const char*>(space), size);
  f.write("efgh", 4);
  f.flush();
  ::munmap(space, size);
  using sizes = std::vector<std::size_t>;
  const std::vector<sizes> expected = {sizes{4, cap - 4}, sizes{4}};
  EXPECT_EQ(past_the_cap::calls, expected);
  f.close();
}

// ---------------------------------------------------------------- errors mid-stream

const int stream_errors[] = {EIO, ENOSPC, EFBIG, EPIPE, EBADF};

TEST_F(write_faults, an_error_at_put_is_reported_there_and_sticks) {
  for (int error_number : stream_errors) {
    SCOPED_TRACE(std::strerror(error_number));
    plan = fake_plan();
    plan.budget = 100;
    plan.error = error_number;
    std::string p = path("put");
    std::string data = pattern(1000);
    file f(p, with_buffer(16));
    std::size_t failed_at = data.size();
    for (std::size_t i = 0; i < data.size(); ++i) {
      try {
        f.put(data[i]);
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), system_error_code(error_number));
        EXPECT_TRUE(contains(e.what(), p)) << e.what();
        failed_at = i;
        break;
      }
    }
    // Six full buffers reach the file, the seventh gets 4 bytes in before the
    // error: it is met by the put() that finds the buffer full.
    EXPECT_EQ(failed_at, 112u);
    EXPECT_EQ(f.stats().bytes_written, 100u);
    EXPECT_EQ(f.stats().bytes_accepted, 113u);  // including the put() that threw
    EXPECT_EQ(f.bytes_pending(), 0u);
    expect_sticky(f, error_number, p);
    EXPECT_EQ(read_file(p), data.substr(0, 100));
  }
}

TEST_F(write_faults, an_error_at_a_small_write_is_reported_there_and_sticks) {
  plan.budget = 10;
  plan.error = ENOSPC;
  std::string p = path("small");
  file f(p, with_buffer(16));
  f.write("0123456789");
  expect_failure([&] { f.write("abcdefghij"); }, ENOSPC, p, "the write that fills the buffer");
  EXPECT_EQ(f.stats().bytes_written, 10u);
  EXPECT_EQ(f.stats().bytes_accepted, 20u);  // including the write() that threw
  expect_failure([&] { f.write("abcdefghij"); }, ENOSPC, p, "the next write");
  EXPECT_EQ(f.stats().bytes_accepted, 20u);  // refused: not accepted
  expect_sticky(f, ENOSPC, p);
  EXPECT_EQ(read_file(p), "0123456789");
}

TEST_F(write_faults, an_error_at_a_large_write_is_reported_there_and_sticks) {
  plan.budget = 10;
  plan.error = EIO;
  std::string p = path("large");
  file f(p, with_buffer(16));
  f.write("hello");
  std::string big = pattern(100);
  expect_failure([&] { f.write(big); }, EIO, p, "large write");
  EXPECT_EQ(f.stats().bytes_written, 10u);
  EXPECT_EQ(f.stats().bytes_accepted, 105u);
  expect_sticky(f, EIO, p);
  EXPECT_EQ(read_file(p), "hello" + big.substr(0, 5));
}

TEST_F(write_faults, an_error_at_a_line_buffered_write_counts_the_whole_call) {
  plan.budget = 4;
  plan.error = EIO;
  std::string p = path("line");
  file f(p, with_buffer(64, buffering::line));
  f.write("ab");
  expect_failure([&] { f.write("cd\nef"); }, EIO, p, "line write");
  EXPECT_EQ(f.stats().bytes_written, 4u);
  EXPECT_EQ(f.stats().bytes_accepted, 7u);
  expect_sticky(f, EIO, p);
  EXPECT_EQ(read_file(p), "abcd");
}

TEST_F(write_faults, an_error_at_an_unbuffered_put_is_reported_there_and_sticks) {
  plan.budget = 3;
  plan.error = EIO;
  std::string p = path("unbuffered");
  file f(p, with_buffer(0));
  f.put('a');
  f.write("bc");
  expect_failure([&] { f.put('d'); }, EIO, p, "put");
  EXPECT_EQ(f.stats().bytes_written, 3u);
  EXPECT_EQ(f.stats().bytes_accepted, 4u);
  expect_sticky(f, EIO, p);
}

TEST_F(write_faults, an_error_at_flush_is_reported_there_and_sticks) {
  plan.budget = 3;
  plan.error = ENOSPC;
  std::string p = path("flush");
  file f(p, with_buffer(64));
  f.write("hello");
  expect_failure([&] { f.flush(); }, ENOSPC, p, "flush");
  EXPECT_EQ(f.stats().bytes_written, 3u);
  EXPECT_EQ(f.stats().bytes_accepted, 5u);
  expect_sticky(f, ENOSPC, p);
  EXPECT_EQ(read_file(p), "hel");
}

TEST_F(write_faults, an_error_at_close_is_reported_by_close) {
  plan.budget = 3;
  plan.error = EIO;
  std::string p = path("close");
  file f(p, with_buffer(64));
  f.write("hello");
  int fd = f.descriptor();
  expect_failure([&] { f.close(); }, EIO, p, "close");
  EXPECT_FALSE(f.is_open());
  EXPECT_FALSE(fastout_test::fd_is_open(fd));  // released all the same
  EXPECT_NO_THROW(f.close());
  EXPECT_EQ(f.error(), system_error_code(EIO));
  expect_failure([&] { f.put('x'); }, EIO, p, "put after a failed close");
  EXPECT_EQ(f.stats().bytes_written, 3u);
  EXPECT_EQ(f.stats().bytes_accepted, 5u);
  EXPECT_EQ(read_file(p), "hel");
}

TEST_F(write_faults, the_message_says_how_much_reached_the_file) {
  plan.budget = 3;
  std::string p = path("message");
  file f(p, with_buffer(64));
  f.write("hello");
  try {
    f.flush();
    FAIL();
  } catch (const std::system_error& e) {
    EXPECT_TRUE(contains(e.what(), "3 of 5 bytes")) << e.what();
    EXPECT_TRUE(contains(e.what(), std::strerror(EIO))) << e.what();
  }
  EXPECT_THROW(f.close(), std::system_error);
}

TEST_F(write_faults, a_failing_close_is_reported) {
  plan.close_error = EIO;
  std::string p = path("close-fails");
  file f(p, with_buffer(64));
  f.write("abc");
  int fd = f.descriptor();
  try {
    f.close();
    FAIL() << "close() did not report the failure";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EIO));
    EXPECT_TRUE(contains(e.what(), p)) << e.what();
    EXPECT_TRUE(contains(e.what(), "close")) << e.what();
  }
  EXPECT_FALSE(fastout_test::fd_is_open(fd));
  EXPECT_NO_THROW(f.close());
  EXPECT_EQ(f.stats().bytes_written, 3u);
  EXPECT_EQ(read_file(p), "abc");
}

TEST_F(write_faults, an_interrupted_close_is_not_an_error) {
  plan.close_error = EINTR;
  file f(path("close-eintr"), with_buffer(64));
  f.write("abc");
  EXPECT_NO_THROW(f.close());
  EXPECT_EQ(read_file(path("close-eintr")), "abc");
}

TEST_F(write_faults, a_borrowed_descriptor_is_not_closed) {
  plan.close_error = EIO;  // would fail if it were called
  int fd = ::open(path("borrowed").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  file f = file::borrow(fd);
  f.write("abc");
  EXPECT_NO_THROW(f.close());
  EXPECT_TRUE(fastout_test::fd_is_open(fd));
  ::close(fd);
}

// ---------------------------------------------------------------- EAGAIN and zero

TEST_F(write_faults, eagain_waits_until_writable_then_writes) {
  plan.eagain_count = 1;
  file f(path("eagain"), with_buffer(64));
  f.write("hello");
  f.flush();
  EXPECT_EQ(plan.eagains, 1);
  EXPECT_EQ(plan.waits, 1);
  EXPECT_EQ(plan.last_wait_fd, f.descriptor());
  EXPECT_EQ(f.stats().write_calls, 2u);
  EXPECT_EQ(f.stats().bytes_written, 5u);
  f.close();
  EXPECT_EQ(read_file(path("eagain")), "hello");
}

TEST_F(write_faults, eagain_with_an_interrupted_wait_waits_again) {
  plan.eagain_count = 3;
  plan.wait_eintr_count = 2;
  plan.max_chunk = 2;
  file f(path("eagain"), with_buffer(4));
  std::string data = pattern(1000);
  write_mixed(f, data, 3);
  f.close();
  EXPECT_EQ(plan.waits, 3);
  EXPECT_EQ(read_file(path("eagain")), data);
}

TEST_F(write_faults, a_failing_wait_is_an_error) {
  plan.eagain_count = 1;
  plan.wait_error = ENOMEM;
  std::string p = path("poll");
  file f(p, with_buffer(64));
  f.write("hello");
  expect_failure([&] { f.flush(); }, ENOMEM, p, "flush");
  EXPECT_EQ(f.stats().bytes_written, 0u);
  expect_sticky(f, ENOMEM, p);
}

TEST_F(write_faults, a_write_returning_zero_is_an_error_not_a_hang) {
  plan.zero_count = 1000000;
  std::string p = path("zero");
  file f(p, with_buffer(64));
  f.write("hello");
  expect_failure([&] { f.flush(); }, EIO, p, "flush");
  EXPECT_EQ(f.stats().write_calls, 1u);
  expect_sticky(f, EIO, p);
}

// ---------------------------------------------------------------- the cursor

TEST_F(cursor_faults, a_throwing_slow_path_in_a_cursor_loop_leaves_the_writer_consistent) {
  plan.budget = 20;
  plan.error = ENOSPC;
  std::string p = path("cursor");
  std::string data = pattern(100);
  file f(p, with_buffer(8));
  {
    fastout::cursor c = f.make_cursor();
    std::size_t failed_at = data.size();
    for (std::size_t i = 0; i < data.size(); ++i) {
      try {
        c.put(data[i]);
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), system_error_code(ENOSPC));
        failed_at = i;
        break;
      }
    }
    // Two full buffers (16 bytes), then 4 of the third before ENOSPC.
    EXPECT_EQ(failed_at, 24u);
    EXPECT_EQ(f.bytes_pending(), 0u);
    EXPECT_EQ(f.stats().bytes_written, 20u);
    EXPECT_EQ(f.stats().bytes_accepted, 25u);
    // The cursor meets the sticky error on its next call, every time.
    expect_failure([&] { c.put('x'); }, ENOSPC, p, "cursor put");
    expect_failure([&] { c.put('x'); }, ENOSPC, p, "cursor put again");
    expect_failure([&] { c.write("abc"); }, ENOSPC, p, "cursor write");
    expect_failure([&] { c.flush(); }, ENOSPC, p, "cursor flush");
    EXPECT_EQ(f.bytes_pending(), 0u);
    EXPECT_EQ(f.stats().bytes_accepted, 25u);
  }  // the cursor's destructor must not disturb the writer either
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.stats().bytes_accepted, 25u);
  expect_sticky(f, ENOSPC, p);
  EXPECT_EQ(read_file(p), data.substr(0, 20));
}

TEST_F(cursor_faults, a_cursor_write_that_throws_keeps_the_counts_exact) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.budget = 5;
  plan.error = EIO;
  std::string p = path("cursor-write");
  {
    file f(p, with_buffer(8));
    fastout::cursor c = f.make_cursor();
    c.write("abc");
    expect_failure([&] { c.write(std::string(20, 'w')); }, EIO, p, "large cursor write");
    expect_failure([&] { c.write("d"); }, EIO, p, "small cursor write");
    c.commit();
    EXPECT_EQ(f.bytes_pending(), 0u);
    EXPECT_EQ(f.stats().bytes_written, 5u);
    EXPECT_EQ(f.stats().bytes_accepted, 23u);
  }  // destroyed without close(): the handler hears of it
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].error, system_error_code(EIO));
  EXPECT_EQ(handler_calls[0].bytes_lost, 18u);
}

// ---------------------------------------------------------------- accounting

// "(W of A bytes reached the file)" in a failure message.
std::pair<std::uint64_t, std::uint64_t> counts_in(const std::string& message) {
  std::size_t end = message.find(" bytes reached the file)");
  std::size_t open = message.rfind('(', end);
  std::size_t of = message.find(" of ", open);
  if (end == std::string::npos || open == std::string::npos || of == std::string::npos || of > end)
    return {UINT64_MAX, UINT64_MAX};
  return {std::stoull(message.substr(open + 1, of - open - 1)),
          std::stoull(message.substr(of + 4, end - of - 4))};
}

// One way of meeting the error, and how many bytes it must count as
// accepted when it does.
struct failing_path {
  const char* name;
  std::size_t buffer;
  buffering mode;
  std::function<void(file&)> until_it_throws;
  std::uint64_t accepted;
};

// On /dev/full every write fails: whatever the path, the failing call's
// message, stats() and the error handler's bytes_lost agree, by one rule
// (file_stats): write() and put() count all their bytes; a print counts its
// text once it is complete, so one that fails making room counts none of it.
TEST(error_accounting, message_stats_and_handler_agree_on_every_path) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  const std::string sixty(60, 's');
  const std::string long_text(200, 'L');
  const std::vector<failing_path> paths = {
      {"write() loop", 4096, buffering::full,
       [](file& f) {
         for (;;) f.write("0123456789");
       },
       4100},
      {"put() loop", 64, buffering::full,
       [](file& f) {
         for (;;) f.put('p');
       },
       65},
      {"large write() after buffered text", 64, buffering::full,
       [](file& f) {
         f.write("0123456789");
         f.write(std::string(100, 'w'));
       },
       110},
      {"write() straddling a full buffer", 64, buffering::full,
       [&](file& f) {
         f.write(sixty);
         f.write("0123456789");
       },
       70},
      {"unbuffered write()", 0, buffering::full, [](file& f) { f.write("0123456789"); }, 10},
      {"line-buffered write()", 64, buffering::line, [](file& f) { f.write("ab\ncd"); }, 5},
      {"cursor put() loop", 64, buffering::full,
       [](file& f) {
         fastout::cursor c = f.make_cursor();
         for (;;) c.put('c');
       },
       65},
      {"print() that needs room", 64, buffering::full,
       [&](file& f) {
         f.write(sixty);
         f.print("{}", "0123456789");
       },
       60},
      {"compiled print() that needs room", 64, buffering::full,
       [&](file& f) {
         f.write(sixty);
         f.println(FMT_COMPILE("{}-{}"), 12345, "abc");
       },
       60},
      {"print() larger than the buffer", 64, buffering::full,
       [&](file& f) { f.print("{}", long_text); }, 200},
      {"unbuffered print()", 0, buffering::full, [](file& f) { f.print("{}|", 42); }, 3},
      {"line-buffered print()", 64, buffering::line, [](file& f) { f.print("ab\n{}", 7); }, 4},
      {"<< that needs room", 64, buffering::full,
       [&](file& f) {
         f.write(sixty);
         f << 1234567;
       },
       67},
  };
  for (const failing_path& p : paths) {
    SCOPED_TRACE(p.name);
    scoped_error_handler handler(recording_handler, handler_calls);
    {
      file f("/dev/full", with_buffer(p.buffer, p.mode));
      try {
        p.until_it_throws(f);
        ADD_FAILURE() << "no error";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), system_error_code(ENOSPC)) << e.what();
        auto [written, accepted] = counts_in(e.what());
        EXPECT_EQ(accepted, p.accepted) << e.what();
        EXPECT_EQ(accepted, f.stats().bytes_accepted) << e.what();
        EXPECT_EQ(written, f.stats().bytes_written) << e.what();
        EXPECT_EQ(written, 0u);
      }
      EXPECT_EQ(f.bytes_pending(), 0u);  // nothing waits after a failure
    }
    ASSERT_EQ(handler_calls.size(), 1u);
    EXPECT_EQ(handler_calls[0].bytes_lost, p.accepted);
    EXPECT_FALSE(handler_calls[0].close_failed);
  }
}

// A print larger than a small buffer streams in 64 KiB chunks: the chunk
// that fails is counted, with those before it; never more than fmt made.
TEST(error_accounting, a_streaming_print_counts_the_chunks_sent) {
  for (std::size_t buffer : size_list{0, 64, 4096, fastout::default_buffer_size}) {
    SCOPED_TRACE("buffer " + std::to_string(buffer));
    file f("/dev/full", with_buffer(buffer));
    const std::string huge(1 << 20, 'h');
    try {
      f.print("{}{}", huge, 1);
      ADD_FAILURE() << "no error";
    } catch (const std::system_error& e) {
      auto [written, accepted] = counts_in(e.what());
      EXPECT_EQ(accepted, f.stats().bytes_accepted) << e.what();
      EXPECT_EQ(written, 0u);
      EXPECT_GE(accepted, std::max<std::uint64_t>(buffer, fastout::streaming_chunk_size));
      EXPECT_LE(accepted, huge.size());
    }
    EXPECT_EQ(f.stats().write_calls, 1u);  // one failed attempt, then nothing
  }
}

// The guide's rule for the sticky error: every later put(), write() and
// print() throws it, and flush() too until close(); after close() (which
// throws it once), flush() does nothing, as fmt::ostream::flush() does on
// a closed writer.
TEST_F(write_faults, sticky_error_flush_throws_until_close_and_then_does_nothing) {
  plan.budget = 3;
  plan.error = ENOSPC;
  const std::string p = path("sticky");
  file f(p, with_buffer(16));
  expect_failure([&] { f.write(std::string(20, 's')); }, ENOSPC, p, "write");
  EXPECT_EQ(f.error(), system_error_code(ENOSPC));
  expect_failure([&] { f.flush(); }, ENOSPC, p, "flush");
  expect_failure([&] { f.flush(); }, ENOSPC, p, "flush again");
  expect_failure([&] { f.print("{}", 1); }, ENOSPC, p, "print");
  expect_failure([&] { f.close(); }, ENOSPC, p, "close");
  EXPECT_NO_THROW(f.flush());
  EXPECT_NO_THROW(f.close());
  expect_failure([&] { f.put('x'); }, ENOSPC, p, "put after close");
  expect_failure([&] { f.print("{}", 1); }, ENOSPC, p, "print after close");
  EXPECT_EQ(f.stats().bytes_accepted, 20u);
}

}  // namespace
