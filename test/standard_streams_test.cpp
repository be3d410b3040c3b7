// SPDX-License-Identifier: MIT
// Tests of fastout::standard_output() and standard_error(): one writer each,
// their buffering, the flush at exit and what an error does to the exit
// status, SIGPIPE and `| head`, and the order of their text among printf's
// and std::cout's (sync_with_stdio()).
//
// What happens when a process exits can only be seen from outside it, so
// most tests run standard_streams_helper (standard_streams_helper.cpp) as a
// real process, with its standard output on a file, /dev/full, a closed
// descriptor, a pipe whose reader goes away, or a terminal.
#include <fastout/iostream.h>
#include <fastout/standard_streams.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#ifndef FASTOUT_STANDARD_STREAMS_HELPER
#  error "the build gives the helper's path"
#endif

namespace {

using fastout_test::contains;
using fastout_test::describe_status;
using fastout_test::read_file;
using fastout_test::temp_dir;

// How the helper is started. Descriptors the test made are given to it as
// its fd 0, 1 and 2; -1 leaves that descriptor to the defaults below.
struct helper_setup {
  int stdin_fd = -1;   // default: /dev/null
  int stdout_fd = -1;  // default: the file `out` in the test's directory
  bool close_stdout = false;
  int stderr_fd = -1;  // default: the file `err` in the test's directory
  bool ignore_sigpipe = false;
  rlim_t file_size_limit = RLIM_INFINITY;
};

struct helper_result {
  int status = 0;
  std::string out;  // the default stdout file's content
  std::string err;  // the default stderr file's content
};

// Runs the helper with `args` and waits for it. Only async-signal-safe
// calls between fork() and exec().
helper_result run_helper(const std::vector<std::string>& args, const helper_setup& setup = {}) {
  temp_dir dir;
  const std::string out_path = dir.file("out"), err_path = dir.file("err");
  const int create = O_WRONLY | O_CREAT | O_TRUNC;
  int out = setup.stdout_fd >= 0 ? -1 : ::open(out_path.c_str(), create, 0600);
  int err = setup.stderr_fd >= 0 ? -1 : ::open(err_path.c_str(), create, 0600);
  int null_in = ::open("/dev/null", O_RDONLY);
  std::vector<std::string> argv_strings =
      fastout_test::built_program_command(FASTOUT_STANDARD_STREAMS_HELPER, args);
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::fflush(nullptr);
#if defined(_WIN32)
  // No fork(): the helper is started with _spawnv(), which hands it this
  // process's runtime descriptors 0, 1 and 2. They point at the helper's for
  // the call and are put back after it. A signal disposition cannot be
  // given (the tests that need one skip on Windows); a file size limit is
  // the platform table's in the helper (test/windows/file_size_limit.h),
  // asked for through the environment.
  (void)null_in;
  if (setup.file_size_limit != RLIM_INFINITY)
    ::_putenv(("FASTOUT_TEST_FILE_SIZE_LIMIT=" + std::to_string(setup.file_size_limit)).c_str());
  const int windows_in = ::_open("NUL", _O_RDONLY | _O_BINARY);
  int saved[3] = {::_dup(0), ::_dup(1), ::_dup(2)};
  ::_dup2(setup.stdin_fd >= 0 ? setup.stdin_fd : windows_in, 0);
  if (setup.close_stdout) {
    ::_close(1);
  } else {
    ::_dup2(setup.stdout_fd >= 0 ? setup.stdout_fd : out, 1);
  }
  ::_dup2(setup.stderr_fd >= 0 ? setup.stderr_fd : err, 2);
  const intptr_t exit_code = ::_spawnv(_P_WAIT, argv[0], argv.data());
  const int spawn_error = errno;
  ::_putenv("FASTOUT_TEST_FILE_SIZE_LIMIT=");
  for (int fd = 0; fd < 3; ++fd) {
    if (saved[fd] >= 0) {
      ::_dup2(saved[fd], fd);
      ::_close(saved[fd]);
    }
  }
  for (int fd : {out, err, windows_in})
    if (fd >= 0) ::_close(fd);
  if (exit_code < 0) throw std::system_error(spawn_error, std::generic_category(), "_spawnv");
  helper_result spawned;
  spawned.status = static_cast<int>(exit_code & 0xff) << 8;  // as waitpid() says "exited with"
  if (setup.stdout_fd < 0 && !setup.close_stdout) spawned.out = read_file(out_path);
  if (setup.stderr_fd < 0) spawned.err = read_file(err_path);
  return spawned;
#else
  pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::system_category(), "fork");
  if (pid == 0) {
    ::dup2(setup.stdin_fd >= 0 ? setup.stdin_fd : null_in, 0);
    if (setup.close_stdout) {
      ::close(1);
    } else {
      ::dup2(setup.stdout_fd >= 0 ? setup.stdout_fd : out, 1);
    }
    ::dup2(setup.stderr_fd >= 0 ? setup.stderr_fd : err, 2);
    ::signal(SIGPIPE, setup.ignore_sigpipe ? SIG_IGN : SIG_DFL);
    if (setup.file_size_limit != RLIM_INFINITY) {
      ::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of being killed
      struct rlimit limit = {setup.file_size_limit, setup.file_size_limit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  for (int fd : {out, err, null_in})
    if (fd >= 0) ::close(fd);
  helper_result result;
  while (::waitpid(pid, &result.status, 0) < 0) {
    if (errno != EINTR) throw std::system_error(errno, std::system_category(), "waitpid");
  }
  if (setup.stdout_fd < 0 && !setup.close_stdout) result.out = read_file(out_path);
  if (setup.stderr_fd < 0) result.err = read_file(err_path);
  return result;
#endif
}

bool exited_with(const helper_result& r, int code) {
  return WIFEXITED(r.status) && WEXITSTATUS(r.status) == code;
}

bool killed_by(const helper_result& r, int signal_number) {
  return WIFSIGNALED(r.status) && WTERMSIG(r.status) == signal_number;
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

// A pseudo-terminal; skips the test where there is none.
struct terminal {
  int master = -1;
  int slave = -1;
  terminal() {
    master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) return;
    if (::grantpt(master) != 0 || ::unlockpt(master) != 0) return;
    const char* name = ::ptsname(master);
    if (name != nullptr) slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  }
  ~terminal() {
    if (slave >= 0) ::close(slave);
    if (master >= 0) ::close(master);
  }
  bool ok() const { return slave >= 0; }
  // What is waiting on the master side, without blocking.
  std::string read_available() const {
    int flags = ::fcntl(master, F_GETFL);
    ::fcntl(master, F_SETFL, flags | O_NONBLOCK);
    std::string text;
    char chunk[256];
    ssize_t n;
    while ((n = ::read(master, chunk, sizeof chunk)) > 0)
      text.append(chunk, static_cast<std::size_t>(n));
    ::fcntl(master, F_SETFL, flags);
    return text;
  }
};

// ------------------------------------------------------------ one writer each

TEST(standard_streams, one_writer_for_stdout_and_one_for_stderr) {
  fastout::file& out = fastout::standard_output();
  fastout::file& err = fastout::standard_error();
  EXPECT_EQ(&out, &fastout::standard_output());
  EXPECT_EQ(&err, &fastout::standard_error());
  EXPECT_NE(&out, &err);
  EXPECT_EQ(out.path(), "<stdout>");
  EXPECT_EQ(out.descriptor(), STDOUT_FILENO);
  EXPECT_EQ(out.buffer_capacity(), fastout::default_buffer_size);
  EXPECT_EQ(err.path(), "<stderr>");
  EXPECT_EQ(err.descriptor(), STDERR_FILENO);
  EXPECT_EQ(err.buffer_capacity(), 0u);
  // stdout_file() still makes a writer of its own, with its own buffer.
  fastout::file own = fastout::stdout_file();
  EXPECT_NE(fastout::detail::writer_of(own).buffer_begin(),
            fastout::detail::writer_of(out).buffer_begin());
}

TEST(standard_streams, buffering_on_a_file_and_on_a_terminal_is_stdios) {
  FASTOUT_SKIP_ON_WINDOWS("needs a pseudo-terminal, which Windows has not");
  helper_result file_run = run_helper({"describe"});
  EXPECT_TRUE(exited_with(file_run, 0)) << describe_status(file_run.status);
  EXPECT_TRUE(contains(file_run.err,
                       "helper: stdout write calls 0, pending 0, line-buffered 0, "
                       "buffer 262144"))
      << file_run.err;
  EXPECT_TRUE(contains(file_run.err,
                       "helper: stderr write calls 0, pending 0, line-buffered 0, "
                       "buffer 0"))
      << file_run.err;
  EXPECT_TRUE(contains(file_run.err, "helper: same 1")) << file_run.err;

  terminal tty;
  if (!tty.ok()) GTEST_SKIP() << "no pseudo-terminals here";
  helper_setup setup;
  setup.stdout_fd = tty.slave;
  helper_result tty_run = run_helper({"describe"}, setup);
  EXPECT_TRUE(exited_with(tty_run, 0)) << describe_status(tty_run.status);
  EXPECT_TRUE(contains(tty_run.err, "helper: stdout write calls 0, pending 0, line-buffered 1"))
      << tty_run.err;
}

TEST(standard_streams, stderr_is_unbuffered) {
  helper_result r = run_helper({"stderr"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.err, "one 2 \nhelper: stderr write calls 3, pending 0, line-buffered 0, buffer 0\n");
}

TEST(standard_streams, set_options_works_as_setvbuf) {
  // Line-buffered on a file: every call sends its lines, the partial line
  // waits for the exit.
  helper_result r = run_helper({"line-mode"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out, "a\nb\nc\npartial");
  EXPECT_TRUE(contains(r.err, "helper: stdout write calls 2, pending 7, line-buffered 1")) << r.err;
}

// ------------------------------------------------------------ flushed at exit

TEST(exit, standard_output_is_flushed_when_main_returns) {
  helper_result r = run_helper({"hello"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(r.err, "");
}

TEST(exit, standard_output_is_flushed_by_exit_keeping_its_status) {
  helper_result r = run_helper({"exit", "0"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out, "via exit()\n");
  r = run_helper({"exit", "3"});
  EXPECT_TRUE(exited_with(r, 3)) << describe_status(r.status);
  EXPECT_EQ(r.out, "via exit()\n");
  EXPECT_EQ(r.err, "");
}

TEST(exit, standard_output_is_not_flushed_by_quick_exit_as_stdio) {
  helper_result r = run_helper({"quick_exit"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out, "");
}

TEST(exit, text_written_by_destructors_is_not_lost) {
  // A static object's destructor runs after main() and before the flush; a
  // destructor function runs after it, when the writer is unbuffered.
  helper_result r = run_helper({"destructors"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
#if defined(_WIN32)
  // MinGW's runtime runs destructor functions before the static objects'
  // destructors (it registers them with atexit() first): another order,
  // the runtime's, and still every line.
  EXPECT_EQ(r.out, "from main\nfrom a destructor function\nfrom a static destructor\n");
#else
  EXPECT_EQ(r.out, "from main\nfrom a static destructor\nfrom a destructor function\n");
#endif
  EXPECT_EQ(r.err, "");
}

// ------------------------------------------------------------ errors at exit

// Skips a test that needs the status a program exits with in fastout's
// exit handler: glibc's on_exit() passes it, POSIX's atexit() does not. The
// posix layer then takes the status as 0, so that no loss goes unreported:
// a failing status becomes 1, and an error thrown to the program, which it
// may have answered with a failing status, is reported again.
#define FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT(consequence)                                       \
  do {                                                                                        \
    if (!fastout_test::platform_is("linux"))                                                  \
      GTEST_SKIP() << "needs the exit status in the exit handler: atexit() passes none "      \
                      "(glibc's on_exit() does), so on the "                                  \
                   << fastout::detail::platform_name() << " platform layer " << (consequence) \
                   << " (docs/platforms.md)";                                                 \
  } while (false)

TEST(exit_errors, an_error_at_exit_is_reported_and_the_status_becomes_failure) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_setup setup;
  setup.stdout_fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(setup.stdout_fd, 0);
  helper_result r = run_helper({"hello"}, setup);
  ::close(setup.stdout_fd);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 6 bytes writing \"<stdout>\": No space left on device\n");
}

TEST(exit_errors, a_failing_status_is_kept) {
  FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT("a failing status becomes 1");
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_setup setup;
  setup.stdout_fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(setup.stdout_fd, 0);
  helper_result r = run_helper({"exit", "3"}, setup);
  ::close(setup.stdout_fd);
  EXPECT_TRUE(exited_with(r, 3)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 11 bytes writing \"<stdout>\": No space left on device\n");
}

// On Windows, which has no RLIMIT_FSIZE, the helper's platform table stops
// the file at 4096 bytes as Windows does one that outgrows its filesystem
// (ERROR_FILE_TOO_LARGE, EFBIG: test/windows/file_size_limit.h).
TEST(exit_errors, a_file_size_limit_at_exit_is_reported) {
  temp_dir dir;
  const std::string path = dir.file("limited");
  helper_setup setup;
  setup.stdout_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(setup.stdout_fd, 0);
  setup.file_size_limit = 4096;
  // 1000 lines, 8890 bytes: all in the buffer until the exit.
  helper_result r = run_helper({"lines", "1000"}, setup);
  ::close(setup.stdout_fd);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 4794 bytes writing \"<stdout>\": File too large\n");
  EXPECT_EQ(fastout_test::file_size_at(path), 4096);
}

TEST(exit_errors, a_closed_stdout_is_reported_at_exit) {
  helper_setup setup;
  setup.close_stdout = true;
  helper_result r = run_helper({"hello"}, setup);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 6 bytes writing \"<stdout>\": Bad file descriptor\n");
}

TEST(exit_errors, an_error_the_program_reported_is_not_reported_again) {
  FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT("an error thrown to the program is reported again at exit");
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_setup setup;
  setup.stdout_fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(setup.stdout_fd, 0);
  // 100,000 lines are more than the buffer: the error is met in main().
  helper_result r = run_helper({"lines-catch", "100000"}, setup);
  ::close(setup.stdout_fd);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "helper: cannot write to \"<stdout>\" (0 of ")) << r.err;
  EXPECT_TRUE(contains(r.err, "No space left on device")) << r.err;
}

TEST(exit_errors, an_error_the_program_ignored_is_reported_at_exit) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_setup setup;
  setup.stdout_fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(setup.stdout_fd, 0);
  helper_result r = run_helper({"lines-ignore", "100000"}, setup);
  ::close(setup.stdout_fd);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "fastout: lost ")) << r.err;
  EXPECT_TRUE(contains(r.err, " bytes writing \"<stdout>\": No space left on device")) << r.err;
}

// ------------------------------------------------------------ write errors never abort

// 10 MB of 100-byte lines, printed by a program that never catches anything.
const std::string ten_megabytes = "10000000";

helper_result run_into_dev_full(const std::vector<std::string>& args) {
  helper_setup setup;
  setup.stdout_fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (setup.stdout_fd < 0) throw std::system_error(errno, std::system_category(), "/dev/full");
  helper_result r = run_helper(args, setup);
  ::close(setup.stdout_fd);
  return r;
}

TEST(standard_output, full_disk_ends_with_one_report_and_status_1) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_result r = run_into_dev_full({"print-bytes", ten_megabytes, "0"});
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  // Every byte the program printed, not only the buffer that met the error.
  EXPECT_EQ(r.err, "fastout: lost 10000000 bytes writing \"<stdout>\": No space left on device\n");
}

TEST(standard_output, full_disk_keeps_the_failing_status_main_returned) {
  FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT("a failing status becomes 1");
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_result r = run_into_dev_full({"print-bytes", ten_megabytes, "3"});
  EXPECT_TRUE(exited_with(r, 3)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 10000000 bytes writing \"<stdout>\": No space left on device\n");
}

TEST(standard_output, write_error_is_readable_and_later_output_is_dropped_without_a_write) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  helper_result r = run_into_dev_full({"print-bytes-stats", ten_megabytes, "0"});
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(r.err,
            "helper: error " + std::to_string(ENOSPC) +
                ", accepted 10000000, written 0, write calls 1\n"
                "fastout: lost 10000000 bytes writing \"<stdout>\": No space left on device\n");
}

