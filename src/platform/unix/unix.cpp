// SPDX-License-Identifier: MIT
// What the linux and posix platform layers share, built with either: the
// table's POSIX.1-2008 entries (unix_internal.h), and the parts of the
// interface that every Unix system has the same way. Only POSIX names
// here: the posix build must not see a Linux one.
#include "platform/unix/unix_internal.h"

#include <cerrno>
#include <cstdlib>
#include <new>

#include <dirent.h>
#include <fcntl.h>
#include <langinfo.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>  // renameat
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace fastout::detail {

namespace unix_calls {

int open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }
int openat(int dir, const char* path, int flags, mode_t mode) {
  return ::openat(dir, path, flags, mode);
}
FASTOUT_HOT ssize_t write(int fd, const void* data, size_t size) { return ::write(fd, data, size); }
FASTOUT_HOT ssize_t writev(int fd, const struct iovec* iov, int count) {
  return ::writev(fd, iov, count);
}
int wait_writable(int fd) {
  struct pollfd ready = {fd, POLLOUT, 0};
  return ::poll(&ready, 1, -1) >= 0 ? 0 : -1;
}
int close(int fd) { return ::close(fd); }
int fstat(int fd, struct stat* st) { return ::fstat(fd, st); }
int fstatat(int dir, const char* path, struct stat* st, int flags) {
  return ::fstatat(dir, path, st, flags);
}
int identify(int fd, file_identity* identity) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return -1;
  identity->device = static_cast<std::uint64_t>(st.st_dev);
  identity->number_high = 0;
  identity->number_low = static_cast<std::uint64_t>(st.st_ino);
  return 0;
}
ssize_t readlinkat(int dir, const char* path, char* buffer, size_t size) {
  return ::readlinkat(dir, path, buffer, size);
}
int is_terminal(int fd) { return ::isatty(fd); }
int is_console(int) { return 0; }
ssize_t write_console(int, const char16_t*, size_t) {
  errno = ENOTSUP;
  return -1;
}
off_t lseek(int fd, off_t offset, int whence) { return ::lseek(fd, offset, whence); }
ssize_t read(int fd, void* data, size_t size) { return ::read(fd, data, size); }
int fsync(int fd) { return ::fsync(fd); }
int fdatasync(int fd) {
#if defined(__APPLE__) || !defined(_POSIX_SYNCHRONIZED_IO) || _POSIX_SYNCHRONIZED_IO <= 0
  // Apple's C library does not declare fdatasync(); fsync() is what there is.
  return ::fsync(fd);
#else
  return ::fdatasync(fd);
#endif
}
int renameat(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  return ::renameat(old_dir, old_path, new_dir, new_path);
}
int linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags) {
  return ::linkat(old_dir, old_path, new_dir, new_path, flags);
}
int unlinkat(int dir, const char* path, int flags) { return ::unlinkat(dir, path, flags); }

int list_directory(int dir, void (*each)(const char* name, void* context), void* context) {
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

int fchmod(int fd, mode_t mode) { return ::fchmod(fd, mode); }
int fchown(int fd, uid_t owner, gid_t group) { return ::fchown(fd, owner, group); }
mode_t umask(mode_t mask) { return ::umask(mask); }
mode_t read_umask() {
  const mode_t mask = platform.umask(022);
  platform.umask(mask);
  return mask;
}
int ftruncate(int fd, off_t length) { return ::ftruncate(fd, length); }
int dup(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 0); }

int raise_descriptor_limit_to(unsigned long long ceiling) {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  rlim_t target = limit.rlim_max;
  if (target == RLIM_INFINITY || (ceiling != 0 && target > ceiling)) {
#if defined(OPEN_MAX)
    if (ceiling == 0) ceiling = OPEN_MAX;
#endif
    if (ceiling == 0) {
      errno = EPERM;  // no finite limit known to ask for
      return -1;
    }
    target = static_cast<rlim_t>(ceiling);
  }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur >= target) {
    errno = EPERM;  // at the hard limit already: nothing left to raise
    return -1;
  }
  limit.rlim_cur = target;
  return ::setrlimit(RLIMIT_NOFILE, &limit);
}
int raise_descriptor_limit() { return raise_descriptor_limit_to(0); }

}  // namespace unix_calls

// ------------------------------------------------- the rest of the interface

int process_id() noexcept { return static_cast<int>(::getpid()); }

int start_thread(thread_handle& thread, void* (*run)(void*), void* argument) noexcept {
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

void join_thread(thread_handle& thread) noexcept {
  auto* native = static_cast<pthread_t*>(thread.native);
  if (native == nullptr) return;
  ::pthread_join(*native, nullptr);
  delete native;
  thread.native = nullptr;
}

// errno values are what std::system_category() holds on a Unix system.
const std::error_category& error_category() noexcept { return std::system_category(); }

void exit_now(int status) noexcept { ::_exit(status); }

void set_standard_streams(std::FILE* out, std::FILE* err) noexcept {
  stdout = out;
  stderr = err;
}

// The calling thread's locale (uselocale()), as glibc's printf() reads it.
const char* decimal_point() noexcept {
  const char* point = ::nl_langinfo(RADIXCHAR);
  return point != nullptr ? point : ".";
}

namespace {
// strerror_r() is POSIX's (returns 0 and writes the text) or glibc's own
// (returns the text): either way, the text.
[[maybe_unused]] const char* strerror_result(const char* text, char*) { return text; }
[[maybe_unused]] const char* strerror_result(int error, char* buffer) {
  return error == 0 ? buffer : "Unknown error";
}
}  // namespace

const char* localized_error_text(int error_number, char* buffer, std::size_t size) noexcept {
  buffer[0] = '\0';
  return strerror_result(::strerror_r(error_number, buffer, size), buffer);
}

}  // namespace fastout::detail
