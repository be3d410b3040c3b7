// SPDX-License-Identifier: MIT
// What only the Windows platform layer does (src/platform/windows/): UTF-8
// names as UTF-16 names, long paths, std::filesystem::path's wide text, no
// "\r" ever, a file renamed or deleted by another handle while it is
// written, replacement over a file held open elsewhere and its bounded
// retries, the console through WriteConsoleW, EPIPE from a pipe whose reader
// is gone, and the Win32 error table. Built only for Windows
// (scripts/test --target windows runs it under Wine).
//
// Where Wine is not Windows the test says so, and checks what must hold
// either way: a console is reached through the platform table's console
// hook (Wine gives a test no console it can read back). A replacement over
// a target held open is tested where Wine and Windows agree.
#include <windows.h>

#include <fcntl.h>
#include <io.h>
#include <share.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <fastout/c_api.h>
#include <fastout/fastout.h>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout::detail::platform;
using fastout_test::temp_dir;

std::wstring wide(const std::string& utf8) {
  if (utf8.empty()) return {};
  const int size =
      ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(size), L'\0');
  ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), &out[0], size);
  return out;
}

// Whether this is Wine, which says so through an export of its ntdll.
bool under_wine() {
  HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  return ntdll != nullptr && ::GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

void say_wine_differs(const char* what) {
  std::printf("[   WINE   ] %s (Wine is not Windows here; what must hold either way is checked)\n",
              what);
}

// A path's bytes, read through the wide API (the runtime's narrow calls
// would take a UTF-8 name for the ANSI code page).
std::string read_wide(const std::wstring& path) {
  HANDLE handle = ::CreateFileW(path.c_str(), GENERIC_READ,
                                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (handle == INVALID_HANDLE_VALUE)
    throw std::runtime_error("cannot read back a file (Windows error " +
                             std::to_string(::GetLastError()) + ")");
  std::string content;
  char chunk[4096];
  DWORD got = 0;
  while (::ReadFile(handle, chunk, sizeof chunk, &got, nullptr) && got > 0)
    content.append(chunk, got);
  ::CloseHandle(handle);
  return content;
}
std::string read_utf8(const std::string& path) { return read_wide(wide(path)); }

// The names in a directory as Windows spells them, without "." and "..".
std::vector<std::wstring> wide_names_in(const std::wstring& directory) {
  std::vector<std::wstring> names;
  WIN32_FIND_DATAW found;
  HANDLE search = ::FindFirstFileW((directory + L"\\*").c_str(), &found);
  if (search == INVALID_HANDLE_VALUE) return names;
  do {
    std::wstring name = found.cFileName;
    if (name != L"." && name != L"..") names.push_back(name);
  } while (::FindNextFileW(search, &found));
  ::FindClose(search);
  std::sort(names.begin(), names.end());
  return names;
}

// Another program's handle on a file: shared as `share` says.
class foreign_handle {
 public:
  foreign_handle(const std::string& path, DWORD share)
      : handle_(::CreateFileW(wide(path).c_str(), GENERIC_READ, share, nullptr, OPEN_EXISTING,
                              FILE_ATTRIBUTE_NORMAL, nullptr)) {
    if (handle_ == INVALID_HANDLE_VALUE)
      throw std::runtime_error("cannot open " + path + " (Windows error " +
                               std::to_string(::GetLastError()) + ")");
  }
  ~foreign_handle() { close(); }
  std::string read() {
    std::string content;
    char chunk[4096];
    DWORD got = 0;
    while (::ReadFile(handle_, chunk, sizeof chunk, &got, nullptr) && got > 0)
      content.append(chunk, got);
    return content;
  }
  void close() {
    if (handle_ != INVALID_HANDLE_VALUE) ::CloseHandle(handle_);
    handle_ = INVALID_HANDLE_VALUE;
  }

 private:
  HANDLE handle_;
};

fastout_file* append_with_c_api(const std::string& path) {
  fastout_options options;
  fastout_options_init(&options);
  options.mode = FASTOUT_APPEND;
  return fastout_open(path.c_str(), &options);
}

constexpr DWORD share_all = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

// ------------------------------------------------------------------ names

TEST(windows, utf8_names_are_windows_names) {
  temp_dir dir;
  // "été-日本-😀.txt": two-, three- and four-byte characters.
  const std::string name = "\xc3\xa9t\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac-\xf0\x9f\x98\x80.txt";
  {
    fastout::file f = fastout::output_file(dir.file(name));
    f.print("one\n");
    f.close();
  }
  {
    fastout::file f = fastout::output_file(dir.file(name), fastout::open_mode::replace);
    f.print("two\n");
    f.close();
  }
  fastout_file* c = append_with_c_api(dir.file(name));
  ASSERT_NE(c, nullptr) << fastout_error_name(-errno);
  fastout_fputs("three\n", c);
  ASSERT_EQ(fastout_close(c), 0);
  const std::vector<std::wstring> names = wide_names_in(wide(dir.path()));
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0], L"\u00e9t\u00e9-\u65e5\u672c-\U0001F600.txt");
  EXPECT_EQ(read_utf8(dir.file(name)), "two\nthree\n");
}

