// SPDX-License-Identifier: MIT
// What platform/linux and platform/posix share: the entries of the platform
// table that every Unix system has the same way (POSIX.1-2008), as
// unix_platform(), the base that each of the two completes by name with
// what is its own; and the calls both use to build their own entries. The
// parts of the interface outside the table that are the same on both
// (process_id(), the threads, the exit, the standard streams, the error
// category, the decimal point, %m's text) are defined in unix/unix.cpp.
// Internal to platform/: only POSIX names here, for the posix build must
// not see a Linux one.
#ifndef FASTOUT_PLATFORM_UNIX_UNIX_INTERNAL_H_
#define FASTOUT_PLATFORM_UNIX_UNIX_INTERNAL_H_

#include "platform/platform_internal.h"

namespace fastout::detail::unix_calls {

// The table's entries, each the POSIX call of the same name (unix/unix.cpp).
// Forwarders rather than the calls themselves: some are variadic, and a C
// library may define others as inline wrappers or macros whose address
// cannot be taken; a fixed signature can always be stored in the table.
int open(const char* path, int flags, mode_t mode);
int openat(int dir, const char* path, int flags, mode_t mode);
ssize_t write(int fd, const void* data, size_t size);
ssize_t writev(int fd, const struct iovec* iov, int count);
int wait_writable(int fd);  // poll() for POLLOUT
int close(int fd);
int fstat(int fd, struct stat* st);
int fstatat(int dir, const char* path, struct stat* st, int flags);
int identify(int fd, file_identity* identity);
ssize_t readlinkat(int dir, const char* path, char* buffer, size_t size);
int is_terminal(int fd);  // isatty()
int is_console(int fd);   // 0: a Unix terminal takes bytes
ssize_t write_console(int fd, const char16_t* text, size_t count);  // ENOTSUP
off_t lseek(int fd, off_t offset, int whence);
ssize_t read(int fd, void* data, size_t size);
int fsync(int fd);
// fdatasync(), or fsync() where the C library has none (Apple's declares
// none; POSIX makes it an option, _POSIX_SYNCHRONIZED_IO).
int fdatasync(int fd);
int renameat(int old_dir, const char* old_path, int new_dir, const char* new_path);
int linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags);
int unlinkat(int dir, const char* path, int flags);
// readdir() on a descriptor of its own, so that `dir` stays open and
// unmoved for the caller.
int list_directory(int dir, void (*each)(const char* name, void* context), void* context);
int fchmod(int fd, mode_t mode);
int fchown(int fd, uid_t owner, gid_t group);
mode_t umask(mode_t mask);
// The umask with umask(): set, then restored, through the table, so that a
// test sees the calls. POSIX has no way to read it without changing it.
mode_t read_umask();
int ftruncate(int fd, off_t length);
int dup(int fd);  // fcntl(F_DUPFD_CLOEXEC)
// The soft RLIMIT_NOFILE raised to the hard one (setrlimit()). Where the
// hard limit is RLIM_INFINITY, which no system takes as a soft limit of
// descriptors, to `ceiling` (0: none known; OPEN_MAX where the system
// defines it, else EPERM). raise_descriptor_limit() is this with no
// ceiling; posix/ gives Apple's.
int raise_descriptor_limit_to(unsigned long long ceiling);
int raise_descriptor_limit();

}  // namespace fastout::detail::unix_calls

namespace fastout::detail {

/// The table's entries that POSIX.1-2008 gives every Unix system the same
/// way, each filled by name; the rest (create_unnamed, link_unnamed,
/// write_uncached, full_fsync, start_writeback, wait_for_writeback,
/// exchange, reserve, random_bytes, try_lock, open_write_stream) left empty
/// for linux/ and posix/ to fill, and any entry theirs to override
/// (read_umask on Linux). Their tables are checked with
/// every_entry_filled().
constexpr platform_calls unix_platform() noexcept {
  platform_calls calls{};
  calls.open = unix_calls::open;
  calls.openat = unix_calls::openat;
  calls.write = unix_calls::write;
  calls.writev = unix_calls::writev;
  calls.wait_writable = unix_calls::wait_writable;
  calls.close = unix_calls::close;
  calls.fstat = unix_calls::fstat;
  calls.fstatat = unix_calls::fstatat;
  calls.identify = unix_calls::identify;
  calls.readlinkat = unix_calls::readlinkat;
  calls.is_terminal = unix_calls::is_terminal;
  calls.is_console = unix_calls::is_console;
  calls.write_console = unix_calls::write_console;
  calls.lseek = unix_calls::lseek;
  calls.read = unix_calls::read;
  calls.fsync = unix_calls::fsync;
  calls.fdatasync = unix_calls::fdatasync;
  calls.renameat = unix_calls::renameat;
  calls.linkat = unix_calls::linkat;
  calls.unlinkat = unix_calls::unlinkat;
  calls.list_directory = unix_calls::list_directory;
  calls.fchmod = unix_calls::fchmod;
  calls.fchown = unix_calls::fchown;
  calls.umask = unix_calls::umask;
  calls.read_umask = unix_calls::read_umask;
  calls.ftruncate = unix_calls::ftruncate;
  calls.dup = unix_calls::dup;
  calls.raise_descriptor_limit = unix_calls::raise_descriptor_limit;
  return calls;
}

}  // namespace fastout::detail

#endif  // FASTOUT_PLATFORM_UNIX_UNIX_INTERNAL_H_
