// SPDX-License-Identifier: MIT
// Opening that fails: EINTR from open(), through the fake system calls,
// and a signal interrupting the open of a FIFO without a reader, for real.
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

using open_faults = faked_platform;

// open() is not retried on EINTR, as fopen() does not retry it: a signal
// must be able to interrupt the open of a FIFO without a reader (the real
// one is open.a_signal_interrupts_the_open_of_a_fifo_without_a_reader).
// This test was OpenEintrIsRetried, which asserted the opposite.
TEST_F(open_faults, eintr_is_reported_as_fopen_reports_it) {
  plan.open_eintr_count = 1;
  expect_failure([&] { file f(path("open")); }, EINTR, path("open"), "open");
  EXPECT_EQ(plan.opens, 1);  // tried once
  EXPECT_FALSE(std::filesystem::exists(path("open")));
  file f(path("open"));
  EXPECT_EQ(plan.opens, 2);
  f.write("ok");
  f.close();
  EXPECT_EQ(read_file(path("open")), "ok");
}

// The same through the close plan's opens: a plain open with sync, the
// file and its directory with sync_directory, and each open of a
// replacement (its directory, the O_TMPFILE file, a named file).
TEST(open, eintr_is_reported_by_every_open_a_writer_makes) {
  temp_dir dir;
  const std::string target = dir.file("t");
  fastout_test::write_file(target, "old");
  static int opens_left;  // opens that succeed before the one interrupted
  static bool refuse_tmpfile;
  auto interrupted = [](int allowed, bool named) {
    opens_left = allowed;
    refuse_tmpfile = named;
    fastout::detail::platform.open = [](const char* path, int flags, mode_t mode) {
      if (opens_left-- == 0) {
        errno = EINTR;
        return -1;
      }
      return fastout::detail::real_platform.open(path, flags, mode);
    };
    fastout::detail::platform.openat = [](int at, const char* path, int flags, mode_t mode) {
      if (refuse_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) {
        errno = EOPNOTSUPP;
        return -1;
      }
      if (opens_left-- == 0) {
        errno = EINTR;
        return -1;
      }
      return fastout::detail::real_platform.openat(at, path, flags, mode);
    };
  };
  struct scenario {
    const char* name;
    file_options options;
    int allowed;
    bool named;
  };
  auto options = [](fastout::open_mode mode, bool sync, bool sync_directory) {
    file_options o;
    o.mode = mode;
    o.sync = sync;
    o.sync_directory = sync_directory;
    return o;
  };
  using fastout::open_mode;
  const scenario scenarios[] = {
      {"plain", options(open_mode::truncate, false, false), 0, false},
      {"sync", options(open_mode::truncate, true, false), 0, false},
      {"sync_directory: its directory", options(open_mode::append, false, true), 0, false},
      {"sync_directory: the file", options(open_mode::append, false, true), 1, false},
      {"replace: its directory", options(open_mode::replace, false, false), 0, false},
      {"replace: O_TMPFILE", options(open_mode::replace, false, false), 1, false},
      {"replace: a named file", options(open_mode::replace, false, false), 1, true},
  };
  for (const scenario& s : scenarios) {
    SCOPED_TRACE(s.name);
    fastout_test::scoped_platform restore;
    interrupted(s.allowed, s.named);
    const int descriptors = fastout_test::open_descriptors();
    expect_failure([&] { file f(target, s.options); }, EINTR, target, "open");
    EXPECT_EQ(opens_left, -1) << "not one open more after the interrupted one";
    EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
    EXPECT_EQ(read_file(target), "old");
    EXPECT_EQ(fastout_test::temporaries_in(dir.path()), std::vector<std::string>());
  }
}

// A FIFO without a reader blocks open() for writing; a signal whose
// handler does not ask for SA_RESTART interrupts it, and the writer reports
// EINTR as fopen() does, naming the path, instead of opening again and
// blocking for ever. For every way of opening that reaches the FIFO, and
// for the C API (NULL, errno EINTR).
TEST(open, a_signal_interrupts_the_open_of_a_fifo_without_a_reader) {
  FASTOUT_SKIP_ON_WINDOWS("needs FIFOs and alarm(), which Windows has not");
  temp_dir dir;
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int status = fastout_test::run_in_child([&] {
    struct sigaction action = {};
    action.sa_handler = [](int) {};
    action.sa_flags = 0;  // no SA_RESTART: the blocked open() returns EINTR
    if (::sigaction(SIGALRM, &action, nullptr) != 0) return 10;
    // Every 20 ms, so that a signal that comes before open() blocks is
    // followed by one that finds it blocked.
    struct itimerval timer = {{0, 20000}, {0, 20000}};
    if (::setitimer(ITIMER_REAL, &timer, nullptr) != 0) return 11;
    auto options = [](bool sync, bool sync_directory) {
      file_options o;
      o.sync = sync;
      o.sync_directory = sync_directory;
      return o;
    };
    const file_options ways[] = {options(false, false), options(true, false), options(false, true)};
    int code = 1;
    for (const file_options& way : ways) {
      ++code;
      try {
        file f(fifo, way);
        return code;  // opened: a reader?
      } catch (const std::system_error& e) {
        if (e.code().value() != EINTR) return 20 + code;
        if (!contains(e.what(), "cannot open \"" + fifo + "\" for writing")) return 30 + code;
      }
    }
    errno = 0;
    fastout_file* c = fastout_open(fifo.c_str(), nullptr);
    if (c != nullptr) return 40;
    if (errno != EINTR) return 41;
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << describe_status(status)
      << " (2-4: opened; 22-24: another error; 32-34: the message; 40, 41: the C API)";
}

}  // namespace