TEST(windows, a_filesystem_path_is_taken_as_utf16) {
  temp_dir dir;
  // Its native text is wchar_t: taken without a trip through the ANSI code
  // page, and a lone surrogate, which a Windows name may hold and UTF-8
  // cannot, comes through as the same unit (WTF-8 inside fastout).
  const std::filesystem::path base(wide(dir.path()));
  const std::wstring names[] = {L"\u00e9t\u00e9-\u65e5\u672c.txt",
                                std::wstring(L"lone-") + wchar_t(0xD800) + L".txt"};
  std::vector<std::wstring> expected;
  for (const std::wstring& name : names) {
    // Wine keeps names in UTF-8 on a Unix filesystem, where a lone
    // surrogate cannot be spelled: its own CreateFileW refuses the name.
    HANDLE probe = ::CreateFileW((base / (name + L".probe")).c_str(), GENERIC_WRITE, 0, nullptr,
                                 CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (probe == INVALID_HANDLE_VALUE) {
      ASSERT_TRUE(under_wine()) << "CreateFileW refused a name Windows takes";
      say_wine_differs("a name with a lone surrogate cannot be created at all");
      continue;
    }
    ::CloseHandle(probe);
    ::DeleteFileW((base / (name + L".probe")).c_str());
    expected.push_back(name);
    fastout::file f = fastout::output_file(base / name);
    f.print("text\n");
    f.close();
    fastout::ofstream out(base / name, std::ios::app);
    out << "more\n";
    out.close();
    EXPECT_EQ(read_wide((base / name).wstring()), "text\nmore\n");
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(wide_names_in(base.wstring()), expected);
}

TEST(windows, a_path_longer_than_max_path_works) {
  temp_dir dir;
  std::wstring base = wide(dir.path());
  // Nothing is resolved after the long-path prefix: one kind of separator,
  // one at a time.
  std::replace(base.begin(), base.end(), L'/', L'\\');
  for (std::wstring::size_type at; (at = base.find(L"\\\\", 1)) != std::wstring::npos;)
    base.erase(at, 1);
  std::wstring nest = L"\\\\?\\" + base;
  std::string path = dir.path();
  while (path.size() < 400) {
    nest += L"\\directory-with-a-long-name";
    path += "/directory-with-a-long-name";
    ASSERT_TRUE(::CreateDirectoryW(nest.c_str(), nullptr)) << ::GetLastError();
  }
  path += "/file.txt";
  ASSERT_GT(path.size(), static_cast<std::size_t>(MAX_PATH));
  {
    fastout::file f = fastout::output_file(path);
    f.print("first\n");
    f.close();
  }
  {
    fastout::file f = fastout::output_file(path, fastout::open_mode::replace);
    f.print("replaced\n");
    f.close();
  }
  {
    fastout::file f = fastout::output_file(path, fastout::open_mode::append);
    f.print("appended\n");
    f.close();
  }
  EXPECT_EQ(read_wide(nest + L"\\file.txt"), "replaced\nappended\n");
  EXPECT_EQ(wide_names_in(nest), std::vector<std::wstring>{L"file.txt"});
  // std::filesystem cannot remove what it cannot name: take it down here.
  ::DeleteFileW((nest + L"\\file.txt").c_str());
  while (nest.size() > 4 + base.size()) {
    ::RemoveDirectoryW(nest.c_str());
    nest.erase(nest.rfind(L'\\'));
  }
}

// ------------------------------------------------------------------- bytes

TEST(windows, no_carriage_return_is_ever_added) {
  temp_dir dir;
  const std::string path = dir.file("lines.txt");
  {
    fastout::file f = fastout::output_file(path);
    f.print("a\nb\n");
    f.print("{}\n", 1);
    f.close();
  }
  {
    fastout::ofstream out(path, std::ios::app);
    out << "c" << std::endl << '\n';
    out.close();
  }
  fastout_file* c = append_with_c_api(path);
  ASSERT_NE(c, nullptr);
  fastout_fprintf(c, "%s\n", "d");
  fastout_putc('\n', c);
  ASSERT_EQ(fastout_close(c), 0);
  // A descriptor the runtime opened in text mode, adopted as {fmt}'s
  // Windows users do: its bytes still go out as they are.
  // (Opened without _O_APPEND, which the runtime emulates in its own
  // _write() by seeking: fastout writes at the file position, so the
  // descriptor is put at the end first.)
  const int fd = ::_wopen(wide(path).c_str(), _O_WRONLY | _O_TEXT);
  ASSERT_GE(fd, 0);
  ASSERT_GT(::_lseeki64(fd, 0, SEEK_END), 0);
  {
    fastout::file f = fastout::file::adopt(fd);
    f.print("e\r\nf\n");
    f.close();
  }
  EXPECT_EQ(read_utf8(path), "a\nb\n1\nc\n\nd\n\ne\r\nf\n");
}

// ------------------------------------------------- sharing with others

TEST(windows, the_file_can_be_renamed_and_deleted_while_written) {
  temp_dir dir;
  const std::string path = dir.file("log.txt");
  const std::string moved = dir.file("moved.txt");
  fastout::file f = fastout::output_file(path);
  f.print("one\n");
  f.flush();
  // Another program moves it and later deletes it: FILE_SHARE_DELETE lets
  // it, and the writer carries on with the same file.
  ASSERT_TRUE(::MoveFileExW(wide(path).c_str(), wide(moved).c_str(), 0)) << ::GetLastError();
  f.print("two\n");
  f.flush();
  EXPECT_EQ(read_utf8(moved), "one\ntwo\n");
  ASSERT_TRUE(::DeleteFileW(wide(moved).c_str())) << ::GetLastError();
  f.print("three\n");
  f.close();
  EXPECT_EQ(wide_names_in(wide(dir.path())), std::vector<std::wstring>{});
}

// An indexer or a virus scanner reads the target with every sharing flag,
// FILE_SHARE_DELETE included (here from this same process: Windows shares
// a file between the handles of one process as between processes). Windows
// and Wine both refuse to move a file over it (MoveFileExW:
// ERROR_ACCESS_DENIED), and both let ReplaceFileW replace it, which opens
// the new file with no sharing: the writer must hold nothing of it then,
// its lock included.
TEST(windows, replace_over_a_file_held_open_elsewhere) {
  temp_dir dir;
  const std::string path = dir.file("target.txt");
  fastout_test::write_file(path, "old\n");
  foreign_handle reader(path, share_all);
  fastout::file f = fastout::output_file(path, fastout::open_mode::replace);
  f.print("new\n");
  f.close();
  EXPECT_EQ(read_utf8(path), "new\n");
  EXPECT_EQ(reader.read(), "old\n");  // the reader still reads what it opened
  // The old content is deleted once the reader lets go (until then its
  // name may still be listed: Wine, and Windows before 10's POSIX deletes).
  reader.close();
  EXPECT_EQ(wide_names_in(wide(dir.path())), std::vector<std::wstring>{L"target.txt"});
}

TEST(windows, replace_waits_for_a_reader_that_lets_go) {
  temp_dir dir;
  const std::string path = dir.file("target.txt");
  fastout_test::write_file(path, "old\n");
  // A scanner holds the target without FILE_SHARE_DELETE for a moment:
  // the rename is tried again, with a growing delay, until it lets go.
  auto scanner = std::make_unique<foreign_handle>(path, FILE_SHARE_READ | FILE_SHARE_WRITE);
  fastout::file f = fastout::output_file(path, fastout::open_mode::replace);
  f.print("new\n");
  std::thread let_go([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    scanner->close();
  });
  f.close();
  let_go.join();
  EXPECT_EQ(read_utf8(path), "new\n");
  EXPECT_EQ(wide_names_in(wide(dir.path())), std::vector<std::wstring>{L"target.txt"});
}

TEST(windows, replace_gives_up_on_a_target_held_for_good) {
  temp_dir dir;
  const std::string path = dir.file("target.txt");
  fastout_test::write_file(path, "old\n");
  foreign_handle holder(path, FILE_SHARE_READ | FILE_SHARE_WRITE);
  fastout::file f = fastout::output_file(path, fastout::open_mode::replace);
  f.print("new\n");
  try {
    f.close();
    FAIL() << "replaced a file another handle holds without FILE_SHARE_DELETE";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::permission_denied) << e.what();
    EXPECT_NE(std::string(e.what()).find("target.txt"), std::string::npos) << e.what();
  }
  holder.close();
  // The old content whole, and nothing left beside it.
  EXPECT_EQ(read_utf8(path), "old\n");
  EXPECT_EQ(wide_names_in(wide(dir.path())), std::vector<std::wstring>{L"target.txt"});
}

// -------------------------------------------------------------- durability

TEST(windows, sync_directory_is_refused_not_claimed) {
  temp_dir dir;
  const std::string path = dir.file("target.txt");
  fastout::file f =
      fastout::output_file(path, fastout::open_mode::replace, fastout::sync_directory = true);
  f.print("new\n");
  try {
    f.close();
    FAIL() << "a directory sync was claimed on Windows";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::not_supported) << e.what();
  }
  // The file itself was synced and put in place; only the directory's names
  // could not be made durable.
  EXPECT_EQ(read_utf8(path), "new\n");
}

