// SPDX-License-Identifier: MIT
// The one layer through which fastout makes system calls.
//
// Every system call the library makes goes through `fastout::detail::
// system_calls`, a table of function pointers, so that tests can inject
// EINTR, short writes, EIO, ENOSPC and a failure at any step of a safe
// replacement without touching a real disk ({fmt}'s posix-mock-test does the same with a macro).
// The table is not thread-safe to change: tests swap it while no writer is
// in use. This header is internal: it is not installed.
#ifndef FASTOUT_SYSTEM_CALLS_INTERNAL_H_
#define FASTOUT_SYSTEM_CALLS_INTERNAL_H_

#include <fastout/config.h>

#include <cerrno>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

namespace fastout::detail {

struct system_call_table {
  // Opening and writing.
  int (*open)(const char* path, int flags, mode_t mode);
  int (*openat)(int dir, const char* path, int flags, mode_t mode);
  ssize_t (*write)(int fd, const void* data, size_t size);
  ssize_t (*writev)(int fd, const struct iovec* iov, int count);
  // pwritev2() with offset -1 writes at the file position, as writev(), and
  // takes per-call flags such as RWF_DONTCACHE. EOPNOTSUPP where the kernel
  // or the filesystem lacks a flag, or (from glibc) the system call.
  ssize_t (*pwritev2)(int fd, const struct iovec* iov, int count, off_t offset, int flags);
  int (*close)(int fd);
  // What a descriptor or a name is.
  int (*fstat)(int fd, struct stat* st);
  int (*fstatat)(int dir, const char* path, struct stat* st, int flags);
  ssize_t (*readlinkat)(int dir, const char* path, char* buffer, size_t size);
  ssize_t (*read)(int fd, void* data, size_t size);  // /proc/self/status, for the umask
  int (*isatty)(int fd);
  int (*poll)(struct pollfd* fds, nfds_t count, int timeout_ms);
  // Where the next write lands: the iostream adapter's tellp(), seekp() and
  // std::ios::ate.
  off_t (*lseek)(int fd, off_t offset, int whence);
  // Durability and putting files in place.
  int (*fsync)(int fd);
  int (*fdatasync)(int fd);
  // Starting (SYNC_FILE_RANGE_WRITE) and waiting for (SYNC_FILE_RANGE_WAIT_BEFORE)
  // the writeback of a durable writer's data while it writes. ENOSYS where
  // the kernel lacks it or a seccomp filter refuses it, ESPIPE on a pipe,
  // EINVAL where the file cannot take it.
  int (*sync_file_range)(int fd, off_t offset, off_t size, unsigned flags);
  int (*renameat)(int old_dir, const char* old_path, int new_dir, const char* new_path);
  // renameat2() with RENAME_EXCHANGE; EINVAL where the filesystem lacks it,
  // ENOSYS where the kernel does (before 3.15).
  int (*renameat2)(int old_dir, const char* old_path, int new_dir, const char* new_path,
                   unsigned flags);
  int (*linkat)(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags);
  int (*unlinkat)(int dir, const char* path, int flags);
  // Giving a replacement the target's permissions and owner.
  int (*fchmod)(int fd, mode_t mode);
  int (*fchown)(int fd, uid_t owner, gid_t group);
  // The umask where /proc/self/status does not say it: set, then restored.
  mode_t (*umask)(mode_t mask);
  // Preallocating, and releasing what was not used.
  int (*fallocate)(int fd, int mode, off_t offset, off_t length);
  int (*ftruncate)(int fd, off_t length);
  // Unguessable names for temporary files.
  ssize_t (*getrandom)(void* data, size_t size, unsigned flags);
  // Open-file-description locks (F_OFD_SETLK, Linux 3.15; EINVAL before):
  // a replacing writer holds one on its new file, so that another writer's
  // clean-up of what killed writers left never takes a live one's file.
  int (*fcntl_lock)(int fd, int command, struct flock* lock);
  // fcntl(fd, F_DUPFD_CLOEXEC, 0): a second descriptor on the same open
  // file description, which keeps that lock after the first is closed.
  int (*dup)(int fd);
  // getdents64(2), to look for those leftovers where names are random.
  ssize_t (*getdents64)(int fd, void* buffer, size_t size);
};

/// The table in use. Starts as the real calls.
FASTOUT_API extern system_call_table system_calls;
/// The real calls, so a test can restore them or delegate to them.
FASTOUT_API extern const system_call_table real_system_calls;

// Whether a failed pwritev2() only refused its flags (RWF_DONTCACHE), so that
// a plain write can carry on: EOPNOTSUPP from a kernel before 6.14 (an unknown flag)
// or a filesystem without RWF_DONTCACHE (tmpfs, DAX), and from glibc where
// the kernel has no pwritev2 (before 4.6); ENOSYS from a raw system call
// or a seccomp filter; EINVAL, which a plain write() then repeats if the
// call itself was at fault, so no error is hidden.
inline bool unsupported_write_flags(int error_number) noexcept {
  return error_number == EOPNOTSUPP || error_number == EINVAL || error_number == ENOSYS;
}

}  // namespace fastout::detail

#endif  // FASTOUT_SYSTEM_CALLS_INTERNAL_H_
