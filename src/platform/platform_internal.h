// SPDX-License-Identifier: MIT
// The one interface between fastout and the operating system.
//
// Everything that touches the system -- opening and creating files, writing,
// syncing, renaming and exchanging, links, permissions and owners, locks,
// terminals, the process, threads, error texts, the locale's numbers --
// goes through here. Above this folder nothing names a system call or a C
// library's extension, and nothing knows which system it runs on (no
// _WIN32, __GLIBC__, __APPLE__ ...: the CTest source_layers fails on one):
// the differences live in one implementation per platform, chosen at
// configure time (FASTOUT_PLATFORM):
//
//   linux/   Linux with glibc: O_TMPFILE, renameat2(RENAME_EXCHANGE),
//            sync_file_range, pwritev2(RWF_DONTCACHE), fallocate, getrandom,
//            open file description locks, fopencookie
//   posix/   macOS, the BSDs and other Unix systems, with POSIX.1-2008 calls;
//            Apple's F_FULLFSYNC, F_PREALLOCATE and renameatx_np(RENAME_SWAP),
//            and BSD's flock, arc4random_buf and funopen where they exist
//   unix/    what linux/ and posix/ share: the table's POSIX.1-2008 entries
//            (unix_platform(), which each of them completes) and the parts
//            of the interface that are the same on both
//   windows/ Windows (MinGW-w64 and MSVC): Win32 handles behind C runtime
//            descriptors, UTF-8 paths as UTF-16, ReplaceFileW/MoveFileExW,
//            FlushFileBuffers, LockFileEx, the console through WriteConsoleW
//
// The operations are a table of function pointers, `platform`, so that tests
// can make any of them fail ({fmt}'s posix-mock-test does the same with a
// macro): EINTR, short writes, EIO, ENOSPC, a failure at any step of a safe
// replacement, or a facility a system lacks. Where a platform lacks an
// operation, its entry fails with the errno its comment names, and the code
// above falls back as docs/platforms.md says; the operations built from
// others (create_unnamed() from openat(), read_umask() from read()) call
// those others through the table too, so that each step can be failed.
// The table is not thread-safe to change: tests swap it while no writer is
// in use.
//
// The interface speaks POSIX's types: descriptors are ints, flags are the
// system's O_* and AT_* values, errors are errno values (-1 and errno, as
// the system calls), and a file's status is a struct stat
// (posix_shapes_internal.h, the interface's own, says where each comes
// from). On Windows these are the C runtime's descriptors and errno values,
// with what the runtime lacks (struct iovec, AT_*, O_NOFOLLOW, ...) given
// fastout's own values; the platform maps each Win32 error to an errno
// (docs/platforms.md has the table).
//
// Each implementation fills its table by name, in a constexpr function
// checked with every_entry_filled() at compile time, and both `platform`
// and `real_platform` are constant-initialized (FASTOUT_CONSTINIT): they
// are whole before any static initializer of a program or a library runs,
// so a writer used during static initialization works.
//
// This folder depends on nothing of fastout's but <fastout/config.h>. This
// header is internal: it is not installed.
#ifndef FASTOUT_PLATFORM_INTERNAL_H_
#define FASTOUT_PLATFORM_INTERNAL_H_

#include <fastout/config.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>

#include "platform/posix_shapes_internal.h"

namespace fastout::detail {

/// What tells one file from every other for certain while it exists: its
/// device and its number there. Unix: st_dev and st_ino. Windows: the
/// volume's serial number and the file's 128-bit id (FileIdInfo; the 64-bit
/// file index where a system has no such id), which fstat()'s 16-bit
/// st_ino there cannot be.
struct file_identity {
  std::uint64_t device = 0;
  std::uint64_t number_high = 0;
  std::uint64_t number_low = 0;

  friend bool operator==(const file_identity& a, const file_identity& b) noexcept {
    return a.device == b.device && a.number_high == b.number_high && a.number_low == b.number_low;
  }
  friend bool operator!=(const file_identity& a, const file_identity& b) noexcept {
    return !(a == b);
  }
};

struct platform_calls {
  // ------------------------------------------------- opening and creating
  int (*open)(const char* path, int flags, mode_t mode);
  int (*openat)(int dir, const char* path, int flags, mode_t mode);
  // A new regular file in `dir` that has no name yet (Linux's O_TMPFILE),
  // open for writing, mode 0600, closed on exec. EOPNOTSUPP where the
  // system or the filesystem has none, or where it could not be given a
  // name later (no /proc): the caller then creates a named file.
  int (*create_unnamed)(int dir);
  // Gives a file from create_unnamed() the name `name` in `dir`, never
  // replacing one: EEXIST if the name is taken.
  int (*link_unnamed)(int fd, int dir, const char* name);

