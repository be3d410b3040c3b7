// SPDX-License-Identifier: MIT
// Tests of fastout::file's behaviour when all goes well: opening, buffering,
// line buffering, flushing, closing, moving, stats and the cursor. Failures
// are in *_faults_test.cpp and real_failures_test.cpp.
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <fmt/os.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "test_util.h"

namespace {

using fastout::buffering;
using fastout::file;
using fastout::file_options;
using fastout::open_mode;
using fastout_test::contains;
using fastout_test::nobody;
using fastout_test::nobody_group;
using fastout_test::read_file;
using fastout_test::read_syscw;
using fastout_test::temp_dir;
using fastout_test::write_file;

using fastout_test::with_buffer;

using fastout_test::size_list;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

using fastout_test::kept_bits;
using fastout_test::scoped_umask;

mode_t permission_bits(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return static_cast<mode_t>(-1);
  return st.st_mode & 07777;
}

// ---------------------------------------------------------------- opening

TEST(open, truncates_by_default) {
  temp_dir dir;
  std::string path = dir.file("out");
  write_file(path, "old content that is longer");
  file f(path);
  f.write("new");
  f.close();
  EXPECT_EQ(read_file(path), "new");
}

TEST(open, creates_a_missing_file) {
  temp_dir dir;
  std::string path = dir.file("fresh");
  file f(path);
  EXPECT_TRUE(f.is_open());
  EXPECT_TRUE(std::filesystem::exists(path));
  f.write("x");
  f.close();
  EXPECT_EQ(read_file(path), "x");
}

TEST(open, append_adds_to_the_end) {
  temp_dir dir;
  std::string path = dir.file("log");
  write_file(path, "abc");
  file_options options;
  options.mode = open_mode::append;
  file f(path, options);
  f.write("def");
  f.close();
  EXPECT_EQ(read_file(path), "abcdef");
}

TEST(open, append_goes_to_the_end_even_if_the_file_grows) {
  temp_dir dir;
  std::string path = dir.file("log");
  write_file(path, "a");
  file f = fastout::output_file(path, open_mode::append, fastout::buffer_size = 0);
  {
    std::ofstream other(path, std::ios::binary | std::ios::app);
    other << "b";
  }
  f.write("c");
  f.close();
  EXPECT_EQ(read_file(path), "abc");
}

TEST(open, create_exclusive_creates) {
  temp_dir dir;
  std::string path = dir.file("new");
  file f = fastout::output_file(path, open_mode::create_exclusive);
  f.write("1");
  f.close();
  EXPECT_EQ(read_file(path), "1");
}

// A path whose c_str() is wide (std::filesystem::path on Windows,
// std::wstring anywhere) is taken as UTF-16 or UTF-32 and written in UTF-8;
// a lone surrogate keeps its unit (WTF-8), so that no Windows name is lost.
TEST(open, wide_paths_are_written_as_utf8) {
  temp_dir dir;
  std::wstring base;
  for (char c : dir.path()) base += static_cast<wchar_t>(static_cast<unsigned char>(c));
  const std::wstring name = base + L"/wide-\u00e9\u65e5\U0001F600.txt";
  {
    file f(name);
    f.print("one\n");
    f.close();
  }
  fastout::file g = fastout::output_file(name, fastout::open_mode::append);
  g.print("two\n");
  g.close();
  EXPECT_EQ(read_file(dir.file("wide-\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80.txt")), "one\ntwo\n");
  EXPECT_EQ(fastout::detail::utf8_of_wide(L"a\u00e9"), "a\xc3\xa9");
  EXPECT_EQ(fastout::detail::utf8_of_wide(std::wstring(1, wchar_t(0xD800)).c_str()),
            "\xed\xa0\x80");
  EXPECT_EQ(fastout::detail::utf8_of_wide(nullptr), "");
}

TEST(open, create_exclusive_refuses_an_existing_file) {
  temp_dir dir;
  std::string path = dir.file("exists");
  write_file(path, "keep me");
  file_options options;
  options.mode = open_mode::create_exclusive;
  try {
    file f(path, options);
    FAIL() << "opened an existing file with create_exclusive";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(EEXIST));
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
  EXPECT_EQ(read_file(path), "keep me");
}

TEST(open, fmt_style_flags_work_as_in_fmt) {
  temp_dir dir;
  std::string path = dir.file("flags");
  write_file(path, "abc");
  {
    file f = fastout::output_file(path, file::WRONLY | file::CREATE | file::APPEND);
    f.write("def");
  }
  EXPECT_EQ(read_file(path), "abcdef");
  {
    file f = fastout::output_file(path, file::WRONLY | file::CREATE | file::TRUNC);
    f.write("g");
  }
  EXPECT_EQ(read_file(path), "g");
  EXPECT_THROW(fastout::output_file(path, file::WRONLY | file::CREATE | file::EXCL),
               std::system_error);
  std::string fresh = dir.file("fresh");
  {
    file f = fastout::output_file(fresh, file::WRONLY | file::CREATE | file::EXCL);
    f.write("h");
  }
  EXPECT_EQ(read_file(fresh), "h");
  {
    // A single flag, as {fmt} takes it; write access is implied.
    file f = fastout::output_file(fresh, file::APPEND);
    f.write("i");
  }
  EXPECT_EQ(read_file(fresh), "hi");
  {
    file f = fastout::output_file(fresh, file::RDWR | file::TRUNC);
    f.write("j");
  }
  EXPECT_EQ(read_file(fresh), "j");
}

// The flags go to open() as {fmt} passes them: CREATE without TRUNC writes
// over the old contents from the start, and the file is left as fmt leaves it.
TEST(open, fmt_style_create_without_truncate_overwrites_in_place_as_fmt_does) {
  temp_dir dir;
  std::string ours = dir.file("ours");
  std::string theirs = dir.file("theirs");
  write_file(ours, "0123456789");
  write_file(theirs, "0123456789");
  {
    file f = fastout::output_file(ours, file::WRONLY | file::CREATE);
    f.print("{}-", 42);
    f.close();
  }
  {
    auto f = fmt::output_file(theirs, fmt::file::WRONLY | fmt::file::CREATE);
    f.print("{}-", 42);
    f.close();
  }
  EXPECT_EQ(read_file(ours), "42-3456789");
  EXPECT_EQ(read_file(ours), read_file(theirs));
  {
    file f = fastout::output_file(ours, file::WRONLY);
    f.write("ab");
  }
  EXPECT_EQ(read_file(ours), "ab-3456789");
}

// Opening `path` with {fmt}-style `flags` fails with `error_number`, names
// the path, and leaves no file there.
void expect_open_refused(const std::string& path, int flags, int error_number) {
  try {
    file f = fastout::output_file(path, flags);
    ADD_FAILURE() << "flags " << flags << " opened " << path;
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(error_number));
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(open, fmt_style_flags_without_create_need_an_existing_file) {
  temp_dir dir;
  for (int flags : {int(file::WRONLY), int(file::APPEND), int(file::WRONLY | file::TRUNC)})
    expect_open_refused(dir.file("missing"), flags, ENOENT);
}

TEST(open, flags_that_are_not_files_are_refused_naming_the_path) {
  temp_dir dir;
  for (int flags : {file::WRONLY | file::RDWR, file::CREATE | (1 << 20), file::CREATE | (1 << 22),
                    file::CREATE | O_NONBLOCK})
    expect_open_refused(dir.file("refused"), flags, EINVAL);
}

TEST(open, cloexec_sync_and_dsync_are_accepted_among_fmt_style_flags) {
  FASTOUT_SKIP_ON_WINDOWS("reads or sets a descriptor's flags with fcntl(), which Windows has not");
  temp_dir dir;
  for (int extra : {O_CLOEXEC, O_SYNC, O_DSYNC, O_CLOEXEC | O_SYNC}) {
    std::string path = dir.file("flags-" + std::to_string(extra));
    file f = fastout::output_file(path, file::WRONLY | file::CREATE | file::TRUNC | extra);
    f.write("x");
    int status = ::fcntl(f.descriptor(), F_GETFL);
    ASSERT_NE(status, -1);
    // O_SYNC holds O_DSYNC's bit: compare the two bits together.
    EXPECT_EQ(status & O_SYNC, extra & O_SYNC) << extra;
    EXPECT_NE(::fcntl(f.descriptor(), F_GETFD) & FD_CLOEXEC, 0);  // always, as fastout's own open
    f.close();
    EXPECT_EQ(read_file(path), "x");
  }
}

// Half-migrated code passes {fmt}'s own parameter: it works as fastout's.
TEST(open, fmt_buffer_size_is_accepted) {
  temp_dir dir;
  file f = fastout::output_file(dir.file("fmt-size"), fmt::buffer_size = 100);
  EXPECT_EQ(f.buffer_capacity(), 100u);
  file g = fastout::output_file(dir.file("fmt-size-flags"), file::WRONLY | file::CREATE,
                                fmt::buffer_size = 3);
  EXPECT_EQ(g.buffer_capacity(), 3u);
  g.write("abcd");
  g.close();
  EXPECT_EQ(read_file(dir.file("fmt-size-flags")), "abcd");
}

// fastout::ostream is the type {fmt} users name.
static_assert(std::is_same<fastout::ostream, fastout::file>::value);

TEST(open, the_last_of_flags_and_open_mode_wins) {
  temp_dir dir;
  std::string path = dir.file("last");
  write_file(path, "abc");
  {
    file f = fastout::output_file(path, file::WRONLY | file::CREATE, fastout::open_mode::append);
    f.write("d");
  }
  EXPECT_EQ(read_file(path), "abcd");
  {
    file f = fastout::output_file(path, fastout::open_mode::append, file::WRONLY | file::TRUNC);
    f.write("e");
  }
  EXPECT_EQ(read_file(path), "e");
}

// On Windows a file's one permission is its read-only attribute: each
// check there is whether the file came out read-only exactly when a POSIX
// system would have made it unwritable (kept_bits(), test_util.h).
TEST(open, fmt_style_parameters_are_taken_in_any_order) {
  temp_dir dir;
  scoped_umask mask(0);
  std::string path = dir.file("params");
  file f = fastout::output_file(path, fastout::buffer_size = 7, fastout::permissions = 0640,
                                buffering::line);
  EXPECT_EQ(f.buffer_capacity(), 7u);
  EXPECT_TRUE(f.line_buffered());
  EXPECT_EQ(permission_bits(path), kept_bits(0640));
  file g = fastout::output_file(dir.file("other"), buffering::full, fastout::buffer_size = 3);
  EXPECT_EQ(g.buffer_capacity(), 3u);
  EXPECT_FALSE(g.line_buffered());
}

TEST(open, the_default_buffer_size_is_used_when_none_is_given) {
  temp_dir dir;
  file f(dir.file("a"));
  EXPECT_EQ(f.buffer_capacity(), fastout::default_buffer_size);
  EXPECT_EQ(f.bytes_pending(), 0u);
}

TEST(open, default_permissions_are_masked_by_the_umask) {
  temp_dir dir;
  {
    scoped_umask mask(022);
    file f(dir.file("a"));
  }
  EXPECT_EQ(permission_bits(dir.file("a")), kept_bits(0644));
  {
    scoped_umask mask(077);
    file f(dir.file("b"));
  }
  EXPECT_EQ(permission_bits(dir.file("b")), kept_bits(0600));
  {
    scoped_umask mask(0);
    file f(dir.file("c"));
  }
  EXPECT_EQ(permission_bits(dir.file("c")), kept_bits(0666));
  {
    scoped_umask mask(027);
    file f = fastout::output_file(dir.file("d"), fastout::permissions = 0666);
  }
  EXPECT_EQ(permission_bits(dir.file("d")), kept_bits(0640));
  {
    // A umask without write permission gives a file no one may write (on
    // Windows, a read-only one, as _open() gives), which the writer that
    // created it still writes.
    scoped_umask mask(0222);
    file f(dir.file("e"));
    f.write("written");
  }
  EXPECT_EQ(permission_bits(dir.file("e")), 0444u);
  EXPECT_EQ(read_file(dir.file("e")), "written");
}

TEST(open, explicit_permissions_are_used) {
  temp_dir dir;
  scoped_umask mask(0);
  { file f = fastout::output_file(dir.file("secret"), fastout::permissions = 0600); }
  EXPECT_EQ(permission_bits(dir.file("secret")), kept_bits(0600));
  file_options options;
  options.permissions = 0604;
  { file f(dir.file("odd"), options); }
  EXPECT_EQ(permission_bits(dir.file("odd")), kept_bits(0604));
  {
    file f = fastout::output_file(dir.file("read-only"), fastout::permissions = 0444);
    f.write("written");
  }
  EXPECT_EQ(permission_bits(dir.file("read-only")), 0444u);
  EXPECT_EQ(read_file(dir.file("read-only")), "written");
}

#if defined(_WIN32)
// The access a handle was opened with (NtQueryObject's
// ObjectBasicInformation, which Windows and Wine both answer), or 0.
ACCESS_MASK granted_access(HANDLE handle) {
  struct basic_information {  // PUBLIC_OBJECT_BASIC_INFORMATION
    ULONG attributes;
    ACCESS_MASK granted_access;
    ULONG handle_count;
    ULONG pointer_count;
    ULONG reserved[10];
  } info = {};
  using query_object = LONG(WINAPI*)(HANDLE, int, void*, ULONG, ULONG*);
  const auto query = reinterpret_cast<query_object>(
      reinterpret_cast<void*>(::GetProcAddress(::GetModuleHandleW(L"ntdll.dll"), "NtQueryObject")));
  if (query == nullptr || query(handle, 0, &info, sizeof info, nullptr) != 0) return 0;
  return info.granted_access;
}
#endif

// On Windows, where fcntl() is not, the same promises in Windows' terms: the
// handle is not inherited by child processes (HANDLE_FLAG_INHERIT), it may
// write and not read, and an appending one may only append (FILE_APPEND_DATA
// without FILE_WRITE_DATA: every write lands at the end).
TEST(open, the_descriptor_is_close_on_exec) {
  temp_dir dir;
  for (open_mode mode : {open_mode::truncate, open_mode::append, open_mode::create_exclusive}) {
    file_options options;
    options.mode = mode;
    file f(dir.file("cloexec" + std::to_string(static_cast<int>(mode))), options);
#if defined(_WIN32)
    const HANDLE handle = reinterpret_cast<HANDLE>(::_get_osfhandle(f.descriptor()));
    DWORD handle_flags = 0;
    ASSERT_TRUE(::GetHandleInformation(handle, &handle_flags));
    EXPECT_EQ(handle_flags & HANDLE_FLAG_INHERIT, 0u) << "mode " << static_cast<int>(mode);
    const ACCESS_MASK access = granted_access(handle);
    ASSERT_NE(access, 0u);
    EXPECT_EQ(access & FILE_READ_DATA, 0u);
    EXPECT_NE(access & FILE_APPEND_DATA, 0u);
    EXPECT_EQ((access & FILE_WRITE_DATA) == 0, mode == open_mode::append);
    continue;
#endif
    int flags = ::fcntl(f.descriptor(), F_GETFD);
    ASSERT_NE(flags, -1);
    EXPECT_NE(flags & FD_CLOEXEC, 0) << "mode " << static_cast<int>(mode);
    int status_flags = ::fcntl(f.descriptor(), F_GETFL);
    EXPECT_EQ(status_flags & O_ACCMODE, O_WRONLY);
    EXPECT_EQ((status_flags & O_APPEND) != 0, mode == open_mode::append);
  }
}

TEST(open, takes_c_strings_strings_and_filesystem_paths) {
  temp_dir dir;
  const char* c_path_storage = "c-string";
  std::string as_string = dir.file(c_path_storage);
  std::filesystem::path as_path = std::filesystem::path(dir.path()) / "fs-path";
  {
    file a(as_string.c_str());
    a.write("1");
    EXPECT_EQ(a.path(), as_string);
    file b(as_string + "-2");
    b.write("2");
    EXPECT_EQ(b.path(), as_string + "-2");
    file c(as_path);
    c.write("3");
    EXPECT_EQ(c.path(), as_path.string());
    file d = fastout::output_file(as_path.string() + "-d", fastout::buffer_size = 1);
    d.write("4");
  }
  EXPECT_EQ(read_file(as_string), "1");
  EXPECT_EQ(read_file(as_string + "-2"), "2");
  EXPECT_EQ(read_file(as_path.string()), "3");
  EXPECT_EQ(read_file(as_path.string() + "-d"), "4");
}

// ---------------------------------------------------------------- bad input

void expect_open_error(const std::string& path, int expected_errno) {
  try {
    file f(path);
    FAIL() << "opened " << path;
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(expected_errno)) << e.what();
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
}

TEST(bad_input, a_missing_parent_directory_is_enoent_naming_the_path) {
  temp_dir dir;
  expect_open_error(dir.file("no/such/dir/out.txt"), ENOENT);
}

TEST(bad_input, a_directory_is_eisdir_naming_the_path) {
  temp_dir dir;
  expect_open_error(dir.path(), EISDIR);
  ::mkdir(dir.file("sub").c_str(), 0755);
  expect_open_error(dir.file("sub"), EISDIR);
}

// std::getenv() of an unset variable gives a null path: an error naming
// the cause, not a crash in strlen().
TEST(bad_input, null_path_is_einval) {
  const char* unset = std::getenv("FASTOUT_TEST_VARIABLE_THAT_IS_NEVER_SET");
  ASSERT_EQ(unset, nullptr);
  const std::function<void()> opens[] = {
      [&] { file f = fastout::output_file(unset); },
      [&] { file f = fastout::output_file(nullptr, fastout::buffer_size = 0); },
      [&] { file f = fastout::output_file(unset, open_mode::replace); },
      [&] { file f = fastout::output_file(unset, file::WRONLY | file::CREATE); },
      [&] { file f(unset, with_buffer(64)); },
  };
  for (const auto& open : opens) {
    try {
      open();
      ADD_FAILURE() << "a null path was opened";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), fastout_test::system_error_code(EINVAL)) << e.what();
      EXPECT_EQ(std::string(e.what()).find("cannot open a file for writing: the path is a null "
                                           "pointer"),
                0u)
          << e.what();
    }
  }
}

