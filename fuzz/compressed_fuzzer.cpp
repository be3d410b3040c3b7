// SPDX-License-Identifier: MIT
// Fuzz target: compressed output (include/fastout/compression.h,
// docs/compression.md), decoded by libzstd and zlib and compared.
//
// Text goes through a zstd or gzip (BGZF) writer with a buffer of any size
// from one byte up and 0 to 3 worker threads, in writes of every size,
// prints and lines, with flushes between; after each flush the file must
// decode, whole frames or members only, to everything written so far
// (docs/compression.md: flush() makes it decodable up to there), and after
// close to all of it, with every checksum right. zstd's output is decoded
// by ZSTD_decompressStream() frame after frame, gzip's by zlib's inflate()
// member after member: a decoder other than the libdeflate that writes it.
//
// The input (fuzz_input.h reads it; past its end every byte is 0):
//
//   SETTINGS OPERATIONS
//
//   SETTINGS    5 bytes: [0] bit 0 gzip (else zstd); [1] the level, from a
//               table per format (zstd 1, -1, 3, -5, 2, 6, 9, 19 at the
//               smallest buffers only; gzip 1, 0, 6, 9, 12, 2, 4, 8); [2]
//               workers, mod 4; [3] the buffer size, from a table (1, 2, 7,
//               64, 100, 1000, 4095, 65536, 65537, 131072, 262144, 1 MiB,
//               ...); [4] bit 0 line buffering
//   OPERATIONS  one byte each, mod 5, then its operands:
//     0 write   2 bytes: a length; that many bytes of the input, then of
//               text that repeats with changes (compressible, not trivially)
//     1 flush   then the file is decoded and compared
//     2 print   1 byte: print("{} {:x}\n", n, n) of it
//     3 bytes   2 bytes: a length; bytes that do not compress
//     4 put     1 byte, put() once
#include <fastout/fastout.h>

#include <zlib.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "fuzz_input.h"
#include "scratch_file.h"

namespace fastout_fuzz {
namespace {

// At most this much text, and 32 buffers' worth: a buffer is a frame (or
// a member), and a million one-byte frames would take the time of a
// thousand inputs.
constexpr std::size_t most_text = std::size_t{1} << 20;

// What a decoder made of the file, or why it could not.
struct decoded {
  std::string text;
  std::string error;
};

decoded decode_zstd(const std::string& file) {
  decoded out;
  ZSTD_DStream* stream = ZSTD_createDStream();
  ZSTD_initDStream(stream);
  ZSTD_inBuffer in = {file.data(), file.size(), 0};
  char chunk[1 << 16];
  std::size_t pending = 0;  // 0: between frames
  while (in.pos < in.size) {
    ZSTD_outBuffer o = {chunk, sizeof chunk, 0};
    pending = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(pending)) {
      out.error =
          std::string("zstd: ") + ZSTD_getErrorName(pending) + " at byte " + std::to_string(in.pos);
      break;
    }
    out.text.append(chunk, o.pos);
    if (out.text.size() > 4 * most_text) {
      out.error = "zstd: more text than was written";
      break;
    }
  }
  // Flush what the decoder holds of the last frame.
  for (int i = 0; out.error.empty() && pending != 0 && i < 1000; ++i) {
    ZSTD_outBuffer o = {chunk, sizeof chunk, 0};
    pending = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(pending)) {
      out.error = std::string("zstd: ") + ZSTD_getErrorName(pending);
      break;
    }
    out.text.append(chunk, o.pos);
    if (o.pos == 0) break;
  }
  if (out.error.empty() && pending != 0) out.error = "zstd: the last frame is cut short";
  ZSTD_freeDStream(stream);
  return out;
}

decoded decode_gzip(const std::string& file) {
  decoded out;
  z_stream z;
  std::memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 16) != Z_OK) {
    out.error = "zlib: inflateInit2 failed";
    return out;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(file.data()));
  z.avail_in = static_cast<uInt>(file.size());
  char chunk[1 << 16];
  bool in_member = false;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    if (z.avail_in > 0) in_member = true;
    const int result = inflate(&z, Z_NO_FLUSH);
    out.text.append(chunk, sizeof chunk - z.avail_out);
    if (result == Z_STREAM_END) {
      in_member = false;
      if (z.avail_in == 0) break;
      inflateReset(&z);  // the next member
      continue;
    }
    if (result == Z_BUF_ERROR && z.avail_in == 0) break;  // no more input
    if (result != Z_OK) {
      out.error = std::string("zlib: ") + (z.msg != nullptr ? z.msg : "error") + " (" +
                  std::to_string(result) + ") at byte " + std::to_string(z.total_in);
      break;
    }
    if (out.text.size() > 4 * most_text) {
      out.error = "zlib: more text than was written";
      break;
    }
    if (z.avail_in == 0 && z.avail_out != 0) break;
  }
  if (out.error.empty() && in_member) out.error = "zlib: the last member is cut short";
  inflateEnd(&z);
  return out;
}

struct run_state {
  bool gzip = false;
  std::string accepted;
  std::string log;
};

