// SPDX-License-Identifier: MIT
// zstd through libzstd: standard frames with the content checksum, which
// `zstd -d` reads. Two kinds: one frame for the whole stream (until a
// flush()), compressed on the caller's thread (workers = 0), and a frame per
// buffer for workers, each of which can be compressed apart. Built only where libzstd was found
// (cmake/fastout-compression.cmake).
// ZSTD_customMem and ZSTD_createCCtx_advanced are in libzstd's "static"
// section, which its shared library exports too (stable since 1.4.0).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include <cerrno>
#include <new>
#include <string>

#include "stages/codec_loading_internal.h"
#include "stages/compression_internal.h"

#if ZSTD_VERSION_NUMBER < 10400
#  error "fastout needs libzstd 1.4.0 or later (ZSTD_compressStream2)"
#endif

namespace fastout::detail {
namespace {

// The libzstd functions the encoder calls: linked, or looked up in the
// library loaded at the first compressed open (FASTOUT_LOAD_CODECS,
// codec_loading_internal.h).
// clang-format off
#define FASTOUT_ZSTD_FUNCTIONS(X) \
  X(CCtx_setParameter) X(CStreamOutSize) X(compressBound) X(createCCtx_advanced) \
  X(freeCCtx) X(getErrorCode) X(getErrorName) X(isError) \
  X(maxCLevel) X(minCLevel) X(compress2) X(compressStream2)
// clang-format on
struct zstd_functions {
#define FASTOUT_ZSTD_POINTER(name) decltype(&ZSTD_##name) name;
  FASTOUT_ZSTD_FUNCTIONS(FASTOUT_ZSTD_POINTER)
#undef FASTOUT_ZSTD_POINTER
};

#ifdef FASTOUT_LOAD_CODECS
zstd_functions zstd;  // filled once by zstd_library_ready()
#else
#  define FASTOUT_ZSTD_LINKED(name) ZSTD_##name,
const zstd_functions zstd = {FASTOUT_ZSTD_FUNCTIONS(FASTOUT_ZSTD_LINKED)};
#  undef FASTOUT_ZSTD_LINKED
#endif

void* zstd_allocate(void*, std::size_t size) { return compression_system.allocate(size); }
void zstd_release(void*, void* data) { compression_system.release(data); }

// libzstd's errors as errnos: only running out of memory is expected.
int error_number(std::size_t code) {
  return zstd.getErrorCode(code) == ZSTD_error_memory_allocation ? ENOMEM : EIO;
}

class zstd_encoder final : public encoder {
 public:
  explicit zstd_encoder(bool one_frame) noexcept : one_frame_(one_frame) {}
  ~zstd_encoder() override { zstd.freeCCtx(context_); }

  int setup(int level) noexcept {
    context_ = zstd.createCCtx_advanced(ZSTD_customMem{zstd_allocate, zstd_release, nullptr});
    if (context_ == nullptr) return ENOMEM;
    for (auto [parameter, value] :
         {std::pair{ZSTD_c_compressionLevel, level}, std::pair{ZSTD_c_checksumFlag, 1}}) {
      std::size_t result = zstd.CCtx_setParameter(context_, parameter, value);
      if (zstd.isError(result)) return note(result);
    }
    return 0;
  }

  int compress(const char* data, std::size_t size, byte_buffer& out) noexcept override {
    if (one_frame_) {
      frame_open_ = frame_open_ || size > 0;
      return stream(data, size, ZSTD_e_continue, out);
    }
    // A frame of its own, in one call: the frame header then carries the
    // size, and libzstd sizes its tables to the buffer (faster than a
    // stream on the same buffer: docs/compression.md).
    std::size_t bound = zstd.compressBound(size);
    if (!out.reserve_more(bound)) return no_memory();
    std::size_t result = zstd.compress2(context_, out.end(), out.room(), data, size);
    if (zstd.isError(result)) return note(result);
    out.grow(result);
    return 0;
  }

  // Ends the frame, as a buffer's own frame ends with workers: after a
  // flush() the file is a whole zstd file that `zstd -t` passes, whatever
  // the number of workers. The next buffer starts a frame.
  int flush(byte_buffer& out) noexcept override {
    if (!one_frame_ || !frame_open_) return 0;
    frame_open_ = false;
    return stream(nullptr, 0, ZSTD_e_end, out);
  }

  int end(byte_buffer& out, bool anything_compressed) noexcept override {
    // An empty file is not a zstd file: no output at all is one empty frame.
    if (frame_open_ || !anything_compressed) {
      frame_open_ = false;
      return one_frame_ ? stream(nullptr, 0, ZSTD_e_end, out) : compress(nullptr, 0, out);
    }
    return 0;
  }

  bool independent_units() const noexcept override { return !one_frame_; }
  const char* what_failed() const noexcept override { return what_failed_; }

 private:
  int stream(const char* data, std::size_t size, ZSTD_EndDirective mode, byte_buffer& out) {
    ZSTD_inBuffer input = {data, size, 0};
    for (;;) {
      if (!out.reserve_more(zstd.CStreamOutSize())) return no_memory();
      ZSTD_outBuffer output = {out.end(), out.room(), 0};
      std::size_t remaining = zstd.compressStream2(context_, &output, &input, mode);
      if (zstd.isError(remaining)) return note(remaining);
      out.grow(output.pos);
      // A flush or an end is done when nothing remains in libzstd; input
      // is done when it is all taken (libzstd keeps what it needs).
      if (mode == ZSTD_e_continue ? input.pos == input.size : remaining == 0) return 0;
    }
  }

  int note(std::size_t code) noexcept {
    what_failed_ = zstd.getErrorName(code);
    return error_number(code);
  }
  int no_memory() noexcept {
    what_failed_ = "no memory for the compressed data";
    return ENOMEM;
  }

  bool one_frame_;
  bool frame_open_ = false;  // one_frame_: data went into a frame not yet ended
  ZSTD_CCtx* context_ = nullptr;
  const char* what_failed_ = "";
};

std::unique_ptr<encoder> make(bool one_frame, int level, int& error) noexcept {
  std::unique_ptr<zstd_encoder> made(new (std::nothrow) zstd_encoder(one_frame));
  if (made == nullptr) {
    error = ENOMEM;
    return nullptr;
  }
  error = made->setup(level);
  if (error != 0) return nullptr;
  return made;
}

}  // namespace

bool zstd_library_ready(std::string& problem) {
#ifdef FASTOUT_LOAD_CODECS
  // Linux and the BSDs, then macOS.
  static const char* const files[] = {"libzstd.so.1", "libzstd.1.dylib"};
#  define FASTOUT_ZSTD_NAME(name) "ZSTD_" #  name,
  static const char* const names[] = {FASTOUT_ZSTD_FUNCTIONS(FASTOUT_ZSTD_NAME)};
#  undef FASTOUT_ZSTD_NAME
  static codec_library library(files, 2, "FASTOUT_ZSTD_LIBRARY", names,
                               reinterpret_cast<void**>(&zstd), sizeof zstd / sizeof(void*));
  return library.ready(problem);
#else
  (void)problem;
  return true;
#endif
}

std::unique_ptr<encoder> make_zstd_stream_encoder(int level, int& error) noexcept {
  return make(true, level, error);
}

std::unique_ptr<encoder> make_zstd_frame_encoder(int level, int& error) noexcept {
  return make(false, level, error);
}

void zstd_level_range(int& lowest, int& highest) noexcept {
  lowest = zstd.minCLevel();
  highest = zstd.maxCLevel();
}

}  // namespace fastout::detail
