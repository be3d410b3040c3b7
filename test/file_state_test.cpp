// SPDX-License-Identifier: MIT
// fastout::file's state moves as one: swap() and the move operations move
// detail::file_state whole, and the writer holds nothing else but its hot
// pointers and fmt::writer's buffer, so that a member added to the writer
// cannot be left behind by a move.
#include <fastout/file.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "test_util.h"

namespace {

using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::with_buffer;

// The size of everything swap() moves, and of what stays with each writer.
constexpr std::size_t moved_and_kept_size = sizeof(fastout_buffer_state) +
                                            sizeof(fastout::detail::file_state)
#ifdef FASTOUT_FMT_HAS_WRITER
                                            + sizeof(fastout::detail::writer_buffer)
#endif
    ;

// A member declared in fastout::file itself instead of in file_state makes
// the writer larger than its parts: swap() would not move it.
static_assert(sizeof(fastout::file) == moved_and_kept_size,
              "fastout::file holds a member outside detail::file_state: put it there, so that "
              "swap() and the move operations move it");

TEST(file_state, the_writer_holds_nothing_but_its_moved_state) {
  EXPECT_EQ(sizeof(fastout::file), moved_and_kept_size);
}

TEST(file_state, swap_exchanges_every_observable_part) {
  temp_dir dir;
  // a: line-buffered, with text pending, one flush made, a C API error
  // recorded, and close steps (open_mode::replace) to carry.
  fastout::file_options a_options = with_buffer(64, fastout::buffering::line);
  a_options.mode = fastout::open_mode::replace;
  fastout::file a(dir.file("a"), a_options);
  a.write("first line\n");
  a.write("pending");
  fastout::detail::writer_of(a).set_last_call_error(-5);
  // b: fully buffered, reporting errors, failed on /dev/full.
  fastout::file_options b_options = with_buffer(128);
  b_options.errors = fastout::write_errors::report;
  fastout::file b("/dev/full", b_options);
  b.write("lost");
  b.flush();
  ASSERT_EQ(b.error().value(), ENOSPC);

  const fastout::file_stats a_stats = a.stats();
  const fastout::file_stats b_stats = b.stats();
  const int a_fd = a.descriptor();
  const int b_fd = b.descriptor();

  a.swap(b);

  EXPECT_EQ(a.path(), "/dev/full");
  EXPECT_EQ(b.path(), dir.file("a"));
  EXPECT_EQ(a.descriptor(), b_fd);
  EXPECT_EQ(b.descriptor(), a_fd);
  EXPECT_EQ(a.buffer_capacity(), 128u);
  EXPECT_EQ(b.buffer_capacity(), 64u);
  EXPECT_FALSE(a.line_buffered());
  EXPECT_TRUE(b.line_buffered());
  EXPECT_EQ(a.error().value(), ENOSPC);
  EXPECT_FALSE(b.error());
  EXPECT_EQ(a.error_mode(), fastout::write_errors::report);
  EXPECT_EQ(b.error_mode(), fastout::write_errors::throw_exception);
  EXPECT_EQ(fastout::detail::writer_of(a).last_call_error(), 0);
  EXPECT_EQ(fastout::detail::writer_of(b).last_call_error(), -5);
  EXPECT_EQ(b.bytes_pending(), 7u);
  EXPECT_EQ(a.stats().bytes_accepted, b_stats.bytes_accepted);
  EXPECT_EQ(a.stats().bytes_written, b_stats.bytes_written);
  EXPECT_EQ(a.stats().write_calls, b_stats.write_calls);
  EXPECT_EQ(a.stats().flushes, b_stats.flushes);
  EXPECT_EQ(b.stats().bytes_accepted, a_stats.bytes_accepted);
  EXPECT_EQ(b.stats().bytes_written, a_stats.bytes_written);
  EXPECT_EQ(b.stats().write_calls, a_stats.write_calls);
  EXPECT_EQ(b.stats().flushes, a_stats.flushes);

  // The close steps went with the replacement: only b can be canceled now,
  // and it leaves nothing at the path.
  try {
    a.cancel();
    ADD_FAILURE() << "cancel() of a writer without close steps";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
  }
  b.cancel();
  EXPECT_FALSE(b.is_open());
  EXPECT_EQ(::access(dir.file("a").c_str(), F_OK), -1);
}

TEST(file_state, a_moved_writer_carries_its_text_and_close_steps) {
  temp_dir dir;
  fastout::file_options options = with_buffer(64);
  options.mode = fastout::open_mode::replace;
  fastout::file from(dir.file("out"), options);
  from.write("kept");
  fastout::file to(std::move(from));
  EXPECT_FALSE(from.is_open());
  EXPECT_EQ(from.stats().bytes_accepted, 0u);
  try {
    from.write("x");
    ADD_FAILURE() << "a write to a moved-from writer";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EBADF);
    EXPECT_NE(std::string(e.what()).find("moved from"), std::string::npos) << e.what();
  }
  to.close();  // commits: the replacement's steps moved with it
  EXPECT_EQ(read_file(dir.file("out")), "kept");
}

}  // namespace
