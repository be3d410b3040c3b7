// SPDX-License-Identifier: MIT
#include "platform/system_calls_internal.h"

#include <fcntl.h>
#include <stdio.h>  // renameat, renameat2
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace fastout::detail {
namespace {
// open() is variadic; a fixed signature can be stored in the table.
int real_open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }

// pwritev2() is declared with an off_t that may be a 64-bit alias; a fixed
// signature can be stored in the table. glibc has it since 2.26; where the
// kernel lacks the system call (before 4.6), glibc answers a call with
// flags ENOTSUP (EOPNOTSUPP), and the kernel answers EOPNOTSUPP for a flag
// it or the filesystem does not know (RWF_DONTCACHE before 6.14; tmpfs).
ssize_t real_pwritev2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  return ::pwritev2(fd, iov, count, offset, flags);
}

// Older C libraries define these as inline wrappers or macros, whose address
// cannot be taken; a fixed signature can always be stored.
int real_openat(int dir, const char* path, int flags, mode_t mode) {
  return ::openat(dir, path, flags, mode);
}
int real_fstat(int fd, struct stat* st) { return ::fstat(fd, st); }
int real_fstatat(int dir, const char* path, struct stat* st, int flags) {
  return ::fstatat(dir, path, st, flags);
}
int real_fallocate(int fd, int mode, off_t offset, off_t length) {
  return ::fallocate(fd, mode, offset, length);
}
int real_ftruncate(int fd, off_t length) { return ::ftruncate(fd, length); }
int real_sync_file_range(int fd, off_t offset, off_t size, unsigned flags) {
  return ::sync_file_range(fd, offset, size, flags);
}

// glibc has renameat2() since 2.28 and getrandom() since 2.25; the system
// calls themselves answer ENOSYS on kernels before 3.15 and 3.17.
int real_renameat2(int old_dir, const char* old_path, int new_dir, const char* new_path,
                   unsigned flags) {
  return ::renameat2(old_dir, old_path, new_dir, new_path, flags);
}
ssize_t real_getrandom(void* data, size_t size, unsigned flags) {
  return ::getrandom(data, size, flags);
}

// fcntl() is variadic; these are the two uses fastout has for it.
int real_fcntl_lock(int fd, int command, struct flock* lock) { return ::fcntl(fd, command, lock); }
int real_dup(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 0); }

// glibc has a getdents64() wrapper only since 2.30; the system call is
// older than any kernel glibc 2.28 runs on.
ssize_t real_getdents64(int fd, void* buffer, size_t size) {
  return static_cast<ssize_t>(::syscall(SYS_getdents64, fd, buffer, size));
}
}  // namespace

#define FASTOUT_REAL_SYSTEM_CALLS                                                           \
  {                                                                                         \
    real_open, real_openat, ::write, ::writev, real_pwritev2, ::close, real_fstat,          \
        real_fstatat, ::readlinkat, ::read, ::isatty, ::poll, ::lseek, ::fsync,             \
        ::fdatasync, real_sync_file_range, ::renameat, real_renameat2, ::linkat,            \
        ::unlinkat, ::fchmod, ::fchown, ::umask, real_fallocate, real_ftruncate,            \
        real_getrandom, real_fcntl_lock, real_dup, real_getdents64,                         \
  }

const system_call_table real_system_calls = FASTOUT_REAL_SYSTEM_CALLS;

// Spelled out rather than copied from real_system_calls so that both are
// constant-initialized: a writer used during static initialization works.
system_call_table system_calls = FASTOUT_REAL_SYSTEM_CALLS;

}  // namespace fastout::detail
