// SPDX-License-Identifier: MIT
// Test-only, and only in the Windows build: what fastout's tests name of
// POSIX and Linux that the Windows C runtime lacks, so that every test file
// (C and C++) compiles there. Nothing here pretends: fork(), waitpid(),
// setrlimit(), sigaction(), mmap(), symlink(), mount(), ... fail with
// ENOSYS, and the tests that need them skip on Windows before calling them,
// printing why (FASTOUT_SKIP_ON_WINDOWS in test_util.h, c_test_skip() in C).
// A few are real: pipe() is the runtime's _pipe() (binary, not inherited),
// poll() reports every descriptor ready (Windows pipes block), fcntl()
// answers F_GETFD from the runtime's descriptor table, and mkdtemp() makes
// a directory with a random name. The stand-in headers beside this one
// (include/poll.h, include/sys/wait.h, ...) include it; test/CMakeLists.txt
// puts them on the include path of the Windows build only.
#ifndef FASTOUT_TEST_WINDOWS_POSIX_SHIM_H_
#define FASTOUT_TEST_WINDOWS_POSIX_SHIM_H_

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <windows.h>

#ifdef __cplusplus
#  include "platform/platform_internal.h"  // struct iovec, uid_t, the O_* and AT_* values
#else
typedef short uid_t;
typedef short gid_t;
#endif

#define FASTOUT_SHIM static inline

// POSIX names a struct and a function alike (sigaction, statfs).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"

FASTOUT_SHIM int fastout_test_unavailable(void) {
  errno = ENOSYS;
  return -1;
}

// Linux's raw system calls (test_util.h asks for pwritev2 by number, to see
// whether the kernel or emulator has it): none on Windows.
#define SYS_pwritev2 328
#define SYS_gettid 186
FASTOUT_SHIM long syscall(long number, ...) {
  (void)number;
  return fastout_test_unavailable();
}

