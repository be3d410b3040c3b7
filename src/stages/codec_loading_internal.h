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

}  // namespace fastout::detail

#endif  // FASTOUT_SRC_STAGES_CODEC_LOADING_INTERNAL_H_