TEST(bad_input, an_existing_file_with_create_exclusive_is_eexist) {
  temp_dir dir;
  write_file(dir.file("x"), "");
  try {
    file f = fastout::output_file(dir.file("x"), open_mode::create_exclusive);
    FAIL();
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EEXIST);
    EXPECT_TRUE(contains(e.what(), dir.file("x"))) << e.what();
  }
}

#if defined(_WIN32)
// Whether opening the read-only file `path` for writing fails, as it does on
// Windows (under Wine, as the Unix file's mode says: not for root).
bool read_only_files_refuse_writers(const std::string& path) {
  const HANDLE handle = ::CreateFileA(path.c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr,
                                      OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return ::GetLastError() == ERROR_ACCESS_DENIED;
  ::CloseHandle(handle);
  return false;
}
#endif

TEST(bad_input, no_permission_is_eacces_naming_the_path) {
  temp_dir dir;
#if defined(_WIN32)
  // What Windows refuses to a writer, whoever it is: a read-only file
  // (CreateFileW fails with ERROR_ACCESS_DENIED). A read-only directory
  // still takes new files there, so it is the file that is locked.
  std::string locked = dir.file("read-only.txt");
  write_file(locked, "kept");
  ASSERT_EQ(::chmod(locked.c_str(), 0444), 0);
  fastout_test::scoped_platform restore;
  if (!read_only_files_refuse_writers(locked)) {
    // Wine keeps the attribute as the Unix file's mode, which root (as
    // these tests run in CI) may write anyway: the platform table's open
    // answers as Windows does, with the errno its table gives
    // ERROR_ACCESS_DENIED.
    std::printf(
        "Wine let a read-only file be opened for writing (root?): Windows' refusal is "
        "made through the platform table\n");
    fastout::detail::platform.open = [](const char* path, int flags, mode_t mode) {
      const DWORD attributes = ::GetFileAttributesA(path);
      if ((flags & O_ACCMODE) != O_RDONLY && attributes != INVALID_FILE_ATTRIBUTES &&
          (attributes & FILE_ATTRIBUTE_READONLY) != 0) {
        errno = fastout::detail::errno_of_windows_error(ERROR_ACCESS_DENIED);
        return -1;
      }
      return fastout::detail::real_platform.open(path, flags, mode);
    };
  }
  expect_open_error(locked, EACCES);
  EXPECT_EQ(read_file(locked), "kept");
  ::chmod(locked.c_str(), 0666);
  file ok(locked);  // the control: writable again
  ok.write("ok");
  ok.close();
  EXPECT_EQ(read_file(locked), "ok");
#else
  if (::geteuid() != 0) {
    // Not root: a directory we may not write into is enough.
    std::string locked = dir.file("locked");
    ASSERT_EQ(::mkdir(locked.c_str(), 0500), 0);
    expect_open_error(locked + "/out.txt", EACCES);
    ::chmod(locked.c_str(), 0700);
    return;
  }
  // Root ignores permission bits, so drop to nobody in a child process and
  // open a file inside a directory only root may enter.
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  std::string locked = dir.file("locked");
  std::string open_dir = dir.file("open");
  ASSERT_EQ(::mkdir(locked.c_str(), 0700), 0);
  ASSERT_EQ(::mkdir(open_dir.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(open_dir.c_str(), 0777), 0);
  std::string denied = locked + "/out.txt";
  std::string allowed = open_dir + "/out.txt";
  int status = fastout_test::run_in_child([&] {
    if (::setgroups(0, nullptr) != 0 || ::setgid(nobody_group) != 0 || ::setuid(nobody) != 0)
      return 10;
    if (::geteuid() != nobody) return 11;
    {
      // The control: as nobody, a writable directory works.
      file ok(allowed);
      ok.write("ok");
      ok.close();
    }
    try {
      file f(denied);
      return 1;  // opened it: no error
    } catch (const std::system_error& e) {
      if (e.code() != fastout_test::system_error_code(EACCES)) return 2;
      if (!contains(e.what(), denied)) return 3;
    }
    return 0;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status)
      << " (1: opened; 2: wrong errno; 3: path missing from message; 10, 11: could not drop "
         "privileges; 101: unexpected exception)";
  EXPECT_EQ(read_file(allowed), "ok");
  EXPECT_FALSE(std::filesystem::exists(denied));
#endif
}

// ---------------------------------------------------------------- descriptors

TEST(descriptors, adopt_closes_the_descriptor) {
  temp_dir dir;
  int fd = ::open(dir.file("a").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  file f = file::adopt(fd);
  EXPECT_EQ(f.descriptor(), fd);
  EXPECT_EQ(f.path(), "<fd " + std::to_string(fd) + ">");
  f.write("adopted");
  f.close();
  EXPECT_FALSE(f.is_open());
  EXPECT_FALSE(fastout_test::fd_is_open(fd));
  EXPECT_EQ(read_file(dir.file("a")), "adopted");
}

TEST(descriptors, an_adopted_descriptor_is_closed_by_the_destructor) {
  temp_dir dir;
  int fd = ::open(dir.file("a").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    file f = file::adopt(fd, {}, "my name");
    EXPECT_EQ(f.path(), "my name");
    f.write("x");
  }
  EXPECT_FALSE(fastout_test::fd_is_open(fd));
  EXPECT_EQ(read_file(dir.file("a")), "x");
}

TEST(descriptors, borrow_leaves_the_descriptor_open) {
  temp_dir dir;
  int fd = ::open(dir.file("b").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    file f = file::borrow(fd, with_buffer(16));
    f.write("borrowed ");
    f.close();
    EXPECT_TRUE(fastout_test::fd_is_open(fd));
  }
  {
    file g = file::borrow(fd);
    g.write("twice");
  }  // destructor: flushed, still open
  EXPECT_TRUE(fastout_test::fd_is_open(fd));
  ASSERT_EQ(::write(fd, "!", 1), 1);
  ::close(fd);
  EXPECT_EQ(read_file(dir.file("b")), "borrowed twice!");
}

TEST(descriptors, a_negative_descriptor_is_ebadf) {
  for (bool own : {true, false}) {
    try {
      file f = own ? file::adopt(-1) : file::borrow(-1);
      FAIL() << "accepted fd -1";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), fastout_test::system_error_code(EBADF));
      EXPECT_TRUE(contains(e.what(), "<fd -1>")) << e.what();
    }
  }
}

TEST(descriptors, stdout_file_and_stderr_file_leave_the_standard_descriptors_open) {
  {
    file out = fastout::stdout_file();
    EXPECT_EQ(out.path(), "<stdout>");
    EXPECT_EQ(out.descriptor(), STDOUT_FILENO);
    EXPECT_EQ(out.buffer_capacity(), fastout::default_buffer_size);
    out.close();
  }
  EXPECT_TRUE(fastout_test::fd_is_open(STDOUT_FILENO));
  {
    file err = fastout::stderr_file();
    EXPECT_EQ(err.path(), "<stderr>");
    EXPECT_EQ(err.descriptor(), STDERR_FILENO);
    EXPECT_EQ(err.buffer_capacity(), 0u);
    err.close();
  }
  EXPECT_TRUE(fastout_test::fd_is_open(STDERR_FILENO));
  file err = fastout::stderr_file(with_buffer(100));
  EXPECT_EQ(err.buffer_capacity(), 100u);
  EXPECT_FALSE(err.line_buffered());
}

TEST(descriptors, stderr_is_unbuffered_and_stdout_is_buffered_when_a_file) {
  temp_dir dir;
  {
    fastout_test::fd_capture capture(STDERR_FILENO, dir.file("stderr"));
    file err = fastout::stderr_file();
    err.write("to stderr");
    EXPECT_EQ(capture.content(), "to stderr");  // already there: nothing buffered
    err.put('!');
    EXPECT_EQ(capture.content(), "to stderr!");
    EXPECT_EQ(err.stats().write_calls, 2u);
  }
  {
    fastout_test::fd_capture capture(STDOUT_FILENO, dir.file("stdout"));
    file out = fastout::stdout_file();
    EXPECT_FALSE(out.line_buffered());
    out.write("line 1\nline 2\n");
    EXPECT_EQ(capture.content(), "");  // a file: fully buffered
    out.close();
    EXPECT_EQ(capture.content(), "line 1\nline 2\n");
  }
}

// ---------------------------------------------------------------- buffer sizes

// Drives a writer through a random mix of put(), write() and cursor calls and
// checks the invariants after each one; returns the bytes it wrote.
std::string random_workout(file& f, std::uint32_t seed, bool check_each_call) {
  std::mt19937 rng(seed);
  auto next = [&](std::uint32_t bound) { return static_cast<std::uint32_t>(rng() % bound); };
  auto random_bytes = [&](std::size_t n) {
    std::string s(n, '\0');
    for (char& c : s) {
      std::uint32_t r = next(64);
      c = r == 0 ? '\n' : static_cast<char>('!' + next(90));
    }
    return s;
  };
  const std::size_t capacity = f.buffer_capacity();
  const bool unbuffered = capacity == 0;
  std::string expected;
  for (int op = 0; op < 600; ++op) {
    std::uint64_t calls_before = f.stats().write_calls;
    std::uint32_t kind = next(20);
    std::size_t call_size = 0;
    std::string last_call;
    if (kind < 7) {
      char c = random_bytes(1)[0];
      f.put(c);
      expected += c;
      last_call.assign(1, c);
    } else if (kind < 13) {
      std::string s = random_bytes(next(201));
      f.write(s);
      expected += s;
      last_call = s;
    } else if (kind < 16) {
      std::string s = random_bytes(next(201));
      f.write(s.data(), s.size());
      expected += s;
      last_call = s;
    } else if (kind < 19) {
      fastout::cursor cur = f.make_cursor();
      for (std::uint32_t i = 0, n = next(30); i < n; ++i) {
        if (next(3) == 0) {
          std::string s = random_bytes(next(201));
          cur.write(s);
          expected += s;
        } else {
          char c = random_bytes(1)[0];
          cur.put(c);
          expected += c;
        }
        if (next(50) == 0) cur.flush();
      }
      continue;  // per-call invariants apply to file calls, checked at the next one
    } else {
      f.flush();
      EXPECT_EQ(f.bytes_pending(), 0u);
      EXPECT_EQ(fastout_test::file_size(f.descriptor()), static_cast<long long>(expected.size()));
    }
    call_size = last_call.size();
    fastout::file_stats s = f.stats();
    EXPECT_EQ(s.bytes_accepted, expected.size());
    EXPECT_EQ(s.bytes_written + f.bytes_pending(), s.bytes_accepted);
    EXPECT_LE(f.bytes_pending(), capacity);
    if (!check_each_call) continue;
    long long on_disk = fastout_test::file_size(f.descriptor());
    EXPECT_EQ(on_disk, static_cast<long long>(s.bytes_written));
    if (unbuffered) {
      // Straight to the file: one write call per non-empty call.
      EXPECT_EQ(s.write_calls - calls_before, call_size > 0 ? 1u : 0u) << "op " << op;
      EXPECT_EQ(on_disk, static_cast<long long>(expected.size()));
    }
    if (f.line_buffered()) {
      std::size_t newline = last_call.rfind('\n');
      if (newline != std::string::npos) {
        std::size_t tail = last_call.size() - newline - 1;
        EXPECT_EQ(f.bytes_pending(), tail < capacity ? tail : 0u) << "op " << op;
      }
      // Everything through the last newline is in the file.
      std::size_t last_newline = expected.rfind('\n');
      if (last_newline != std::string::npos) {
        EXPECT_GE(on_disk, static_cast<long long>(last_newline + 1)) << "op " << op;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  return expected;
}

std::vector<std::size_t> buffer_sizes_to_test() {
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 64; ++n) sizes.push_back(n);
  for (std::size_t n : size_list{100, 127, 128, 129, 200, 201, 1000, 4096, 65536})
    sizes.push_back(n);
  sizes.push_back(fastout::default_buffer_size);
  return sizes;
}

void check_random_workouts(buffering mode) {
  temp_dir dir;
  for (std::size_t size : buffer_sizes_to_test()) {
    SCOPED_TRACE("buffer size " + std::to_string(size));
    std::string path = dir.file("random" + std::to_string(size));
    file f(path, with_buffer(size, mode));
    ASSERT_EQ(f.buffer_capacity(), size);
    ASSERT_EQ(f.line_buffered(), mode == buffering::line);
    std::string expected = random_workout(f, static_cast<std::uint32_t>(size * 7919 + 1), true);
    f.close();
    std::string actual = read_file(path);
    ASSERT_EQ(actual.size(), expected.size());
    ASSERT_TRUE(actual == expected) << "content differs";
  }
}

TEST(buffering, random_calls_fully_buffered_through_every_buffer_size) {
  check_random_workouts(buffering::full);
}
TEST(buffering, random_calls_line_buffered_through_every_buffer_size) {
  check_random_workouts(buffering::line);
}

TEST(buffering, unbuffered_goes_straight_to_the_file) {
  temp_dir dir;
  file f(dir.file("u"), with_buffer(0));
  EXPECT_EQ(f.buffer_capacity(), 0u);
  f.put('a');
  EXPECT_EQ(f.stats().write_calls, 1u);
  EXPECT_EQ(read_file(dir.file("u")), "a");
  f.write("bcd");
  EXPECT_EQ(f.stats().write_calls, 2u);
  EXPECT_EQ(read_file(dir.file("u")), "abcd");
  f.write("", 0);
  EXPECT_EQ(f.stats().write_calls, 2u);
  {
    fastout::cursor c = f.make_cursor();
    c.put('e');
    c.write("fg");
  }
  EXPECT_EQ(f.stats().write_calls, 4u);
  EXPECT_EQ(read_file(dir.file("u")), "abcdefg");
  f.flush();
  f.close();
  EXPECT_EQ(f.stats().write_calls, 4u);
  EXPECT_EQ(f.stats().flushes, 0u);
}

TEST(buffering, empty_writes_are_harmless) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 1, 5}) {
    file f(dir.file("e"), with_buffer(size));
    f.write(std::string_view());
    f.write(nullptr, 0);
    f.write("");
    std::string empty;
    f.write(empty);
    {
      fastout::cursor c = f.make_cursor();
      c.write(std::string_view());
      c.write(nullptr, 0);
    }
    EXPECT_EQ(f.stats().bytes_accepted, 0u);
    f.close();
    EXPECT_EQ(f.stats().write_calls, 0u);
    EXPECT_EQ(read_file(dir.file("e")), "");
  }
}

// ---------------------------------------------------------------- write-call counts

TEST(write_calls, put_makes_ceil_n_over_b_calls) {
  temp_dir dir;
  for (std::size_t size = 1; size <= 70; ++size) {
    for (std::size_t n : size_list{std::size_t{0}, std::size_t{1}, size - 1, size, size + 1,
                                   3 * size, std::size_t{1000}, std::size_t{4099}}) {
      SCOPED_TRACE("buffer " + std::to_string(size) + ", bytes " + std::to_string(n));
      file f(dir.file("put"), with_buffer(size));
      for (std::size_t i = 0; i < n; ++i) f.put(static_cast<char>('a' + i % 26));
      f.close();
      EXPECT_EQ(f.stats().write_calls, ceil_div(n, size));
      EXPECT_EQ(f.stats().flushes, ceil_div(n, size));
      EXPECT_EQ(f.stats().bytes_written, n);
      ASSERT_EQ(read_file(dir.file("put")).size(), n);
    }
  }
}

TEST(write_calls, small_writes_make_ceil_n_over_b_calls) {
  temp_dir dir;
  std::mt19937 rng(42);
  // Buffer 1 is left out: no non-empty write is smaller than it.
  for (std::size_t size : size_list{2, 3, 7, 16, 63, 64, 100, 4096}) {
    for (std::size_t n : size_list{10, 999, 100000}) {
      SCOPED_TRACE("buffer " + std::to_string(size) + ", bytes " + std::to_string(n));
      std::string expected;
      file f(dir.file("small"), with_buffer(size));
      std::size_t largest_small = size - 1;
      while (expected.size() < n) {
        std::size_t piece = std::min<std::size_t>(1 + rng() % largest_small, n - expected.size());
        std::string s(piece, static_cast<char>('a' + expected.size() % 26));
        f.write(s);
        expected += s;
      }
      f.close();
      EXPECT_EQ(f.stats().write_calls, ceil_div(n, size));
      ASSERT_EQ(read_file(dir.file("small")), expected);
    }
  }
}

TEST(write_calls, the_kernel_counts_the_same_write_calls) {
  FASTOUT_SKIP_ON_WINDOWS("needs /proc, which Windows has not");
  temp_dir dir;
  std::string big(3 * 4096, 'y');
  {
    // The process's count has every write(), the sanitizers' too: UBSan's
    // first check of a virtual call on a new dynamic type (the writer's
    // stages) tests the vtable's memory with a write() to a pipe. A writer
    // that goes the same way first has those checks made before counting.
    file warm_up(dir.file("warm_up"), with_buffer(4096));
    warm_up.write(big);
    warm_up.put('x');
    warm_up.close();
  }
  file f(dir.file("syscw"), with_buffer(4096));
  std::uint64_t before = 0;
  if (!read_syscw(before)) GTEST_SKIP() << "/proc/self/io is not readable here";
  const std::size_t n = 1000003;
  for (std::size_t i = 0; i < n; ++i) f.put('x');
  f.write(big);  // with what is buffered, in one writev
  f.close();
  std::uint64_t after = 0;
  ASSERT_TRUE(read_syscw(after));
  EXPECT_EQ(f.stats().write_calls, n / 4096 + 1);  // full buffers, then one writev
  EXPECT_EQ(after - before, f.stats().write_calls);
}

// Records every write()/writev() the writer makes, then does it for real.
struct recorded_call {
  bool vectored;
  std::vector<iovec> iov;
};
std::vector<recorded_call> recorded_calls;

ssize_t recording_write(int fd, const void* data, size_t size) {
  recorded_calls.push_back({false, {iovec{const_cast<void*>(data), size}}});
  return fastout::detail::real_platform.write(fd, data, size);
}
ssize_t recording_writev(int fd, const iovec* iov, int count) {
  recorded_calls.push_back({true, std::vector<iovec>(iov, iov + count)});
  return fastout::detail::real_platform.writev(fd, iov, count);
}

class large_writes : public ::testing::Test {
 protected:
  void SetUp() override {
    recorded_calls.clear();
    fastout::detail::platform.write = recording_write;
    fastout::detail::platform.writev = recording_writev;
  }
  fastout_test::scoped_platform restore_;
  temp_dir dir_;
};

TEST_F(large_writes, go_out_in_one_writev_with_the_buffer_and_without_a_copy) {
  file f(dir_.file("big"), with_buffer(16));
  f.write("hello");
  EXPECT_TRUE(recorded_calls.empty());
  std::string big(100, 'x');
  f.write(big);
  ASSERT_EQ(recorded_calls.size(), 1u);
  const recorded_call& call = recorded_calls[0];
  EXPECT_TRUE(call.vectored);
  ASSERT_EQ(call.iov.size(), 2u);
  EXPECT_EQ(call.iov[0].iov_len, 5u);
  EXPECT_EQ(std::string_view(static_cast<const char*>(call.iov[0].iov_base), 5), "hello");
  EXPECT_EQ(call.iov[1].iov_base, static_cast<const void*>(big.data()));  // no copy
  EXPECT_EQ(call.iov[1].iov_len, 100u);
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.stats().write_calls, 1u);
  EXPECT_EQ(f.stats().flushes, 1u);
  f.close();
  EXPECT_EQ(recorded_calls.size(), 1u);
  EXPECT_EQ(read_file(dir_.file("big")), "hello" + big);
}

