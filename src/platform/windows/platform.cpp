// SPDX-License-Identifier: MIT
// The platform table for Windows (docs/platforms.md, "Windows"), in C++17
// that MinGW-w64 and MSVC both compile.
//
// Descriptors are the C runtime's, made with _open_osfhandle() from handles
// this file opens with CreateFileW: shared for reading, writing and deleting
// (so another program may rename or delete a file while it is written), not
// inherited by child processes, and never in text mode. Every operation
// reaches the handle with _get_osfhandle() and calls Win32 itself: never the
// runtime's _write(), with its per-descriptor lock, its int that overflows
// past 2 GiB, its O_APPEND emulated by a seek before each write, and its
// text mode that turns "\n" into "\r\n". So a descriptor from the runtime's
// _open() or _fileno() can be adopted or borrowed as {fmt} takes them, and
// standard output is descriptor 1.
//
// Paths are UTF-8 (WTF-8: a lone surrogate of a Windows name survives the
// round trip), widened to UTF-16 for the W calls, with the \\?\ prefix for
// long ones. A directory "descriptor" is a handle on the directory; names
// relative to it are joined to its path (GetFinalPathNameByHandleW).
//
// Win32 errors become errno values through one table (errno_of(), below,
// and docs/platforms.md), and error_category() carries them so that
// `e.code() == std::errc::...` holds; its messages add what Windows said.
//
// What Windows has not: O_TMPFILE (create_unnamed() says EOPNOTSUPP, and a
// replacement is a named temporary file), an atomic exchange (ENOSYS: the
// replacement is put in place with ReplaceFileW or MoveFileExW), writeback
// control, preallocation, fopencookie (open_write_stream() says ENOTSUP),
// symbolic links as fastout follows them (a reparse point is what it points
// to; readlinkat() says EINVAL), and an fsync of a directory (ENOTSUP:
// see sync of a directory below).
#include "platform/platform_internal.h"

#include <windows.h>

#include <bcrypt.h>
#include <io.h>
#include <process.h>

#include <algorithm>
#include <atomic>
#include <clocale>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#ifndef STATUS_SUCCESS
#  define STATUS_SUCCESS 0
#endif
#ifndef ERROR_DISK_QUOTA_EXCEEDED
#  define ERROR_DISK_QUOTA_EXCEEDED 1295L  // winerror.h's; not in MinGW-w64's
#endif
#ifndef ERROR_FILE_READ_ONLY
#  define ERROR_FILE_READ_ONLY 6009L
#endif
#ifndef ERROR_PIPE_NOT_CONNECTED
#  define ERROR_PIPE_NOT_CONNECTED 233L
#endif

namespace fastout::detail {
namespace {

// ------------------------------------------------------------------ errors

// The errno value a Win32 error code stands for. The table is stable: a
// code's errno never changes (docs/platforms.md lists it). What it does not
// name is EIO, and the message says the Win32 code.
int errno_of(DWORD code) noexcept {
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_INVALID_NAME:
    case ERROR_DELETE_PENDING: return ENOENT;
    case ERROR_TOO_MANY_OPEN_FILES: return EMFILE;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_CANNOT_MAKE:
    case ERROR_CANT_ACCESS_FILE:
    case ERROR_NETWORK_ACCESS_DENIED:
    case ERROR_FILE_READ_ONLY: return EACCES;
    case ERROR_INVALID_HANDLE:
    case ERROR_INVALID_TARGET_HANDLE:
    case ERROR_DIRECT_ACCESS_HANDLE: return EBADF;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_NOT_ENOUGH_QUOTA:
    case ERROR_COMMITMENT_LIMIT: return ENOMEM;
    case ERROR_WRITE_PROTECT: return EROFS;
    case ERROR_NOT_READY:
    case ERROR_RETRY: return EAGAIN;
    case ERROR_CRC:
    case ERROR_SEEK:
    case ERROR_SECTOR_NOT_FOUND:
    case ERROR_WRITE_FAULT:
    case ERROR_READ_FAULT:
    case ERROR_GEN_FAILURE:
    case ERROR_IO_DEVICE:
    case ERROR_DEV_NOT_EXIST:
    case ERROR_NETNAME_DELETED:
    case ERROR_UNEXP_NET_ERR: return EIO;
    case ERROR_HANDLE_DISK_FULL:
    case ERROR_DISK_FULL:
    case ERROR_DISK_QUOTA_EXCEEDED: return ENOSPC;
    case ERROR_NOT_SUPPORTED: return ENOTSUP;
    case ERROR_CALL_NOT_IMPLEMENTED: return ENOSYS;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_INVALID_PARAMETER:
    case ERROR_INVALID_FUNCTION:
    case ERROR_NEGATIVE_SEEK:
    case ERROR_BAD_LENGTH:
    case ERROR_NOT_A_REPARSE_POINT: return EINVAL;
    case ERROR_BROKEN_PIPE:
    case ERROR_NO_DATA:
    case ERROR_PIPE_NOT_CONNECTED: return EPIPE;  // the pipe's reader is gone
    case ERROR_BUFFER_OVERFLOW:
    case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
    case ERROR_DIR_NOT_EMPTY: return ENOTEMPTY;
    case ERROR_BUSY:
    case ERROR_LOCKED:
    case ERROR_USER_MAPPED_FILE: return EBUSY;
    case ERROR_DIRECTORY: return ENOTDIR;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_OPERATION_ABORTED: return ECANCELED;
    case ERROR_CANT_RESOLVE_FILENAME: return ELOOP;
    case ERROR_NOT_LOCKED:
    case ERROR_LOCK_FAILED: return ENOLCK;
    case ERROR_NOACCESS: return EFAULT;
    case ERROR_PRIVILEGE_NOT_HELD: return EPERM;
    case ERROR_FILE_TOO_LARGE: return EFBIG;
    case ERROR_NO_UNICODE_TRANSLATION: return EILSEQ;
    case ERROR_INSUFFICIENT_BUFFER: return ERANGE;
    default: return EIO;
  }
}

// What Windows said of this thread's last failure, for error_category()'s
// messages: the errno it became, and the Win32 code.
struct last_failure {
  int error_number = 0;
  DWORD code = 0;
};
thread_local last_failure last;

// Sets errno from a Win32 error code, remembers the code, and returns -1.
int fail_with(DWORD code) noexcept {
  errno = errno_of(code);
  last.error_number = errno;
  last.code = code;
  return -1;
}
int fail_last() noexcept { return fail_with(::GetLastError()); }
// An errno of fastout's own making, with no Win32 code behind it.
int fail_errno(int error_number) noexcept {
  errno = error_number;
  last.error_number = 0;
  last.code = 0;
  return -1;
}

// ----------------------------------------------------------------- strings

// UTF-8 to UTF-16, accepting the 3-byte forms of lone surrogates (WTF-8) so
// that every Windows name survives being spelled in UTF-8 and back. False
// (EILSEQ) for anything else that is not UTF-8.
bool widen(const char* text, std::size_t size, std::wstring& out) {
  out.clear();
  out.reserve(size);
  const auto* s = reinterpret_cast<const unsigned char*>(text);
  std::size_t i = 0;
  while (i < size) {
    const unsigned c = s[i];
    if (c < 0x80) {
      out.push_back(static_cast<wchar_t>(c));
      ++i;
      continue;
    }
    int length;
    std::uint32_t code;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
      code = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      code = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      code = c & 0x07;
    } else {
      return false;
    }
    if (size - i < static_cast<std::size_t>(length)) return false;
    for (int k = 1; k < length; ++k) {
      if ((s[i + static_cast<std::size_t>(k)] & 0xC0) != 0x80) return false;
      code = (code << 6) | (s[i + static_cast<std::size_t>(k)] & 0x3Fu);
    }
    if ((length == 3 && code < 0x800) || (length == 4 && (code < 0x10000 || code > 0x10FFFF)))
      return false;  // overlong, or past Unicode
    if (code >= 0x10000) {
      code -= 0x10000;
      out.push_back(static_cast<wchar_t>(0xD800 + (code >> 10)));
      out.push_back(static_cast<wchar_t>(0xDC00 + (code & 0x3FF)));
    } else {
      out.push_back(static_cast<wchar_t>(code));  // a lone surrogate too (WTF-8)
    }
    i += static_cast<std::size_t>(length);
  }
  return true;
}

