// SPDX-License-Identifier: MIT
// Where a plain writer's buffer lives: one reserve of largest_buffer bytes
// in the library's static storage, taken by the first buffer that asks
// while it is free, and the heap for every other.
//
// Why a reserve: a small program that prints a few lines -- the tool
// started thousands of times, issue 29's W18 -- would otherwise map a
// 256 KiB buffer (above the C library's mmap threshold) at its first write
// and unmap it at exit. Those two system calls, and the TLB flush the
// unmap costs, were most of what such a program paid over stdio's at
// start-up (docs/c-api.md, "What each way costs"). The reserve costs no
// system call: its pages are the program's zero pages (.bss), touched one
// by one as text reaches them, as any buffer's are. What it does not do is
// give memory back: pages a writer touched stay the process's after the
// writer closes (the budget counts the bytes as any buffer's while a
// writer holds them), as stdio's buffers stay until exit.
//
// Which buffers it serves: any size up to its own, while no other writer
// holds it -- in most programs standard output's, or a lone output file's.
// A writer that does not get it allocates as before; nothing a writer does
// depends on where its buffer is. Thread-safe, lock-free: writers open and
// close on any thread.
// Internal: not installed.
#ifndef FASTOUT_MEMORY_BUFFER_MEMORY_INTERNAL_H_
#define FASTOUT_MEMORY_BUFFER_MEMORY_INTERNAL_H_

#include <cstddef>

namespace fastout::detail {

/// The reserve's size: largest_buffer, what a lone writer gets.
std::size_t buffer_reserve_size() noexcept;

/// A buffer of `size` bytes (at least 1): the reserve if it is free and
/// large enough, else new(std::nothrow) char[size]; null if neither can be
/// had. Its contents are unspecified.
char* allocate_buffer_memory(std::size_t size) noexcept;

/// Gives back a buffer from allocate_buffer_memory(): the reserve becomes
/// free for the next writer, a heap buffer is deleted. Null is ignored.
void free_buffer_memory(char* buffer) noexcept;

/// Whether `buffer` is the reserve (for the tests of what comes from the
/// heap).
bool is_buffer_reserve(const char* buffer) noexcept;

}  // namespace fastout::detail

#endif  // FASTOUT_MEMORY_BUFFER_MEMORY_INTERNAL_H_