TEST_F(large_writes, exactly_the_buffer_size_goes_out_uncopied) {
  file f(dir_.file("exact"), with_buffer(16));
  f.write("abc");
  std::string sixteen(16, 's');
  f.write(sixteen.data(), sixteen.size());
  ASSERT_EQ(recorded_calls.size(), 1u);
  ASSERT_EQ(recorded_calls[0].iov.size(), 2u);
  EXPECT_EQ(recorded_calls[0].iov[0].iov_len, 3u);
  EXPECT_EQ(recorded_calls[0].iov[1].iov_base, static_cast<const void*>(sixteen.data()));
  EXPECT_EQ(recorded_calls[0].iov[1].iov_len, 16u);
  f.close();
  EXPECT_EQ(read_file(dir_.file("exact")), "abc" + sixteen);
}

TEST_F(large_writes, an_empty_buffer_means_one_plain_write_of_the_callers_data) {
  file f(dir_.file("plain"), with_buffer(16));
  std::string big(1000, 'b');
  f.write(big);
  ASSERT_EQ(recorded_calls.size(), 1u);
  ASSERT_EQ(recorded_calls[0].iov.size(), 1u);
  EXPECT_EQ(recorded_calls[0].iov[0].iov_base, static_cast<const void*>(big.data()));
  EXPECT_EQ(recorded_calls[0].iov[0].iov_len, 1000u);
  EXPECT_EQ(f.stats().flushes, 0u);
  f.close();
  EXPECT_EQ(recorded_calls.size(), 1u);
}