// UTF-16 to UTF-8; a lone surrogate becomes its 3-byte form (WTF-8).
std::string narrow(const wchar_t* text, std::size_t size) {
  std::string out;
  out.reserve(size);
  for (std::size_t i = 0; i < size; ++i) {
    std::uint32_t code = static_cast<std::uint16_t>(text[i]);
    if (code >= 0xD800 && code <= 0xDBFF && i + 1 < size &&
        static_cast<std::uint16_t>(text[i + 1]) >= 0xDC00 &&
        static_cast<std::uint16_t>(text[i + 1]) <= 0xDFFF) {
      code =
          0x10000 + ((code - 0xD800) << 10) + (static_cast<std::uint16_t>(text[i + 1]) - 0xDC00u);
      ++i;
    }
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (code >> 18)));
      out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }
  return out;
}

// ------------------------------------------------------------------- paths

bool is_separator(wchar_t c) { return c == L'/' || c == L'\\'; }

// "C:\...", "\\server\...", "\...": not relative to a directory.
bool is_absolute(const std::wstring& path) {
  if (path.size() >= 1 && is_separator(path[0])) return true;
  return path.size() >= 3 && path[1] == L':' && is_separator(path[2]);
}

// The longest path the plain Win32 calls take without \\?\; LLVM keeps 12
// characters back for the 8.3 name a directory may need.
constexpr std::size_t short_path_limit = MAX_PATH - 12;

// A path Win32 takes: short ones as they are (Windows itself makes "/" a
// separator and resolves "." and ".."), long ones made absolute and
// prefixed with \\?\ (or \\?\UNC\), under which nothing is resolved.
bool win32_path(std::wstring& path) {
  if (path.size() < short_path_limit) return true;
  if (path.compare(0, 4, L"\\\\?\\") == 0 || path.compare(0, 4, L"\\\\.\\") == 0) return true;
  // The size it asks for, until the result fits (Wine and Windows count
  // the terminating NUL differently in the first answer).
  std::wstring full(path.size() + MAX_PATH, L'\0');
  for (;;) {
    const DWORD length =
        ::GetFullPathNameW(path.c_str(), static_cast<DWORD>(full.size()), &full[0], nullptr);
    if (length == 0) return fail_last(), false;
    if (length < full.size()) {
      full.resize(length);
      break;
    }
    full.resize(static_cast<std::size_t>(length) + 1);
  }
  if (full.compare(0, 2, L"\\\\") == 0)
    path = L"\\\\?\\UNC\\" + full.substr(2);
  else
    path = L"\\\\?\\" + full;
  return true;
}

HANDLE handle_of(int fd) noexcept {
  if (fd < 0) return INVALID_HANDLE_VALUE;
  return reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
}

// The path of the directory behind `handle` from its name on its volume
// (FileNameInfo: "\\users\\me\\dir") and the drive whose volume serial number
// is the handle's: for where GetFinalPathNameByHandleW cannot answer. Wine
// 8's fails with ERROR_MORE_DATA for any path longer than MAX_PATH,
// whatever the buffer. False if no drive has that volume.
bool path_from_volume_name(HANDLE handle, std::wstring& out) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!::GetFileInformationByHandle(handle, &info)) return false;
  std::vector<char> buffer(sizeof(FILE_NAME_INFO) + 32768 * sizeof(wchar_t));
  auto* name = reinterpret_cast<FILE_NAME_INFO*>(buffer.data());
  if (!::GetFileInformationByHandleEx(handle, FileNameInfo, name,
                                      static_cast<DWORD>(buffer.size())))
    return false;
  const DWORD drives = ::GetLogicalDrives();
  for (int drive = 0; drive < 26; ++drive) {
    if ((drives & (1u << drive)) == 0) continue;
    const wchar_t root[] = {static_cast<wchar_t>(L'A' + drive), L':', L'\\', 0};
    const UINT type = ::GetDriveTypeW(root);
    if (type == DRIVE_UNKNOWN || type == DRIVE_NO_ROOT_DIR || type == DRIVE_CDROM) continue;
    DWORD serial = 0;
    if (!::GetVolumeInformationW(root, nullptr, 0, &serial, nullptr, nullptr, nullptr, 0) ||
        serial != info.dwVolumeSerialNumber)
      continue;
    out = std::wstring(root, 2) +
          std::wstring(name->FileName, name->FileNameLength / sizeof(wchar_t));
    return true;
  }
  return false;
}

// The path of the directory behind `dir`, as GetFinalPathNameByHandleW
// gives it (\\?\C:\...), without the prefix when the result is short.
bool directory_path(int dir, std::wstring& out) {
  HANDLE handle = handle_of(dir);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF), false;
  std::wstring path(MAX_PATH, L'\0');
  for (;;) {
    const DWORD length = ::GetFinalPathNameByHandleW(
        handle, &path[0], static_cast<DWORD>(path.size()), FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (length == 0) {
      // Wine answers ERROR_MORE_DATA, with no size, for any long path.
      const DWORD code = ::GetLastError();
      if (code == ERROR_MORE_DATA && path_from_volume_name(handle, path)) {
        if (path.size() >= short_path_limit) path = L"\\\\?\\" + path;
        break;
      }
      if ((code != ERROR_MORE_DATA && code != ERROR_INSUFFICIENT_BUFFER &&
           code != ERROR_NOT_ENOUGH_MEMORY) ||
          path.size() >= 32768)
        return fail_with(code), false;
      path.resize(path.size() * 2);
      continue;
    }
    if (length < path.size()) {
      path.resize(length);
      break;
    }
    path.resize(static_cast<std::size_t>(length) + 1);
  }
  out = std::move(path);
  return true;
}

