// SPDX-License-Identifier: MIT
// Tests of how fastout::file fails: through the mockable system-call layer
// (EINTR, short writes, EIO, ENOSPC, EAGAIN, ...) and for real (/dev/full,
// RLIMIT_FSIZE, a pipe with no reader, a closed descriptor, a storm of timer
// signals). Nothing may be lost silently: every failure is reported at the
// call that met it, stays visible, and the byte counts stay exact. The C
// API's faults are here too, at the end, through the same fakes.
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

#include "test_util.h"

namespace {

using fastout::buffering;
using fastout::file;
using fastout::file_options;
using fastout_test::contains;
using fastout_test::describe_status;
using fastout_test::read_file;
using fastout_test::temp_dir;

using fastout_test::size_list;

using fastout_test::with_buffer;

using fastout_test::system_error_code;

// Bytes that differ from their neighbours and do not repeat with any period
// a buffer size could hide.
char pattern_byte(std::uint64_t i) {
  std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return static_cast<char>(x >> 56);
}

std::string pattern(std::size_t size, std::uint64_t offset = 0) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = pattern_byte(offset + i);
  return s;
}

// Runs `call`, which must throw std::system_error with `error_number` and a
// message naming `path`.
void expect_failure(const std::function<void()>& call, int error_number, const std::string& path,
                    const char* what_call) {
  try {
    call();
    ADD_FAILURE() << what_call << ": no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(error_number))
        << what_call << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), path)) << what_call << ": " << e.what();
  }
}

// Every later call reports the sticky error too, and writes nothing more.
void expect_sticky(file& f, int error_number, const std::string& path) {
  fastout::file_stats before = f.stats();
  EXPECT_EQ(f.error(), system_error_code(error_number));
  expect_failure([&] { f.put('x'); }, error_number, path, "put");
  expect_failure([&] { f.write("abc"); }, error_number, path, "write");
  expect_failure([&] { f.write(std::string_view()); }, error_number, path, "empty write");
  expect_failure([&] { f.write(std::string(100000, 'y')); }, error_number, path, "large write");
  expect_failure([&] { f.flush(); }, error_number, path, "flush");
  expect_failure(
      [&] {
        fastout::cursor c = f.make_cursor();
        c.put('z');
      },
      error_number, path, "cursor put");
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.stats().bytes_written, before.bytes_written);
  EXPECT_EQ(f.stats().write_calls, before.write_calls);
  expect_failure([&] { f.close(); }, error_number, path, "close");
  EXPECT_FALSE(f.is_open());
  EXPECT_NO_THROW(f.close());  // idempotent: the error was reported once by close()
  expect_failure([&] { f.put('x'); }, error_number, path, "put after close");
  EXPECT_EQ(f.stats().bytes_written, before.bytes_written);
}

// ---------------------------------------------------------------- the fakes

// What the fake system calls do; reset before every test.
struct fake_plan {
  std::uint64_t budget = UINT64_MAX;  // bytes that may still reach the file
  int error = EIO;                    // what write/writev fail with once it is spent
  std::size_t max_chunk = SIZE_MAX;   // the most one call writes: short writes
  int eintr_every = 0;                // calls 1, 1+n, 1+2n, ... fail with EINTR (n >= 2)
  int eagain_count = 0;               // the next n calls fail with EAGAIN
  int zero_count = 0;                 // the next n calls return 0
  int poll_eintr_count = 0;           // the next n polls fail with EINTR
  int poll_error = 0;                 // then polls fail with this
  int close_error = 0;                // close() closes, then fails with this
  int open_eintr_count = 0;           // the next n opens fail with EINTR
  // The calls safe replacement uses: each fails with its error once its
  // count of successful calls is spent (0: the first call fails).
  int sync_error = 0;                 // fsync and fdatasync
  int syncs_allowed = INT32_MAX;
  int rename_error = 0;               // renameat
  int link_error = 0;                 // linkat
  int unlink_error = 0;               // unlinkat
  int pwritev2_error = 0;             // pwritev2, before writing anything
  // The rest of the calls safe replacement makes: each fails with .error
  // once .allowed calls have succeeded.
  struct call_fault {
    int error = 0;
    int allowed = 0;
    int calls = 0;
  };
  call_fault openat, fstatat, readlinkat, read, renameat2, fchmod, fchown, fallocate, ftruncate,
      getrandom, fcntl_lock, dup, getdents64;
  bool tmpfile_unsupported = false;   // openat(O_TMPFILE) fails with EOPNOTSUPP: named files
  int same_random = 0;                // the next n getrandom calls give the same bytes
  int umask_calls = 0;
  // A sweep over the steps of a scenario: every call above counts as one
  // step (in `steps`, named in `step_names` when `record_steps`), and step
  // number `fail_step` (from 1) fails with `step_error`, whatever call it is.
  int fail_step = 0;
  int step_error = EIO;
  bool record_steps = false;
  int steps = 0;
  std::vector<std::string> step_names;

  int calls = 0;  // write + writev
  int eintrs = 0;
  int eagains = 0;
  int polls = 0;
  int opens = 0;
  int syncs = 0;
  int renames = 0;
  int links = 0;
  int unlinks = 0;
  int pwritev2s = 0;
  struct pollfd last_poll = {};
};
fake_plan plan;

// Counts a step of the sweep; true if this one must fail (errno is set).
bool step_fails(const char* name) {
  ++plan.steps;
  if (plan.record_steps) plan.step_names.push_back(name);
  if (plan.steps != plan.fail_step) return false;
  errno = plan.step_error;
  return true;
}

// Counts a call of one kind; true if it must fail (errno is set).
bool call_fails(fake_plan::call_fault& fault, const char* name) {
  if (step_fails(name)) return true;
  if (fault.error != 0 && fault.calls >= fault.allowed) {
    ++fault.calls;
    errno = fault.error;
    return true;
  }
  ++fault.calls;
  return false;
}

