// SPDX-License-Identifier: MIT
// Compressed standard output (`tool > out.zst`, `tool | ...`), C++'s
// standard_output(), and C's fastout_open_stdout() and
// fastout_set_stdout_options(), seen from outside: compressed_stdout_helper
// runs as a process of its own with its stdout on a
// file or a pipe, and `| head` behaves as for plain output (SIGPIPE by
// default kills it; ignored, one report and exit status 1).
#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compression_test_util.h"
#include "test_util.h"

#ifndef FASTOUT_COMPRESSED_STDOUT_HELPER
#  error "the build gives the helper's path"
#endif

namespace {

using fastout::compression_format;
using fastout_test::contains;
using fastout_test::decode;
using fastout_test::describe_status;
using fastout_test::read_file;
using fastout_test::temp_dir;

struct run_result {
  int status = 0;
  std::string out;  // what it wrote to stdout (what the reader read, for a pipe)
  std::string err;
};

// Runs the helper with stdout on a file, or on a pipe from which at most
// `read_limit` bytes are read before the read end is closed.
run_result run_helper(const std::vector<std::string>& args, bool to_pipe = false,
                      std::size_t read_limit = SIZE_MAX, bool ignore_sigpipe = false) {
  temp_dir dir;
  const std::string out_path = dir.file("out"), err_path = dir.file("err");
  int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int ends[2] = {-1, -1};
  if (to_pipe && ::pipe2(ends, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::system_category(), "pipe");
  std::vector<std::string> strings =
      fastout_test::built_program_command(FASTOUT_COMPRESSED_STDOUT_HELPER, args);
  std::vector<char*> argv;
  for (auto& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  run_result result;
#if defined(_WIN32)
  // No fork(): the helper is started with _spawnv(), which hands it this
  // process's descriptors 1 and 2, pointed at the helper's for the call and
  // put back after it. Windows has no SIGPIPE: a write to a pipe whose
  // reader is gone always fails with EPIPE, as on Linux with SIGPIPE
  // ignored (the test that needs it killed skips).
  (void)ignore_sigpipe;
  std::fflush(nullptr);
  const int saved_out = ::_dup(1), saved_err = ::_dup(2);
  ::_dup2(to_pipe ? ends[1] : out, 1);
  ::_dup2(err, 2);
  const intptr_t child = ::_spawnv(_P_NOWAIT, argv[0], argv.data());
  const int spawn_error = errno;
  ::_dup2(saved_out, 1);
  ::_dup2(saved_err, 2);
  ::_close(saved_out);
  ::_close(saved_err);
  ::close(out);
  ::close(err);
  if (child == -1) throw std::system_error(spawn_error, std::generic_category(), "_spawnv");
#else
  pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::system_category(), "fork");
  if (pid == 0) {
    ::dup2(to_pipe ? ends[1] : out, 1);
    ::dup2(err, 2);
    ::signal(SIGPIPE, ignore_sigpipe ? SIG_IGN : SIG_DFL);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err);
#endif
  if (to_pipe) {
    ::close(ends[1]);
    char chunk[65536];
    while (result.out.size() < read_limit) {
      ssize_t n = ::read(ends[0], chunk, std::min(sizeof chunk, read_limit - result.out.size()));
      if (n > 0) {
        result.out.append(chunk, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
    ::close(ends[0]);  // `head` is done
  }
#if defined(_WIN32)
  int exit_code = 0;
  if (::_cwait(&exit_code, child, 0) == -1)
    throw std::system_error(errno, std::generic_category(), "_cwait");
  result.status = (exit_code & 0xff) << 8;  // as waitpid() says "exited with"
#else
  while (::waitpid(pid, &result.status, 0) < 0)
    if (errno != EINTR) throw std::system_error(errno, std::system_category(), "waitpid");
#endif
  if (!to_pipe) result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

std::string expected_lines(long count) {
  std::string text;
  for (long i = 0; i < count; ++i) text += std::to_string(i) + " standard output line\n";
  return text;
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

// 60,000 lines are 1.6 MB: six of the default 256 KiB buffers, so that
// two workers have several jobs in flight and their blocks must be put
// back in order (36 runs, each compressed and decoded: 200,000 lines took
// 73 s of CI's TSan stage).
constexpr long stream_lines = 60000;

TEST(compressed_standard_output, to_a_file_and_a_pipe_through_both_apis) {
  for (const char* door : {"cxx", "c", "c_first"}) {
    for (compression_format format : {compression_format::zstd, compression_format::gzip}) {
      for (const char* workers : {"0", "1", "2"}) {
        SCOPED_TRACE(std::string(door) + " " + fastout::format_name(format) + " workers " +
                     workers);
        for (bool to_pipe : {false, true}) {
          run_result r = run_helper(
              {door, fastout::format_name(format), workers, std::to_string(stream_lines)}, to_pipe);
          EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
              << describe_status(r.status) << r.err;
          EXPECT_EQ(r.err, "");
          bool complete = false;
          EXPECT_TRUE(decode(format, r.out, &complete) == expected_lines(stream_lines));
          EXPECT_TRUE(complete);
        }
      }
    }
  }
}

TEST(compressed_standard_output, empty_output_is_a_valid_stream) {
  for (compression_format format : {compression_format::zstd, compression_format::gzip}) {
    run_result r = run_helper({"cxx", fastout::format_name(format), "1", "0"});
    EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << describe_status(r.status);
    EXPECT_FALSE(r.out.empty());
    EXPECT_EQ(decode(format, r.out), "");
  }
}

TEST(compressed_standard_output, head_kills_it_with_sigpipe_by_default) {
  FASTOUT_SKIP_ON_WINDOWS(
      "a write to a pipe without a reader kills with SIGPIPE on Linux; Windows has no SIGPIPE (head_with_sigpipe_ignored_gives_one_report_and_status_1 is what happens there)");
  for (const char* door : {"cxx", "c"}) {
    for (const char* workers : {"0", "1"}) {
      run_result r = run_helper({door, "zstd", workers, "5000000"}, true, 1000);
      EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGPIPE)
          << door << " workers " << workers << ": " << describe_status(r.status) << r.err;
      EXPECT_EQ(r.err, "");
    }
  }
}

TEST(compressed_standard_output, head_with_sigpipe_ignored_gives_one_report_and_status_1) {
  for (const char* door : {"cxx", "c"}) {
    for (const char* workers : {"0", "1"}) {
      SCOPED_TRACE(std::string(door) + " workers " + workers);
      run_result r = run_helper({door, "gzip", workers, "5000000"}, true, 1000, true);
      EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1)
          << describe_status(r.status) << r.err;
      EXPECT_EQ(count_lines(r.err), 1) << r.err;
      EXPECT_TRUE(contains(r.err, "<stdout>")) << r.err;
      EXPECT_TRUE(contains(r.err, "Broken pipe")) << r.err;
    }
  }
}

}  // namespace
