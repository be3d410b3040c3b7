// SPDX-License-Identifier: MIT
// Compressed output: the options that make a writer write .zst or .gz.
//
//   auto out = fastout::output_file("log.zst",
//                                   fastout::compression = fastout::zstd{3},
//                                   fastout::compression_workers = 1);
//
// A writer that compresses hands each full buffer to worker threads, which
// compress while the caller goes on formatting into the next buffer; the
// results reach the file in order. zstd output is standard zstd frames with
// the content checksum on (`zstd -d` reads it); gzip output is BGZF, gzip
// members of at most 64 KiB of input (`gzip -d`, `zcat`, htslib and
// `bgzip` read it). docs/compression.md says what each option costs.
//
// This header only describes the options; it depends on nothing but the C++
// standard library, and compiles whether or not this build of fastout has
// libzstd and libdeflate (compression_available() says which it has).
//
// file_options::compression holds them; output_file() and fastout::ofstream
// take the keys below. The engine is in src/stages/compression_internal.h.
#ifndef FASTOUT_COMPRESSION_H_
#define FASTOUT_COMPRESSION_H_

#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#  include <string_view>
#  include <type_traits>

#  include <fastout/config.h>

namespace fastout {

/// The formats a writer can compress into.
enum class compression_format {
  none,  ///< plain output
  zstd,  ///< zstd frames with the content checksum (.zst): needs libzstd
  gzip,  ///< BGZF, a gzip file of independent members (.gz): needs libdeflate
};

/// zstd at a level: 1 (fast) to 19 (small), up to 22 with much more
/// memory; negative levels trade ratio for more speed. zstd's own default
/// is 3.
struct zstd {
  int level = 3;
};

/// gzip (written as BGZF) at a level: 1 (fast) to 9 (small) as gzip's, or
/// 10 to 12 for libdeflate's slower, smaller ones; 0 stores without
/// compressing. gzip's own default is 6.
struct gzip {
  int level = 6;
};

/// The format named by the path's extension, for programs that take an
/// output name from their user: ".zst" is zstd, ".gz" and ".bgz" are gzip,
/// anything else is plain output. The levels are those used when the
/// extension picks a format.
struct by_extension {
  int zstd_level = zstd{}.level;
  int gzip_level = gzip{}.level;
};

/// compression_options::workers for a writer whose buffers are compressed
/// by the process's shared pool of worker threads, which every such writer
/// uses: a program with a thousand compressed outputs has the pool's
/// threads, not a thousand (docs/compression.md, "One pool of workers").
/// Any other value gives the writer workers of its own: n threads, or none
/// (0: compressed on the caller's thread).
inline constexpr unsigned shared_compression_pool = ~0u;

/// Worker threads a compressing writer uses when none is asked for: the
/// shared pool's.
inline constexpr unsigned default_compression_workers = shared_compression_pool;

/// The most threads the shared pool may be given.
inline constexpr unsigned most_compression_pool_threads = 1024;

/// Sets how many threads the shared pool runs at most, before or after
/// writers exist: 0 goes back to the default (FASTOUT_COMPRESSION_THREADS
/// from the environment if set, else as many as the machine has cores).
/// More threads start as soon as there is work for them; with fewer, the
/// threads beyond the new figure stop once they finish their job. Throws
/// std::system_error (EINVAL) above most_compression_pool_threads.
FASTOUT_API void set_compression_pool_threads(unsigned threads);

/// The shared pool's size now: the program's choice, else the environment's,
/// else the machine's cores. Its threads start only when a writer hands it a
/// buffer, and stop when no writer that uses it is open.
FASTOUT_API unsigned compression_pool_threads() noexcept;

namespace detail {
struct compression_choice_param;

// What may be assigned to a compression_options keeping its workers.
template <typename T>
using is_compression_choice =
    std::integral_constant<bool, std::is_same<T, zstd>::value || std::is_same<T, gzip>::value ||
                                     std::is_same<T, by_extension>::value ||
                                     std::is_same<T, compression_choice_param>::value>;
}  // namespace detail

/// How a writer compresses: one of zstd, gzip or by_extension (or none),
/// and how many threads do it.
struct compression_options {
  compression_format format = compression_format::none;
  /// The level, in the format's own terms (zstd{}, gzip{}).
  int level = 0;
  /// Who compresses while the caller formats: shared_compression_pool (the
  /// default) hands the writer's buffers to the process's shared pool; n
  /// gives the writer n threads of its own; 0 compresses on the caller's
  /// thread, in the call that fills a buffer (for one-core machines, or to
  /// keep a process single-threaded).
  unsigned workers = default_compression_workers;
  /// Choose `format` from the path when the writer opens (by_extension).
  bool from_extension = false;
  int zstd_level = zstd{}.level;  ///< the level when the extension picks zstd
  int gzip_level = gzip{}.level;  ///< the level when the extension picks gzip

