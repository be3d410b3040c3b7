// SPDX-License-Identifier: MIT
// Compressed output's engine judged by the command-line tools users read
// its files with: `zstd -t`, `gzip -t` and `bgzip -t` (Debian's tabix), and
// their decoders, after every flush() of a stream and after its end. The
// tools are processes of their own, so these are few, on outputs of several
// buffers; test/compression_test.cpp holds the many sizes and faults.
#include <fastout/compression.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "stages/compression_internal.h"
#include "compression_test_sink.h"
#include "test_util.h"

namespace {

using fastout::compression_format;
using fastout::detail::compressed_output;
using fastout::detail::compression_settings;
using fastout_test::fd_output_sink;
using fastout_test::temp_dir;

// Lines of text with numbers that vary.
std::string lines(std::size_t size, unsigned seed) {
  std::mt19937_64 random(seed);
  std::string text;
  while (text.size() < size) {
    std::uint64_t x = random();
    text += "2026-11-24T20:" + std::to_string(x % 60) + " INFO worker" + std::to_string(x >> 60) +
            ": row " + std::to_string(x >> 32 & 0xffff) + " value " + std::to_string(x & 0xffffff) +
            "\n";
  }
  text.resize(size);
  return text;
}

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// A command's exit status and what it printed on stdout and stderr.
struct outcome {
  int status;
  std::string output;
};
outcome run(const std::string& command) {
  outcome result{-1, ""};
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char chunk[4096];
  std::size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) result.output.append(chunk, got);
  result.status = ::pclose(pipe);
  return result;
}

// Hands `data` over buffer by buffer, each filled to capacity.
char* feed(compressed_output& out, char* buffer, const std::string& data) {
  std::size_t filled = 0;
  for (std::size_t i = 0; i < data.size();) {
    std::size_t piece = std::min(out.capacity() - filled, data.size() - i);
    std::memcpy(buffer + filled, data.data() + i, piece);
    filled += piece;
    i += piece;
    if (filled == out.capacity()) {
      buffer = out.hand_over(buffer, filled);
      if (buffer == nullptr) return nullptr;
      filled = 0;
    }
  }
  return filled > 0 ? out.hand_over(buffer, filled) : buffer;
}

// The tool that tests a format, and the one that decodes it to stdout.
std::string test_command(compression_format format, const std::string& path) {
  return format == compression_format::zstd ? "zstd -tq '" + path + "'" : "gzip -t '" + path + "'";
}
std::string decode_command(compression_format format, const std::string& path) {
  return format == compression_format::zstd ? "zstd -dcq '" + path + "'"
                                            : "gzip -dc '" + path + "'";
}

class compression_tools : public testing::TestWithParam<compression_format> {
 protected:
  void SetUp() override {
    const char* tool = GetParam() == compression_format::zstd ? "zstd" : "gzip";
    if (!have(tool)) GTEST_SKIP() << tool << " is not installed";
  }
};

