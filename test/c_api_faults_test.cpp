// SPDX-License-Identifier: MIT
// The C API's faults, through the fake system calls: the error is returned
// at the call that met it and after, and nothing is lost.
#include <fastout/c_api.h>
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
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

using c_api_faults = faked_platform;

// ---------------------------------------------------------------- the C API

// Writes `data` through every C output call in turn (putc, fwrite-style
// write, puts, printf); returns the first failure's negative code, or 0.
int c_write_mixed(fastout_file* f, const std::string& data, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::size_t i = 0;
  while (i < data.size()) {
    std::size_t left = data.size() - i;
    std::size_t n = std::min<std::size_t>(1 + rng() % 300, left);
    switch (rng() % 4) {
      case 0: {
        int result = fastout_putc(static_cast<unsigned char>(data[i]), f);
        if (result < 0) return result == EOF ? -errno : INT_MIN;  // stdio's EOF, never a code
        n = 1;
        break;
      }
      case 1:
        if (fastout_write(data.data() + i, 1, n, f) != n) return -errno;
        break;
      case 2: {
        std::string piece = data.substr(i, n);
        n = std::strlen(piece.c_str());  // puts stops at a NUL
        if (n == 0) {
          if (fastout_write(data.data() + i, 1, 1, f) != 1) return -errno;
          n = 1;
          break;
        }
        int result = fastout_fputs(piece.c_str(), f);
        if (result < 0) return result == EOF ? -errno : INT_MIN;
        break;
      }
      default: {
        int result = fastout_fprintf(f, "%.*s", static_cast<int>(n), data.data() + i);
        if (result < 0) return result;
        // %.*s stops at a NUL too, and says where
        n = static_cast<std::size_t>(result);
        if (n == 0) {
          if (fastout_putc(0, f) < 0) return -errno;
          n = 1;
        }
        break;
      }
    }
    i += n;
  }
  return 0;
}

fastout_file* c_open(const std::string& path, std::size_t buffer_size) {
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = buffer_size;
  options.buffering = FASTOUT_BUFFERING_FULL;
  return fastout_open(path.c_str(), &options);
}

// A call named after stdio's failed as stdio's does: EOF, errno the cause,
// and the code in fastout_last_error().
void expect_eof(fastout_file* f, int result, int error_number, const char* call) {
  const int errno_after = errno;
  EXPECT_EQ(result, EOF) << call;
  EXPECT_EQ(errno_after, error_number) << call;
  EXPECT_EQ(fastout_last_error(f), -error_number) << call;
}

// Every later C call fails with the sticky error: stdio's calls with EOF
// (putc, fputs, fflush) or a short count (fwrite), printf with the code.
void expect_c_sticky(fastout_file* f, int error_number) {
  EXPECT_EQ(fastout_error(f), -error_number);
  errno = 0;
  expect_eof(f, fastout_putc('x', f), error_number, "fastout_putc");
  errno = 0;
  EXPECT_EQ(fastout_write("xy", 1, 2, f), 0u);
  EXPECT_EQ(errno, error_number);
  errno = 0;
  expect_eof(f, fastout_fputs("xyz", f), error_number, "fastout_fputs");
  EXPECT_EQ(fastout_fprintf(f, "%d", 5), -error_number);
  EXPECT_EQ(errno, error_number);
  errno = 0;
  expect_eof(f, fastout_flush(f), error_number, "fastout_flush");
}

TEST_F(c_api_faults, the_error_is_returned_at_the_call_that_met_it_and_after) {
  std::string data = pattern(30000);
  for (std::size_t size : size_list{0, 1, 7, 64, 4096, fastout::default_buffer_size}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    plan = fake_plan();
    plan.budget = 1000;
    plan.error = EIO;
    std::string out = path("out");
    fastout_file* f = c_open(out, size);
    ASSERT_NE(f, nullptr);
    int result = c_write_mixed(f, data, 7);
    if (result == 0 && fastout_flush(f) == EOF) result = -errno;
    EXPECT_EQ(result, -EIO);
    expect_c_sticky(f, EIO);
    fastout_stats stats;
    ASSERT_EQ(fastout_get_stats(f, &stats), 0);
    EXPECT_EQ(stats.bytes_written, 1000u);
    EXPECT_GT(stats.bytes_accepted, 1000u);
    errno = 0;
    EXPECT_EQ(fastout_close(f), EOF);
    EXPECT_EQ(errno, EIO);
    EXPECT_EQ(read_file(out), data.substr(0, 1000));
  }
}

