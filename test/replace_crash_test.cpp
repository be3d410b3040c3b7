// SPDX-License-Identifier: MIT
// Crash tests for open_mode::replace with real processes: a child replaces
// a file over and over, generation after generation, and is killed with
// SIGKILL at a random moment. After every kill the target must hold exactly
// one complete generation: the last one whose close() returned, or the one
// being committed when the kill came. Whatever the child left in the
// directory is classified (docs/safe-replace.md says how such leftovers are
// named and found) and removed before the next trial.
//
// The child records the system call it is in through the system-call
// table, so the test can say where the kills landed; the seed is fixed, so
// a failure can be replayed.
#include <fastout/file.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout::file;
using fastout_test::read_file;
using fastout_test::temp_dir;

constexpr unsigned seed = 11;  // the number: any fixed value replays the same kills
constexpr int trials = 240;

// Generation g of the content: a header that names it, then bytes taken
// from a fixed random block at an offset that depends on g (cheap to make,
// so that the child spends its time in fastout). Sizes vary from 16 KiB to
// ~400 KiB.
std::string generation(int g) {
  static const std::string block = [] {
    std::string bytes(1 << 20, '\0');
    std::mt19937 rng(seed);
    for (char& c : bytes) c = static_cast<char>('a' + rng() % 26);
    return bytes;
  }();
  // In 64 bits: a fast machine commits tens of thousands of generations, and
  // g * 104729 overflowed an int past generation 20,504.
  const auto n = static_cast<std::uint64_t>(g);
  std::size_t size = 16384 + static_cast<std::size_t>(n * 7919 % 97) * 4096;
  std::string content = "fastout crash test, generation " + std::to_string(g) + ", " +
                        std::to_string(size) + " bytes\n";
  std::size_t offset = static_cast<std::size_t>(n * 104729 % 65536);
  content.append(block, offset, size - content.size());
  return content;
}

// The generation `content` is, exactly; -1 if it is not exactly one.
int generation_of(const std::string& content) {
  int g = -1;
  if (std::sscanf(content.c_str(), "fastout crash test, generation %d,", &g) != 1) return -1;
  return g >= 0 && content == generation(g) ? g : -1;
}

// Where the child was: shared with the parent through MAP_SHARED memory.
enum step : int {
  starting,
  opening,
  writing,
  fsync_file,
  link_file,
  close_file,
  exchange,
  rename_file,
  unlink_old,
  fsync_directory,
  between,
  step_count
};
const char* const step_names[step_count] = {
    "starting", "opening",  "writing",  "fsync",           "linkat", "close",  //
    "exchange", "renameat", "unlinkat", "fsync directory", "between"};

struct shared_state {
  std::atomic<int> committed;  // the last generation whose close() returned
  std::atomic<int> at;         // the step the child is in
};
shared_state* shared = nullptr;

using fastout_test::real;

// The child's system calls: note the step, then make the real call.
int noting_fsync(int fd) {
  struct stat st;
  shared->at = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? fsync_directory : fsync_file;
  return real().fsync(fd);
}
int noting_linkat(int old_dir, const char* old_path, int new_dir, const char* new_path, int flags) {
  shared->at = link_file;
  return real().linkat(old_dir, old_path, new_dir, new_path, flags);
}
int noting_close(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags != -1 && (flags & O_ACCMODE) == O_WRONLY) shared->at = close_file;
  return real().close(fd);
}
int noting_exchange(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  shared->at = exchange;
  return real().exchange(old_dir, old_path, new_dir, new_path);
}
int noting_renameat(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  shared->at = rename_file;
  return real().renameat(old_dir, old_path, new_dir, new_path);
}
int noting_unlinkat(int dir, const char* path, int flags) {
  shared->at = unlink_old;
  return real().unlinkat(dir, path, flags);
}
int refusing_tmpfile(int) {
  errno = EOPNOTSUPP;  // as a filesystem without O_TMPFILE answers
  return -1;
}

struct configuration {
  const char* name;
  bool named;       // no O_TMPFILE: a named temporary file
  bool durable;     // sync + sync_directory: fsync and renameat
  bool new_target;  // the child removes the target before each generation
  int max_delay_us;
};

