// SPDX-License-Identifier: MIT
#include "machine.h"

#include <climits>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#if defined(_WIN32)
#  include <windows.h>

#  include "win32.h"
#else
#  include <sys/statfs.h>
#  include <sys/utsname.h>
#  include <unistd.h>
#endif

#include <fmt/core.h>

#include <fastout/file.h>

namespace fastout_bench {
namespace {

std::string trim(std::string s) {
  const char* space = " \t\n\r";
  s.erase(0, s.find_first_not_of(space));
  s.erase(s.find_last_not_of(space) + 1);
  return s;
}

#if !defined(_WIN32)
// The value of the first "key<spaces>: value" line in a /proc file.
std::string proc_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == key)
      return trim(line.substr(colon + 1));
  }
  return {};
}

std::string filesystem_name(unsigned long magic) {
  // From linux/magic.h; the ones a benchmark directory is likely to be on.
  switch (magic) {
    case 0xEF53: return "ext2/ext3/ext4";
    case 0x01021994: return "tmpfs";
    case 0x858458F6: return "ramfs";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0xF2F52010: return "f2fs";
    case 0x2FC12FC1: return "zfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0xFE534D42: return "smb2";
    case 0xFF534D42: return "cifs";
    case 0x65735546: return "fuse";
    case 0x01021997: return "9p";
    case 0x73717368: return "squashfs";
    case 0x3153464A: return "jfs";
    case 0x52654973: return "reiserfs";
    case 0x4D44: return "vfat";
    case 0x5346544E: return "ntfs";
    case 0x2011BAB0: return "exfat";
    case 0xCA451A4E: return "bcachefs";
    default: return fmt::format("unknown (f_type {:#x})", magic);
  }
}

// /proc/mounts writes space, tab, newline and backslash as \ooo.
std::string unescape_mount_field(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7') {
      out += static_cast<char>(std::strtol(s.substr(i + 1, 3).c_str(), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool is_under(const std::string& path, const std::string& mount_point) {
  if (mount_point == "/") return true;
  return path.compare(0, mount_point.size(), mount_point) == 0 &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

void find_mount(const std::string& directory, machine_info& info) {
  char resolved[PATH_MAX];
  std::string path = ::realpath(directory.c_str(), resolved) != nullptr ? resolved : directory;
  std::ifstream in("/proc/mounts");
  std::string line;
  std::size_t best = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string source, target, type, options;
    if (!(fields >> source >> target >> type >> options)) continue;
    target = unescape_mount_field(target);
    // The last of equally long matches is the one mounted on top.
    if (is_under(path, target) && target.size() >= best) {
      best = target.size();
      info.mount_point = target;
      info.mount_source = unescape_mount_field(source);
      info.mount_type = type;
      info.mount_options = options;
    }
  }
}

#endif  // !_WIN32

std::string compiler_name() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string human_bytes(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30))
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1 << 30));
  return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1 << 20));
}

// What every platform's collect_machine_info() records about this build:
// the compiler, optimization, {fmt}'s and fastout's versions, and the date.
void collect_build_info(machine_info& info) {
  info.compiler = compiler_name();
#ifdef __OPTIMIZE__
  info.optimized = true;
#endif
  info.fmt_version =
      fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100);
  info.fastout_version =
      fmt::format("{}.{}.{}", FASTOUT_VERSION_MAJOR, FASTOUT_VERSION_MINOR, FASTOUT_VERSION_PATCH);
  info.fastout_buffer = fastout::default_buffer_size;
  std::time_t now = std::time(nullptr);
  struct tm utc;
  char date[64];
#if defined(_WIN32)
  const bool have_utc = ::gmtime_s(&utc, &now) == 0;
#else
  const bool have_utc = ::gmtime_r(&now, &utc) != nullptr;
#endif
  if (have_utc && std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc) > 0)
    info.date = date;
}

// The fields of collect_build_info() (after each platform's own), in the
// table's order.
void add_build_fields(const machine_info& info, std::vector<machine_field>& fields) {
  auto number = [](std::uint64_t n) { return std::to_string(n); };
  fields.push_back({"optimized", nullptr, info.optimized ? "true" : "false", true});
  fields.push_back({"fmt_version", nullptr, info.fmt_version, false});
  fields.push_back({"fastout_version", nullptr, info.fastout_version, false});
  fields.push_back({"fastout_default_buffer", nullptr, number(info.fastout_buffer), true});
  fields.push_back({nullptr, "libraries",
                    fmt::format("fastout {} (default buffer {} KiB), fmt {}", info.fastout_version,
                                info.fastout_buffer / 1024, info.fmt_version),
                    false});
  fields.push_back({"date", "date", info.date, false});
}