// `path` relative to `dir` (AT_FDCWD: the current directory), in UTF-16 as
// Win32 takes it. False with errno set if it cannot be.
bool path_at(int dir, const char* path, std::wstring& out) {
  if (path == nullptr) return fail_errno(EFAULT), false;
  std::wstring name;
  if (!widen(path, std::strlen(path), name)) return fail_errno(EILSEQ), false;
  if (name.empty()) return fail_errno(ENOENT), false;
  if (dir == AT_FDCWD || is_absolute(name)) {
    out = std::move(name);
    return win32_path(out);
  }
  std::wstring base;
  if (!directory_path(dir, base)) return false;
  // Under \\?\ nothing is resolved: "." and "./" are dropped here, and
  // "/" becomes "\".
  std::replace(name.begin(), name.end(), L'/', L'\\');
  while (name.compare(0, 2, L".\\") == 0) name.erase(0, 2);
  if (name == L".") name.clear();
  if (!name.empty() && base.back() != L'\\') base.push_back(L'\\');
  base += name;
  if (base.compare(0, 4, L"\\\\?\\") == 0 && base.size() < short_path_limit &&
      base.find(L"\\..") == std::wstring::npos) {
    if (base.compare(4, 4, L"UNC\\") == 0)
      base = L"\\\\" + base.substr(8);
    else
      base.erase(0, 4);
  }
  out = std::move(base);
  return win32_path(out);
}

// ---------------------------------------------------------------- opening

constexpr DWORD share_all = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

// A descriptor for a handle this file opened, or -1 (the handle closed).
int descriptor_for(HANDLE handle, int flags) {
  int crt_flags = 0;
  if ((flags & O_ACCMODE) == O_RDONLY) crt_flags |= _O_RDONLY;
  const int fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(handle), crt_flags);
  if (fd < 0) {
    const int saved = errno != 0 ? errno : EMFILE;
    ::CloseHandle(handle);
    return fail_errno(saved);
  }
  return fd;
}

int open_at(int dir, const char* path, int flags, mode_t mode) {
  std::wstring wide;
  if (!path_at(dir, path, wide)) return -1;
  const int access_mode = flags & O_ACCMODE;
  DWORD access = 0;
  if (access_mode == O_RDONLY || access_mode == O_RDWR) access |= GENERIC_READ;
  const bool append = (flags & O_APPEND) != 0;
  if (access_mode == O_WRONLY || access_mode == O_RDWR) {
    // Appending: FILE_APPEND_DATA without FILE_WRITE_DATA, and every write
    // lands at the end, atomically, as O_APPEND on POSIX (Rust's std does
    // the same). The runtime's _O_APPEND seeks before each write instead.
    access |= append ? (FILE_GENERIC_WRITE & ~FILE_WRITE_DATA) : GENERIC_WRITE;
  }
  const bool directory = (flags & O_DIRECTORY) != 0;
  if (directory) access = FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE;
  DWORD disposition;
  const bool create = (flags & O_CREAT) != 0;
  const bool truncate = (flags & O_TRUNC) != 0;
  if (create && (flags & O_EXCL))
    disposition = CREATE_NEW;
  else if (create && truncate)
    disposition = CREATE_ALWAYS;
  else if (create)
    disposition = OPEN_ALWAYS;
  else if (truncate)
    disposition = TRUNCATE_EXISTING;
  else
    disposition = OPEN_EXISTING;
  // Truncating needs FILE_WRITE_DATA, which appending leaves out: the file
  // is opened with it, and the descriptor gets a copy of the handle without.
  const bool reduce = append && truncate && disposition != CREATE_NEW;
  const DWORD open_access = reduce ? access | GENERIC_WRITE : access;
  DWORD attributes = FILE_ATTRIBUTE_NORMAL;
  // A new file's one permission, as the C runtime's _open() gives it: read-
  // only when the mode, masked by the umask (_umask()), has no S_IWUSR.
  // The handle itself may still write, as on POSIX.
  if (create && (mode & ~platform.read_umask() & S_IWUSR) == 0)
    attributes = FILE_ATTRIBUTE_READONLY;
  if (directory) attributes |= FILE_FLAG_BACKUP_SEMANTICS;
  if ((flags & O_DSYNC) != 0) attributes |= FILE_FLAG_WRITE_THROUGH;
  SECURITY_ATTRIBUTES security = {sizeof security, nullptr, FALSE};  // never inherited
  HANDLE handle = ::CreateFileW(wide.c_str(), open_access, share_all, &security, disposition,
                                attributes, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    const DWORD code = ::GetLastError();
    if (code == ERROR_ACCESS_DENIED && !directory) {
      // What POSIX says of a directory opened for writing.
      const DWORD found = ::GetFileAttributesW(wide.c_str());
      if (found != INVALID_FILE_ATTRIBUTES && (found & FILE_ATTRIBUTE_DIRECTORY)) {
        fail_with(code);
        return fail_errno(EISDIR);
      }
      if (create && (flags & O_EXCL) && found != INVALID_FILE_ATTRIBUTES) return fail_errno(EEXIST);
    }
    if (code == ERROR_DIRECTORY && directory) return fail_errno(ENOTDIR);
    return fail_with(code);
  }
  if (directory) {
    BY_HANDLE_FILE_INFORMATION info;
    if (::GetFileInformationByHandle(handle, &info) &&
        !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
      ::CloseHandle(handle);
      return fail_errno(ENOTDIR);
    }
  }
  if (reduce) {
    HANDLE reduced = INVALID_HANDLE_VALUE;
    const BOOL ok = ::DuplicateHandle(::GetCurrentProcess(), handle, ::GetCurrentProcess(),
                                      &reduced, access, FALSE, 0);
    const DWORD code = ::GetLastError();
    ::CloseHandle(handle);
    if (!ok) return fail_with(code);
    handle = reduced;
  }
  return descriptor_for(handle, flags);
}

int open_path(const char* path, int flags, mode_t mode) {
  return open_at(AT_FDCWD, path, flags, mode);
}

int unsupported(int error_number) { return fail_errno(error_number); }

int create_unnamed(int) { return unsupported(EOPNOTSUPP); }
int link_unnamed(int, int, const char*) { return unsupported(EOPNOTSUPP); }

// ----------------------------------------------------------------- writing

// Bytes of a UTF-8 character that a write to a console ended in the middle
// of, kept for the next write to that descriptor: a character is never cut
// in two calls of WriteConsoleW.
struct console_tail {
  int fd = -1;
  unsigned char bytes[4] = {};
  unsigned char size = 0;
};
std::mutex console_mutex;
console_tail console_tails[8];

console_tail* tail_of(int fd, bool make) {
  console_tail* free_slot = nullptr;
  for (console_tail& tail : console_tails) {
    if (tail.fd == fd) return &tail;
    if (tail.fd == -1 && free_slot == nullptr) free_slot = &tail;
  }
  if (make && free_slot != nullptr) {
    free_slot->fd = fd;
    free_slot->size = 0;
  }
  return make ? free_slot : nullptr;
}

void forget_console_tail(int fd) {
  std::lock_guard<std::mutex> lock(console_mutex);
  if (console_tail* tail = tail_of(fd, false)) *tail = console_tail{};
}