const configuration configurations[] = {
    {"O_TMPFILE, exchange", false, false, false, 15000},
    {"named, exchange", true, false, false, 15000},
    {"O_TMPFILE, sync + rename", false, true, false, 40000},
    {"named, sync + rename", true, true, false, 40000},
    {"O_TMPFILE, new target", false, false, true, 15000},
    {"named, new target", true, false, true, 15000},
};

// The configurations of `all` this build can run: those with an O_TMPFILE
// file need the linux platform layer; the others are said to be skipped.
template <typename C, std::size_t N>
std::vector<C> runnable(const C (&all)[N]) {
  std::vector<C> result;
  for (const C& c : all) {
    if (c.named || fastout_test::unnamed_files()) {
      result.push_back(c);
    } else {
      std::printf(
          "not run: the configuration \"%s\": O_TMPFILE is the linux platform "
          "layer's, and this build's is %s\n",
          c.name, fastout::detail::platform_name());
    }
  }
  return result;
}

// Replaces `target` with generation after generation, from `first`, until
// it is killed.
[[noreturn]] void replace_forever(const std::string& target, const configuration& c, int first) {
  fastout::detail::platform.fsync = noting_fsync;
  fastout::detail::platform.linkat = noting_linkat;
  fastout::detail::platform.close = noting_close;
  fastout::detail::platform.exchange = noting_exchange;
  fastout::detail::platform.renameat = noting_renameat;
  fastout::detail::platform.unlinkat = noting_unlinkat;
  if (c.named) fastout::detail::platform.create_unnamed = refusing_tmpfile;
  fastout::file_options options;
  options.mode = fastout::open_mode::replace;
  options.sync = c.durable;
  options.sync_directory = c.durable;
  options.buffer_size = 16384;
  try {
    for (int g = first;; ++g) {
      std::string content = generation(g);
      shared->at = opening;
      if (c.new_target) ::unlink(target.c_str());
      file f(target, options);
      shared->at = writing;
      for (std::size_t i = 0; i < content.size(); i += 5000)
        f.write(content.data() + i, std::min<std::size_t>(5000, content.size() - i));
      f.close();
      shared->committed = g;
      shared->at = between;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
  }
  ::_exit(1);
}

TEST(replace_crash, sigkill_at_random_moments_leaves_one_whole_generation) {
  FASTOUT_SKIP_ON_WINDOWS(
      "kills forked writers with SIGKILL at chosen moments; Windows has neither fork() nor signals");
  auto started = std::chrono::steady_clock::now();
  void* memory = ::mmap(nullptr, sizeof(shared_state), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  shared = new (memory) shared_state{};

  temp_dir dir;
  const std::string target = dir.file("target");
  std::mt19937 rng(seed);
  std::map<std::string, std::map<std::string, int>> kills;  // configuration -> step -> count
  std::map<std::string, std::map<std::string, int>> left;   // configuration -> kind -> count
  std::map<std::string, int> generations_committed;
  int next = 1;
  fastout_test::write_file(target, generation(0));
  const std::vector<configuration> usable = runnable(configurations);

  for (int trial = 0; trial < trials; ++trial) {
    const configuration& c = usable[static_cast<std::size_t>(trial) % usable.size()];
    SCOPED_TRACE("trial " + std::to_string(trial) + ", " + c.name);
    const int first = next;
    shared->committed = first - 1;
    shared->at = starting;
    std::fflush(nullptr);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) replace_forever(target, c, first);
    std::uniform_int_distribution<int> delay(0, c.max_delay_us);
    ::usleep(static_cast<useconds_t>(delay(rng)));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << fastout_test::describe_status(status) << " (the child stopped on its own)";
    const int committed = shared->committed;
    const int at = shared->at;
    ++kills[c.name][step_names[at]];
    generations_committed[c.name] += committed - (first - 1);

    // The target: exactly the last committed generation or the next one;
    // missing only where the child itself had removed it.
    int g = -1;
    if (std::filesystem::exists(target)) {
      g = generation_of(read_file(target));
      EXPECT_TRUE(g == committed || g == committed + 1)
          << "the target holds "
          << (g < 0 ? "no whole generation" : "generation " + std::to_string(g))
          << "; committed: " << committed << ", killed at " << step_names[at];
    } else {
      EXPECT_TRUE(c.new_target) << "the target is gone; killed at " << step_names[at];
    }
    next = std::max(g, committed) + 1;

    // What the killed child left: its temporary files, each either part of
    // the generation it was writing, a whole new one, or the old one.
    for (const std::string& name : fastout_test::temporaries_in(dir.path())) {
      EXPECT_EQ(name.size(), 9u + 16u + 1u + 6u) << name;
      EXPECT_EQ(name.substr(25), "-target") << name;
      std::string content = read_file(dir.file(name));
      std::string being_written = generation(committed + 1);
      std::string kind;
      if (generation_of(content) == committed + 1) {
        kind = "a whole new generation";
      } else if (generation_of(content) == committed) {
        kind = "the old generation";
      } else if (being_written.compare(0, content.size(), content) == 0) {
        kind = "part of the generation being written";
      } else {
        ADD_FAILURE() << name << ": " << content.size() << " bytes of nothing expected";
        kind = "unexpected";
      }
      ++left[c.name][kind];
      std::filesystem::remove(dir.file(name));
    }
    EXPECT_EQ(fastout_test::names_in(dir.path()).size(), std::filesystem::exists(target) ? 1u : 0u);
    if (!std::filesystem::exists(target)) fastout_test::write_file(target, generation(next++));
    if (testing::Test::HasFailure()) break;
  }

  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%d trials (seed %u) in %.1f s; target always one whole generation\n", trials, seed,
              seconds);
  for (const configuration& c : usable) {
    std::printf("  %-26s %4d generations committed; killed at:", c.name,
                generations_committed[c.name]);
    for (const auto& [where, count] : kills[c.name]) std::printf(" %s %d,", where.c_str(), count);
    std::printf("\n  %-26s left behind:", "");
    if (left[c.name].empty()) std::printf(" nothing");
    for (const auto& [kind, count] : left[c.name]) std::printf(" %d %s,", count, kind.c_str());
    std::printf("\n");
  }
  ::munmap(memory, sizeof(shared_state));
  shared = nullptr;
}