// ----------------------------------------------------------------- console

std::u16string console_text;
int console_fd = -1;
int console_calls = 0;

int fake_is_console(int fd) { return fd == console_fd ? 1 : 0; }
ssize_t fake_write_console(int fd, const char16_t* text, size_t count) {
  EXPECT_EQ(fd, console_fd);
  ++console_calls;
  console_text.append(text, count);
  return static_cast<ssize_t>(count);
}
int fake_fstat(int fd, struct stat* st) {
  if (fd != console_fd) return fastout_test::real().fstat(fd, st);
  std::memset(st, 0, sizeof *st);
  st->st_mode = S_IFCHR | 0666;
  return 0;
}

class windows_console : public ::testing::Test {
 protected:
  void SetUp() override {
    // Wine gives a test no console it can read back: the console is a pipe
    // the platform table's console hook says is one.
    int fds[2];
    ASSERT_EQ(::_pipe(fds, 4096, _O_BINARY), 0);
    pipe_read_ = fds[0];
    console_fd = fds[1];
    console_text.clear();
    console_calls = 0;
    platform.is_console = fake_is_console;
    platform.write_console = fake_write_console;
    platform.fstat = fake_fstat;
  }
  void TearDown() override {
    platform.close(console_fd);  // forgets a character left incomplete
    ::_close(pipe_read_);
  }