#if !defined(_WIN32)
// Writes 1 MiB with fastout's page_cache::drop into `directory` and asks the
// writer whether the kernel and filesystem took RWF_DONTCACHE.
std::string probe_dontcache(const std::string& directory) {
  const std::string path = directory + "/dontcache-probe";
  std::string answer = "unknown";
  try {
    fastout::file probe = fastout::output_file(path, fastout::page_cache::drop);
    probe.write(std::string(std::size_t{1} << 20, 'p'));
    probe.close();
    answer = probe.drops_page_cache() ? "yes" : "no";
  } catch (const std::exception&) {
  }
  ::unlink(path.c_str());
  return answer;
}
#endif  // !_WIN32

}  // namespace

#if defined(_WIN32)
namespace {

// HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\0's ProcessorNameString
// (Wine fills it from the host's CPU).
std::string processor_name() {
  wchar_t name[256];
  DWORD size = sizeof name;
  if (::RegGetValueW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     L"ProcessorNameString", RRF_RT_REG_SZ, nullptr, name, &size) != ERROR_SUCCESS)
    return "unknown";
  return trim(narrow(name));
}

// "Windows 10.0 build 19045", from ntdll's RtlGetVersion (GetVersionEx
// answers what the program's manifest allows); under Wine, with its version
// and the host's system.
std::string system_name(const std::string& wine) {
  std::string name = "Windows";
  HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  using get_version_function = LONG(WINAPI*)(OSVERSIONINFOW*);
  FARPROC found = ntdll != nullptr ? ::GetProcAddress(ntdll, "RtlGetVersion") : nullptr;
  OSVERSIONINFOW version{};
  version.dwOSVersionInfoSize = sizeof version;
  if (found != nullptr &&
      reinterpret_cast<get_version_function>(reinterpret_cast<void (*)()>(found))(&version) == 0)
    name += fmt::format(" {}.{} build {}", version.dwMajorVersion, version.dwMinorVersion,
                        version.dwBuildNumber);
  if (wine.empty()) return name;
  name += " under Wine " + wine;
  using host_function = void(__cdecl*)(const char**, const char**);
  FARPROC host = ::GetProcAddress(ntdll, "wine_get_host_version");
  if (host != nullptr) {
    const char* system = nullptr;
    const char* release = nullptr;
    reinterpret_cast<host_function>(reinterpret_cast<void (*)()>(host))(&system, &release);
    if (system != nullptr && release != nullptr) name += fmt::format(" on {} {}", system, release);
  }
  return name;
}

// The filesystem `directory` is on, as Windows names it ("NTFS"; Wine gives
// the name it shows for its drive, not the host's filesystem).
std::string filesystem_of(const std::string& directory) {
  wchar_t volume[MAX_PATH + 1];
  wchar_t name[MAX_PATH + 1];
  if (!::GetVolumePathNameW(widen(directory).c_str(), volume, MAX_PATH + 1) ||
      !::GetVolumeInformationW(volume, nullptr, 0, nullptr, nullptr, nullptr, name, MAX_PATH + 1))
    return "unknown";
  return narrow(name) + " (" + narrow(volume) + ")";
}

}  // namespace

machine_info collect_machine_info(const std::string& directory) {
  machine_info info;
  info.wine = wine_version();
  info.cpu = processor_name();
  SYSTEM_INFO system;
  ::GetSystemInfo(&system);
  info.cpus = system.dwNumberOfProcessors;
  MEMORYSTATUSEX memory{};
  memory.dwLength = sizeof memory;
  if (::GlobalMemoryStatusEx(&memory)) info.memory = memory.ullTotalPhys;
  info.kernel = system_name(info.wine);
  info.directory = directory;
  info.filesystem = filesystem_of(directory);
  info.dontcache = "no";
  // Windows has no load average. Under Wine the host's is what skews the
  // times, and Wine's Z: drive is the host's root.
  std::string one, five, fifteen;
  std::ifstream loadavg("Z:\\proc\\loadavg");
  if (!info.wine.empty() && loadavg >> one >> five >> fifteen)
    info.load_average = one + " " + five + " " + fifteen + " (the host's /proc/loadavg)";
  else
    info.load_average = "none on Windows";
  collect_build_info(info);
#  if defined(_UCRT) || defined(_MSC_VER)
  info.runtime = "UCRT";
#  else
  info.runtime = "msvcrt.dll";
#  endif
  return info;
}

