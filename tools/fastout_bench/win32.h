// SPDX-License-Identifier: MIT
// fastout-bench on Windows: what the driver's Windows counterparts of its
// POSIX calls share (win32.cpp, built only for Windows): paths widened from
// UTF-8 for the W calls, Win32 errors thrown with the path, and whether the
// program runs under Wine, whose figures are only indicative.
#ifndef FASTOUT_BENCH_WIN32_H_
#define FASTOUT_BENCH_WIN32_H_

#if defined(_WIN32)

#  include <string>

namespace fastout_bench {

/// `utf8` as UTF-16, for CreateFileW and the other W calls.
std::wstring widen(const std::string& utf8);
/// `utf16` as UTF-8.
std::string narrow(const std::wstring& utf16);

/// Throws std::system_error with GetLastError() (std::system_category(),
/// which reads Win32 codes under MinGW and MSVC), naming what failed and
/// the path.
[[noreturn]] void throw_last_error(const char* action, const char* path);

/// Wine's version ("8.0") when the program runs under Wine, or empty on
/// Windows: ntdll's wine_get_version, which only Wine has.
std::string wine_version();

}  // namespace fastout_bench

#endif  // _WIN32
#endif  // FASTOUT_BENCH_WIN32_H_
