// SPDX-License-Identifier: MIT
#include "measure.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(_WIN32)
#  include <random>

#  include <windows.h>
// After windows.h, which it needs.
#  include <psapi.h>

#  include "win32.h"
#else
#  include <dirent.h>
#  include <limits.h>  // PIPE_BUF
#  include <poll.h>
#  include <signal.h>
#  include <sys/resource.h>
#  include <sys/wait.h>

#  if defined(__GLIBC__)
#    include <malloc.h>  // malloc_trim
#  endif

#  include "decompress.h"
#endif

#include <fmt/format.h>

namespace fastout_bench {
namespace {

// How the outputs are opened to be read back: binary on Windows, where the
// C runtime would otherwise turn "\r\n" into "\n".
#if defined(_WIN32)
constexpr int read_flags = O_RDONLY | O_BINARY;
#else
constexpr int read_flags = O_RDONLY | O_CLOEXEC;
#endif

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

#if !defined(_WIN32)
// Reads all of a small file with read(2), no stdio: nothing is buffered or
// written behind our back between two readings of /proc/self/io.
bool read_small_file(const char* path, char* text, std::size_t capacity) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::size_t size = 0;
  while (size + 1 < capacity) {
    ssize_t n = ::read(fd, text + size, capacity - 1 - size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text[size] = '\0';
  return size > 0;
}
#endif

struct comparison {
  bool identical = false;
  std::uint64_t size = 0;  // of the file compared with the reference
  std::string error;
};

std::uint64_t file_size(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

// Reads up to `size` bytes; returns how many, or -1 on error.
ssize_t read_fully(int fd, char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
#if defined(_WIN32)
    // The C runtime's read() takes an unsigned int.
    const std::size_t piece = std::min<std::size_t>(size - done, std::size_t{1} << 30);
    ssize_t n = ::read(fd, data + done, static_cast<unsigned>(piece));
#else
    ssize_t n = ::read(fd, data + done, size - done);
#endif
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

// Compares two files in 1 MiB chunks.
comparison compare_files(const std::string& reference, const std::string& path) {
  comparison result;
  int a = ::open(reference.c_str(), read_flags);
  if (a < 0) {
    result.error = fmt::format("cannot read the reference: {}", std::strerror(errno));
    return result;
  }
  int b = ::open(path.c_str(), read_flags);
  if (b < 0) {
    result.error = fmt::format("cannot read the output: {}", std::strerror(errno));
    ::close(a);
    return result;
  }
  result.size = file_size(b);
  if (result.size == file_size(a)) {
    const std::size_t chunk = std::size_t{1} << 20;
    std::unique_ptr<char[]> left(new char[chunk]), right(new char[chunk]);
    result.identical = true;
    for (;;) {
      ssize_t n = read_fully(a, left.get(), chunk);
      ssize_t m = read_fully(b, right.get(), chunk);
      if (n < 0 || m < 0) {
        result.error = fmt::format("cannot read back: {}", std::strerror(errno));
        result.identical = false;
        break;
      }
      if (n != m || std::memcmp(left.get(), right.get(), static_cast<std::size_t>(n)) != 0) {
        result.identical = false;
        break;
      }
      if (n == 0) break;
    }
  }
  ::close(a);
  ::close(b);
  return result;
}

std::string file_name(const workload& w, const std::string& contender) {
  return w.id + "-" + contender + ".out";
}

}  // namespace

#if defined(_WIN32)
// mkdtemp() in Win32: a random name, created new, tried again if it exists.
work_dir::work_dir(const std::string& parent) {
  std::string base = parent;
  if (base.empty() || (base.back() != '/' && base.back() != '\\')) base += '\\';
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string path = base + fmt::format("fastout-bench-{:08x}", random());
    if (::CreateDirectoryW(widen(path).c_str(), nullptr)) {
      path_ = path;
      return;
    }
    if (::GetLastError() != ERROR_ALREADY_EXISTS) break;
  }
  throw_last_error("create a directory in", parent.c_str());
}

work_dir::~work_dir() {
  for (const auto& file : files_) ::DeleteFileW(widen(file).c_str());
  ::RemoveDirectoryW(widen(path_).c_str());
}

std::string work_dir::file(const std::string& name) {
  std::string path = path_ + "\\" + name;
  files_.insert(path);
  return path;
}

void work_dir::remove(const std::string& file_path) {
  if (files_.erase(file_path) > 0) ::DeleteFileW(widen(file_path).c_str());
}

namespace {
// Whether GetProcessIoCounters counts this process's writes: Windows does,
// Wine 8 leaves every counter at 0. One WriteFile to NUL, before and after.
bool io_counters_count_writes() {
  static const bool counted = [] {
    HANDLE nul = ::CreateFileW(L"NUL", GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                               OPEN_EXISTING, 0, nullptr);
    if (nul == INVALID_HANDLE_VALUE) return false;
    IO_COUNTERS before{}, after{};
    DWORD written = 0;
    bool ok = ::GetProcessIoCounters(::GetCurrentProcess(), &before) &&
              ::WriteFile(nul, "x", 1, &written, nullptr) &&
              ::GetProcessIoCounters(::GetCurrentProcess(), &after);
    ::CloseHandle(nul);
    return ok && after.WriteOperationCount > before.WriteOperationCount;
  }();
  return counted;
}
}  // namespace

std::int64_t write_calls_so_far() {
  IO_COUNTERS io{};
  if (!io_counters_count_writes() || !::GetProcessIoCounters(::GetCurrentProcess(), &io)) return -1;
  return static_cast<std::int64_t>(io.WriteOperationCount);
}

std::string write_calls_description() {
  return io_counters_count_writes()
             ? "write calls are WriteOperationCount (GetProcessIoCounters) around one run "
               "(the median)"
             : "write calls: ? (GetProcessIoCounters counts none here, as under Wine)";
}

namespace {
std::int64_t page_fault_count() {
  PROCESS_MEMORY_COUNTERS counters{};
  counters.cb = sizeof counters;
  if (!::GetProcessMemoryInfo(::GetCurrentProcess(), &counters, sizeof counters)) return -1;
  return static_cast<std::int64_t>(counters.PageFaultCount);
}

// Whether PageFaultCount counts: Windows does, Wine 8 leaves it at 0. One
// fresh 1 MiB of memory touched page by page, before and after.
bool page_faults_counted() {
  static const bool counted = [] {
    const std::size_t size = std::size_t{1} << 20;
    std::int64_t before = page_fault_count();
    void* memory = ::VirtualAlloc(nullptr, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (memory == nullptr) return false;
    for (std::size_t i = 0; i < size; i += 4096) static_cast<volatile char*>(memory)[i] = 1;
    std::int64_t after = page_fault_count();
    ::VirtualFree(memory, 0, MEM_RELEASE);
    return before >= 0 && after > before;
  }();
  return counted;
}
}  // namespace

std::int64_t page_faults_so_far() { return page_faults_counted() ? page_fault_count() : -1; }
#else
work_dir::work_dir(const std::string& parent) {
  std::string pattern = parent;
  if (pattern.empty() || pattern.back() != '/') pattern += '/';
  pattern += "fastout-bench-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr)
    throw std::system_error(errno, std::system_category(),
                            "cannot create a directory in \"" + parent + "\"");
  path_ = name.data();
}

work_dir::~work_dir() {
  for (const auto& file : files_) ::unlink(file.c_str());
  while (!directories_.empty()) remove_directory(*directories_.begin());
  ::rmdir(path_.c_str());
}

std::string work_dir::directory(const std::string& name) {
  std::string path = path_ + "/" + name;
  if (::mkdir(path.c_str(), 0700) != 0)
    throw std::system_error(errno, std::system_category(),
                            "cannot create the directory \"" + path + "\"");
  directories_.insert(path);
  return path;
}

// Only a directory this work_dir created, inside the one it created with
// mkdtemp(): everything in it was written by the runs.
void work_dir::remove_directory(const std::string& directory_path) {
  if (directories_.erase(directory_path) == 0) return;
  if (DIR* dir = ::opendir(directory_path.c_str())) {
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(directory_path + "/" + name);
    }
    ::closedir(dir);
    for (const auto& name : names) ::unlink(name.c_str());
  }
  ::rmdir(directory_path.c_str());
}

std::string work_dir::file(const std::string& name) {
  std::string path = path_ + "/" + name;
  files_.insert(path);
  return path;
}

void work_dir::remove(const std::string& file_path) {
  if (files_.erase(file_path) > 0) ::unlink(file_path.c_str());
}

std::int64_t write_calls_so_far() {
  char text[2048];
  if (!read_small_file("/proc/self/io", text, sizeof text)) return -1;
  const char* field = std::strstr(text, "syscw:");
  if (field == nullptr) return -1;
  return std::strtoll(field + 6, nullptr, 10);
}

std::string write_calls_description() {
  return "write calls are syscw from /proc/self/io around one run (the median)";
}

std::int64_t page_faults_so_far() {
  struct rusage usage;
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  return static_cast<std::int64_t>(usage.ru_minflt) + static_cast<std::int64_t>(usage.ru_majflt);
}
#endif

double contender_result::median_seconds() const {
  if (seconds.empty()) return 0;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

double contender_result::min_seconds() const {
  return seconds.empty() ? 0 : *std::min_element(seconds.begin(), seconds.end());
}

double contender_result::max_seconds() const {
  return seconds.empty() ? 0 : *std::max_element(seconds.begin(), seconds.end());
}

namespace {
std::int64_t median_count(std::vector<std::int64_t> counts) {
  if (counts.empty()) return -1;
  std::sort(counts.begin(), counts.end());
  if (counts.front() < 0) return -1;
  return counts[counts.size() / 2];
}
}  // namespace

std::int64_t contender_result::median_write_calls() const { return median_count(write_calls); }

std::int64_t contender_result::median_page_faults() const { return median_count(page_faults); }

namespace {
std::int64_t largest_count(const std::vector<std::int64_t>& counts) {
  if (counts.empty()) return -1;
  if (*std::min_element(counts.begin(), counts.end()) < 0) return -1;
  return *std::max_element(counts.begin(), counts.end());
}
}  // namespace

std::int64_t contender_result::peak_rss_kib_of_runs() const { return largest_count(peak_rss_kib); }

std::int64_t contender_result::threads_of_runs() const { return largest_count(threads); }

const contender_result* workload_result::find(const std::string& contender) const {
  for (const auto& c : contenders)
    if (c.name == contender) return &c;
  return nullptr;
}

double workload_result::median_of(const std::string& contender) const {
  const contender_result* c = find(contender);
  return c != nullptr && c->ok() ? c->median_seconds() : 0;
}

const std::string* workload_result::absence_of(const std::string& contender) const {
  for (const auto& a : absent)
    if (a.name == contender) return &a.reason;
  return nullptr;
}

bool workload_result::compressed() const {
  return std::any_of(contenders.begin(), contenders.end(), [](const contender_result& c) {
    return c.format != output_format::plain && c.format != output_format::none;
  });
}

progress::progress(std::size_t total_steps)
    : terminal_(::isatty(STDERR_FILENO) == 1), total_(total_steps), start_(now_seconds()) {}

void progress::round(const std::string& workload, int round, int rounds) {
  last_round_ = fmt::format("{} run {}/{}", workload, round, rounds);
  // Into a log (CI's), a line per round, but for a workload of many short
  // rounds (W18's 2,000 processes) the first, every tenth of them and the last.
  const bool logged = rounds <= 20 || round == 1 || round == rounds || round % (rounds / 10) == 0;
  if (!terminal_ && logged) {
    std::fprintf(stderr, "fastout-bench: [%3zu%%] %s\n", total_ > 0 ? 100 * done_ / total_ : 0,
                 last_round_.c_str());
    std::fflush(stderr);
  }
}

void progress::step(const std::string& workload, const std::string& what) {
  if (terminal_) {
    auto elapsed = static_cast<unsigned>(now_seconds() - start_);
    std::string line =
        fmt::format("[{:3}%] {:<18} {:<24} {}:{:02}", total_ > 0 ? 100 * done_ / total_ : 0,
                    last_round_.empty() ? workload : last_round_, what, elapsed / 60, elapsed % 60);
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    std::fflush(stderr);
  }
  ++done_;
}

void progress::clear() {
  if (terminal_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  last_round_.clear();
}

std::size_t progress_steps(const workload& w, int runs) {
  // No reference run where the workload checks its outputs itself.
  return (w.check_outputs ? 0 : 1) + w.contenders.size() * static_cast<std::size_t>(runs);
}

#if !defined(_WIN32)
namespace {

// A number from a "Name:\tvalue" line of a /proc status file ("Threads:",
// "VmRSS:" in KiB), or -1 if it cannot be read.
std::int64_t status_field(const char* status_path, const char* field) {
  char text[8192];
  if (!read_small_file(status_path, text, sizeof text)) return -1;
  const std::size_t length = std::strlen(field);
  for (const char* line = text; line != nullptr && *line != '\0';) {
    if (std::strncmp(line, field, length) == 0) return std::strtoll(line + length, nullptr, 10);
    line = std::strchr(line, '\n');
    if (line != nullptr) ++line;
  }
  return -1;
}

// The most threads the child has had, by note_threads(); only the child's
// own main thread writes it, but a writer may call note_threads() from any.
std::atomic<std::int64_t> most_threads{-1};

void note_at_least(std::atomic<std::int64_t>& most, std::int64_t n) {
  std::int64_t seen = most.load();
  while (n > seen && !most.compare_exchange_weak(seen, n)) {
  }
}

// Restarts the high-water mark of the resident set (VmHWM, which
// ru_maxrss reads) at the resident set now: "5" to /proc/self/clear_refs,
// Linux 4.0 and later. Without it the mark would start at what the driver
// held when it forked.
bool reset_peak_rss() {
  int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool done = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return done;
}

// What a child reports through its pipe, in one write() (at most PIPE_BUF
// bytes, so that it arrives whole).
struct child_report {
  int finished;  // 1: the run returned or threw, and the figures are set
  double seconds;
  std::int64_t write_calls;
  std::int64_t page_faults;
  std::int64_t peak_rss_kib;
  std::int64_t threads;
  char error[3000];  // why the run failed, or empty
};
static_assert(sizeof(child_report) <= PIPE_BUF, "a child's report is one atomic write");

// In the child: the run, measured as run_workload() measures one in the
// driver's own process, plus the peak resident set and threads.
child_report measure_in_child(const workload& w, const contender& c, const std::string& path) {
  child_report report;
  std::memset(&report, 0, sizeof report);
  report.write_calls = report.page_faults = report.peak_rss_kib = report.threads = -1;
  try {
    if (w.child_setup) w.child_setup();
      // What the driver allocated and freed before it forked is not this
      // run's: glibc gives it back first, so that the run's own allocations
      // cannot hide in pages that are already resident, and the high-water
      // mark starts from what is left.
#  if defined(__GLIBC__)
    ::malloc_trim(0);
#  endif
    const bool peak_reset = reset_peak_rss();
    const std::int64_t rss_before = status_field("/proc/self/status", "VmRSS:");
    most_threads = status_field("/proc/self/status", "Threads:");
    const std::int64_t faults_before = page_faults_so_far();
    const std::int64_t calls_before = write_calls_so_far();
    const double start = now_seconds();
    c.run(path.c_str());
    const double end = now_seconds();
    const std::int64_t calls_after = write_calls_so_far();
    const std::int64_t faults_after = page_faults_so_far();
    note_threads();
    struct rusage usage;
    const bool usage_known = ::getrusage(RUSAGE_SELF, &usage) == 0;
    report.seconds = end - start;
    report.write_calls =
        calls_before >= 0 && calls_after >= 0 ? calls_after - calls_before : std::int64_t{-1};
    report.page_faults =
        faults_before >= 0 && faults_after >= 0 ? faults_after - faults_before : std::int64_t{-1};
    if (peak_reset && rss_before >= 0 && usage_known) {
#  if defined(__APPLE__)
      const std::int64_t peak = static_cast<std::int64_t>(usage.ru_maxrss) / 1024;  // bytes there
#  else
      const std::int64_t peak = static_cast<std::int64_t>(usage.ru_maxrss);  // KiB
#  endif
      report.peak_rss_kib = std::max<std::int64_t>(peak - rss_before, 0);
    }
    report.threads = most_threads.load();
  } catch (const std::exception& e) {
    std::snprintf(report.error, sizeof report.error, "%s", e.what());
    if (report.error[0] == '\0') std::snprintf(report.error, sizeof report.error, "failed");
  }
  report.finished = 1;
  return report;
}

// Runs `c` on `path` in a child process and returns what it reported, with
// the threads the driver saw it have while it ran. Throws what went wrong
// with the child itself (fork() failing, a child killed by a signal), as a
// failed run.
child_report run_in_child(const workload& w, const contender& c, const std::string& path) {
  // pipe(), POSIX's: both ends are closed before this returns, and no
  // program is started meanwhile, so they need no O_CLOEXEC.
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0)
    throw std::system_error(errno, std::system_category(), "cannot make a pipe to a child");
  // The child must not write out what the driver's stdio holds.
  std::fflush(stdout);
  std::fflush(stderr);
  // The driver has no thread of its own running here (the compressed
  // writers of the workloads before joined theirs at close()), so the
  // child may do anything after fork().
  const pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw std::system_error(error, std::system_category(), "cannot fork() a child for the run");
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    child_report report = measure_in_child(w, c, path);
    const char* data = reinterpret_cast<const char*>(&report);
    std::size_t sent = 0;
    while (sent < sizeof report) {
      ssize_t n = ::write(pipe_fds[1], data + sent, sizeof report - sent);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    // No exit handlers, no stdio flushed twice: the driver's are not ours.
    ::_exit(sent == sizeof report ? 0 : 1);
  }
  ::close(pipe_fds[1]);

  // Waits for the report, looking at the child's thread count every 5 ms.
  const std::string status_path = fmt::format("/proc/{}/status", pid);
  std::atomic<std::int64_t> sampled{-1};
  child_report report;
  std::memset(&report, 0, sizeof report);
  std::size_t received = 0;
  for (;;) {
    pollfd ready{pipe_fds[0], POLLIN, 0};
    int events = ::poll(&ready, 1, 5);
    if (events == 0 || (events < 0 && errno == EINTR)) {
      note_at_least(sampled, status_field(status_path.c_str(), "Threads:"));
      continue;
    }
    if (events < 0) break;
    ssize_t n =
        ::read(pipe_fds[0], reinterpret_cast<char*>(&report) + received, sizeof report - received);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received += static_cast<std::size_t>(n);
    if (received == sizeof report) break;
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw std::system_error(errno, std::system_category(), "cannot wait for the child");
  }
  if (WIFSIGNALED(status))
    throw std::runtime_error(fmt::format("the child running it was killed by signal {} ({})",
                                         WTERMSIG(status), strsignal(WTERMSIG(status))));
  if (received != sizeof report || report.finished != 1)
    throw std::runtime_error(fmt::format("the child running it ended (status {}) without a report",
                                         WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  report.error[sizeof report.error - 1] = '\0';
  if (report.threads >= 0 || sampled >= 0)
    report.threads = std::max<std::int64_t>(report.threads, sampled.load());
  return report;
}

// The total size of the files in a directory (a W17 run's outputs).
std::uint64_t directory_size(const std::string& path) {
  std::uint64_t total = 0;
  if (DIR* dir = ::opendir(path.c_str())) {
    while (const dirent* entry = ::readdir(dir)) {
      struct stat st;
      if (::fstatat(::dirfd(dir), entry->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
        total += static_cast<std::uint64_t>(st.st_size);
    }
    ::closedir(dir);
  }
  return total;
}

}  // namespace

void note_threads() { note_at_least(most_threads, status_field("/proc/self/status", "Threads:")); }

std::string child_measures_description() {
  return "each run in a child process; peak RSS is the child's ru_maxrss, its high-water mark "
         "reset at the start of the run (/proc/self/clear_refs), less its resident set then: "
         "what the run added; threads is the most the child had at once, the caller included "
         "(Threads: in /proc/<pid>/status, read by the child when its outputs are written, "
         "before they close, and by the driver every 5 ms)";
}
#endif

workload_result run_workload(const workload& w, work_dir& dir, int runs, progress& bar,
                             const volatile std::sig_atomic_t* stop) {
  workload_result result;
  result.id = w.id;
  result.name = w.name;
  result.summary = w.summary;
  result.bytes = w.bytes;
  result.bytes_per_run = w.bytes_per_run;
  result.outputs = w.outputs;
  result.in_child = w.in_child;
  result.runs = runs;
  result.reference = w.reference;
  // A workload without its baseline contender has no such column.
  bool has_baseline = std::any_of(w.contenders.begin(), w.contenders.end(),
                                  [&](const contender& c) { return c.name == w.baseline; });
  result.baseline = has_baseline ? w.baseline : std::string();
  for (const auto& c : w.contenders) {
    contender_result r;
    r.name = c.name;
    r.buffer_size = c.buffer_size;
    r.format = c.output;
    r.may_differ = c.may_differ;
    r.may_fail = c.may_fail;
    result.contenders.push_back(r);
  }
  result.absent = w.absent;
  const std::string label = w.id + " " + w.name;

  auto reference = std::find_if(w.contenders.begin(), w.contenders.end(),
                                [&](const contender& c) { return c.name == w.reference; });
  if (reference == w.contenders.end()) {
    result.error = "no reference contender \"" + w.reference + "\"";
    return result;
  }
#if defined(_WIN32)
  if (w.outputs > 0 || w.in_child || w.check_outputs) {
    result.error = "many outputs and child processes are not in the Windows build";
    return result;
  }
#else
  if (w.outputs > 0 && !w.check_outputs) {
    result.error = "a workload of many outputs must check them itself (check_outputs)";
    return result;
  }
#endif

  // The reference's own untimed run: a warm-up, and the file every output
  // is compared with. Its size must be what the workload promises. A
  // workload that checks its outputs itself has neither.
  const std::string reference_path =
      w.check_outputs ? std::string() : dir.file(file_name(w, "reference"));
  if (!w.check_outputs) {
    bar.step(label,
             (w.write_reference ? std::string("the reference") : w.reference) + " (untimed)");
    try {
      if (w.prepare) w.prepare(reference_path);
      if (w.write_reference)
        w.write_reference(reference_path.c_str());
      else
        reference->run(reference_path.c_str());
    } catch (const std::exception& e) {
      result.error = std::string("the reference failed: ") + e.what();
      dir.remove(reference_path);
      return result;
    }
    int fd = ::open(reference_path.c_str(), read_flags);
    std::uint64_t size = fd >= 0 ? file_size(fd) : 0;
    if (fd >= 0) ::close(fd);
    if (size != w.bytes) {
      result.error = fmt::format("the reference wrote {} bytes, not {}", size, w.bytes);
      dir.remove(reference_path);
      return result;
    }
  }

  const std::size_t n = w.contenders.size();
  for (int round = 0; round < runs && *stop == 0; ++round) {
    bar.round(label, round + 1, runs);
    for (std::size_t k = 0; k < n && *stop == 0; ++k) {
      const std::size_t index = (k + static_cast<std::size_t>(round)) % n;
      const contender& c = w.contenders[index];
      contender_result& r = result.contenders[index];
      if (!r.error.empty()) continue;  // it failed before; once is enough
      bar.step(label, c.name);
      std::string path;
#if !defined(_WIN32)
      if (w.outputs > 0) {
        try {
          path = dir.directory(file_name(w, c.name));
        } catch (const std::exception& e) {
          r.error = e.what();
          continue;
        }
      } else
#endif
      {
        path = dir.file(file_name(w, c.name));
      }
      auto remove_output = [&] {
#if !defined(_WIN32)
        if (w.outputs > 0) {
          dir.remove_directory(path);
          return;
        }
#endif
        dir.remove(path);
      };
      if (w.prepare) {
        try {
          w.prepare(path);
        } catch (const std::exception& e) {
          r.error = std::string("preparing its file failed: ") + e.what();
          remove_output();
          continue;
        }
      }

#if !defined(_WIN32)
      if (w.in_child) {
        try {
          child_report report = run_in_child(w, c, path);
          if (report.error[0] != '\0') {
            r.error = report.error;
          } else {
            r.seconds.push_back(report.seconds);
            r.write_calls.push_back(report.write_calls);
            r.page_faults.push_back(report.page_faults);
            r.peak_rss_kib.push_back(report.peak_rss_kib);
            r.threads.push_back(report.threads);
          }
        } catch (const std::exception& e) {
          r.error = e.what();
        }
      } else
#endif
      {
        // Nothing else in this process may write between the two readings
        // of syscw: whatever stdio holds for stdout or stderr goes out now.
        std::fflush(stdout);
        std::fflush(stderr);
        const std::int64_t faults_before = page_faults_so_far();
        const std::int64_t calls_before = write_calls_so_far();
        const double start = now_seconds();
        try {
          c.run(path.c_str());
        } catch (const std::exception& e) {
          r.error = e.what();
        }
        const double end = now_seconds();
        const std::int64_t calls_after = write_calls_so_far();
        const std::int64_t faults_after = page_faults_so_far();
        if (r.error.empty()) {
          r.seconds.push_back(end - start);
          r.write_calls.push_back(calls_before >= 0 && calls_after >= 0 ? calls_after - calls_before
                                                                        : -1);
          r.page_faults.push_back(
              faults_before >= 0 && faults_after >= 0 ? faults_after - faults_before : -1);
        }
      }

      if (r.error.empty() && !r.checked) {
        if (c.output == output_format::none) {
          // No file: its run checked that it formatted the reference's size.
          r.checked = true;
          r.identical = true;
#if !defined(_WIN32)
        } else if (w.check_outputs) {
          // Every output, by the workload, against the bytes it computes.
          r.difference = w.check_outputs(path, c.output);
          r.checked = true;
          r.identical = r.difference.empty();
          r.bytes = w.outputs > 0 ? directory_size(path) : 0;
#endif
        } else if (c.output != output_format::plain) {
#if defined(_WIN32)
          // No workload of the Windows build compresses.
          r.error = "a compressed output cannot be checked in the Windows build";
#else
          r.difference = check_decompressed(reference_path, path, c.output);
#endif
          r.checked = true;
          r.identical = r.difference.empty();
          struct stat st;
          r.bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
        } else {
          comparison same = compare_files(reference_path, path);
          std::string wrong;
          if (w.check_output && same.error.empty() && !same.identical) {
            wrong = w.check_output(reference_path, path, c.name);
            same.identical = wrong.empty();
          }
          r.checked = true;
          r.identical = same.identical;
          r.bytes = same.size;
          if (!same.identical && same.error.empty() && c.may_differ)
            r.difference = wrong;  // expected: shown, and its figures kept
          else if (!wrong.empty())
            r.error = wrong;
          if (!same.error.empty()) r.error = same.error;
        }
      }
      remove_output();
    }
    // Once every output has been checked the reference is not needed, and
    // a large one left in the page cache would be written back to the disk
    // while the next rounds are timed.
    if (!reference_path.empty() &&
        std::all_of(result.contenders.begin(), result.contenders.end(),
                    [](const contender_result& r) { return r.checked || !r.error.empty(); }))
      dir.remove(reference_path);
  }
  bar.clear();
  if (!reference_path.empty()) dir.remove(reference_path);
  result.interrupted = *stop != 0;
  return result;
}

}  // namespace fastout_bench
