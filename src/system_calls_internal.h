// The one layer through which fastout makes system calls.
//
// Every system call the library makes goes through `fastout::detail::
// system_calls`, a table of function pointers, so that tests can inject
// EINTR, short writes, EIO, ENOSPC and failing syncs or renames without
// touching a real disk ({fmt}'s posix-mock-test does the same with a macro).
// The table is not thread-safe to change: tests swap it while no writer is
// in use. This header is internal: it is not installed.
#ifndef FASTOUT_SYSTEM_CALLS_INTERNAL_H_
#define FASTOUT_SYSTEM_CALLS_INTERNAL_H_

#include <fastout/config.h>

#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

namespace fastout::detail {

struct system_call_table {
  // Opening and writing.
  int (*open)(const char* path, int flags, mode_t mode);
  ssize_t (*write)(int fd, const void* data, size_t size);
  ssize_t (*writev)(int fd, const struct iovec* iov, int count);
  // pwritev2() with offset -1 writes at the file position, as writev(), and
  // takes per-call flags such as RWF_DONTCACHE. ENOSYS where the kernel or C
  // library lacks it.
  ssize_t (*pwritev2)(int fd, const struct iovec* iov, int count, off_t offset, int flags);
  int (*close)(int fd);
  // What a descriptor is.
  int (*fstat)(int fd, struct stat* st);
  int (*isatty)(int fd);
  int (*poll)(struct pollfd* fds, nfds_t count, int timeout_ms);
  // Durability and putting files in place.
  int (*fsync)(int fd);
  int (*fdatasync)(int fd);
  int (*renameat)(int old_dir, const char* old_path, int new_dir, const char* new_path);
  int (*linkat)(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags);
  int (*unlinkat)(int dir, const char* path, int flags);
};

/// The table in use. Starts as the real calls.
FASTOUT_API extern system_call_table system_calls;
/// The real calls, so a test can restore them or delegate to them.
FASTOUT_API extern const system_call_table real_system_calls;

}  // namespace fastout::detail

#endif  // FASTOUT_SYSTEM_CALLS_INTERNAL_H_