// ---------------------------------------------------------------- every step of close()
//
// A child replaces the target and stops itself (SIGSTOP) just before one of
// the system calls close() makes, the first, then the second, and so on to
// the last: so every step is reached exactly, not at a random moment. The
// parent then kills it, or lets another writer replace the same path while
// it is stopped and then lets it go on.

// What the child shares with the parent.
struct close_steps {
  std::atomic<bool> in_close;    // the child is inside close()
  std::atomic<int> calls;        // system calls made inside close() so far
  std::atomic<int> stop_before;  // the call before which the child stops; 0: none
  char names[128][24];           // the calls, in order, for messages
};
close_steps* steps = nullptr;

// The name of each call in the table, for the steps' names.
template <auto member>
const char* call_name = "?";

// Counts a call made inside close() and stops before the chosen one, then
// makes the real call.
template <auto member, typename F>
struct stepping;
template <auto member, typename R, typename... A>
struct stepping<member, R (*)(A...)> {
  static R call(A... arguments) {
    if (steps->in_close) {
      const int n = ++steps->calls;
      if (n <= 128)
        std::snprintf(steps->names[n - 1], sizeof steps->names[0], "%s", call_name<member>);
      if (n == steps->stop_before) ::raise(SIGSTOP);
    }
    return (real().*member)(arguments...);
  }
};

#define FASTOUT_STEPPING(field)                                                              \
  do {                                                                                       \
    using table = fastout::detail::platform_calls;                                           \
    call_name<& table::field> = #field;                                                      \
    fastout::detail::platform.field = stepping<&table::field, decltype(table::field)>::call; \
  } while (false)