  // ------------------------------------------------------------- writing
  ssize_t (*write)(int fd, const void* data, size_t size);
  ssize_t (*writev)(int fd, const struct iovec* iov, int count);
  // writev() at the file position that leaves nothing of the data in the
  // page cache once it is on disk (Linux 6.14's pwritev2(RWF_DONTCACHE)).
  // Fails with EOPNOTSUPP, EINVAL or ENOSYS, having written nothing, where
  // the system or the file's filesystem does not take it: see
  // uncached_write_refused().
  ssize_t (*write_uncached)(int fd, const struct iovec* iov, int count);
  // Waits until `fd` can take more, after EAGAIN from a non-blocking
  // descriptor: 0, or -1 and errno (EINTR is retried by the caller).
  int (*wait_writable)(int fd);
  int (*close)(int fd);

  // ------------------------------------- what a descriptor or a name is
  int (*fstat)(int fd, struct stat* st);
  // `flags`: 0 or AT_SYMLINK_NOFOLLOW.
  int (*fstatat)(int dir, const char* path, struct stat* st, int flags);
  // The identity of the file `fd` is open on: 0, or -1 and errno. A writer
  // released beyond the descriptor limit checks by it that the path it
  // reopens still names its file.
  int (*identify)(int fd, file_identity* identity);
  ssize_t (*readlinkat)(int dir, const char* path, char* buffer, size_t size);
  // 1 if `fd` is a terminal, 0 otherwise (isatty(); on Windows, a console).
  int (*is_terminal)(int fd);
  // 1 if `fd` is a console that takes text as characters rather than bytes
  // (Windows: GetConsoleMode() succeeds on its handle), 0 otherwise and on
  // every Unix system, whose terminals take bytes. write() sends what it is
  // given to such a console as UTF-16 through write_console().
  int (*is_console)(int fd);
  // Writes `count` UTF-16 code units to the console `fd` (WriteConsoleW):
  // how many were written, or -1 and errno. ENOTSUP where there are no
  // such consoles.
  ssize_t (*write_console)(int fd, const char16_t* text, size_t count);
  // Where the next write lands: the iostream adapter's tellp(), seekp()
  // and std::ios::ate, and the writeback's ranges.
  off_t (*lseek)(int fd, off_t offset, int whence);
  ssize_t (*read)(int fd, void* data, size_t size);

  // ----------------------------------------------------------- durability
  int (*fsync)(int fd);
  int (*fdatasync)(int fd);
  // fsync() that also has the drive write its cache to the medium (Apple's
  // fcntl(F_FULLFSYNC): plain fsync() does not there). ENOTSUP where the
  // system has none; on Apple, ENOTSUP or EINVAL from a filesystem that
  // refuses it. sync_file() falls back to fsync() then, as SQLite does.
  int (*full_fsync)(int fd);
  // Starts writing `size` bytes at `offset` back to the disk without
  // waiting (sync_file_range(SYNC_FILE_RANGE_WRITE)), and waits until the
  // writeback started on them is done (SYNC_FILE_RANGE_WAIT_BEFORE). ENOSYS
  // where the system has none or a seccomp filter refuses it, ESPIPE on a
  // pipe, EINVAL where the file cannot take it: the sync at close() does it
  // all then.
  int (*start_writeback)(int fd, off_t offset, off_t size);
  int (*wait_for_writeback)(int fd, off_t offset, off_t size);

  // ------------------------------------------------ putting files in place
  // rename(). EBUSY where the system cannot move a file that its writer
  // still holds locked (Windows: ReplaceFileW opens the new file with no
  // sharing): the replace stage then lets go of its lock and asks again.
  int (*renameat)(int old_dir, const char* old_path, int new_dir, const char* new_path);
  // Exchanges two names atomically (Linux's renameat2(RENAME_EXCHANGE),
  // Apple's renameatx_np(RENAME_SWAP)). ENOSYS where the system has none,
  // EINVAL (Linux) or ENOTSUP (Apple) where the filesystem has none: see
  // exchange_refused().
  int (*exchange)(int old_dir, const char* old_path, int new_dir, const char* new_path);
  int (*linkat)(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags);
  int (*unlinkat)(int dir, const char* path, int flags);
  // Calls `each` with the name of every entry of the directory `dir` (which
  // stays open and unchanged), "." and ".." included. 0, or -1 and errno.
  int (*list_directory)(int dir, void (*each)(const char* name, void* context), void* context);

