// SPDX-License-Identifier: MIT
// fastout-bench: the check of a compressed output (W14, W15, W17_1k_gz).
// Each contender's file is decompressed with the libraries themselves
// (libzstd, zlib), as it is read, and the text compared with the reference
// byte for byte: "identical" in the table means the decompressed bytes are.
// W17's plain outputs are compared here too, with no reference file.
#ifndef FASTOUT_BENCH_DECOMPRESS_H_
#define FASTOUT_BENCH_DECOMPRESS_H_

#include <cstddef>
#include <string>

#include "bench.h"

namespace fastout_bench {

/// The text an output must hold, once decompressed if it is compressed,
/// read a piece at a time: the reference file, or text a workload makes
/// from its input (W17, whose outputs have no reference file).
class expected_text {
 public:
  virtual ~expected_text() = default;
  /// Copies the next bytes of the text into `data`, at most `size`;
  /// returns how many, and 0 only at the end.
  virtual std::size_t read(char* data, std::size_t size) = 0;
};

/// Whether the file at `path`, decompressed as `format` (zstd, gzip or
/// bgzf), is byte for byte the file at `reference_path`. Returns an empty
/// string if it is, otherwise what is wrong: where the text first differs,
/// that it is shorter or longer, that the stream is damaged or cut short,
/// or, for bgzf, that its first block has no BGZF field or that it does not
/// end with BGZF's end-of-file block. zstd frames follow one another, and
/// so do gzip members, as the zstd and gzip tools read them.
std::string check_decompressed(const std::string& reference_path, const std::string& path,
                               output_format format);

/// The same against `expected`; `plain` compares the file's own bytes.
std::string check_output(expected_text& expected, const std::string& path, output_format format);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_DECOMPRESS_H_
