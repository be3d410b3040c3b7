// SPDX-License-Identifier: MIT
// The platform table for macOS, the BSDs and other Unix systems: POSIX.1-2008
// calls only, and what a system adds where it has it -- on Apple systems
// fcntl(F_FULLFSYNC), fcntl(F_PREALLOCATE), renameatx_np(RENAME_SWAP) and a
// cap on each write(); on Apple's and the BSDs' C libraries arc4random_buf()
// and funopen(); flock() where <sys/file.h> has it. What a system lacks
// fails with the errno platform_internal.h names for it, and the code above
// falls back: a named temporary file and rename() for a replacement, the
// sync at close() instead of writeback while writing, no preallocation, a
// replacement's files unlocked (docs/safe-replace.md says what a killed
// writer then leaves). docs/platforms.md has the whole table. What every
// Unix system has the same way is unix/'s: the table starts as
// unix_platform().
//
// This file is built on Linux too (scripts/test --platform posix), where it
// must not reach for anything Linux-only: a test reads the built library's
// undefined symbols to prove it.
#include "platform/unix/unix_internal.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>

#include <clocale>

#include <fcntl.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#  if __has_include(<sys/file.h>)
#    include <sys/file.h>  // flock(): the BSDs, Apple (and glibc)
#  endif
#endif

#if defined(__APPLE__)
#  include <sys/sysctl.h>  // sysctlbyname(): kern.maxfilesperproc
#endif

#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__) || \
    defined(__DragonFly__)
#  define FASTOUT_BSD_LIBC 1  // arc4random_buf(), funopen()
#endif

