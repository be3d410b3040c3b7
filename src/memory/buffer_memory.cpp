// SPDX-License-Identifier: MIT
// The buffer reserve (buffer_memory_internal.h): one static array and a
// flag saying whether a writer holds it.
#include "memory/buffer_memory_internal.h"

#include <atomic>
#include <new>

#include "memory/buffer_budget_internal.h"

// On ELF the reserve is placed after every other zero-initialized variable,
// in a section of its own (.lbss.*: x86-64's linker scripts put .lbss after
// .bss, and other targets' place a section they do not name after .bss too).
// In the middle of .bss, as a plain array is, it split the library's other
// variables -- the budget's counts, the exit handler, the C++ runtime's --
// over two pages, one on each side: a program that prints three lines
// touched one page more, a page fault (about 20 us in a virtual machine) at
// every start (docs/c-api.md, "What each way costs"). Defined in assembly
// because a compiler's section attribute makes the section hold 256 KiB of
// zeros in the file (clang, GCC for ARM) unless it knows the name. Hidden:
// each library (libfastout, libfastout-c, a shared one) has its own.
#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#  define FASTOUT_RESERVE_IN_ITS_OWN_SECTION 1
#  define FASTOUT_RESERVE_SYMBOL "fastout_detail_buffer_reserve"
#  define FASTOUT_RESERVE_BYTES "262144"
asm(".pushsection .lbss." FASTOUT_RESERVE_SYMBOL
    ",\"aw\",%nobits\n"
    ".p2align 6\n"
    ".globl " FASTOUT_RESERVE_SYMBOL
    "\n"
    ".hidden " FASTOUT_RESERVE_SYMBOL
    "\n"
    ".type " FASTOUT_RESERVE_SYMBOL
    ", %object\n"
    ".size " FASTOUT_RESERVE_SYMBOL ", " FASTOUT_RESERVE_BYTES "\n" FASTOUT_RESERVE_SYMBOL
    ":\n"
    ".zero " FASTOUT_RESERVE_BYTES
    "\n"
    ".popsection\n");
static_assert(fastout::detail::largest_buffer == 262144, "FASTOUT_RESERVE_BYTES is largest_buffer");
#endif

namespace fastout::detail {

#if defined(FASTOUT_RESERVE_IN_ITS_OWN_SECTION)
// The array above, by its assembly name (outside the unnamed namespace: a
// declaration there would have internal linkage and no definition).
extern char reserve[largest_buffer] __asm__(FASTOUT_RESERVE_SYMBOL)
    __attribute__((visibility("hidden")));
#endif

namespace {

#if !defined(FASTOUT_RESERVE_IN_ITS_OWN_SECTION)
// Zero-initialized, so in .bss: no bytes in the binary, and no page of it
// is the process's until a writer touches it. Aligned as operator new[]'s
// memory would be, and on a cache line, as a writer's hot stores expect
// nothing less (the assembly above aligns the same).
alignas(64) char reserve[largest_buffer];
#endif
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
