#include "system_calls_internal.h"

#include <fcntl.h>
#include <unistd.h>

namespace fastout::detail {
namespace {
// open() is variadic; a fixed signature can be stored in the table.
int real_open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }
}  // namespace

const system_call_table real_system_calls = {
    real_open, ::write, ::writev, ::close, ::fstat, ::isatty, ::poll,
};

// Spelled out rather than copied from real_system_calls so that both are
// constant-initialized: a writer used during static initialization works.
system_call_table system_calls = {
    real_open, ::write, ::writev, ::close, ::fstat, ::isatty, ::poll,
};

}  // namespace fastout::detail