namespace fastout::detail {
namespace {

int unsupported(int error_number) {
  errno = error_number;
  return -1;
}

int create_unnamed(int) { return unsupported(EOPNOTSUPP); }
int link_unnamed(int, int, const char*) { return unsupported(EOPNOTSUPP); }

ssize_t write_uncached(int, const struct iovec*, int) { return unsupported(EOPNOTSUPP); }

int full_fsync(int fd) {
#if defined(__APPLE__) && defined(F_FULLFSYNC)
  return ::fcntl(fd, F_FULLFSYNC);
#else
  (void)fd;
  return unsupported(ENOTSUP);
#endif
}

int start_writeback(int, off_t, off_t) { return unsupported(ENOSYS); }
int wait_for_writeback(int, off_t, off_t) { return unsupported(ENOSYS); }

int exchange(int old_dir, const char* old_path, int new_dir, const char* new_path) {
#if defined(__APPLE__) && defined(RENAME_SWAP)
  // macOS 10.12: ENOTSUP where the filesystem cannot swap.
  return ::renameatx_np(old_dir, old_path, new_dir, new_path, RENAME_SWAP);
#else
  (void)old_dir, (void)old_path, (void)new_dir, (void)new_path;
  return unsupported(ENOSYS);
#endif
}

int reserve(int fd, off_t offset, off_t length) {
#if defined(__APPLE__) && defined(F_PREALLOCATE)
  // From the end of the file, which is where the writer reserves from:
  // F_PEOFPOSMODE counts fst_offset from there. The size stays as it is.
  struct stat st;
  if (::fstat(fd, &st) != 0) return -1;
  if (offset != st.st_size) return unsupported(EOPNOTSUPP);
  fstore_t store = {F_ALLOCATECONTIG | F_ALLOCATEALL, F_PEOFPOSMODE, 0, length, 0};
  if (::fcntl(fd, F_PREALLOCATE, &store) == 0) return 0;
  store.fst_flags = F_ALLOCATEALL;  // not in one piece, then
  return ::fcntl(fd, F_PREALLOCATE, &store) == 0 ? 0 : -1;
#else
  (void)fd, (void)offset, (void)length;
  return unsupported(EOPNOTSUPP);
#endif
}

int random_bytes(void* data, size_t size) {
#if defined(FASTOUT_BSD_LIBC)
  ::arc4random_buf(data, size);  // never fails, never blocks
  return 0;
#else
  (void)data, (void)size;
  return unsupported(ENOSYS);
#endif
}

int try_lock(int fd, bool exclusive) {
#if defined(LOCK_EX) && defined(LOCK_NB)
  // flock() locks belong to the open file description, as Linux's OFD
  // locks do: a dup()ed descriptor keeps one after the first is closed.
  if (::flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) return 0;
  if (errno == EWOULDBLOCK) errno = EAGAIN;
  return -1;
#else
  // POSIX's fcntl() locks belong to the process and go away when any of
  // its descriptors on the file is closed: no use here.
  (void)fd, (void)exclusive;
  return unsupported(ENOLCK);
#endif
}

#if defined(FASTOUT_BSD_LIBC)
// funopen() passes only its cookie: the caller's cookie and function travel
// in one, freed when the stream is closed.
struct write_stream_cookie {
  void* cookie;
  ssize_t (*write)(void* cookie, const char* data, size_t size);
};
int write_stream_write(void* cookie, const char* data, int size) {
  auto* c = static_cast<write_stream_cookie*>(cookie);
  const ssize_t written = c->write(c->cookie, data, static_cast<size_t>(size));
  return written < 0 ? -1 : static_cast<int>(written);
}
int write_stream_close(void* cookie) {
  delete static_cast<write_stream_cookie*>(cookie);
  return 0;
}
#endif

std::FILE* open_write_stream(void* cookie,
                             ssize_t (*write)(void* cookie, const char* data, size_t size)) {
#if defined(FASTOUT_BSD_LIBC)
  auto* c = new (std::nothrow) write_stream_cookie{cookie, write};
  if (c == nullptr) {
    errno = ENOMEM;
    return nullptr;
  }
  std::FILE* stream = ::funopen(c, nullptr, write_stream_write, nullptr, write_stream_close);
  if (stream == nullptr) {
    delete c;
    return nullptr;
  }
  std::setvbuf(stream, nullptr, _IONBF, 0);
  return stream;
#else
  (void)cookie, (void)write;
  errno = ENOTSUP;
  return nullptr;
#endif
}

// strerror_r() is POSIX's (returns int) or glibc's own (returns the text).
[[maybe_unused]] const char* strerror_result(int result, const char* buffer) {
  return result == 0 ? buffer : nullptr;
}
[[maybe_unused]] const char* strerror_result(const char* result, const char*) { return result; }

// Apple's kernel refuses a soft limit of descriptors above
// kern.maxfilesperproc (and, before macOS 11, above OPEN_MAX, 10240) with
// EINVAL, and its hard limit is often RLIM_INFINITY: as Go's runtime, ask
// for kern.maxfilesperproc, and for OPEN_MAX where that is refused.
int raise_descriptor_limit() {
#if defined(__APPLE__)
  int per_process = 0;
  std::size_t size = sizeof per_process;
  if (::sysctlbyname("kern.maxfilesperproc", &per_process, &size, nullptr, 0) == 0 &&
      per_process > 0) {
    if (unix_calls::raise_descriptor_limit_to(static_cast<unsigned long long>(per_process)) == 0)
      return 0;
    if (errno != EINVAL) return -1;
  }
  return unix_calls::raise_descriptor_limit_to(OPEN_MAX);
#else
  return unix_calls::raise_descriptor_limit();
#endif
}

// POSIX's calls, and what a system adds where it has it.
constexpr platform_calls posix_platform() noexcept {
  platform_calls calls = unix_platform();
  calls.create_unnamed = create_unnamed;
  calls.link_unnamed = link_unnamed;
  calls.write_uncached = write_uncached;
  calls.full_fsync = full_fsync;
  calls.start_writeback = start_writeback;
  calls.wait_for_writeback = wait_for_writeback;
  calls.exchange = exchange;
  calls.reserve = reserve;
  calls.random_bytes = random_bytes;
  calls.try_lock = try_lock;
  calls.open_write_stream = open_write_stream;
  calls.raise_descriptor_limit = raise_descriptor_limit;
  return calls;
}
constexpr platform_calls posix_calls = posix_platform();
FASTOUT_ASSERT_EVERY_ENTRY_FILLED(posix_calls, "the posix table leaves an entry empty");

}  // namespace

FASTOUT_CONSTINIT const platform_calls real_platform = posix_calls;
FASTOUT_CONSTINIT platform_calls platform = posix_calls;

const char* platform_name() noexcept { return "posix"; }

int directory_open_flags(bool) noexcept { return O_RDONLY | O_DIRECTORY | O_CLOEXEC; }

namespace {
void (*exit_handler)(int, bool) = nullptr;
void atexit_trampoline() { exit_handler(0, false); }
}  // namespace

void run_at_exit(void (*handler)(int status, bool status_known)) noexcept {
  // POSIX's atexit() does not pass the status (only glibc's on_exit() does).
  exit_handler = handler;
  std::atexit(atexit_trampoline);
}

const char* error_text(int error_number) noexcept {
  if (const char* text = common_error_text(error_number)) return text;
  // Anything else: the C library's words, copied per thread; none for an
  // error it does not know ("Unknown error 99999", "Unknown error: 99999").
  thread_local char buffer[128];
  const char* text = strerror_result(::strerror_r(error_number, buffer, sizeof buffer), buffer);
  if (text == nullptr || std::strncmp(text, "Unknown error", 13) == 0) return nullptr;
  return text;
}

// Names for %#m where the C library has no strerrorname_np(): glibc's, for
// every errno value this system's <errno.h> defines.
const char* error_symbol(int error_number) noexcept { return common_error_symbol(error_number); }

// POSIX names the separator in nl_langinfo(), and the group sizes only in
// localeconv(), which reads the thread's locale too (uselocale()).
digit_grouping thousands_grouping() noexcept {
  const char* separator = ::nl_langinfo(THOUSEP);
  const std::lconv* conventions = std::localeconv();
  const char* sizes = conventions != nullptr ? conventions->grouping : nullptr;
  return {separator != nullptr ? separator : "", sizes != nullptr ? sizes : ""};
}

// Only glibc's printf() has the 'I' flag, and its outdigits.
bool outdigits_are_ascii() noexcept { return true; }

}  // namespace fastout::detail