void step_through_every_call() {
  FASTOUT_STEPPING(open);
  FASTOUT_STEPPING(openat);
  FASTOUT_STEPPING(write);
  FASTOUT_STEPPING(writev);
  FASTOUT_STEPPING(write_uncached);
  FASTOUT_STEPPING(wait_writable);
  FASTOUT_STEPPING(create_unnamed);
  FASTOUT_STEPPING(link_unnamed);
  FASTOUT_STEPPING(close);
  FASTOUT_STEPPING(fstat);
  FASTOUT_STEPPING(fstatat);
  FASTOUT_STEPPING(readlinkat);
  FASTOUT_STEPPING(read);
  FASTOUT_STEPPING(lseek);
  FASTOUT_STEPPING(fsync);
  FASTOUT_STEPPING(fdatasync);
  FASTOUT_STEPPING(full_fsync);
  FASTOUT_STEPPING(start_writeback);
  FASTOUT_STEPPING(wait_for_writeback);
  FASTOUT_STEPPING(renameat);
  FASTOUT_STEPPING(exchange);
  FASTOUT_STEPPING(linkat);
  FASTOUT_STEPPING(unlinkat);
  FASTOUT_STEPPING(fchmod);
  FASTOUT_STEPPING(fchown);
  FASTOUT_STEPPING(umask);
  FASTOUT_STEPPING(read_umask);
  FASTOUT_STEPPING(reserve);
  FASTOUT_STEPPING(ftruncate);
  FASTOUT_STEPPING(random_bytes);
  FASTOUT_STEPPING(try_lock);
  FASTOUT_STEPPING(dup);
  FASTOUT_STEPPING(list_directory);
}

struct close_configuration {
  const char* name;
  bool named;     // no O_TMPFILE: a file written under a random name
  bool durable;   // sync + sync_directory: fsync and renameat
  bool existing;  // a target to replace (an exchange, without sync)
};

const close_configuration close_configurations[] = {
    {"O_TMPFILE, exchange", false, false, true},     {"named, exchange", true, false, true},
    {"O_TMPFILE, sync + rename", false, true, true}, {"named, sync + rename", true, true, true},
    {"O_TMPFILE, new target", false, false, false},  {"named, new target", true, false, false},
};

const std::string old_text = "the old content\n";

std::string content_of(char writer) { return std::string(10000, writer) + "\n"; }

// Replaces `target` with `content` as `c` says (in this process).
void replace_with(const std::string& target, const close_configuration& c,
                  const std::string& content) {
  fastout::file_options options;
  options.mode = fastout::open_mode::replace;
  options.sync = c.durable;
  options.sync_directory = c.durable;
  options.buffer_size = 4096;  // close() flushes the last part: writes are steps too
  fastout::file f(target, options);
  f.write(content);
  f.close();
}

// A child that replaces `target` with `content` and stops before call
// number `stop_before` of close() (0: never). It exits with 0 if close()
// returned, 1 if it threw.
pid_t start_replacing(const std::string& target, const close_configuration& c,
                      const std::string& content, int stop_before) {
  steps->in_close = false;
  steps->calls = 0;
  steps->stop_before = stop_before;
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child != 0) return child;
  step_through_every_call();
  if (c.named) fastout::detail::platform.create_unnamed = refusing_tmpfile;
  int code = 1;
  try {
    fastout::file_options options;
    options.mode = fastout::open_mode::replace;
    options.sync = c.durable;
    options.sync_directory = c.durable;
    options.buffer_size = 4096;
    fastout::file f(target, options);
    for (std::size_t i = 0; i < content.size(); i += 1000) f.write(content.substr(i, 1000));
    steps->in_close = true;
    f.close();
    steps->in_close = false;
    code = 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
  }
  ::_exit(code);
}

// Waits until the child has stopped itself, as it must before the call it
// was told.
bool wait_until_stopped(pid_t child, int& status) {
  return ::waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status);
}

class shared_steps {
 public:
  shared_steps() {
    void* memory = ::mmap(nullptr, sizeof(close_steps), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) throw std::system_error(errno, std::system_category(), "mmap");
    steps = new (memory) close_steps{};
  }
  ~shared_steps() {
    ::munmap(steps, sizeof(close_steps));
    steps = nullptr;
  }
  shared_steps(const shared_steps&) = delete;
  shared_steps& operator=(const shared_steps&) = delete;
};