// How long the UTF-8 character that starts with `lead` is: 1 to 4, or 0 for
// a byte that starts none.
int sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Whether `bytes` (size 2 to 4, the length its lead says) is one character.
bool whole_character(const unsigned char* bytes, int size, std::uint32_t& code) {
  code = bytes[0] & (size == 2 ? 0x1Fu : size == 3 ? 0x0Fu : 0x07u);
  for (int k = 1; k < size; ++k) {
    if ((bytes[k] & 0xC0) != 0x80) return false;
    code = (code << 6) | (bytes[k] & 0x3Fu);
  }
  if (size == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) return false;
  if (size == 4 && (code < 0x10000 || code > 0x10FFFF)) return false;
  return true;
}

// Writes all of `text` to the console, continuing short writes.
bool console_write_all(int fd, const char16_t* text, std::size_t count) {
  while (count > 0) {
    const ssize_t written = platform.write_console(fd, text, count);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (written == 0) return fail_errno(EIO), false;
    text += written;
    count -= static_cast<std::size_t>(written);
  }
  return true;
}

// The UTF-16 side of a write to a console: characters in, as one or two
// code units, and out in WriteConsoleW calls of up to 2048 units.
class console_units {
 public:
  // Whether one more character fits: a character is never split between
  // two calls.
  bool has_room() const { return count_ + 2 <= sizeof units_ / sizeof units_[0]; }
  void put(std::uint32_t code) {
    if (code >= 0x10000) {
      code -= 0x10000;
      units_[count_++] = static_cast<char16_t>(0xD800 + (code >> 10));
      units_[count_++] = static_cast<char16_t>(0xDC00 + (code & 0x3FF));
    } else {
      units_[count_++] = static_cast<char16_t>(code);
    }
  }
  // Writes what was put, continuing short writes: false (errno set) if the
  // console failed.
  bool send(int fd) {
    if (count_ > 0 && !console_write_all(fd, units_, count_)) return false;
    count_ = 0;
    return true;
  }

 private:
  char16_t units_[2048];
  std::size_t count_ = 0;
};

// UTF-8 to a console, as UTF-16: a character is never split between two
// WriteConsoleW calls (an incomplete one at the end waits for the next
// write), and a byte that is not UTF-8 is shown as U+FFFD. Every byte is
// taken: the result is `size`, or -1 if nothing could be written.
ssize_t write_to_console(int fd, const unsigned char* data, std::size_t size) {
  std::lock_guard<std::mutex> lock(console_mutex);
  console_tail* tail = tail_of(fd, true);
  console_units units;
  std::size_t taken = 0;  // bytes of `data` whose text is in `units` or out
  std::size_t sent = 0;   // bytes of `data` whose text is out
  unsigned char pending[4];
  int pending_size = 0;
  if (tail != nullptr && tail->size > 0) {
    pending_size = tail->size;
    std::memcpy(pending, tail->bytes, tail->size);
    tail->size = 0;
  }
  std::size_t i = 0;
  while (i < size || pending_size > 0) {
    if (!units.has_room()) {
      if (!units.send(fd)) return sent > 0 ? static_cast<ssize_t>(sent) : -1;
      sent = taken;
    }
    // The next character: bytes kept from before, then this write's.
    unsigned char bytes[4];
    int have = 0;
    while (have < pending_size) bytes[have] = pending[have], ++have;
    const int need = sequence_length(have > 0 ? bytes[0] : data[i]);
    if (need == 0 || need == 1) {
      units.put(need == 0 ? 0xFFFD : (have > 0 ? bytes[0] : data[i]));
      if (have > 0) {
        std::memmove(pending, pending + 1, static_cast<std::size_t>(--pending_size));
      } else {
        ++i;
      }
      taken = i;
      continue;
    }
    std::size_t from_data = 0;
    while (have < need && i + from_data < size) bytes[have++] = data[i + from_data++];
    if (have < need) {
      // The end of the data, in the middle of a character: kept, if what
      // there is can still become one.
      bool could_be = true;
      for (int k = 1; k < have; ++k) could_be = could_be && (bytes[k] & 0xC0) == 0x80;
      if (could_be && tail != nullptr) {
        std::memcpy(tail->bytes, bytes, static_cast<std::size_t>(have));
        tail->size = static_cast<unsigned char>(have);
        i = size;
        pending_size = 0;
        taken = size;
        break;
      }
    }
    std::uint32_t code;
    if (have == need && whole_character(bytes, need, code)) {
      units.put(code);
      i += from_data;
      pending_size = 0;
    } else {
      // Not a character: its first byte is shown as U+FFFD, and the next
      // byte starts the next try.
      units.put(0xFFFD);
      if (pending_size > 0) {
        std::memmove(pending, pending + 1, static_cast<std::size_t>(--pending_size));
      } else {
        ++i;
      }
    }
    taken = i;
  }
  if (!units.send(fd)) return sent > 0 ? static_cast<ssize_t>(sent) : -1;
  return static_cast<ssize_t>(size);
}

ssize_t write_bytes(int fd, const void* data, size_t size) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  if (size == 0) return 0;  // a zero-byte WriteFile would send an empty message down a pipe
  if (platform.is_console(fd) == 1)
    return write_to_console(fd, static_cast<const unsigned char*>(data), size);
  // WriteFile takes a DWORD; max_write_size keeps each call below INT32_MAX.
  const DWORD piece = static_cast<DWORD>(std::min<size_t>(size, max_write_size));
  DWORD written = 0;
  if (!::WriteFile(handle, data, piece, &written, nullptr)) return fail_last();
  if (written == 0 && ::GetFileType(handle) == FILE_TYPE_PIPE) return fail_errno(EAGAIN);
  return static_cast<ssize_t>(written);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  // Windows has no gathering write for handles that are not overlapped:
  // one WriteFile per segment, stopping at a short one. Not through the
  // table's write(): one writev() is one call of the table, as elsewhere,
  // and a test's fake write() may itself be built on writev().
  ssize_t total = 0;
  for (int k = 0; k < count; ++k) {
    if (iov[k].iov_len == 0) continue;
    const ssize_t written = write_bytes(fd, iov[k].iov_base, iov[k].iov_len);
    if (written < 0) return total > 0 ? total : -1;
    total += written;
    if (static_cast<size_t>(written) < iov[k].iov_len) break;
  }
  return total;
}

ssize_t write_uncached(int, const struct iovec*, int) { return unsupported(EOPNOTSUPP); }

// A pipe made non-blocking (PIPE_NOWAIT) by whoever gave us the descriptor
// takes nothing while it is full: wait a little before the next try.
int wait_writable(int) {
  ::Sleep(1);
  return 0;
}