ssize_t fake_writev(int fd, const iovec* iov, int count) {
  if (step_fails("writev")) return -1;
  ++plan.calls;
  if (plan.eintr_every >= 2 && plan.calls % plan.eintr_every == 1) {
    ++plan.eintrs;
    errno = EINTR;
    return -1;
  }
  if (plan.eagain_count > 0) {
    --plan.eagain_count;
    ++plan.eagains;
    errno = EAGAIN;
    return -1;
  }
  if (plan.zero_count > 0) {
    --plan.zero_count;
    return 0;
  }
  std::size_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  std::size_t allowed = std::min<std::uint64_t>({total, plan.max_chunk, plan.budget});
  if (total > 0 && allowed == 0) {
    errno = plan.error;
    return -1;
  }
  iovec trimmed[16];
  int n = 0;
  for (int i = 0; i < count && allowed > 0 && n < 16; ++i) {
    trimmed[n] = iov[i];
    trimmed[n].iov_len = std::min(iov[i].iov_len, allowed);
    allowed -= trimmed[n].iov_len;
    ++n;
  }
  ssize_t result = fastout::detail::real_system_calls.writev(fd, trimmed, n);
  if (result > 0) plan.budget -= static_cast<std::uint64_t>(result);
  return result;
}

ssize_t fake_write(int fd, const void* data, size_t size) {
  iovec one = {const_cast<void*>(data), size};
  return fake_writev(fd, &one, 1);
}

int fake_poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  ++plan.polls;
  if (count >= 1) plan.last_poll = fds[0];
  (void)timeout_ms;
  if (plan.poll_eintr_count > 0) {
    --plan.poll_eintr_count;
    errno = EINTR;
    return -1;
  }
  if (plan.poll_error != 0) {
    errno = plan.poll_error;
    return -1;
  }
  fds[0].revents = POLLOUT;
  return 1;
}

int fake_close(int fd) {
  // A descriptor only read from (a directory, /proc) is a step of its own:
  // the writer may ignore its failure.
  int flags = ::fcntl(fd, F_GETFL);
  const bool writable = flags != -1 && (flags & O_ACCMODE) != O_RDONLY && (flags & O_PATH) == 0;
  int result = fastout::detail::real_system_calls.close(fd);
  if (step_fails(writable ? "close" : "close (read-only)")) return -1;  // closed, as Linux does
  if (plan.close_error != 0) {
    errno = plan.close_error;
    return -1;
  }
  return result;
}

int fake_open(const char* path, int flags, mode_t mode) {
  if (step_fails("open")) return -1;
  ++plan.opens;
  if (plan.open_eintr_count > 0) {
    --plan.open_eintr_count;
    errno = EINTR;
    return -1;
  }
  return fastout::detail::real_system_calls.open(path, flags, mode);
}

int fake_fsync_as(int (*real)(int), int fd) {
  if (step_fails(real == fastout::detail::real_system_calls.fsync ? "fsync" : "fdatasync"))
    return -1;
  ++plan.syncs;
  if (plan.sync_error != 0 && plan.syncs > plan.syncs_allowed) {
    errno = plan.sync_error;
    return -1;
  }
  return real(fd);
}
int fake_fsync(int fd) { return fake_fsync_as(fastout::detail::real_system_calls.fsync, fd); }
int fake_fdatasync(int fd) {
  return fake_fsync_as(fastout::detail::real_system_calls.fdatasync, fd);
}

int fake_renameat(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  if (step_fails("renameat")) return -1;
  ++plan.renames;
  if (plan.rename_error != 0) {
    errno = plan.rename_error;
    return -1;
  }
  return fastout::detail::real_system_calls.renameat(old_dir, old_path, new_dir, new_path);
}

int fake_linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags) {
  if (step_fails("linkat")) return -1;
  ++plan.links;
  if (plan.link_error != 0) {
    errno = plan.link_error;
    return -1;
  }
  return fastout::detail::real_system_calls.linkat(old_dir, old_path, new_dir, new_path, flags);
}

int fake_unlinkat(int dir, const char* name, int flags) {
  if (step_fails("unlinkat")) return -1;
  ++plan.unlinks;
  if (plan.unlink_error != 0) {
    errno = plan.unlink_error;
    return -1;
  }
  return fastout::detail::real_system_calls.unlinkat(dir, name, flags);
}

// pwritev2 shares write's budget and short writes once it starts.
ssize_t fake_pwritev2(int fd, const iovec* iov, int count, off_t offset, int flags) {
  ++plan.pwritev2s;
  if (plan.pwritev2_error != 0) {
    errno = plan.pwritev2_error;
    return -1;
  }
  (void)offset, (void)flags;  // -1 (the file position) and flags the real file does without
  return fake_writev(fd, iov, count);
}

const fastout::detail::system_call_table& real() { return fastout::detail::real_system_calls; }

