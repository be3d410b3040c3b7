// SPDX-License-Identifier: MIT
// The codec libraries loaded when first needed (FASTOUT_LOAD_CODECS: the C
// library, libfastout-c, on Unix): a program that never opens a compressed
// writer neither links nor loads libzstd and libdeflate, and one that does
// loads them with dlopen() at its first compressed open, which fails with a
// message naming the library if it cannot be had. Without
// FASTOUT_LOAD_CODECS the codecs are linked as any library is, and the
// encoders call them directly. This header is internal: it is not installed.
#ifndef FASTOUT_SRC_STAGES_CODEC_LOADING_INTERNAL_H_
#define FASTOUT_SRC_STAGES_CODEC_LOADING_INTERNAL_H_

#include <cstddef>
#include <mutex>
#include <string>

namespace fastout::detail {

/// Loads the first of `files` that loads (each system names its libraries
/// its own way: "libzstd.so.1", "libzstd.1.dylib"), or the file the
/// environment variable `override_variable` names, when it is set and not
/// empty, and looks up each of `names` into `functions`. True when all
/// were found; otherwise false and `problem` says what failed, naming each
/// file tried with dlerror()'s text (or the function not found). The
/// library stays loaded for the life of the process.
bool load_codec_library(const char* const* files, std::size_t file_count,
                        const char* override_variable, const char* const* names, void** functions,
                        std::size_t count, std::string& problem);

/// One codec library of the process, loaded by load_codec_library() at the
/// first ready() call (from any thread: the others wait for it), whose
/// answer every later call gets.
class codec_library {
 public:
  codec_library(const char* const* files, std::size_t file_count, const char* override_variable,
                const char* const* names, void** functions, std::size_t count) noexcept
      : files_(files),
        file_count_(file_count),
        override_variable_(override_variable),
        names_(names),
        functions_(functions),
        count_(count) {}
  /// Whether its functions are there; else false and `problem` says why.
  bool ready(std::string& problem);

 private:
  const char* const* files_;
  std::size_t file_count_;
  const char* override_variable_;
  const char* const* names_;
  void** functions_;
  std::size_t count_;
  std::once_flag once_;
  bool loaded_ = false;
  std::string why_;
};

}  // namespace fastout::detail

#endif  // FASTOUT_SRC_STAGES_CODEC_LOADING_INTERNAL_H_
