// SPDX-License-Identifier: MIT
// dlopen() of a codec library (codec_loading_internal.h), for the builds
// that load the codecs when first needed (FASTOUT_LOAD_CODECS, Unix only).
#include "stages/codec_loading_internal.h"

#include <dlfcn.h>

#include <cstdlib>

namespace fastout::detail {

bool load_codec_library(const char* const* files, std::size_t file_count,
                        const char* override_variable, const char* const* names, void** functions,
                        std::size_t count, std::string& problem) {
  const char* chosen = std::getenv(override_variable);
  const bool overridden = chosen != nullptr && *chosen != '\0';
  if (overridden) {
    files = &chosen;
    file_count = 1;
  }
  // RTLD_LOCAL: the codec's symbols stay out of the program's namespace,
  // where a libzstd the program links itself may already be.
  void* library = nullptr;
  std::string reasons;
  for (std::size_t i = 0; i < file_count && library == nullptr; ++i) {
    chosen = files[i];
    library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      reasons += std::string(reasons.empty() ? "cannot load " : " or ") + chosen + " (" +
                 (why != nullptr ? why : "no reason given") + ")";
    }
  }
  if (library == nullptr) {
    problem = reasons;
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    dlerror();
    functions[i] = dlsym(library, names[i]);
    if (functions[i] == nullptr) {
      const char* why = dlerror();
      problem = std::string(chosen) + " has no " + names[i] + " (" +
                (why != nullptr ? why : "no reason given") + "): a version too old?";
      // Never unloaded: a failed lookup leaves the library mapped, as a
      // second attempt would load it again anyway.
      return false;
    }
  }
  return true;
}

bool codec_library::ready(std::string& problem) {
  std::call_once(once_, [this] {
    loaded_ = load_codec_library(files_, file_count_, override_variable_, names_, functions_,
                                 count_, why_);
  });
  if (!loaded_) problem = why_;
  return loaded_;
}

}  // namespace fastout::detail