int close_fd(int fd) {
  if (handle_of(fd) == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  forget_console_tail(fd);
  return ::_close(fd) == 0 ? 0 : -1;
}

// --------------------------------------------------------------- status

// 100-nanosecond intervals since 1601 to seconds since 1970.
std::int64_t unix_time(const FILETIME& time) {
  const std::int64_t ticks = static_cast<std::int64_t>(
      (static_cast<std::uint64_t>(time.dwHighDateTime) << 32) | time.dwLowDateTime);
  return ticks / 10000000 - 11644473600LL;
}

int stat_handle(HANDLE handle, struct stat* st, bool as_link) {
  std::memset(st, 0, sizeof *st);
  const DWORD type = ::GetFileType(handle);
  if (type == FILE_TYPE_CHAR || type == FILE_TYPE_PIPE) {
    st->st_mode = static_cast<mode_t>((type == FILE_TYPE_CHAR ? S_IFCHR : S_IFIFO) | 0666);
    st->st_nlink = 1;
    return 0;
  }
  if (type == FILE_TYPE_UNKNOWN && ::GetLastError() != NO_ERROR) return fail_last();
  BY_HANDLE_FILE_INFORMATION info;
  if (!::GetFileInformationByHandle(handle, &info)) return fail_last();
  unsigned mode;
  if (as_link && (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
    mode = S_IFLNK | 0777;
  else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    mode = S_IFDIR | 0777;
  else
    mode = S_IFREG | ((info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) ? 0444 : 0666);
  st->st_mode = static_cast<mode_t>(mode);
  st->st_dev = static_cast<decltype(st->st_dev)>(info.dwVolumeSerialNumber);
  // The runtime's st_ino is 16 bits: the 64-bit file index, folded. Two
  // files seen as the same by their st_dev and st_ino are then only
  // probably the same (1 chance in 65536 otherwise); fastout uses it only
  // to confirm what names already say, and identify() where it must know.
  const std::uint64_t index =
      (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  st->st_ino =
      static_cast<decltype(st->st_ino)>(index ^ (index >> 16) ^ (index >> 32) ^ (index >> 48));
  st->st_nlink =
      static_cast<decltype(st->st_nlink)>(std::min<DWORD>(info.nNumberOfLinks, SHRT_MAX));
  st->st_size = static_cast<off_t>((static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) |
                                   info.nFileSizeLow);
  st->st_atime = static_cast<decltype(st->st_atime)>(unix_time(info.ftLastAccessTime));
  st->st_mtime = static_cast<decltype(st->st_mtime)>(unix_time(info.ftLastWriteTime));
  st->st_ctime = static_cast<decltype(st->st_ctime)>(unix_time(info.ftCreationTime));
  return 0;
}

int fstat_fd(int fd, struct stat* st) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  return stat_handle(handle, st, false);
}

// The whole id, which st_ino folds: FileIdInfo's 128 bits (ReFS needs all
// of them; Windows 8 and later), else the 64-bit file index, unique on NTFS
// and FAT while the file exists.
int identify(int fd, file_identity* identity) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  FILE_ID_INFO id;
  if (::GetFileInformationByHandleEx(handle, FileIdInfo, &id, sizeof id)) {
    std::uint64_t halves[2];
    static_assert(sizeof id.FileId.Identifier == sizeof halves, "FILE_ID_128 is 128 bits");
    std::memcpy(halves, id.FileId.Identifier, sizeof halves);
    identity->device = id.VolumeSerialNumber;
    identity->number_high = halves[1];
    identity->number_low = halves[0];
    return 0;
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (!::GetFileInformationByHandle(handle, &info)) return fail_last();
  identity->device = info.dwVolumeSerialNumber;
  identity->number_high = 0;
  identity->number_low =
      (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  return 0;
}

// Symbolic links: a reparse point is looked at as itself only with
// AT_SYMLINK_NOFOLLOW, and then only to say what it is; fastout never
// follows one by hand (readlinkat() says EINVAL), and opens go through it
// as Windows does.
int fstatat_path(int dir, const char* path, struct stat* st, int flags) {
  std::wstring wide;
  if (!path_at(dir, path, wide)) return -1;
  const bool no_follow = (flags & AT_SYMLINK_NOFOLLOW) != 0;
  DWORD attributes = FILE_FLAG_BACKUP_SEMANTICS;
  if (no_follow) attributes |= FILE_FLAG_OPEN_REPARSE_POINT;
  HANDLE handle = ::CreateFileW(wide.c_str(), FILE_READ_ATTRIBUTES, share_all, nullptr,
                                OPEN_EXISTING, attributes, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return fail_last();
  // Only a symbolic link (or a junction) is a link; other reparse points
  // (deduplicated files, OneDrive's placeholders) are what they hold.
  bool as_link = false;
  if (no_follow) {
    FILE_ATTRIBUTE_TAG_INFO tag = {};
    if (::GetFileInformationByHandleEx(handle, FileAttributeTagInfo, &tag, sizeof tag))
      as_link = (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
                (tag.ReparseTag == IO_REPARSE_TAG_SYMLINK ||
                 tag.ReparseTag == IO_REPARSE_TAG_MOUNT_POINT);
  }
  const int result = stat_handle(handle, st, as_link);
  const int saved = errno;
  ::CloseHandle(handle);
  errno = saved;
  return result;
}

ssize_t readlinkat(int dir, const char* path, char*, size_t) {
  // As readlink() of a name that is not a symbolic link: fastout does not
  // follow links by hand on Windows (above).
  struct stat st;
  if (fstatat_path(dir, path, &st, AT_SYMLINK_NOFOLLOW) != 0) return -1;
  return unsupported(EINVAL);
}

int is_console(int fd) {
  HANDLE handle = handle_of(fd);
  DWORD mode = 0;
  return handle != INVALID_HANDLE_VALUE && ::GetConsoleMode(handle, &mode) ? 1 : 0;
}

ssize_t write_console(int fd, const char16_t* text, size_t count) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  DWORD written = 0;
  // WriteConsoleW has taken at most 64 KiB a call on old systems.
  const DWORD piece = static_cast<DWORD>(std::min<size_t>(count, 16384));
  if (!::WriteConsoleW(handle, text, piece, &written, nullptr)) return fail_last();
  return static_cast<ssize_t>(written);
}

// A console is Windows' terminal: line-buffered, as a terminal on Linux.
int is_terminal(int fd) { return platform.is_console(fd); }

off_t lseek_fd(int fd, off_t offset, int whence) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  if (::GetFileType(handle) != FILE_TYPE_DISK) return fail_errno(ESPIPE);
  DWORD method = whence == SEEK_SET ? FILE_BEGIN : whence == SEEK_CUR ? FILE_CURRENT : FILE_END;
  if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return fail_errno(EINVAL);
  LARGE_INTEGER distance;
  distance.QuadPart = offset;
  LARGE_INTEGER position;
  if (!::SetFilePointerEx(handle, distance, &position, method)) return fail_last();
  return static_cast<off_t>(position.QuadPart);
}

ssize_t read_fd(int fd, void* data, size_t size) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  DWORD got = 0;
  const DWORD piece = static_cast<DWORD>(std::min<size_t>(size, max_write_size));
  if (!::ReadFile(handle, data, piece, &got, nullptr)) {
    if (::GetLastError() == ERROR_BROKEN_PIPE) return 0;  // the writer is gone: the end
    return fail_last();
  }
  return static_cast<ssize_t>(got);
}

// ------------------------------------------------------------- durability

// FlushFileBuffers writes the file's data and metadata and has the drive
// flush its cache. A directory has nothing of the kind on Windows: NTFS
// logs a rename in its journal, which it writes when it chooses, and no
// call makes one directory's names durable (FlushFileBuffers on a handle
// to a directory is not documented to). So sync_directory is refused,
// with ENOTSUP, rather than claimed.
int fsync_fd(int fd) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  BY_HANDLE_FILE_INFORMATION info;
  if (::GetFileType(handle) == FILE_TYPE_DISK && ::GetFileInformationByHandle(handle, &info) &&
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
    return unsupported(ENOTSUP);
  if (!::FlushFileBuffers(handle)) {
    const DWORD code = ::GetLastError();
    // A console or a pipe: as fsync() of a pipe on Linux.
    if (code == ERROR_INVALID_HANDLE || code == ERROR_INVALID_FUNCTION) return unsupported(EINVAL);
    return fail_with(code);
  }
  return 0;
}

int full_fsync(int) { return unsupported(ENOTSUP); }  // FlushFileBuffers is a full sync
int start_writeback(int, off_t, off_t) { return unsupported(ENOSYS); }
int wait_for_writeback(int, off_t, off_t) { return unsupported(ENOSYS); }

// ------------------------------------------------ putting files in place

// Another process holding the target (an antivirus scanner, an indexer,
// a reader without FILE_SHARE_DELETE) refuses a rename for a moment: tried
// again after 1, 2, 4, ... 64 ms, 10 tries at most (about 0.4 s in all),
// as SQLite and LLVM do.
constexpr int rename_tries = 10;
bool worth_another_try(DWORD code) {
  return code == ERROR_ACCESS_DENIED || code == ERROR_SHARING_VIOLATION ||
         code == ERROR_LOCK_VIOLATION;
}
void rename_delay(int attempt) { ::Sleep(1u << std::min(attempt, 6)); }

// Whether a writer holds a lock (try_lock()) on the file at `path`: then
// that writer still has it open. A shared lock of our own is refused only
// by an exclusive one, which a replacement's writer keeps on its new file
// until it is in place (src/stages/replace.cpp); a clean-up's shared lock,
// or a scanner's handle, is no lock of that kind.
bool locked_by_its_writer(const std::wstring& path) {
  HANDLE handle = ::CreateFileW(path.c_str(), GENERIC_READ, share_all, nullptr, OPEN_EXISTING,
                                FILE_ATTRIBUTE_NORMAL, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return false;
  OVERLAPPED at = {};
  const bool locked =
      !::LockFileEx(handle, LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD, &at) &&
      ::GetLastError() == ERROR_LOCK_VIOLATION;
  ::CloseHandle(handle);  // and with it the lock, if it was taken
  return locked;
}

int renameat_paths(int old_dir, const char* old_path, int new_dir, const char* new_path) {
  std::wstring from, to;
  if (!path_at(old_dir, old_path, from) || !path_at(new_dir, new_path, to)) return -1;
  DWORD code = NO_ERROR;
  for (int attempt = 0; attempt < rename_tries; ++attempt) {
    if (attempt > 0) rename_delay(attempt - 1);
    const DWORD target = ::GetFileAttributesW(to.c_str());
    // A read-only target is one Windows will not have replaced: ReplaceFileW
    // and MoveFileExW refuse it (ERROR_ACCESS_DENIED), as Python's
    // os.replace() and .NET's File.Replace() do, and waiting does not
    // change that. Said at once, and in words that say why.
    if (target != INVALID_FILE_ATTRIBUTES && (target & FILE_ATTRIBUTE_READONLY) &&
        !(target & FILE_ATTRIBUTE_DIRECTORY))
      return fail_with(ERROR_FILE_READ_ONLY);
    if (target != INVALID_FILE_ATTRIBUTES && !(target & FILE_ATTRIBUTE_DIRECTORY)) {
      // A target that another handle holds without FILE_SHARE_DELETE (a
      // scanner, a reader) can be neither replaced nor moved over until it
      // is let go: asked first, as ReplaceFileW opens it (for DELETE,
      // sharing everything), because Wine's ReplaceFileW would leave an
      // empty file of its own (rf*.tmp) behind at every try.
      HANDLE probe = ::CreateFileW(to.c_str(), DELETE, share_all, nullptr, OPEN_EXISTING,
                                   FILE_ATTRIBUTE_NORMAL, nullptr);
      if (probe == INVALID_HANDLE_VALUE) {
        code = ::GetLastError();
        if (code == ERROR_FILE_NOT_FOUND || worth_another_try(code)) continue;
        break;
      }
      ::CloseHandle(probe);
      // ReplaceFileW keeps the target's security descriptor, attributes,
      // creation time and alternate streams.
      if (::ReplaceFileW(to.c_str(), from.c_str(), nullptr,
                         REPLACEFILE_IGNORE_MERGE_ERRORS | REPLACEFILE_IGNORE_ACL_ERRORS, nullptr,
                         nullptr))
        return 0;
      code = ::GetLastError();
      if (code == ERROR_UNABLE_TO_MOVE_REPLACEMENT_2)
        return fail_with(code);  // cannot happen without a backup name
      // ReplaceFileW opens the new file with no sharing at all (Microsoft's
      // documentation says so, and Wine does the same), so it fails with
      // ERROR_SHARING_VIOLATION for as long as its writer holds it, whatever
      // holds the target: no retry helps, and MoveFileExW below would hide
      // it where nothing holds the target, and fail where a reader does
      // (Windows and Wine refuse to move a file over one that is open, even
      // with FILE_SHARE_DELETE). EBUSY at once says so: the writer lets go
      // of its lock and asks again (put_in_place() in replace.cpp).
      if (worth_another_try(code) && locked_by_its_writer(from)) return unsupported(EBUSY);
      if (code == ERROR_FILE_NOT_FOUND &&
          ::GetFileAttributesW(to.c_str()) == INVALID_FILE_ATTRIBUTES)
        continue;  // the target went away meanwhile: a plain move next time
      // ERROR_UNABLE_TO_REMOVE_REPLACED: nothing changed, the target is
      // held open elsewhere. ERROR_UNABLE_TO_MOVE_REPLACEMENT: the target
      // is gone and the new file still at its name (Microsoft's
      // documentation, without a backup name): the move below puts it in.
      if (code == ERROR_UNABLE_TO_REMOVE_REPLACED || code == ERROR_UNABLE_TO_MOVE_REPLACEMENT)
        code = ERROR_ACCESS_DENIED;
      if (!worth_another_try(code)) break;
      // Some filesystems (network shares, FAT) refuse ReplaceFileW where
      // a move does: try that too, once a try.
      if (::MoveFileExW(from.c_str(), to.c_str(),
                        MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
        return 0;
      code = ::GetLastError();
      if (!worth_another_try(code)) break;
    } else {
      if (target != INVALID_FILE_ATTRIBUTES) return unsupported(EISDIR);
      if (::MoveFileExW(from.c_str(), to.c_str(), MOVEFILE_WRITE_THROUGH)) return 0;
      code = ::GetLastError();
      if (code == ERROR_ALREADY_EXISTS || code == ERROR_FILE_EXISTS) continue;  // made meanwhile
      if (!worth_another_try(code)) break;
    }
  }
  return fail_with(code);
}

int exchange(int, const char*, int, const char*) { return unsupported(ENOSYS); }

int linkat_paths(int old_dir, const char* old_path, int new_dir, const char* new_path, int) {
  std::wstring from, to;
  if (!path_at(old_dir, old_path, from) || !path_at(new_dir, new_path, to)) return -1;
  return ::CreateHardLinkW(to.c_str(), from.c_str(), nullptr) ? 0 : fail_last();
}

int unlinkat_path(int dir, const char* path, int flags) {
  std::wstring wide;
  if (!path_at(dir, path, wide)) return -1;
  if (flags & AT_REMOVEDIR) return ::RemoveDirectoryW(wide.c_str()) ? 0 : fail_last();
  if (::DeleteFileW(wide.c_str())) return 0;
  DWORD code = ::GetLastError();
  if (code == ERROR_ACCESS_DENIED) {
    // unlink() does not care about the file's own permissions: a read-only
    // file is made writable and deleted (and made read-only again if that
    // fails too).
    const DWORD attributes = ::GetFileAttributesW(wide.c_str());
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY))
      return unsupported(EISDIR);
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_READONLY) &&
        ::SetFileAttributesW(wide.c_str(),
                             attributes & ~static_cast<DWORD>(FILE_ATTRIBUTE_READONLY))) {
      if (::DeleteFileW(wide.c_str())) return 0;
      code = ::GetLastError();
      ::SetFileAttributesW(wide.c_str(), attributes);
    }
  }
  return fail_with(code);
}

int list_directory(int dir, void (*each)(const char* name, void* context), void* context) {
  std::wstring pattern;
  if (!directory_path(dir, pattern)) return -1;
  if (pattern.back() != L'\\') pattern.push_back(L'\\');
  pattern.push_back(L'*');
  WIN32_FIND_DATAW found;
  HANDLE search = ::FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &found,
                                     FindExSearchNameMatch, nullptr, 0);
  if (search == INVALID_HANDLE_VALUE) return fail_last();
  do {
    each(narrow(found.cFileName, std::wcslen(found.cFileName)).c_str(), context);
  } while (::FindNextFileW(search, &found));
  const DWORD code = ::GetLastError();
  ::FindClose(search);
  return code == ERROR_NO_MORE_FILES ? 0 : fail_with(code);
}

// -------------------------------------------- permissions and owners

// The one permission a Windows file has of POSIX's: whether it may be
// written (FILE_ATTRIBUTE_READONLY). A mode without S_IWUSR sets it.
int fchmod_fd(int fd, mode_t mode) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  FILE_BASIC_INFO info;
  if (!::GetFileInformationByHandleEx(handle, FileBasicInfo, &info, sizeof info))
    return fail_last();
  const DWORD before = info.FileAttributes;
  DWORD after = (mode & S_IWUSR) ? before & ~static_cast<DWORD>(FILE_ATTRIBUTE_READONLY)
                                 : before | FILE_ATTRIBUTE_READONLY;
  if (after == before) return 0;
  if (after == 0) after = FILE_ATTRIBUTE_NORMAL;
  FILE_BASIC_INFO change = {};
  change.FileAttributes = after;  // times 0: unchanged
  return ::SetFileInformationByHandle(handle, FileBasicInfo, &change, sizeof change) ? 0
                                                                                     : fail_last();
}