// The calls close() makes in configuration `c`, from a child that is not
// stopped.
std::vector<std::string> calls_of_close(const std::string& target, const close_configuration& c) {
  pid_t child = start_replacing(target, c, content_of('r'), 0);
  int status = 0;
  if (::waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return {};
  std::vector<std::string> names;
  for (int i = 0; i < steps->calls && i < 128; ++i) names.emplace_back(steps->names[i]);
  return names;
}

void reset_target(const std::string& dir, const std::string& target, bool existing) {
  for (const std::string& name : fastout_test::names_in(dir))
    std::filesystem::remove(dir + "/" + name);
  if (existing) fastout_test::write_file(target, old_text);
}

// Killed before any one of close()'s calls, a replacing writer leaves the
// target whole, old or new; the next replacement of the same path, in the
// same mode, removes whatever the killed one left -- at open, before it
// writes a byte -- and leaves nothing of its own.
TEST(replace_crash, sigkill_at_every_step_of_close_leaves_nothing_after_the_next_replace) {
  FASTOUT_SKIP_ON_WINDOWS(
      "kills forked writers with SIGKILL at chosen moments; Windows has neither fork() nor signals");
  shared_steps mapping;
  temp_dir dir;
  const std::string target = dir.file("target");
  for (const close_configuration& c : runnable(close_configurations)) {
    SCOPED_TRACE(c.name);
    reset_target(dir.path(), target, c.existing);
    const std::vector<std::string> calls = calls_of_close(target, c);
    ASSERT_GT(calls.size(), 3u);
    int left_behind = 0;
    std::string where;
    for (std::size_t k = 1; k <= calls.size(); ++k) {
      SCOPED_TRACE("killed before call " + std::to_string(k) + " of " +
                   std::to_string(calls.size()) + ", " + calls[k - 1]);
      reset_target(dir.path(), target, c.existing);
      pid_t child = start_replacing(target, c, content_of('k'), static_cast<int>(k));
      int status = 0;
      ASSERT_TRUE(wait_until_stopped(child, status)) << fastout_test::describe_status(status);
      ASSERT_EQ(::kill(child, SIGKILL), 0);
      ASSERT_EQ(::waitpid(child, &status, 0), child);

      // The target: whole, old or new.
      if (std::filesystem::exists(target)) {
        const std::string now = read_file(target);
        EXPECT_TRUE(now == old_text || now == content_of('k')) << now.size() << " bytes";
      } else {
        EXPECT_FALSE(c.existing);
      }
      const std::vector<std::string> left = fastout_test::temporaries_in(dir.path());
      if (!left.empty()) {
        ++left_behind;
        where += " " + calls[k - 1];
      }

      // The next writer removes it when it opens.
      fastout_test::scoped_platform restore;
      if (c.named) fastout::detail::platform.create_unnamed = refusing_tmpfile;
      fastout::file_options options;
      options.mode = fastout::open_mode::replace;
      options.sync = c.durable;
      options.sync_directory = c.durable;
      fastout::file next(target, options);
      const std::vector<std::string> after_open = fastout_test::temporaries_in(dir.path());
      EXPECT_EQ(after_open.size(), c.named ? 1u : 0u)
          << "left by the killed writer: " << left.size();
      for (const std::string& name : after_open)
        EXPECT_TRUE(std::find(left.begin(), left.end(), name) == left.end()) << name;
      next.write(content_of('n'));
      next.close();
      EXPECT_EQ(read_file(target), content_of('n'));
      EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"target"});
    }
    std::string all;
    for (const std::string& call : calls) all += " " + call;
    std::printf("  %s, close():%s\n  killed before each, %d left a file:%s\n", c.name, all.c_str(),
                left_behind, where.c_str());
    // What the test is for: kills that did leave a file. An O_TMPFILE file
    // with no target to replace is linked straight to its name: nothing.
    if (!c.named && !c.existing) {
      EXPECT_EQ(left_behind, 0);
    } else {
      EXPECT_GT(left_behind, 0);
    }
  }
}

