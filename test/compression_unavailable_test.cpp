// SPDX-License-Identifier: MIT
// Compressed output without libzstd and libdeflate (FASTOUT_ZSTD=OFF,
// FASTOUT_LIBDEFLATE=OFF, or neither installed): asking for a missing
// codec fails at once, with ENOTSUP and a message naming the path and the
// library. Two ways, by what this build has:
//   - a build with a codec compiles its own copy of the engine
//     (src/stages/compression_pipeline.cpp and compression_pool.cpp) with
//     neither codec, which the linker takes before the library's, and
//     checks the engine's refusal;
//   - a build with neither (FASTOUT_TEST_WITHOUT_CODECS) has no engine at
//     all (src/stages/compression_absent.cpp stands in for it), and is
//     checked through its doors: the same refusal, word for word, and the
//     pool's size, whose contract and environment variable stay though
//     nothing compresses (its compression_pool_environment_* runs).
#include <fastout/compression.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "test_util.h"

#if defined(FASTOUT_TEST_WITHOUT_CODECS)
#  include <fastout/c_api.h>
#  include <fastout/file.h>

#  include <algorithm>
#  include <cstdlib>
#  include <thread>
#else
#  include "compression_test_sink.h"
#  include "stages/compression_internal.h"
#endif

namespace {

using fastout::compression_format;

// The refusal as every build without the codec words it, spelled out here
// rather than made by the library's own function, so that a change to it
// shows.
std::string refusal(compression_format format, const std::string& path) {
  if (format == compression_format::zstd)
    return "cannot write " + fastout_test::quoted(path) +
           " compressed with zstd: this fastout was built without libzstd (install it, e.g. "
           "Debian's libzstd-dev, and rebuild fastout)";
  return "cannot write " + fastout_test::quoted(path) +
         " compressed with gzip: this fastout was built without libdeflate (install it, e.g. "
         "Debian's libdeflate-dev, and rebuild fastout)";
}

// std::system_error's what(): the message, then the errno's text.
void expect_refusal(const std::system_error& e, compression_format format,
                    const std::string& path) {
  EXPECT_EQ(e.code().value(), ENOTSUP);
  EXPECT_EQ(std::string(e.what()), refusal(format, path) + ": " + e.code().message());
}

#if !defined(FASTOUT_TEST_WITHOUT_CODECS)

TEST(compression, missing_codec_is_refused_with_enotsup_naming_the_library) {
  int fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  fastout_test::fd_output_sink sink(fd);
  for (compression_format format : {compression_format::zstd, compression_format::gzip}) {
    fastout::detail::compression_settings settings;
    settings.format = format;
    settings.level = format == compression_format::zstd ? 3 : 6;
    settings.buffer_size = 4096;
    settings.name = "out.data";
    EXPECT_FALSE(fastout::compression_available(format));
    try {
      fastout::detail::compressed_output out(settings, sink);
      ADD_FAILURE() << "a missing codec was taken";
    } catch (const std::system_error& e) {
      expect_refusal(e, format, "out.data");
    }
  }
  ::close(fd);
}

#else

using fastout_test::temp_dir;

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// The default size: the machine's cores, at most the limit.
unsigned default_pool_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1u : std::min(cores, fastout::most_compression_pool_threads);
}

TEST(compression_unavailable, no_format_but_none_is_available) {
  EXPECT_TRUE(fastout::compression_available(compression_format::none));
  EXPECT_FALSE(fastout::compression_available(compression_format::zstd));
  EXPECT_FALSE(fastout::compression_available(compression_format::gzip));
  EXPECT_EQ(fastout_compression_available(FASTOUT_COMPRESSION_NONE), 1);
  EXPECT_EQ(fastout_compression_available(FASTOUT_COMPRESSION_BY_EXTENSION), 1);
  EXPECT_EQ(fastout_compression_available(FASTOUT_COMPRESSION_ZSTD), 0);
  EXPECT_EQ(fastout_compression_available(FASTOUT_COMPRESSION_GZIP), 0);
}

// Refused before the file is opened, as the engine refuses: no file is
// made or truncated.
TEST(compression_unavailable, a_format_is_refused_at_open_and_leaves_no_file) {
  temp_dir dir;
  struct request {
    fastout::compression_options options;
    const char* name;
    compression_format format;
  };
  const request requests[] = {
      {fastout::zstd{3}, "out.data", compression_format::zstd},
      {fastout::gzip{6}, "out.data", compression_format::gzip},
      {fastout::by_extension{}, "out.zst", compression_format::zstd},
      {fastout::by_extension{}, "out.gz", compression_format::gzip},
      {fastout::by_extension{}, "out.bgz", compression_format::gzip},
  };
  for (const request& r : requests) {
    const std::string path = dir.file(r.name);
    SCOPED_TRACE(path);
    for (unsigned workers : {fastout::shared_compression_pool, 0u, 2u}) {
      fastout::file_options options;
      options.compression = r.options;
      options.compression.workers = workers;
      try {
        fastout::file f(path, options);
        ADD_FAILURE() << "a missing codec was taken";
      } catch (const std::system_error& e) {
        expect_refusal(e, r.format, path);
      }
      EXPECT_FALSE(exists(path));
    }
  }
}

