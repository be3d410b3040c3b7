// SPDX-License-Identifier: MIT
// write_errors: automatic throws at the call for every writer but the
// standard streams; report throws nothing, counts every byte and hands the
// loss to the error handler once (for real, and through the fake system
// calls).
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

using write_errors_report_faults = faked_platform;

// ---------------------------------------------------------------- write_errors::report

TEST(write_errors, automatic_throws_for_every_writer_but_the_standard_streams) {
  temp_dir dir;
  EXPECT_EQ(file().error_mode(), fastout::write_errors::throw_exception);
  file own(dir.file("own"));
  EXPECT_EQ(own.error_mode(), fastout::write_errors::throw_exception);
  EXPECT_EQ(fastout::stdout_file().error_mode(), fastout::write_errors::throw_exception);
  file reporting = fastout::output_file(dir.file("reporting"), fastout::write_errors::report);
  EXPECT_EQ(reporting.error_mode(), fastout::write_errors::report);
  file_options options;
  options.errors = fastout::write_errors::throw_exception;
  EXPECT_EQ(file(dir.file("throwing"), options).error_mode(),
            fastout::write_errors::throw_exception);
  // It travels with the writer.
  file moved(std::move(reporting));
  EXPECT_EQ(moved.error_mode(), fastout::write_errors::report);
}

// Every kind of call, `rounds` times; returns the bytes it handed over.
std::uint64_t write_every_kind_of_call(file& f, int rounds) {
  std::uint64_t total = 0;
  const std::string large(1000, 'L');
  for (int i = 0; i < rounds; ++i) {
    f.put('p');
    f.write("write");
    f.print("{:>10}", i);
    f.println("{}", "line");
    f.print(FMT_COMPILE("{}|"), 12345);
    f << 678 << ' ' << 2.5;
    fastout_test::vprint_with(f, "{}", "vprint");
    f.print("{:>2000}", 'x');  // larger than the buffers below: streams
    f.write(large);
    {
      fastout::cursor c = f.make_cursor();
      c.put('c');
      c.write("ursor");
    }
    total += 1 + 5 + 10 + 5 + 6 + 7 + 6 + 2000 + 1000 + 6;
#ifdef FASTOUT_FMT_HAS_WRITER
    fmt::writer w = f;
    w.print("{}", "fmt::writer");
    total += 11;
#endif
  }
  return total;
}

TEST(write_errors_report, full_disk_throws_nothing_and_counts_every_byte) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  scoped_error_handler handler(recording_handler, handler_calls);
  for (std::size_t size : size_list{0, 1, 64, 4096}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    handler_calls.clear();
    {
      file f = fastout::output_file("/dev/full", fastout::buffer_size = size,
                                    fastout::write_errors::report);
      std::uint64_t total = 0;
      EXPECT_NO_THROW(total = write_every_kind_of_call(f, 50));
      EXPECT_NO_THROW(f.flush());
      EXPECT_NO_THROW(f.sync());  // failed already: nothing to sync, nothing thrown
      EXPECT_EQ(f.error(), system_error_code(ENOSPC));
      fastout::file_stats s = f.stats();
      EXPECT_EQ(s.bytes_accepted, total);
      EXPECT_EQ(s.bytes_written, 0u);
      EXPECT_EQ(s.write_calls, 1u);  // the rest is dropped without a system call
      EXPECT_TRUE(handler_calls.empty());
      EXPECT_NO_THROW(f.close());  // reported, not thrown
      ASSERT_EQ(handler_calls.size(), 1u);
      EXPECT_EQ(handler_calls[0].path, "/dev/full");
      EXPECT_EQ(handler_calls[0].error, system_error_code(ENOSPC));
      EXPECT_EQ(handler_calls[0].bytes_lost, total);
      EXPECT_EQ(f.error(), system_error_code(ENOSPC));  // still readable
      EXPECT_EQ(f.stats().bytes_accepted, total);
      // Closed: a write now is a mistake, not a write error.
      try {
        f.put('x');
        ADD_FAILURE() << "no error from a closed writer";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), system_error_code(EBADF)) << e.what();
      }
    }
    EXPECT_EQ(handler_calls.size(), 1u);  // the destructor has nothing more to say
  }
}

TEST(write_errors_report, destructor_reports_once_with_every_byte) {
  scoped_error_handler handler(recording_handler, handler_calls);
  std::uint64_t total = 0;
  {
    file f = fastout::output_file("/dev/full", fastout::buffer_size = 100,
                                  fastout::write_errors::report);
    total = write_every_kind_of_call(f, 3);
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].bytes_lost, total);
  EXPECT_FALSE(handler_calls[0].close_failed);
}

// Writes `data` with every kind of call, prints included.
void write_mixed_with_prints(file& f, const std::string& data, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::size_t i = 0;
  while (i < data.size()) {
    std::size_t n = std::min<std::size_t>(1 + rng() % 300, data.size() - i);
    switch (rng() % 4) {
      case 0:
        f.put(data[i]);
        n = 1;
        break;
      case 1: f.write(data.data() + i, n); break;
      case 2: f.print("{}", std::string_view(data.data() + i, n)); break;
      default: {
        fastout::cursor c = f.make_cursor();
        for (std::size_t k = 0; k < n; ++k) c.put(data[i + k]);
        break;
      }
    }
    i += n;
  }
}