TEST(standard_output, program_that_asked_for_exceptions_gets_one) {
  FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT("an error thrown to the program is reported again at exit");
  helper_result r = run_into_dev_full({"print-bytes-exceptions", ten_megabytes, "4"});
  EXPECT_TRUE(exited_with(r, 4)) << describe_status(r.status);
  // 2621 lines fill the 256 KiB buffer; the print that finds it full meets
  // the error and counts none of its own text. Thrown, and answered with a
  // failing status: not reported again at exit.
  EXPECT_EQ(r.err,
            "helper: caught cannot write to \"<stdout>\" (0 of 262100 bytes reached the "
            "file): No space left on device\n");
}

// ------------------------------------------------------------ | head

// Runs the helper into a pipe. With `lines_to_read` >= 0 the test reads
// that many lines and closes its end, as head does; with -1 the reader is
// gone before the helper starts.
helper_result run_into_pipe(const std::vector<std::string>& args, bool ignore_sigpipe,
                            int lines_to_read, std::string* read_back = nullptr) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::system_category(), "pipe");
  helper_setup setup;
  setup.stdout_fd = fds[1];
  setup.ignore_sigpipe = ignore_sigpipe;
  if (lines_to_read < 0) ::close(fds[0]);
  // A child process reads, as head does, while the helper runs: the helper
  // blocks on the full pipe until the reader goes.
  helper_result result;
  std::fflush(nullptr);
  pid_t reader = -1;
  if (lines_to_read >= 0) {
    reader = ::fork();
    if (reader == 0) {
      ::close(fds[1]);
      int seen = 0;
      char c;
      std::string text;
      while (seen < lines_to_read && ::read(fds[0], &c, 1) == 1) {
        text += c;
        if (c == '\n') ++seen;
      }
      // Whether the first line was "line 0" goes back as the exit status.
      ::_exit(text == "line 0\n" ? 0 : 1);
    }
    ::close(fds[0]);  // only the reader holds the read end now
  }
  result = run_helper(args, setup);
  ::close(fds[1]);
  if (reader > 0) {
    int status = 0;
    ::waitpid(reader, &status, 0);
    const bool first_line_read = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (read_back != nullptr) *read_back = first_line_read ? "line 0\n" : "?";
  }
  return result;
}

