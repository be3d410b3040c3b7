// SPDX-License-Identifier: MIT
// The error handler: when a writer that was not closed hears of a failure,
// what it is told (for real, on /dev/full, and through the fake system
// calls), and the default handler's line on stderr.
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

using error_handler_faults = faked_platform;

// ---------------------------------------------------------------- the error handler

TEST(error_handler, set_returns_the_previous_handler) {
  fastout::error_handler original = fastout::set_error_handler(recording_handler);
  EXPECT_EQ(original, &fastout::default_error_handler);
  auto other = [](const fastout::error_report&) noexcept {};
  fastout::error_handler other_handler = other;
  EXPECT_EQ(fastout::set_error_handler(other_handler), &recording_handler);
  EXPECT_EQ(fastout::set_error_handler(nullptr), other_handler);
  EXPECT_EQ(fastout::set_error_handler(original), &fastout::default_error_handler);
}

TEST(error_handler, hears_of_a_writer_destroyed_with_unwritten_data_on_dev_full) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  scoped_error_handler handler(recording_handler, handler_calls);
  {
    file f("/dev/full", with_buffer(64));
    f.write("0123456789");
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].path, "/dev/full");
  EXPECT_EQ(handler_calls[0].error, system_error_code(ENOSPC));
  EXPECT_EQ(handler_calls[0].bytes_lost, 10u);
}

TEST(error_handler, is_not_called_when_all_is_well) {
  scoped_error_handler handler(recording_handler, handler_calls);
  temp_dir dir;
  {
    file f(dir.file("ok"), with_buffer(4));
    f.write("0123456789");
  }
  { file f("/dev/full", with_buffer(64)); }  // nothing to write: nothing lost
  EXPECT_TRUE(handler_calls.empty());
}

TEST(error_handler, is_called_for_an_error_already_thrown_but_not_closed) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  scoped_error_handler handler(recording_handler, handler_calls);
  {
    file f("/dev/full", with_buffer(4));
    f.write("ab");
    EXPECT_THROW(f.write("cdef"), std::system_error);
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].error, system_error_code(ENOSPC));
  EXPECT_EQ(handler_calls[0].bytes_lost, 6u);
}

TEST(error_handler, is_not_called_after_close_reported_the_error) {
  scoped_error_handler handler(recording_handler, handler_calls);
  {
    file f("/dev/full", with_buffer(64));
    f.write("abc");
    EXPECT_THROW(f.close(), std::system_error);
  }
  EXPECT_TRUE(handler_calls.empty());
}

TEST(error_handler, hears_of_a_failing_writer_moved_over) {
  scoped_error_handler handler(recording_handler, handler_calls);
  temp_dir dir;
  file f("/dev/full", with_buffer(64));
  f.write("abcd");
  f = file(dir.file("next"));
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].path, "/dev/full");
  EXPECT_EQ(handler_calls[0].bytes_lost, 4u);
  f.write("fine");
  f.close();
  EXPECT_EQ(handler_calls.size(), 1u);
}

TEST_F(error_handler_faults, the_handler_hears_of_a_failing_close_in_the_destructor) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.close_error = EIO;
  {
    file f(path("close"), with_buffer(64));
    f.write("abc");
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].path, path("close"));
  EXPECT_EQ(handler_calls[0].error, system_error_code(EIO));
  EXPECT_EQ(handler_calls[0].bytes_lost, 0u);
  EXPECT_TRUE(handler_calls[0].close_failed);
  EXPECT_EQ(read_file(path("close")), "abc");
}

// The default handler says that closing failed, and does not speak of
// "lost 0 bytes".
TEST_F(error_handler_faults, the_default_handler_says_closing_failed) {
  scoped_error_handler handler(nullptr, handler_calls);
  plan.close_error = EIO;
  fastout_test::fd_capture capture(STDERR_FILENO, path("stderr"));
  {
    file f(path("close"), with_buffer(64));
    f.write("abc");
  }
  capture.restore();
  std::string out = capture.content();
  EXPECT_TRUE(contains(out, "closing \"" + path("close") + "\" failed")) << out;
  EXPECT_TRUE(contains(out, std::strerror(EIO))) << out;
  EXPECT_FALSE(contains(out, "lost")) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST_F(error_handler_faults, a_write_failure_does_not_say_close_failed) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.budget = 0;
  {
    file f(path("write"), with_buffer(64));
    f.write("abc");
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].bytes_lost, 3u);
  EXPECT_FALSE(handler_calls[0].close_failed);
}

TEST_F(error_handler_faults, the_handler_hears_the_exact_loss) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.budget = 7;
  plan.max_chunk = 3;
  plan.error = EFBIG;
  {
    file f(path("loss"), with_buffer(64));
    f.write("0123456789");
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].error, system_error_code(EFBIG));
  EXPECT_EQ(handler_calls[0].bytes_lost, 3u);
  EXPECT_EQ(read_file(path("loss")), "0123456");
}

TEST(error_handler, the_default_handler_prints_one_line_to_stderr) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  temp_dir dir;
  scoped_error_handler handler(nullptr, handler_calls);  // the default
  fastout_test::fd_capture capture(STDERR_FILENO, dir.file("stderr"));
  {
    file f("/dev/full", with_buffer(64));
    f.write("0123456789");
  }
  capture.restore();
  std::string out = capture.content();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  EXPECT_TRUE(contains(out, "/dev/full")) << out;
  EXPECT_TRUE(contains(out, std::strerror(ENOSPC))) << out;
  EXPECT_TRUE(contains(out, "10")) << out;
}

TEST(error_handler, the_default_handler_keeps_a_very_long_path_on_one_line) {
  temp_dir dir;
  fastout_test::fd_capture capture(STDERR_FILENO, dir.file("stderr"));
  fastout::error_report report{nullptr, system_error_code(EIO), 5, false};
  std::string long_path(5000, 'p');
  report.path = long_path.c_str();
  fastout::default_error_handler(report);
  capture.restore();
  std::string out = capture.content();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
}

}  // namespace
