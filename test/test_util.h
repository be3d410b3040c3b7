// SPDX-License-Identifier: MIT
// Small helpers shared by fastout's tests: temporary directories, reading a
// file back and its mode, the umask and the error handler for a scope,
// swapping the system-call table, capturing a descriptor, running checks
// in a forked child, starting a program the build made (through the
// emulator of a cross-compiled build), and what an emulator lacks.
#ifndef FASTOUT_TEST_UTIL_H_
#define FASTOUT_TEST_UTIL_H_

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#if !defined(_WIN32)
#  include <sys/resource.h>
#endif
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fastout/file.h>

#include <gtest/gtest.h>

#include "platform/platform_internal.h"
#if defined(_WIN32)
#  include "windows/file_size_limit.h"
#endif

#ifndef FASTOUT_TEST_EMULATOR
#  error "test/CMakeLists.txt defines FASTOUT_TEST_EMULATOR (empty for a native build)"
#endif

namespace fastout_test {

// The user and group "nobody" (65534), whom tests that run as root become.
constexpr uid_t nobody = static_cast<uid_t>(65534);
constexpr gid_t nobody_group = static_cast<gid_t>(65534);

// Options for a writer with this buffer size and mode.
inline fastout::file_options with_buffer(std::size_t size,
                                         fastout::buffering mode = fastout::buffering::full) {
  fastout::file_options options;
  options.buffer_size = size;
  options.buffer_mode = mode;
  return options;
}

// f.vprint() with arguments taken by value: {fmt} 11 and later's
// make_format_args() takes only lvalues.
template <typename... T>
void vprint_with(fastout::file& f, fmt::string_view format, T... values) {
  f.vprint(format, fmt::make_format_args(values...));
}

// `for (std::size_t size : size_list{1, 2, 64})`
using size_list = std::initializer_list<std::size_t>;

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
#if defined(_WIN32)
inline int& child_calls_in_this_test();
inline int& temp_dirs_in_this_test();
#endif

class temp_dir {
 public:
  temp_dir() {
#if defined(_WIN32)
    ++temp_dirs_in_this_test();  // run_in_child() checks it
#endif
#if defined(_WIN32)
    // The user's %TEMP%, in UTF-8.
    const std::string base_path = std::filesystem::temp_directory_path().u8string();
    const char* base = base_path.c_str();
#else
    const char* base = std::getenv("TMPDIR");
#endif
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/fastout-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::system_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~temp_dir() {
    std::error_code ignored;
#if defined(_WIN32)
    // Windows does not delete a read-only file: make each writable first.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored))
      std::filesystem::permissions(it->path(), std::filesystem::perms::owner_write,
                                   std::filesystem::perm_options::add, ignored);
#endif
    std::filesystem::remove_all(path_, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A UTF-8 path as the C++ library's streams take it: on Windows through
// std::filesystem::path (the runtime's narrow names are the ANSI code page).
#if defined(_WIN32)
inline std::filesystem::path stream_path(const std::string& path) {
  return std::filesystem::u8path(path);
}
#else
inline const std::string& stream_path(const std::string& path) { return path; }
#endif

// A path as fastout's messages show it, in double quotes: spelled here
// rather than taken from the library (src/stages/messages_internal.h), so
// that a test holds the library to it.
inline std::string quoted(const std::string& path) { return "\"" + path + "\""; }

inline std::string read_file(const std::string& path) {
  std::ifstream in(stream_path(path), std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(stream_path(path), std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Size of the file behind a descriptor, or -1.
inline long long file_size(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

// Size of the file at a path, or -1.
inline long long file_size_at(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
}

// The permission bits of a path (the link itself for a symlink), or 0 if it
// does not exist.
inline mode_t mode_of(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// The permission bits a regular file shows after it was given `bits` (by
// open(), chmod() or a replacement). On POSIX systems, the bits themselves.
// A Windows file has one permission of POSIX's, its read-only attribute,
// which fastout sets where `bits` has no S_IWUSR, as the C runtime's _open()
// and _chmod() do; the runtime's stat() shows such a file as 0444, and any
// other as 0666. So a test of permissions checks there whether the file
// came out read-only exactly when it should.
inline mode_t kept_bits(mode_t bits) {
#if defined(_WIN32)
  return (bits & S_IWUSR) != 0 ? 0666 : 0444;
#else
  return bits;
#endif
}

inline bool fd_is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// The names in a directory, sorted, without "." and "..".
inline std::vector<std::string> names_in(const std::string& directory) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr)
    throw std::system_error(errno, std::system_category(), "opendir " + directory);
  while (const struct dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// The temporary files open_mode::replace leaves in a directory when its
// process is killed: ".fastout-<16 hex digits>-<name>".
inline std::vector<std::string> temporaries_in(const std::string& directory) {
  std::vector<std::string> found;
  for (const std::string& name : names_in(directory))
    if (name.compare(0, 9, ".fastout-") == 0) found.push_back(name);
  return found;
}

// Holds the lock a replacing writer holds on its new file (a write lock on
// an open file description, src/stages/replace.cpp), as a live writer in another
// process would, for the lifetime of the object.
class live_writer_lock {
 public:
  explicit live_writer_lock(const std::string& path)
      : fd_(::open(path.c_str(), O_WRONLY | O_CLOEXEC)) {
    // The platform's own kind of lock (Linux's OFD locks, flock() elsewhere).
    if (fd_ < 0 || fastout::detail::real_platform.try_lock(fd_, true) != 0)
      throw std::system_error(errno, std::system_category(), "lock " + path);
  }
  ~live_writer_lock() { ::close(fd_); }
  live_writer_lock(const live_writer_lock&) = delete;
  live_writer_lock& operator=(const live_writer_lock&) = delete;

 private:
  int fd_;
};

// How many descriptors this process has open: a test that opens and closes
// writers must end with as many as it began with.
#if defined(_WIN32)
// The C runtime's descriptors that are open.
inline int open_descriptors() {
  int count = 0;
  for (int fd = 0; fd < 8192; ++fd) count += ::_get_osfhandle(fd) != -1;
  return count;
}
#else
inline int open_descriptors() {
  return static_cast<int>(names_in("/proc/self/fd").size()) - 1;  // opendir's own
}
#endif

// fastout's errors carry errno in the platform's error category:
// std::system_category() on Unix systems, fastout's own on Windows.
inline std::error_code system_error_code(int error_number) {
  return std::error_code(error_number, fastout::detail::error_category());
}

// Sets the umask for the lifetime of the object.
class scoped_umask {
 public:
  explicit scoped_umask(mode_t mask) : saved_(static_cast<mode_t>(::umask(mask))) {}
  ~scoped_umask() { ::umask(saved_); }
  scoped_umask(const scoped_umask&) = delete;
  scoped_umask& operator=(const scoped_umask&) = delete;

 private:
  mode_t saved_;
};

// Installs an error handler for the lifetime of the object, then puts the
// previous one back. Given the list a recording handler fills, it empties it
// first, so that the test sees only its own reports.
class scoped_error_handler {
 public:
  explicit scoped_error_handler(fastout::error_handler handler)
      : saved_(fastout::set_error_handler(handler)) {}
  template <typename Log>
  scoped_error_handler(fastout::error_handler handler, Log& log) : scoped_error_handler(handler) {
    log.clear();
  }
  ~scoped_error_handler() { fastout::set_error_handler(saved_); }
  scoped_error_handler(const scoped_error_handler&) = delete;
  scoped_error_handler& operator=(const scoped_error_handler&) = delete;

 private:
  fastout::error_handler saved_;
};

// The real system calls, for a fake to pass a call on to.
// The platform layer this build has ("linux" or "posix": FASTOUT_PLATFORM).
inline bool platform_is(const char* name) {
  return std::strcmp(fastout::detail::platform_name(), name) == 0;
}

// Whether a replacement's new file can have no name until it is put in
// place (Linux's O_TMPFILE): elsewhere it is written under a name of its
// own, ".fastout-<random>-<name>".
inline bool unnamed_files() { return platform_is("linux"); }

// The ways a replacement's new file is made on this build: unnamed (false)
// and named (true) on Linux, named only elsewhere.
inline std::vector<bool> named_variants() {
  return unnamed_files() ? std::vector<bool>{false, true} : std::vector<bool>{true};
}

// Skips a test of a facility only the linux platform layer has, saying so.
#define FASTOUT_SKIP_UNLESS_LINUX(facility)                                              \
  do {                                                                                   \
    if (!fastout_test::platform_is("linux"))                                             \
      GTEST_SKIP() << "tests " << (facility) << ", which only the linux platform layer " \
                   << "has; this build's is " << fastout::detail::platform_name();       \
  } while (false)

// Skips a test that needs what Windows has not (fork(), signals, resource
// limits, POSIX permissions and owners, ...), printing why. The test still
// compiles there (test/windows/posix_shim.h), and runs everywhere else.
#if defined(_WIN32)
#  define FASTOUT_SKIP_ON_WINDOWS(why) GTEST_SKIP() << "not on Windows: " << (why)
#else
#  define FASTOUT_SKIP_ON_WINDOWS(why) \
    do {                               \
    } while (false)
#endif

// /dev/full, whose every write fails with ENOSPC, stands for a full disk.
// Windows has no such device. Under Wine, which runs the Windows build's
// tests, the Unix root is drive Z:, and the tests run from a directory on
// it, so "/dev/full" (the root of the current drive) is the real device:
// CreateFileW opens it and WriteFile fails with ERROR_DISK_FULL, as on a
// full NTFS volume, which the platform turns into ENOSPC. So a test of a
// full disk runs there; on Windows itself it skips, saying why.
inline bool dev_full_is_here() {
#if defined(_WIN32)
  const HANDLE device =
      ::CreateFileA("/dev/full", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                    OPEN_EXISTING, 0, nullptr);
  if (device == INVALID_HANDLE_VALUE) return false;
  DWORD written = 0;
  const bool full =
      !::WriteFile(device, "x", 1, &written, nullptr) && ::GetLastError() == ERROR_DISK_FULL;
  ::CloseHandle(device);
  return full;
#else
  return true;
#endif
}
#define FASTOUT_SKIP_UNLESS_DEV_FULL()                                                      \
  do {                                                                                      \
    if (!fastout_test::dev_full_is_here())                                                  \
      GTEST_SKIP() << "not on Windows: needs /dev/full, which Windows has not (under "      \
                   << "Wine, whose drive Z: is the Unix root, the tests use the real one)"; \
  } while (false)

// The bytes a file has on disk (st_blocks, which Windows' struct stat has
// not: its size there, for tests that skip on Windows anyway).
inline long long allocated_bytes(const struct stat& st) {
#if defined(_WIN32)
  return static_cast<long long>(st.st_size);
#else
  return static_cast<long long>(st.st_blocks) * 512;
#endif
}

inline const fastout::detail::platform_calls& real() { return fastout::detail::real_platform; }

// Restores the real system-call table (or whatever was in use) on scope exit,
// so a test can install fakes in fastout::detail::platform.
class scoped_platform {
 public:
  scoped_platform() : saved_(fastout::detail::platform) {}
  ~scoped_platform() { fastout::detail::platform = saved_; }
  scoped_platform(const scoped_platform&) = delete;
  scoped_platform& operator=(const scoped_platform&) = delete;

 private:
  fastout::detail::platform_calls saved_;
};

// Points descriptor `fd` (1 or 2, say) at a temporary file for the lifetime
// of the object, then puts the original back. The file can be read while the
// capture is active or after it ends.
class fd_capture {
 public:
  fd_capture(int fd, const std::string& path) : fd_(fd), path_(path) {
    std::fflush(nullptr);  // what stdio holds belongs to the original
    int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (file < 0) throw std::system_error(errno, std::system_category(), "open " + path);
    saved_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    if (saved_ < 0 || ::dup2(file, fd) < 0) {
      int error = errno;
      ::close(file);
      throw std::system_error(error, std::system_category(), "dup2");
    }
    ::close(file);
#if defined(_WIN32)
    // The bytes written, as on Linux: what the program writes through the C
    // runtime (stdio's stderr, say) without its text mode's \r before \n.
    // fastout itself never translates a byte.
    saved_mode_ = ::_setmode(fd, _O_BINARY);
#endif
  }
  ~fd_capture() { restore(); }
  fd_capture(const fd_capture&) = delete;
  fd_capture& operator=(const fd_capture&) = delete;

  void restore() {
    if (saved_ < 0) return;
    std::fflush(nullptr);
#if defined(_WIN32)
    if (saved_mode_ != -1) ::_setmode(fd_, saved_mode_);
#endif
    ::dup2(saved_, fd_);
    ::close(saved_);
    saved_ = -1;
  }
  std::string content() const { return read_file(path_); }

 private:
  int fd_;
  std::string path_;
  int saved_ = -1;
#if defined(_WIN32)
  int saved_mode_ = -1;
#endif
};

// Runs `body` in a forked child and returns the child's wait status. The
// child exits with body()'s return value; it never returns into GoogleTest,
// so it reports through its exit code (0 for success), not through EXPECTs.
//
// Windows has no fork(): there the child is this test program started
// again (_spawnv) on the running test alone (--gtest_filter), with
// FASTOUT_TEST_CHILD set to the number of this call in the test. As
// GoogleTest's own "threadsafe" death tests do, the child runs the test
// again from its start; its earlier calls return 0 at once, and the call
// with that number runs body() and exits with what it returns. So what a
// test does before such a call must be safe to do twice, and its checks
// must hold in the child's replay too (they do when the parent's hold). A
// temp_dir would get another name in the child, so a test that made one
// before the call cannot use it there (run_in_child() throws, saying so).
#if defined(_WIN32)
// Counters that start again at 0 in each test.
struct per_test_counts {
  std::string test;
  int child_calls = 0;
  int temp_dirs = 0;
};
inline per_test_counts& counts_of_this_test() {
  static per_test_counts counts;
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string current =
      info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "";
  if (current != counts.test) counts = per_test_counts{current};
  return counts;
}
inline int& child_calls_in_this_test() { return counts_of_this_test().child_calls; }
inline int& temp_dirs_in_this_test() { return counts_of_this_test().temp_dirs; }

template <typename Body>
int run_in_child(Body&& body) {
  // The replay would make each temp_dir again, under another random name:
  // the child's files would not be where the parent looks.
  if (temp_dirs_in_this_test() != 0)
    throw std::logic_error(
        "run_in_child() on Windows replays the test in a new process, where "
        "a temp_dir made before the call gets another name: make it in the "
        "body, or skip the test on Windows");
  const int call = ++child_calls_in_this_test();
  const char* target = std::getenv("FASTOUT_TEST_CHILD");
  if (target != nullptr && *target != '\0') {
    if (std::atoi(target) != call) return 0;  // an earlier call: the parent's
    int code = 100;
    try {
      code = body();
    } catch (...) {
      code = 101;
    }
    std::fflush(nullptr);  // what GoogleTest printed of the replay
    ::_exit(code);
  }
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string filter =
      std::string("--gtest_filter=") + info->test_suite_name() + "." + info->name();
  char self[MAX_PATH];
  const DWORD self_size = ::GetModuleFileNameA(nullptr, self, sizeof self);
  if (self_size == 0 || self_size >= sizeof self)
    throw std::system_error(static_cast<int>(::GetLastError()), std::system_category(),
                            "GetModuleFileNameA");
  const std::string quoted_self = std::string("\"") + self + "\"";  // _spawnv joins with spaces
  const std::string setting = "FASTOUT_TEST_CHILD=" + std::to_string(call);
  const char* argv[] = {quoted_self.c_str(), filter.c_str(), nullptr};
  std::fflush(nullptr);
  ::_putenv(setting.c_str());
  const intptr_t code = ::_spawnv(_P_WAIT, self, argv);
  const int spawn_error = errno;
  ::_putenv("FASTOUT_TEST_CHILD=");
  if (code < 0) throw std::system_error(spawn_error, std::generic_category(), "_spawnv");
  return static_cast<int>((code & 0xff) << 8);  // as waitpid() says "exited with"
}
#else
template <typename Body>
int run_in_child(Body&& body) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::system_category(), "fork");
  if (pid == 0) {
    int code = 100;
    try {
      code = body();
    } catch (...) {
      code = 101;
    }
    ::_exit(code);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::system_category(), "waitpid");
  }
  return status;
}
#endif

// "exited with 3", "killed by signal 13", for assertion messages.
inline std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// Runs `body` (0 for success, else a code of the test's own) with every
// file limited to `limit` bytes, and returns a status as run_in_child()'s
// (0: the body returned 0; describe_status() reads it). On Linux in a child
// under RLIMIT_FSIZE with SIGXFSZ ignored, so that a write past the limit
// fails with EFBIG (110, 111: the limit could not be read or set); on
// Windows, which has no such limit, in this process through the platform
// table's windows_file_size_limit (ERROR_FILE_TOO_LARGE, EFBIG).
template <typename Body>
int run_with_file_size_limit(long long limit, Body&& body) {
#if defined(_WIN32)
  windows_file_size_limit limited(limit);
  int code = 100;
  try {
    code = body();
  } catch (...) {
    code = 101;
  }
  return (code & 0xff) << 8;  // as waitpid() says "exited with"
#else
  return run_in_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limits;
    if (::getrlimit(RLIMIT_FSIZE, &limits) != 0) return 110;
    limits.rlim_cur = static_cast<rlim_t>(limit);
    if (::setrlimit(RLIMIT_FSIZE, &limits) != 0) return 111;
    return body();
  });
#endif
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The kernel's own count of write system calls, from /proc/self/io. Plain
// open/read, no iostreams: UBSan's vptr checks on stream objects probe memory
// with write()s of their own, which would count.
inline bool read_syscw(std::uint64_t& value) {
  int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[1024];
  ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  const char* field = std::strstr(text, "syscw:");
  if (field == nullptr) return false;
  value = std::strtoull(field + 6, nullptr, 10);
  return true;
}

// The command line that starts `program`, a program this build made (a
// test's helper), with `args`: the program itself, or in a cross-compiled
// build (scripts/test --target aarch64) the emulator first -- CMake's
// CMAKE_CROSSCOMPILING_EMULATOR, which test/CMakeLists.txt gives as
// FASTOUT_TEST_EMULATOR -- since the host cannot run the program itself.
// Its first word is a path, for execv() (_spawnv() on Windows).
//
// On Windows (scripts/test --target windows) the test is itself a Windows
// program, already under Wine, and starts the other directly: no emulator.
// The path the build gives is the host's, which Windows does not know, so
// the program is found by its name beside this test's own .exe (the tests'
// helpers are built into the same folder as the tests).
inline std::vector<std::string> built_program_command(const std::string& program,
                                                      const std::vector<std::string>& args) {
  std::vector<std::string> command = {FASTOUT_TEST_EMULATOR};
#if defined(_WIN32)
  char self[MAX_PATH];
  const DWORD self_size = ::GetModuleFileNameA(nullptr, self, sizeof self);
  const std::string self_path(self, self_size);
  command.push_back(self_path.substr(0, self_path.find_last_of("\\/") + 1) +
                    program.substr(program.find_last_of("\\/") + 1));
#else
  command.push_back(program);
#endif
  command.insert(command.end(), args.begin(), args.end());
  return command;
}

// Whether there is no pwritev2() system call here at all: ENOSYS, which
// glibc's pwritev2() turns into EOPNOTSUPP for any flag. So it is under
// qemu-user 7.2, which runs the aarch64 build's tests (scripts/test --target
// aarch64), and on kernels before 4.6. There page_cache::drop always takes
// its fallback, plain writes, whatever the kernel and filesystem below could
// do; the tests of that path say so in their output (`pwritev2_missing_note`)
// and check the fallback.
inline bool pwritev2_is_missing() {
  errno = 0;
  const long result = ::syscall(SYS_pwritev2, -1, nullptr, 0, 0L, 0L, 0);
  return result == -1 && errno == ENOSYS;
}
inline const char* const pwritev2_missing_note =
    "pwritev2() is not implemented here (ENOSYS: qemu-user, or a kernel before 4.6), so "
    "RWF_DONTCACHE is refused with EOPNOTSUPP whatever the filesystem: page_cache::drop's "
    "fallback (plain writes) is what runs and is checked";

}  // namespace fastout_test

#endif  // FASTOUT_TEST_UTIL_H_
