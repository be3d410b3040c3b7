// W1 `lines`: 1,000,000 lines of "test data\n", each contender writing them
// its own idiomatic way. W5 `sweep`: the same output from fastout with every
// buffer size from 1 KiB to 8 MiB, beside W1's buffered contenders.
//
// Every loop reads its count and its text from the input at run time, into
// locals first: a char store may alias anything, and a contender must not pay
// for reloading the input when its rivals do not.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/os.h>

#include <fastout/file.h>

#include "bench.h"
#include "output_helpers.h"

namespace fastout_bench {
namespace {

struct lines_input {
  std::string text;  // a line without its '\n'
  std::string line;  // text + '\n'
  std::size_t count;
};

lines_input make_input() {
  lines_input input;
  input.text = "test data";
  input.line = input.text + '\n';
  input.count = 1000000;
  return input;
}

void lines_fprintf(const char* path, const lines_input& in) {
  std::FILE* f = open_stdio(path);
  const char* text = in.text.c_str();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) std::fprintf(f, "%s\n", text);
  close_stdio(f, path);
}

void lines_fputs(const char* path, const lines_input& in) {
  std::FILE* f = open_stdio(path);
  const char* line = in.line.c_str();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) std::fputs(line, f);
  close_stdio(f, path);
}

void fwrite_lines(const char* path, const lines_input& in, std::size_t buffer_size) {
  // A buffer size of 0 means stdio's own; the buffer outlives the FILE.
  std::unique_ptr<char[]> buffer(buffer_size > 0 ? new char[buffer_size] : nullptr);
  std::FILE* f = open_stdio(path, buffer.get(), buffer_size);
  const char* line = in.line.data();
  const std::size_t size = in.line.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) fwrite_unlocked(line, 1, size, f);
  close_stdio(f, path);
}

void lines_fwrite_unlocked(const char* path, const lines_input& in) {
  fwrite_lines(path, in, 0);
}

void lines_fwrite_unlocked_256k(const char* path, const lines_input& in) {
  fwrite_lines(path, in, stdio_big_buffer_size);
}

void lines_putc(const char* path, const lines_input& in) {
  std::FILE* f = open_stdio(path);
  const char* line = in.line.data();
  const std::size_t size = in.line.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t j = 0; j < size; ++j) putc(line[j], f);
  close_stdio(f, path);
}

void lines_putc_unlocked(const char* path, const lines_input& in) {
  std::FILE* f = open_stdio(path);
  const char* line = in.line.data();
  const std::size_t size = in.line.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t j = 0; j < size; ++j) putc_unlocked(line[j], f);
  close_stdio(f, path);
}

void lines_ofstream(const char* path, const lines_input& in) {
  std::ofstream out;
  open_ofstream(out, path);
  const std::string& text = in.text;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out << text << '\n';
  close_ofstream(out, path);
}

void lines_ofstream_endl(const char* path, const lines_input& in) {
  std::ofstream out;
  open_ofstream(out, path);
  const std::string& text = in.text;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out << text << std::endl;
  close_ofstream(out, path);
}

void lines_ofstream_1m(const char* path, const lines_input& in) {
  std::unique_ptr<char[]> buffer(new char[limit_buffer_size]);  // outlives `out`
  std::ofstream out;
  open_ofstream(out, path, buffer.get(), limit_buffer_size);
  const std::string& text = in.text;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out << text << '\n';
  close_ofstream(out, path);
}

void lines_fmt_output_file(const char* path, const lines_input& in) {
  auto out = fmt::output_file(path);
  const std::string_view text = in.text;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) out.print("{}\n", text);
  out.close();
}

void lines_write_per_call(const char* path, const lines_input& in) {
  int fd = open_fd(path);
  const char* line = in.line.data();
  const std::size_t size = in.line.size();
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) write_all(fd, line, size, path);
  close_fd(fd, path);
}

