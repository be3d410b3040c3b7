// SPDX-License-Identifier: MIT
// Opening a writer -- a path, or a descriptor to adopt or borrow -- is where
// its route out is assembled, and the one place that knows the stages
// (src/stages/stage_internal.h): from the file up, a file_stage; a
// sync_and_replace_stage when the options ask for replace, sync,
// sync_directory or preallocate; a compression_stage when they ask for
// compression. The writer (src/writer/file.cpp) gets the first stage and
// knows nothing of the others.
#include <fastout/file.h>

#include <cerrno>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "platform/platform_internal.h"
#include "stages/compression_stage_internal.h"
#include "stages/descriptors_internal.h"
#include "stages/file_stage_internal.h"
#include "stages/messages_internal.h"
#include "stages/replace_internal.h"

namespace fastout {
namespace {

using detail::compression_stage;
using detail::file_stage;
using detail::platform;
using detail::quoted;
using detail::stage;
using detail::sync_and_replace_stage;

// open()'s flags for a writer's options: its open_mode, or {fmt}-style flags
// taken as they are, as fmt::file does, except that write access is implied.
// Returns -1 if the flags hold a bit that is neither one of file's nor
// O_CLOEXEC, O_SYNC or O_DSYNC, or both WRONLY and RDWR.
int open_flags(const file_options& options) {
  if (options.flags == -1) {
    switch (options.mode) {
      case open_mode::truncate: return O_WRONLY | O_CREAT | O_TRUNC;
      case open_mode::append: return O_WRONLY | O_CREAT | O_APPEND;
      case open_mode::create_exclusive: return O_WRONLY | O_CREAT | O_EXCL;
      case open_mode::replace: return O_WRONLY;  // the new file's own flags: src/stages/replace.cpp
    }
    return -1;
  }
  constexpr int known =
      file::WRONLY | file::RDWR | file::CREATE | file::EXCL | file::TRUNC | file::APPEND;
  // The system's own flags that pass through, but none with the value of
  // one of file's, which are {fmt}'s and so Linux's: on macOS O_SYNC is
  // 0200, file::EXCL (there, use fastout::sync = true).
  constexpr int passed_through = (O_CLOEXEC | O_SYNC | O_DSYNC) & ~known;
  const int flags = options.flags;
  if ((flags & ~(known | passed_through)) != 0 || (flags & file::WRONLY && flags & file::RDWR))
    return -1;
  // Linux's O_SYNC is O_DSYNC's bit and one more: half of it is no flag.
  constexpr int sync_only_bits = O_SYNC & ~O_DSYNC & passed_through;
  if ((O_SYNC & O_DSYNC) != 0 && sync_only_bits != 0 &&
      (flags & (O_SYNC & passed_through)) == sync_only_bits)
    return -1;
  int result = flags & file::RDWR ? O_RDWR : O_WRONLY;
  if (flags & file::CREATE) result |= O_CREAT;
  if (flags & file::EXCL) result |= O_EXCL;
  if (flags & file::TRUNC) result |= O_TRUNC;
  if (flags & file::APPEND) result |= O_APPEND;
  result |= flags & passed_through;
  return result;
}

// The last stage, made before the file is opened, so that nothing can fail
// between opening the file and handing its descriptor over.
std::unique_ptr<file_stage> make_file_stage(int fd, bool owns_fd, const file_options& options) {
  return std::make_unique<file_stage>(fd, owns_fd, options.cache == page_cache::drop);
}

#if defined(FASTOUT_C_API_ONLY)
// libfastout-c serves the C API alone, whose options never ask for
// replace, sync, sync_directory or preallocate (fastout_options has none of
// them): the stage that does them (src/stages/replace.cpp, 38 KB) is left
// out of every C program. A C++ program that links libfastout-c anyway, and
// asks for one, is refused with the reason.
[[noreturn]] void refuse_durable_route(const std::string& name) {
  throw std::system_error(ENOTSUP, detail::error_category(),
                          "cannot open " + quoted(name) +
                              ": replace, sync, sync_directory and preallocate are not in "
                              "libfastout-c, the C API's library; a C++ program links libfastout");
}
#endif

// The stage that replaces, syncs and preallocates, opening `name`.
std::unique_ptr<sync_and_replace_stage> open_durable_route(const std::string& name,
                                                           const file_options& options, int flags,
                                                           int& fd) {
#if defined(FASTOUT_C_API_ONLY)
  (void)options, (void)flags, (void)fd;
  refuse_durable_route(name);
#else
  return sync_and_replace_stage::open_path(name, options, flags, fd);
#endif
}

// The same stage, for a descriptor the program has.
std::unique_ptr<sync_and_replace_stage> durable_route_for(const std::string& name,
                                                          const file_options& options) {
#if defined(FASTOUT_C_API_ONLY)
  (void)options;
  refuse_durable_route(name);
#else
  return sync_and_replace_stage::for_descriptor(name, options);
#endif
}

}  // namespace

file::file(detail::cstring_view path, const file_options& options) : file() {
  // std::getenv() of an unset variable, say: std::string would call
  // strlen(nullptr) on it.
  if (path.c_str() == nullptr)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open a file for writing: the path is a null pointer");
  set_path(path.c_str());
  const std::string& name = writer::path();
  if (options.mode == open_mode::replace && options.flags != -1)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open " + quoted(name) +
                                " to replace it: {fmt}-style open "
                                "flags " +
                                fmt::format("{:#o}", options.flags) +
                                " cannot be combined with open_mode::replace (for O_SYNC, "
                                "use fastout::sync = true)");
  int flags = open_flags(options);
  if (flags == -1)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open " + quoted(name) + " for writing: open flags " +
                                fmt::format("{:#o}", options.flags) +
                                " are not a combination of fastout::file's");
  flags |= O_CLOEXEC;
  // The buffer first: a writer that cannot get one must not have truncated
  // or created the file. A writer that compresses gets its buffers from its
  // compression stage. The object is constructed (delegating constructor),
  // so from here on the destructor frees what was taken.
  char* route_buffer = nullptr;
  std::size_t route_capacity = 0;
  std::unique_ptr<stage> compressing =
      compression_stage::make(options, name, route_buffer, route_capacity);
  if (compressing == nullptr) allocate_buffer(options);
  std::unique_ptr<file_stage> bottom = make_file_stage(-1, true, options);
  std::unique_ptr<stage> route;
  sync_and_replace_stage* steps = nullptr;
  // The file stage of a writer whose descriptor may be released beyond the
  // descriptor limit: a file opened here without a durable route.
  file_stage* releasable = nullptr;
  if (sync_and_replace_stage::needed(options)) {
    // Replacing, syncing, preallocating: the stage opens the file (the new
    // one, for a replacement).
    int fd = -1;
    std::unique_ptr<sync_and_replace_stage> opened = open_durable_route(name, options, flags, fd);
    bottom->set_descriptor(fd);
    opened->set_next(bottom.release());
    steps = opened.get();
    route = std::move(opened);
  } else {
    // Not retried on EINTR, as fopen(): a signal must be able to interrupt
    // the open of a FIFO that has no reader (alarm() around it, say). On
    // EMFILE, room is made (descriptors_internal.h).
    const int fd = detail::open_retrying_descriptor_limit([&] {
      return platform.open(name.c_str(), flags, static_cast<mode_t>(options.permissions));
    });
    if (fd < 0)
      throw std::system_error(errno, detail::error_category(),
                              "cannot open " + quoted(name) + " for writing");
    bottom->set_descriptor(fd);
    releasable = options.keep_descriptor_open ? nullptr : bottom.get();
    route = std::move(bottom);
  }
  if (compressing != nullptr) {
    compressing->set_next(route.release());
    route = std::move(compressing);
  }
  attach(route.release(), route_buffer, route_capacity, options);
  if (steps != nullptr) steps->preallocate();
  // Last: from here on another thread's open may release it.
  if (releasable != nullptr) releasable->make_releasable(name, flags);
}

