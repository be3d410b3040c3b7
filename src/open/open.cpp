// SPDX-License-Identifier: MIT
// Opening a writer: a path, or a descriptor to adopt or borrow. Options that
// ask for more than a plain open -- replace, sync, sync_directory,
// preallocate -- open through src/stages/replace.cpp's sync_and_replace_steps,
// which the writer then holds as its close steps (close_steps_internal.h):
// the writer itself (src/writer/file.cpp) knows nothing of them.
#include <fastout/file.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>


#include "stages/replace_internal.h"
#include "platform/platform_internal.h"

namespace fastout {
namespace {

using detail::platform;

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

}  // namespace

namespace {
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
  constexpr int known = file::WRONLY | file::RDWR | file::CREATE | file::EXCL | file::TRUNC |
                        file::APPEND;
  constexpr int passed_through = O_CLOEXEC | O_SYNC | O_DSYNC;  // O_SYNC includes O_DSYNC's bit
  int flags = options.flags;
  if ((flags & ~(known | passed_through)) != 0 || (flags & file::WRONLY && flags & file::RDWR))
    return -1;
  if ((flags & O_SYNC) == (O_SYNC & ~O_DSYNC)) return -1;  // half of O_SYNC's two bits
  int result = flags & file::RDWR ? O_RDWR : O_WRONLY;
  if (flags & file::CREATE) result |= O_CREAT;
  if (flags & file::EXCL) result |= O_EXCL;
  if (flags & file::TRUNC) result |= O_TRUNC;
  if (flags & file::APPEND) result |= O_APPEND;
  result |= flags & passed_through;
  return result;
}
}  // namespace

file::file(detail::cstring_view path, const file_options& options) : file() {
  // std::getenv() of an unset variable, say: std::string would call
  // strlen(nullptr) on it.
  if (path.c_str() == nullptr)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open a file for writing: the path is a null pointer");
  path_ = path.c_str();
  if (options.mode == open_mode::replace && options.flags != -1)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open " + quoted(path_) + " to replace it: {fmt}-style open "
                            "flags " + fmt::format("{:#o}", options.flags) +
                                " cannot be combined with open_mode::replace (for O_SYNC, "
                                "use fastout::sync = true)");
  int flags = open_flags(options);
  if (flags == -1)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot open " + quoted(path_) + " for writing: open flags " +
                                fmt::format("{:#o}", options.flags) +
                                " are not a combination of fastout::file's");
  flags |= O_CLOEXEC;
  // The buffer first: a writer that cannot get one must not have truncated
  // or created the file. The object is constructed (delegating constructor),
  // so from here on the destructor frees what was taken.
  // A writer that compresses gets its buffers from its engine.
  if (!open_compression(options)) allocate_buffer(options.buffer_size);
  int fd;
  detail::sync_and_replace_steps* plan = nullptr;
  if (detail::sync_and_replace_steps::needed(options)) {
    // Replacing, syncing, preallocating: src/stages/replace.cpp opens the file and
    // becomes the writer's close steps.
    plan = detail::sync_and_replace_steps::open_path(path_, options, flags, fd);
    add_close_steps(plan);
  } else {
    // Not retried on EINTR, as fopen(): a signal must be able to interrupt
    // the open of a FIFO that has no reader (alarm() around it, say).
    fd = platform.open(path.c_str(), flags, static_cast<mode_t>(options.permissions));
    if (fd < 0)
      throw std::system_error(errno, detail::error_category(),
                              "cannot open " + quoted(path_) + " for writing");
  }
  fd_ = fd;
  owns_fd_ = true;
  finish_opening(options);
  if (plan != nullptr) plan->preallocate(fd_);
}

file::file(fd_tag, int fd, bool owns_fd, const file_options& options, std::string name)
    : file() {
  path_ = name.empty() ? "<fd " + std::to_string(fd) + ">" : std::move(name);
  if (fd < 0)
    throw std::system_error(EBADF, detail::error_category(),
                            "cannot write to " + quoted(path_));
  // The descriptor first: if the buffer cannot be had, the destructor
  // closes an adopted descriptor, as it would have closed it later.
  fd_ = fd;
  owns_fd_ = owns_fd;
  detail::sync_and_replace_steps* plan = nullptr;
  if (detail::sync_and_replace_steps::needed(options)) {
    plan = detail::sync_and_replace_steps::for_descriptor(path_, options);
    close_steps_ = plan;
  }
  if (!open_compression(options)) allocate_buffer(options.buffer_size);
  finish_opening(options);
  if (plan != nullptr) plan->preallocate(fd_);
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
