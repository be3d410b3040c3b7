// SPDX-License-Identifier: MIT
// What the fault tests share: fake system calls that follow a plan (a byte
// budget, short writes, EINTR, EAGAIN, a failing call or step), the fixture
// that installs them, an error handler that records, the checks of a
// sticky error, and the names every fault test uses. Compiled once, into
// the fastout_fault_util library, which *_faults_test.cpp,
// real_failures_test.cpp and write_errors_test.cpp link.
#ifndef FASTOUT_TEST_FAULT_UTIL_H_
#define FASTOUT_TEST_FAULT_UTIL_H_

#include <fastout/file.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace fastout_faults {

// Bytes that differ from their neighbours and do not repeat with any period
// a buffer size could hide.
char pattern_byte(std::uint64_t i);
std::string pattern(std::size_t size, std::uint64_t offset = 0);

// Runs `call`, which must throw std::system_error with `error_number` and a
// message naming `path`.
void expect_failure(const std::function<void()>& call, int error_number, const std::string& path,
                    const char* what_call);

// Every later call reports the sticky error too, and writes nothing more.
void expect_sticky(fastout::file& f, int error_number, const std::string& path);

// What the fake system calls do; reset before every test.
struct fake_plan {
  std::uint64_t budget = UINT64_MAX;  // bytes that may still reach the file
  int error = EIO;                    // what write/writev fail with once it is spent
  std::size_t max_chunk = SIZE_MAX;   // the most one call writes: short writes
  int eintr_every = 0;                // calls 1, 1+n, 1+2n, ... fail with EINTR (n >= 2)
  int eagain_count = 0;               // the next n calls fail with EAGAIN
  int zero_count = 0;                 // the next n calls return 0
  int wait_eintr_count = 0;           // the next n waits for a writable descriptor fail with EINTR
  int wait_error = 0;                 // then waits fail with this
  int close_error = 0;                // close() closes, then fails with this
  int open_eintr_count = 0;           // the next n opens fail with EINTR
  // The calls safe replacement uses: each fails with its error once its
  // count of successful calls is spent (0: the first call fails).
  int sync_error = 0;  // fsync and fdatasync
  int syncs_allowed = INT32_MAX;
  int rename_error = 0;    // renameat
  int link_error = 0;      // linkat
  int unlink_error = 0;    // unlinkat
  int uncached_error = 0;  // write_uncached, before writing anything
  // The rest of the calls safe replacement makes: each fails with .error
  // once .allowed calls have succeeded.
  struct call_fault {
    int error = 0;
    int allowed = 0;
    int calls = 0;
  };
  call_fault openat, fstatat, readlinkat, read, exchange, fchmod, fchown, reserve, ftruncate,
      random_bytes, try_lock, dup, list_directory;
  bool tmpfile_unsupported = false;  // create_unnamed fails with EOPNOTSUPP: named files
  int same_random = 0;               // the next n random_bytes calls give the same bytes
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
  int waits = 0;
  int opens = 0;
  int syncs = 0;
  int renames = 0;
  int links = 0;
  int unlinks = 0;
  int uncached_writes = 0;
  int last_wait_fd = -1;
};
extern fake_plan plan;

// Counts a step of the sweep; true if this one must fail (errno is set).
bool step_fails(const char* name);
// Counts a call of one kind; true if it must fail (errno is set).
bool call_fails(fake_plan::call_fault& fault, const char* name);

// The fakes, each a system call of fastout::detail::platform that
// follows `plan`.
ssize_t fake_writev(int fd, const iovec* iov, int count);
ssize_t fake_write(int fd, const void* data, size_t size);
int fake_wait_writable(int fd);
int fake_close(int fd);
int fake_open(const char* path, int flags, mode_t mode);
int fake_fsync(int fd);
int fake_fdatasync(int fd);
int fake_renameat(int old_dir, const char* old_path, int new_dir, const char* new_path);
int fake_linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags);
int fake_unlinkat(int dir, const char* name, int flags);
ssize_t fake_write_uncached(int fd, const iovec* iov, int count);
int fake_create_unnamed(int dir);
int fake_openat(int dir, const char* path, int flags, mode_t mode);
int fake_fstat(int fd, struct stat* st);
int fake_fstatat(int dir, const char* path, struct stat* st, int flags);
ssize_t fake_readlinkat(int dir, const char* path, char* buffer, size_t size);
ssize_t fake_read(int fd, void* data, size_t size);
int fake_exchange(int old_dir, const char* old_path, int new_dir, const char* new_path);
int fake_fchmod(int fd, mode_t mode);
int fake_fchown(int fd, uid_t owner, gid_t group);
mode_t fake_umask(mode_t mask);
int fake_reserve(int fd, off_t offset, off_t length);
int fake_ftruncate(int fd, off_t length);
int fake_try_lock(int fd, bool exclusive);
int fake_dup(int fd);
int fake_list_directory(int dir, void (*each)(const char* name, void* context), void* context);
int fake_random_bytes(void* data, size_t size);

// The names every fault test uses, which its `using namespace
// fastout_faults;` brings with the fakes: the real calls, the writer's
// types and test_util.h's helpers, declared here once.
using fastout_test::real;
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
using fastout_test::scoped_error_handler;

// The handler tests install; it records what it is told.
struct handler_call {
  std::string path;
  std::error_code error;
  std::uint64_t bytes_lost;
  bool close_failed;
  bool sync_failed;
  bool not_replaced;
};
extern std::vector<handler_call> handler_calls;
void recording_handler(const fastout::error_report& report) noexcept;

// Installs the fakes with a fresh plan for each test, and puts the table
// back after it. Each test file names it after the feature whose faults it
// fakes (`using replace_faults = faked_platform;`).
class faked_platform : public ::testing::Test {
 protected:
  void SetUp() override;
  std::string path(const char* name) const { return dir_.file(name); }

  fastout_test::scoped_platform restore_;
  fastout_test::temp_dir dir_;
};

// Writes `data` with a mix of put(), small and large write() and cursor
// calls, as a program would.
void write_mixed(fastout::file& f, const std::string& data, std::uint32_t seed);

// What a replaced target holds before the replacement, and what the
// replacement writes.
extern const std::string old_content;
const std::string& new_content();

}  // namespace fastout_faults

#endif  // FASTOUT_TEST_FAULT_UTIL_H_