TEST(broken_pipe, head_with_sigpipe_default_kills_the_writer_as_stdio) {
  FASTOUT_SKIP_ON_WINDOWS(
      "a write to a pipe without a reader kills with SIGPIPE on Linux; Windows has no SIGPIPE (windows.a_pipe_whose_reader_is_gone_is_epipe)");
  std::string first;
  helper_result r = run_into_pipe({"lines", "2000000"}, false, 1, &first);
  EXPECT_TRUE(killed_by(r, SIGPIPE)) << describe_status(r.status);
  EXPECT_EQ(first, "line 0\n");
  EXPECT_EQ(r.err, "");
}

TEST(broken_pipe, reader_gone_before_the_exit_flush_with_sigpipe_default_kills) {
  FASTOUT_SKIP_ON_WINDOWS(
      "a write to a pipe without a reader kills with SIGPIPE on Linux; Windows has no SIGPIPE (windows.a_pipe_whose_reader_is_gone_is_epipe)");
  helper_result r = run_into_pipe({"hello"}, false, -1);
  EXPECT_TRUE(killed_by(r, SIGPIPE)) << describe_status(r.status);
  EXPECT_EQ(r.err, "");
}

TEST(broken_pipe, head_with_sigpipe_ignored_is_one_error_and_a_failing_status) {
  FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT("an error thrown to the program is reported again at exit");
  std::string first;
  helper_result r = run_into_pipe({"lines-catch", "2000000"}, true, 1, &first);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(first, "line 0\n");
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "helper: cannot write to \"<stdout>\"")) << r.err;
  EXPECT_TRUE(contains(r.err, "Broken pipe")) << r.err;
}

