// SPDX-License-Identifier: MIT
// Failures made for real: /dev/full (ENOSPC), RLIMIT_FSIZE (EFBIG), a pipe
// whose reader is gone (EPIPE, SIGPIPE), a closed descriptor (EBADF), a
// non-blocking pipe that fills up, and a storm of timer signals (EINTR).
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

// ---------------------------------------------------------------- real failures

TEST(full_disk, dev_full_is_enospc) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  std::string p = "/dev/full";
  {
    file f(p, with_buffer(64));
    f.write("0123456789");  // buffered: nothing has failed yet
    EXPECT_FALSE(f.error());
    expect_failure([&] { f.flush(); }, ENOSPC, p, "flush");
    EXPECT_EQ(f.stats().bytes_written, 0u);
    EXPECT_EQ(f.stats().bytes_accepted, 10u);
    expect_sticky(f, ENOSPC, p);
  }
  {
    file f(p, with_buffer(64));
    expect_failure([&] { f.write(std::string(1000, 'x')); }, ENOSPC, p, "large write");
    expect_sticky(f, ENOSPC, p);
  }
  {
    file f(p, with_buffer(0));
    expect_failure([&] { f.put('x'); }, ENOSPC, p, "unbuffered put");
    expect_sticky(f, ENOSPC, p);
  }
  {
    file f(p, with_buffer(64));
    f.write("abc");
    expect_failure([&] { f.close(); }, ENOSPC, p, "close");
  }
}

TEST(full_disk, a_cursor_on_dev_full_meets_enospc) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  std::string p = "/dev/full";
  file f(p, with_buffer(16));
  {
    fastout::cursor c = f.make_cursor();
    std::size_t i = 0;
    try {
      for (; i < 1000; ++i) c.put('x');
      FAIL() << "no error";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), system_error_code(ENOSPC));
    }
    EXPECT_EQ(i, 16u);
    EXPECT_EQ(f.bytes_pending(), 0u);
    expect_failure([&] { c.put('y'); }, ENOSPC, p, "next cursor put");
    EXPECT_EQ(f.bytes_pending(), 0u);
    EXPECT_EQ(f.stats().bytes_accepted, 17u);
  }
  expect_sticky(f, ENOSPC, p);
}

// Windows has no RLIMIT_FSIZE: there a file that cannot grow past 1000
// bytes is the platform table's (windows_file_size_limit, test_util.h),
// whose writes fail as Windows' do where a file outgrows what its filesystem
// takes (ERROR_FILE_TOO_LARGE, which the platform makes EFBIG), in this
// process, since the table is all it changes.
TEST(file_size_limit, rlimit_fsize_is_efbig) {
  temp_dir dir;
  std::string small_writes = dir.file("small-writes");
  std::string large_write = dir.file("large-write");
  std::string data = pattern(5000);
  auto body = [&] {
    {
      file f(small_writes, with_buffer(256));
      try {
        for (std::size_t i = 0; i < data.size(); i += 100) f.write(data.data() + i, 100);
        f.close();
        return 1;  // no error
      } catch (const std::system_error& e) {
        if (e.code() != system_error_code(EFBIG)) return 2;
        if (!contains(e.what(), small_writes)) return 3;
      }
      if (f.stats().bytes_written != 1000) return 4;
      if (f.stats().bytes_accepted != 1100) return 5;  // the fourth buffer fills on the 11th write
      try {
        f.put('x');
        return 6;
      } catch (const std::system_error& e) {
        if (e.code() != system_error_code(EFBIG)) return 7;
      }
      try {
        f.close();
        return 8;
      } catch (const std::system_error& e) {
        if (e.code() != system_error_code(EFBIG)) return 9;
      }
    }
    {
      file f(large_write, with_buffer(256));
      try {
        f.write(data);
        return 20;
      } catch (const std::system_error& e) {
        if (e.code() != system_error_code(EFBIG)) return 21;
      }
      if (f.stats().bytes_written != 1000) return 22;
      try {
        f.close();
        return 23;
      } catch (const std::system_error&) {
      }
    }
    return 0;
  };
  int status = fastout_test::run_with_file_size_limit(1000, body);
  ASSERT_EQ(status, 0) << describe_status(status) << " (see the return statements in the body)";
  EXPECT_EQ(read_file(small_writes), data.substr(0, 1000));
  EXPECT_EQ(read_file(large_write), data.substr(0, 1000));
}

