// SPDX-License-Identifier: MIT
// Tests of fastout::cursor (include/fastout/cursor.h), the writer's
// byte-at-a-time loop, when all goes well: what it puts survives flushes at
// every buffer size, it commits on destruction and on commit(), the writer
// refuses every call while one is alive, and a line-buffered writer sends
// each complete line. A cursor whose writes fail is in write_faults_test.cpp
// (cursor_faults).
#include <fastout/cursor.h>
#include <fastout/file.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "test_util.h"

namespace {

using fastout::buffering;
using fastout::file;
using fastout_test::contains;
using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::with_buffer;
using fastout_test::size_list;

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