  // ---------------------------------------------- permissions and owners
  int (*fchmod)(int fd, mode_t mode);
  int (*fchown)(int fd, uid_t owner, gid_t group);
  mode_t (*umask)(mode_t mask);
  // The process's umask. Linux reads it from /proc/self/status (4.7 and
  // later), which does not change it; elsewhere, and where that fails, it
  // is read with umask(), set and restored, which races with other threads
  // creating files at that moment.
  mode_t (*read_umask)();

  // ---------------------------------------------------------------- space
  // Reserves `length` bytes from `offset` without changing the file's size
  // (Linux's fallocate(FALLOC_FL_KEEP_SIZE), Apple's F_PREALLOCATE).
  // EOPNOTSUPP where the system or the filesystem cannot.
  int (*reserve)(int fd, off_t offset, off_t length);
  int (*ftruncate)(int fd, off_t length);

  // ----------------------------------------------------- names and locks
  // Fills `data` with unpredictable bytes without blocking (Linux's
  // getrandom(GRND_NONBLOCK), arc4random_buf on Apple and the BSDs). 0, or
  // -1 and errno: ENOSYS where the system has no such call, EAGAIN before
  // the system has entropy (early boot).
  int (*random_bytes)(void* data, size_t size);
  // Takes a lock on the whole file that belongs to `fd`'s open file
  // description, so that a second descriptor from dup() keeps it after
  // `fd` is closed, and closing the last one lets it go (Linux's open file
  // description locks, F_OFD_SETLK; BSD's and Apple's flock()): exclusive
  // or shared, never waiting. EAGAIN if another description holds a
  // conflicting lock; EINVAL, ENOLCK or EOPNOTSUPP where locks are not
  // available (see locks_unavailable()).
  int (*try_lock)(int fd, bool exclusive);
  // A second descriptor on the same open file description, closed on exec.
  int (*dup)(int fd);

