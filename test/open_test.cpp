// SPDX-License-Identifier: MIT
// Tests of opening a writer (src/open/open.cpp) when all goes well: a path
// with each open_mode, {fmt}-style flags and parameters, permissions and the
// umask, wide paths; what opening refuses, naming the path (bad input); and
// a descriptor adopted or borrowed, and the standard ones. Opening when the
// system calls fail is in open_faults_test.cpp.
#include <fastout/file.h>
#include <fastout/print.h>

#include <fmt/os.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
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
using fastout_test::temp_dir;
using fastout_test::write_file;

using fastout_test::with_buffer;

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

}  // namespace