std::vector<machine_field> machine_info::fields() const {
  auto number = [](std::uint64_t n) { return std::to_string(n); };
  std::vector<machine_field> fields = {
      {"cpu", "CPU", cpu, false},
      {"cpus", nullptr, number(cpus), true},
      {"memory_bytes", nullptr, number(memory), true},
      {nullptr, "cores, memory", fmt::format("{} logical CPUs, {}", cpus, human_bytes(memory)),
       false},
      {"kernel", "system", kernel, false},
      {"wine", nullptr, wine, false},
      {nullptr, "Wine",
       wine.empty() ? "no: these are Windows' own figures"
                    : "figures under Wine are only indicative: Wine's system calls are not "
                      "Windows' (a WriteFile is a Linux write() behind Wine's own layers)",
       false},
      {"directory", "directory", directory, false},
      {"filesystem", "filesystem", filesystem, false},
      {"load_average", "load average", load_average, false},
      {"compiler", "compiler", compiler, false},
      {"c_runtime", "C runtime", runtime, false},
  };
  add_build_fields(*this, fields);
  return fields;
}
#else
machine_info collect_machine_info(const std::string& directory) {
  machine_info info;
  info.cpu = proc_field("/proc/cpuinfo", "model name");
  if (info.cpu.empty()) info.cpu = proc_field("/proc/cpuinfo", "Model");  // some ARM kernels
  if (info.cpu.empty()) info.cpu = "unknown";
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  info.cpus = cpus > 0 ? static_cast<unsigned>(cpus) : 0;
  std::string memory = proc_field("/proc/meminfo", "MemTotal");  // "24684084 kB"
  info.memory = std::strtoull(memory.c_str(), nullptr, 10) * 1024;

  struct utsname names;
  if (::uname(&names) == 0)
    info.kernel =
        fmt::format("{} {} {} {}", names.sysname, names.release, names.version, names.machine);

  info.directory = directory;
  struct statfs fs;
  info.filesystem = ::statfs(directory.c_str(), &fs) == 0
                        ? filesystem_name(static_cast<unsigned long>(fs.f_type))
                        : "unknown";
  find_mount(directory, info);
  // statfs() cannot tell ext2, ext3 and ext4 apart; the mount table can.
  if (info.filesystem == "ext2/ext3/ext4" && info.mount_type.compare(0, 3, "ext") == 0)
    info.filesystem = info.mount_type;
  info.dontcache = probe_dontcache(directory);

  std::ifstream loadavg("/proc/loadavg");
  std::string one, five, fifteen;
  if (loadavg >> one >> five >> fifteen) info.load_average = one + " " + five + " " + fifteen;

  collect_build_info(info);
  return info;
}

std::vector<machine_field> machine_info::fields() const {
  auto number = [](std::uint64_t n) { return std::to_string(n); };
  std::string mount = mount_point.empty() ? std::string("unknown")
                                          : fmt::format("{} on {} ({}, {})", mount_source,
                                                        mount_point, mount_type, mount_options);
  std::vector<machine_field> fields = {
      {"cpu", "CPU", cpu, false},
      {"cpus", nullptr, number(cpus), true},
      {"memory_bytes", nullptr, number(memory), true},
      {nullptr, "cores, memory", fmt::format("{} logical CPUs, {}", cpus, human_bytes(memory)),
       false},
      {"kernel", "kernel", kernel, false},
      {"directory", "directory", directory, false},
      {"filesystem", "filesystem", filesystem, false},
      {"mount_point", nullptr, mount_point, false},
      {"mount_source", nullptr, mount_source, false},
      {"mount_type", nullptr, mount_type, false},
      {"mount_options", nullptr, mount_options, false},
      {nullptr, "mount", mount, false},
      {"rwf_dontcache", nullptr, dontcache, false},
      {nullptr, "dontcache",
       dontcache == "yes" ? "RWF_DONTCACHE works here (W12's fastout_durable uses it)"
       : dontcache == "no" ? "RWF_DONTCACHE is not supported here: fastout_durable writes as "
                             "fastout_sync"
                           : "unknown (the probe could not write here)",
       false},
      {"load_average", "load average", load_average, false},
      {"compiler", "compiler", compiler, false},
  };
  add_build_fields(*this, fields);
  return fields;
}
#endif  // _WIN32

}  // namespace fastout_bench
