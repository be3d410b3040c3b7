// SPDX-License-Identifier: MIT
// The platform table for Linux with glibc 2.28 or later (docs/platforms.md):
// POSIX's calls, and Linux's own where they do better -- O_TMPFILE files
// linked through /proc, renameat2(RENAME_EXCHANGE), pwritev2(RWF_DONTCACHE),
// sync_file_range, fallocate, getrandom, open file description locks, the
// umask from /proc/self/status, fopencookie, strerrordesc_np and
// strerrorname_np, the locale's grouping and outdigits through
// nl_langinfo(). Each falls back where the kernel or the filesystem refuses
// it, as the table's comments in platform_internal.h say. What every Unix
// system has the same way is unix/'s: the table starts as unix_platform().
//
// O_TMPFILE (glibc 2.19), RENAME_EXCHANGE (2.28) and F_OFD_SETLK (2.20) come
// from the C library's headers, and O_TMPFILE's value differs between
// architectures.
#include "platform/unix/unix_internal.h"

#include <climits>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <langinfo.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef RWF_DONTCACHE
#  define RWF_DONTCACHE 0x00000080  // Linux 6.14's <linux/fs.h>
#endif

namespace fastout::detail {
namespace {

void close_quietly(int fd) noexcept {
  const int saved = errno;
  platform.close(fd);
  errno = saved;
}

// openat(O_TMPFILE) refused: EOPNOTSUPP from a filesystem without it (NFS,
// FAT, CIFS, ...), EISDIR from a kernel before 3.11, which takes O_TMPFILE
// for the O_DIRECTORY bit it includes. EINVAL is what the kernel says of a
// malformed O_TMPFILE, and what some FUSE filesystems answer.
bool tmpfile_refused(int error_number) {
  return error_number == EOPNOTSUPP || error_number == EISDIR || error_number == EINVAL;
}

int create_unnamed(int dir) {
  const int fd = platform.openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (tmpfile_refused(errno)) errno = EOPNOTSUPP;
    return -1;
  }
  // Linking it later goes through /proc/self/fd; without /proc, a named
  // file is the safer way.
  char proc_path[32];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  struct stat st;
  if (platform.fstatat(AT_FDCWD, proc_path, &st, 0) != 0) {
    close_quietly(fd);
    errno = EOPNOTSUPP;
    return -1;
  }
  return fd;
}

int link_unnamed(int fd, int dir, const char* name) {
  char proc_path[32];
  std::snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
  int result = platform.linkat(AT_FDCWD, proc_path, dir, name, AT_SYMLINK_FOLLOW);
  if (result != 0 && errno == ENOENT)  // no /proc: needs CAP_DAC_READ_SEARCH before Linux 6.10
    result = platform.linkat(fd, "", dir, name, AT_EMPTY_PATH);
  return result;
}

// pwritev2() with offset -1 writes at the file position, as writev(). glibc
// has it since 2.26; where the kernel lacks the system call (before 4.6),
// glibc answers a call with flags ENOTSUP (EOPNOTSUPP), and the kernel
// answers EOPNOTSUPP for a flag it or the filesystem does not know
// (RWF_DONTCACHE before 6.14; tmpfs).
ssize_t write_uncached(int fd, const struct iovec* iov, int count) {
  return ::pwritev2(fd, iov, count, -1, RWF_DONTCACHE);
}

int full_fsync(int) {
  errno = ENOTSUP;  // Linux's fsync() flushes the drive's cache itself
  return -1;
}

int start_writeback(int fd, off_t offset, off_t size) {
  return ::sync_file_range(fd, offset, size, SYNC_FILE_RANGE_WRITE);
}
int wait_for_writeback(int fd, off_t offset, off_t size) {
  return ::sync_file_range(fd, offset, size, SYNC_FILE_RANGE_WAIT_BEFORE);
}

// renameat2() since glibc 2.28; the system call answers ENOSYS on kernels
// before 3.15, and EINVAL on a filesystem without RENAME_EXCHANGE (NFS,
// FAT, FUSE without it, ...).
int exchange(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  return ::renameat2(old_dir, old_path, new_dir, new_path, RENAME_EXCHANGE);
}

mode_t read_umask() {
  const int fd = platform.openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
  if (fd >= 0) {
    char text[4096];
    std::size_t size = 0;
    while (size < sizeof text - 1) {
      const ssize_t n = platform.read(fd, text + size, sizeof text - 1 - size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      size += static_cast<std::size_t>(n);
    }
    close_quietly(fd);
    text[size] = '\0';
    if (const char* line = std::strstr(text, "\nUmask:")) {
      char* end = nullptr;
      const unsigned long mask = std::strtoul(line + 7, &end, 8);
      if (end != line + 7 && mask <= 0777) return static_cast<mode_t>(mask);
    }
  }
  return unix_calls::read_umask();
}

int reserve(int fd, off_t offset, off_t length) {
  return ::fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, length);
}

// getrandom() since glibc 2.25; ENOSYS on kernels before 3.17, EAGAIN
// before the kernel has entropy.
int random_bytes(void* data, size_t size) {
  auto* bytes = static_cast<unsigned char*>(data);
  while (size > 0) {
    const ssize_t n = ::getrandom(bytes, size, GRND_NONBLOCK);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

int try_lock(int fd, bool exclusive) {
  struct flock lock = {};
  lock.l_type = exclusive ? F_WRLCK : F_RDLCK;
  lock.l_whence = SEEK_SET;  // l_start = l_len = 0: every byte, now and later
  if (::fcntl(fd, F_OFD_SETLK, &lock) == 0) return 0;
  if (errno == EACCES) errno = EAGAIN;  // held by another: POSIX allows either
  return -1;
}

std::FILE* open_write_stream(void* cookie,
                             ssize_t (*write)(void* cookie, const char* data, size_t size)) {
  cookie_io_functions_t functions{};
  functions.write = write;
  std::FILE* stream = ::fopencookie(cookie, "w", functions);
  if (stream != nullptr) std::setvbuf(stream, nullptr, _IONBF, 0);
  return stream;
}

// POSIX's calls, and Linux's own where they do better.
constexpr platform_calls linux_platform() noexcept {
  platform_calls calls = unix_platform();
  calls.create_unnamed = create_unnamed;
  calls.link_unnamed = link_unnamed;
  calls.write_uncached = write_uncached;
  calls.full_fsync = full_fsync;
  calls.start_writeback = start_writeback;
  calls.wait_for_writeback = wait_for_writeback;
  calls.exchange = exchange;
  calls.read_umask = read_umask;
  calls.reserve = reserve;
  calls.random_bytes = random_bytes;
  calls.try_lock = try_lock;
  calls.open_write_stream = open_write_stream;
  return calls;
}
constexpr platform_calls linux_calls = linux_platform();
FASTOUT_ASSERT_EVERY_ENTRY_FILLED(linux_calls, "the linux table leaves an entry empty");

}  // namespace

FASTOUT_CONSTINIT const platform_calls real_platform = linux_calls;
FASTOUT_CONSTINIT platform_calls platform = linux_calls;

const char* platform_name() noexcept { return "linux"; }

int directory_open_flags(bool synced) noexcept {
  // O_PATH is enough to create, link and rename in a directory, and needs
  // no read permission; fsync needs it open for reading.
  return O_DIRECTORY | O_CLOEXEC | (synced ? O_RDONLY : O_PATH);
}

namespace {
void (*exit_handler)(int, bool) = nullptr;
void on_exit_trampoline(int status, void*) { exit_handler(status, true); }
}  // namespace

void run_at_exit(void (*handler)(int status, bool status_known)) noexcept {
  // glibc's on_exit() passes the status exit() was called with.
  exit_handler = handler;
  ::on_exit(on_exit_trampoline, nullptr);
}

// glibc 2.32 brought strerrordesc_np() and strerrorname_np(); the linux
// layer takes 2.28 and later.
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32)
#  define FASTOUT_GLIBC_ERROR_NAMES 1
#endif

const char* error_text(int error_number) noexcept {
#if defined(FASTOUT_GLIBC_ERROR_NAMES)
  // glibc's English descriptions, untranslated and static: no locale, no
  // buffer, no race.
  return ::strerrordesc_np(error_number);
#else
  return common_error_text(error_number);
#endif
}

const char* error_symbol(int error_number) noexcept {
#if defined(FASTOUT_GLIBC_ERROR_NAMES)
  return ::strerrorname_np(error_number);
#else
  return common_error_symbol(error_number);
#endif
}

// glibc's printf() reads the thread's locale the same way (uselocale()
// included).
digit_grouping thousands_grouping() noexcept {
  const char* separator = ::nl_langinfo(THOUSEP);
  const char* sizes = ::nl_langinfo(__GROUPING);
  return {separator != nullptr ? separator : "", sizes != nullptr ? sizes : ""};
}

bool outdigits_are_ascii() noexcept {
  // 'I': LC_CTYPE's outdigits, ASCII in most locales.
  for (int i = 0; i < 10; ++i) {
    const char* digit = ::nl_langinfo(static_cast<nl_item>(_NL_CTYPE_OUTDIGIT0_MB + i));
    if (digit == nullptr || digit[0] != '0' + i || digit[1] != '\0') return false;
  }
  return true;
}

}  // namespace fastout::detail