int fake_openat(int dir, const char* path, int flags, mode_t mode) {
  if ((flags & O_TMPFILE) == O_TMPFILE && plan.tmpfile_unsupported) {
    errno = EOPNOTSUPP;
    return -1;
  }
  const bool proc = std::strncmp(path, "/proc/", 6) == 0;
  if (call_fails(plan.openat, proc ? "openat /proc" : "openat")) return -1;
  return real().openat(dir, path, flags, mode);
}
int fake_fstat(int fd, struct stat* st) {
  if (step_fails("fstat")) return -1;
  return real().fstat(fd, st);
}
int fake_fstatat(int dir, const char* path, struct stat* st, int flags) {
  const bool proc = std::strncmp(path, "/proc/", 6) == 0;
  if (call_fails(plan.fstatat, proc ? "fstatat /proc" : "fstatat")) return -1;
  return real().fstatat(dir, path, st, flags);
}
ssize_t fake_readlinkat(int dir, const char* path, char* buffer, size_t size) {
  if (call_fails(plan.readlinkat, "readlinkat")) return -1;
  return real().readlinkat(dir, path, buffer, size);
}
ssize_t fake_read(int fd, void* data, size_t size) {
  if (call_fails(plan.read, "read")) return -1;
  return real().read(fd, data, size);
}
int fake_renameat2(int old_dir, const char* old_path, int new_dir, const char* new_path,
                   unsigned flags) {
  if (call_fails(plan.renameat2, "renameat2")) return -1;
  return real().renameat2(old_dir, old_path, new_dir, new_path, flags);
}
int fake_fchmod(int fd, mode_t mode) {
  if (call_fails(plan.fchmod, "fchmod")) return -1;
  return real().fchmod(fd, mode);
}
int fake_fchown(int fd, uid_t owner, gid_t group) {
  if (call_fails(plan.fchown, "fchown")) return -1;
  return real().fchown(fd, owner, group);
}
mode_t fake_umask(mode_t mask) {
  ++plan.umask_calls;
  return real().umask(mask);
}
int fake_fallocate(int fd, int mode, off_t offset, off_t length) {
  if (call_fails(plan.fallocate, "fallocate")) return -1;
  return real().fallocate(fd, mode, offset, length);
}
int fake_ftruncate(int fd, off_t length) {
  if (call_fails(plan.ftruncate, "ftruncate")) return -1;
  return real().ftruncate(fd, length);
}
int fake_fcntl_lock(int fd, int command, struct flock* lock) {
  if (call_fails(plan.fcntl_lock, "fcntl lock")) return -1;
  return real().fcntl_lock(fd, command, lock);
}
int fake_dup(int fd) {
  if (call_fails(plan.dup, "dup")) return -1;
  return real().dup(fd);
}
ssize_t fake_getdents64(int fd, void* buffer, size_t size) {
  if (call_fails(plan.getdents64, "getdents64")) return -1;
  return real().getdents64(fd, buffer, size);
}
ssize_t fake_getrandom(void* data, size_t size, unsigned flags) {
  if (call_fails(plan.getrandom, "getrandom")) return -1;
  if (plan.same_random > 0) {
    --plan.same_random;
    std::memset(data, 0x5a, size);
    return static_cast<ssize_t>(size);
  }
  return real().getrandom(data, size, flags);
}

// The handler tests install; it records what it is told.
struct handler_call {
  std::string path;
  std::error_code error;
  std::uint64_t bytes_lost;
  bool close_failed;
  bool sync_failed;
  bool not_replaced;
};
std::vector<handler_call> handler_calls;
void recording_handler(const fastout::error_report& report) noexcept {
  handler_calls.push_back({report.path, report.error, report.bytes_lost, report.close_failed,
                           report.sync_failed, report.not_replaced});
}

using fastout_test::scoped_error_handler;

class FakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plan = fake_plan();
    fastout::detail::system_calls.write = fake_write;
    fastout::detail::system_calls.writev = fake_writev;
    fastout::detail::system_calls.poll = fake_poll;
    fastout::detail::system_calls.close = fake_close;
    fastout::detail::system_calls.open = fake_open;
    fastout::detail::system_calls.fsync = fake_fsync;
    fastout::detail::system_calls.fdatasync = fake_fdatasync;
    fastout::detail::system_calls.renameat = fake_renameat;
    fastout::detail::system_calls.linkat = fake_linkat;
    fastout::detail::system_calls.unlinkat = fake_unlinkat;
    fastout::detail::system_calls.pwritev2 = fake_pwritev2;
    fastout::detail::system_calls.openat = fake_openat;
    fastout::detail::system_calls.fstat = fake_fstat;
    fastout::detail::system_calls.fstatat = fake_fstatat;
    fastout::detail::system_calls.readlinkat = fake_readlinkat;
    fastout::detail::system_calls.read = fake_read;
    fastout::detail::system_calls.renameat2 = fake_renameat2;
    fastout::detail::system_calls.fchmod = fake_fchmod;
    fastout::detail::system_calls.fchown = fake_fchown;
    fastout::detail::system_calls.umask = fake_umask;
    fastout::detail::system_calls.fallocate = fake_fallocate;
    fastout::detail::system_calls.ftruncate = fake_ftruncate;
    fastout::detail::system_calls.getrandom = fake_getrandom;
    fastout::detail::system_calls.fcntl_lock = fake_fcntl_lock;
    fastout::detail::system_calls.dup = fake_dup;
    fastout::detail::system_calls.getdents64 = fake_getdents64;
  }
  std::string path(const char* name) const { return dir_.file(name); }

  fastout_test::scoped_system_calls restore_;
  temp_dir dir_;
};

// The suites name the feature whose faults they fake.
using write_faults = FakeTest;
using open_faults = FakeTest;
using cursor_faults = FakeTest;
using error_handler_faults = FakeTest;
using durability_faults = FakeTest;
using replace_faults = FakeTest;
using c_api_faults = FakeTest;
using write_errors_report_faults = FakeTest;

