// SPDX-License-Identifier: MIT
// The entries of the platform table that every Unix system has the same
// way (POSIX.1-2008), shared by platform/linux and platform/posix, and the
// parts of the interface that are the same on both. Only POSIX headers here:
// the posix build must not see a Linux one. Internal to platform/.
#ifndef FASTOUT_PLATFORM_UNIX_CALLS_INTERNAL_H_
#define FASTOUT_PLATFORM_UNIX_CALLS_INTERNAL_H_

#include "platform/platform_internal.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include <dirent.h>
#include <langinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>  // renameat
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace fastout::detail::unix_calls {

// Variadic calls, and ones a C library may define as inline wrappers or
// macros whose address cannot be taken: a fixed signature can always be
// stored in the table.
inline int open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }
inline int openat(int dir, const char* path, int flags, mode_t mode) {
  return ::openat(dir, path, flags, mode);
}
inline ssize_t write(int fd, const void* data, size_t size) { return ::write(fd, data, size); }
inline ssize_t writev(int fd, const struct iovec* iov, int count) {
  return ::writev(fd, iov, count);
}
inline int wait_writable(int fd) {
  struct pollfd ready = {fd, POLLOUT, 0};
  return ::poll(&ready, 1, -1) >= 0 ? 0 : -1;
}
inline int close(int fd) { return ::close(fd); }
inline int fstat(int fd, struct stat* st) { return ::fstat(fd, st); }
inline int fstatat(int dir, const char* path, struct stat* st, int flags) {
  return ::fstatat(dir, path, st, flags);
}
inline ssize_t readlinkat(int dir, const char* path, char* buffer, size_t size) {
  return ::readlinkat(dir, path, buffer, size);
}
inline int is_terminal(int fd) { return ::isatty(fd); }
inline int is_console(int) { return 0; }  // a Unix terminal takes bytes
inline ssize_t write_console(int, const char16_t*, size_t) {
  errno = ENOTSUP;
  return -1;
}
inline off_t lseek(int fd, off_t offset, int whence) { return ::lseek(fd, offset, whence); }
inline ssize_t read(int fd, void* data, size_t size) { return ::read(fd, data, size); }
inline int fsync(int fd) { return ::fsync(fd); }
inline int renameat(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  return ::renameat(old_dir, old_path, new_dir, new_path);
}
inline int linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags) {
  return ::linkat(old_dir, old_path, new_dir, new_path, flags);
}
inline int unlinkat(int dir, const char* path, int flags) { return ::unlinkat(dir, path, flags); }
inline int fchmod(int fd, mode_t mode) { return ::fchmod(fd, mode); }
inline int fchown(int fd, uid_t owner, gid_t group) { return ::fchown(fd, owner, group); }
inline mode_t umask(mode_t mask) { return ::umask(mask); }
inline int ftruncate(int fd, off_t length) { return ::ftruncate(fd, length); }
inline int dup(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 0); }

// The umask with umask(): set, then restored. Through the table, so a test
// can see the calls.
inline mode_t umask_by_setting() {
  const mode_t mask = platform.umask(022);
  platform.umask(mask);
  return mask;
}

// readdir() on a descriptor of its own, so that `dir` stays open and
// unmoved for the caller.
inline int list_directory(int dir, void (*each)(const char* name, void* context), void* context) {
  const int listed = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listed < 0) return -1;
  DIR* stream = ::fdopendir(listed);
  if (stream == nullptr) {
    const int saved = errno;
    ::close(listed);
    errno = saved;
    return -1;
  }
  int result = 0;
  for (;;) {
    errno = 0;
    const struct dirent* entry = ::readdir(stream);
    if (entry == nullptr) {
      if (errno != 0) result = -1;
      break;
    }
    each(entry->d_name, context);
  }
  const int saved = errno;
  ::closedir(stream);
  errno = saved;
  return result;
}

}  // namespace fastout::detail::unix_calls

namespace fastout::detail {

// errno values are what std::system_category() holds on a Unix system.
inline const std::error_category& unix_error_category() noexcept { return std::system_category(); }

inline const char* unix_decimal_point() noexcept { return ::nl_langinfo(RADIXCHAR); }

inline void unix_set_standard_streams(std::FILE* out, std::FILE* err) noexcept {
  stdout = out;
  stderr = err;
}

inline int unix_process_id() noexcept { return static_cast<int>(::getpid()); }

[[noreturn]] inline void unix_exit_now(int status) noexcept { ::_exit(status); }

inline int unix_start_thread(thread_handle& thread, void* (*run)(void*), void* argument) noexcept {
  auto* native = new (std::nothrow) pthread_t;
  if (native == nullptr) return ENOMEM;
  // The thread starts with the signal mask of the thread that starts it.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  const int error_number = ::pthread_create(native, nullptr, run, argument);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error_number != 0) {
    delete native;
    return error_number;
  }
  thread.native = native;
  return 0;
}

inline void unix_join_thread(thread_handle& thread) noexcept {
  auto* native = static_cast<pthread_t*>(thread.native);
  if (native == nullptr) return;
  ::pthread_join(*native, nullptr);
  delete native;
  thread.native = nullptr;
}

}  // namespace fastout::detail

#endif  // FASTOUT_PLATFORM_UNIX_CALLS_INTERNAL_H_