// ------------------------------------------------------------ processes
FASTOUT_SHIM pid_t fork(void) { return fastout_test_unavailable(); }
FASTOUT_SHIM pid_t waitpid(pid_t pid, int* status, int options) {
  (void)pid, (void)status, (void)options;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int kill(pid_t pid, int signal_number) {
  (void)pid, (void)signal_number;
  return fastout_test_unavailable();
}
FASTOUT_SHIM uid_t geteuid(void) { return 1000; }  // never root: tests that need root skip
FASTOUT_SHIM uid_t getuid(void) { return 1000; }
FASTOUT_SHIM gid_t getegid(void) { return 1000; }
FASTOUT_SHIM gid_t getgid(void) { return 1000; }
FASTOUT_SHIM int getgroups(int size, gid_t* groups) {
  (void)size, (void)groups;
  return 0;
}
FASTOUT_SHIM int setuid(uid_t user) {
  (void)user;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int setgid(gid_t group) {
  (void)group;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int setgroups(size_t size, const gid_t* groups) {
  (void)size, (void)groups;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int gettid(void) { return (int)GetCurrentThreadId(); }
FASTOUT_SHIM int setenv(const char* name, const char* value, int overwrite) {
  if (!overwrite && getenv(name) != NULL) return 0;
  return _putenv_s(name, value) == 0 ? 0 : -1;
}
FASTOUT_SHIM int unsetenv(const char* name) { return _putenv_s(name, "") == 0 ? 0 : -1; }
#define WNOHANG 1
#define WUNTRACED 2
#define WIFEXITED(status) (((status)&0x7f) == 0)
#define WEXITSTATUS(status) (((status) >> 8) & 0xff)
#define WIFSIGNALED(status) (((status)&0x7f) != 0 && ((status)&0x7f) != 0x7f)
#define WTERMSIG(status) ((status)&0x7f)
#define WIFSTOPPED(status) (((status)&0xff) == 0x7f)

// -------------------------------------------------------------- signals
#ifndef SIGKILL
#  define SIGKILL 9
#endif
#ifndef SIGUSR1
#  define SIGUSR1 10
#endif
#ifndef SIGPIPE
#  define SIGPIPE 13
#endif
#ifndef SIGALRM
#  define SIGALRM 14
#endif
#ifndef SIGCHLD
#  define SIGCHLD 17
#endif
#ifndef SIGCONT
#  define SIGCONT 18
#endif
#ifndef SIGSTOP
#  define SIGSTOP 19
#endif
#ifndef SIGXFSZ
#  define SIGXFSZ 25
#endif
typedef unsigned long long sigset_t;
struct sigaction {
  void (*sa_handler)(int);
  sigset_t sa_mask;
  int sa_flags;
};
#define SA_RESTART 0x10000000
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
FASTOUT_SHIM int sigemptyset(sigset_t* set) { return *set = 0, 0; }
FASTOUT_SHIM int sigfillset(sigset_t* set) { return *set = ~0ull, 0; }
FASTOUT_SHIM int sigaddset(sigset_t* set, int signal_number) {
  return *set |= 1ull << signal_number, 0;
}
FASTOUT_SHIM int sigaction(int signal_number, const struct sigaction* action,
                           struct sigaction* old) {
  (void)signal_number, (void)action, (void)old;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  (void)how, (void)set, (void)old;
  return fastout_test_unavailable();
}
struct fastout_test_timeval {
  long tv_sec, tv_usec;
};
struct itimerval {
  struct fastout_test_timeval it_interval, it_value;
};
#define ITIMER_REAL 0
FASTOUT_SHIM int setitimer(int which, const struct itimerval* value, struct itimerval* old) {
  (void)which, (void)value, (void)old;
  return fastout_test_unavailable();
}
FASTOUT_SHIM unsigned alarm(unsigned seconds) { return (void)seconds, 0u; }

// --------------------------------------------------------------- limits
typedef unsigned long long rlim_t;
struct rlimit {
  rlim_t rlim_cur, rlim_max;
};
#define RLIMIT_FSIZE 1
#define RLIMIT_NOFILE 7
#define RLIM_INFINITY (~0ull)
FASTOUT_SHIM int getrlimit(int resource, struct rlimit* limit) {
  (void)resource, (void)limit;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int setrlimit(int resource, const struct rlimit* limit) {
  (void)resource, (void)limit;
  return fastout_test_unavailable();
}
#define _SC_PAGESIZE 30
FASTOUT_SHIM long sysconf(int name) { return name == _SC_PAGESIZE ? 4096 : -1; }

// --------------------------------------------------------------- memory
#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_ANONYMOUS 0x20
#define MAP_FAILED ((void*)-1)
FASTOUT_SHIM void* mmap(void* at, size_t size, int protection, int flags, int fd, off_t offset) {
  (void)at, (void)size, (void)protection, (void)flags, (void)fd, (void)offset;
  errno = ENOSYS;
  return MAP_FAILED;
}
FASTOUT_SHIM int munmap(void* at, size_t size) {
  (void)at, (void)size;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int mprotect(void* at, size_t size, int protection) {
  (void)at, (void)size, (void)protection;
  return fastout_test_unavailable();
}

// ---------------------------------------------------------- descriptors
FASTOUT_SHIM int pipe(int fds[2]) { return _pipe(fds, 65536, _O_BINARY | _O_NOINHERIT); }
FASTOUT_SHIM int pipe2(int fds[2], int flags) {
  (void)flags;
  return pipe(fds);
}
#ifndef IOV_MAX
#  define IOV_MAX 1024
#endif
#define POLLIN 1
#define POLLOUT 4
struct pollfd {
  int fd;
  short events, revents;
};
FASTOUT_SHIM int poll(struct pollfd* fds, unsigned long count, int timeout) {
  (void)timeout;
  for (unsigned long i = 0; i < count; ++i) fds[i].revents = fds[i].events;
  return (int)count;
}
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1
FASTOUT_SHIM int fcntl(int fd, int command, ...) {
  if (_get_osfhandle(fd) == -1) {
    errno = EBADF;
    return -1;
  }
  if (command == F_GETFD) return FD_CLOEXEC;
  if (command == F_GETFL) {
    // The descriptors fastout opens only for reading are directories.
    BY_HANDLE_FILE_INFORMATION info;
    if (GetFileInformationByHandle((HANDLE)_get_osfhandle(fd), &info) &&
        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
      return O_RDONLY;
    return O_WRONLY;
  }
  if (command == F_DUPFD_CLOEXEC) return _dup(fd);  // the lowest free number, not the asked-for one
  return fastout_test_unavailable();
}
#ifndef O_TMPFILE
#  define O_TMPFILE 0x00400000
#endif
#ifndef O_PATH
#  define O_PATH 0x00800000
#endif
#define FALLOC_FL_KEEP_SIZE 1

// ---------------------------------------------------------------- names
FASTOUT_SHIM int lstat(const char* path, struct stat* st) { return stat(path, st); }
FASTOUT_SHIM int symlink(const char* target, const char* path) {
  (void)target, (void)path;
  return fastout_test_unavailable();
}
FASTOUT_SHIM ssize_t readlink(const char* path, char* buffer, size_t size) {
  (void)path, (void)buffer, (void)size;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int mkfifo(const char* path, mode_t mode) {
  (void)path, (void)mode;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int chown(const char* path, uid_t owner, gid_t group) {
  (void)path, (void)owner, (void)group;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int fchown(int fd, uid_t owner, gid_t group) {
  (void)fd, (void)owner, (void)group;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int fchmod(int fd, mode_t mode) {
  (void)fd, (void)mode;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int fsync(int fd) { return _commit(fd); }
FASTOUT_SHIM int fdatasync(int fd) { return _commit(fd); }
#ifdef __cplusplus
FASTOUT_SHIM int mkdir(const char* path, mode_t mode) {
  (void)mode;
  return _mkdir(path);
}
#endif
FASTOUT_SHIM char* mkdtemp(char* pattern) {
  size_t length = 0;
  while (pattern[length] != '\0') ++length;
  if (length < 6) {
    errno = EINVAL;
    return NULL;
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    for (size_t k = length - 6; k < length; ++k)
      pattern[k] = "abcdefghijklmnopqrstuvwxyz0123456789"[rand() % 36];
    if (_mkdir(pattern) == 0) return pattern;
    if (errno != EEXIST) return NULL;
  }
  return NULL;
}
struct statfs {
  long f_type;
};
FASTOUT_SHIM int statfs(const char* path, struct statfs* st) {
  (void)path, (void)st;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int mount(const char* source, const char* target, const char* type,
                       unsigned long flags, const void* data) {
  (void)source, (void)target, (void)type, (void)flags, (void)data;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int umount2(const char* target, int flags) {
  (void)target, (void)flags;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int unshare(int flags) {
  (void)flags;
  return fastout_test_unavailable();
}
#define CLONE_NEWNS 0x00020000
#define CLONE_NEWUSER 0x10000000
#define MS_RDONLY 1
#define MS_REMOUNT 32
#define MS_BIND 4096
#define MS_PRIVATE (1 << 18)
#define MS_REC 16384
#define MNT_DETACH 2

// ------------------------------------------------------------ terminals
FASTOUT_SHIM int posix_openpt(int flags) {
  (void)flags;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int grantpt(int fd) {
  (void)fd;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int unlockpt(int fd) {
  (void)fd;
  return fastout_test_unavailable();
}
FASTOUT_SHIM char* ptsname(int fd) {
  (void)fd;
  errno = ENOSYS;
  return NULL;
}
#ifndef O_NOCTTY
#  define O_NOCTTY 0
#endif

// -------------------------------------------------------------- sockets
#define AF_UNIX 1
#define SOCK_STREAM 1
#define SOCK_CLOEXEC 0x80000
struct sockaddr {
  unsigned short sa_family;
  char sa_data[14];
};
struct sockaddr_un {
  unsigned short sun_family;
  char sun_path[108];
};
FASTOUT_SHIM int socket(int domain, int type, int protocol) {
  (void)domain, (void)type, (void)protocol;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int bind(int fd, const struct sockaddr* address, int size) {
  (void)fd, (void)address, (void)size;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int link(const char* target, const char* path) {
  if (CreateHardLinkA(path, target, NULL)) return 0;
  errno = GetLastError() == ERROR_ALREADY_EXISTS ? EEXIST : EACCES;
  return -1;
}

// ---------------------------------------------------------- Linux's own
#define AT_EMPTY_PATH 0x1000
#define SYNC_FILE_RANGE_WAIT_BEFORE 1
#define SYNC_FILE_RANGE_WRITE 2
#define SYNC_FILE_RANGE_WAIT_AFTER 4
FASTOUT_SHIM int sync_file_range(int fd, off_t offset, off_t size, unsigned flags) {
  (void)fd, (void)offset, (void)size, (void)flags;
  return fastout_test_unavailable();
}
FASTOUT_SHIM int fallocate(int fd, int mode, off_t offset, off_t size) {
  (void)fd, (void)mode, (void)offset, (void)size;
  return fastout_test_unavailable();
}

#ifdef __cplusplus
// The runtime's read() and write() take an unsigned int count: any other
// integer a test passes is taken here (a template, so that an int or a
// size_t picks it rather than being ambiguous).
template <typename Size>
ssize_t read(int fd, void* data, Size size) {
  const auto count = static_cast<unsigned long long>(size);
  return _read(fd, data, static_cast<unsigned>(count > INT_MAX ? INT_MAX : count));
}
template <typename Size>
ssize_t write(int fd, const void* data, Size size) {
  const auto count = static_cast<unsigned long long>(size);
  return _write(fd, data, static_cast<unsigned>(count > INT_MAX ? INT_MAX : count));
}
FASTOUT_SHIM ssize_t pwritev2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  (void)fd, (void)iov, (void)count, (void)offset, (void)flags;
  return fastout_test_unavailable();
}
#endif

#pragma GCC diagnostic pop

#endif  // FASTOUT_TEST_WINDOWS_POSIX_SHIM_H_
