// SPDX-License-Identifier: MIT
// fastout-bench: what W17 (many outputs, issue 28; workload_many.cpp) and
// its bars (bars.cpp) share: the figures the bars are judged with, which
// issue 28's library work has yet to settle.
//
// Issue 28 asks that the buffers of all of a process's writers come out of
// one budget and that compressed writers share one pool of workers, and
// sets W17's bars against them. Neither exists when W17 is written: the
// budget and the pool's default size below are stand-ins, named so that
// the engineer who builds them sets them here (or, better, asks the
// library for them) in the same change, and every bar that uses them says
// that it does.
#ifndef FASTOUT_BENCH_MANY_OUTPUTS_H_
#define FASTOUT_BENCH_MANY_OUTPUTS_H_

#include <cstdint>
#include <thread>

namespace fastout_bench {

/// The memory budget of all of a process's writers, in bytes: what W17's
/// memory bars allow fastout above stdio's peak resident set (plain) or in
/// all (gzip, with the workers' codec states). A stand-in: fastout has no
/// budget yet, and issue 28 leaves its default to be chosen by measurement.
/// 64 MiB is 256 of today's 256 KiB buffers. Set it to the library's
/// default budget when the budget exists.
inline constexpr std::uint64_t many_outputs_budget = std::uint64_t{64} << 20;

/// What one compression worker of the shared pool may hold besides the
/// budget: its codec state and a block in and out. A stand-in too, from
/// libdeflate 1.14's level-6 compressor (656 KiB, measured with
/// mallinfo2()) and a 64 KiB BGZF block each way, rounded up.
inline constexpr std::uint64_t many_outputs_worker_state = std::uint64_t{1} << 20;

/// The workers of the shared pool issue 28 asks for by default: as many as
/// the machine has cores. W17_1k_gz gives htslib's shared pool as many, and
/// its thread bar allows fastout these and the caller. Replace it with the
/// library's own figure when the pool exists.
inline unsigned many_outputs_pool_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? cores : 1;
}

/// The descriptor soft limit W17_10k_fd sets in its child processes
/// (RLIMIT_NOFILE), below its 10,000 outputs; the hard limit is left, and
/// W17_10k_fd_hard sets it too.
inline constexpr unsigned many_outputs_descriptor_limit = 256;

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_MANY_OUTPUTS_H_