// Sets SIGPIPE's disposition for the scope.
class scoped_sigpipe {
 public:
  explicit scoped_sigpipe(void (*disposition)(int)) {
    struct sigaction action = {};
    action.sa_handler = disposition;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGPIPE, &action, &saved_);
  }
  ~scoped_sigpipe() { ::sigaction(SIGPIPE, &saved_, nullptr); }

 private:
  struct sigaction saved_;
};

TEST(broken_pipe, a_pipe_without_reader_is_epipe_when_sigpipe_is_ignored) {
  scoped_sigpipe ignore(SIG_IGN);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[0]);
  {
    file f = file::adopt(fds[1], with_buffer(64), "the pipe");
    f.write("hello");
    expect_failure([&] { f.flush(); }, EPIPE, "the pipe", "flush");
    EXPECT_EQ(f.stats().bytes_written, 0u);
    expect_sticky(f, EPIPE, "the pipe");
  }
  {
    ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    ::close(fds[0]);
    file f = file::adopt(fds[1], with_buffer(64), "the pipe");
    expect_failure([&] { f.write(std::string(100, 'x')); }, EPIPE, "the pipe", "large write");
    expect_sticky(f, EPIPE, "the pipe");
  }
}

TEST(broken_pipe, a_pipe_without_reader_raises_sigpipe_by_default) {
  FASTOUT_SKIP_ON_WINDOWS(
      "a write to a pipe without a reader kills with SIGPIPE on Linux; Windows has no SIGPIPE (windows.a_pipe_whose_reader_is_gone_is_epipe)");
  int status = fastout_test::run_in_child([] {
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, SIGPIPE);
    ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
    int fds[2];
    if (::pipe(fds) != 0) return 10;
    ::close(fds[0]);
    file f = file::adopt(fds[1], with_buffer(64));
    f.write("hello");
    try {
      f.flush();
    } catch (const std::system_error&) {
      return 2;  // survived: SIGPIPE was not raised
    }
    return 1;
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) << describe_status(status);
}

TEST(descriptors, adopting_a_closed_descriptor_is_ebadf) {
  const int fd = 987;
  ASSERT_EQ(::fcntl(fd, F_GETFD), -1) << "fd 987 is in use; pick another";
  {
    file f = file::adopt(fd, with_buffer(16));
    f.write("abc");
    std::string name = "<fd 987>";
    expect_failure([&] { f.flush(); }, EBADF, name, "flush");
    expect_sticky(f, EBADF, name);
  }
  {
    file f = file::borrow(fd, with_buffer(0), "closed");
    expect_failure([&] { f.put('x'); }, EBADF, "closed", "unbuffered put");
    expect_sticky(f, EBADF, "closed");
    EXPECT_FALSE(fastout_test::fd_is_open(fd));
  }
}

// A non-blocking pipe (as a program may inherit on stdout) fills up: the
// writer waits in poll() instead of failing with EAGAIN or spinning.
TEST(nonblocking_pipe, a_pipe_that_fills_up_waits_and_loses_nothing) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs a pipe in O_NONBLOCK mode read by a forked child; Windows' anonymous pipes have neither");
  const std::size_t total = 8 << 20;
  std::string data = pattern(total);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    ::close(fds[1]);
    std::size_t got = 0;
    char chunk[3001];
    for (;;) {
      ssize_t n = ::read(fds[0], chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      if (got + static_cast<std::size_t>(n) > total ||
          std::memcmp(chunk, data.data() + got, static_cast<std::size_t>(n)) != 0)
        ::_exit(1);
      got += static_cast<std::size_t>(n);
    }
    ::_exit(got == total ? 0 : 2);
  }
  ::close(fds[0]);
  ASSERT_EQ(::fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
  {
    file f = file::adopt(fds[1], with_buffer(4096));
    std::size_t i = 0;
    std::mt19937 rng(7);
    while (i < total) {
      std::size_t n = std::min<std::size_t>(1 + rng() % 200000, total - i);
      f.write(data.data() + i, n);
      i += n;
    }
    f.close();
    EXPECT_EQ(f.stats().bytes_written, total);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(reader, &status, 0), reader);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << describe_status(status) << " (1: wrong bytes; 2: too few)";
}

// ---------------------------------------------------------------- signal storm

std::atomic<unsigned> alarms{0};
void on_alarm(int) { alarms.fetch_add(1, std::memory_order_relaxed); }