TEST_F(write_errors_report_faults, keeps_what_reached_the_file_and_counts_the_rest) {
  scoped_error_handler handler(recording_handler, handler_calls);
  const std::string data = pattern(20000);
  for (buffering mode : {buffering::full, buffering::line}) {
    for (std::size_t size : size_list{0, 1, 7, 64, 4096}) {
      SCOPED_TRACE("buffer " + std::to_string(size) + (mode == buffering::line ? ", line" : ""));
      plan = fake_plan();
      plan.budget = 1000;
      plan.error = EIO;
      plan.max_chunk = 300;
      handler_calls.clear();
      const std::string p = path("report");
      file_options options = with_buffer(size, mode);
      options.errors = fastout::write_errors::report;
      file f(p, options);
      EXPECT_NO_THROW(write_mixed_with_prints(f, data, 5));
      EXPECT_EQ(f.error(), system_error_code(EIO));
      const int calls = plan.calls;
      EXPECT_NO_THROW(f.write(std::string(100000, 'w')));  // dropped: no system call
      EXPECT_EQ(plan.calls, calls);
      EXPECT_EQ(f.stats().bytes_written, 1000u);
      EXPECT_EQ(f.stats().bytes_accepted, data.size() + 100000);
      EXPECT_NO_THROW(f.close());
      ASSERT_EQ(handler_calls.size(), 1u);
      EXPECT_EQ(handler_calls[0].bytes_lost, data.size() + 100000 - 1000);
      EXPECT_EQ(read_file(p), data.substr(0, 1000));
    }
  }
}

TEST_F(write_errors_report_faults, a_print_failing_while_it_streams_hands_over_all_its_text) {
  for (std::size_t size : size_list{0, 64, 65536, fastout::default_buffer_size}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    plan = fake_plan();
    plan.budget = 1000;
    plan.error = ENOSPC;
    file_options options = with_buffer(size);
    options.errors = fastout::write_errors::report;
    file f(path("streams"), options);
    f.write("head");
    EXPECT_NO_THROW(f.print("{:>300000}|", 7));
    EXPECT_EQ(f.error(), system_error_code(ENOSPC));
    EXPECT_EQ(f.stats().bytes_accepted, 4u + 300001u);
    EXPECT_EQ(f.stats().bytes_written, 1000u);
    EXPECT_EQ(f.bytes_pending(), 0u);
    fastout::error_handler previous = fastout::set_error_handler(recording_handler);
    handler_calls.clear();
    f.close();
    fastout::set_error_handler(previous);
    ASSERT_EQ(handler_calls.size(), 1u);
    EXPECT_EQ(handler_calls[0].bytes_lost, 4u + 300001u - 1000u);
    EXPECT_EQ(read_file(path("streams")), "head" + std::string(996, ' '));
  }
}

TEST_F(write_errors_report_faults, a_failed_sync_is_kept_not_thrown) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.sync_error = EIO;
  plan.syncs_allowed = 0;
  file f = fastout::output_file(path("sync"), fastout::write_errors::report);
  f.write("data");
  EXPECT_NO_THROW(f.sync());
  EXPECT_EQ(f.error(), system_error_code(EIO));
  EXPECT_NO_THROW(f.write("more"));
  EXPECT_NO_THROW(f.close());
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_TRUE(handler_calls[0].sync_failed);
  EXPECT_EQ(handler_calls[0].bytes_lost, 4u);  // "more"; "data" was written, unsynced
  EXPECT_EQ(read_file(path("sync")), "data");
}

TEST_F(write_errors_report_faults, a_failed_close_goes_to_the_handler) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.close_error = EIO;
  file f = fastout::output_file(path("close"), fastout::write_errors::report);
  f.write("all of it");
  EXPECT_NO_THROW(f.close());
  EXPECT_EQ(f.error(), system_error_code(EIO));
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_TRUE(handler_calls[0].close_failed);
  EXPECT_EQ(handler_calls[0].bytes_lost, 0u);
  EXPECT_EQ(read_file(path("close")), "all of it");
}

TEST_F(write_errors_report_faults, a_replacement_that_failed_leaves_the_target) {
  scoped_error_handler handler(recording_handler, handler_calls);
  const std::string target = path("target");
  fastout_test::write_file(target, "old");
  plan.budget = 3;
  file f = fastout::output_file(target, fastout::open_mode::replace, fastout::write_errors::report,
                                fastout::buffer_size = 4);
  EXPECT_NO_THROW(f.write("new content"));
  EXPECT_NO_THROW(f.close());
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_TRUE(handler_calls[0].not_replaced);
  EXPECT_EQ(handler_calls[0].bytes_lost, 11u);
  EXPECT_EQ(read_file(target), "old");
}

}  // namespace