[[noreturn]] void wrong(const run_state& r, const std::string& what) {
  fail("compressed output: " + what + "\n  operations:" + r.log);
}

void check_decodes(const run_state& r, const std::string& file, const char* when) {
  if (file.empty() && r.accepted.empty()) return;
  const decoded d = r.gzip ? decode_gzip(file) : decode_zstd(file);
  if (!d.error.empty())
    wrong(r, std::string(when) + ", the file (" + std::to_string(file.size()) +
                 " bytes) does not decode: " + d.error);
  if (d.text != r.accepted) {
    std::size_t at = 0;
    while (at < d.text.size() && at < r.accepted.size() && d.text[at] == r.accepted[at]) ++at;
    wrong(r, std::string(when) + ", the file decodes to " + std::to_string(d.text.size()) +
                 " bytes, not the " + std::to_string(r.accepted.size()) +
                 " written; they differ at byte " + std::to_string(at));
  }
}

char text_byte(std::size_t i) {
  static const char words[] = "the quick brown fox jumps over the lazy dog 0123456789\n";
  return i % 97 == 0 ? static_cast<char>('A' + i % 26) : words[i % (sizeof words - 1)];
}

}  // namespace
}  // namespace fastout_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastout_fuzz;
  static const int zstd_levels[] = {1, -1, 3, -5, 2, 6, 9, 19};
  static const int gzip_levels[] = {1, 0, 6, 9, 12, 2, 4, 8};
  static const std::size_t buffers[] = {1,      2,      7,       64,    100,   1000,
                                        4095,   4096,   65535,   65536, 65537, 131072,
                                        262144, 300000, 1 << 20, 10,    513,   3000};
  static scratch_file file;
  input in(data, size);
  run_state r;
  const std::uint8_t format = in.byte();
  r.gzip = (format & 1) != 0;
  const fastout::compression_format wanted =
      r.gzip ? fastout::compression_format::gzip : fastout::compression_format::zstd;
  if (!fastout::compression_available(wanted)) return 0;
  const std::uint8_t level_choice = in.byte() % 8;
  const unsigned workers = in.byte() % 4u;
  const std::size_t buffer_size = buffers[in.byte() % (sizeof buffers / sizeof buffers[0])];
  const bool line = (in.byte() & 1) != 0;
  int level = r.gzip ? gzip_levels[level_choice] : zstd_levels[level_choice];
  // zstd's 19 needs tens of MiB per context: only with small buffers.
  if (level == 19 && buffer_size > 4096) level = 3;

  fastout::file_options options;
  options.buffer_size = buffer_size;
  options.buffer_mode = line ? fastout::buffering::line : fastout::buffering::full;
  if (r.gzip)
    options.compression = fastout::gzip{level};
  else
    options.compression = fastout::zstd{level};
  options.compression.workers = workers;
  r.log = std::string(" open(") + (r.gzip ? "gzip" : "zstd") + " level " + std::to_string(level) +
          ", " + std::to_string(workers) + " workers, buffer size " + std::to_string(buffer_size) +
          (line ? ", line-buffered" : "") + ")";

  const std::size_t text_limit = buffer_size >= most_text / 32 ? most_text : 512 + 32 * buffer_size;
  auto room = [&](std::size_t length) {
    const std::size_t left = text_limit - r.accepted.size();
    return length < left ? length : left;
  };
  file.reset();
  try {
    fastout::file out = fastout::file::borrow(file.fd(), options);
    for (int ops = 0; !in.empty() && ops < 200 && r.accepted.size() < text_limit; ++ops) {
      switch (in.byte() % 5) {
        case 0: {
          const std::size_t length = room(static_cast<std::size_t>(in.bits(2)));
          std::string text(in.take(length));
          for (std::size_t i = text.size(); i < length; ++i)
            text += text_byte(i + r.accepted.size());
          out.write(text);
          r.accepted += text;
          r.log += " write(" + std::to_string(length) + ")";
          break;
        }
        case 1:
          out.flush();
          r.log += " flush";
          check_decodes(r, file.contents(), "after a flush");
          break;
        case 2: {
          const unsigned n = in.byte() * 2654435761u;
          out.print("{} {:x}\n", n, n);
          r.accepted += fmt::format("{} {:x}\n", n, n);
          r.log += " print";
          break;
        }
        case 3: {
          const std::size_t length = room(static_cast<std::size_t>(in.bits(2)));
          std::string bytes(length, '\0');
          std::uint64_t x = 0x9e3779b97f4a7c15ull ^ r.accepted.size();
          for (char& c : bytes) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c = static_cast<char>(x);
          }
          out.write(bytes);
          r.accepted += bytes;
          r.log += " bytes(" + std::to_string(length) + ")";
          break;
        }
        default: {
          const char c = static_cast<char>(in.byte());
          out.put(c);
          r.accepted += c;
          r.log += " put";
          break;
        }
      }
    }
    out.close();
    r.log += " close";
  } catch (const std::exception& e) {
    wrong(r, std::string("a call threw: ") + e.what());
  }
  check_decodes(r, file.contents(), "after close");
  return 0;
}
