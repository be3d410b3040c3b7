// SPDX-License-Identifier: MIT
// The shared pool's size (<fastout/compression.h>): the program's choice,
// else FASTOUT_COMPRESSION_THREADS, else the machine's cores. Apart from
// the pool itself (compression_pool.cpp), because every build has it: one
// without any codec (compression_absent.cpp) keeps the setter's checks and
// reads the variable as one with codecs does, though it has no pool.
#include <fastout/compression.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "platform/platform_internal.h"
#include "stages/compression_pool_internal.h"

namespace fastout {
namespace {

std::atomic<unsigned> chosen_threads{0};  // the program's choice; 0: none
std::once_flag environment_read;
unsigned environment_threads = 0;  // FASTOUT_COMPRESSION_THREADS, 0 when unset or unusable
// A copy of the variable's text when it is not a number of threads, made
// once, under environment_read, and kept for the process's life; the message
// is made when asked for. A pointer, not a std::string: constant-initialized,
// so this file runs nothing at a process's start (a constructor and an exit
// handler that every program, compressing or not, would pay for).
const std::string* environment_unusable = nullptr;

void read_environment() {
  std::call_once(environment_read, [] {
    const char* text = std::getenv("FASTOUT_COMPRESSION_THREADS");
    if (text == nullptr) return;
    char* end = nullptr;
    errno = 0;
    const unsigned long threads = *text >= '0' && *text <= '9' ? std::strtoul(text, &end, 10) : 0;
    if (errno != 0 || end == nullptr || *end != '\0' || threads == 0 ||
        threads > most_compression_pool_threads) {
      environment_unusable = new std::string(text);
      return;
    }
    environment_threads = static_cast<unsigned>(threads);
  });
}

}  // namespace

void set_compression_pool_threads(unsigned threads) {
  if (threads > most_compression_pool_threads)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot give the compression pool " + std::to_string(threads) +
                                " threads: at most " +
                                std::to_string(most_compression_pool_threads));
  chosen_threads.store(threads, std::memory_order_relaxed);
}

unsigned compression_pool_threads() noexcept {
  if (unsigned chosen = chosen_threads.load(std::memory_order_relaxed)) return chosen;
  read_environment();
  if (environment_threads != 0) return environment_threads;
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores == 0) return 1;
  return cores < most_compression_pool_threads ? cores : most_compression_pool_threads;
}

namespace detail {

std::string compression_pool::environment_error() {
  read_environment();
  if (environment_unusable == nullptr) return {};
  return "FASTOUT_COMPRESSION_THREADS=\"" + *environment_unusable +
         "\" is not a number of threads from 1 to " + std::to_string(most_compression_pool_threads);
}

}  // namespace detail
}  // namespace fastout
