// SPDX-License-Identifier: MIT
// The buffer budget: one limit on the memory that every writer's buffers in
// a process hold together, so that a program writing thousands of files
// does not hold thousands of 256 KiB buffers.
//
//   fastout::set_buffer_budget(std::size_t{16} << 20);  // 16 MiB for all of them
//   fastout::buffer_budget_figures now = fastout::buffer_budget();
//
// A writer whose buffer size the program did not choose (no
// `fastout::buffer_size = n`, file_options::buffer_size left at
// default_buffer_size) gets its buffer from the budget: 256 KiB while the
// budget has ample room, else 4 KiB, as stdio's; a buffer grows (x4, up to
// 256 KiB) when its writer proves busy and the budget has room, and under
// pressure a writer that is not busy goes back to 4 KiB at its next drain,
// flush or close -- never in the hot path. A size the program chose is
// charged as it is, outside those rules. docs/guide.md ("Many outputs")
// says what the default is and why.
//
// The environment variable FASTOUT_BUFFER_BUDGET (65536, 64K, 16M, 1G) sets
// the budget for a program that does not set it: a value that is not a
// size, or is below one 4 KiB buffer, makes every open of a buffered
// writer fail with EINVAL naming it. The C API's equivalents are in <fastout/c_api.h>.
#ifndef FASTOUT_BUDGET_H_
#define FASTOUT_BUDGET_H_

#if __cplusplus < 201703L
#  error "fastout's C++ API needs C++17 or later: compile with -std=c++17 (or newer)"
#else

#  include <cstddef>

#  include <fastout/config.h>

namespace fastout {

/// The smallest budget, and the smallest buffer a budgeted writer has:
/// always granted, even past the budget, so a writer never fails for it.
inline constexpr std::size_t smallest_buffer_budget = 4096;

/// What the budget is and what it holds now.
struct buffer_budget_figures {
  std::size_t limit = 0;    ///< the budget, in bytes
  std::size_t in_use = 0;   ///< held by every writer's buffers (may pass limit: see above)
  std::size_t holders = 0;  ///< writers that hold memory charged to it
};

/// Sets the budget of every writer's buffers, before or after writers
/// exist: existing writers follow it from their next drain (growth asks the
/// new limit; above it, writers that are not busy give memory back). Wins
/// over FASTOUT_BUFFER_BUDGET. Thread-safe. Throws std::system_error
/// (EINVAL) if `bytes` is smaller than smallest_buffer_budget.
FASTOUT_API void set_buffer_budget(std::size_t bytes);

/// The budget, what is in use and how many writers hold memory. Thread-safe;
/// the figures are each exact, but other threads may change them between.
FASTOUT_API buffer_budget_figures buffer_budget() noexcept;

}  // namespace fastout

#endif  // C++17
#endif  // FASTOUT_BUDGET_H_
