// SPDX-License-Identifier: MIT
// Shared libraries loaded at run time (platform_internal.h): dlopen() and
// dlsym(), for a build that loads the codecs when first needed
// (FASTOUT_LOAD_CODECS: libfastout-c on Unix systems), the only one that
// compiles this file, so that no other build asks for dlopen()'s library.
#include "platform/platform_internal.h"

#include <dlfcn.h>

namespace fastout::detail {
namespace {

std::string loader_reason() {
  const char* why = dlerror();
  return why != nullptr ? why : "no reason given";
}

}  // namespace

void* load_shared_library(const char* file, std::string& why) {
  // RTLD_LOCAL: the library's symbols stay out of the program's namespace,
  // where a libzstd the program links itself may already be.
  void* library = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) why = loader_reason();
  return library;
}

void* shared_library_symbol(void* library, const char* name, std::string& why) {
  dlerror();  // a null symbol is an error only if dlerror() says so
  void* address = dlsym(library, name);
  if (address == nullptr) why = loader_reason();
  return address;
}

}  // namespace fastout::detail
