// SPDX-License-Identifier: MIT
// What the printf target's files share: a call's context, which
// run_call() (printf_fuzzer.cpp) fills, the %n cells, and the writer's
// settings as the input chooses them.
#ifndef FASTOUT_FUZZ_PRINTF_FUZZER_H_
#define FASTOUT_FUZZ_PRINTF_FUZZER_H_

#include <fastout/c_api.h>

#include <cfenv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "printf_call_shapes.h"
#include "scratch_file.h"

namespace fastout_fuzz {

// What one call put in the file, and what it must have been (glibc's).
struct segment {
  std::size_t size;
  std::string expected;
};

// One case: the writer, the call's setting, and what its two calls did.
struct call_context {
  fastout_file* out = nullptr;
  const char* format = nullptr;
  std::string shown_format;  // the format, without literal text put before it
  int errno_before = 0;
  int rounding = FE_TONEAREST;
  std::size_t text_bound = 0;
  std::string description;
  std::vector<segment> segments;
  int results[2] = {0, 0};
  int errnos[2] = {0, 0};
};

// The cells %n writes to (and that serve as a string both readings of
// which end inside); reset before every call.
constexpr std::size_t cell_size = 64;
extern char cells[most_arguments][cell_size];
void reset_cells();

// The writer's settings (printf_fuzzer.cpp's comment says how the input
// gives them).
struct writer_settings {
  std::size_t buffer_size = FASTOUT_DEFAULT_BUFFER_SIZE;
  std::size_t written_before = 0;
  bool utf8 = false;
  int rounding = FE_TONEAREST;
  bool line = false;
  int errno_before = 0;
};
writer_settings read_settings(std::uint8_t buffer, std::uint8_t before, std::uint8_t setting);
// A writer on `file`, emptied, in the settings' locale, with the bytes
// the settings put before the call already written.
fastout_file* open_writer(scratch_file& file, const writer_settings& settings);
void use_locale(bool utf8);
std::string show_settings(const writer_settings& settings);

// The recorded corpus's oracle (printf_corpus_oracle.cpp), where glibc is
// not there to ask.
void load_printf_corpus();
void run_corpus_case(const std::uint8_t* data, std::size_t size);

}  // namespace fastout_fuzz

#endif  // FASTOUT_FUZZ_PRINTF_FUZZER_H_
