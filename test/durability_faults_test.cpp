// SPDX-License-Identifier: MIT
// sync, sync_directory, page_cache::drop and preallocation when their
// system calls fail, through the fake system calls.
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

using durability_faults = faked_platform;

// The calls safe replacement will make are in the table, start as the real
// calls, and their fakes fail on demand.
TEST_F(durability_faults, the_durability_and_rename_calls_go_through_the_table) {
  using fastout::detail::real_platform;
  const auto& calls = fastout::detail::platform;
  int fd = ::open(path("synced").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(real_platform.fsync(fd), 0);
  EXPECT_EQ(real_platform.fdatasync(fd), 0);
  EXPECT_EQ(calls.fsync(fd), 0);
  plan.sync_error = EIO;
  plan.syncs_allowed = 1;
  errno = 0;
  EXPECT_EQ(calls.fdatasync(fd), -1);
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(plan.syncs, 2);
  // write_uncached, faked: as writev, at the file position.
  iovec piece = {const_cast<char*>("abc"), 3};
  EXPECT_EQ(real_platform.writev(fd, &piece, 1), 3);
  EXPECT_EQ(calls.write_uncached(fd, &piece, 1), 3);
  plan.uncached_error = EOPNOTSUPP;
  EXPECT_EQ(calls.write_uncached(fd, &piece, 1), -1);
  EXPECT_EQ(errno, EOPNOTSUPP);
  ::close(fd);
  EXPECT_EQ(read_file(path("synced")), "abcabc");
  EXPECT_EQ(calls.linkat(AT_FDCWD, path("synced").c_str(), AT_FDCWD, path("linked").c_str(), 0), 0);
  EXPECT_EQ(calls.renameat(AT_FDCWD, path("linked").c_str(), AT_FDCWD, path("renamed").c_str()), 0);
  EXPECT_EQ(read_file(path("renamed")), "abcabc");
  plan.rename_error = EXDEV;
  plan.link_error = EEXIST;
  plan.unlink_error = EBUSY;
  EXPECT_EQ(calls.renameat(AT_FDCWD, path("renamed").c_str(), AT_FDCWD, path("other").c_str()), -1);
  EXPECT_EQ(errno, EXDEV);
  EXPECT_EQ(calls.linkat(AT_FDCWD, path("renamed").c_str(), AT_FDCWD, path("x").c_str(), 0), -1);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(calls.unlinkat(AT_FDCWD, path("renamed").c_str(), 0), -1);
  EXPECT_EQ(errno, EBUSY);
  plan.unlink_error = 0;
  EXPECT_EQ(calls.unlinkat(AT_FDCWD, path("renamed").c_str(), 0), 0);
  EXPECT_EQ(plan.renames, 2);
  EXPECT_EQ(plan.links, 2);
  EXPECT_EQ(plan.unlinks, 2);
}

// A failed fsync is final (PostgreSQL's "fsyncgate"): it is reported, never
// retried as if it had succeeded, nothing whose sync failed is put in place,
// and the error stays.
TEST_F(durability_faults, a_failed_sync_is_final) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.sync_error = EIO;
  plan.syncs_allowed = 0;
  {
    file f = fastout::output_file(target, fastout::open_mode::replace, fastout::sync = true);
    f.write(new_content());
    expect_failure([&] { f.close(); }, EIO, target, "close");
    EXPECT_EQ(plan.syncs, 1);
    EXPECT_EQ(plan.renames + plan.exchange.calls + plan.links, 0);
    EXPECT_EQ(f.error(), system_error_code(EIO));
    EXPECT_NO_THROW(f.close());
    expect_failure([&] { f.write("x"); }, EIO, target, "write after close");
  }
  EXPECT_EQ(read_file(target), old_content);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());

  // file::sync() on a plain writer: sticky, and close() does not sync again.
  plan = fake_plan();
  plan.sync_error = EIO;
  plan.syncs_allowed = 0;
  std::string log = path("log");
  file f = fastout::output_file(log, fastout::open_mode::append, fastout::sync = true);
  f.write("entry 1\n");
  try {
    f.sync();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EIO));
    EXPECT_TRUE(contains(e.what(), "cannot sync \"" + log + "\"")) << e.what();
    EXPECT_TRUE(contains(e.what(), "may not survive a power loss")) << e.what();
  }
  expect_failure([&] { f.write("entry 2\n"); }, EIO, log, "write after a failed sync");
  expect_failure([&] { f.sync(); }, EIO, log, "sync again");
  try {
    f.close();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot sync")) << e.what();
  }
  EXPECT_EQ(plan.syncs, 1);  // never retried
}

