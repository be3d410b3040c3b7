// SPDX-License-Identifier: MIT
// Loading a codec library (codec_loading_internal.h), for the builds that
// load the codecs when first needed (FASTOUT_LOAD_CODECS, Unix only),
// through the platform's load_shared_library().
#include "stages/codec_loading_internal.h"

#include <cstdlib>

#include "platform/platform_internal.h"

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
  void* library = nullptr;
  std::string reasons;
  for (std::size_t i = 0; i < file_count && library == nullptr; ++i) {
    chosen = files[i];
    std::string why;
    library = load_shared_library(chosen, why);
    if (library == nullptr)
      reasons += std::string(reasons.empty() ? "cannot load " : " or ") + chosen + " (" + why + ")";
  }
  if (library == nullptr) {
    problem = reasons;
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::string why;
    functions[i] = shared_library_symbol(library, names[i], why);
    if (functions[i] == nullptr) {
      problem = std::string(chosen) + " has no " + names[i] + " (" + why + "): a version too old?";
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
