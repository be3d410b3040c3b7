// SPDX-License-Identifier: MIT
// What the tests of compressed output share: text that compresses as real
// output does, decoding through libzstd's and libdeflate's own decoders
// (checking BGZF's framing as it goes), and counting this process's threads.
// Tests that include it link libzstd and libdeflate.
#ifndef FASTOUT_COMPRESSION_TEST_UTIL_H_
#define FASTOUT_COMPRESSION_TEST_UTIL_H_

#if defined(_WIN32)
#  include <windows.h>
#  include <tlhelp32.h>
#endif
#include <fastout/compression.h>

#include <gtest/gtest.h>

#include <libdeflate.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include "stages/compression_internal.h"
#include "test_util.h"

namespace fastout_test {

using fastout::compression_format;

// Log-like lines with numbers that vary, so that output compresses as real
// output does and no buffer size hides a period.
inline std::string log_text(std::size_t size, unsigned seed = 1) {
  std::mt19937_64 random(seed);
  static const char* const levels[] = {"INFO", "WARN", "DEBUG", "ERROR"};
  std::string text;
  text.reserve(size + 128);
  while (text.size() < size) {
    std::uint64_t x = random();
    text += std::to_string(1764000000 + text.size()) + " " + levels[x & 3] + " module" +
            std::to_string(x >> 60) + ": request " + std::to_string(x >> 40 & 0xfffff) + " took " +
            std::to_string(x >> 20 & 0xfff) + " us\n";
  }
  text.resize(size);
  return text;
}

// Everything the zstd frames in `compressed` hold. `complete` tells whether
// the last frame ended (a flushed, unfinished stream has not).
inline std::string zstd_decode(const std::string& compressed, bool* complete = nullptr) {
  ZSTD_DStream* stream = ZSTD_createDStream();
  std::string decoded;
  std::vector<char> chunk(ZSTD_DStreamOutSize());
  ZSTD_inBuffer input = {compressed.data(), compressed.size(), 0};
  std::size_t last = 0;
  while (input.pos < input.size) {
    ZSTD_outBuffer output = {chunk.data(), chunk.size(), 0};
    last = ZSTD_decompressStream(stream, &output, &input);
    if (ZSTD_isError(last)) {
      ADD_FAILURE() << "libzstd: " << ZSTD_getErrorName(last);
      break;
    }
    decoded.append(chunk.data(), output.pos);
  }
  for (;;) {  // what libzstd still holds of a flushed block
    ZSTD_outBuffer output = {chunk.data(), chunk.size(), 0};
    std::size_t result = ZSTD_decompressStream(stream, &output, &input);
    if (ZSTD_isError(result) || output.pos == 0) break;
    decoded.append(chunk.data(), output.pos);
  }
  ZSTD_freeDStream(stream);
  if (complete != nullptr) *complete = compressed.empty() || last == 0;
  return decoded;
}

// The size of the BGZF block at `block`, from its BSIZE field.
inline std::size_t bgzf_block_size(const char* block) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(block);
  return (std::size_t{bytes[16]} | std::size_t{bytes[17]} << 8) + 1;
}

// Everything the BGZF blocks in `compressed` hold, checking that each is a
// BGZF block (the BC field, its size) of at most 0xff00 input bytes. `eof`
// tells whether the last block is BGZF's end-of-file marker.
inline std::string bgzf_decode(const std::string& compressed, bool* eof = nullptr) {
  libdeflate_decompressor* decompressor = libdeflate_alloc_decompressor();
  std::string decoded;
  std::vector<char> block(65536);
  std::size_t at = 0;
  std::size_t last_size = 0;
  while (at < compressed.size()) {
    const auto* header = reinterpret_cast<const unsigned char*>(compressed.data() + at);
    if (compressed.size() - at < 28 || header[0] != 0x1f || header[1] != 0x8b || header[3] != 4 ||
        header[12] != 'B' || header[13] != 'C') {
      ADD_FAILURE() << "no BGZF block at offset " << at;
      break;
    }
    std::size_t block_size = bgzf_block_size(compressed.data() + at);
    std::size_t used = 0;
    std::size_t produced = 0;
    libdeflate_result result =
        libdeflate_gzip_decompress_ex(decompressor, compressed.data() + at, compressed.size() - at,
                                      block.data(), block.size(), &used, &produced);
    if (result != LIBDEFLATE_SUCCESS) {
      ADD_FAILURE() << "libdeflate: result " << result << " at offset " << at;
      break;
    }
    EXPECT_EQ(used, block_size) << "BSIZE of the block at offset " << at;
    EXPECT_LE(produced, fastout::detail::bgzf_block_input);
    decoded.append(block.data(), produced);
    at += used;
    last_size = used == 28 && produced == 0 ? 28 : used;
  }
  libdeflate_free_decompressor(decompressor);
  if (eof != nullptr)
    *eof =
        last_size == 28 && compressed.compare(compressed.size() - 28, 28,
                                              std::string("\x1f\x8b\x08\x04\0\0\0\0\0\xff\x06"
                                                          "\0BC\x02\0\x1b\0\x03\0\0\0\0\0\0\0\0\0",
                                                          28)) == 0;
  return decoded;
}

inline std::string decode(compression_format format, const std::string& compressed,
                          bool* complete = nullptr) {
  return format == compression_format::zstd ? zstd_decode(compressed, complete)
                                            : bgzf_decode(compressed, complete);
}

// How many threads this process has.
#if defined(_WIN32)
// The process's threads, from a Toolhelp snapshot.
inline int thread_count() {
  HANDLE snapshot = ::CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return -1;
  THREADENTRY32 entry;
  entry.dwSize = sizeof entry;
  int count = 0;
  for (BOOL more = ::Thread32First(snapshot, &entry); more; more = ::Thread32Next(snapshot, &entry))
    if (entry.th32OwnerProcessID == ::GetCurrentProcessId()) ++count;
  ::CloseHandle(snapshot);
  return count;
}
#else
inline int thread_count() { return static_cast<int>(names_in("/proc/self/task").size()); }
#endif

// A thread that was joined may still be listed for a moment: the kernel
// reaps it just after pthread_join() returns. This waits (for up to five
// seconds: no speed is asserted) until the count is `expected`, and returns
// the count.
inline int thread_count_once_settled(int expected) {
  int count = thread_count();
  for (int i = 0; i < 5000 && count != expected; ++i) {
    ::usleep(1000);
    count = thread_count();
  }
  return count;
}

// The count before an engine starts, once a sanitizer's runtime has started
// the thread of its own that comes with a program's first thread, and the
// thread that made it start is gone. Gone means no longer in
// /proc/self/task (for up to five seconds), not only joined: under qemu-user
// (scripts/test --target aarch64) a joined thread's host thread lingers
// until it is scheduled again, which on a busy machine took longer than the
// 1 ms of steadiness below.
inline int thread_count_before_workers() {
  pid_t starter = 0;
  std::thread([&starter] { starter = static_cast<pid_t>(::syscall(SYS_gettid)); }).join();
  const std::string starter_entry = "/proc/self/task/" + std::to_string(starter);
  for (int i = 0; i < 5000 && ::access(starter_entry.c_str(), F_OK) == 0; ++i) ::usleep(1000);
  int count = thread_count();
  for (int i = 0; i < 5000; ++i) {
    ::usleep(1000);
    int now = thread_count();
    if (now == count) break;
    count = now;
  }
  return count;
}

}  // namespace fastout_test

#endif  // FASTOUT_COMPRESSION_TEST_UTIL_H_