TEST(broken_pipe, reader_gone_before_the_exit_flush_with_sigpipe_ignored_fails) {
  helper_result r = run_into_pipe({"hello"}, true, -1);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 6 bytes writing \"<stdout>\": Broken pipe\n");
}

TEST(standard_output, pipe_without_reader_ends_with_one_report_and_status_1) {
  helper_result r = run_into_pipe({"print-bytes", ten_megabytes, "0"}, true, -1);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 10000000 bytes writing \"<stdout>\": Broken pipe\n");
}

TEST(standard_output, pipe_without_reader_keeps_the_failing_status_main_returned) {
  FASTOUT_SKIP_UNLESS_STATUS_AT_EXIT("a failing status becomes 1");
  helper_result r = run_into_pipe({"print-bytes", ten_megabytes, "5"}, true, -1);
  EXPECT_TRUE(exited_with(r, 5)) << describe_status(r.status);
  EXPECT_EQ(r.err, "fastout: lost 10000000 bytes writing \"<stdout>\": Broken pipe\n");
}

TEST(standard_output, head_with_sigpipe_ignored_ends_with_one_report_and_status_1) {
  FASTOUT_SKIP_ON_WINDOWS(
      "reads the pipe in a forked child, as head does, and Windows has no fork()");
  // The reader takes a line and goes, as `| head -1` does: how much reached
  // it depends on the pipe, but the program ends the same way.
  std::string first;
  helper_result r = run_into_pipe({"print-bytes", ten_megabytes, "0"}, true, 1, &first);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  ASSERT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "fastout: lost ")) << r.err;
  EXPECT_TRUE(contains(r.err, " bytes writing \"<stdout>\": Broken pipe\n")) << r.err;
  const unsigned long lost = std::stoul(r.err.substr(std::strlen("fastout: lost ")));
  EXPECT_LE(lost, 10000000u);
  EXPECT_GT(lost, 10000000u - 4u * 1024 * 1024) << "a pipe holds less than 4 MiB";
}

