// SPDX-License-Identifier: MIT
// What can be chosen when a fastout writer is opened: file_options, the
// parameters of output_file() in {fmt}'s style (`fastout::buffer_size = n`),
// and how each becomes a field of file_options (detail::apply_options()).
#ifndef FASTOUT_OPTIONS_H_
#define FASTOUT_OPTIONS_H_

// One clear error before C++17, instead of pages of them: the rest of the
// header is skipped.
#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#  include <cstddef>
#  include <cstdint>
#  include <type_traits>

#  include <fastout/compression.h>

namespace fastout {

/// The buffer size a writer gets when none is given: 256 KiB, within a few
/// percent of the fastest on the machines measured while keeping a writer's
/// memory modest (docs/buffer-size.md has the figures).
inline constexpr std::size_t default_buffer_size = 256 * 1024;

/// What happens to an existing file at the path when it is opened.
enum class open_mode {
  truncate,          ///< create or truncate: fopen's "w" (the default)
  append,            ///< create or append at the end: fopen's "a"
  create_exclusive,  ///< create; fail with EEXIST if it exists: fopen's "wx"
  /// Write a new file beside the target and put it in place of the target
  /// on close() (or commit()): the path shows the old content or the whole
  /// new content, never anything in between, whatever happens to the
  /// process. Destroyed without close() or commit(), or after an error, the
  /// writer leaves the target as it was. Only a regular file (or nothing)
  /// can be replaced. docs/safe-replace.md says what survives a crash and
  /// what survives a power loss, option by option.
  replace,
};

/// What open_mode::replace does when the path is a symbolic link.
enum class symlinks {
  /// Replace the file the link points to (through any chain of links) and
  /// keep the link, as Qt's QSaveFile does. A dangling link gets its file
  /// created. A link to anything but a regular file is refused.
  follow,
  /// Replace the link itself with the new file.
  replace_link,
};

/// What the page cache keeps of what a writer writes.
enum class page_cache {
  keep,  ///< as write(): the data stays cached until memory is needed
  /// Each write drops its pages from the cache once they are on disk
  /// (pwritev2 with RWF_DONTCACHE, Linux 6.14 and later): for large output
  /// that will not be read back soon, it saves the copy the cache would
  /// keep and makes a following sync faster. Where the kernel or the
  /// filesystem lacks it, the writer falls back to plain writes at its first
  /// write; drops_page_cache() tells which.
  drop,
};

/// When the buffer is written to the file, besides flush() and close().
enum class buffering {
  automatic,  ///< line-buffered on a terminal, fully buffered otherwise (stdio's rule)
  full,       ///< only when the buffer is full
  line,       ///< also after every call whose data holds a '\n'
};

/// What a write error (ENOSPC, EPIPE, EIO, a failed sync, ...) does to the
/// calls of a writer: file_options::errors.
enum class write_errors {
  /// `report` for the process-wide standard_output() and standard_error(),
  /// `throw_exception` for every other writer (the default).
  automatic,
  /// The call that meets the error throws std::system_error, and so does
  /// every later call (refused: none of its bytes are accepted), as
  /// fmt::ostream does.
  throw_exception,
  /// stdio's way, and coreutils' close_stdout(): no call throws a write
  /// error. The error is sticky and readable (error(), stats()); the call
  /// that met it and every later one are accepted and dropped, without a
  /// system call, and counted as lost; the error handler reports it once,
  /// with every byte lost, when the writer is closed or destroyed (for the
  /// standard streams, when the process exits, whose status it makes
  /// nonzero). Misuse still throws: a closed writer (EBADF), a live cursor
  /// (EBUSY), a format error.
  report,
};

/// Everything that can be chosen when a writer is opened.
struct file_options {
  open_mode mode = open_mode::truncate;
  /// Permission bits for a file that is created, masked by the umask (fopen's 0666).
  unsigned permissions = 0666;
  /// The buffer's size. Left at default_buffer_size, the process's buffer
  /// budget sizes it (<fastout/budget.h>): 256 KiB while the budget has
  /// ample room, else from 4 KiB, growing while the writer is busy.
  /// Any other size (or `fastout::buffer_size = n`, even of 256 KiB) is the
  /// program's exact choice: fixed at open, never reallocated, and counted
  /// in the budget. 0 means unbuffered: every call goes straight to the file.
  std::size_t buffer_size = default_buffer_size;
  /// buffer_size is the program's exact choice even if it is
  /// default_buffer_size: `fastout::buffer_size = n` sets it.
  bool buffer_size_exact = false;
  buffering buffer_mode = buffering::automatic;
  /// Whether a write error is thrown or reported (see write_errors).
  write_errors errors = write_errors::automatic;
  /// {fmt}-style open flags (file::CREATE | file::APPEND | ...), used exactly
  /// as given instead of `mode` when set; -1, the default, means `mode`.
  /// Write access is implied (file::WRONLY unless file::RDWR is given), and
  /// O_CLOEXEC is always added. O_SYNC and O_DSYNC are accepted as well.
  /// Refused together with open_mode::replace.
  int flags = -1;
  /// Before close() returns (before the new file is put in place, with
  /// open_mode::replace), wait until the file's data is on disk:
  /// fdatasync(), or fsync() in replace mode, where the new file's metadata
  /// matters too. A failed sync is final: the error is sticky and a
  /// replacement whose sync failed is never put in place. Until close(), a
  /// power loss leaves what it would without sync (docs/safe-replace.md).
  bool sync = false;
  /// In close(), once the file is complete (and in place, with
  /// open_mode::replace), fsync() the directory that holds it, so that the
  /// name of a file the writer created or replaced survives a power loss
  /// too. With sync, that makes the file durable once close() returns.
  bool sync_directory = false;
  /// What the page cache keeps of the written data (page_cache::drop: for
  /// large output not read back soon, with sync the fast durable mode).
  page_cache cache = page_cache::keep;
  /// Bytes to reserve for the file at open (fallocate with
  /// FALLOC_FL_KEEP_SIZE), when the final size is known or estimated; what
  /// is not used is released at close. 0: none. Where the filesystem cannot
  /// preallocate, the writer writes without it.
  std::uint64_t preallocate = 0;
  /// What open_mode::replace does with a symbolic link at the path.
  symlinks symlink_mode = symlinks::follow;
  /// Compressed output (<fastout/compression.h>, docs/compression.md):
  /// zstd{level}, gzip{level} or by_extension{}, and the worker threads that
  /// compress. None by default. `compression = zstd{5}` keeps the workers
  /// set before it (`compression.workers = n`), so either may come first.
  /// A compressing writer keeps buffer_size as the size of each buffer it
  /// hands to a worker (0 is refused: it needs a buffer); on a terminal it
  /// is fully buffered unless buffering::line is asked for.
  compression_options compression;
  /// Never close this writer's descriptor to make room for another. By
  /// default (false), a writer that opened a regular file by path itself
  /// (truncate, append or create_exclusive; no sync, sync_directory,
  /// preallocate or replace) may have its descriptor closed while it is
  /// idle, when another open of the process's writers fails with EMFILE
  /// even after the soft limit was raised to the hard one, and reopens the
  /// same file (checked by device and inode) where it left off when it next
  /// writes. Set it for a file the program locks with fcntl() locks, which
  /// a close() of any of its descriptors lets go. docs/guide.md, "Many
  /// outputs".
  bool keep_descriptor_open = false;
};

// The parameters of output_file() (<fastout/file.h>) and of
// fastout::ofstream (<fastout/iostream.h>).
namespace detail {
struct buffer_size_param {
  std::size_t value;
};
struct buffer_size_key {
  constexpr buffer_size_param operator=(std::size_t n) const noexcept { return {n}; }
};
struct permissions_param {
  unsigned value;
};
struct permissions_key {
  constexpr permissions_param operator=(unsigned bits) const noexcept { return {bits}; }
};
struct sync_param {
  bool value;
};
struct sync_key {
  constexpr sync_param operator=(bool on) const noexcept { return {on}; }
};
struct sync_directory_param {
  bool value;
};
struct sync_directory_key {
  constexpr sync_directory_param operator=(bool on) const noexcept { return {on}; }
};
struct preallocate_param {
  std::uint64_t value;
};
struct preallocate_key {
  constexpr preallocate_param operator=(std::uint64_t bytes) const noexcept { return {bytes}; }
};
struct keep_descriptor_open_param {
  bool value;
};
struct keep_descriptor_open_key {
  constexpr keep_descriptor_open_param operator=(bool on) const noexcept { return {on}; }
};
}  // namespace detail

/// `fastout::buffer_size = n` as a parameter of output_file(), as in {fmt}.
inline constexpr detail::buffer_size_key buffer_size{};
/// `fastout::permissions = 0600` as a parameter of output_file().
inline constexpr detail::permissions_key permissions{};
/// `fastout::sync = true` as a parameter of output_file(): file_options::sync.
inline constexpr detail::sync_key sync{};
/// `fastout::sync_directory = true`: file_options::sync_directory.
inline constexpr detail::sync_directory_key sync_directory{};
/// `fastout::preallocate = bytes`: file_options::preallocate.
inline constexpr detail::preallocate_key preallocate{};
/// `fastout::keep_descriptor_open = true`: file_options::keep_descriptor_open.
inline constexpr detail::keep_descriptor_open_key keep_descriptor_open{};

// Reading the options: the one place where a parameter becomes a field.
// output_file()'s parameters (<fastout/file.h>), those fastout::ofstream
// shares with it (<fastout/iostream.h>, into its stream_options, then into
// file_options in src/doors/iostream.cpp) and the C API's fastout_options
// (src/doors/c_api.cpp, each field as the parameter it would be) all go
// through apply_options(). A new option is a key above, a field of
// file_options and a branch in apply_option(); a door that takes it adds it
// to its own list of what it accepts.
namespace detail {
template <typename P>
struct unsupported_output_file_parameter : std::false_type {};

// One parameter into `o`: a file_options, or an ofstream's stream_options,
// which has the fields of the parameters it takes (and is given no other).
// When parameters disagree, the last one wins: an open_mode after flags
// replaces them.
template <typename Options, typename P>
void apply_option(Options& o, const P& p) {
  if constexpr (std::is_same<P, buffer_size_param>::value) {
    o.buffer_size = p.value;
    o.buffer_size_exact = true;
  } else if constexpr (std::is_same<P, permissions_param>::value) {
    o.permissions = p.value;
  } else if constexpr (std::is_same<P, open_mode>::value) {
    o.mode = p;
    // open_mode::replace never takes flags: kept, they are refused at open.
    if (p != open_mode::replace) o.flags = -1;
  } else if constexpr (std::is_same<P, buffering>::value) {
    o.buffer_mode = p;
  } else if constexpr (std::is_same<P, write_errors>::value) {
    o.errors = p;
  } else if constexpr (std::is_same<P, sync_param>::value) {
    o.sync = p.value;
  } else if constexpr (std::is_same<P, sync_directory_param>::value) {
    o.sync_directory = p.value;
  } else if constexpr (std::is_same<P, preallocate_param>::value) {
    o.preallocate = p.value;
  } else if constexpr (std::is_same<P, keep_descriptor_open_param>::value) {
    o.keep_descriptor_open = p.value;
  } else if constexpr (std::is_same<P, page_cache>::value) {
    o.cache = p;
  } else if constexpr (std::is_same<P, symlinks>::value) {
    o.symlink_mode = p;
  } else if constexpr (std::is_same<P, compression_options>::value ||
                       std::is_same<P, compression_choice_param>::value) {
    // A choice (zstd{...}) keeps the workers; compression_workers, if
    // given, is applied after every parameter.
    o.compression = p;
  } else if constexpr (std::is_same<P, compression_workers_param>::value) {
    o.compression.workers = p.value;
  } else if constexpr (std::is_integral<P>::value ||
                       (std::is_enum<P>::value && std::is_convertible<P, int>::value)) {
    // {fmt}-style flags. A single flag such as file::APPEND has the type of
    // file's unnamed enum, and must work as it does in {fmt}.
    o.flags = static_cast<int>(p);
  } else {
    static_assert(unsupported_output_file_parameter<P>::value,
                  "output_file() takes fastout::buffer_size = n (or fmt::buffer_size = n), "
                  "fastout::permissions = bits, a fastout::open_mode, a fastout::buffering, "
                  "a fastout::write_errors, "
                  "fastout::sync = b, fastout::sync_directory = b, fastout::preallocate = n, "
                  "a fastout::page_cache, a fastout::symlinks, "
                  "fastout::keep_descriptor_open = b, "
                  "fastout::compression = zstd{...}/gzip{...}/by_extension{}, "
                  "fastout::compression_workers = n, "
                  "or {fmt}-style flags such as file::WRONLY | file::CREATE");
  }
}

// compression_workers = n holds whatever the order: `compression = zstd{}`
// after it must not reset the count to the default.
template <typename P>
void apply_workers_param(compression_options& o, const P& p) {
  if constexpr (std::is_same<P, compression_workers_param>::value) o.workers = p.value;
}

// Every parameter into `o`, in order, then compression_workers.
template <typename Options, typename... P>
void apply_options(Options& o, const P&... params) {
  (apply_option(o, params), ...);
  (apply_workers_param(o.compression, params), ...);
}
}  // namespace detail

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_OPTIONS_H_
