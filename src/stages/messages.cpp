// SPDX-License-Identifier: MIT
// What fastout's messages share (messages_internal.h).
#include "stages/messages_internal.h"

namespace fastout::detail {

std::string quoted(const char* path) {
  if (path == nullptr) return "a null path";
  return std::string("\"") + path + "\"";
}

std::string quoted(const std::string& path) { return quoted(path.c_str()); }

}  // namespace fastout::detail