TEST_F(large_writes, smaller_than_the_buffer_is_copied) {
  file f(dir_.file("copied"), with_buffer(16));
  f.write("abc");
  std::string fifteen(15, 'f');
  f.write(fifteen);  // does not fit, smaller than the buffer: fill, send, keep
  ASSERT_EQ(recorded_calls.size(), 1u);
  std::size_t sent = 0;
  for (const iovec& v : recorded_calls[0].iov) {
    sent += v.iov_len;
    const char* base = static_cast<const char*>(v.iov_base);
    if (v.iov_len > 0) {
      EXPECT_FALSE(base >= fifteen.data() && base < fifteen.data() + fifteen.size());
    }
  }
  EXPECT_EQ(sent, 16u);  // one full buffer
  EXPECT_EQ(f.bytes_pending(), 2u);
  f.close();
  EXPECT_EQ(read_file(dir_.file("copied")), "abc" + fifteen);
}

TEST_F(large_writes, a_large_line_when_line_buffered_goes_out_with_the_buffer_in_one_writev) {
  file f(dir_.file("line"), with_buffer(16, buffering::line));
  f.write("ab");
  EXPECT_TRUE(recorded_calls.empty());
  std::string line(40, 'l');
  line += '\n';
  line += "tail";
  f.write(line);
  ASSERT_EQ(recorded_calls.size(), 1u);
  ASSERT_EQ(recorded_calls[0].iov.size(), 2u);
  EXPECT_EQ(recorded_calls[0].iov[0].iov_len, 2u);
  EXPECT_EQ(recorded_calls[0].iov[1].iov_base, static_cast<const void*>(line.data()));
  EXPECT_EQ(recorded_calls[0].iov[1].iov_len, 41u);
  EXPECT_EQ(f.bytes_pending(), 4u);
  f.close();
  EXPECT_EQ(read_file(dir_.file("line")), "ab" + line);
}