// After each flush() the file as it stands passes the format's tool, and
// decodes to everything handed over before the flush; BGZF then lacks only
// its end-of-file marker, which bgzip notices, and close() adds it.
TEST_P(compression_tools, accept_the_file_after_every_flush_and_at_the_end) {
  const compression_format format = GetParam();
  temp_dir dir;
  const std::string path = dir.file("out");
  const std::string snapshot = dir.file("snapshot");
  const std::string reference = dir.file("reference");
  const bool bgzip = format == compression_format::gzip && have("bgzip");
  for (unsigned workers : {0u, 1u, 2u}) {
    SCOPED_TRACE(std::string(fastout::format_name(format)) + " workers " + std::to_string(workers));
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    fd_output_sink sink(fd);
    compression_settings settings;
    settings.format = format;
    settings.level = format == compression_format::zstd ? 3 : 6;
    settings.workers = workers;
    settings.buffer_size = 64 * 1024;
    settings.name = path;
    compressed_output out(settings, sink);
    char* buffer = out.buffer();
    std::string so_far;
    // A piece of one byte, one of many buffers, and one of part of a buffer.
    for (std::size_t size : {std::size_t{1}, std::size_t{5} * 64 * 1024 + 17, std::size_t{1000}}) {
      std::string piece = lines(size, static_cast<unsigned>(size));
      buffer = feed(out, buffer, piece);
      ASSERT_NE(buffer, nullptr) << out.describe_failure();
      so_far += piece;
      ASSERT_EQ(out.flush(), 0);
      // A copy: a reader sees the file as it is between two calls.
      fastout_test::write_file(snapshot, fastout_test::read_file(path));
      fastout_test::write_file(reference, so_far);
      outcome tested = run(test_command(format, snapshot));
      EXPECT_EQ(tested.status, 0) << tested.output;
      EXPECT_EQ(run(decode_command(format, snapshot) + " | cmp - '" + reference + "'").status, 0);
      if (bgzip) {
        outcome checked = run("bgzip -t '" + snapshot + "'");
        EXPECT_EQ(checked.status, 0) << checked.output;
        EXPECT_TRUE(fastout_test::contains(checked.output, "EOF marker is absent"))
            << checked.output;
      }
    }
    ASSERT_EQ(out.finish(), 0);
    ::close(fd);
    outcome tested = run(test_command(format, path));
    EXPECT_EQ(tested.status, 0) << tested.output;
    EXPECT_EQ(tested.output, "");
    EXPECT_EQ(run(decode_command(format, path) + " | cmp - '" + reference + "'").status, 0);
    if (bgzip) {
      outcome checked = run("bgzip -t '" + path + "'");
      EXPECT_EQ(checked.status, 0) << checked.output;
      EXPECT_EQ(checked.output, "");  // the EOF marker is there
      EXPECT_EQ(run("bgzip -dc '" + path + "' | cmp - '" + reference + "'").status, 0);
    }
    if (format == compression_format::zstd) {
      // With workers each buffer is a frame of its own: zstd lists them.
      outcome listed = run("zstd -lv '" + path + "'");
      EXPECT_EQ(listed.status, 0) << listed.output;
      EXPECT_TRUE(fastout_test::contains(listed.output, "Check: XXH64")) << listed.output;
    }
  }
}

// A stream with nothing in it, and one of one byte, are files the tools
// take (an empty file is neither a zstd nor a gzip file).
TEST_P(compression_tools, accept_an_empty_stream_and_one_byte) {
  const compression_format format = GetParam();
  temp_dir dir;
  for (std::size_t size : {std::size_t{0}, std::size_t{1}}) {
    for (unsigned workers : {0u, 1u}) {
      const std::string path = dir.file("out" + std::to_string(size) + std::to_string(workers));
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      ASSERT_GE(fd, 0);
      {
        fd_output_sink sink(fd);
        compression_settings settings;
        settings.format = format;
        settings.level = format == compression_format::zstd ? 3 : 6;
        settings.workers = workers;
        settings.buffer_size = 4096;
        settings.name = path;
        compressed_output out(settings, sink);
        ASSERT_NE(feed(out, out.buffer(), std::string(size, 'x')), nullptr);
        ASSERT_EQ(out.finish(), 0);
      }
      ::close(fd);
      EXPECT_NE(fastout_test::read_file(path), "");
      outcome tested = run(test_command(format, path));
      EXPECT_EQ(tested.status, 0) << tested.output;
      EXPECT_EQ(run(decode_command(format, path)).output, std::string(size, 'x'));
      if (format == compression_format::gzip && have("bgzip")) {
        outcome checked = run("bgzip -t '" + path + "'");
        EXPECT_EQ(checked.status, 0) << checked.output;
        EXPECT_EQ(checked.output, "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(formats, compression_tools,
                         testing::Values(compression_format::zstd, compression_format::gzip),
                         [](const testing::TestParamInfo<compression_format>& param) {
                           return std::string(fastout::format_name(param.param));
                         });

}  // namespace
