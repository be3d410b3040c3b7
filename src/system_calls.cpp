#include "system_calls_internal.h"

#include <fcntl.h>
#include <stdio.h>  // renameat
#include <sys/uio.h>
#include <unistd.h>

namespace fastout::detail {
namespace {
// open() is variadic; a fixed signature can be stored in the table.
int real_open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }

// pwritev2() is declared with an off_t that may be a 64-bit alias; a fixed
// signature can be stored in the table. glibc has it since 2.26 and answers
// ENOSYS where the kernel lacks it (before 4.6).
ssize_t real_pwritev2(int fd, const struct iovec* iov, int count, off_t offset, int flags) {
  return ::pwritev2(fd, iov, count, offset, flags);
}
}  // namespace

#define FASTOUT_REAL_SYSTEM_CALLS                                                          \
  {                                                                                        \
    real_open, ::write, ::writev, real_pwritev2, ::close, ::fstat, ::isatty, ::poll,       \
        ::fsync, ::fdatasync, ::renameat, ::linkat, ::unlinkat,                            \
  }

const system_call_table real_system_calls = FASTOUT_REAL_SYSTEM_CALLS;

// Spelled out rather than copied from real_system_calls so that both are
// constant-initialized: a writer used during static initialization works.
system_call_table system_calls = FASTOUT_REAL_SYSTEM_CALLS;

}  // namespace fastout::detail