// ---------------------------------------------------------------- line buffering

TEST(line_buffering, flushes_through_the_last_newline_of_each_call) {
  temp_dir dir;
  std::string path = dir.file("lines");
  file f(path, with_buffer(64, buffering::line));
  EXPECT_TRUE(f.line_buffered());
  f.write("ab\ncd");
  EXPECT_EQ(read_file(path), "ab\n");
  EXPECT_EQ(f.bytes_pending(), 2u);
  f.put('x');
  EXPECT_EQ(read_file(path), "ab\n");
  EXPECT_EQ(f.bytes_pending(), 3u);
  f.put('\n');
  EXPECT_EQ(read_file(path), "ab\ncdx\n");
  EXPECT_EQ(f.bytes_pending(), 0u);
  f.write("1\n2\n3");
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n");
  EXPECT_EQ(f.bytes_pending(), 1u);
  f.write("no newline here");
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n");
  EXPECT_EQ(f.bytes_pending(), 16u);
  {
    fastout::cursor c = f.make_cursor();
    c.put('!');
    c.put('\n');
  }
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n3no newline here!\n");
  EXPECT_EQ(f.bytes_pending(), 0u);
  f.write("partial");
  f.close();
  EXPECT_EQ(read_file(path), "ab\ncdx\n1\n2\n3no newline here!\npartial");
}

