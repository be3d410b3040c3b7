// SPDX-License-Identifier: MIT
// What the fault tests share (fault_util.h), compiled once.
#include "fault_util.h"

#ifdef __linux__
#  include <linux/falloc.h>
#  include <stdio.h>  // renameat2
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <poll.h>

#include <fastout/cursor.h>

namespace fastout_faults {

// Bytes that differ from their neighbours and do not repeat with any period
// a buffer size could hide.
char pattern_byte(std::uint64_t i) {
  std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return static_cast<char>(x >> 56);
}

std::string pattern(std::size_t size, std::uint64_t offset) {
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
    EXPECT_EQ(e.code(), system_error_code(error_number)) << what_call << ": " << e.what();
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

namespace {
// write() and writev() share their faults; the step says which was called.
ssize_t fake_write_call(const char* step, int fd, const iovec* iov, int count) {
  if (step_fails(step)) return -1;
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
  ssize_t result = fastout::detail::real_platform.writev(fd, trimmed, n);
  if (result > 0) plan.budget -= static_cast<std::uint64_t>(result);
  return result;
}

}  // namespace

ssize_t fake_writev(int fd, const iovec* iov, int count) {
  return fake_write_call("writev", fd, iov, count);
}

ssize_t fake_write(int fd, const void* data, size_t size) {
  iovec one = {const_cast<void*>(data), size};
  return fake_write_call("write", fd, &one, 1);
}

int fake_wait_writable(int fd) {
  ++plan.waits;
  plan.last_wait_fd = fd;
  if (plan.wait_eintr_count > 0) {
    --plan.wait_eintr_count;
    errno = EINTR;
    return -1;
  }
  if (plan.wait_error != 0) {
    errno = plan.wait_error;
    return -1;
  }
  return 0;
}

int fake_close(int fd) {
  // A descriptor only read from (a directory, /proc) is a step of its own:
  // the writer may ignore its failure.
  int flags = ::fcntl(fd, F_GETFL);
  const bool writable = flags != -1 && (flags & O_ACCMODE) != O_RDONLY && (flags & O_PATH) == 0;
  int result = fastout::detail::real_platform.close(fd);
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
  return fastout::detail::real_platform.open(path, flags, mode);
}

int fake_fsync_as(int (*real)(int), int fd) {
  if (step_fails(real == fastout::detail::real_platform.fsync ? "fsync" : "fdatasync")) return -1;
  ++plan.syncs;
  if (plan.sync_error != 0 && plan.syncs > plan.syncs_allowed) {
    errno = plan.sync_error;
    return -1;
  }
  return real(fd);
}
int fake_fsync(int fd) { return fake_fsync_as(fastout::detail::real_platform.fsync, fd); }
int fake_fdatasync(int fd) { return fake_fsync_as(fastout::detail::real_platform.fdatasync, fd); }

int fake_renameat(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  if (step_fails("renameat")) return -1;
  ++plan.renames;
  if (plan.rename_error != 0) {
    errno = plan.rename_error;
    return -1;
  }
  return fastout::detail::real_platform.renameat(old_dir, old_path, new_dir, new_path);
}

int fake_linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags) {
  if (step_fails("linkat")) return -1;
  ++plan.links;
  if (plan.link_error != 0) {
    errno = plan.link_error;
    return -1;
  }
  return fastout::detail::real_platform.linkat(old_dir, old_path, new_dir, new_path, flags);
}

int fake_unlinkat(int dir, const char* name, int flags) {
  if (step_fails("unlinkat")) return -1;
  ++plan.unlinks;
  if (plan.unlink_error != 0) {
    errno = plan.unlink_error;
    return -1;
  }
  return fastout::detail::real_platform.unlinkat(dir, name, flags);
}

// write_uncached shares write's budget and short writes once it starts.
ssize_t fake_write_uncached(int fd, const iovec* iov, int count) {
  ++plan.uncached_writes;
  if (plan.uncached_error != 0) {
    errno = plan.uncached_error;
    return -1;
  }
  return fake_writev(fd, iov, count);  // the page cache is the real file's business
}

// The platform's own, whose steps (openat, fstatat of /proc on Linux) go
// through the fakes; or refused, for a filesystem without O_TMPFILE.
int fake_create_unnamed(int dir) {
  if (plan.tmpfile_unsupported) {
    errno = EOPNOTSUPP;
    return -1;
  }
  return real().create_unnamed(dir);
}

int fake_openat(int dir, const char* path, int flags, mode_t mode) {
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
// The posix platform layer, built on Linux, has no exchange and no
// reservation of its own: Apple systems have them (renameatx_np(RENAME_SWAP),
// F_PREALLOCATE), and their stand-ins here are Linux's, so that the posix
// layer's use of them is tested on this machine too. A plan still refuses
// them as it refuses the real ones.
int fake_exchange(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  if (call_fails(plan.exchange, "exchange")) return -1;
#ifdef __linux__
  if (!fastout_test::platform_is("linux"))
    return ::renameat2(old_dir, old_path, new_dir, new_path, RENAME_EXCHANGE);
#endif
  return real().exchange(old_dir, old_path, new_dir, new_path);
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
int fake_reserve(int fd, off_t offset, off_t length) {
  if (call_fails(plan.reserve, "reserve")) return -1;
#ifdef __linux__
  if (!fastout_test::platform_is("linux"))
    return ::fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, length);
#endif
  return real().reserve(fd, offset, length);
}
int fake_ftruncate(int fd, off_t length) {
  if (call_fails(plan.ftruncate, "ftruncate")) return -1;
  return real().ftruncate(fd, length);
}
int fake_try_lock(int fd, bool exclusive) {
  if (call_fails(plan.try_lock, "try_lock")) return -1;
  return real().try_lock(fd, exclusive);
}
int fake_dup(int fd) {
  if (call_fails(plan.dup, "dup")) return -1;
  return real().dup(fd);
}
int fake_list_directory(int dir, void (*each)(const char* name, void* context), void* context) {
  if (call_fails(plan.list_directory, "list_directory")) return -1;
  return real().list_directory(dir, each, context);
}
int fake_random_bytes(void* data, size_t size) {
  if (call_fails(plan.random_bytes, "random_bytes")) return -1;
  if (plan.same_random > 0) {
    --plan.same_random;
    std::memset(data, 0x5a, size);
    return 0;
  }
  return real().random_bytes(data, size);
}

std::vector<handler_call> handler_calls;
void recording_handler(const fastout::error_report& report) noexcept {
  handler_calls.push_back({report.path, report.error, report.bytes_lost, report.close_failed,
                           report.sync_failed, report.not_replaced});
}

void faked_platform::SetUp() {
  plan = fake_plan();
  fastout::detail::platform.write = fake_write;
  fastout::detail::platform.writev = fake_writev;
  fastout::detail::platform.wait_writable = fake_wait_writable;
  fastout::detail::platform.close = fake_close;
  fastout::detail::platform.open = fake_open;
  fastout::detail::platform.fsync = fake_fsync;
  fastout::detail::platform.fdatasync = fake_fdatasync;
  fastout::detail::platform.renameat = fake_renameat;
  fastout::detail::platform.linkat = fake_linkat;
  fastout::detail::platform.unlinkat = fake_unlinkat;
  fastout::detail::platform.write_uncached = fake_write_uncached;
  fastout::detail::platform.create_unnamed = fake_create_unnamed;
  fastout::detail::platform.openat = fake_openat;
  fastout::detail::platform.fstat = fake_fstat;
  fastout::detail::platform.fstatat = fake_fstatat;
  fastout::detail::platform.readlinkat = fake_readlinkat;
  fastout::detail::platform.read = fake_read;
  fastout::detail::platform.exchange = fake_exchange;
  fastout::detail::platform.fchmod = fake_fchmod;
  fastout::detail::platform.fchown = fake_fchown;
  fastout::detail::platform.umask = fake_umask;
  fastout::detail::platform.reserve = fake_reserve;
  fastout::detail::platform.ftruncate = fake_ftruncate;
  fastout::detail::platform.random_bytes = fake_random_bytes;
  fastout::detail::platform.try_lock = fake_try_lock;
  fastout::detail::platform.dup = fake_dup;
  fastout::detail::platform.list_directory = fake_list_directory;
}

// Writes `data` with a mix of put(), small and large write() and cursor
// calls, as a program would.
void write_mixed(file& f, const std::string& data, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::size_t i = 0;
  while (i < data.size()) {
    std::size_t left = data.size() - i;
    switch (rng() % 4) {
      case 0: f.put(data[i++]); break;
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

const std::string old_content = "the old content\n";

const std::string& new_content() {
  static const std::string content = pattern(10000);
  return content;
}

}  // namespace fastout_faults
