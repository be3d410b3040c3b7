// SPDX-License-Identifier: MIT
// The process's buffer budget (buffer_budget_internal.h): three atomic
// counters and the limit, which the environment may set once.
#include "memory/buffer_budget_internal.h"

#include <fastout/budget.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "platform/platform_internal.h"

namespace fastout::detail {
namespace {

// The smallest budget: below it, a budget could not give any writer the
// buffer stdio gives every FILE.
constexpr std::size_t smallest_budget = smallest_buffer;
// 256 of the 256 KiB buffers a lone writer gets: with W17's 10,000
// outputs, whose 4 KiB buffers take 40 MiB of it, the smallest budget
// measured that lets the busy ones grow (docs/guide.md, "Many outputs",
// has the figures).
constexpr std::size_t default_budget = std::size_t{64} << 20;

// Each on a cache line of its own: writers on different threads change
// them at their drains, and would otherwise slow each other's reads of the
// limit.
alignas(64) std::atomic<std::size_t> limit_bytes{0};  // 0: not settled yet
alignas(64) std::atomic<std::size_t> charged{0};
alignas(64) std::atomic<std::size_t> holder_count{0};
alignas(64) std::atomic<std::uint64_t> drained_bytes{0};
// drained_bytes when growth was last refused, plus one (0: never).
alignas(64) std::atomic<std::uint64_t> refused_at{0};

// "65536", "64K", "64M", "1G" (powers of 1024, as `ulimit` and `sort -S`
// read them): the bytes, or 0 if the text is not such a size.
std::size_t parse_size(const char* text) {
  if (text == nullptr || *text < '0' || *text > '9') return 0;
  errno = 0;
  char* end = nullptr;
  const unsigned long long number = std::strtoull(text, &end, 10);
  if (errno != 0) return 0;
  unsigned shift = 0;
  switch (*end) {
    case '\0': break;
    case 'k':
    case 'K':
      shift = 10;
      ++end;
      break;
    case 'm':
    case 'M':
      shift = 20;
      ++end;
      break;
    case 'g':
    case 'G':
      shift = 30;
      ++end;
      break;
    default: return 0;
  }
  if (*end == 'i' || *end == 'I') ++end;  // "64MiB" too
  if ((*end == 'b' || *end == 'B') && shift != 0) ++end;
  if (*end != '\0') return 0;
  const auto bytes = static_cast<std::size_t>(number);
  if (bytes != number || (shift != 0 && bytes > (~std::size_t{0} >> shift))) return 0;
  return bytes << shift;
}

// Reads FASTOUT_BUFFER_BUDGET: sets the limit, unless the program chose one
// first, and returns why the variable cannot be used ("" if it can, or is
// not set).
std::string read_environment() {
  std::string problem;
  std::size_t from_environment = 0;
  if (const char* text = std::getenv("FASTOUT_BUFFER_BUDGET")) {
    from_environment = parse_size(text);
    if (from_environment == 0)
      problem = std::string("FASTOUT_BUFFER_BUDGET=\"") + text +
                "\" is not a size in bytes (65536, 64K, 64M, 1G)";
    else if (from_environment < smallest_budget)
      problem = std::string("FASTOUT_BUFFER_BUDGET=\"") + text + "\" is smaller than one buffer (" +
                std::to_string(smallest_budget) + " bytes)";
    if (!problem.empty()) from_environment = 0;
  }
  // The program's own choice, made before the first use, wins.
  std::size_t unset = 0;
  limit_bytes.compare_exchange_strong(unset,
                                      from_environment != 0 ? from_environment : default_budget);
  return problem;
}

// The environment, read once per process: a function-local static is
// thread-safe, and, unlike std::call_once (glibc's pthread_once() wakes
// waiters with a futex() call every time it runs), costs a small program's
// first open no system call.
const std::string& environment_problem() {
  static const std::string problem = read_environment();
  return problem;
}

}  // namespace

FASTOUT_HOT std::size_t budget_limit() noexcept {
  std::size_t limit = limit_bytes.load(std::memory_order_relaxed);
  if (limit != 0) return limit;
  environment_problem();
  return limit_bytes.load(std::memory_order_relaxed);
}

int set_budget_limit(std::size_t bytes) noexcept {
  if (bytes < smallest_budget) return EINVAL;
  limit_bytes.store(bytes, std::memory_order_relaxed);
  // Growth refused under the old limit says nothing of the new one; more
  // in use than the new limit is pressure of its own (under_pressure()).
  refused_at.store(0, std::memory_order_relaxed);
  return 0;
}

std::string budget_environment_error() { return environment_problem(); }

bool try_charge(std::size_t bytes) noexcept {
  const std::size_t limit = budget_limit();
  std::size_t in_use = charged.load(std::memory_order_relaxed);
  do {
    if (bytes > limit || in_use > limit - bytes) return false;
  } while (!charged.compare_exchange_weak(in_use, in_use + bytes, std::memory_order_relaxed));
  return true;
}

void charge(std::size_t bytes) noexcept { charged.fetch_add(bytes, std::memory_order_relaxed); }

void refund(std::size_t bytes) noexcept { charged.fetch_sub(bytes, std::memory_order_relaxed); }

void add_holder() noexcept { holder_count.fetch_add(1, std::memory_order_relaxed); }

void remove_holder() noexcept { holder_count.fetch_sub(1, std::memory_order_relaxed); }

budget_figures budget_now() noexcept {
  budget_figures figures;
  figures.limit = budget_limit();
  figures.in_use = charged.load(std::memory_order_relaxed);
  figures.holders = holder_count.load(std::memory_order_relaxed);
  return figures;
}

namespace {
// A sixteenth: a few writers (16 under the default budget) start as
// without a budget; the rest start small, since a program that opens many
// cannot say which will be busy, and a thin writer keeps what it has until
// its next drain.
std::size_t ample_for_opening() noexcept { return budget_limit() / 16; }
bool largest_fits(std::size_t in_use, std::size_t ample) noexcept {
  return largest_buffer <= ample && in_use <= ample - largest_buffer;
}
}  // namespace

std::size_t charge_opening_buffer() noexcept {
  const std::size_t ample = ample_for_opening();
  std::size_t in_use = charged.load(std::memory_order_relaxed);
  while (largest_fits(in_use, ample)) {
    if (charged.compare_exchange_weak(in_use, in_use + largest_buffer, std::memory_order_relaxed))
      return largest_buffer;
  }
  charge(smallest_buffer);
  return smallest_buffer;
}

std::size_t opening_buffer_size(std::size_t smallest) noexcept {
  return largest_fits(charged.load(std::memory_order_relaxed), ample_for_opening()) ? largest_buffer
                                                                                    : smallest;
}

FASTOUT_HOT std::uint64_t count_drained(std::size_t bytes) noexcept {
  return drained_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
}

void note_refused_growth() noexcept {
  refused_at.store(drained_bytes.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

FASTOUT_HOT bool under_pressure(std::uint64_t drained_now) noexcept {
  const std::size_t limit = budget_limit();
  if (charged.load(std::memory_order_relaxed) > limit) return true;
  const std::uint64_t refused = refused_at.load(std::memory_order_relaxed);
  // Another thread may have counted drains since `drained_now` was read.
  return refused != 0 && (refused > drained_now || drained_now - refused < limit);
}

FASTOUT_HOT buffer_fit fit_at_drain(std::uint64_t& mark, std::size_t drained, bool filled,
                                    std::size_t capacity, std::size_t smallest) noexcept {
  const std::uint64_t now = count_drained(drained);
  const std::uint64_t process_drained = now - mark;  // this drain's bytes included
  mark = now;
  // Not full: neither busy nor a thin writer that fills its buffer, so
  // only pressure can take the buffer (a flush of a few bytes, once a
  // record, asks no more than this).
  if (!filled)
    return capacity > smallest && under_pressure(now) ? buffer_fit::give_back : buffer_fit::keep;
  const std::uint64_t holders = std::max<std::size_t>(budget_now().holders, 1);
  const bool busy = std::uint64_t{drained} * 2 >= process_drained ||
                    std::uint64_t{drained} * holders >= process_drained * 4;
  if (busy) return capacity < largest_buffer ? buffer_fit::grow : buffer_fit::keep;
  if (under_pressure(now)) return capacity > smallest ? buffer_fit::give_back : buffer_fit::keep;
  // Not busy, but full, and a quarter of the budget would hold every
  // writer's buffer at the grown size: thin writers take that much between
  // them while no busy one wants it, and leave the rest to busy ones.
  // Measured with W17 at full size (docs/benchmarks.md): 1,000 outputs
  // dealt records in turn (none busy) made 209,109 write calls from 4 KiB
  // buffers with 64 MiB to spare and took 0.91x fwrite_unlocked's time; an
  // even share of the whole budget (64 KiB each) 33,711 calls, 0.64x, but
  // 78 MiB peak RSS (over stdio's plus the budget) and the skewed keys
  // slower than without (each page a buffer touches costs, too); a quarter
  // (16 KiB each) 60,393 calls, 0.58x, 32 MiB, and skewed keys 0.49x
  // fwrite's time (0.56x without).
  if (capacity < largest_buffer &&
      capacity * growth_factor <= budget_limit() / thin_writers_share / holders)
    return buffer_fit::grow;
  return buffer_fit::keep;
}

}  // namespace fastout::detail

namespace fastout {

static_assert(smallest_buffer_budget == detail::smallest_buffer);

void set_buffer_budget(std::size_t bytes) {
  if (detail::set_budget_limit(bytes) != 0)
    throw std::system_error(EINVAL, detail::error_category(),
                            "cannot set the buffer budget to " + std::to_string(bytes) +
                                " bytes: it must hold at least one " +
                                std::to_string(smallest_buffer_budget) + "-byte buffer");
}

buffer_budget_figures buffer_budget() noexcept {
  const detail::budget_figures now = detail::budget_now();
  buffer_budget_figures figures;
  figures.limit = now.limit;
  figures.in_use = now.in_use;
  figures.holders = now.holders;
  return figures;
}

}  // namespace fastout
