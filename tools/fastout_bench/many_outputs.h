// SPDX-License-Identifier: MIT
// fastout-bench: what W17 (many outputs, issue 28; workload_many.cpp) and
// its bars (bars.cpp) share: the figures the bars are judged with, the
// library's where it has them.
//
// Issue 28 asks that the buffers of all of a process's writers come out of
// one budget and that compressed writers share one pool of workers, and
// sets W17's bars against them. The pool's size is the library's own
// figure (compression_pool_threads()); the budget and a worker's codec
// state below are stand-ins, named so that the engineer who settles them
// sets them here (or, better, asks the library for them) in the same
// change, and every bar that uses them says that it does.
#ifndef FASTOUT_BENCH_MANY_OUTPUTS_H_
#define FASTOUT_BENCH_MANY_OUTPUTS_H_

#include <cstdint>

#include <fastout/compression.h>

#include <fastout/budget.h>

namespace fastout_bench {

/// The memory budget of all of a process's writers, in bytes: what W17's
/// memory bars allow fastout above stdio's peak resident set (plain) or in
/// all (gzip, with the workers' codec states). The library's own figure
/// (<fastout/budget.h>): its default, or FASTOUT_BUFFER_BUDGET's when the
/// driver runs with it set, as its children do. Initialized before any
/// variable of a file that includes this header (an inline variable).
inline const std::uint64_t many_outputs_budget = fastout::buffer_budget().limit;

/// What one compression worker of the shared pool may hold besides the
/// budget: its codec state (the jobs' buffers, in and out, are charged to
/// the budget). The library has no figure for it (a codec's size is its
/// library's): libdeflate 1.14's level-6 compressor, 656 KiB measured
/// with mallinfo2(), rounded up with room for the thread's stack pages.
inline constexpr std::uint64_t many_outputs_worker_state = std::uint64_t{1} << 20;

/// The threads of fastout's shared pool of compression workers, as the
/// library says (fastout::compression_pool_threads(): as many as the
/// machine has cores unless FASTOUT_COMPRESSION_THREADS or the program says
/// otherwise). W17_1k_gz gives htslib's shared pool as many, and its thread
/// bar allows fastout these and the caller.
inline unsigned many_outputs_pool_threads() { return fastout::compression_pool_threads(); }

/// The descriptor soft limit W17_10k_fd sets in its child processes
/// (RLIMIT_NOFILE), below its 10,000 outputs; the hard limit is left, and
/// W17_10k_fd_hard sets it too.
inline constexpr unsigned many_outputs_descriptor_limit = 256;

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_MANY_OUTPUTS_H_