  fastout_test::scoped_platform restore_;
  int pipe_read_ = -1;
};

TEST_F(windows_console, text_goes_out_as_utf16_characters) {
  const std::string text = "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80\n";
  ASSERT_EQ(platform.write(console_fd, text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  EXPECT_EQ(console_text, u"\u00e9t\u00e9 \u65e5 \U0001F600\n");
}

TEST_F(windows_console, a_character_is_never_split_between_two_calls) {
  const std::string text = "\xf0\x9f\x98\x80\xe6\x97\xa5";
  for (char byte : text) {
    ASSERT_EQ(platform.write(console_fd, &byte, 1), 1);
    // Each call sends whole characters only: no lone surrogate ever.
    for (char16_t unit : console_text)
      EXPECT_FALSE(unit >= 0xD800 && unit <= 0xDBFF && &unit == &console_text.back());
  }
  EXPECT_EQ(console_text, u"\U0001F600\u65e5");
  EXPECT_EQ(console_calls, 2);  // one per character, once it was whole
}

TEST_F(windows_console, bytes_that_are_not_utf8_show_as_replacement_characters) {
  const std::string text =
      "a\xff"
      "b\xc3(\xe6\x97";
  ASSERT_EQ(platform.write(console_fd, text.data(), text.size()),
            static_cast<ssize_t>(text.size()));
  // The incomplete "\xe6\x97" at the end waits for the rest.
  EXPECT_EQ(console_text, u"a\uFFFDb\uFFFD(");
  ASSERT_EQ(platform.write(console_fd, "\xa5!", 2), 2);
  EXPECT_EQ(console_text, u"a\uFFFDb\uFFFD(\u65e5!");
}

TEST_F(windows_console, a_writer_on_a_console_is_line_buffered) {
  fastout::file f = fastout::file::borrow(console_fd);
  f.print("\xc3\xa9t\xc3\xa9\npartial");
  EXPECT_EQ(console_text, u"\u00e9t\u00e9\n");
  f.close();
  EXPECT_EQ(console_text, u"\u00e9t\u00e9\npartial");
}

TEST_F(windows_console, a_small_buffer_never_splits_a_character) {
  fastout::file f = fastout::file::borrow(console_fd, fastout_test::with_buffer(3));
  f.print("\xc3\xa9\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80");
  f.close();
  EXPECT_EQ(console_text, u"\u00e9\u00e9\u00e9\U0001F600");
}

TEST(windows, a_redirected_standard_output_is_no_console) {
  // Under CTest, standard output is a pipe or a file: bytes as they are.
  EXPECT_EQ(fastout_test::real().is_console(1), 0);
}

// ------------------------------------------------------------------ errors

TEST(windows, a_pipe_whose_reader_is_gone_is_epipe) {
  int fds[2];
  ASSERT_EQ(::_pipe(fds, 4096, _O_BINARY), 0);
  ::_close(fds[0]);
  fastout::file f = fastout::file::adopt(fds[1], {}, "<pipe>");
  f.print("lost\n");
  try {
    f.close();
    FAIL() << "wrote into a pipe without a reader";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::broken_pipe) << e.what();
    EXPECT_EQ(e.code().value(), EPIPE);
    // Windows' own words for it, and which of its codes it was:
    // ERROR_BROKEN_PIPE (109), ERROR_NO_DATA (232), or
    // ERROR_PIPE_NOT_CONNECTED (233), which Wine 8 gives.
    EXPECT_NE(std::string(e.what()).find("Windows error 2"), std::string::npos) << e.what();
  }
  fastout_file* c = fastout_fdopen(-1, 0, nullptr);
  EXPECT_EQ(c, nullptr);
}

TEST(windows, errors_carry_errno_and_say_what_windows_said) {
  temp_dir dir;
  try {
    fastout::file f = fastout::output_file(dir.file("missing/file.txt"));
    FAIL() << "opened a file in a directory that does not exist";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory) << e.what();
    EXPECT_EQ(e.code().value(), ENOENT);
    EXPECT_STREQ(e.code().category().name(), "fastout");
    const std::string what = e.what();
    EXPECT_NE(what.find("missing/file.txt"), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory (Windows error 3"), std::string::npos) << what;
  }
}

TEST(windows, the_error_table_is_stable) {
  struct mapping {
    unsigned long code;
    int error_number;
  };
  // docs/platforms.md lists the same table.
  const mapping table[] = {
      {ERROR_FILE_NOT_FOUND, ENOENT},
      {ERROR_PATH_NOT_FOUND, ENOENT},
      {ERROR_INVALID_NAME, ENOENT},
      {ERROR_TOO_MANY_OPEN_FILES, EMFILE},
      {ERROR_ACCESS_DENIED, EACCES},
      {ERROR_SHARING_VIOLATION, EACCES},
      {ERROR_LOCK_VIOLATION, EACCES},
      {6009 /* ERROR_FILE_READ_ONLY */, EACCES},
      {ERROR_INVALID_HANDLE, EBADF},
      {ERROR_NOT_ENOUGH_MEMORY, ENOMEM},
      {ERROR_WRITE_PROTECT, EROFS},
      {ERROR_HANDLE_DISK_FULL, ENOSPC},
      {ERROR_DISK_FULL, ENOSPC},
      {1295 /* ERROR_DISK_QUOTA_EXCEEDED */, ENOSPC},
      {ERROR_NOT_SUPPORTED, ENOTSUP},
      {ERROR_CALL_NOT_IMPLEMENTED, ENOSYS},
      {ERROR_FILE_EXISTS, EEXIST},
      {ERROR_ALREADY_EXISTS, EEXIST},
      {ERROR_INVALID_PARAMETER, EINVAL},
      {ERROR_BROKEN_PIPE, EPIPE},
      {ERROR_NO_DATA, EPIPE},
      {233 /* ERROR_PIPE_NOT_CONNECTED */, EPIPE},
      {ERROR_FILENAME_EXCED_RANGE, ENAMETOOLONG},
      {ERROR_DIR_NOT_EMPTY, ENOTEMPTY},
      {ERROR_DIRECTORY, ENOTDIR},
      {ERROR_NOT_SAME_DEVICE, EXDEV},
      {ERROR_OPERATION_ABORTED, ECANCELED},
      {ERROR_CRC, EIO},
      {ERROR_IO_DEVICE, EIO},
      {ERROR_FILE_TOO_LARGE, EFBIG},
      {ERROR_PRIVILEGE_NOT_HELD, EPERM},
      {ERROR_NO_UNICODE_TRANSLATION, EILSEQ},
      {99999, EIO},  // a code the table does not name
  };
  for (const mapping& m : table) {
    EXPECT_EQ(fastout::detail::errno_of_windows_error(m.code), m.error_number) << m.code;
  }
  // fastout_error_name() gives the same words on Windows as on Linux.
  EXPECT_STREQ(fastout_error_name(-EPIPE), "Broken pipe");
  EXPECT_STREQ(fastout_error_name(-ENOSPC), "No space left on device");
  EXPECT_STREQ(fastout_error_name(-ENOTSUP), "Operation not supported");
}

TEST(windows, cookie_streams_are_not_available) {
  // The Windows C runtime has no fopencookie() or funopen(): the streams
  // sync_with_stdio() would put in stdout's place cannot be made.
  errno = 0;
  EXPECT_EQ(fastout_test::real().open_write_stream(nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, ENOTSUP);
  try {
    fastout::sync_with_stdio(true);
    FAIL() << "sync_with_stdio() claimed to work";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::not_supported) << e.what();
  }
}

}  // namespace