// Writes `data` with a mix of put(), small and large write() and cursor
// calls, as a program would.
void write_mixed(file& f, const std::string& data, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::size_t i = 0;
  while (i < data.size()) {
    std::size_t left = data.size() - i;
    switch (rng() % 4) {
      case 0:
        f.put(data[i++]);
        break;
      case 1: {
        std::size_t n = std::min<std::size_t>(rng() % 40, left);
        f.write(data.data() + i, n);
        i += n;
        break;
      }
      case 2: {
        std::size_t n = std::min<std::size_t>(rng() % 400, left);
        f.write(std::string_view(data.data() + i, n));
        i += n;
        break;
      }
      default: {
        fastout::cursor c = f.make_cursor();
        for (std::size_t n = std::min<std::size_t>(rng() % 50, left); n > 0; --n) c.put(data[i++]);
        break;
      }
    }
  }
}

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
    fastout::detail::system_calls.open = [](const char* path, int flags, mode_t mode) {
      if (opens_left-- == 0) {
        errno = EINTR;
        return -1;
      }
      return fastout::detail::real_system_calls.open(path, flags, mode);
    };
    fastout::detail::system_calls.openat = [](int at, const char* path, int flags, mode_t mode) {
      if (refuse_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) {
        errno = EOPNOTSUPP;
        return -1;
      }
      if (opens_left-- == 0) {
        errno = EINTR;
        return -1;
      }
      return fastout::detail::real_system_calls.openat(at, path, flags, mode);
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
    fastout_test::scoped_system_calls restore;
    interrupted(s.allowed, s.named);
    const int descriptors = fastout_test::open_descriptors();
    expect_failure([&] { file f(target, s.options); }, EINTR, target, "open");
    EXPECT_EQ(opens_left, -1) << "not one open more after the interrupted one";
    EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
    EXPECT_EQ(read_file(target), "old");
    EXPECT_EQ(fastout_test::temporaries_in(dir.path()), std::vector<std::string>());
  }
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

TEST_F(write_faults, eagain_waits_in_poll_then_writes) {
  plan.eagain_count = 1;
  file f(path("eagain"), with_buffer(64));
  f.write("hello");
  f.flush();
  EXPECT_EQ(plan.eagains, 1);
  EXPECT_EQ(plan.polls, 1);
  EXPECT_EQ(plan.last_poll.fd, f.descriptor());
  EXPECT_EQ(plan.last_poll.events, POLLOUT);
  EXPECT_EQ(f.stats().write_calls, 2u);
  EXPECT_EQ(f.stats().bytes_written, 5u);
  f.close();
  EXPECT_EQ(read_file(path("eagain")), "hello");
}

TEST_F(write_faults, eagain_with_an_interrupted_poll_waits_again) {
  plan.eagain_count = 3;
  plan.poll_eintr_count = 2;
  plan.max_chunk = 2;
  file f(path("eagain"), with_buffer(4));
  std::string data = pattern(1000);
  write_mixed(f, data, 3);
  f.close();
  EXPECT_EQ(plan.polls, 3);
  EXPECT_EQ(read_file(path("eagain")), data);
}

TEST_F(write_faults, a_failing_poll_is_an_error) {
  plan.eagain_count = 1;
  plan.poll_error = ENOMEM;
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
  {
    file f("/dev/full", with_buffer(64));
  }  // nothing to write: nothing lost
  EXPECT_TRUE(handler_calls.empty());
}

TEST(error_handler, is_called_for_an_error_already_thrown_but_not_closed) {
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
  { file f(path("write"), with_buffer(64)); f.write("abc"); }
  ASSERT_EQ(handler_calls.size(), 1u);
  EXPECT_EQ(handler_calls[0].bytes_lost, 3u);
  EXPECT_FALSE(handler_calls[0].close_failed);
}