// The fastest reasonable hand-written code: one memcpy of the whole line into
// a buffer, and a write() when the next line does not fit. The fill position
// is a pointer in a local, which the compiler keeps in a register.
void copy_lines(const char* path, const lines_input& in, std::size_t buffer_size) {
  int fd = open_fd(path);
  std::unique_ptr<char[]> storage(new char[buffer_size]);
  char* const buffer = storage.get();
  char* const end = buffer + buffer_size;
  const char* const line = in.line.data();
  const std::size_t size = in.line.size();
  const std::size_t count = in.count;
  char* pos = buffer;
  for (std::size_t i = 0; i < count; ++i) {
    if (static_cast<std::size_t>(end - pos) < size) {
      write_all(fd, buffer, static_cast<std::size_t>(pos - buffer), path);
      pos = buffer;
      if (size > buffer_size) {
        write_all(fd, line, size, path);
        continue;
      }
    }
    std::memcpy(pos, line, size);
    pos += size;
  }
  write_all(fd, buffer, static_cast<std::size_t>(pos - buffer), path);
  close_fd(fd, path);
}

void lines_limit(const char* path, const lines_input& in) {
  copy_lines(path, in, limit_buffer_size);
}

void lines_limit_256k(const char* path, const lines_input& in) {
  copy_lines(path, in, small_limit_buffer_size);
}

void write_lines(fastout::file& out, const lines_input& in) {
  const std::string_view text = in.text;
  const std::size_t count = in.count;
  for (std::size_t i = 0; i < count; ++i) {
    out.write(text);
    out.put('\n');
  }
}

void lines_fastout(const char* path, const lines_input& in) {
  fastout::file out(path);
  write_lines(out, in);
  out.close();
}

void lines_fastout_sized(const char* path, const lines_input& in, std::size_t buffer_size) {
  fastout::file_options options;
  options.buffer_size = buffer_size;
  fastout::file out(path, options);
  write_lines(out, in);
  out.close();
}

const contender_row<lines_input> lines_contenders[] = {
    {"fprintf", lines_fprintf},
    {"fputs", lines_fputs},
    {"fwrite_unlocked", lines_fwrite_unlocked},
    {"fwrite_unlocked_256k", lines_fwrite_unlocked_256k},
    {"putc", lines_putc},
    {"putc_unlocked", lines_putc_unlocked},
    {"ofstream", lines_ofstream},
    {"ofstream_endl", lines_ofstream_endl},
    {"ofstream_1m", lines_ofstream_1m},
    {"fmt_output_file", lines_fmt_output_file},
    {"write_per_call", lines_write_per_call},
    {"limit", lines_limit},
    {"limit_256k", lines_limit_256k},
    {"fastout", lines_fastout},
};

// "1k", "256k", "8m".
std::string size_name(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + "m";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "k";
  return std::to_string(bytes);
}

std::string describe(const lines_input& in) {
  return fmt::format("{} lines of \"{}\\n\"", with_commas(in.count), in.text);
}

}  // namespace

workload make_lines(const workload_options&) {
  auto input = std::make_shared<const lines_input>(make_input());
  workload w;
  w.id = "W1";
  w.name = "lines";
  w.summary = describe(*input);
  w.bytes = std::uint64_t{input->count} * input->line.size();
  w.contenders = bind_contenders(lines_contenders, input);
  return w;
}

workload make_sweep(const workload_options&) {
  auto input = std::make_shared<const lines_input>(make_input());
  workload w;
  w.id = "W5";
  w.name = "sweep";
  w.summary = describe(*input) + ", fastout with buffers of 1 KiB to 8 MiB";
  w.bytes = std::uint64_t{input->count} * input->line.size();
  // W1's buffered contenders run in the same rounds as the sweep, so that the
  // plot's reference lines were measured side by side with it. The two that
  // make a system call per line take 150 times as long: they are in W1.
  for (const auto& row : lines_contenders) {
    std::string name = row.name;
    if (name != "ofstream_endl" && name != "write_per_call" && name != "fastout")
      w.contenders.push_back(bind_contender(row.name, input, row.write));
  }
  for (std::size_t size = 1024; size <= (std::size_t{8} << 20); size *= 2) {
    w.contenders.push_back(contender{
        "fastout_" + size_name(size),
        [input, size](const char* path) { lines_fastout_sized(path, *input, size); }, size});
  }
  return w;
}

}  // namespace fastout_bench