  // ---------------------------------------------------------- the process
  // A stdio stream whose every write goes to `write` with `cookie`
  // (glibc's fopencookie, BSD's and Apple's funopen); unbuffered. Null
  // and ENOTSUP where the C library has no such streams.
  std::FILE* (*open_write_stream)(void* cookie,
                                  ssize_t (*write)(void* cookie, const char* data, size_t size));
  // Raises the process's soft limit of open descriptors (RLIMIT_NOFILE)
  // to its hard limit, as far as the system lets a process go (Apple's
  // OPEN_MAX and kern.maxfilesperproc, as Go's runtime clamps it): 0 if it
  // raised it, -1 and errno otherwise -- EPERM when the soft limit is at
  // the hard one already (nothing left to raise), ENOSYS where there is no
  // such limit to raise (Windows). Called once per process, on the first
  // EMFILE (raise_descriptor_limit_once()).
  int (*raise_descriptor_limit)();
};

/// The number of entries of platform_calls, which every_entry_filled()
/// checks one by one: a new entry is added there too.
inline constexpr std::size_t platform_call_count = 39;
static_assert(sizeof(platform_calls) == platform_call_count * sizeof(void (*)()),
              "platform_calls gained or lost an entry: every_entry_filled() must check each");

/// Whether every entry of `c` is filled: each implementation's table, filled
/// by name, is checked with it at compile time, so that an entry the
/// interface gains and one platform forgets fails that platform's build
/// instead of crashing at its first call.
constexpr bool every_entry_filled(const platform_calls& c) noexcept {
  return c.open && c.openat && c.create_unnamed && c.link_unnamed &&  // opening and creating
         c.write && c.writev && c.write_uncached && c.wait_writable && c.close &&  // writing
         c.fstat && c.fstatat && c.identify && c.readlinkat && c.is_terminal &&    // what ...
         c.is_console &&                                                           //
         c.write_console && c.lseek && c.read &&  // ... a descriptor or a name is
         c.fsync && c.fdatasync && c.full_fsync && c.start_writeback &&             // durability
         c.wait_for_writeback &&                                                    //
         c.renameat && c.exchange && c.linkat && c.unlinkat && c.list_directory &&  // in place
         c.fchmod && c.fchown && c.umask && c.read_umask &&  // permissions and owners
         c.reserve && c.ftruncate &&                         // space
         c.random_bytes && c.try_lock && c.dup &&            // names and locks
         c.open_write_stream && c.raise_descriptor_limit;    // the process
}

/// Checks a table with every_entry_filled() at compile time. GCC's
/// UndefinedBehaviorSanitizer builds keep null-pointer checks
/// (-fno-delete-null-pointer-checks), so there a function's address is not
/// known to be non-null and the condition is not a constant: those builds
/// skip the check, which every other build (and platform_test, at run time)
/// still makes.
#define FASTOUT_ASSERT_EVERY_ENTRY_FILLED(table, message)                                      \
  static_assert(!__builtin_constant_p(every_entry_filled(table)) || every_entry_filled(table), \
                message)

// Constant initialization, required: the tables must be whole before any
// dynamic initializer runs (C++20's constinit; GCC's and Clang's own before
// it, so that a table that stops being constant fails to compile).
#if defined(__cpp_constinit)
#  define FASTOUT_CONSTINIT constinit
#elif defined(__clang__)
#  define FASTOUT_CONSTINIT [[clang::require_constant_initialization]]
#elif defined(__GNUC__) && __GNUC__ >= 10
#  define FASTOUT_CONSTINIT __constinit
#else
#  define FASTOUT_CONSTINIT
#endif

/// The table in use. Starts as the platform's real calls.
FASTOUT_API extern platform_calls platform;
/// The real calls, so a test can restore them or delegate to them.
FASTOUT_API extern const platform_calls real_platform;

// ---------------------------------------------------------------------------
// What the platform is, and operations that are not in the table (nothing a
// test needs to fail goes through them).

/// The name of the implementation built: "linux", "posix" or "windows".
FASTOUT_API const char* platform_name() noexcept;

/// The most one write() may be asked to write: Linux writes at most
/// 0x7ffff000 bytes a call anyway, and every other system takes that whole
/// or in part (Windows' WriteFile() takes a DWORD: each call below
/// INT32_MAX, so that a count never overflows an int anywhere); macOS refuses more than
/// INT_MAX with EINVAL, so it is capped at INT_MAX - 1 there, as Rust's std
/// does. A constant, not a variable read at every write: that read was one
/// more page a record for W16.
#if defined(__APPLE__)
inline constexpr std::size_t max_write_size = INT_MAX - 1;
#else
inline constexpr std::size_t max_write_size = 0x7ffff000;
#endif

/// The characters that end a directory's name in a path: '/', and on
/// Windows '\\' too.
#if defined(_WIN32)
inline constexpr const char path_separators[] = "/\\";
#else
inline constexpr const char path_separators[] = "/";
#endif

/// The descriptors of standard output and standard error.
inline constexpr int standard_output_descriptor = 1;
inline constexpr int standard_error_descriptor = 2;

/// openat() flags for a directory that names are created, linked, renamed
/// and removed in, and that is also fsync()ed when `synced` (Linux opens
/// one that is not with O_PATH, which needs no read permission).
FASTOUT_API int directory_open_flags(bool synced) noexcept;

/// The process's id: a writer inherited through fork() tells the child from
/// its parent by it.
FASTOUT_API int process_id() noexcept;

/// A thread of the platform's (compressed output's workers).
struct thread_handle {
  void* native = nullptr;
};
/// Starts `run(argument)` on a new thread with every signal blocked, so that
/// a handler the program installs always runs on one of its own threads.
/// 0, or the errno of the failure (EAGAIN at a process limit).
FASTOUT_API int start_thread(thread_handle& thread, void* (*run)(void*), void* argument) noexcept;
/// Waits for a thread from start_thread() to end.
FASTOUT_API void join_thread(thread_handle& thread) noexcept;

/// A shared library of the system's, loaded for the life of the process
/// with its symbols kept out of the program's namespace (dlopen() with
/// RTLD_NOW | RTLD_LOCAL): the codecs of a build that loads them when first
/// needed (FASTOUT_LOAD_CODECS, stages/codec_loading.cpp; Unix systems
/// only, platform/unix/shared_libraries.cpp, which only such a build
/// compiles). Null, and `why` has the loader's reason, if it cannot be.
void* load_shared_library(const char* file, std::string& why);
/// The address of `name` in a library from load_shared_library(), or null
/// and `why` has the loader's reason.
void* shared_library_symbol(void* library, const char* name, std::string& why);

/// The category of the std::error_code values fastout throws and reports,
/// whose values are errno values: std::system_category() on Unix systems,
/// where that is what errno values live in. On Windows, where
/// std::system_category() takes its values for Win32 error codes, a
/// category of fastout's own ("fastout") whose conditions are
/// std::generic_category()'s, so that `e.code() == std::errc::...` holds,
/// and whose message is error_text() with what Windows said of the failure
/// behind it, where that is known.
FASTOUT_API const std::error_category& error_category() noexcept;

/// Runs `handler` when the process exits (exit(), or a return from main()),
/// after every handler registered later, with the exit status where the C
/// library passes it (glibc's on_exit(): `status_known`), or without it
/// (atexit(): `status` 0 and `status_known` false). Once per process.
FASTOUT_API void run_at_exit(void (*handler)(int status, bool status_known)) noexcept;
/// Ends the process at once with `status`, running no more exit handlers
/// (_exit()): the only way an exit handler can change the status.
[[noreturn]] FASTOUT_API void exit_now(int status) noexcept;

/// Makes `out` and `err` the C library's stdout and stderr, which glibc's,
/// Apple's and the BSDs' C libraries keep in variables. On Windows, whose
/// runtime keeps them in a table of its own, nothing: open_write_stream()
/// has no stream to give there, so nothing calls it.
void set_standard_streams(std::FILE* out, std::FILE* err) noexcept;

/// A description of `error_number` in English that does not depend on the
/// locale or change between calls ("No space left on device"), or null if
/// the system has none for it. Thread-safe.
FASTOUT_API const char* error_text(int error_number) noexcept;

#if defined(_WIN32)
/// The errno value the Windows platform gives a Win32 error code: a stable
/// table (docs/platforms.md), EIO for a code it does not name.
FASTOUT_API int errno_of_windows_error(unsigned long code) noexcept;
#endif

/// glibc's texts for the errors fastout itself reports, on every platform,
/// so that a message reads the same everywhere; null for the others
/// (platform/error_texts.cpp).
const char* common_error_text(int error_number) noexcept;

// ---------------------------------------------------------------------------
// What the C library's printf() takes from the locale and from errno, for
// fastout_printf()'s forms that are the platform's by nature
// (src/doors/printf_locale.cpp is the one caller). Each reads the locale in
// force for the calling thread (uselocale() included where the C library
// has it) at the call; the texts are the C library's, valid until the
// locale changes.

/// The decimal point printf() writes (LC_NUMERIC): "." in the "C" locale,
/// "," in de_DE. nl_langinfo(RADIXCHAR) on Unix systems, localeconv() on
/// Windows. Never null.
FASTOUT_API const char* decimal_point() noexcept;

/// How printf()'s '\'' flag groups the digits of an integer part (LC_NUMERIC).
struct digit_grouping {
  /// Between groups: "." in de_DE; "" where the locale groups nothing.
  const char* separator;
  /// The group sizes, from the right, as localeconv()'s grouping: each byte
  /// one size, the last repeated after a 0 byte or the end, none after a
  /// CHAR_MAX ("\3" in de_DE, "" in the "C" locale).
  const char* sizes;
};
/// nl_langinfo(THOUSEP) and glibc's nl_langinfo(GROUPING) on Linux,
/// nl_langinfo(THOUSEP) and localeconv() on other Unix systems (POSIX has no
/// nl_langinfo() item for the sizes), localeconv() on Windows. Never null.
FASTOUT_API digit_grouping thousands_grouping() noexcept;

/// Whether printf()'s 'I' flag writes ASCII digits: glibc's LC_CTYPE
/// outdigits (other digits in fa_IR, say); true where the C library has no
/// 'I' flag (every other).
FASTOUT_API bool outdigits_are_ascii() noexcept;

/// printf()'s %m: the text of `error_number` in the language of the locale
/// (LC_MESSAGES), strerror_r()'s on Unix systems, strerror_s()'s on
/// Windows, written into `buffer` (of `size` bytes) or a static text of the
/// C library's. Never null.
FASTOUT_API const char* localized_error_text(int error_number, char* buffer,
                                             std::size_t size) noexcept;

/// printf()'s %#m: the name of `error_number` ("ENOENT"), as glibc's
/// strerrorname_np() gives it ("0" for 0), or null for a number that names
/// no error (glibc's printf() then prints the number). glibc's own on Linux
/// (2.32 and later); elsewhere glibc's names of the errno values the
/// system's <errno.h> defines (common_error_symbol()).
FASTOUT_API const char* error_symbol(int error_number) noexcept;

/// glibc's names of the errno values this system's <errno.h> defines, or
/// null for others: where a value has two (EAGAIN and EWOULDBLOCK on
/// Linux), the one glibc gives (platform/error_texts.cpp).
FASTOUT_API const char* common_error_symbol(int error_number) noexcept;

// ---------------------------------------------------------------------------
// The platform's answers, read the same way everywhere.

/// Whether a failed write_uncached() only refused to drop the page cache,
/// having written nothing, so that a plain write can carry on: EOPNOTSUPP
/// from a kernel before 6.14 (an unknown flag), a filesystem without it
/// (tmpfs, DAX) or a system without the call, ENOSYS from a seccomp filter,
/// and EINVAL, which a plain write() then repeats if the call itself was at
/// fault, so no error is hidden.
inline bool uncached_write_refused(int error_number) noexcept {
  return error_number == EOPNOTSUPP || error_number == ENOTSUP || error_number == EINVAL ||
         error_number == ENOSYS;
}

/// Whether a failed exchange() only means that there is no exchange here.
inline bool exchange_refused(int error_number) noexcept {
  return error_number == EINVAL || error_number == ENOSYS || error_number == ENOTSUP ||
         error_number == EOPNOTSUPP;
}

/// Whether a failed try_lock() only means that locks are not available:
/// Linux before 3.15 (no open file description locks), NFS without a lock
/// manager, a filesystem or a system without them.
inline bool locks_unavailable(int error_number) noexcept {
  return error_number == EINVAL || error_number == ENOLCK || error_number == EOPNOTSUPP ||
         error_number == ENOTSUP || error_number == ENOSYS;
}

/// Whether a failed start_writeback() or wait_for_writeback() only means
/// that this file cannot be written back early.
inline bool writeback_refused(int error_number) noexcept {
  return error_number == ENOSYS || error_number == ESPIPE || error_number == EINVAL;
}

// ---------------------------------------------------------------------------
// Operations built on the table, the same on every platform
// (platform/operations.cpp).

/// What write_all() counts: every call made, and every byte the system
/// reported as written -- exact, also when it fails.
struct write_counts {
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;
};

/// Writes every byte of iov[0..count), which it changes, to `fd`: each call
/// at most max_write_size bytes (or `cap`, for tests), short writes
/// continued, EINTR retried, EAGAIN waited out with wait_writable(). With
/// `uncached` it writes with write_uncached() until the system refuses it,
/// and then clears `uncached` and carries on with plain writes; a refused
/// call counts as a call. Returns 0, or the errno that stopped it; a write
/// that makes no progress is EIO.
FASTOUT_API int write_all(int fd, struct iovec* iov, int count, bool& uncached,
                          write_counts& counts, std::size_t cap = 0) noexcept;

/// Makes what was written to `fd` durable, retrying EINTR: the data and
/// what is needed to read it back (fdatasync), or every piece of metadata
/// too when `metadata` (fsync: a new file that takes another's place). On
/// Apple systems full_fsync() first, and fsync() where the filesystem
/// refuses it. 0, or -1 and errno.
FASTOUT_API int sync_file(int fd, bool metadata) noexcept;

/// On EMFILE: raises the soft limit of descriptors toward the hard one with
/// raise_descriptor_limit(), the first time any thread of the process asks
/// (as cutadapt does on its first EMFILE; Go's runtime does it at start).
/// True if this call raised it, so that the open that met EMFILE is worth
/// trying again; false once it was tried before, or could not raise it.
FASTOUT_API bool raise_descriptor_limit_once() noexcept;

/// fsync() of a directory, so that the names created, renamed or removed in
/// it survive a power loss, retrying EINTR. 0, or -1 and errno.
FASTOUT_API int sync_directory(int dir) noexcept;

/// Calls `call` until it does not fail with EINTR. Never for an open(): a
/// signal must be able to interrupt the open of a FIFO without a reader,
/// and stdio's fopen() reports EINTR too.
template <typename Call>
auto retry_interrupted(Call call) -> decltype(call()) {
  for (;;) {
    auto result = call();
    if (result != -1 || errno != EINTR) return result;
  }
}

}  // namespace fastout::detail

#endif  // FASTOUT_PLATFORM_INTERNAL_H_