// Counts what the storm does to the writer's system calls, then passes on.
std::atomic<unsigned> interrupted_calls{0};
std::atomic<unsigned> partial_calls{0};
ssize_t counting_writev(int fd, const iovec* iov, int count) {
  std::size_t asked = 0;
  for (int i = 0; i < count; ++i) asked += iov[i].iov_len;
  ssize_t result = fastout::detail::real_platform.writev(fd, iov, count);
  if (result < 0 && errno == EINTR) interrupted_calls.fetch_add(1);
  if (result >= 0 && static_cast<std::size_t>(result) < asked) partial_calls.fetch_add(1);
  return result;
}
ssize_t counting_write(int fd, const void* data, size_t size) {
  iovec one = {const_cast<void*>(data), size};
  return counting_writev(fd, &one, 1);
}

TEST(signal_storm, every_byte_arrives_in_order) {
  FASTOUT_SKIP_ON_WINDOWS("needs a storm of timer signals (EINTR), which Windows has not");
  const std::size_t total = 64 << 20;
  const std::size_t buffer = 64 << 10;
  std::string data = pattern(total);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    // A slow reader: small reads of changing sizes, each byte checked.
    ::close(fds[1]);
    std::size_t got = 0;
    std::size_t step = 1;
    char chunk[8192];
    for (;;) {
      step = step * 5 % 8191 + 1;
      ssize_t n = ::read(fds[0], chunk, step);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::size_t size = static_cast<std::size_t>(n);
      if (got + size > total || std::memcmp(chunk, data.data() + got, size) != 0) ::_exit(1);
      got += size;
    }
    ::_exit(got == total ? 0 : 2);
  }
  ::close(fds[0]);

  fastout_test::scoped_platform restore;
  fastout::detail::platform.write = counting_write;
  fastout::detail::platform.writev = counting_writev;
  struct sigaction action = {}, saved_action;
  action.sa_handler = on_alarm;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocked writes come back with EINTR or short
  ASSERT_EQ(::sigaction(SIGALRM, &action, &saved_action), 0);
  struct itimerval storm = {{0, 50}, {0, 50}};
  ASSERT_EQ(::setitimer(ITIMER_REAL, &storm, nullptr), 0);

  std::string error;
  fastout::file_stats stats;
  try {
    file f = file::adopt(fds[1], with_buffer(buffer), "storm pipe");
    const std::size_t sizes[] = {1,      2,          7,          100,     4095, buffer - 1,
                                 buffer, buffer + 1, 3 * buffer, 1 << 20, 77777};
    std::mt19937 rng(11);
    std::size_t i = 0;
    while (i < total) {
      std::size_t n = std::min(sizes[rng() % (sizeof sizes / sizeof sizes[0])], total - i);
      if (n == 1) {
        f.put(data[i]);
      } else if (rng() % 4 == 0) {
        fastout::cursor c = f.make_cursor();
        for (std::size_t k = 0; k < n; ++k) c.put(data[i + k]);
      } else {
        f.write(data.data() + i, n);
      }
      i += n;
    }
    f.close();
    stats = f.stats();
  } catch (const std::system_error& e) {
    error = e.what();
  }

  struct itimerval off = {{0, 0}, {0, 0}};
  ::setitimer(ITIMER_REAL, &off, nullptr);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGALRM, &ignore, nullptr);  // drops one that may be pending
  ::sigaction(SIGALRM, &saved_action, nullptr);

  int status = 0;
  while (::waitpid(reader, &status, 0) < 0 && errno == EINTR) {
  }
  EXPECT_EQ(error, "");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << describe_status(status) << " (1: wrong bytes; 2: too few)";
  EXPECT_EQ(stats.bytes_written, total);
  EXPECT_EQ(stats.bytes_accepted, total);
  EXPECT_GT(alarms.load(), 0u);
  ::testing::Test::RecordProperty("alarms", static_cast<int>(alarms.load()));
  ::testing::Test::RecordProperty("interrupted_calls", static_cast<int>(interrupted_calls.load()));
  ::testing::Test::RecordProperty("partial_calls", static_cast<int>(partial_calls.load()));
  std::printf("signals: %u, write calls: %llu, interrupted: %u, partial: %u\n", alarms.load(),
              static_cast<unsigned long long>(stats.write_calls), interrupted_calls.load(),
              partial_calls.load());
}

}  // namespace