TEST(standard_output, head_with_sigpipe_default_kills_a_program_that_never_catches) {
  FASTOUT_SKIP_ON_WINDOWS(
      "a write to a pipe without a reader kills with SIGPIPE on Linux; Windows has no SIGPIPE (windows.a_pipe_whose_reader_is_gone_is_epipe)");
  std::string first;
  helper_result r = run_into_pipe({"print-bytes", ten_megabytes, "0"}, false, 1, &first);
  EXPECT_TRUE(killed_by(r, SIGPIPE)) << describe_status(r.status);
  EXPECT_EQ(r.err, "");
}

TEST(broken_pipe, cout_through_fastout_stops_writing_at_the_first_epipe) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs sync_with_stdio(), whose cookie streams the Windows C runtime has not");
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  // std::cout synced with fastout never throws: badbit stops it, the loop
  // runs on, and one error is reported at exit.
  std::string first;
  helper_result r = run_into_pipe({"cout-lines", "1000000"}, true, 1, &first);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  EXPECT_EQ(first, "line 0\n");
  ASSERT_EQ(count_lines(r.err), 2) << r.err;
  EXPECT_TRUE(contains(r.err, "helper: cout good 0, stdout error 0, write calls ")) << r.err;
  // A 256 KiB buffer for 12 MB of lines: a handful of writes, not a write
  // per line after the error.
  std::size_t at = r.err.find("write calls ") + 12;
  EXPECT_LE(std::stoul(r.err.substr(at)), 3u) << r.err;
  EXPECT_TRUE(contains(r.err, "fastout: lost ")) << r.err;
  EXPECT_TRUE(contains(r.err, "writing \"<stdout>\": Broken pipe\n")) << r.err;
}