TEST(line_buffering, a_long_partial_line_still_goes_out_when_the_buffer_fills) {
  temp_dir dir;
  std::string path = dir.file("long");
  file f(path, with_buffer(8, buffering::line));
  for (char c : std::string("0123456789")) f.put(c);
  EXPECT_EQ(read_file(path), "01234567");
  EXPECT_EQ(f.bytes_pending(), 2u);
  f.close();
  EXPECT_EQ(read_file(path), "0123456789");
}

TEST(line_buffering, full_buffering_keeps_lines) {
  temp_dir dir;
  std::string path = dir.file("full");
  file f(path, with_buffer(64, buffering::full));
  EXPECT_FALSE(f.line_buffered());
  f.write("ab\ncd\n");
  f.put('\n');
  EXPECT_EQ(read_file(path), "");
  EXPECT_EQ(f.bytes_pending(), 7u);
}

TEST(line_buffering, automatic_on_a_terminal_is_line_buffered) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) GTEST_SKIP() << "no pseudo-terminals here: " << std::strerror(errno);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const char* slave_name = ::ptsname(master);
  ASSERT_NE(slave_name, nullptr);
  int slave = ::open(slave_name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  ASSERT_GE(slave, 0) << std::strerror(errno);
  {
    file f = file::borrow(slave, {}, "tty");
    EXPECT_TRUE(f.line_buffered());
    f.write("hi\nthere");
    EXPECT_EQ(f.bytes_pending(), 5u);
    EXPECT_EQ(f.stats().write_calls, 1u);
    // The line is on the terminal already: read it from the master side
    // (the terminal turns "\n" into "\r\n").
    char got[16] = {};
    ssize_t n = ::read(master, got, sizeof got);
    EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0u), "hi\r\n");
    f.close();
    EXPECT_EQ(::read(master, got, sizeof got), 5);  // "there", sent by close()

    file full = file::borrow(slave, with_buffer(64, buffering::full));
    EXPECT_FALSE(full.line_buffered());
    full.close();

    // An unbuffered writer on a terminal, as stderr_file() is: each call goes
    // out whole in one write(), not split at its last newline.
    file unbuffered = file::borrow(slave, with_buffer(0, buffering::automatic), "tty");
    EXPECT_TRUE(unbuffered.line_buffered());
    unbuffered.write("x\ny");
    EXPECT_EQ(unbuffered.stats().write_calls, 1u);
    n = ::read(master, got, sizeof got);
    EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0u), "x\r\ny");
  }
  ::close(slave);
  ::close(master);
}

TEST(line_buffering, automatic_on_a_pipe_file_or_device_is_fully_buffered) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  {
    file f = file::borrow(fds[1]);
    EXPECT_FALSE(f.line_buffered());
    f.write("a\n");
    EXPECT_EQ(f.bytes_pending(), 2u);
  }
  char got[4] = {};
  EXPECT_EQ(::read(fds[0], got, sizeof got), 2);
  ::close(fds[0]);
  ::close(fds[1]);

  temp_dir dir;
  file regular(dir.file("regular"));
  EXPECT_FALSE(regular.line_buffered());
  regular.write("a\n");
  EXPECT_EQ(regular.bytes_pending(), 2u);

  file null_device("/dev/null");  // a character device, but not a terminal
  EXPECT_FALSE(null_device.line_buffered());
}

TEST(line_buffering, line_mode_on_a_regular_file_flushes_lines) {
  temp_dir dir;
  file f = fastout::output_file(dir.file("x"), buffering::line);
  EXPECT_TRUE(f.line_buffered());
}

// ---------------------------------------------------------------- flush, close, move

TEST(lifetime, flush_sends_the_buffer) {
  temp_dir dir;
  std::string path = dir.file("f");
  file f(path, with_buffer(64));
  f.write("abc");
  EXPECT_EQ(read_file(path), "");
  f.flush();
  EXPECT_EQ(read_file(path), "abc");
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.stats().flushes, 1u);
  EXPECT_EQ(f.stats().write_calls, 1u);
  f.flush();  // nothing to send: no system call
  EXPECT_EQ(f.stats().flushes, 1u);
  EXPECT_EQ(f.stats().write_calls, 1u);
  f.put('d');
  f.flush();
  EXPECT_EQ(read_file(path), "abcd");
}

