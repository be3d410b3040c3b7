// SPDX-License-Identifier: MIT
// W18 `startup`: a small program that prints three lines, started as a
// process of its own in every run -- what a user of a tiny tool run many
// times pays for each process. The same program with stdio (the
// reference), through fastout's C API linked as docs/c-api.md says
// (libfastout-c, static and shared), and in C++ with {fmt}'s print and with
// fastout's standard output (fastout_bench/startup/, built by
// tools/CMakeLists.txt). A run is posix_spawn() to waitpid(), with the
// program's standard output the run's file; its median and fastest run are
// the per-process times the table and the bars give. 2,000 runs, with
// --quick too (`runs`): a process takes about a millisecond, so the
// workload takes 10 to 30 s.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bench.h"

extern char** environ;

namespace fastout_bench {

namespace {

// Starts `program` with its standard output at `path` and waits for it:
// throws if it cannot be started or does not exit with 0.
void run_program(const char* program, const char* path) {
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(std::string("cannot create its file: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  char* argv[] = {const_cast<char*>(program), nullptr};
  pid_t pid = 0;
  int error = posix_spawn(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fd);
  if (error != 0)
    throw std::runtime_error(std::string("cannot start ") + program + ": " + std::strerror(error));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(std::string(program) + " did not exit with 0 (status " +
                             std::to_string(status) + ")");
}

}  // namespace

workload make_startup(const workload_options&) {
  workload w;
  w.bytes = std::strlen("startup 18\na line of text\ndone\n");
  w.reference = "stdio";
  w.baseline = "stdio";
  w.runs = 2000;
#if defined(FASTOUT_BENCH_W18_STDIO)
  auto add = [&w](const char* name, const char* program) {
    w.contenders.push_back({name, [program](const char* path) { run_program(program, path); }});
  };
  add("stdio", FASTOUT_BENCH_W18_STDIO);
  add("fastout_c_static", FASTOUT_BENCH_W18_C_STATIC);
  add("fastout_c_shared", FASTOUT_BENCH_W18_C_SHARED);
  add("fmt_print", FASTOUT_BENCH_W18_FMT);
  add("fastout_cpp", FASTOUT_BENCH_W18_CPP);
#else
  w.left_out = "this build has no libfastout-c (FASTOUT_C_LIBRARY is OFF), so no W18 programs";
#endif
  return w;
}

}  // namespace fastout_bench