// Windows files have owners of another kind (security identifiers, which
// ReplaceFileW keeps): the uid and gid fstat() gives are 0, and only those
// can be given.
int fchown_fd(int, uid_t owner, gid_t group) {
  const bool owner_ok = owner == 0 || owner == static_cast<uid_t>(-1);
  const bool group_ok = group == 0 || group == static_cast<gid_t>(-1);
  return owner_ok && group_ok ? 0 : unsupported(EPERM);
}

mode_t umask_call(mode_t mask) { return static_cast<mode_t>(::_umask(mask)); }
// The runtime has no call that only reads the umask: it is set and put
// back, under a lock, so that two of fastout's opens at once cannot put
// back each other's probe and lose it. A file the runtime's own _open()
// creates in another thread at that instant sees 022, which leaves its
// read-only attribute as the umask 0 Windows starts with would.
std::mutex umask_mutex;
mode_t read_umask() {
  std::lock_guard<std::mutex> lock(umask_mutex);
  const mode_t mask = platform.umask(022);
  platform.umask(mask);
  return mask;
}

// --------------------------------------------------------------- space

// FILE_ALLOCATION_INFO would reserve space, but no call gives back what is
// left unused without also cutting the file: none, as on other systems
// without fallocate(FALLOC_FL_KEEP_SIZE).
int reserve(int, off_t, off_t) { return unsupported(EOPNOTSUPP); }