TEST(broken_pipe, printf_through_fastout_stops_writing_at_the_first_epipe) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs sync_with_stdio(), whose cookie streams the Windows C runtime has not");
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  std::string first;
  helper_result r = run_into_pipe({"printf-lines", "1000000"}, true, 1, &first);
  EXPECT_TRUE(exited_with(r, 1)) << describe_status(r.status);
  ASSERT_EQ(count_lines(r.err), 2) << r.err;
  EXPECT_TRUE(contains(r.err, "helper: cout good 1, stdout error 1, write calls ")) << r.err;
  std::size_t at = r.err.find("write calls ") + 12;
  EXPECT_LE(std::stoul(r.err.substr(at)), 3u) << r.err;
  EXPECT_TRUE(contains(r.err, "writing \"<stdout>\": Broken pipe\n")) << r.err;
}

// ------------------------------------------------------------ order with stdio

TEST(stdio_order, sync_with_stdio_keeps_everything_in_order) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs sync_with_stdio(), whose cookie streams the Windows C runtime has not");
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  helper_result r = run_helper({"mixed-synced"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out,
            "1 printf\n2 fastout\n3 cout 3.5\n4 puts\n5 fastout print\n6\n7 fputs\n"
            "8 cout endl\n9 fwrite\n" +
                std::string(300000, 'x') + "\n10 " + std::string(5000, 'y') + "\n");
  EXPECT_EQ(r.err, "e1 fprintf\ne2 fastout\ne3 cerr\ne4 clog\ne5 fputs\n");
}

