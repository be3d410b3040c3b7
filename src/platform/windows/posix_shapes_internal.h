// SPDX-License-Identifier: MIT
// What the platform interface (platform_internal.h) names of POSIX and the
// Windows C runtime lacks: struct iovec, the *at() calls' AT_* values, the
// O_* flags beyond the runtime's own, the file types and mode bits of
// symbolic links, sockets and set-id, uid_t and gid_t. The values are
// fastout's own, chosen not to collide with the runtime's (<fcntl.h>'s
// _O_* and <sys/stat.h>'s _S_IF*): they only ever travel between the code
// above and platform/windows/platform.cpp, which reads each of them.
//
// Files are 64-bit: the build defines _FILE_OFFSET_BITS=64 (CMakeLists.txt),
// which gives MinGW-w64's off_t, lseek() and struct stat 64-bit sizes.
// Internal: included only by platform_internal.h on Windows.
#ifndef FASTOUT_PLATFORM_WINDOWS_POSIX_SHAPES_INTERNAL_H_
#define FASTOUT_PLATFORM_WINDOWS_POSIX_SHAPES_INTERNAL_H_

#include <cstddef>

#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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
#ifndef NAME_MAX
#  define NAME_MAX 255
#endif

// A quota that is full is ENOSPC on Windows (ERROR_DISK_QUOTA_EXCEEDED):
// EDQUOT, which the runtime lacks, is Winsock's WSAEDQUOT so that code that
// names it compiles; no call of the platform's sets it.
#ifndef EDQUOT
#  define EDQUOT 10069
#endif

// The *at() calls: a directory descriptor, or the current directory.
#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400

// Every handle fastout opens is not inherited by child processes, whatever
// the flags say: O_CLOEXEC is the runtime's own _O_NOINHERIT.
#ifndef O_CLOEXEC
#  define O_CLOEXEC _O_NOINHERIT
#endif
#define O_NOFOLLOW 0x00010000   // a reparse point (a symbolic link) is refused: ELOOP
#define O_DIRECTORY 0x00020000  // the path must be a directory: ENOTDIR
#define O_NONBLOCK 0x00040000   // no meaning for files on Windows: ignored
#define O_NOCTTY 0              // no controlling terminals on Windows
#define O_DSYNC 0x01000000      // FILE_FLAG_WRITE_THROUGH
#define O_SYNC (0x02000000 | O_DSYNC)

#ifndef S_IFLNK
#  define S_IFLNK 0xA000  // a symbolic link or another name-surrogate reparse point
#endif
#ifndef S_IFSOCK
#  define S_IFSOCK 0xC000
#endif
#ifndef S_ISUID
#  define S_ISUID 04000
#  define S_ISGID 02000
#  define S_ISVTX 01000
#endif
#ifndef S_ISLNK
#  define S_ISLNK(m) (((m)&S_IFMT) == S_IFLNK)
#endif
#ifndef S_ISSOCK
#  define S_ISSOCK(m) (((m)&S_IFMT) == S_IFSOCK)
#endif

#ifndef SEEK_SET
#  include <cstdio>
#endif

#endif  // FASTOUT_PLATFORM_WINDOWS_POSIX_SHAPES_INTERNAL_H_
