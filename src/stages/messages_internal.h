// SPDX-License-Identifier: MIT
// What fastout's messages share, from the route out up to the doors: a
// path (or a name such as "<stdout>") as every message shows it, in double
// quotes -- `cannot write to "out.txt" (...)`. Here, in the lowest layer
// that writes messages, so that every layer above uses the one spelling;
// out of line (messages.cpp), as every failure's path is.
// Internal: not installed.
#ifndef FASTOUT_STAGES_MESSAGES_INTERNAL_H_
#define FASTOUT_STAGES_MESSAGES_INTERNAL_H_

#include <string>

namespace fastout::detail {

// `path` in double quotes. A null path (std::getenv() of an unset variable,
// given to fastout::ofstream) is named, not read.
std::string quoted(const char* path);
std::string quoted(const std::string& path);

}  // namespace fastout::detail

#endif  // FASTOUT_STAGES_MESSAGES_INTERNAL_H_
