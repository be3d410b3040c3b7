// Opening and closing files the way each contender's library does, with every
// error checked, so that a contender that silently lost data cannot win. The
// helpers are out of line: they run once per timed run, never per byte.
#ifndef FASTOUT_BENCH_OUTPUT_HELPERS_H_
#define FASTOUT_BENCH_OUTPUT_HELPERS_H_

#include <cstddef>
#include <cstdio>
#include <fstream>

namespace fastout_bench {

/// The hand-written `limit` contender's buffer, and the one the `_1m`
/// contenders give their library.
inline constexpr std::size_t limit_buffer_size = std::size_t{1} << 20;
/// The buffer of `limit_256k`, the same hand-written code with fastout's
/// default buffer size. Where a core's L2 cache holds 1 MiB or less, the
/// 1 MiB buffer and the page-cache pages write() copies it into no longer
/// fit in L2 together, and the smaller buffer is faster (more so while other
/// processes share the L3): this row shows how much of fastout's lead over
/// `limit` is that.
inline constexpr std::size_t small_limit_buffer_size = std::size_t{256} << 10;
/// The buffer the `_256k` stdio contenders set with setvbuf().
inline constexpr std::size_t stdio_big_buffer_size = std::size_t{256} << 10;

/// Throws std::system_error with errno, naming what failed and the path.
[[noreturn]] void throw_errno(const char* action, const char* path);
/// Throws std::runtime_error naming what failed and the path.
[[noreturn]] void throw_failure(const char* action, const char* path);

/// fopen(path, "w"); throws if it fails. With `buffer`, also setvbuf() it as
/// a fully buffered stdio buffer of `buffer_size` bytes. (glibc ignores the
/// size when setvbuf() is given no buffer, so the caller must provide one,
/// and keep it until close_stdio().)
std::FILE* open_stdio(const char* path, char* buffer = nullptr, std::size_t buffer_size = 0);
/// Checks ferror() and fclose(); throws if either reports a failure.
void close_stdio(std::FILE* file, const char* path);

/// Opens `out` on path (binary, truncating); throws if it fails. With
/// `buffer`, it is set with pubsetbuf() first, as libstdc++ requires.
void open_ofstream(std::ofstream& out, const char* path, char* buffer = nullptr,
                   std::size_t buffer_size = 0);
/// Closes `out`; throws if any write or the close failed.
void close_ofstream(std::ofstream& out, const char* path);

/// open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666); throws on failure.
int open_fd(const char* path);
/// write() until everything is written, retrying EINTR; throws on failure.
void write_all(int fd, const char* data, std::size_t size, const char* path);
/// close(); throws on failure.
void close_fd(int fd, const char* path);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_OUTPUT_HELPERS_H_