int ftruncate_fd(int fd, off_t length) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  if (length < 0) return unsupported(EINVAL);
  FILE_END_OF_FILE_INFO end;
  end.EndOfFile.QuadPart = length;
  return ::SetFileInformationByHandle(handle, FileEndOfFileInfo, &end, sizeof end) ? 0
                                                                                   : fail_last();
}

// ----------------------------------------------------- names and locks

int random_bytes(void* data, size_t size) {
  auto* bytes = static_cast<unsigned char*>(data);
  while (size > 0) {
    const ULONG piece = static_cast<ULONG>(std::min<size_t>(size, 1u << 20));
    if (::BCryptGenRandom(nullptr, bytes, piece, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != STATUS_SUCCESS)
      return unsupported(ENOSYS);
    bytes += piece;
    size -= piece;
  }
  return 0;
}

// LockFileEx on every byte there may ever be. The lock belongs to the
// handle's file object, which DuplicateHandle() shares: a dup()ed
// descriptor keeps it after the first is closed, and closing the last one
// (or the end of the process, a crash included) lets it go, as open file
// description locks do on Linux. Windows' locks are mandatory: another
// handle cannot read or write the locked bytes meanwhile, which no one
// but the writer does to a replacement's temporary file.
int try_lock(int fd, bool exclusive) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  OVERLAPPED at = {};
  const DWORD flags = LOCKFILE_FAIL_IMMEDIATELY | (exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0);
  if (::LockFileEx(handle, flags, 0, MAXDWORD, MAXDWORD, &at)) return 0;
  const DWORD code = ::GetLastError();
  if (code == ERROR_LOCK_VIOLATION || code == ERROR_IO_PENDING) {
    fail_with(code);
    return unsupported(EAGAIN);
  }
  return fail_with(code);
}

int dup_fd(int fd) {
  HANDLE handle = handle_of(fd);
  if (handle == INVALID_HANDLE_VALUE) return fail_errno(EBADF);
  HANDLE copy = INVALID_HANDLE_VALUE;
  if (!::DuplicateHandle(::GetCurrentProcess(), handle, ::GetCurrentProcess(), &copy, 0, FALSE,
                         DUPLICATE_SAME_ACCESS))
    return fail_last();
  return descriptor_for(copy, O_WRONLY);
}

// ---------------------------------------------------------- the process

// The Windows C runtime has no stream that calls back (no fopencookie, no
// funopen): fastout::sync_with_stdio() and fastout_printf()'s fallback
// through such a stream are not available there.
std::FILE* open_write_stream(void*, ssize_t (*)(void*, const char*, size_t)) {
  fail_errno(ENOTSUP);
  return nullptr;
}

