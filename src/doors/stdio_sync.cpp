// SPDX-License-Identifier: MIT
// stdio's half of sync_with_stdio() (stdio_sync_internal.h): stream
// functions that hand stdio's calls to fastout's standard writers, through
// the C library's cookie streams (the platform's open_write_stream()).
#include "doors/stdio_sync_internal.h"

#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>

#include <fastout/standard_streams.h>

#include "platform/platform_internal.h"

namespace fastout::detail {
namespace {

// What sync_stdio_streams() replaced, to put back. Everything here lives
// for the rest of the process: stdio may still flush through these streams
// while the process exits.
struct stdio_sync {
  bool synced = false;
  std::FILE* cookie_out = nullptr;
  std::FILE* cookie_err = nullptr;
  std::FILE* saved_stdout = nullptr;
  std::FILE* saved_stderr = nullptr;
};
stdio_sync sync_state;

// The write function of the stdio streams that stand in for stdout and
// stderr: every stdio call hands its text to the fastout writer, in order.
// No exception may cross into the C library: a failure is errno and -1, and
// the stdio stream's error indicator is set, as for any failed write.
ssize_t write_to_writer(void* cookie, const char* data, std::size_t size) {
  file& writer = *static_cast<file*>(cookie);
  std::error_code error = writer.error();
  if (error && writer.error_mode() == write_errors::throw_exception) {
    // Failed for good: a printf loop after EPIPE fails each call at once,
    // without building the writer's exception every time. (A writer that
    // reports its errors takes the text below, to count it as lost.)
    errno = error.value();
    return -1;
  }
  try {
    writer.write(data, size);
    // On a terminal stdio would send a partial line (a prompt) before
    // reading stdin; fastout cannot see that moment, so it sends at once.
    if (writer.line_buffered()) writer.flush();
    // The standard streams report their write errors (write_errors::report)
    // instead of throwing them.
    if ((error = writer.error())) {
      errno = error.value();
      return -1;
    }
    return static_cast<ssize_t>(size);
  } catch (const std::system_error& e) {
    errno = e.code().value();
  } catch (...) {
    errno = ENOMEM;
  }
  return -1;
}

std::FILE* open_cookie(file& writer) {
  // Unbuffered, as the platform makes them: every call reaches the writer.
  std::FILE* stream = platform.open_write_stream(&writer, write_to_writer);
  if (stream == nullptr)
    throw std::system_error(errno, error_category(),
                            "cannot make a stdio stream for " + writer.path() +
                                (errno == ENOTSUP ? " (this C library has no cookie streams: "
                                                    "fopencookie() or funopen())"
                                                  : ""));
  return stream;
}

}  // namespace

bool sync_stdio_streams(bool on) {
  stdio_sync& s = sync_state;
  const bool was_synced = s.synced;
  if (on) {
    if (s.cookie_out == nullptr) {
      std::FILE* out = open_cookie(standard_output());
      try {
        s.cookie_err = open_cookie(standard_error());
      } catch (...) {
        std::fclose(out);  // unbuffered, with nothing to close: only the FILE is freed
        throw;
      }
      s.cookie_out = out;
    }
    if (was_synced) return true;
    // What stdio holds now goes out before anything written through
    // fastout from here on.
    std::fflush(stdout);
    std::fflush(stderr);
    s.saved_stdout = stdout;
    s.saved_stderr = stderr;
    set_standard_streams(s.cookie_out, s.cookie_err);
    s.synced = true;
    return false;
  }
  if (!was_synced) return false;
  set_standard_streams(s.saved_stdout, s.saved_stderr);
  s.synced = false;
  // Everything written while synced goes out before what stdio's own
  // streams write next (may throw: stdio's streams are back already).
  standard_output().flush();
  standard_error().flush();
  return true;
}

}  // namespace fastout::detail
