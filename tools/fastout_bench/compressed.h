// SPDX-License-Identifier: MIT
// fastout-bench: the contenders of the compressed workloads (W14 `log`,
// W15 `table`), added by one call, add_compressed(), from a workload's row
// written three ways that give the same bytes:
//
//   format_row(char* pos, std::size_t i) -> char*
//       {fmt}'s compiled format into `pos`, at most `bound` bytes, returning
//       the end: the contenders whose API takes bytes (the hand-written
//       limits, format_only, htslib's bgzf_write(), and the reference);
//   printf_row(print, std::size_t i)
//       calls `print(format, args...)` with a printf format: gzprintf() for
//       gzwrite, fprintf() for the pipes, where that is the idiom;
//   fastout_row(fastout::file& out, std::size_t i)
//       out.print(FMT_COMPILE(...), ...): fastout's rows.
//
// The printf format must give exactly {fmt}'s bytes (say, fixed precision
// for a double): every output is checked after decompression against the
// reference, which the limit writes uncompressed with format_row.
//
// Every library is optional: a contender this build lacks is recorded as
// absent, with the reason, and its bars say ABSENT.
#ifndef FASTOUT_BENCH_COMPRESSED_H_
#define FASTOUT_BENCH_COMPRESSED_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <string>

// fastout before {fmt}: see sinks.h.
#include <fastout/compression.h>
#include <fastout/file.h>

#include <fmt/format.h>

#include "bench.h"
#include "compressed_sinks.h"
#include "contenders.h"

namespace fastout_bench {

/// Adds fastout's compressed rows for `format` (zstd or gzip):
/// fastout_<format>_w0, _w1 and _w2, a fastout_sink with the writer's
/// compression option at zstd_level or gzip_level and 0, 1 and 2 workers of
/// its own, and fastout_<format>_pool with the default, the process's
/// shared pool (issue 28: one writer alone on it), each with the writer's
/// default buffer, whose output is output_format::zstd or
/// output_format::bgzf. A format this build of fastout lacks is absent.
template <typename FastoutRow>
void add_fastout_compressed(contender_list& c, fastout::compression_format format,
                            FastoutRow fastout_row) {
  const char* name = fastout::format_name(format);
  const bool zstd = format == fastout::compression_format::zstd;
  for (unsigned workers : {0u, 1u, 2u, fastout::shared_compression_pool}) {
    std::string row = workers == fastout::shared_compression_pool
                          ? fmt::format("fastout_{}_pool", name)
                          : fmt::format("fastout_{}_w{}", name, workers);
    if (!fastout::compression_available(format)) {
      c.add_absent(
          row, fmt::format("this fastout was built without {}", zstd ? "libzstd" : "libdeflate"));
      continue;
    }
    sink_options options;
    options.fastout_compression = zstd ? fastout::compression_options(fastout::zstd{zstd_level})
                                       : fastout::compression_options(fastout::gzip{gzip_level});
    options.fastout_compression.workers = workers;
    c.add<fastout_sink>(row, fastout_row, options).output =
        zstd ? output_format::zstd : output_format::bgzf;
  }
}

/// Adds every compressed workload's contenders in this order: format_only
/// (the reference, writing nothing); the gzip ones, gzwrite, popen_gzip,
/// htslib_bgzf_w1, htslib_bgzf_w2, bgzf_limit, fastout_gzip_w0 to _w2;
/// then the zstd ones, popen_zstd, zstd_limit, fastout_zstd_w0 to _w2.
/// `bytes` is the size of the text, which format_only checks it formatted.
/// Returns what writes the reference output: the text, uncompressed,
/// through the hand-written limit with a 256 KiB buffer
/// (workload::write_reference).
template <std::size_t bound, typename FormatRow, typename PrintfRow, typename FastoutRow>
write_function add_compressed(contender_list& c, std::uint64_t bytes, FormatRow format_row,
                              PrintfRow printf_row, FastoutRow fastout_row) {
  static_assert(bound <= bgzf_block_input, "a row must fit the smallest chunk");
  auto available = [&c](const char* name, std::initializer_list<dependency> needs) {
    std::string why = missing_dependency(needs);
    if (!why.empty()) c.add_absent(name, why);
    return why.empty();
  };
  // The cursor's row for every contender that formats into its own chunk.
  auto chunk_row = [format_row](auto& out, std::size_t i) {
    out.append(bound, [&format_row, i](char* pos) { return format_row(pos, i); });
  };
  auto fprintf_row = [printf_row](std::FILE* f, std::size_t i) {
    printf_row([f](const char* format, auto... args) { std::fprintf(f, format, args...); }, i);
  };

  sink_options discard;
  discard.expected_bytes = bytes;
  c.add<discard_sink>("format_only", chunk_row, discard).output = output_format::none;

#if FASTOUT_BENCH_HAVE_ZLIB
  c.add<gzfile_sink>("gzwrite", [printf_row](gzFile f, std::size_t i) {
     printf_row([f](const char* format, auto... args) { gzprintf(f, format, args...); }, i);
   }).output = output_format::gzip;
#else
  available("gzwrite", {dependency::zlib});
#endif
  if (available("popen_gzip", {dependency::gzip_program, dependency::zlib})) {
    sink_options gzip;
    gzip.command = popen_gzip_command;
    c.add<popen_sink>("popen_gzip", fprintf_row, gzip).output = output_format::gzip;
  }
#if FASTOUT_BENCH_HAVE_HTSLIB && FASTOUT_BENCH_HAVE_ZLIB
  for (int threads : {1, 2}) {
    sink_options pool;
    pool.threads = threads;
    c.add<htslib_bgzf_sink>(
         fmt::format("htslib_bgzf_w{}", threads),
         [format_row](const htslib_bgzf_sink::writer& out, std::size_t i) {
           char line[bound];
           char* end = format_row(line, i);
           out.write(line, static_cast<std::size_t>(end - line));
         },
         pool)
        .output = output_format::bgzf;
  }
#else
  for (const char* name : {"htslib_bgzf_w1", "htslib_bgzf_w2"})
    available(name, {dependency::htslib, dependency::zlib});
#endif
#if FASTOUT_BENCH_HAVE_LIBDEFLATE && FASTOUT_BENCH_HAVE_ZLIB
  c.add<bgzf_limit_sink>("bgzf_limit", chunk_row).output = output_format::bgzf;
#else
  available("bgzf_limit", {dependency::libdeflate, dependency::zlib});
#endif
  add_fastout_compressed(c, fastout::compression_format::gzip, fastout_row);

  if (available("popen_zstd", {dependency::zstd_program, dependency::zstd})) {
    sink_options zstd;
    zstd.command = popen_zstd_command;
    c.add<popen_sink>("popen_zstd", fprintf_row, zstd).output = output_format::zstd;
  }
#if FASTOUT_BENCH_HAVE_ZSTD
  c.add<zstd_limit_sink>("zstd_limit", chunk_row).output = output_format::zstd;
#else
  available("zstd_limit", {dependency::zstd});
#endif
  add_fastout_compressed(c, fastout::compression_format::zstd, fastout_row);

  return c.writer<limit_sink>(chunk_row, buffer_256k);
}

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_COMPRESSED_H_
