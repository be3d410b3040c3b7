// W10 `big`: 1 GiB (256 MiB with --quick) written in 1 MiB pieces. Here the
// cost is the copy and the system calls, not the per-call overhead, so the
// question is whether a writer gets out of the way of large writes.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/os.h>

#include <fastout/file.h>

#include "bench.h"
#include "output_helpers.h"

namespace fastout_bench {
namespace {

struct big_input {
  std::vector<char> piece;
  std::size_t count;
};

void big_fwrite(const char* path, const big_input& in, std::size_t buffer_size) {
  // A buffer size of 0 means stdio's own; the buffer outlives the FILE.
  std::unique_ptr<char[]> buffer(buffer_size > 0 ? new char[buffer_size] : nullptr);
  std::FILE* f = open_stdio(path, buffer.get(), buffer_size);
  const char* const piece = in.piece.data();
  const std::size_t size = in.piece.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) fwrite_unlocked(piece, 1, size, f);
  close_stdio(f, path);
}

void big_fwrite_unlocked(const char* path, const big_input& in) { big_fwrite(path, in, 0); }

void big_fwrite_unlocked_256k(const char* path, const big_input& in) {
  big_fwrite(path, in, stdio_big_buffer_size);
}

void write_pieces(std::ofstream& out, const big_input& in) {
  const char* const piece = in.piece.data();
  const auto size = static_cast<std::streamsize>(in.piece.size());
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.write(piece, size);
}

void big_ofstream(const char* path, const big_input& in) {
  std::ofstream out;
  open_ofstream(out, path);
  write_pieces(out, in);
  close_ofstream(out, path);
}

void big_ofstream_1m(const char* path, const big_input& in) {
  std::unique_ptr<char[]> buffer(new char[limit_buffer_size]);  // outlives `out`
  std::ofstream out;
  open_ofstream(out, path, buffer.get(), limit_buffer_size);
  write_pieces(out, in);
  close_ofstream(out, path);
}

void big_fmt_output_file(const char* path, const big_input& in) {
  auto out = fmt::output_file(path);
  const fmt::string_view piece(in.piece.data(), in.piece.size());
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.print("{}", piece);
  out.close();
}

void big_write_per_call(const char* path, const big_input& in) {
  int fd = open_fd(path);
  const char* const piece = in.piece.data();
  const std::size_t size = in.piece.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) write_all(fd, piece, size, path);
  close_fd(fd, path);
}

// The fastest reasonable hand-written buffered writer: copy into a 1 MiB
// buffer what fits, and send a piece at least as large as the buffer straight
// to the file after what is buffered, since copying it would only cost time.
// With 1 MiB pieces every piece goes straight out, so this is one write() per
// piece: the floor a writer can reach here.
void big_limit(const char* path, const big_input& in) {
  int fd = open_fd(path);
  std::unique_ptr<char[]> storage(new char[limit_buffer_size]);
  char* const buffer = storage.get();
  const char* const piece = in.piece.data();
  const std::size_t size = in.piece.size();
  const std::size_t count = in.count;
  std::size_t used = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (limit_buffer_size - used < size) {
      write_all(fd, buffer, used, path);
      used = 0;
      if (size >= limit_buffer_size) {
        write_all(fd, piece, size, path);
        continue;
      }
    }
    std::memcpy(buffer + used, piece, size);
    used += size;
  }
  write_all(fd, buffer, used, path);
  close_fd(fd, path);
}

void big_fastout(const char* path, const big_input& in) {
  fastout::file out(path);
  const char* const piece = in.piece.data();
  const std::size_t size = in.piece.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.write(piece, size);
  out.close();
}

const contender_row<big_input> big_contenders[] = {
    {"fwrite_unlocked", big_fwrite_unlocked},
    {"fwrite_unlocked_256k", big_fwrite_unlocked_256k},
    {"ofstream", big_ofstream},
    {"ofstream_1m", big_ofstream_1m},
    {"fmt_output_file", big_fmt_output_file},
    {"write_per_call", big_write_per_call},
    {"limit", big_limit},
    {"fastout", big_fastout},
};

}  // namespace

workload make_big(const workload_options& options) {
  const std::size_t piece_size = std::size_t{1} << 20;
  const std::size_t mib = options.quick ? 256 : 1024;
  auto input = std::make_shared<big_input>();
  // Text with a line structure, so that the file is easy to inspect; the
  // contents do not matter to any contender.
  input->piece.resize(piece_size);
  for (std::size_t i = 0; i < piece_size; ++i)
    input->piece[i] = (i & 63) == 63 ? '\n' : static_cast<char>('a' + (i * 7 + i / 64) % 26);
  input->count = mib;
  workload w;
  w.id = "W10";
  w.name = "big";
  w.summary = fmt::format("{} MiB in 1 MiB pieces", mib);
  w.bytes = std::uint64_t{piece_size} * input->count;
  w.baseline.clear();
  w.contenders = bind_contenders(big_contenders, std::shared_ptr<const big_input>(input));
  return w;
}

}  // namespace fastout_bench
