// SPDX-License-Identifier: MIT
// The buffer reserve (buffer_memory_internal.h): one static array and a
// flag saying whether a writer holds it.
#include "memory/buffer_memory_internal.h"

#include <atomic>
#include <new>

#include "memory/buffer_budget_internal.h"

namespace fastout::detail {
namespace {

// Zero-initialized, so in .bss: no bytes in the binary, and no page of it
// is the process's until a writer touches it. Aligned as operator new[]'s
// memory would be, and on a cache line, as a writer's hot stores expect
// nothing less.
alignas(64) char reserve[largest_buffer];
std::atomic<bool> reserve_taken{false};

}  // namespace

std::size_t buffer_reserve_size() noexcept { return sizeof reserve; }

char* allocate_buffer_memory(std::size_t size) noexcept {
  if (size <= sizeof reserve && !reserve_taken.load(std::memory_order_relaxed) &&
      !reserve_taken.exchange(true, std::memory_order_acquire))
    return reserve;
  return new (std::nothrow) char[size];
}

void free_buffer_memory(char* buffer) noexcept {
  if (buffer == reserve) {
    // Release: the next holder sees every store of this one done.
    reserve_taken.store(false, std::memory_order_release);
    return;
  }
  delete[] buffer;
}

bool is_buffer_reserve(const char* buffer) noexcept { return buffer == reserve; }

}  // namespace fastout::detail