TEST_F(durability_faults, the_options_make_their_syncs) {
  FASTOUT_SKIP_ON_WINDOWS(
      "sync_directory is refused on Windows, where NTFS has no directory sync (windows.sync_directory_is_refused_not_claimed)");
  struct expectation {
    const char* name;
    file_options options;
    int fsyncs_on_directories, fsyncs_on_files, fdatasyncs;
  };
  auto options = [](fastout::open_mode mode, bool sync, bool sync_directory) {
    file_options o = with_buffer(64);
    o.mode = mode;
    o.sync = sync;
    o.sync_directory = sync_directory;
    return o;
  };
  using fastout::open_mode;
  const expectation cases[] = {
      {"truncate", options(open_mode::truncate, false, false), 0, 0, 0},
      {"truncate, sync", options(open_mode::truncate, true, false), 0, 0, 1},
      {"truncate, sync_directory", options(open_mode::truncate, false, true), 1, 0, 0},
      {"append, sync + sync_directory", options(open_mode::append, true, true), 1, 0, 1},
      {"create_exclusive, sync", options(open_mode::create_exclusive, true, false), 0, 0, 1},
      {"replace", options(open_mode::replace, false, false), 0, 0, 0},
      {"replace, sync", options(open_mode::replace, true, false), 0, 1, 0},
      {"replace, sync_directory", options(open_mode::replace, false, true), 1, 0, 0},
      {"replace, sync + sync_directory", options(open_mode::replace, true, true), 1, 1, 0},
  };
  static int directory_fsyncs, file_fsyncs, fdatasyncs;
  fastout::detail::platform.fsync = [](int fd) {
    struct stat st;
    ::fstat(fd, &st);
    ++(S_ISDIR(st.st_mode) ? directory_fsyncs : file_fsyncs);
    return fastout::detail::real_platform.fsync(fd);
  };
  fastout::detail::platform.fdatasync = [](int fd) {
    ++fdatasyncs;
    return fastout::detail::real_platform.fdatasync(fd);
  };
  int i = 0;
  for (const expectation& c : cases) {
    SCOPED_TRACE(c.name);
    directory_fsyncs = file_fsyncs = fdatasyncs = 0;
    std::string p = dir_.file("synced-" + std::to_string(i++));
    {
      file f(p, c.options);
      f.write("data");
      f.close();
    }
    EXPECT_EQ(read_file(p), "data");
    EXPECT_EQ(directory_fsyncs, c.fsyncs_on_directories);
    EXPECT_EQ(file_fsyncs, c.fsyncs_on_files);
    EXPECT_EQ(fdatasyncs, c.fdatasyncs);
  }
  // A borrowed descriptor syncs too, and stays open.
  directory_fsyncs = file_fsyncs = fdatasyncs = 0;
  int fd = ::open(path("borrowed").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  file_options o = with_buffer(64);
  o.sync = true;
  {
    file f = file::borrow(fd, o);
    f.write("x");
    f.close();
  }
  EXPECT_EQ(fdatasyncs, 1);
  EXPECT_TRUE(fastout_test::fd_is_open(fd));
  ::close(fd);
}

TEST_F(durability_faults, a_destroyed_durable_writer_reports_a_failed_sync) {
  scoped_error_handler handler(recording_handler, handler_calls);
  plan.sync_error = EIO;
  plan.syncs_allowed = 0;
  {
    file f = fastout::output_file(path("lost"), fastout::sync = true);
    f.write("data");
  }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_TRUE(handler_calls[0].sync_failed);
  EXPECT_FALSE(handler_calls[0].not_replaced);
  EXPECT_EQ(handler_calls[0].bytes_lost, 0u);
  EXPECT_EQ(handler_calls[0].error, system_error_code(EIO));
}

TEST_F(durability_faults, page_cache_drop_falls_back_to_plain_writes) {
  std::string data = pattern(300000);
  for (int refusal : {EOPNOTSUPP, EINVAL, ENOSYS}) {
    SCOPED_TRACE(refusal);
    plan = fake_plan();
    plan.uncached_error = refusal;
    std::string p = path("uncached");
    file f = fastout::output_file(p, fastout::page_cache::drop, fastout::buffer_size = 4096);
    EXPECT_TRUE(f.drops_page_cache());
    write_mixed(f, data, 3);
    EXPECT_FALSE(f.drops_page_cache());
    f.close();
    EXPECT_EQ(read_file(p), data);
    EXPECT_EQ(plan.uncached_writes, 1);  // one probe, then write/writev
    EXPECT_EQ(f.stats().bytes_written, data.size());
  }
  // Any other error is a write error, not a reason to fall back.
  plan = fake_plan();
  plan.uncached_error = EIO;
  file f =
      fastout::output_file(path("failing"), fastout::page_cache::drop, fastout::buffer_size = 16);
  expect_failure([&] { f.write(std::string(100, 'x')); }, EIO, path("failing"), "write");
  expect_sticky(f, EIO, path("failing"));
}

TEST_F(durability_faults, preallocation_that_fails_is_skipped_and_unused_space_is_released) {
  FASTOUT_SKIP_ON_WINDOWS(
      "Windows has no preallocation that keeps the size (reserve is EOPNOTSUPP): nothing is reserved or released");
  plan.reserve.error = EOPNOTSUPP;
  {
    file f = fastout::output_file(path("a"), fastout::preallocate = 1 << 20);
    f.write("x");
    f.close();
  }
  EXPECT_EQ(plan.ftruncate.calls, 0);  // nothing was reserved, nothing to release
  plan = fake_plan();
  {
    file f = fastout::output_file(path("b"), fastout::preallocate = 1 << 20);
    f.write("x");
    f.close();
  }
  EXPECT_EQ(plan.reserve.calls, 1);
  EXPECT_EQ(plan.ftruncate.calls, 1);
  EXPECT_EQ(read_file(path("b")), "x");
  // A release that fails is an error (and, replacing, nothing is replaced).
  fastout_test::write_file(path("c"), old_content);
  plan = fake_plan();
  plan.ftruncate.error = EIO;
  file f =
      fastout::output_file(path("c"), fastout::open_mode::replace, fastout::preallocate = 1 << 20);
  f.write("x");
  try {
    f.close();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_TRUE(contains(e.what(), "cannot release the space preallocated for")) << e.what();
    EXPECT_TRUE(contains(e.what(), "left as it was")) << e.what();
  }
  EXPECT_EQ(read_file(path("c")), old_content);
}

}  // namespace