TEST(lifetime, close_is_idempotent) {
  temp_dir dir;
  file f(dir.file("c"), with_buffer(64));
  f.write("abc");
  f.close();
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(f.descriptor(), -1);
  EXPECT_NO_THROW(f.close());
  EXPECT_NO_THROW(f.close());
  EXPECT_EQ(read_file(dir.file("c")), "abc");
  EXPECT_EQ(f.stats().write_calls, 1u);
  EXPECT_EQ(f.stats().bytes_written, 3u);
}

void expect_closed_error(const std::function<void()>& call) {
  try {
    call();
    ADD_FAILURE() << "no error from a closed writer";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(EBADF)) << e.what();
  }
}

TEST(lifetime, using_a_closed_writer_throws_ebadf) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 1, 64}) {
    file f(dir.file("closed"), with_buffer(size));
    f.close();
    expect_closed_error([&] { f.put('x'); });
    expect_closed_error([&] { f.write("abc"); });
    expect_closed_error([&] { f.write(std::string_view()); });  // even an empty one
    expect_closed_error([&] { f.write(std::string(1000, 'z')); });
    EXPECT_NO_THROW(f.flush());  // nothing is pending on a closed writer: as fmt::ostream
    expect_closed_error([&] {
      fastout::cursor c = f.make_cursor();
      c.put('x');
    });
    EXPECT_EQ(read_file(dir.file("closed")), "");
    file never_opened;
    EXPECT_FALSE(never_opened.is_open());
    expect_closed_error([&] { never_opened.put('x'); });
    expect_closed_error([&] { never_opened.write("x"); });
    expect_closed_error([&] { never_opened.write(nullptr, 0); });
    EXPECT_NO_THROW(never_opened.flush());
    EXPECT_NO_THROW(never_opened.close());
  }
}

// What a call on a writer that has no file says: why it has none, in words
// a user reads once, never `cannot write to ""`.
std::string closed_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(EBADF)) << e.what();
    EXPECT_FALSE(contains(e.what(), "\"\"")) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error from a closed writer";
  return {};
}

TEST(closed_writer, message_says_the_writer_was_moved_from) {
  temp_dir dir;
  const std::string moved_from =
      "cannot write through a fastout::file that was moved from: it is closed, and its file "
      "belongs to the writer it was moved to: Bad file descriptor";
  file a(dir.file("a"), with_buffer(64));
  file b(std::move(a));
  EXPECT_EQ(closed_message([&] { a.put('x'); }), moved_from);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(closed_message([&] { a.write("text"); }), moved_from);
  EXPECT_EQ(closed_message([&] { a.print("{}", 1); }), moved_from);
  EXPECT_EQ(closed_message([&] { a << 2.5; }), moved_from);
  file c;
  c = std::move(b);  // by assignment too
  EXPECT_EQ(closed_message([&] { b.write("text"); }),
            moved_from);  // NOLINT(bugprone-use-after-move)
  // Given a writer again, it is that writer.
  b = fastout::output_file(dir.file("b"));
  EXPECT_NO_THROW(b.write("b"));
  b.close();
  EXPECT_EQ(closed_message([&] { b.write("text"); }),
            "cannot write to \"" + dir.file("b") + "\": the writer is closed: Bad file descriptor");
  c.close();
}

TEST(closed_writer, message_says_the_writer_was_never_opened) {
  file never;
  EXPECT_EQ(closed_message([&] { never.write("text"); }),
            "cannot write through a fastout::file that was never opened: a default-constructed "
            "writer is closed: Bad file descriptor");
}

TEST(lifetime, the_destructor_flushes) {
  temp_dir dir;
  {
    file f(dir.file("d"), with_buffer(1024));
    f.write("written by the destructor");
    EXPECT_EQ(read_file(dir.file("d")), "");
  }
  EXPECT_EQ(read_file(dir.file("d")), "written by the destructor");
}

TEST(lifetime, move_construction_takes_the_writer) {
  temp_dir dir;
  file a(dir.file("m"), with_buffer(64));
  a.write("before ");
  int fd = a.descriptor();
  file b(std::move(a));
  EXPECT_FALSE(a.is_open());  // NOLINT(bugprone-use-after-move): it is the point
  EXPECT_EQ(a.bytes_pending(), 0u);
  expect_closed_error([&] { a.put('x'); });
  EXPECT_NO_THROW(a.close());
  EXPECT_TRUE(b.is_open());
  EXPECT_EQ(b.descriptor(), fd);
  EXPECT_EQ(b.path(), dir.file("m"));
  EXPECT_EQ(b.bytes_pending(), 7u);
  b.write("after");
  b.close();
  EXPECT_EQ(read_file(dir.file("m")), "before after");
  EXPECT_EQ(b.stats().bytes_accepted, 12u);
}

TEST(lifetime, move_assignment_flushes_and_closes_the_target) {
  temp_dir dir;
  file a(dir.file("a"), with_buffer(64));
  a.write("aaa");
  int a_fd = a.descriptor();
  file b(dir.file("b"), with_buffer(64));
  b.write("bbb");
  a = std::move(b);
  EXPECT_FALSE(fastout_test::fd_is_open(a_fd));  // closed by the assignment
  EXPECT_EQ(read_file(dir.file("a")), "aaa");    // after flushing
  EXPECT_NE(a.descriptor(), a_fd);
  EXPECT_EQ(a.path(), dir.file("b"));
  EXPECT_EQ(a.bytes_pending(), 3u);
  EXPECT_FALSE(b.is_open());  // NOLINT(bugprone-use-after-move)
  expect_closed_error([&] { b.write("x"); });
  a.write("!");
  a.close();
  EXPECT_EQ(read_file(dir.file("b")), "bbb!");
  // A moved-from writer can be assigned to again.
  b = file(dir.file("c"), with_buffer(2));
  b.write("ccc");
  b.close();
  EXPECT_EQ(read_file(dir.file("c")), "ccc");
}

TEST(lifetime, self_move_assignment_keeps_the_writer) {
  temp_dir dir;
  file a(dir.file("self"), with_buffer(64));
  a.write("x");
  file& alias = a;
  a = std::move(alias);
  EXPECT_TRUE(a.is_open());
  a.write("y");
  a.close();
  EXPECT_EQ(read_file(dir.file("self")), "xy");
}

TEST(lifetime, a_moved_unbuffered_writer_stays_unbuffered) {
  temp_dir dir;
  file a(dir.file("u"), with_buffer(0));
  a.put('1');
  file b = std::move(a);
  b.put('2');
  EXPECT_EQ(read_file(dir.file("u")), "12");
}

// A moved-from writer reads as a closed one: no error, zero counters, so
// that summing stats() over writers counts nothing twice.
void expect_reads_as_closed(const file& f) {
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(f.descriptor(), -1);
  EXPECT_FALSE(f.error());
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_EQ(f.buffer_capacity(), 0u);
  fastout::file_stats s = f.stats();
  EXPECT_EQ(s.bytes_accepted, 0u);
  EXPECT_EQ(s.bytes_written, 0u);
  EXPECT_EQ(s.write_calls, 0u);
  EXPECT_EQ(s.flushes, 0u);
}

TEST(lifetime, a_moved_from_writer_has_zero_counters_and_no_error) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  temp_dir dir;
  file a(dir.file("counted"), with_buffer(4));
  a.write("0123456789");  // flushes, counts
  file b(std::move(a));
  expect_reads_as_closed(a);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.stats().bytes_accepted, 10u);
  EXPECT_GT(b.stats().write_calls, 0u);
  file c(dir.file("other"), with_buffer(4));
  c.write("xy");
  c = std::move(b);
  expect_reads_as_closed(b);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.stats().bytes_accepted, 10u);
  EXPECT_EQ(read_file(dir.file("other")), "xy");  // the old c was flushed and closed
  // A failed writer: its error goes with the move too.
  file failed("/dev/full", with_buffer(4));
  EXPECT_THROW(failed.write("0123456789"), std::system_error);
  file d(std::move(failed));
  expect_reads_as_closed(failed);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(d.error(), fastout_test::system_error_code(ENOSPC));
  EXPECT_THROW(d.close(), std::system_error);
}

