// SPDX-License-Identifier: MIT
// The machine a run measured: printed above the table and saved in the JSON,
// because a ratio means little without knowing where it was taken.
#ifndef FASTOUT_BENCH_MACHINE_H_
#define FASTOUT_BENCH_MACHINE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace fastout_bench {

struct machine_field {
  const char* key;    ///< the JSON key
  const char* label;  ///< the header's label; nullptr to leave it out there
  std::string value;
  bool is_number;  ///< written to the JSON without quotes
};

struct machine_info {
  std::string cpu;           ///< "model name" from /proc/cpuinfo
  unsigned cpus = 0;         ///< online logical CPUs
  std::uint64_t memory = 0;  ///< MemTotal, bytes
  std::string kernel;        ///< uname: sysname release version machine
  std::string directory;     ///< where the outputs were written
  std::string filesystem;    ///< statfs() f_type as a name ("ext4", "tmpfs", ...)
  std::string mount_point;   ///< from /proc/mounts, the longest match
  std::string mount_source;
  std::string mount_type;
  std::string mount_options;
  /// Whether writes to `directory` with RWF_DONTCACHE (fastout's
  /// page_cache::drop, W12's fastout_durable) are taken: "yes", "no" or
  /// "unknown" (the probe could not write there).
  std::string dontcache;
  std::string load_average;  ///< /proc/loadavg at the start: others' work skews times
  std::string compiler;
  bool optimized = false;  ///< the driver was built with optimization
  std::string fmt_version;
  std::string fastout_version;
  std::size_t fastout_buffer = 0;  ///< fastout::default_buffer_size
  std::string date;                ///< UTC, ISO 8601
  /// Windows only: the C runtime the driver is linked with ("msvcrt.dll",
  /// "UCRT"), and Wine's version when it runs under Wine (empty on Windows).
  std::string runtime;
  std::string wine;

  /// Every field in display order, shared by the header and the JSON.
  std::vector<struct machine_field> fields() const;
};

/// Looks at this machine and at `directory` (which must exist, and in which
/// it writes and removes one small file to see whether RWF_DONTCACHE works
/// there). On Windows: the registry's processor name, GetSystemInfo,
/// GlobalMemoryStatusEx, RtlGetVersion (and Wine's version and host where
/// it runs under Wine), GetVolumeInformationW, and no RWF_DONTCACHE probe.
machine_info collect_machine_info(const std::string& directory);

}  // namespace fastout_bench

#endif  // FASTOUT_BENCH_MACHINE_H_