// A writer stopped before any one of close()'s calls is alive: another
// writer that replaces the same path meanwhile (and removes what killed
// writers left) never takes its file, and when it goes on, its close()
// succeeds. The target ends whole, with the content of one of the two, and
// nothing else is left.
TEST(replace_crash, a_writer_stopped_at_every_step_of_close_keeps_its_file) {
  FASTOUT_SKIP_ON_WINDOWS(
      "stops forked writers with SIGSTOP at chosen moments; Windows has neither fork() nor signals");
  shared_steps mapping;
  temp_dir dir;
  const std::string target = dir.file("target");
  for (const close_configuration& c : runnable(close_configurations)) {
    if (!c.existing) continue;
    SCOPED_TRACE(c.name);
    reset_target(dir.path(), target, true);
    const std::vector<std::string> calls = calls_of_close(target, c);
    ASSERT_GT(calls.size(), 3u);
    int last_was_a = 0;
    for (std::size_t k = 1; k <= calls.size(); ++k) {
      SCOPED_TRACE("stopped before call " + std::to_string(k) + " of " +
                   std::to_string(calls.size()) + ", " + calls[k - 1]);
      reset_target(dir.path(), target, true);
      pid_t a = start_replacing(target, c, content_of('a'), static_cast<int>(k));
      int status = 0;
      ASSERT_TRUE(wait_until_stopped(a, status)) << fastout_test::describe_status(status);
      {
        fastout_test::scoped_platform restore;
        if (c.named) fastout::detail::platform.create_unnamed = refusing_tmpfile;
        EXPECT_NO_THROW(replace_with(target, c, content_of('b')));
      }
      ASSERT_EQ(::kill(a, SIGCONT), 0);
      ASSERT_EQ(::waitpid(a, &status, 0), a);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "the stopped writer's close() failed: " << fastout_test::describe_status(status);
      const std::string now = read_file(target);
      EXPECT_TRUE(now == content_of('a') || now == content_of('b')) << now.size() << " bytes";
      if (now == content_of('a')) ++last_was_a;
      EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"target"});
    }
    std::printf("  %-26s %2zu calls in close(); the stopped writer's content won %d times\n",
                c.name, calls.size(), last_was_a);
  }
}

// While a writer without O_TMPFILE writes under its random name, another
// replacement of the same path (which lists the directory for leftovers)
// leaves its file alone; a file under such a name that no writer holds is
// removed.
TEST(replace_crash, a_live_writers_named_file_is_never_taken_for_a_leftover) {
  temp_dir dir;
  const std::string target = dir.file("target");
  fastout_test::write_file(target, old_text);
  const std::string abandoned = ".fastout-0123456789abcdef-target";
  fastout_test::write_file(dir.file(abandoned), "left by a killed writer");
  fastout_test::scoped_platform restore;
  fastout::detail::platform.create_unnamed = refusing_tmpfile;
  fastout::file a = fastout::output_file(target, fastout::open_mode::replace);
  a.write(content_of('a'));
  a.flush();
  std::vector<std::string> names = fastout_test::temporaries_in(dir.path());
  ASSERT_EQ(names.size(), 1u) << "the first writer removes the abandoned file";
  const std::string mine = names[0];
  EXPECT_NE(mine, abandoned);
  const close_configuration named = {"named", true, false, true};
  replace_with(target, named, content_of('b'));
  EXPECT_EQ(read_file(target), content_of('b'));
  EXPECT_EQ(fastout_test::temporaries_in(dir.path()), std::vector<std::string>{mine});
  EXPECT_EQ(read_file(dir.file(mine)), content_of('a'));
  a.close();
  EXPECT_EQ(read_file(target), content_of('a'));
  EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"target"});
}

// ---------------------------------------------------------------- kills during writeback

// Replacements with sync large enough for writeback while writing (24 to
// 40 MiB: three to five ranges of 8 MiB are started before close()), killed
// at random moments -- while ranges are written back, waited for, or
// synced. The target is always one whole generation: the last committed,
// or the one being committed; a new file left behind (named, without
// O_TMPFILE) is part of a generation or a whole one.
std::string large_generation(int g) {
  const std::string header = "fastout crash test, large generation " + std::to_string(g) + "\n";
  const std::string& block = generation(g);  // cheap to repeat; differs per generation
  const std::size_t size = (std::size_t{24} << 20) + static_cast<std::size_t>(g % 5) * (4 << 20);
  std::string content = header;
  content.reserve(size);
  while (content.size() < size)
    content.append(block, 0, std::min(block.size(), size - content.size()));
  return content;
}

int large_generation_of(const std::string& content) {
  int g = -1;
  if (std::sscanf(content.c_str(), "fastout crash test, large generation %d\n", &g) != 1) return -1;
  return g >= 0 && content == large_generation(g) ? g : -1;
}

// Where the child was, beyond `shared`: starting or waiting for writeback
// (sync_file_range() on Linux), and how often.
struct writeback_state {
  std::atomic<int> in_writeback;
  std::atomic<int> writebacks;
};
writeback_state* writeback_shared = nullptr;

template <auto call>
int noting_writeback(int fd, off_t offset, off_t size) {
  writeback_shared->in_writeback = 1;
  ++writeback_shared->writebacks;
  int result = (real().*call)(fd, offset, size);
  writeback_shared->in_writeback = 0;
  return result;
}