TEST(stdio_order, without_sync_flushing_at_each_switch_keeps_the_order) {
  helper_result r = run_helper({"mixed-unsynced"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out, "1 printf\n2 fastout\n3 cout\n4 fastout\n");
}

TEST(stdio_order, unsync_puts_the_streams_back_after_flushing) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs sync_with_stdio(), whose cookie streams the Windows C runtime has not");
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  helper_result r = run_helper({"sync-unsync"});
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_EQ(r.out, "1 printf synced\n2 cout synced\n3 printf 1\n4 cout\n5 fastout\n");
}

TEST(stdio_order, the_flush_policy_of_cout_through_fastout_is_kept) {
  FASTOUT_SKIP_ON_WINDOWS(
      "needs sync_with_stdio(), whose cookie streams the Windows C runtime has not");
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  const std::string lines = "line 0\nline 1\nline 2\nline 3\nline 4\n";
  helper_result standard = run_helper({"cout-endl", "0"});
  EXPECT_TRUE(exited_with(standard, 0)) << describe_status(standard.status);
  EXPECT_EQ(standard.out, lines);
  EXPECT_TRUE(contains(standard.err, "helper: stdout write calls 5, pending 0")) << standard.err;
  helper_result on_close = run_helper({"cout-endl", "1"});
  EXPECT_TRUE(exited_with(on_close, 0)) << describe_status(on_close.status);
  EXPECT_EQ(on_close.out, lines);
  EXPECT_TRUE(contains(on_close.err, "helper: stdout write calls 0, pending 35")) << on_close.err;
}

TEST(stdio_order, a_prompt_on_a_terminal_is_visible_at_once) {
  FASTOUT_SKIP_ON_WINDOWS("needs a pseudo-terminal, which Windows has not");
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  terminal tty;
  if (!tty.ok()) GTEST_SKIP() << "no pseudo-terminals here";
  helper_setup setup;
  setup.stdout_fd = tty.slave;
  helper_result r = run_helper({"prompt"}, setup);
  EXPECT_TRUE(exited_with(r, 0)) << describe_status(r.status);
  EXPECT_TRUE(contains(r.err, "helper: stdout write calls 1, pending 0, line-buffered 1")) << r.err;
  EXPECT_EQ(tty.read_available(), "name? ");
}

}  // namespace