TEST(compression_unavailable, by_extension_writes_other_names_plainly) {
  temp_dir dir;
  const std::string path = dir.file("out.txt");
  fastout::file f = fastout::output_file(path, fastout::compression = fastout::by_extension{});
  EXPECT_EQ(fastout::detail::writer_of(f).compression().format, compression_format::none);
  f.write("plain\n", 6);
  f.close();
  EXPECT_EQ(fastout_test::read_file(path), "plain\n");
}

TEST(compression_unavailable, an_adopted_descriptor_is_refused_and_closed) {
  temp_dir dir;
  const std::string path = dir.file("adopted.zst");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  fastout::file_options options;
  options.compression = fastout::zstd{};
  try {
    fastout::file::adopt(fd, options, path);
    ADD_FAILURE() << "a missing codec was taken";
  } catch (const std::system_error& e) {
    expect_refusal(e, compression_format::zstd, path);
  }
  errno = 0;
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1);
  EXPECT_EQ(errno, EBADF);
}

TEST(compression_unavailable, the_c_api_refuses_with_enotsup) {
  temp_dir dir;
  for (int compression : {FASTOUT_COMPRESSION_ZSTD, FASTOUT_COMPRESSION_GZIP}) {
    const std::string path = dir.file("c.out");
    fastout_options options;
    fastout_options_init(&options);
    options.compression = compression;
    errno = 0;
    EXPECT_EQ(fastout_open(path.c_str(), &options), nullptr);
    EXPECT_EQ(errno, ENOTSUP);
    EXPECT_FALSE(exists(path));
  }
}

// The pool's size keeps its contract, though no writer uses it.
TEST(compression_unavailable, the_pool_size_is_set_and_checked) {
  fastout::set_compression_pool_threads(3);
  EXPECT_EQ(fastout::compression_pool_threads(), 3u);
  try {
    fastout::set_compression_pool_threads(fastout::most_compression_pool_threads + 1);
    ADD_FAILURE() << "1025 threads were accepted";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
    EXPECT_EQ(std::string(e.what()),
              "cannot give the compression pool 1025 threads: at most 1024: " + e.code().message());
  }
  EXPECT_EQ(fastout::compression_pool_threads(), 3u);
  EXPECT_EQ(fastout_set_compression_pool_threads(1025), -EINVAL);
  EXPECT_EQ(fastout_compression_pool_threads(), 3u);
  EXPECT_EQ(fastout_set_compression_pool_threads(fastout::most_compression_pool_threads), 0);
  EXPECT_EQ(fastout_compression_pool_threads(), fastout::most_compression_pool_threads);
  fastout::set_compression_pool_threads(0);
  if (std::getenv("FASTOUT_COMPRESSION_THREADS") == nullptr) {
    EXPECT_EQ(fastout::compression_pool_threads(), default_pool_threads());
  }
}

// Run by ctest's compression_pool_environment_* entries of this build
// (test/CMakeLists.txt), as compression_pool_test's are where there is a
// codec: FASTOUT_COMPRESSION_THREADS set, FASTOUT_TEST_POOL_EXPECT saying
// "invalid" or the size. The variable is read as there, and sizes the pool
// the same; but no writer uses the pool, so a value that is not a number
// of threads refuses nothing: a writer that asks for a format is refused
// for the missing codec, with ENOTSUP, whatever the variable says.
TEST(compression_pool_environment, is_read_though_no_writer_compresses) {
  const char* value = std::getenv("FASTOUT_COMPRESSION_THREADS");
  const char* expect = std::getenv("FASTOUT_TEST_POOL_EXPECT");
  if (value == nullptr || expect == nullptr)
    GTEST_SKIP() << "run by ctest's compression_pool_environment_* entries, which set "
                    "FASTOUT_COMPRESSION_THREADS and FASTOUT_TEST_POOL_EXPECT";
  if (std::string(expect) == "invalid") {
    EXPECT_EQ(fastout::compression_pool_threads(), default_pool_threads());
  } else {
    EXPECT_EQ(fastout::compression_pool_threads(),
              static_cast<unsigned>(std::strtoul(expect, nullptr, 10)));
  }
  temp_dir dir;
  const std::string path = dir.file("out.zst");
  try {
    fastout::file f = fastout::output_file(path, fastout::compression = fastout::zstd{3});
    ADD_FAILURE() << "a missing codec was taken";
  } catch (const std::system_error& e) {
    expect_refusal(e, compression_format::zstd, path);
  }
}

#endif

}  // namespace