// The calls safe replacement will make are in the table, start as the real
// calls, and their fakes fail on demand.
TEST_F(durability_faults, the_durability_and_rename_calls_go_through_the_table) {
  using fastout::detail::real_system_calls;
  const auto& calls = fastout::detail::system_calls;
  int fd = ::open(path("synced").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(real_system_calls.fsync(fd), 0);
  EXPECT_EQ(real_system_calls.fdatasync(fd), 0);
  EXPECT_EQ(calls.fsync(fd), 0);
  plan.sync_error = EIO;
  plan.syncs_allowed = 1;
  errno = 0;
  EXPECT_EQ(calls.fdatasync(fd), -1);
  EXPECT_EQ(errno, EIO);
  EXPECT_EQ(plan.syncs, 2);
  // pwritev2 at the file position, no flags: as writev.
  iovec piece = {const_cast<char*>("abc"), 3};
  EXPECT_EQ(real_system_calls.pwritev2(fd, &piece, 1, -1, 0), 3);
  EXPECT_EQ(calls.pwritev2(fd, &piece, 1, -1, 0), 3);
  plan.pwritev2_error = EOPNOTSUPP;
  EXPECT_EQ(calls.pwritev2(fd, &piece, 1, -1, 0), -1);
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
  const std::string sixty(60, 's');
  const std::string long_text(200, 'L');
  const std::vector<failing_path> paths = {
      {"write() loop", 4096, buffering::full,
       [](file& f) { for (;;) f.write("0123456789"); }, 4100},
      {"put() loop", 64, buffering::full, [](file& f) { for (;;) f.put('p'); }, 65},
      {"large write() after buffered text", 64, buffering::full,
       [](file& f) { f.write("0123456789"); f.write(std::string(100, 'w')); }, 110},
      {"write() straddling a full buffer", 64, buffering::full,
       [&](file& f) { f.write(sixty); f.write("0123456789"); }, 70},
      {"unbuffered write()", 0, buffering::full, [](file& f) { f.write("0123456789"); }, 10},
      {"line-buffered write()", 64, buffering::line, [](file& f) { f.write("ab\ncd"); }, 5},
      {"cursor put() loop", 64, buffering::full,
       [](file& f) { fastout::cursor c = f.make_cursor(); for (;;) c.put('c'); }, 65},
      {"print() that needs room", 64, buffering::full,
       [&](file& f) { f.write(sixty); f.print("{}", "0123456789"); }, 60},
      {"compiled print() that needs room", 64, buffering::full,
       [&](file& f) { f.write(sixty); f.println(FMT_COMPILE("{}-{}"), 12345, "abc"); }, 60},
      {"print() larger than the buffer", 64, buffering::full,
       [&](file& f) { f.print("{}", long_text); }, 200},
      {"unbuffered print()", 0, buffering::full, [](file& f) { f.print("{}|", 42); }, 3},
      {"line-buffered print()", 64, buffering::line, [](file& f) { f.print("ab\n{}", 7); }, 4},
      {"<< that needs room", 64, buffering::full,
       [&](file& f) { f.write(sixty); f << 1234567; }, 67},
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

// ---------------------------------------------------------------- real failures

TEST(full_disk, dev_full_is_enospc) {
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

TEST(file_size_limit, rlimit_fsize_is_efbig) {
  temp_dir dir;
  std::string small_writes = dir.file("small-writes");
  std::string large_write = dir.file("large-write");
  std::string data = pattern(5000);
  int status = fastout_test::run_in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit;
    if (::getrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
    limit.rlim_cur = 1000;
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 11;
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
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << describe_status(status) << " (see the return statements in the child)";
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

// A FIFO without a reader blocks open() for writing; a signal whose
// handler does not ask for SA_RESTART interrupts it, and the writer reports
// EINTR as fopen() does, naming the path, instead of opening again and
// blocking for ever. For every way of opening that reaches the FIFO, and
// for the C API (NULL, errno EINTR).
TEST(open, a_signal_interrupts_the_open_of_a_fifo_without_a_reader) {
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
    const file_options ways[] = {options(false, false), options(true, false),
                                 options(false, true)};
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
  ssize_t result = fastout::detail::real_system_calls.writev(fd, iov, count);
  if (result < 0 && errno == EINTR) interrupted_calls.fetch_add(1);
  if (result >= 0 && static_cast<std::size_t>(result) < asked) partial_calls.fetch_add(1);
  return result;
}
ssize_t counting_write(int fd, const void* data, size_t size) {
  iovec one = {const_cast<void*>(data), size};
  return counting_writev(fd, &one, 1);
}

TEST(signal_storm, every_byte_arrives_in_order) {
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

  fastout_test::scoped_system_calls restore;
  fastout::detail::system_calls.write = counting_write;
  fastout::detail::system_calls.writev = counting_writev;
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
    const std::size_t sizes[] = {1,     2,      7,          100,        4095,      buffer - 1,
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

// ---------------------------------------------------------------- safe replacement, step by step
//
// Every step of open_mode::replace and of the durability options fails in
// turn (fake_plan's step sweep): each failure gives an error naming the
// path, the target shows either its old content or the whole new content
// (whichever the message says), no temporary file stays behind unless the
// message names it, and no descriptor leaks.

const std::string old_content = "the old content\n";
const std::string& new_content() {
  static const std::string content = pattern(10000);
  return content;
}

struct replace_scenario {
  std::string name;
  bool target_exists;
  bool named;         // O_TMPFILE refused: a named temporary file
  bool durable;       // sync and sync_directory
  std::uint64_t preallocate;
  bool commit;        // false: the writer is destroyed without close()
};

std::vector<replace_scenario> replace_scenarios() {
  std::vector<replace_scenario> all;
  for (bool exists : {true, false})
    for (bool named : {false, true})
      for (bool durable : {false, true})
        for (std::uint64_t preallocate : {std::uint64_t{0}, std::uint64_t{1} << 20})
          for (bool commit : {true, false}) {
            std::string name = std::string(exists ? "existing" : "new") +
                               (named ? ", named" : ", O_TMPFILE") +
                               (durable ? ", sync + sync_directory" : "") +
                               (preallocate != 0 ? ", preallocated" : "") +
                               (commit ? "" : ", destroyed without close()");
            all.push_back({name, exists, named, durable, preallocate, commit});
          }
  return all;
}

struct replace_outcome {
  bool threw = false;
  int error = 0;
  std::string message;
};

replace_outcome run_replace(const std::string& path, const replace_scenario& scenario) {
  file_options options = with_buffer(4096);
  options.mode = fastout::open_mode::replace;
  options.sync = scenario.durable;
  options.sync_directory = scenario.durable;
  options.preallocate = scenario.preallocate;
  replace_outcome outcome;
  try {
    file f(path, options);
    const std::string& data = new_content();
    for (std::size_t i = 0; i < data.size(); i += 3000)
      f.write(data.data() + i, std::min<std::size_t>(3000, data.size() - i));
    if (scenario.commit) f.close();
  } catch (const std::system_error& e) {
    outcome.threw = true;
    outcome.error = e.code().value();
    outcome.message = e.what();
  }
  return outcome;
}

// "old", "new", "missing", or what else is at `path`, for short messages.
std::string state_of(const std::string& path) {
  if (!std::filesystem::exists(path)) return "missing";
  std::string content = read_file(path);
  if (content == old_content) return "old";
  if (content == new_content()) return "new";
  return std::to_string(content.size()) + " other bytes";
}

// Steps whose failure the writer works around: preallocation is optional,
// the umask has a fallback, random names have a fallback, the /proc probe
// falls back to a named file, and a failing close of a descriptor only read
// from is no loss.
bool failure_is_worked_around(const std::string& step) {
  return step == "fallocate" || step == "read" || step == "getrandom" ||
         step == "openat /proc" || step == "fstatat /proc" || step == "fstat" ||
         step == "close (read-only)";
}

TEST_F(replace_faults, failing_at_every_step_keeps_the_target_whole) {
  int runs = 0;
  for (const replace_scenario& scenario : replace_scenarios()) {
    SCOPED_TRACE(scenario.name);
    const std::string target = path("target");
    auto reset = [&] {
      std::filesystem::remove(target);
      for (const std::string& name : fastout_test::names_in(dir_.path()))
        std::filesystem::remove_all(dir_.file(name));
      if (scenario.target_exists) fastout_test::write_file(target, old_content);
    };
    const std::string old_state = scenario.target_exists ? "old" : "missing";
    const std::string new_state = scenario.commit ? "new" : old_state;

    // The steps of a run where nothing fails.
    reset();
    plan = fake_plan();
    plan.tmpfile_unsupported = scenario.named;
    plan.record_steps = true;
    {
      scoped_error_handler handler(recording_handler, handler_calls);
      replace_outcome clean = run_replace(target, scenario);
      ASSERT_FALSE(clean.threw) << clean.message;
      EXPECT_EQ(handler_calls.size(), scenario.commit ? 0u : 1u);
    }
    ASSERT_EQ(state_of(target), new_state);
    ASSERT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
    const std::vector<std::string> steps = plan.step_names;
    ASSERT_GT(steps.size(), 3u);

    for (int step = 1; step <= static_cast<int>(steps.size()); ++step) {
      const std::string& call = steps[static_cast<std::size_t>(step - 1)];
      SCOPED_TRACE("step " + std::to_string(step) + " of " + std::to_string(steps.size()) + ": " +
                   call);
      reset();
      plan = fake_plan();
      plan.tmpfile_unsupported = scenario.named;
      plan.fail_step = step;
      plan.step_error = EIO;
      const int descriptors = fastout_test::open_descriptors();
      scoped_error_handler handler(recording_handler, handler_calls);
      replace_outcome outcome = run_replace(target, scenario);
      ++runs;
      EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
      const std::string now = state_of(target);
      std::vector<std::string> left = fastout_test::temporaries_in(dir_.path());
      if (outcome.threw) {
        EXPECT_EQ(outcome.error, EIO) << outcome.message;
        EXPECT_TRUE(contains(outcome.message, target)) << outcome.message;
      }
      // Thrown by the constructor, by a write, or by close().
      const bool at_open = outcome.threw && outcome.message.rfind("cannot open", 0) == 0;
      const bool at_write = outcome.threw && !at_open && !handler_calls.empty();

      if (at_open) {
        // Nothing was created, so there is nothing to report or remove.
        EXPECT_EQ(now, old_state) << outcome.message;
        EXPECT_EQ(handler_calls.size(), 0u);
        EXPECT_EQ(left, std::vector<std::string>());
        continue;
      }
      if (!scenario.commit || at_write) {
        // Destroyed without close(): always the old state, and the handler
        // hears of it, once.
        EXPECT_EQ(now, old_state) << outcome.message;
        ASSERT_EQ(handler_calls.size(), 1u);
        EXPECT_TRUE(handler_calls[0].not_replaced);
        EXPECT_EQ(handler_calls[0].path, target);
        if (call == "unlinkat") {
          EXPECT_EQ(left.size(), 1u);  // the named file whose removal failed
          EXPECT_EQ(handler_calls[0].error, system_error_code(EIO));
        } else {
          EXPECT_EQ(left, std::vector<std::string>());
        }
        continue;
      }
      EXPECT_EQ(handler_calls.size(), 0u);  // close() threw, or all went well
      if (!outcome.threw) {
        EXPECT_TRUE(failure_is_worked_around(call)) << "a failure that went unreported";
        EXPECT_EQ(now, new_state);
        EXPECT_EQ(left, std::vector<std::string>());
        continue;
      }
      if (contains(outcome.message, "left as it was")) {
        EXPECT_EQ(now, old_state) << outcome.message;
      } else {
        // Failed after the new file was in place: the message says so.
        EXPECT_TRUE(contains(outcome.message, "in place") || contains(outcome.message, "replaced "))
            << outcome.message;
        EXPECT_EQ(now, new_state) << outcome.message;
      }
      if (contains(outcome.message, "left at")) {
        ASSERT_EQ(left.size(), 1u) << outcome.message;
        EXPECT_TRUE(contains(outcome.message, left[0])) << outcome.message;
      } else {
        EXPECT_EQ(left, std::vector<std::string>()) << outcome.message;
      }
    }
  }
  std::printf("%d runs, each failing at one step\n", runs);
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
    EXPECT_EQ(plan.renames + plan.renameat2.calls + plan.links, 0);
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
  fastout::detail::system_calls.fsync = [](int fd) {
    struct stat st;
    ::fstat(fd, &st);
    ++(S_ISDIR(st.st_mode) ? directory_fsyncs : file_fsyncs);
    return fastout::detail::real_system_calls.fsync(fd);
  };
  fastout::detail::system_calls.fdatasync = [](int fd) {
    ++fdatasyncs;
    return fastout::detail::real_system_calls.fdatasync(fd);
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

TEST_F(replace_faults, a_named_temporary_is_private_until_it_is_in_place) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  plan.tmpfile_unsupported = true;
  file f = fastout::output_file(target, fastout::open_mode::replace, fastout::buffer_size = 16);
  f.write(new_content());
  std::vector<std::string> names = fastout_test::temporaries_in(dir_.path());
  ASSERT_EQ(names.size(), 1u);
  // ".fastout-" + 16 hex digits + "-" + the target's name
  ASSERT_EQ(names[0].size(), 9u + 16u + 1u + 6u) << names[0];
  EXPECT_EQ(names[0].substr(25), "-target");
  EXPECT_EQ(names[0].find_first_not_of("0123456789abcdef", 9), 25u) << names[0];
  struct stat st;
  ASSERT_EQ(::stat(dir_.file(names[0]).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(read_file(target), old_content);
  f.close();
  EXPECT_EQ(read_file(target), new_content());
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
}

TEST_F(replace_faults, temporary_names_that_exist_are_never_reused) {
  const std::string taken = ".fastout-5a5a5a5a5a5a5a5a-target";
  fastout_test::write_file(path(taken.c_str()), "someone else's");
  // Another live writer's file: it holds the lock a writer holds on its
  // new file. (Without it, the file would be one a killed writer left, and
  // a replacement of "target" would remove it: crash_test.cpp.)
  fastout_test::live_writer_lock other_writer(path(taken.c_str()));
  for (bool named : {true, false}) {
    SCOPED_TRACE(named ? "named" : "O_TMPFILE, linked to a temporary name");
    plan = fake_plan();
    plan.tmpfile_unsupported = named;
    plan.same_random = 2;  // the first two names collide
    std::string target = path("target");
    fastout_test::write_file(target, old_content);
    file f = fastout::output_file(target, fastout::open_mode::replace);
    f.write("new");
    f.close();
    EXPECT_EQ(read_file(target), "new");
    EXPECT_EQ(read_file(path(taken.c_str())), "someone else's");
    EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>{taken});
  }
  // A hundred collisions in a row: EEXIST, naming the path.
  plan = fake_plan();
  plan.tmpfile_unsupported = true;
  plan.same_random = 1000;
  expect_failure(
      [&] { file f = fastout::output_file(path("target"), fastout::open_mode::replace); }, EEXIST,
      path("target"), "open");
}

TEST_F(replace_faults, without_rename_exchange_a_rename_replaces) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.renameat2.error = EINVAL;  // as a filesystem without RENAME_EXCHANGE answers
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("new");
  f.close();
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(plan.renameat2.calls, 1);
  EXPECT_EQ(plan.renames, 1);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
}

// Between the last check and the exchange, the target becomes a directory:
// the exchange is undone, and the directory stays where it was.
TEST_F(replace_faults, an_exchange_that_catches_a_directory_is_undone) {
  static std::string target, moved;
  static bool swapped;
  target = path("target");
  moved = path("moved-away");
  swapped = false;
  fastout_test::write_file(target, old_content);
  fastout::detail::system_calls.renameat2 = [](int old_dir, const char* old_path, int new_dir,
                                               const char* new_path, unsigned flags) {
    if (!swapped) {
      swapped = true;
      std::filesystem::rename(target, moved);
      std::filesystem::create_directory(target);
      fastout_test::write_file(target + "/inside", "kept");
    }
    return fastout::detail::real_system_calls.renameat2(old_dir, old_path, new_dir, new_path,
                                                        flags);
  };
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("new");
  expect_failure([&] { f.close(); }, EISDIR, target, "close");
  EXPECT_TRUE(std::filesystem::is_directory(target));
  EXPECT_EQ(read_file(target + "/inside"), "kept");
  EXPECT_EQ(read_file(moved), old_content);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
}

TEST_F(replace_faults, old_content_that_cannot_be_removed_is_named) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.unlink_error = EBUSY;
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("new");
  try {
    f.close();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EBUSY));
    std::vector<std::string> left = fastout_test::temporaries_in(dir_.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_TRUE(contains(e.what(), "replaced \"" + target + "\"")) << e.what();
    EXPECT_TRUE(contains(e.what(), dir_.file(left[0]))) << e.what();
    EXPECT_EQ(read_file(dir_.file(left[0])), old_content);
  }
  EXPECT_EQ(read_file(target), "new");
}

// cancel() is quiet, unless the new file cannot be removed: then it throws,
// naming what is left.
TEST_F(replace_faults, a_cancel_that_cannot_remove_the_new_file_says_where_it_is) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.tmpfile_unsupported = true;
  plan.unlink_error = EBUSY;
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("abandoned");
  try {
    f.cancel();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EBUSY));
    std::vector<std::string> left = fastout_test::temporaries_in(dir_.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_TRUE(contains(e.what(), dir_.file(left[0]))) << e.what();
    EXPECT_TRUE(contains(e.what(), "\"" + target + "\" was not replaced")) << e.what();
  }
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(read_file(target), old_content);
}

TEST_F(replace_faults, a_directory_sync_that_fails_after_replacing_says_the_content_is_in_place) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  plan.sync_error = EIO;
  plan.syncs_allowed = 1;  // the file's sync succeeds, the directory's fails
  file f = fastout::output_file(target, fastout::open_mode::replace, fastout::sync = true,
                                fastout::sync_directory = true);
  f.write("new");
  try {
    f.close();
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), system_error_code(EIO));
    EXPECT_TRUE(contains(e.what(), "cannot sync the directory of \"" + target + "\""));
    EXPECT_TRUE(contains(e.what(), "the new content is in place, but may not survive a power loss"))
        << e.what();
  }
  EXPECT_EQ(read_file(target), "new");
  EXPECT_EQ(plan.syncs, 2);
}

TEST_F(replace_faults, an_unreadable_proc_falls_back_to_the_umask) {
  plan.read.error = EIO;
  mode_t mask = ::umask(027);
  std::string target = path("new");
  {
    file f = fastout::output_file(target, fastout::open_mode::replace, fastout::permissions = 0666);
    f.write("x");
    f.close();
  }
  mode_t after = ::umask(mask);
  EXPECT_EQ(after, 027u);  // set and put back
  EXPECT_EQ(plan.umask_calls, 2);
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(replace_faults, an_owner_that_cannot_be_set_keeps_no_set_id_bits) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the target another owner";
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  ASSERT_EQ(::chown(target.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(target.c_str(), 06755), 0);
  plan.fchown.error = EPERM;  // as for a process that may not give files away
  {
    file f = fastout::output_file(target, fastout::open_mode::replace);
    f.write("new");
    f.close();
  }
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(plan.fchown.calls, 2);  // owner and group, then the group alone
  EXPECT_EQ(read_file(target), "new");

  // Any other failure to set the owner fails the replacement.
  ASSERT_EQ(::chown(target.c_str(), 65534, 65534), 0);
  plan = fake_plan();
  plan.fchown.error = EIO;
  file f = fastout::output_file(target, fastout::open_mode::replace);
  f.write("newer");
  expect_failure([&] { f.close(); }, EIO, target, "close");
  EXPECT_EQ(read_file(target), "new");
}

TEST_F(durability_faults, page_cache_drop_falls_back_to_plain_writes) {
  std::string data = pattern(300000);
  for (int refusal : {EOPNOTSUPP, EINVAL, ENOSYS}) {
    SCOPED_TRACE(refusal);
    plan = fake_plan();
    plan.pwritev2_error = refusal;
    std::string p = path("uncached");
    file f = fastout::output_file(p, fastout::page_cache::drop, fastout::buffer_size = 4096);
    EXPECT_TRUE(f.drops_page_cache());
    write_mixed(f, data, 3);
    EXPECT_FALSE(f.drops_page_cache());
    f.close();
    EXPECT_EQ(read_file(p), data);
    EXPECT_EQ(plan.pwritev2s, 1);  // one probe, then write/writev
    EXPECT_EQ(f.stats().bytes_written, data.size());
  }
  // Any other error is a write error, not a reason to fall back.
  plan = fake_plan();
  plan.pwritev2_error = EIO;
  file f = fastout::output_file(path("failing"), fastout::page_cache::drop,
                                fastout::buffer_size = 16);
  expect_failure([&] { f.write(std::string(100, 'x')); }, EIO, path("failing"), "write");
  expect_sticky(f, EIO, path("failing"));
}

TEST_F(durability_faults, preallocation_that_fails_is_skipped_and_unused_space_is_released) {
  plan.fallocate.error = EOPNOTSUPP;
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
  EXPECT_EQ(plan.fallocate.calls, 1);
  EXPECT_EQ(plan.ftruncate.calls, 1);
  EXPECT_EQ(read_file(path("b")), "x");
  // A release that fails is an error (and, replacing, nothing is replaced).
  fastout_test::write_file(path("c"), old_content);
  plan = fake_plan();
  plan.ftruncate.error = EIO;
  file f = fastout::output_file(path("c"), fastout::open_mode::replace,
                                fastout::preallocate = 1 << 20);
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

TEST_F(replace_faults, opening_failures_name_the_path_and_leave_nothing) {
  std::string target = path("target");
  fastout_test::write_file(target, old_content);
  const int descriptors = fastout_test::open_descriptors();
  plan.openat.error = EACCES;
  plan.openat.allowed = 1;  // the directory opens; the new file does not
  expect_failure(
      [&] { file f = fastout::output_file(target, fastout::open_mode::replace); }, EACCES,
      target, "open");
  plan = fake_plan();
  plan.fstatat.error = EIO;
  expect_failure([&] { file f = fastout::output_file(target, fastout::open_mode::replace); }, EIO,
                 target, "open");
  ASSERT_EQ(::symlink("target", path("link").c_str()), 0);
  plan = fake_plan();
  plan.readlinkat.error = EIO;
  expect_failure(
      [&] { file f = fastout::output_file(path("link"), fastout::open_mode::replace); }, EIO,
      path("link"), "open");
  EXPECT_EQ(read_file(target), old_content);
  EXPECT_EQ(fastout_test::temporaries_in(dir_.path()), std::vector<std::string>());
  EXPECT_EQ(fastout_test::open_descriptors(), descriptors);
}

// ---------------------------------------------------------------- the C API

// Writes `data` through every C output call in turn (putc, fwrite-style
// write, puts, printf); returns the first negative result, or 0.
int c_write_mixed(fastout_file* f, const std::string& data, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::size_t i = 0;
  while (i < data.size()) {
    std::size_t left = data.size() - i;
    std::size_t n = std::min<std::size_t>(1 + rng() % 300, left);
    switch (rng() % 4) {
      case 0: {
        int result = fastout_putc(static_cast<unsigned char>(data[i]), f);
        if (result < 0) return result;
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
        int result = fastout_puts(piece.c_str(), f);
        if (result < 0) return result;
        break;
      }
      default: {
        int result = fastout_printf(f, "%.*s", static_cast<int>(n), data.data() + i);
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

// Every later C call returns the sticky error.
void expect_c_sticky(fastout_file* f, int error_number) {
  EXPECT_EQ(fastout_error(f), -error_number);
  EXPECT_EQ(fastout_putc('x', f), -error_number);
  errno = 0;
  EXPECT_EQ(fastout_write("xy", 1, 2, f), 0u);
  EXPECT_EQ(errno, error_number);
  EXPECT_EQ(fastout_puts("xyz", f), -error_number);
  EXPECT_EQ(fastout_printf(f, "%d", 5), -error_number);
  EXPECT_EQ(fastout_flush(f), -error_number);
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
    if (result == 0) result = fastout_flush(f);
    EXPECT_EQ(result, -EIO);
    expect_c_sticky(f, EIO);
    fastout_stats stats;
    ASSERT_EQ(fastout_get_stats(f, &stats), 0);
    EXPECT_EQ(stats.bytes_written, 1000u);
    EXPECT_GT(stats.bytes_accepted, 1000u);
    EXPECT_EQ(fastout_close(f), -EIO);
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
    EXPECT_EQ(fastout_printf(f, "%70000d|%s", 1, "end"), 70004);  // streams
    EXPECT_EQ(fastout_close(f), 0);
    EXPECT_EQ(read_file(out), data + std::string(69999, ' ') + "1|end");
    EXPECT_GT(plan.eintrs, 0);
  }
}

// close() failing: the code says so, and the handle is freed all the same
// (LeakSanitizer would see it otherwise).
TEST_F(c_api_faults, a_failing_close_is_returned_and_the_handle_freed) {
  plan.close_error = EIO;
  std::string out = path("out");
  fastout_file* f = c_open(out, 64);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(fastout_puts("all of it", f), 1);
  errno = 0;
  EXPECT_EQ(fastout_close(f), -EIO);
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
      EXPECT_EQ(fastout_printf(f, format, 7), -ENOSPC);
      expect_c_sticky(f, ENOSPC);
      fastout_stats stats;
      ASSERT_EQ(fastout_get_stats(f, &stats), 0);
      EXPECT_EQ(stats.bytes_written, 1000u);
      EXPECT_EQ(fastout_close(f), -ENOSPC);
      EXPECT_EQ(read_file(path("out")), std::string(1000, ' '));
    }
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
      case 0: f.put(data[i]); n = 1; break;
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
