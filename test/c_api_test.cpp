// SPDX-License-Identifier: MIT
// The C API from C++ (include/fastout/c_api.h): mixed C and C++ code
// sharing one writer through its handle, both ways round, and the
// boundary -- every C function is noexcept, and a writer the C API cannot
// use (closed, lent to a C++ cursor) gives an error code, never an
// exception. The C API's own behaviour is tested from C (test/c_api_test.c,
// test/printf_diff_test.c) and its faults in test/c_api_faults_test.cpp.
#include <fastout/c_api.h>
#include <fastout/cursor.h>

#include <fastout/file.h>
#include <fastout/iostream.h>
#include <fastout/print.h>
#include <fastout/standard_streams.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

#include "test_util.h"

namespace {

using fastout::file;
using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::with_buffer;

// Nothing can throw across the boundary: the compiler knows it too.
static_assert(noexcept(fastout_putc(0, nullptr)), "fastout_putc is noexcept");
static_assert(noexcept(fastout_write(nullptr, 0, 0, nullptr)), "fastout_write is noexcept");
static_assert(noexcept(fastout_fputs(nullptr, nullptr)), "fastout_fputs is noexcept");
static_assert(noexcept(fastout_fprintf(nullptr, "%d", 0)), "fastout_fprintf is noexcept");
static_assert(noexcept(fastout_close(nullptr)), "fastout_close is noexcept");
static_assert(noexcept(fastout_open(nullptr, nullptr)), "fastout_open is noexcept");
static_assert(noexcept(fastout_cursor_putc(0, nullptr)), "fastout_cursor_putc is noexcept");
static_assert(noexcept(fastout_putchar(0)), "fastout_putchar is noexcept");
static_assert(noexcept(fastout_puts(nullptr)), "fastout_puts is noexcept");
static_assert(noexcept(fastout_printf("%d", 0)), "fastout_printf is noexcept");
static_assert(noexcept(fastout_stdout()), "fastout_stdout is noexcept");
static_assert(noexcept(fastout_set_stdout_options(nullptr)),
              "fastout_set_stdout_options is noexcept");
static_assert(noexcept(fastout_sync_with_stdio(0)), "fastout_sync_with_stdio is noexcept");

TEST(c_api, c_and_cxx_share_one_buffer) {
  temp_dir dir;
  for (std::size_t size : fastout_test::size_list{0, 1, 3, 64, fastout::default_buffer_size}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    std::string path = dir.file("out");
    std::string expected;
    file f(path, with_buffer(size));
    fastout_file* handle = fastout::c_handle(f);
    EXPECT_EQ(&fastout::from_c_handle(handle), &f);
    for (int i = 0; i < 2000; ++i) {
      f.put('a');
      EXPECT_EQ(fastout_putc('b', handle), 'b');
      f.print("{},", i);
      EXPECT_GT(fastout_fprintf(handle, "%d;", i), 0);
      EXPECT_EQ(fastout_write("w", 1, 1, handle), 1u);
      f << 1.5;
      EXPECT_EQ(fastout_fputs("p\n", handle), 1);
      expected += "ab" + std::to_string(i) + "," + std::to_string(i) + ";w1.5p\n";
    }
    fastout_stats c_stats;
    ASSERT_EQ(fastout_get_stats(handle, &c_stats), 0);
    EXPECT_EQ(c_stats.bytes_accepted, f.stats().bytes_accepted);
    EXPECT_EQ(c_stats.bytes_accepted, expected.size());
    f.close();
    EXPECT_EQ(read_file(path), expected);
  }
}

// fastout_close() on a C++ writer's handle closes the writer and leaves the
// object to its owner (ASan would see a wrong free).
// C's stdout and stderr are C++'s standard_output() and standard_error(),
// so that the two write into one buffer each, in order.
TEST(c_api, c_stdout_and_stderr_are_the_process_wide_writers) {
  EXPECT_EQ(fastout_open_stdout(nullptr), fastout::c_handle(fastout::standard_output()));
  EXPECT_EQ(fastout_open_stderr(nullptr), fastout::c_handle(fastout::standard_error()));
  EXPECT_NE(fastout_open_stdout(nullptr), fastout_open_stderr(nullptr));
  // Options are setvbuf()'s: the writer stays the same object.
  fastout_options options;
  fastout_options_init(&options);
  options.buffer_size = 4096;
  fastout_file* err = fastout_open_stderr(&options);
  EXPECT_EQ(err, fastout::c_handle(fastout::standard_error()));
  EXPECT_EQ(fastout::standard_error().buffer_capacity(), 4096u);
  options.buffer_size = 0;  // unbuffered again, as stderr was
  EXPECT_EQ(fastout_open_stderr(&options), err);
  EXPECT_EQ(fastout::standard_error().buffer_capacity(), 0u);
}

TEST(c_api, close_on_a_cxx_writers_handle_does_not_free_it) {
  temp_dir dir;
  std::string path = dir.file("out");
  file f(path);
  fastout_file* handle = fastout::c_handle(f);
  EXPECT_EQ(fastout_fputs("from C", handle), 1);
  EXPECT_EQ(fastout_close(handle), 0);
  EXPECT_FALSE(f.is_open());
  EXPECT_EQ(f.stats().bytes_written, 6u);
  EXPECT_EQ(read_file(path), "from C");
  // A closed writer: its handle says so, and C++ says so too.
  errno = 0;
  EXPECT_EQ(fastout_putc('x', handle), EOF);  // as putc() after fclose()
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(fastout_last_error(handle), -EBADF);
  EXPECT_EQ(fastout_fprintf(handle, "%d", 1), -EBADF);
  EXPECT_EQ(fastout_write("x", 1, 1, handle), 0u);
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(fastout_flush(handle), 0);  // as file::flush() on a closed writer
  errno = 0;
  EXPECT_EQ(fastout_fileno(handle), -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_THROW(f.put('x'), std::system_error);
}

// A writer the C API made, used from C++ and freed by fastout_close().
TEST(c_api, cxx_uses_a_writer_the_c_api_made) {
  temp_dir dir;
  std::string path = dir.file("out");
  fastout_file* handle = fastout_open(path.c_str(), nullptr);
  ASSERT_NE(handle, nullptr);
  file& f = fastout::from_c_handle(handle);
  EXPECT_EQ(f.path(), path);
  EXPECT_EQ(fastout_fprintf(handle, "%s ", "C"), 2);
  f.println("{} {}", "C++", 17);
  {
    fastout::cursor c = f.make_cursor();
    for (char ch : std::string("cursor\n")) c.put(ch);
  }
  EXPECT_EQ(fastout_close(handle), 0);
  EXPECT_EQ(read_file(path), "C C++ 17\ncursor\n");
}

// A C++ cursor holds the buffer: C calls fail with EBUSY instead of
// writing into the middle of it, and succeed once it is gone.
TEST(c_api, a_cursor_makes_c_calls_busy) {
  temp_dir dir;
  std::string path = dir.file("out");
  file f(path);
  fastout_file* handle = fastout::c_handle(f);
  {
    fastout::cursor c = f.make_cursor();
    c.put('1');
    // stdio's calls fail with EOF and the cause in errno, printf with it.
    errno = 0;
    EXPECT_EQ(fastout_putc('x', handle), EOF);
    EXPECT_EQ(errno, EBUSY);
    errno = 0;
    EXPECT_EQ(fastout_fputs("x", handle), EOF);
    EXPECT_EQ(errno, EBUSY);
    EXPECT_EQ(fastout_fprintf(handle, "%d", 5), -EBUSY);
    errno = 0;
    EXPECT_EQ(fastout_write("x", 1, 1, handle), 0u);
    EXPECT_EQ(errno, EBUSY);
    errno = 0;
    EXPECT_EQ(fastout_flush(handle), EOF);
    EXPECT_EQ(errno, EBUSY);
    errno = 0;
    EXPECT_EQ(fastout_close(handle), EOF);
    EXPECT_EQ(errno, EBUSY);
    EXPECT_EQ(fastout_last_error(handle), -EBUSY);
    EXPECT_TRUE(f.is_open());  // nothing was lost
    EXPECT_EQ(fastout_error(handle), 0);
    c.put('2');
  }
  EXPECT_EQ(fastout_putc('3', handle), '3');
  f.close();
  EXPECT_EQ(read_file(path), "123");
}

// A C cursor holds the buffer as a C++ cursor does: the C++ writer's calls
// throw EBUSY, and what the cursor wrote counts once it ends.
TEST(c_api, a_c_cursor_makes_cxx_calls_busy) {
  temp_dir dir;
  std::string path = dir.file("out");
  file f(path);
  fastout_cursor cursor = fastout_cursor_begin(fastout::c_handle(f));
  ASSERT_EQ(cursor.error, 0);
  EXPECT_EQ(fastout_cursor_putc('1', &cursor), '1');
  try {
    f.put('x');
    ADD_FAILURE() << "put() while a C cursor is alive";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EBUSY);
  }
  EXPECT_THROW(f.close(), std::system_error);
  EXPECT_TRUE(f.is_open());
  EXPECT_EQ(fastout_cursor_end(cursor), 0);
  EXPECT_EQ(f.stats().bytes_accepted, 1u);
  f.put('2');
  f.close();
  EXPECT_EQ(read_file(path), "12");
}

#ifdef FASTOUT_FMT_HAS_WRITER
// Space lent to the fmt::writer a file converts to comes back, in order.
TEST(c_api, text_of_the_fmt_writer_comes_first) {
  temp_dir dir;
  std::string path = dir.file("out");
  file f(path);
  fastout_file* handle = fastout::c_handle(f);
  fmt::writer w = f;
  w.print("{}", "fmt ");
  EXPECT_EQ(fastout_fprintf(handle, "%s", "C "), 2);
  w.print("{}", "fmt");
  EXPECT_EQ(fastout_putc('!', handle), '!');
  f.close();
  EXPECT_EQ(read_file(path), "fmt C fmt!");
}
#endif

// A moved writer keeps its handle valid only at its new address: the C
// handle follows the object, as a pointer would.
TEST(c_api, the_handle_is_the_objects_address) {
  temp_dir dir;
  file a(dir.file("a"));
  file b(dir.file("b"));
  EXPECT_NE(fastout::c_handle(a), fastout::c_handle(b));
  fastout_file* handle = fastout::c_handle(a);
  b = std::move(a);  // `a` is closed now, and so is what its handle reaches
  EXPECT_EQ(fastout_putc('x', handle), EOF);
  EXPECT_EQ(fastout_last_error(handle), -EBADF);
  EXPECT_EQ(fastout_putc('y', fastout::c_handle(b)), 'y');
  b.close();
  EXPECT_EQ(read_file(dir.file("a")), "y");
}

// The calls without a handle write to C++'s standard_output(), in order
// with its own calls and with std::cout after sync_with_stdio(); text
// std::cout wrote is output, so fastout_set_stdout_options() comes too late.
TEST(c_api, standard_output_calls_share_cxx_standard_output) {
  FASTOUT_SKIP_UNLESS_LINUX(
      "stdio streams that hand their writes to fastout (sync_with_stdio: glibc's fopencookie; the BSDs' and Apple's funopen)");
  temp_dir dir;
  std::string path = dir.file("out");
  int status = fastout_test::run_in_child([&] {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::dup2(fd, 1) < 0) return 1;
    fastout::sync_with_stdio();
    std::cout << "cout ";
    fastout_options options;
    fastout_options_init(&options);
    if (fastout_set_stdout_options(&options) != -EALREADY) return 2;
    if (fastout_puts("puts") < 0 || fastout_putchar('+') != '+') return 3;
    fastout::standard_output().print("C++ {} ", 17);
    if (fastout_printf("%s\n", "printf") != 7) return 4;
    if (fastout_stdout() != fastout::c_handle(fastout::standard_output())) return 5;
    std::exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << fastout_test::describe_status(status);
  EXPECT_EQ(read_file(path), "cout puts\n+C++ 17 printf\n");
}

// 0.2.0's names keep their meaning in C++ as overloads, for one more
// release, with a deprecation warning (checked by test/CMakeLists.txt).
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
int old_vprintf(fastout_file* f, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int result = fastout_vprintf(f, format, args);
  va_end(args);
  return result;
}

TEST(c_api, names_of_0_2_keep_their_meaning) {
  temp_dir dir;
  std::string path = dir.file("out");
  file f(path);
  fastout_file* handle = fastout::c_handle(f);
  EXPECT_EQ(fastout_puts("fputs, ", handle), 1);
  EXPECT_EQ(fastout_printf(handle, "%s %d, ", "fprintf", 2), 11);
  EXPECT_EQ(old_vprintf(handle, "%s", "vfprintf"), 8);
  f.close();
  // ... their failures too: the old fastout_puts(text, file) returns the
  // code, where fastout_fputs() returns EOF.
  EXPECT_EQ(fastout_puts("x", handle), -EBADF);
  EXPECT_EQ(fastout_fputs("x", handle), EOF);
  EXPECT_EQ(fastout_printf(handle, "%d", 1), -EBADF);
  EXPECT_EQ(read_file(path), "fputs, fprintf 2, vfprintf");
}
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif

}  // namespace
