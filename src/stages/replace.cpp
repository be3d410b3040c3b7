// SPDX-License-Identifier: MIT
// Safe replacement and durability: a stage of the writer's route out (see
// replace_internal.h, and docs/safe-replace.md for what each mode
// guarantees) that writes back what goes through it and does what close()
// needs beyond closing the descriptor.
//
// open_mode::replace, step by step:
//   open    resolve the path (symbolic links are followed with lstat and
//           readlinkat, one link at a time, never by comparing names) to a
//           directory descriptor and a name; refuse anything but a regular
//           file; create the new file in that directory: O_TMPFILE (no name
//           at all until commit) where the filesystem has it, otherwise
//           ".fastout-<16 random hex digits>-<name>" with O_EXCL, O_NOFOLLOW
//           and mode 0600; lock it (an open file description lock, held
//           until it is in place or removed); remove what killed writers
//           of the same name left (their files are not locked).
//   commit  flush; release unused preallocation; check what is at the name
//           now; give the new file the target's owner and permissions (or
//           the asked-for bits masked by the umask); fsync if asked (a
//           failed sync is final: nothing is put in place); link an
//           O_TMPFILE file (straight to the name if there is no target);
//           close (the lock stays, on a second descriptor); put it in place:
//           an exchange (Linux's renameat2(RENAME_EXCHANGE), Apple's
//           renameatx_np(RENAME_SWAP)) and unlink
//           the old inode when there is a target and no sync was asked (it
//           skips ext4's auto_da_alloc flush, which makes a rename over a
//           file as slow as writing it back), renameat otherwise (where the
//           system cannot move a file its writer holds open, it says EBUSY:
//           the lock is let go first, and the rename asked again); let go
//           of the lock; fsync the directory if asked.
//   discard close, unlink the new file if it has a name, let go of the lock.
//
// What a killed writer leaves, and how the next one finds it, is in
// docs/safe-replace.md ("What a killed process leaves behind").
#include "stages/replace_internal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "platform/platform_internal.h"
#include "stages/descriptors_internal.h"
#include "stages/messages_internal.h"