TEST(lifetime, swap_exchanges_everything) {
  temp_dir dir;
  file a(dir.file("a"), with_buffer(64));
  file b(dir.file("b"), with_buffer(8));
  a.write("aaa");
  b.write("b");
  swap(a, b);
  EXPECT_EQ(a.path(), dir.file("b"));
  EXPECT_EQ(a.buffer_capacity(), 8u);
  EXPECT_EQ(a.bytes_pending(), 1u);
  EXPECT_EQ(b.stats().bytes_accepted, 3u);
  a.write("!");
  b.write("?");
  a.close();
  b.close();
  EXPECT_EQ(read_file(dir.file("a")), "aaa?");
  EXPECT_EQ(read_file(dir.file("b")), "b!");
}

// ---------------------------------------------------------------- stats

TEST(stats, count_every_byte_call_and_flush) {
  temp_dir dir;
  file f(dir.file("s"), with_buffer(8));
  auto expect = [&](std::uint64_t accepted, std::uint64_t written, std::uint64_t calls,
                    std::uint64_t flushes) {
    fastout::file_stats s = f.stats();
    EXPECT_EQ(s.bytes_accepted, accepted);
    EXPECT_EQ(s.bytes_written, written);
    EXPECT_EQ(s.write_calls, calls);
    EXPECT_EQ(s.flushes, flushes);
  };
  expect(0, 0, 0, 0);
  f.write("12345");
  expect(5, 0, 0, 0);
  f.write("67890");  // fills the buffer, sends 8, keeps 2
  expect(10, 8, 1, 1);
  f.flush();
  expect(10, 10, 2, 2);
  f.write(std::string(20, 'z'));  // bypasses the empty buffer: not a flush
  expect(30, 30, 3, 2);
  f.put('x');
  {
    fastout::cursor c = f.make_cursor();
    c.put('y');
  }
  expect(32, 30, 3, 2);
  f.close();
  expect(32, 32, 4, 3);
}

// ---------------------------------------------------------------- cursor

TEST(cursor, content_survives_flushes) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 1, 2, 7, 64, 4096}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    std::string path = dir.file("cursor");
    std::string expected;
    file f(path, with_buffer(size));
    {
      fastout::cursor c = f.make_cursor();
      for (int i = 0; i < 5000; ++i) {
        char ch = static_cast<char>('a' + i % 26);
        c.put(ch);
        expected += ch;
        if (i % 97 == 0) {
          std::string s = "<" + std::to_string(i) + ">";
          c.write(s);
          expected += s;
        }
        if (i % 1000 == 999) {
          c.flush();
          EXPECT_EQ(read_file(path), expected);
        }
      }
      std::string big(3 * size + 5, 'B');
      c.write(big.data(), big.size());
      expected += big;
    }
    EXPECT_EQ(f.stats().bytes_accepted, expected.size());
    f.close();
    EXPECT_EQ(read_file(path), expected);
  }
}

TEST(cursor, commits_on_destruction_and_on_commit) {
  temp_dir dir;
  file f(dir.file("commit"), with_buffer(64));
  {
    fastout::cursor c = f.make_cursor();
    c.put('a');
    c.write("bc");
    EXPECT_EQ(f.bytes_pending(), 0u);  // still in the cursor's registers
    c.commit();
    EXPECT_EQ(f.bytes_pending(), 3u);
    c.put('d');
  }
  EXPECT_EQ(f.bytes_pending(), 4u);
  EXPECT_EQ(f.stats().bytes_accepted, 4u);
  f.put('e');  // the writer carries on where the cursor stopped
  {
    fastout::cursor c(f);
    c.put('f');
  }
  f.close();
  EXPECT_EQ(read_file(dir.file("commit")), "abcdef");
}

// Expects `call` to be refused with EBUSY while a cursor is alive, with a
// message naming the path and the cursor.
void expect_busy(const std::string& path, const std::function<void()>& call, const char* what) {
  try {
    call();
    ADD_FAILURE() << what << ": no error while a cursor is alive";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), fastout_test::system_error_code(EBUSY)) << what << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), path)) << what << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), "cursor")) << what << ": " << e.what();
  }
}

// The bug this guards against: 100 bytes put through a cursor, then close()
// on the writer while the cursor lived, left an empty file and no error.
// Every call on the writer itself is refused while a cursor is alive, and
// nothing the cursor wrote is lost.
TEST(cursor, every_writer_call_while_a_cursor_is_alive_is_refused) {
  temp_dir dir;
  for (std::size_t size : size_list{0, 1, 7, 64, 4096}) {
    for (buffering mode : {buffering::full, buffering::line}) {
      SCOPED_TRACE("buffer " + std::to_string(size) + (mode == buffering::line ? ", line" : ""));
      std::string path = dir.file("busy");
      file f(path, with_buffer(size, mode));
      f.write("before|");
      std::string expected = "before|";
      {
        fastout::cursor c = f.make_cursor();
        for (int i = 0; i < 100; ++i) c.put(static_cast<char>('a' + i % 26));
        for (int i = 0; i < 100; ++i) expected += static_cast<char>('a' + i % 26);
        expect_busy(
            path, [&] { f.close(); }, "close");
        expect_busy(
            path, [&] { f.flush(); }, "flush");
        expect_busy(
            path, [&] { f.put('x'); }, "put");
        expect_busy(
            path, [&] { f.write("xyz"); }, "write");
        expect_busy(
            path, [&] { f.write(std::string_view()); }, "empty write");
        expect_busy(
            path, [&] { f.write(std::string(10000, 'x')); }, "large write");
        expect_busy(
            path, [&] { f.print("{}", 1); }, "print");
        expect_busy(
            path, [&] { f.print(fmt::runtime("{}"), 1); }, "runtime print");
        expect_busy(
            path, [&] { f.println("{}", 2); }, "println");
        expect_busy(
            path, [&] { f.print(FMT_COMPILE("{}"), 3); }, "compiled print");
        expect_busy(
            path, [&] { f.println(FMT_COMPILE("{}"), 4); }, "compiled println");
        expect_busy(
            path, [&] { fastout_test::vprint_with(f, "{}", 5); }, "vprint");
        expect_busy(
            path, [&] { f << 6 << 'x' << "text" << 1.5; }, "<<");
        expect_busy(
            path, [&] { fastout::cursor second = f.make_cursor(); }, "a second cursor");
        EXPECT_TRUE(f.is_open());
        EXPECT_FALSE(f.error());  // refused calls leave no sticky error
        c.write("|after");
        expected += "|after";
        c.commit();  // the writer's counters see the cursor's bytes now
        EXPECT_EQ(f.stats().bytes_accepted, expected.size());
        expect_busy(
            path, [&] { f.put('x'); }, "put after commit");  // still lent
        c.put('!');
        expected += '!';
      }
      f.write("|end");
      expected += "|end";
      f.close();
      EXPECT_EQ(read_file(path), expected);
      EXPECT_EQ(f.stats().bytes_written, expected.size());
    }
  }
}

TEST(cursor, a_line_buffered_writer_sends_each_complete_line) {
  temp_dir dir;
  std::string path = dir.file("line");
  file f(path, with_buffer(64, buffering::line));
  {
    fastout::cursor c = f.make_cursor();
    c.write("one");
    c.put('\n');
    EXPECT_EQ(read_file(path), "one\n");
    c.write("two\nthr");
    EXPECT_EQ(read_file(path), "one\ntwo\n");
  }
  EXPECT_EQ(f.bytes_pending(), 3u);
}

}  // namespace