[[noreturn]] void replace_large_forever(const std::string& target, bool named, int first) {
  fastout::detail::platform.fsync = noting_fsync;
  fastout::detail::platform.renameat = noting_renameat;
  fastout::detail::platform.start_writeback =
      noting_writeback<&fastout::detail::platform_calls::start_writeback>;
  fastout::detail::platform.wait_for_writeback =
      noting_writeback<&fastout::detail::platform_calls::wait_for_writeback>;
  if (named) fastout::detail::platform.create_unnamed = refusing_tmpfile;
  fastout::file_options options;
  options.mode = fastout::open_mode::replace;
  options.sync = true;
  try {
    for (int g = first;; ++g) {
      const std::string content = large_generation(g);
      shared->at = opening;
      file f(target, options);
      shared->at = writing;
      for (std::size_t i = 0; i < content.size(); i += 100000)
        f.write(content.data() + i, std::min<std::size_t>(100000, content.size() - i));
      f.close();
      shared->committed = g;
      shared->at = between;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
  }
  ::_exit(1);
}

TEST(replace_crash, sigkill_during_writeback_leaves_one_whole_generation) {
  FASTOUT_SKIP_UNLESS_LINUX("writeback while writing (sync_file_range)");
  constexpr int large_trials = 24;
  void* memory = ::mmap(nullptr, sizeof(shared_state) + sizeof(writeback_state),
                        PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  shared = new (memory) shared_state{};
  writeback_shared = new (static_cast<char*>(memory) + sizeof(shared_state)) writeback_state{};

  temp_dir dir;
  const std::string target = dir.file("target");
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay(10000, 150000);
  int next = 1;
  fastout_test::write_file(target, large_generation(0));
  std::map<std::string, int> kills;
  int writebacks = 0;
  for (int trial = 0; trial < large_trials; ++trial) {
    const bool named = trial % 2 == 1;
    SCOPED_TRACE("trial " + std::to_string(trial) + (named ? ", named" : ", O_TMPFILE"));
    shared->committed = next - 1;
    shared->at = starting;
    writeback_shared->in_writeback = 0;
    writeback_shared->writebacks = 0;
    std::fflush(nullptr);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) replace_large_forever(target, named, next);
    // The delay counts from the child's first open, not from the fork: the
    // child first makes its 24 MiB or more of content, which on a loaded
    // machine under a sanitizer took longer than the longest delay, so that
    // every kill of a CI run fell before any writeback.
    for (int waited_ms = 0; shared->at == starting; ++waited_ms) {
      if (waited_ms == 120000) {
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
        FAIL() << "the child did not open its file in 2 minutes";
      }
      ::usleep(1000);
    }
    ::usleep(static_cast<useconds_t>(delay(rng)));
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << fastout_test::describe_status(status) << " (the child stopped on its own)";
    const int committed = shared->committed;
    ++kills[writeback_shared->in_writeback ? "sync_file_range" : step_names[shared->at]];
    writebacks += writeback_shared->writebacks;

    const int g = large_generation_of(read_file(target));
    EXPECT_TRUE(g == committed || g == committed + 1)
        << "the target holds "
        << (g < 0 ? "no whole generation" : "generation " + std::to_string(g))
        << "; committed: " << committed;
    next = std::max(g, committed) + 1;
    for (const std::string& name : fastout_test::temporaries_in(dir.path())) {
      const std::string content = read_file(dir.file(name));
      const std::string being_written = large_generation(committed + 1);
      EXPECT_TRUE(being_written.compare(0, content.size(), content) == 0 ||
                  large_generation_of(content) == committed)
          << name << ": " << content.size() << " bytes of nothing expected";
      std::filesystem::remove(dir.file(name));
    }
    EXPECT_EQ(fastout_test::names_in(dir.path()), std::vector<std::string>{"target"});
    if (testing::Test::HasFailure()) break;
  }
  EXPECT_GT(writebacks, 0) << "no writeback was started: the trials tested nothing new";
  std::printf("%d trials, %d writeback calls; killed at:", large_trials, writebacks);
  for (const auto& [where, count] : kills) std::printf(" %s %d,", where.c_str(), count);
  std::printf("\n");
  ::munmap(memory, sizeof(shared_state) + sizeof(writeback_state));
  shared = nullptr;
  writeback_shared = nullptr;
}

}  // namespace