  constexpr compression_options() noexcept = default;
  constexpr compression_options(zstd z) noexcept  // NOLINT: implicit, for `compression = zstd{}`
      : format(compression_format::zstd), level(z.level) {}
  constexpr compression_options(gzip g) noexcept  // NOLINT: implicit, as above
      : format(compression_format::gzip), level(g.level) {}
  constexpr compression_options(by_extension e) noexcept  // NOLINT: implicit, as above
      : from_extension(true), zstd_level(e.zstd_level), gzip_level(e.gzip_level) {}

  /// `options.compression = zstd{5}` (or gzip{...}, by_extension{...})
  /// chooses the format and level and keeps `workers`, so that it may come
  /// before or after `options.compression.workers = n`, as
  /// compression_workers = n may in output_file(). Assigning a whole
  /// compression_options (`= {}` included) replaces everything, workers too.
  template <typename Format,
            typename = std::enable_if_t<detail::is_compression_choice<Format>::value> >
  constexpr compression_options& operator=(const Format& choice) noexcept {
    const unsigned kept = workers;
    *this = compression_options(choice);
    workers = kept;
    return *this;
  }
};

/// The format a path's extension names: ".zst" is zstd, ".gz" and ".bgz"
/// are gzip (exactly so, in lower case, as the zstd and gzip tools name
/// their output); anything else is none.
constexpr compression_format format_for_path(std::string_view path) noexcept {
  auto ends_with = [path](std::string_view suffix) {
    return path.size() > suffix.size() && path.substr(path.size() - suffix.size()) == suffix &&
           path[path.size() - suffix.size() - 1] != '/';
  };
  if (ends_with(".zst")) return compression_format::zstd;
  if (ends_with(".gz") || ends_with(".bgz")) return compression_format::gzip;
  return compression_format::none;
}

/// `options` with the format and level settled for `path`: by_extension
/// becomes zstd, gzip or none; the others are returned as they are.
constexpr compression_options resolve_compression(compression_options options,
                                                  std::string_view path) noexcept {
  if (!options.from_extension) return options;
  options.from_extension = false;
  options.format = format_for_path(path);
  options.level = options.format == compression_format::zstd   ? options.zstd_level
                  : options.format == compression_format::gzip ? options.gzip_level
                                                               : 0;
  return options;
}

/// Whether this build of fastout can write `format`: zstd needs libzstd
/// and gzip needs libdeflate when fastout is built; a format compiled out
/// is refused when a writer asks for it, with ENOTSUP and the missing
/// library's name.
FASTOUT_API bool compression_available(compression_format format) noexcept;

/// "zstd", "gzip" or "none".
constexpr const char* format_name(compression_format format) noexcept {
  switch (format) {
    case compression_format::zstd: return "zstd";
    case compression_format::gzip: return "gzip";
    case compression_format::none: break;
  }
  return "none";
}

namespace detail {
// `compression = zstd{...}` (gzip, by_extension) as a parameter: a format
// and level, applied as `options.compression = zstd{...}` is, keeping the
// workers that parameters before it set (a stream_options' say). A whole
// compression_options given as `compression = options` replaces them.
struct compression_choice_param {
  compression_options value;  // its workers are never used
  // For code that keeps the key's result: (compression = zstd{3}) was a
  // compression_options.
  constexpr operator compression_options() const noexcept { return value; }  // NOLINT: implicit
};
struct compression_key {
  constexpr compression_options operator=(compression_options options) const noexcept {
    return options;
  }
  template <typename Format, typename = std::enable_if_t<is_compression_choice<Format>::value> >
  constexpr compression_choice_param operator=(const Format& choice) const noexcept {
    return {compression_options(choice)};
  }
};
struct compression_workers_param {
  unsigned value;
};
struct compression_workers_key {
  constexpr compression_workers_param operator=(unsigned n) const noexcept { return {n}; }
};
}  // namespace detail

/// `fastout::compression = fastout::zstd{3}` (or gzip{6}, by_extension{}),
/// {fmt} style, as a parameter of output_file() and fastout::ofstream: the
/// format and level, as `options.compression = zstd{3}` sets them, keeping
/// the workers. A whole compression_options may be given too
/// (`compression = options`): its workers are used unless
/// compression_workers is given, in any order.
inline constexpr detail::compression_key compression{};
/// `fastout::compression_workers = n`: compression_options::workers,
/// whatever the order of the parameters.
inline constexpr detail::compression_workers_key compression_workers{};

}  // namespace fastout

#endif  // __cplusplus >= 201703L
#endif  // FASTOUT_COMPRESSION_H_