namespace fastout::detail {
namespace {

// Linux's limit on the links followed while resolving one path (macOS's
// is 32, the BSDs' the same or more: the system stops a longer chain first).
constexpr int max_links = 40;

[[noreturn]] void throw_error(int error_number, const std::string& message) {
  throw std::system_error(error_number, detail::error_category(), message);
}

void close_quietly(int fd) noexcept {
  if (fd >= 0) {
    int saved = errno;
    platform.close(fd);
    errno = saved;
  }
}

// Owns a descriptor until it is released.
class scoped_fd {
 public:
  explicit scoped_fd(int fd = -1) noexcept : fd_(fd) {}
  ~scoped_fd() { close_quietly(fd_); }
  scoped_fd(const scoped_fd&) = delete;
  scoped_fd& operator=(const scoped_fd&) = delete;
  int get() const noexcept { return fd_; }
  void reset(int fd) noexcept {
    close_quietly(fd_);
    fd_ = fd;
  }
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// "a/b/c" -> "a/b", "c"; "c" -> ".", "c"; "/c" -> "/", "c"; "a/b/" -> "a/b", ""
// (a name that can only be a directory). Lexical, for opening a directory
// and naming what is in it; nothing is decided by comparing the names.
void split_path(const std::string& path, std::string& directory, std::string& name) {
  std::string::size_type slash = path.find_last_of(path_separators);
  if (slash == std::string::npos) {
    directory = ".";
    name = path;
    return;
  }
  name = path.substr(slash + 1);
  std::string::size_type end = slash;
  while (end > 0 && std::strchr(path_separators, path[end - 1]) != nullptr)
    --end;  // "a//b": the directory is "a"
  // "/b": the directory is "/"; "C:\b" (Windows) is "C:\", as "C:" alone is
  // the current directory of drive C (on Unix, "a:/" is "a:").
  directory = end == 0 || path[end - 1] == ':' ? path.substr(0, slash + 1) : path.substr(0, end);
}

bool names_a_directory(const std::string& name) {
  return name.empty() || name == "." || name == "..";
}

const char* kind_of(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
  }
}

int refusal_errno(mode_t mode) { return S_ISDIR(mode) ? EISDIR : EINVAL; }

// The target of the symbolic link `name` in `directory`.
std::string read_link(int directory, const std::string& name, const std::string& prefix,
                      const std::string& shown) {
  std::string target(256, '\0');
  for (;;) {
    ssize_t size = platform.readlinkat(directory, name.c_str(), &target[0], target.size());
    if (size < 0) throw_error(errno, prefix + ": cannot read the symbolic link " + quoted(shown));
    if (static_cast<std::size_t>(size) < target.size()) {
      target.resize(static_cast<std::size_t>(size));
      return target;
    }
    if (target.size() >= PATH_MAX)
      throw_error(ENAMETOOLONG, prefix + ": the symbolic link " + quoted(shown) + " is too long");
    target.resize(target.size() * 4);
  }
}

// Follows `path` to the file it names: symbolic links at its last component
// are followed (when `follow`), one at a time, with lstat and readlinkat,
// and each new directory is opened relative to the link's own. Throws
// std::system_error with `prefix` ("cannot open "x" to replace it").
resolved_path resolve(const std::string& path, bool follow, int directory_flags,
                      const std::string& prefix) {
  resolved_path result;
  if (path.empty()) throw_error(ENOENT, prefix);
  std::string directory;
  split_path(path, directory, result.name);
  if (names_a_directory(result.name)) throw_error(EISDIR, prefix + ": the path names a directory");
  scoped_fd dir(open_retrying_descriptor_limit(
      [&] { return platform.openat(AT_FDCWD, directory.c_str(), directory_flags, 0); }));
  if (dir.get() < 0)
    throw_error(errno, prefix + ": cannot open its directory " + quoted(directory));
  result.shown = path;
  for (;;) {
    if (platform.fstatat(dir.get(), result.name.c_str(), &result.st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) throw_error(errno, prefix + ": cannot look at " + quoted(result.shown));
      result.exists = false;
      break;
    }
    result.exists = true;
    if (!follow || !S_ISLNK(result.st.st_mode)) break;
    if (++result.links_followed > max_links)
      throw_error(ELOOP, prefix + ": more than " + std::to_string(max_links) +
                             " symbolic links, or a loop of them");
    std::string target = read_link(dir.get(), result.name, prefix, result.shown);
    if (target.empty()) throw_error(ENOENT, prefix + ": " + quoted(result.shown) + " is empty");
    std::string link_directory, link_name;
    split_path(target, link_directory, link_name);
    const bool absolute = target[0] == '/';
    // What the link names, for messages.
    std::string shown_directory, ignored;
    split_path(result.shown, shown_directory, ignored);
    result.shown = absolute ? target : shown_directory + "/" + target;
    if (names_a_directory(link_name))
      throw_error(EISDIR, prefix + ": it links to " + quoted(result.shown) +
                              ", a directory, and only a regular file can be replaced");
    if (target.find('/') != std::string::npos) {
      int base = absolute ? AT_FDCWD : dir.get();
      int next = open_retrying_descriptor_limit(
          [&] { return platform.openat(base, link_directory.c_str(), directory_flags, 0); });
      if (next < 0)
        throw_error(errno, prefix + ": it links to " + quoted(result.shown) +
                               ", whose directory cannot be opened");
      dir.reset(next);
    }
    result.name = link_name;
  }
  result.directory = dir.release();
  return result;
}

std::uint64_t random_u64() noexcept {
  std::uint64_t value = 0;
  if (platform.random_bytes(&value, sizeof value) == 0) return value;
  // No entropy yet (early boot) or no such call here: O_EXCL keeps the name
  // safe; this only has to differ from one attempt to the next.
  static std::atomic<std::uint64_t> counter{0};
  const auto now =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::uint64_t x =
      (now << 20) ^ (now >> 44) ^ (static_cast<std::uint64_t>(process_id()) << 40) ^ ++counter;
  x += 0x9E3779B97F4A7C15ull;  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The names a new file has before it takes the target's:
// ".fastout-<16 hex digits>-<name>", at most NAME_MAX bytes (a long name is
// cut at a UTF-8 character boundary). A file written under such a name
// (no O_TMPFILE) gets 16 random digits. An O_TMPFILE file is linked to one
// only inside close(), for the few calls before it takes the target's
// name, and then to one of `link_slots` fixed names (digits 0, 1, ...), so
// that the next writer finds what a killed one left there by looking at
// those names alone; random ones are for when other writers closing the
// same path hold them all.
constexpr const char temporary_prefix[] = ".fastout-";
constexpr std::size_t temporary_prefix_size = sizeof temporary_prefix - 1;
constexpr std::size_t temporary_digits = 16;
constexpr int link_slots = 2;

// "-<name>", cut to fit.
std::string temporary_suffix(const std::string& name) {
  std::size_t room = NAME_MAX - temporary_prefix_size - temporary_digits - 1;
  std::size_t keep = std::min(room, name.size());
  if (keep < name.size()) {
    while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  }
  return "-" + name.substr(0, keep);
}

std::string temporary_name(std::uint64_t digits, const std::string& name) {
  char hex[temporary_digits + 1];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(digits));
  return temporary_prefix + std::string(hex) + temporary_suffix(name);
}

// Whether `entry` is one of those names for a target whose suffix is
// `suffix`.
bool is_temporary_name(const char* entry, const std::string& suffix) {
  const std::size_t size = std::strlen(entry);
  if (size != temporary_prefix_size + temporary_digits + suffix.size()) return false;
  if (std::memcmp(entry, temporary_prefix, temporary_prefix_size) != 0) return false;
  for (std::size_t i = 0; i < temporary_digits; ++i) {
    const char c = entry[temporary_prefix_size + i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return std::memcmp(entry + temporary_prefix_size + temporary_digits, suffix.data(),
                     suffix.size()) == 0;
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Removes `name` (whose lstat is `seen`) from `directory` if it is what a
// killed writer left: a regular file on which no live writer holds its
// lock, or a symbolic link. A regular file is checked with a read lock of
// our own, held while the name is checked again and removed, so no writer
// can take the file in between; a writer that gets its lock first keeps
// it. A link can only be the old content of a target replaced with
// symlinks::replace_link, between the exchange and its unlink: a live
// writer in that window has nothing to lose by it (put_in_place() takes
// a missing old content as removed). Anything else, and anything that
// cannot be checked (another user's file, no locks here), is left.
void remove_if_abandoned(int directory, const std::string& name, const struct stat& seen) noexcept {
  const int saved = errno;
  if (S_ISLNK(seen.st_mode)) {
    platform.unlinkat(directory, name.c_str(), 0);
  } else if (S_ISREG(seen.st_mode)) {
    int fd = platform.openat(directory, name.c_str(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
    if (fd >= 0) {
      struct stat opened, now;
      if (platform.fstat(fd, &opened) == 0 && same_file(opened, seen) &&
          platform.try_lock(fd, false) == 0 &&
          platform.fstatat(directory, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
          same_file(now, opened))
        platform.unlinkat(directory, name.c_str(), 0);
      close_quietly(fd);  // and with it the lock
    }
  }
  errno = saved;
}

// fchown() refused for reasons that leave the new file the process's own:
// EPERM (not root and not in the group; FAT; NFS with root squashing),
// EINVAL (an owner this user namespace has no id for: a container sees it
// as the overflow id, 65534, and cannot give that back).
bool owner_not_ours_to_give(int error_number) {
  return error_number == EPERM || error_number == EINVAL;
}

}  // namespace

// ------------------------------------------------ writing back while writing

int writeback::give_up(int error_number) noexcept {
  if (!writeback_refused(error_number)) return error_number;
  enabled_ = false;  // the sync in close() does it all, as before
  return 0;
}

int writeback::start(int fd) noexcept {
  const auto unstarted = static_cast<off_t>(unstarted_);
  unstarted_ = 0;
  // Where the writes ended: the file position, which O_APPEND, a seek or an
  // adopted descriptor's offset keep from being the bytes written.
  const off_t end = platform.lseek(fd, 0, SEEK_CUR);
  if (end < 0) {
    enabled_ = false;  // ESPIPE: a pipe; writeback is only a hint, never an error
    return 0;
  }
  const range now = {std::max<off_t>(end - unstarted, 0), end};
  if (count_ > 0 && started_[(oldest_ + count_ - 1) % (ranges_in_flight + 1)].end != now.begin)
    count_ = 0;  // the writer seeked: the older ranges are the final sync's
  if (retry_interrupted(
          [&] { return platform.start_writeback(fd, now.begin, now.end - now.begin); }) != 0)
    return give_up(errno);
  started_[(oldest_ + count_) % (ranges_in_flight + 1)] = now;
  if (++count_ <= ranges_in_flight) return 0;
  // Wait for the oldest range: its writeback was started 8 ranges ago.
  // Unlike fdatasync(), this reports a writeback error only once, so the
  // error it returns must be final.
  const range oldest = started_[oldest_];
  oldest_ = (oldest_ + 1) % (ranges_in_flight + 1);
  --count_;
  if (retry_interrupted([&] {
        return platform.wait_for_writeback(fd, oldest.begin, oldest.end - oldest.begin);
      }) != 0)
    return give_up(errno);
  return 0;
}

// ----------------------------------------------------------------- opening

bool sync_and_replace_stage::needed(const file_options& options) noexcept {
  return options.mode == open_mode::replace || options.sync || options.sync_directory ||
         options.preallocate != 0;
}

std::unique_ptr<sync_and_replace_stage> sync_and_replace_stage::open_path(
    const std::string& path, const file_options& options, int open_flags, int& fd) {
  std::unique_ptr<sync_and_replace_stage> plan(new sync_and_replace_stage);
  plan->replace_ = options.mode == open_mode::replace;
  plan->sync_ = options.sync;
  if (plan->sync_) plan->writeback_.enable();
  plan->sync_directory_ = options.sync_directory;
  plan->follow_links_ = options.symlink_mode == symlinks::follow;
  plan->permissions_ = options.permissions;
  plan->preallocate_ = options.preallocate;
  if (plan->replace_) {
    plan->open_replacement(path, options, fd);
    return plan;
  }
  const std::string prefix = "cannot open " + quoted(path) + " for writing";
  const mode_t mode = static_cast<mode_t>(options.permissions);
  if (!plan->sync_directory_) {
    fd = open_retrying_descriptor_limit(
        [&] { return platform.open(path.c_str(), open_flags, mode); });
    if (fd < 0) throw_error(errno, prefix);
    return plan;
  }
  // The directory to sync is the one that holds the file's name once links
  // are followed, as open() would follow them.
  resolved_path target = resolve(path, true, directory_open_flags(true), prefix);
  plan->directory_ = target.directory;
  plan->name_ = target.name;
  if (target.links_followed > 0) plan->shown_ = target.shown;
  fd = open_retrying_descriptor_limit(
      [&] { return platform.openat(plan->directory_, target.name.c_str(), open_flags, mode); });
  if (fd < 0) throw_error(errno, prefix);
  return plan;
}

std::unique_ptr<sync_and_replace_stage> sync_and_replace_stage::for_descriptor(
    const std::string& name, const file_options& options) {
  const char* needs_path = options.mode == open_mode::replace ? "open_mode::replace"
                           : options.sync_directory           ? "sync_directory"
                                                              : nullptr;
  if (needs_path != nullptr)
    throw_error(EINVAL, "cannot write to " + quoted(name) + ": " + needs_path +
                            " needs a path, and an adopted or borrowed descriptor has none");
  std::unique_ptr<sync_and_replace_stage> plan(new sync_and_replace_stage);
  plan->sync_ = options.sync;
  if (plan->sync_) plan->writeback_.enable();
  plan->preallocate_ = options.preallocate;
  return plan;
}

void sync_and_replace_stage::open_replacement(const std::string& path, const file_options& options,
                                              int& fd) {
  const std::string prefix = "cannot open " + quoted(path) + " to replace it";
  const int directory_flags = directory_open_flags(options.sync_directory);
  resolved_path target = resolve(path, follow_links_, directory_flags, prefix);
  directory_ = target.directory;
  name_ = target.name;
  if (target.links_followed > 0) shown_ = target.shown;
  std::string ignored;
  split_path(target.shown, directory_shown_, ignored);
  target_exists_ = target.exists;
  if (target.exists && !S_ISREG(target.st.st_mode) &&
      !(S_ISLNK(target.st.st_mode) && !follow_links_)) {
    std::string what =
        target.links_followed > 0
            ? "it links to " + quoted(target.shown) + ", " + kind_of(target.st.st_mode)
            : std::string("it is ") + kind_of(target.st.st_mode);
    throw_error(refusal_errno(target.st.st_mode),
                prefix + ": " + what + ", and only a regular file can be replaced");
  }
  create_temporary(prefix, fd);
  try {
    remove_abandoned(prefix);
  } catch (...) {
    // No file stage yet: the new file is this stage's to close and remove.
    close_quietly(fd);
    fd = -1;
    discard();
    throw;
  }
}

void sync_and_replace_stage::create_temporary(const std::string& prefix, int& fd) {
  const std::string cannot_create = prefix + ": cannot create a new file in its directory";
  // A file with no name until it is put in place, where the system and
  // the filesystem have one (Linux's O_TMPFILE): a killed writer leaves
  // nothing behind.
  int created = open_retrying_descriptor_limit([&] { return platform.create_unnamed(directory_); });
  if (created >= 0) {
    if (int error_number = protect(created, false)) {
      close_quietly(created);
      throw_error(error_number, cannot_create);
    }
    unnamed_ = true;
    fd = created;
    return;
  }
  if (errno != EOPNOTSUPP) throw_error(errno, cannot_create);
  int error_number = EEXIST;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary_ = temporary_name(random_u64(), name_);
    created = open_retrying_descriptor_limit([&] {
      return platform.openat(directory_, temporary_.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    });
    if (created < 0) {
      error_number = errno;
      if (error_number == EEXIST) continue;
      break;
    }
    error_number = protect(created, true);
    if (error_number == 0) {
      fd = created;
      return;
    }
    close_quietly(created);
    // Another writer's clean-up took the name before the lock: it removes
    // the file. Any other failure leaves a file of ours to remove.
    if (error_number == EAGAIN || error_number == ENOENT) continue;
    platform.unlinkat(directory_, temporary_.c_str(), 0);
    break;
  }
  temporary_.clear();
  throw_error(error_number, cannot_create);
}

// Takes the writer's lock on its new file (`fd`, open for writing: a write
// lock, which a clean-up's read lock excludes), and keeps a second
// descriptor on it so that the lock outlives close(fd), which comes before
// the rename. A named file must still be at its name once locked: a
// clean-up may have removed it just before. Returns 0 (also where locks are
// unavailable: the file is then unprotected, and a clean-up that removes it
// makes close() fail, never lose data silently), EAGAIN or ENOENT when a
// clean-up got the name first, or the errno of another failure.
int sync_and_replace_stage::protect(int fd, bool named) noexcept {
  if (platform.try_lock(fd, true) != 0) {
    if (errno == EAGAIN) return EAGAIN;
    return locks_unavailable(errno) ? 0 : errno;
  }
  if (named) {
    struct stat mine, now;
    if (platform.fstat(fd, &mine) != 0) return errno;
    if (platform.fstatat(directory_, temporary_.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0)
      return errno;
    if (!same_file(mine, now)) return ENOENT;
  }
  lock_fd_ = open_retrying_descriptor_limit([&] { return platform.dup(fd); });
  return lock_fd_ < 0 ? errno : 0;
}

int sync_and_replace_stage::release_lock() noexcept {
  if (lock_fd_ < 0) return 0;
  int result = platform.close(lock_fd_) == 0 || errno == EINTR ? 0 : errno;
  lock_fd_ = -1;
  return result;
}

// Removes what killed writers of the same name left in the directory (see
// remove_if_abandoned() for what is removed). An O_TMPFILE writer looks at
// the fixed link names only, one fstatat each; where files are written
// under random names, the directory is listed. A directory that may not be
// read is not listed; failing to look is an error, failing to remove is
// not (the file may be another user's).
void sync_and_replace_stage::remove_abandoned(const std::string& prefix) {
  if (unnamed_) {
    for (int slot = 0; slot < link_slots; ++slot) {
      std::string name = temporary_name(static_cast<std::uint64_t>(slot), name_);
      struct stat st;
      if (platform.fstatat(directory_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
        remove_if_abandoned(directory_, name, st);
      else if (errno != ENOENT)
        throw_error(errno, prefix + ": cannot look at " + quoted(directory_shown_ + "/" + name));
    }
    return;
  }
  const std::string suffix = temporary_suffix(name_);
  struct listing {
    const std::string& suffix;
    const std::string& own;
    std::vector<std::string> found;
    bool out_of_memory = false;
  } l{suffix, temporary_, {}};
  auto each = [](const char* entry, void* context) {
    auto& seen = *static_cast<listing*>(context);
    if (!is_temporary_name(entry, seen.suffix) || entry == seen.own) return;
    try {
      seen.found.emplace_back(entry);
    } catch (const std::bad_alloc&) {
      seen.out_of_memory = true;
    }
  };
  if (open_retrying_descriptor_limit(
          [&] { return platform.list_directory(directory_, each, &l); }) != 0) {
    // A directory that may not be read is not listed.
    if (errno == EACCES || errno == EPERM) return;
    throw_error(errno, prefix + ": cannot read its directory " + quoted(directory_shown_));
  }
  if (l.out_of_memory) throw_error(ENOMEM, prefix);
  const std::vector<std::string>& found = l.found;
  for (const std::string& name : found) {
    struct stat st;
    if (platform.fstatat(directory_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      remove_if_abandoned(directory_, name, st);
    else if (errno != ENOENT)
      throw_error(errno, prefix + ": cannot look at " + quoted(directory_shown_ + "/" + name));
  }
}

sync_and_replace_stage::~sync_and_replace_stage() {
  close_quietly(lock_fd_);
  close_directory();
}

void sync_and_replace_stage::close_directory() noexcept {
  close_quietly(directory_);
  directory_ = -1;
}

void sync_and_replace_stage::preallocate() noexcept {
  if (preallocate_ == 0) return;
  const int fd = next_->descriptor();
  struct stat st;
  if (platform.fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  const auto start = static_cast<std::uint64_t>(st.st_size);
  if (preallocate_ > static_cast<std::uint64_t>(INT64_MAX) - start) return;
  int result = retry_interrupted([&] {
    return platform.reserve(fd, static_cast<off_t>(start), static_cast<off_t>(preallocate_));
  });
  // ENOSPC may have reserved part of it: trim() releases that too.
  if (result == 0 || errno == ENOSPC || errno == EDQUOT) reserved_end_ = start + preallocate_;
}

// ----------------------------------------------------------------- closing

int sync_and_replace_stage::fail(close_stage failed, int error_number,
                                 std::string detail) noexcept {
  stage_ = failed;
  detail_ = std::move(detail);
  return error_number;
}

int sync_and_replace_stage::trim(int fd) noexcept {
  if (reserved_end_ == 0) return 0;
  struct stat st;
  if (platform.fstat(fd, &st) != 0) return fail(close_stage::trim, errno);
  // Past the reserved end, someone else has written: leave it.
  if (static_cast<std::uint64_t>(st.st_size) >= reserved_end_) return 0;
  if (retry_interrupted([&] { return platform.ftruncate(fd, st.st_size); }) != 0)
    return fail(close_stage::trim, errno);
  reserved_end_ = 0;
  return 0;
}

// ------------------------------------------------------ the stage's route

int sync_and_replace_stage::write(struct iovec* iov, int count) noexcept {
  const std::uint64_t before = next_->counts().bytes_written;
  int error_number = next_->write(iov, count);
  writeback_failed_ = false;
  const std::uint64_t reached = next_->counts().bytes_written - before;
  if (error_number == 0 && reached > 0) {
    // Writeback while writing (durable writers). A failure is final, as a
    // failed sync() is: the kernel may have dropped those pages, so a later
    // sync could succeed without them.
    error_number = writeback_.reached_file(next_->descriptor(), reached);
    writeback_failed_ = error_number != 0;
  }
  return error_number;
}

int sync_and_replace_stage::sync(bool metadata) noexcept {
  // A new file that takes another's place needs its metadata on disk too.
  return next_->sync(metadata || replace_);
}

// The file stage closes the descriptor (if the writer owns it): 0, or the
// errno of a close() that failed.
int sync_and_replace_stage::close_file() noexcept { return next_->finish(0, false, true); }

int sync_and_replace_stage::finish(int error_number, bool error_from_sync, bool commit) noexcept {
  const close_stage earlier = error_from_sync ? close_stage::sync : close_stage::write;
  const int fd = next_->descriptor();
  int result;
  if (!replace_) {
    result = finish_plain(fd, error_number, earlier);
  } else if (error_number != 0) {
    discard();
    result = fail(earlier, error_number);
  } else if (!commit) {
    discard();
    result = fail(close_stage::canceled, left_behind() ? leftover_error_ : ECANCELED);
  } else {
    result = finish_replacement(fd);
  }
  close_directory();
  return result;
}

int sync_and_replace_stage::finish_plain(int fd, int error_number, close_stage earlier) noexcept {
  int result = error_number != 0 ? fail(earlier, error_number) : trim(fd);
  if (result == 0 && sync_ && sync_file(fd, false) != 0) result = fail(close_stage::sync, errno);
  if (int close_error = close_file()) {
    if (result == 0) result = fail(close_stage::close, close_error);
  }
  if (result == 0 && sync_directory_ && directory_ >= 0 && detail::sync_directory(directory_) != 0)
    result = fail(close_stage::directory_sync, errno);
  return result;
}

int sync_and_replace_stage::check_target(bool& exists, struct stat& now) noexcept {
  if (platform.fstatat(directory_, name_.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno != ENOENT) return fail(close_stage::place, errno, ": cannot look at it");
    exists = target_exists_ = false;
    return 0;
  }
  exists = target_exists_ = true;
  if (S_ISREG(now.st_mode) || (S_ISLNK(now.st_mode) && !follow_links_)) return 0;
  return fail(close_stage::place, S_ISLNK(now.st_mode) ? EEXIST : refusal_errno(now.st_mode),
              std::string(": it became ") + kind_of(now.st_mode) +
                  " while the new content was being written");
}

int sync_and_replace_stage::set_owner_and_mode(int fd, const struct stat* target) noexcept {
  mode_t mode;
  if (target != nullptr && S_ISREG(target->st_mode)) {
    // The target's owner and group where this process may set them (root,
    // or a group it belongs to); its permission bits, without set-user-ID
    // and set-group-ID unless the owner and group were kept.
    bool owner_kept = true;
    struct stat mine;
    if (platform.fstat(fd, &mine) != 0)
      return fail(close_stage::place, errno, ": cannot look at the new file");
    if (mine.st_uid != target->st_uid || mine.st_gid != target->st_gid) {
      if (platform.fchown(fd, target->st_uid, target->st_gid) != 0) {
        if (!owner_not_ours_to_give(errno))
          return fail(close_stage::place, errno, ": cannot give it the owner");
        owner_kept = false;
        if (mine.st_gid != target->st_gid &&
            platform.fchown(fd, static_cast<uid_t>(-1), target->st_gid) != 0 &&
            !owner_not_ours_to_give(errno))
          return fail(close_stage::place, errno, ": cannot give it the group");
      }
    }
    mode = target->st_mode & 07777;
    if (!owner_kept) mode &= static_cast<mode_t>(~(S_ISUID | S_ISGID));
  } else {
    mode = static_cast<mode_t>(permissions_ & 07777) & ~platform.read_umask();
  }
  if (platform.fchmod(fd, mode) != 0)
    return fail(close_stage::place, errno, ": cannot give it its permissions");
  return 0;
}

// Gives an O_TMPFILE file a name: the target's, if there is no target (then
// it is in place), otherwise a temporary one to rename from.
int sync_and_replace_stage::link_temporary(int fd) noexcept {
  for (int attempt = 0; attempt < link_slots + 100; ++attempt) {
    std::string name = temporary_name(
        attempt < link_slots ? static_cast<std::uint64_t>(attempt) : random_u64(), name_);
    if (platform.link_unnamed(fd, directory_, name.c_str()) == 0) {
      temporary_ = name;
      return 0;
    }
    if (errno != EEXIST) return fail(close_stage::place, errno, ": cannot link the new file");
  }
  return fail(close_stage::place, EEXIST, ": cannot link the new file");
}

int sync_and_replace_stage::put_in_place(bool target_exists) noexcept {
  const char* from = temporary_.c_str();
  if (target_exists && !sync_) {
    if (platform.exchange(directory_, from, directory_, name_.c_str()) == 0) {
      // What came out must be what was checked a moment ago: a regular
      // file, or the link itself. Anything else, or something that cannot
      // be checked, goes back.
      struct stat old;
      int error_number = 0;
      std::string why;
      if (platform.fstatat(directory_, from, &old, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) {
          // Another writer's clean-up removed it, which it does only to a
          // regular file or a link: the old content is gone, as it should.
          placed_ = true;
          temporary_.clear();
          return 0;
        }
        error_number = errno;
        why = ": cannot check what the exchange took out";
      } else if (!S_ISREG(old.st_mode) && !(S_ISLNK(old.st_mode) && !follow_links_)) {
        error_number = refusal_errno(old.st_mode);
        why = std::string(": it became ") + kind_of(old.st_mode) +
              " while the new content was being written";
      }
      if (error_number != 0) {
        if (platform.exchange(directory_, from, directory_, name_.c_str()) != 0) {
          // Nothing left to do but say where everything is.
          placed_ = true;
          leftover_error_ = errno;
          leftover_ = directory_shown_ + "/" + temporary_;
          temporary_.clear();
          return fail(close_stage::place, error_number,
                      why +
                          ", and the exchange could not be undone: the new content is in "
                          "place and what was there is left at " +
                          quoted(leftover_));
        }
        return fail(close_stage::place, error_number, why);
      }
      placed_ = true;
      std::string old_content = temporary_;
      temporary_.clear();
      if (platform.unlinkat(directory_, old_content.c_str(), 0) != 0 && errno != ENOENT) {
        leftover_error_ = errno;
        leftover_ = directory_shown_ + "/" + old_content;
        return fail(close_stage::remove_old, errno);
      }
      return 0;
    }
    if (!exchange_refused(errno) && errno != ENOENT) return fail(close_stage::place, errno);
    // No exchange here, or the target has just gone: rename.
  }
  if (platform.renameat(directory_, from, directory_, name_.c_str()) != 0) {
    // A system that cannot move a file its writer still holds open
    // (Windows: ReplaceFileW opens the new file with no sharing) says EBUSY
    // while the lock is on it: let go of the lock and ask once more. Until
    // the file is in place, another writer's clean-up could then take it for
    // a leftover and remove it: the rename fails, and so does close().
    if (errno != EBUSY || lock_fd_ < 0) return fail(close_stage::place, errno);
    if (int unlock_error = release_lock())
      return fail(close_stage::place, unlock_error, ": cannot let go of the new file's lock");
    if (platform.renameat(directory_, from, directory_, name_.c_str()) != 0)
      return fail(close_stage::place, errno);
  }
  placed_ = true;
  temporary_.clear();
  return 0;
}

int sync_and_replace_stage::finish_replacement(int fd) noexcept {
  bool exists = false;
  struct stat now;
  int result = trim(fd);
  if (result == 0) result = check_target(exists, now);
  if (result == 0) result = set_owner_and_mode(fd, exists ? &now : nullptr);
  if (result == 0 && sync_ && sync_file(fd, true) != 0) result = fail(close_stage::sync, errno);
  if (result == 0 && unnamed_) {
    if (!exists) {
      // No target: link straight to its name; EEXIST if one has appeared.
      if (platform.link_unnamed(fd, directory_, name_.c_str()) == 0) {
        placed_ = true;
      } else if (errno != EEXIST) {
        result = fail(close_stage::place, errno, ": cannot link the new file");
      } else {
        result = check_target(exists, now);
      }
    }
    if (result == 0 && !placed_) result = link_temporary(fd);
  }
  if (result != 0) {
    discard();
    return result;
  }
  // Closed before it is put in place: a filesystem (NFS) may report a write
  // error only here. The lock stays, on lock_fd_.
  if (int close_error = close_file()) {
    result = fail(close_stage::close, close_error);
    if (placed_) {
      release_lock();
    } else {
      discard();
    }
    return result;
  }
  if (!placed_) {
    result = put_in_place(exists);
    if (result != 0) {
      if (placed_) {
        release_lock();
      } else {
        discard();
      }
      return result;
    }
  }
  // In place: no clean-up can take it for a leftover any more, and the lock
  // is on the target now, where it would get in the way of users' own
  // locks: let go at once.
  const int unlock_error = release_lock();
  int sync_error = 0;
  if (sync_directory_ && detail::sync_directory(directory_) != 0) sync_error = errno;
  if (unlock_error != 0) return fail(close_stage::close, unlock_error);
  if (sync_error != 0) return fail(close_stage::directory_sync, sync_error);
  return 0;
}

// Closes the new file (once the file stage is there) and removes it.
void sync_and_replace_stage::discard() noexcept {
  if (next_ != nullptr) close_file();  // quietly: the content is being discarded
  if (!temporary_.empty()) {
    if (platform.unlinkat(directory_, temporary_.c_str(), 0) != 0 && errno != ENOENT) {
      leftover_error_ = errno;
      leftover_ = directory_shown_ + "/" + temporary_;
    }
    temporary_.clear();
  }
  // After the unlink: until then, no clean-up may take the file.
  close_quietly(lock_fd_);
  lock_fd_ = -1;
}

// ----------------------------------------------------------------- messages

void sync_and_replace_stage::complete_report(error_report& report,
                                             std::uint64_t accepted) const noexcept {
  report.close_failed = stage_ == close_stage::close;
  report.sync_failed =
      report.sync_failed || stage_ == close_stage::sync || stage_ == close_stage::directory_sync;
  report.not_replaced = not_replaced();
  if (report.not_replaced) report.bytes_lost = accepted;  // none of it reached the target
}

std::string sync_and_replace_stage::describe_close_failure(const std::string& path,
                                                           std::uint64_t written,
                                                           std::uint64_t accepted, bool) const {
  const std::string target =
      quoted(path) + (shown_.empty() ? std::string() : " (a link to " + quoted(shown_) + ")");
  std::string counts = std::to_string(written) + " of " + std::to_string(accepted) +
                       " bytes reached the " + (replace_ ? "new file" : "file");
  if (replace_ && !placed_) {
    // (A new file that could not be removed is named at the end.)
    if (leftover_.empty()) counts += "; it was removed";
    if (stage_ != close_stage::canceled)
      counts += (leftover_.empty() ? ", and " : "; ") + quoted(path) + " left as it was" +
                (target_exists_ ? "" : ": it did not exist, and still does not");
  }
  std::string message;
  switch (stage_) {
    case close_stage::none:
    case close_stage::write: message = "cannot write to " + target + " (" + counts + ")"; break;
    case close_stage::trim:
      message = "cannot release the space preallocated for " + target + " (" + counts + ")";
      break;
    case close_stage::sync:
      message = replace_ ? "cannot sync the new content of " + target + " (" + counts + ")"
                         : "cannot sync " + target + " (" + counts +
                               ", but may not survive a power loss)";
      break;
    case close_stage::close:
      message = replace_ && placed_
                    ? "cannot close " + target + " after putting its new content in place (" +
                          counts + ")"
                    : (replace_ ? "cannot close the new file for " : "cannot close ") + target +
                          " (" + counts + ")";
      break;
    case close_stage::place:
      message = "cannot put the new file in place of " + target + detail_ + " (" + counts + ")";
      break;
    case close_stage::directory_sync:
      message = replace_ ? "cannot sync the directory of " + target +
                               " after replacing it (the new content is in place, but may not "
                               "survive a power loss)"
                         : "cannot sync the directory of " + target + " (" + counts +
                               "; its name may not survive a power loss)";
      break;
    case close_stage::remove_old:
      return "replaced " + target + ", but cannot remove its old content, left at " +
             quoted(leftover_);
    case close_stage::canceled:
      message = quoted(path) + (target_exists_ ? " was not replaced" : " was not created") +
                ": the writer was canceled, or destroyed without close() or commit() (" + counts +
                ")";
      break;
  }
  if (!leftover_.empty() && !placed_)
    message += "; the new file could not be removed and is left at " + quoted(leftover_) + " (" +
               std::strerror(leftover_error_) + ")";
  return message;
}

}  // namespace fastout::detail
