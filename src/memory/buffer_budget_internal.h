// SPDX-License-Identifier: MIT
// The process's buffer budget (issue 28): one count of the bytes that every
// writer's buffers hold -- a plain writer's buffer, a compressed writer's
// buffers in flight -- against one limit, so that a program with thousands
// of writers does not hold thousands of 256 KiB buffers. Writers charge it
// when they take memory and refund it when they give it back; a writer
// whose size the program chose (buffer_size), and the smallest buffer any
// writer needs, are charged whatever the limit says (counted, never
// refused), while growth beyond that asks first (try_charge()). Nothing
// here is in a writer's hot path: a writer charges at open, at a drain, at
// close. Every call is thread-safe and takes no lock (atomics), since
// different writers are used on different threads at once.
// Internal: not installed.
#ifndef FASTOUT_MEMORY_BUFFER_BUDGET_INTERNAL_H_
#define FASTOUT_MEMORY_BUFFER_BUDGET_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace fastout::detail {

// The sizes a buffer the budget sizes can have: it starts at the largest
// while the budget has ample room, else at the smallest, and grows
// (x growth_factor) while its writer is busy and the budget allows.
/// The smallest: what stdio gives every FILE, always granted (charge()),
/// and the smallest budget the program may set.
inline constexpr std::size_t smallest_buffer = 4096;
/// The largest: default_buffer_size, what a writer gets without a budget.
inline constexpr std::size_t largest_buffer = std::size_t{256} << 10;
inline constexpr std::size_t growth_factor = 4;
// Writers that are not busy may grow while 1 / thin_writers_share of the
// budget would hold every writer at the grown size (fit_at_drain()).
inline constexpr std::size_t thin_writers_share = 4;

/// What the budget says now.
struct budget_figures {
  std::size_t limit = 0;    // the budget, in bytes
  std::size_t in_use = 0;   // charged now, by every writer (may exceed limit: see charge())
  std::size_t holders = 0;  // writers holding memory charged to it
};

/// The budget in bytes: the program's choice (set_budget_limit()), else
/// FASTOUT_BUFFER_BUDGET's, else the default (read once, at first use).
std::size_t budget_limit() noexcept;
/// Sets the budget, before or after writers exist. 0, or EINVAL when
/// `bytes` is too small to hold even one smallest buffer.
int set_budget_limit(std::size_t bytes) noexcept;
/// Why FASTOUT_BUFFER_BUDGET could not be used ("" when it could, or is
/// not set): opening a writer fails with EINVAL and this text, rather than
/// go on with a budget the user did not ask for.
std::string budget_environment_error();

/// Charges `bytes` if the budget has room for them: false (nothing
/// charged) otherwise.
bool try_charge(std::size_t bytes) noexcept;
/// Charges `bytes` whatever the budget says: a buffer the program sized
/// itself, or the smallest one a writer needs.
void charge(std::size_t bytes) noexcept;
/// Gives back what was charged.
void refund(std::size_t bytes) noexcept;
/// A writer begins and stops holding memory charged to the budget.
void add_holder() noexcept;
void remove_holder() noexcept;

budget_figures budget_now() noexcept;

// ---------------------------------------- the rules a budgeted buffer follows

/// Charges the buffer a writer whose size the budget chooses starts with,
/// and returns its size: largest_buffer while what is in use stays within
/// a sixteenth of the budget (a program with a few writers gets today's
/// buffers), else smallest_buffer, charged whatever the budget says.
std::size_t charge_opening_buffer() noexcept;

/// The size a budget-sized buffer starts with where its owner charges it
/// itself (a compressed writer's engine, which charges every buffer it
/// allocates): largest_buffer where charge_opening_buffer() would give it,
/// else `smallest`. Charges nothing.
std::size_t opening_buffer_size(std::size_t smallest) noexcept;

/// The bytes every budgeted writer has drained so far, after adding
/// `bytes`: a writer compares it with the figure at its previous drain to
/// know its share of the process's output. One atomic add per drain.
std::uint64_t count_drained(std::size_t bytes) noexcept;

/// A buffer could not grow: the budget is under pressure, and writers
/// that are not busy give their memory back at their next drain.
void note_refused_growth() noexcept;
/// Whether growth was refused while the process drained its last budget's
/// worth of bytes (`drained_now` from count_drained()), or more is in use
/// than the budget (it was lowered).
bool under_pressure(std::uint64_t drained_now) noexcept;

/// What the rules say of a budget-sized buffer at a drain that emptied it.
enum class buffer_fit {
  keep,
  grow,       // its writer is busy, or the grown size is within an even
              // share of a quarter of the budget, and the buffer is below
              // largest_buffer:
              // x growth_factor, at most largest_buffer, if try_charge() allows
  give_back,  // not busy, the budget under pressure, and it holds more than
              // `smallest`: back to `smallest`
};

/// The rules at a drain of `drained` bytes from a buffer of `capacity`
/// (`filled`: it was full, or the text did not fit): busy is a full buffer
/// and at least half the process's drained bytes since the writer's last
/// drain, or four times an even share of them; a full buffer that is not
/// busy grows too while the budget is not under pressure and every holder
/// could have the grown size in a quarter of it (budget / 4 / holders).
/// `mark` is the writer's
/// count_drained() at its last drain, brought up to date. One atomic add and
/// a few reads: once per drain, never in the hot path.
buffer_fit fit_at_drain(std::uint64_t& mark, std::size_t drained, bool filled, std::size_t capacity,
                        std::size_t smallest) noexcept;

}  // namespace fastout::detail

#endif  // FASTOUT_MEMORY_BUFFER_BUDGET_INTERNAL_H_