file::file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name) : file() {
  set_path(name.empty() ? "<fd " + std::to_string(fd) + ">" : std::move(name));
  const std::string& shown = writer::path();
  if (fd < 0)
    throw std::system_error(EBADF, detail::error_category(), "cannot write to " + quoted(shown));
  // The descriptor first: if anything else cannot be had, the file stage
  // closes an adopted descriptor, as the writer would have closed it later.
  std::unique_ptr<file_stage> bottom;
  try {
    bottom = make_file_stage(fd, owns_fd, options);
  } catch (...) {
    if (owns_fd) platform.close(fd);
    throw;
  }
  std::unique_ptr<stage> route = std::move(bottom);
  sync_and_replace_stage* steps = nullptr;
  if (sync_and_replace_stage::needed(options)) {
    std::unique_ptr<sync_and_replace_stage> durable = durable_route_for(shown, options);
    durable->set_next(route.release());
    steps = durable.get();
    route = std::move(durable);
  }
  char* route_buffer = nullptr;
  std::size_t route_capacity = 0;
  std::unique_ptr<stage> compressing =
      compression_stage::make(options, shown, route_buffer, route_capacity);
  if (compressing != nullptr) {
    compressing->set_next(route.release());
    route = std::move(compressing);
  } else {
    allocate_buffer(options);
  }
  attach(route.release(), route_buffer, route_capacity, options);
  if (steps != nullptr) steps->preallocate();
}

file file::adopt(int fd, const file_options& options, std::string name) {
  return file(fd_tag{}, fd, true, options, std::move(name));
}

file file::borrow(int fd, const file_options& options, std::string name) {
  return file(fd_tag{}, fd, false, options, std::move(name));
}

file stdout_file(const file_options& options) {
  return file::borrow(detail::standard_output_descriptor, options, "<stdout>");
}

file stderr_file() {
  file_options options;
  options.buffer_size = 0;
  return stderr_file(options);
}

file stderr_file(const file_options& options) {
  return file::borrow(detail::standard_error_descriptor, options, "<stderr>");
}

}  // namespace fastout
