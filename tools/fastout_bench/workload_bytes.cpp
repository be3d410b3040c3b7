// W2 `bytes`: 256 MiB (32 MiB with --quick) written one byte at a time.
// W4 `echo`: 1 MiB written one char at a time, which is small enough for the
// slow contenders too, including one write() per char.
//
// Byte i of the output is pattern[i & 63]: cheap to produce, the same for
// every contender, and not something a compiler can turn into a memset.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <fmt/os.h>

#include <fastout/file.h>

#include "bench.h"
#include "output_helpers.h"

namespace fastout_bench {
namespace {

struct bytes_input {
  char pattern[64];
  std::size_t count;
};

std::shared_ptr<const bytes_input> make_input(std::size_t count) {
  static const char pattern[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_\n";
  static_assert(sizeof pattern == 64 + 1, "64 bytes and a NUL");
  auto input = std::make_shared<bytes_input>();
  std::memcpy(input->pattern, pattern, 64);
  input->count = count;
  return input;
}

void bytes_fprintf(const char* path, const bytes_input& in) {
  std::FILE* f = open_stdio(path);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) std::fprintf(f, "%c", pattern[i & 63]);
  close_stdio(f, path);
}

void bytes_putc(const char* path, const bytes_input& in) {
  std::FILE* f = open_stdio(path);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) putc(pattern[i & 63], f);
  close_stdio(f, path);
}

void bytes_putc_unlocked(const char* path, const bytes_input& in) {
  std::FILE* f = open_stdio(path);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) putc_unlocked(pattern[i & 63], f);
  close_stdio(f, path);
}

void fwrite_bytes(const char* path, const bytes_input& in, std::size_t buffer_size) {
  // A buffer size of 0 means stdio's own; the buffer outlives the FILE.
  std::unique_ptr<char[]> buffer(buffer_size > 0 ? new char[buffer_size] : nullptr);
  std::FILE* f = open_stdio(path, buffer.get(), buffer_size);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) fwrite_unlocked(&pattern[i & 63], 1, 1, f);
  close_stdio(f, path);
}

void bytes_fwrite_unlocked(const char* path, const bytes_input& in) {
  fwrite_bytes(path, in, 0);
}

void bytes_fwrite_unlocked_256k(const char* path, const bytes_input& in) {
  fwrite_bytes(path, in, stdio_big_buffer_size);
}

void put_bytes(std::ofstream& out, const bytes_input& in) {
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.put(pattern[i & 63]);
}

void bytes_ofstream(const char* path, const bytes_input& in) {
  std::ofstream out;
  open_ofstream(out, path);
  put_bytes(out, in);
  close_ofstream(out, path);
}

void bytes_ofstream_1m(const char* path, const bytes_input& in) {
  std::unique_ptr<char[]> buffer(new char[limit_buffer_size]);  // outlives `out`
  std::ofstream out;
  open_ofstream(out, path, buffer.get(), limit_buffer_size);
  put_bytes(out, in);
  close_ofstream(out, path);
}

void bytes_fmt_output_file(const char* path, const bytes_input& in) {
  auto out = fmt::output_file(path);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.print("{}", pattern[i & 63]);
  out.close();
}

void bytes_write_per_call(const char* path, const bytes_input& in) {
  int fd = open_fd(path);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) write_all(fd, &pattern[i & 63], 1, path);
  close_fd(fd, path);
}

// The fastest reasonable hand-written code: a store into a buffer and a
// write() when it is full. The fill position is a pointer in a local, which
// the compiler keeps in a register (an index plus a base costs one more).
void store_bytes(const char* path, const bytes_input& in, std::size_t buffer_size) {
  int fd = open_fd(path);
  std::unique_ptr<char[]> storage(new char[buffer_size]);
  char* const buffer = storage.get();
  char* const end = buffer + buffer_size;
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  char* pos = buffer;
  for (std::size_t i = 0; i < count; ++i) {
    if (pos == end) {
      write_all(fd, buffer, buffer_size, path);
      pos = buffer;
    }
    *pos++ = pattern[i & 63];
  }
  write_all(fd, buffer, static_cast<std::size_t>(pos - buffer), path);
  close_fd(fd, path);
}

void bytes_limit(const char* path, const bytes_input& in) {
  store_bytes(path, in, limit_buffer_size);
}

void bytes_limit_256k(const char* path, const bytes_input& in) {
  store_bytes(path, in, small_limit_buffer_size);
}

void bytes_fastout(const char* path, const bytes_input& in) {
  fastout::file out(path);
  const char* const pattern = in.pattern;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.put(pattern[i & 63]);
  out.close();
}

void bytes_fastout_cursor(const char* path, const bytes_input& in) {
  fastout::file out(path);
  {
    auto cursor = out.make_cursor();
    const char* const pattern = in.pattern;
    const std::size_t count = in.count;
    for (std::size_t i = 0; i < count; ++i) cursor.put(pattern[i & 63]);
  }  // the cursor hands its position back before close()
  out.close();
}

// fprintf, fmt and one write() per byte would take minutes on 256 MiB.
const contender_row<bytes_input> bytes_contenders[] = {
    {"putc", bytes_putc},
    {"putc_unlocked", bytes_putc_unlocked},
    {"fwrite_unlocked", bytes_fwrite_unlocked},
    {"fwrite_unlocked_256k", bytes_fwrite_unlocked_256k},
    {"ofstream", bytes_ofstream},
    {"ofstream_1m", bytes_ofstream_1m},
    {"limit", bytes_limit},
    {"limit_256k", bytes_limit_256k},
    {"fastout", bytes_fastout},
    {"fastout_cursor", bytes_fastout_cursor},
};

const contender_row<bytes_input> echo_contenders[] = {
    {"fprintf", bytes_fprintf},
    {"putc", bytes_putc},
    {"putc_unlocked", bytes_putc_unlocked},
    {"fwrite_unlocked", bytes_fwrite_unlocked},
    {"fwrite_unlocked_256k", bytes_fwrite_unlocked_256k},
    {"ofstream", bytes_ofstream},
    {"ofstream_1m", bytes_ofstream_1m},
    {"fmt_output_file", bytes_fmt_output_file},
    {"write_per_call", bytes_write_per_call},
    {"limit", bytes_limit},
    {"fastout", bytes_fastout},
    {"fastout_cursor", bytes_fastout_cursor},
};

}  // namespace

workload make_bytes(const workload_options& options) {
  std::size_t mib = options.quick ? 32 : 256;
  auto input = make_input(mib << 20);
  workload w;
  w.id = "W2";
  w.name = "bytes";
  w.summary = fmt::format("{} MiB, one byte at a time", mib);
  w.bytes = input->count;
  w.contenders = bind_contenders(bytes_contenders, input);
  return w;
}

workload make_echo(const workload_options&) {
  auto input = make_input(std::size_t{1} << 20);
  workload w;
  w.id = "W4";
  w.name = "echo";
  w.summary = "1 MiB, one char at a time";
  w.bytes = input->count;
  w.contenders = bind_contenders(echo_contenders, input);
  return w;
}

}  // namespace fastout_bench
