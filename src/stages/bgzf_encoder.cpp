// SPDX-License-Identifier: MIT
// gzip as BGZF through libdeflate: each block is a gzip member of at most
// 0xff00 input bytes with the BGZF extra field (BC, the block's size), and
// the stream ends with BGZF's 28-byte end-of-file marker. gzip, zcat and
// htslib read it, and htslib can index it. Blocks are independent, so any
// thread compresses any buffer. Built only where libdeflate was found
// (cmake/fastout-compression.cmake).
#include <libdeflate.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include "stages/codec_loading_internal.h"
#include "stages/compression_internal.h"

namespace fastout::detail {
namespace {

// The libdeflate functions the encoder calls: linked, or looked up in the
// library loaded at the first compressed open (FASTOUT_LOAD_CODECS,
// codec_loading_internal.h).
// clang-format off
#define FASTOUT_DEFLATE_FUNCTIONS(X) \
  X(alloc_compressor) X(deflate_compress_bound) X(deflate_compress) X(free_compressor) \
  X(crc32)
// clang-format on
struct deflate_functions {
#define FASTOUT_DEFLATE_POINTER(name) decltype(&libdeflate_##name) name;
  FASTOUT_DEFLATE_FUNCTIONS(FASTOUT_DEFLATE_POINTER)
#undef FASTOUT_DEFLATE_POINTER
};

#ifdef FASTOUT_LOAD_CODECS
deflate_functions deflate;  // filled once by bgzf_library_ready()
#else
#  define FASTOUT_DEFLATE_LINKED(name) libdeflate_##name,
const deflate_functions deflate = {FASTOUT_DEFLATE_FUNCTIONS(FASTOUT_DEFLATE_LINKED)};
#  undef FASTOUT_DEFLATE_LINKED
#endif

// A gzip member header with FEXTRA: the BGZF subfield 'B' 'C' of 2 bytes
// holds the block's size less one (bytes 16 and 17, filled per block).
// MTIME 0 and OS 255 (unknown), as htslib writes.
constexpr unsigned char block_header[18] = {0x1f, 0x8b, 8, 4,   0,   0, 0, 0, 0,
                                            0xff, 6,    0, 'B', 'C', 2, 0, 0, 0};
constexpr std::size_t header_size = sizeof block_header;
constexpr std::size_t trailer_size = 8;       // CRC32 and ISIZE
constexpr std::size_t largest_block = 65536;  // BSIZE is 16 bits
// An empty block: what readers take for a proper end of the file.
constexpr unsigned char eof_marker[28] = {0x1f, 0x8b, 8,    4, 0, 0, 0, 0, 0, 0xff, 6, 0, 'B', 'C',
                                          2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0,    0, 0, 0,   0};

void put_le32(unsigned char* at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(value >> (8 * i));
}

class bgzf_encoder final : public encoder {
 public:
  ~bgzf_encoder() override {
    if (compressor_ != nullptr) deflate.free_compressor(compressor_);
  }

  int setup(int level) noexcept {
    compressor_ = deflate.alloc_compressor(level);
    if (compressor_ == nullptr) {
      what_failed_ = "libdeflate could not allocate a compressor";
      return ENOMEM;
    }
    return 0;
  }

  int compress(const char* data, std::size_t size, byte_buffer& out) noexcept override {
    if (size == 0) return 0;
    // Blocks of equal size rather than full ones and a small rest: a
    // buffer of 256 KiB makes five blocks of 52 KiB, not four of 64 KiB and
    // one of 1 KiB that compresses poorly.
    std::size_t blocks = (size + bgzf_block_input - 1) / bgzf_block_input;
    std::size_t per_block = (size + blocks - 1) / blocks;
    // At most 0xff00 bytes a block, so the bound is within BGZF's 64 KiB.
    std::size_t block_bound =
        deflate.deflate_compress_bound(compressor_, per_block) + header_size + trailer_size;
    if (block_bound > largest_block) block_bound = largest_block;
    if (!out.reserve_more(blocks * block_bound)) {
      what_failed_ = "no memory for the compressed data";
      return ENOMEM;
    }
    for (std::size_t done = 0; done < size; done += per_block) {
      std::size_t input = size - done < per_block ? size - done : per_block;
      auto* block = reinterpret_cast<unsigned char*>(out.end());
      std::memcpy(block, block_header, header_size);
      std::size_t deflated =
          deflate.deflate_compress(compressor_, data + done, input, block + header_size,
                                   block_bound - header_size - trailer_size);
      if (deflated == 0) {
        // Cannot happen for 0xff00 bytes (stored blocks fit): a broken
        // libdeflate, not bad input.
        what_failed_ = "libdeflate's output did not fit in a BGZF block";
        return EIO;
      }
      std::size_t total = header_size + deflated + trailer_size;
      block[16] = static_cast<unsigned char>((total - 1) & 0xff);
      block[17] = static_cast<unsigned char>((total - 1) >> 8);
      unsigned char* trailer = block + header_size + deflated;
      put_le32(trailer, deflate.crc32(0, data + done, input));
      put_le32(trailer + 4, static_cast<std::uint32_t>(input));
      out.grow(total);
    }
    return 0;
  }

  // Every block is whole once written.
  int flush(byte_buffer&) noexcept override { return 0; }

  int end(byte_buffer& out, bool) noexcept override {
    if (!out.reserve_more(sizeof eof_marker)) {
      what_failed_ = "no memory for the compressed data";
      return ENOMEM;
    }
    std::memcpy(out.end(), eof_marker, sizeof eof_marker);
    out.grow(sizeof eof_marker);
    return 0;
  }

  bool independent_units() const noexcept override { return true; }
  const char* what_failed() const noexcept override { return what_failed_; }

 private:
  libdeflate_compressor* compressor_ = nullptr;
  const char* what_failed_ = "";
};

}  // namespace

bool bgzf_library_ready(std::string& problem) {
#ifdef FASTOUT_LOAD_CODECS
  // Linux and the BSDs, then macOS.
  static const char* const files[] = {"libdeflate.so.0", "libdeflate.0.dylib"};
#  define FASTOUT_DEFLATE_NAME(name) "libdeflate_" #  name,
  static const char* const names[] = {FASTOUT_DEFLATE_FUNCTIONS(FASTOUT_DEFLATE_NAME)};
#  undef FASTOUT_DEFLATE_NAME
  static codec_library library(files, 2, "FASTOUT_LIBDEFLATE_LIBRARY", names,
                               reinterpret_cast<void**>(&deflate), sizeof deflate / sizeof(void*));
  return library.ready(problem);
#else
  (void)problem;
  return true;
#endif
}

std::unique_ptr<encoder> make_bgzf_encoder(int level, int& error) noexcept {
  std::unique_ptr<bgzf_encoder> made(new (std::nothrow) bgzf_encoder);
  if (made == nullptr) {
    error = ENOMEM;
    return nullptr;
  }
  error = made->setup(level);
  if (error != 0) return nullptr;
  return made;
}

void bgzf_level_range(int& lowest, int& highest) noexcept {
  lowest = 0;
  highest = 12;
}

}  // namespace fastout::detail