TEST_F(c_api_faults, short_writes_and_eintr_lose_nothing) {
  std::string data = pattern(100000);
  for (std::size_t size : size_list{0, 1, 7, 64, 4096, fastout::default_buffer_size}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    plan = fake_plan();
    plan.max_chunk = 7;
    plan.eintr_every = 3;
    std::string out = path("out");
    fastout_file* f = c_open(out, size);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(c_write_mixed(f, data, 11), 0);
    EXPECT_EQ(fastout_fprintf(f, "%70000d|%s", 1, "end"), 70004);  // streams
    EXPECT_EQ(fastout_close(f), 0);
    EXPECT_EQ(read_file(out), data + std::string(69999, ' ') + "1|end");
    EXPECT_GT(plan.eintrs, 0);
  }
}

// Each call named after stdio's, meeting a fault of the platform table
// itself, answers as stdio's does: EOF (a short count for fwrite) with
// errno the fault's, whatever the errno; the code stays in
// fastout_last_error() and, a write error, in fastout_error().
TEST_F(c_api_faults, stdio_named_calls_fail_with_eof_and_errno) {
  for (int error_number : {EIO, ENOSPC, EFBIG, EPIPE, ENXIO, EPERM}) {
    for (int call = 0; call < 5; ++call) {
      SCOPED_TRACE(std::string(std::strerror(error_number)) + ", call " + std::to_string(call));
      plan = fake_plan();
      plan.budget = 0;
      plan.error = error_number;
      fastout_file* f = c_open(path("out"), 0);  // unbuffered: every call writes
      ASSERT_NE(f, nullptr);
      errno = 0;
      switch (call) {
        case 0: expect_eof(f, fastout_putc('x', f), error_number, "fastout_putc"); break;
        case 1: expect_eof(f, fastout_fputs("xyz", f), error_number, "fastout_fputs"); break;
        case 2:
          EXPECT_EQ(fastout_write("xyz", 1, 3, f), 0u);  // fwrite's short count
          EXPECT_EQ(errno, error_number);
          EXPECT_EQ(fastout_last_error(f), -error_number);
          break;
        case 3:
          EXPECT_EQ(fastout_fprintf(f, "%d", 12), -error_number);  // printf's code
          EXPECT_EQ(errno, error_number);
          break;
        default: {
          fastout_file* buffered = c_open(path("buffered"), 64);
          ASSERT_NE(buffered, nullptr);
          EXPECT_EQ(fastout_fputs("xyz", buffered), 1);
          errno = 0;
          expect_eof(buffered, fastout_flush(buffered), error_number, "fastout_flush");
          errno = 0;
          EXPECT_EQ(fastout_close(buffered), EOF);
          EXPECT_EQ(errno, error_number);
          break;
        }
      }
      const bool failed = call != 4;
      EXPECT_EQ(fastout_error(f), failed ? -error_number : 0);
      errno = 0;
      EXPECT_EQ(fastout_close(f), failed ? EOF : 0);
      EXPECT_EQ(errno, failed ? error_number : 0);
    }
  }
}

// close() failing: the code says so, and the handle is freed all the same
// (LeakSanitizer would see it otherwise).
TEST_F(c_api_faults, a_failing_close_is_returned_and_the_handle_freed) {
  plan.close_error = EIO;
  std::string out = path("out");
  fastout_file* f = c_open(out, 64);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(fastout_fputs("all of it", f), 1);
  errno = 0;
  EXPECT_EQ(fastout_close(f), EOF);  // fclose()'s answer, the cause in errno
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(read_file(out), "all of it");
}

// A printf text larger than the buffer fails while it streams: the bytes
// that reached the file are counted exactly, and the error sticks. The
// positional format is glibc's to format (vfprintf through a stream): the
// write error inside glibc's callback comes back as a code, not as an
// exception through glibc's frames.
TEST_F(c_api_faults, printf_failing_while_it_streams_counts_every_byte) {
  const char* const formats[] = {"%300000d|", "%1$300000d|"};
  for (const char* format : formats) {
    for (std::size_t size : size_list{0, 1, 64, 65536, fastout::default_buffer_size}) {
      SCOPED_TRACE(std::string(format) + ", buffer " + std::to_string(size));
      plan = fake_plan();
      plan.budget = 1000;
      plan.error = ENOSPC;
      fastout_file* f = c_open(path("out"), size);
      ASSERT_NE(f, nullptr);
      EXPECT_EQ(fastout_fprintf(f, format, 7), -ENOSPC);
      expect_c_sticky(f, ENOSPC);
      fastout_stats stats;
      ASSERT_EQ(fastout_get_stats(f, &stats), 0);
      EXPECT_EQ(stats.bytes_written, 1000u);
      errno = 0;
      EXPECT_EQ(fastout_close(f), EOF);
      EXPECT_EQ(errno, ENOSPC);
      EXPECT_EQ(read_file(path("out")), std::string(1000, ' '));
    }
  }
}

}  // namespace
