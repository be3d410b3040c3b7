// SPDX-License-Identifier: MIT
// Compressed output in a build with neither codec (FASTOUT_ZSTD and
// FASTOUT_LIBDEFLATE OFF, or AUTO with neither library installed): in
// place of the engine (compression_pipeline.cpp, compression_pool.cpp,
// compression_stage.cpp and, in libfastout-c, the codec loader), which
// could only refuse there and which every program that opens a file would
// link, since its options choose compression at run time. What the rest
// of the library calls, answering as the engine answers without a codec:
// a writer that asks for a format is refused at open with ENOTSUP and the
// same message, and compression_available() says no. The pool's size
// (compression_pool_size.cpp) is every build's.
#include <fastout/compression.h>

#include <cerrno>
#include <system_error>

#include "platform/platform_internal.h"
#include "stages/compression_stage_internal.h"

namespace fastout {

bool compression_available(compression_format format) noexcept {
  return format == compression_format::none;
}

namespace detail {

std::unique_ptr<stage> compression_stage::make(const file_options& options, const std::string& path,
                                               char*&, std::size_t&) {
  const compression_options chosen = resolve_compression(options.compression, path);
  if (chosen.format == compression_format::none) return nullptr;
  throw std::system_error(ENOTSUP, error_category(), compiled_out_message(chosen.format, path));
}

}  // namespace detail
}  // namespace fastout
