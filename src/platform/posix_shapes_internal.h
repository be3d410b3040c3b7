// SPDX-License-Identifier: MIT
// The POSIX shapes the platform interface (platform_internal.h) speaks:
// descriptors and their O_* flags, the *at() calls' AT_* values, struct
// iovec, struct stat and its mode bits, mode_t, off_t, ssize_t, uid_t and
// gid_t. Part of the interface, included by it alone: every implementation
// and everything above sees the same names, and nothing above learns which
// system gave them.
//
// A Unix system's own headers give all of them. The Windows C runtime gives
// descriptors, open(), struct stat and off_t, and lacks the rest: struct
// iovec, AT_*, the O_* flags beyond its own, the file types and mode bits
// of symbolic links, sockets and set-id, uid_t and gid_t. Those get
// fastout's own values, chosen not to collide with the runtime's (<fcntl.h>'s
// _O_* and <sys/stat.h>'s _S_IF*): they only ever travel between the code
// above and platform/windows/platform.cpp, which reads each of them.
// Which of the two is the build's choice of platform: the windows layer is
// the one built for Windows (CMakeLists.txt refuses any other there).
#ifndef FASTOUT_PLATFORM_POSIX_SHAPES_INTERNAL_H_
#define FASTOUT_PLATFORM_POSIX_SHAPES_INTERNAL_H_

#if !defined(_WIN32)

#  include <fcntl.h>
#  include <sys/stat.h>
#  include <sys/types.h>
#  include <sys/uio.h>
#  include <unistd.h>

#else  // Windows: the runtime's, and what it lacks

// Files are 64-bit: the build defines _FILE_OFFSET_BITS=64 (CMakeLists.txt),
// which gives MinGW-w64's off_t, lseek() and struct stat 64-bit sizes.

#  include <cstddef>

#  include <fcntl.h>
#  include <io.h>
#  include <sys/stat.h>
#  include <sys/types.h>
#  include <unistd.h>

static_assert(sizeof(off_t) == 8,
              "fastout's Windows build needs a 64-bit off_t: compile with -D_FILE_OFFSET_BITS=64");

struct iovec {
  void* iov_base;
  std::size_t iov_len;
};

// The runtime's struct stat has short st_uid and st_gid (always 0 there).
typedef short uid_t;
typedef short gid_t;

// The longest name in a directory, in bytes of UTF-8 that surely fit in
// NTFS's 255 UTF-16 units.
#  ifndef NAME_MAX
#    define NAME_MAX 255
#  endif

// A quota that is full is ENOSPC on Windows (ERROR_DISK_QUOTA_EXCEEDED):
// EDQUOT, which the runtime lacks, is Winsock's WSAEDQUOT so that code that
// names it compiles; no call of the platform's sets it.
#  ifndef EDQUOT
#    define EDQUOT 10069
#  endif
// ESTALE, which the runtime lacks too, is Winsock's WSAESTALE: a writer
// whose file was replaced while its descriptor was released says it.
#  ifndef ESTALE
#    define ESTALE 10070
#  endif

// The *at() calls: a directory descriptor, or the current directory.
#  define AT_FDCWD (-100)
#  define AT_SYMLINK_NOFOLLOW 0x100
#  define AT_REMOVEDIR 0x200
#  define AT_SYMLINK_FOLLOW 0x400

// Every handle fastout opens is not inherited by child processes, whatever
// the flags say: O_CLOEXEC is the runtime's own _O_NOINHERIT.
#  ifndef O_CLOEXEC
#    define O_CLOEXEC _O_NOINHERIT
#  endif
#  define O_NOFOLLOW 0x00010000   // a reparse point (a symbolic link) is refused: ELOOP
#  define O_DIRECTORY 0x00020000  // the path must be a directory: ENOTDIR
#  define O_NONBLOCK 0x00040000   // no meaning for files on Windows: ignored
#  define O_NOCTTY 0              // no controlling terminals on Windows
#  define O_DSYNC 0x01000000      // FILE_FLAG_WRITE_THROUGH
#  define O_SYNC (0x02000000 | O_DSYNC)

#  ifndef S_IFLNK
#    define S_IFLNK 0xA000  // a symbolic link or another name-surrogate reparse point
#  endif
#  ifndef S_IFSOCK
#    define S_IFSOCK 0xC000
#  endif
#  ifndef S_ISUID
#    define S_ISUID 04000
#    define S_ISGID 02000
#    define S_ISVTX 01000
#  endif
#  ifndef S_ISLNK
#    define S_ISLNK(m) (((m)&S_IFMT) == S_IFLNK)
#  endif
#  ifndef S_ISSOCK
#    define S_ISSOCK(m) (((m)&S_IFMT) == S_IFSOCK)
#  endif

#  ifndef SEEK_SET
#    include <cstdio>
#  endif

#endif  // _WIN32

#endif  // FASTOUT_PLATFORM_POSIX_SHAPES_INTERNAL_H_
