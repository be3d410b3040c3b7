// SPDX-License-Identifier: MIT
// The engine built without libzstd and libdeflate (FASTOUT_ZSTD=OFF,
// FASTOUT_LIBDEFLATE=OFF, or neither installed): this test compiles its own
// copy of src/stages/compression_pipeline.cpp with neither codec, so every build
// checks that asking for a missing codec fails at once, with ENOTSUP and the
// library's name.
#include <fastout/compression.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "stages/compression_internal.h"
#include "compression_test_sink.h"
#include "test_util.h"

namespace {

using fastout::compression_format;

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
      EXPECT_EQ(e.code().value(), ENOTSUP);
      const char* library = format == compression_format::zstd ? "libzstd" : "libdeflate";
      EXPECT_TRUE(fastout_test::contains(e.what(), library)) << e.what();
      EXPECT_TRUE(fastout_test::contains(e.what(), "\"out.data\"")) << e.what();
    }
  }
  ::close(fd);
}

}  // namespace