// The C runtime's table of descriptors has a fixed size (8,192 in the
// UCRT; _setmaxstdio() sizes stdio's FILE table, not it): there is no soft
// limit to raise, and an EMFILE goes on to releasing idle writers.
int raise_descriptor_limit() { return fail_errno(ENOSYS); }

// The category of the errno values fastout throws on Windows (see
// error_category() in platform_internal.h).
class windows_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "fastout"; }
  std::string message(int error_number) const override {
    const char* text = error_text(error_number);
    std::string result = text != nullptr ? text : std::strerror(error_number);
    if (last.error_number == error_number && last.code != 0) {
      result += " (Windows error " + std::to_string(last.code);
      wchar_t* words = nullptr;
      const DWORD length =
          ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                               FORMAT_MESSAGE_IGNORE_INSERTS,
                           nullptr, last.code, 0, reinterpret_cast<wchar_t*>(&words), 0, nullptr);
      if (length > 0 && words != nullptr) {
        std::string said = narrow(words, length);
        while (!said.empty() && (said.back() == '\n' || said.back() == '\r' || said.back() == ' ' ||
                                 said.back() == '.'))
          said.pop_back();
        result += ": " + said;
      } else if (last.code == ERROR_FILE_READ_ONLY) {
        // Windows' words, which fastout's refusal of a read-only target
        // needs and Wine's message table has not.
        result += ": The specified file is read only";
      }
      if (words != nullptr) ::LocalFree(words);
      result += ")";
    }
    return result;
  }
  std::error_condition default_error_condition(int error_number) const noexcept override {
    return std::error_condition(error_number, std::generic_category());
  }
};

struct thread_start {
  void* (*run)(void*);
  void* argument;
};

unsigned __stdcall thread_main(void* start) {
  thread_start copy = *static_cast<thread_start*>(start);
  delete static_cast<thread_start*>(start);
  copy.run(copy.argument);
  return 0;
}

constexpr platform_calls windows_platform() noexcept {
  platform_calls calls{};
  calls.open = open_path;
  calls.openat = open_at;
  calls.create_unnamed = create_unnamed;
  calls.link_unnamed = link_unnamed;
  calls.write = write_bytes;
  calls.writev = writev;
  calls.write_uncached = write_uncached;
  calls.wait_writable = wait_writable;
  calls.close = close_fd;
  calls.fstat = fstat_fd;
  calls.fstatat = fstatat_path;
  calls.identify = identify;
  calls.readlinkat = readlinkat;
  calls.is_terminal = is_terminal;
  calls.is_console = is_console;
  calls.write_console = write_console;
  calls.lseek = lseek_fd;
  calls.read = read_fd;
  calls.fsync = fsync_fd;
  calls.fdatasync = fsync_fd;  // FlushFileBuffers either way
  calls.full_fsync = full_fsync;
  calls.start_writeback = start_writeback;
  calls.wait_for_writeback = wait_for_writeback;
  calls.renameat = renameat_paths;
  calls.exchange = exchange;
  calls.linkat = linkat_paths;
  calls.unlinkat = unlinkat_path;
  calls.list_directory = list_directory;
  calls.fchmod = fchmod_fd;
  calls.fchown = fchown_fd;
  calls.umask = umask_call;
  calls.read_umask = read_umask;
  calls.reserve = reserve;
  calls.ftruncate = ftruncate_fd;
  calls.random_bytes = random_bytes;
  calls.try_lock = try_lock;
  calls.dup = dup_fd;
  calls.open_write_stream = open_write_stream;
  calls.raise_descriptor_limit = raise_descriptor_limit;
  return calls;
}
constexpr platform_calls windows_calls = windows_platform();
FASTOUT_ASSERT_EVERY_ENTRY_FILLED(windows_calls, "the windows table leaves an entry empty");

}  // namespace

FASTOUT_CONSTINIT const platform_calls real_platform = windows_calls;
FASTOUT_CONSTINIT platform_calls platform = windows_calls;

const char* platform_name() noexcept { return "windows"; }

int directory_open_flags(bool) noexcept { return O_RDONLY | O_DIRECTORY | O_CLOEXEC; }

int process_id() noexcept { return static_cast<int>(::GetCurrentProcessId()); }

// Windows has no signals to block; _beginthreadex() sets up the C runtime
// for the thread, as CreateThread() alone does not on old runtimes.
int start_thread(thread_handle& thread, void* (*run)(void*), void* argument) noexcept {
  auto* start = new (std::nothrow) thread_start{run, argument};
  if (start == nullptr) return ENOMEM;
  const uintptr_t handle = ::_beginthreadex(nullptr, 0, thread_main, start, 0, nullptr);
  if (handle == 0) {
    const int error_number = errno != 0 ? errno : EAGAIN;
    delete start;
    return error_number;
  }
  thread.native = reinterpret_cast<void*>(handle);
  return 0;
}

void join_thread(thread_handle& thread) noexcept {
  if (thread.native == nullptr) return;
  HANDLE handle = static_cast<HANDLE>(thread.native);
  ::WaitForSingleObject(handle, INFINITE);
  ::CloseHandle(handle);
  thread.native = nullptr;
}

const std::error_category& error_category() noexcept {
  static const windows_error_category category;
  return category;
}

namespace {
void (*exit_handler)(int, bool) = nullptr;
void atexit_trampoline() { exit_handler(0, false); }
}  // namespace

void run_at_exit(void (*handler)(int status, bool status_known)) noexcept {
  // The C runtime's atexit() does not pass the status exit() was given.
  exit_handler = handler;
  std::atexit(atexit_trampoline);
}

// _Exit: no atexit handlers, no stdio flush (the caller flushed), the
// process ends with `status` (ExitProcess underneath).
void exit_now(int status) noexcept { std::_Exit(status); }

// The runtime's locale, as its printf() reads it: localeconv() (per thread
// where _configthreadlocale() made it so).
const char* decimal_point() noexcept {
  const std::lconv* conventions = std::localeconv();
  return conventions != nullptr && conventions->decimal_point != nullptr
             ? conventions->decimal_point
             : ".";
}

digit_grouping thousands_grouping() noexcept {
  const std::lconv* conventions = std::localeconv();
  if (conventions == nullptr) return {"", ""};
  return {conventions->thousands_sep != nullptr ? conventions->thousands_sep : "",
          conventions->grouping != nullptr ? conventions->grouping : ""};
}

// The runtime's printf() has no 'I' flag.
bool outdigits_are_ascii() noexcept { return true; }

// The runtime has no strerror_r(); strerror_s() writes into the buffer, and
// says "Unknown error" for a number it does not know.
const char* localized_error_text(int error_number, char* buffer, std::size_t size) noexcept {
  buffer[0] = '\0';
  if (::strerror_s(buffer, size, error_number) != 0) return "Unknown error";
  return buffer;
}

// The runtime names no errors: glibc's names of those its <errno.h>
// defines.
const char* error_symbol(int error_number) noexcept { return common_error_symbol(error_number); }

void set_standard_streams(std::FILE*, std::FILE*) noexcept {}

int errno_of_windows_error(unsigned long code) noexcept {
  return errno_of(static_cast<DWORD>(code));
}

const char* error_text(int error_number) noexcept { return common_error_text(error_number); }

}  // namespace fastout::detail
