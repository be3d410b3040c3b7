// SPDX-License-Identifier: MIT
#include "win32.h"

#include <system_error>

#include <windows.h>

namespace fastout_bench {

std::wstring widen(const std::string& utf8) {
  if (utf8.empty()) return {};
  int size =
      ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  if (size <= 0) throw_last_error("convert to UTF-16 the path", utf8.c_str());
  std::wstring wide(static_cast<std::size_t>(size), L'\0');
  ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), &wide[0], size);
  return wide;
}

std::string narrow(const std::wstring& utf16) {
  if (utf16.empty()) return {};
  int size = ::WideCharToMultiByte(CP_UTF8, 0, utf16.data(), static_cast<int>(utf16.size()),
                                   nullptr, 0, nullptr, nullptr);
  if (size <= 0) return {};
  std::string text(static_cast<std::size_t>(size), '\0');
  ::WideCharToMultiByte(CP_UTF8, 0, utf16.data(), static_cast<int>(utf16.size()), &text[0], size,
                        nullptr, nullptr);
  return text;
}

void throw_last_error(const char* action, const char* path) {
  DWORD error = ::GetLastError();
  throw std::system_error(static_cast<int>(error), std::system_category(),
                          std::string("cannot ") + action + " \"" + path + "\"");
}

std::string wine_version() {
  HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  if (ntdll == nullptr) return {};
  using version_function = const char*(__cdecl*)();
  FARPROC found = ::GetProcAddress(ntdll, "wine_get_version");
  if (found == nullptr) return {};
  // A function pointer of another type, as GetProcAddress always needs.
  auto get_version = reinterpret_cast<version_function>(reinterpret_cast<void (*)()>(found));
  const char* version = get_version();
  return version != nullptr ? version : "";
}

}  // namespace fastout_bench
