// SPDX-License-Identifier: MIT
// The one hot path (include/fastout/detail/hot_path.h) that C's inline
// fastout_putc(), fastout_write() and fastout_fputs(), the C++ writer's
// put() and write() and both cursors expand: every size from 1 to 17 bytes
// (the branch-free copy and memcpy), at every position in small buffers (a
// copy that ends at the buffer's end, and one that no longer fits), comes
// out whole and in order, whichever language wrote it.
#include <fastout/c_api.h>
#include <fastout/cursor.h>
#include <fastout/file.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "test_util.h"

namespace {

using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::with_buffer;

// Bytes that differ from one position to the next, so that a piece copied
// from the wrong place or to the wrong place shows.
std::string pattern(std::size_t size) {
  std::string text;
  for (std::size_t i = 0; i < size; ++i) text += static_cast<char>('a' + (i * 7) % 26);
  return text;
}

// Writes `expected` through `write_piece(writer, data, size)` in pieces of
// 1 to 17 bytes, cycling, after `offset` single bytes.
template <typename WritePiece>
void write_in_small_pieces(fastout::file& f, const std::string& expected, std::size_t offset,
                           WritePiece write_piece) {
  for (std::size_t i = 0; i < offset; ++i) f.put(expected[i]);
  std::size_t at = offset;
  std::size_t size = 1;
  while (at < expected.size()) {
    const std::size_t piece = std::min(size, expected.size() - at);
    write_piece(f, expected.data() + at, piece);
    at += piece;
    size = size == 17 ? 1 : size + 1;
  }
}

}  // namespace

TEST(hot_path, small_writes_at_every_position_of_small_buffers_come_out_whole) {
  temp_dir dir;
  const std::string expected = pattern(700);
  for (std::size_t buffer : {1u, 15u, 16u, 17u, 31u, 32u, 48u}) {
    for (std::size_t offset = 0; offset < 18; ++offset) {
      const std::string path = dir.file("out");
      {
        fastout::file f(path, with_buffer(buffer));
        write_in_small_pieces(
            f, expected, offset,
            [](fastout::file& w, const char* data, std::size_t size) { w.write(data, size); });
        f.close();
      }
      ASSERT_EQ(read_file(path), expected)
          << "C++ write(), buffer " << buffer << ", offset " << offset;
      {
        fastout::file f(path, with_buffer(buffer));
        write_in_small_pieces(f, expected, offset,
                              [](fastout::file& w, const char* data, std::size_t size) {
                                fastout::cursor c(w);
                                c.write(data, size);
                              });
        f.close();
      }
      ASSERT_EQ(read_file(path), expected)
          << "cursor write(), buffer " << buffer << ", offset " << offset;
      {
        fastout::file f(path, with_buffer(buffer));
        write_in_small_pieces(f, expected, offset,
                              [](fastout::file& w, const char* data, std::size_t size) {
                                ASSERT_EQ(fastout_write(data, 1, size, fastout::c_handle(w)), size);
                              });
        f.close();
      }
      ASSERT_EQ(read_file(path), expected)
          << "fastout_write(), buffer " << buffer << ", offset " << offset;
      {
        fastout::file f(path, with_buffer(buffer));
        write_in_small_pieces(f, expected, offset,
                              [](fastout::file& w, const char* data, std::size_t size) {
                                const std::string text(data, size);  // NUL-terminated
                                ASSERT_EQ(fastout_fputs(text.c_str(), fastout::c_handle(w)), 1);
                              });
        f.close();
      }
      ASSERT_EQ(read_file(path), expected)
          << "fastout_fputs(), buffer " << buffer << ", offset " << offset;
    }
  }
}

TEST(hot_path, bytes_put_from_c_and_cxx_interleave_in_order) {
  temp_dir dir;
  const std::string path = dir.file("out");
  const std::string expected = pattern(1000);
  {
    fastout::file f(path, with_buffer(7));
    fastout_file* handle = fastout::c_handle(f);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      switch (i % 4) {
        case 0: f.put(expected[i]); break;
        case 1:
          ASSERT_EQ(fastout_putc(expected[i], handle), static_cast<unsigned char>(expected[i]));
          break;
        case 2: {
          fastout::cursor c(f);
          c.put(expected[i]);
          break;
        }
        default: {
          fastout_cursor c = fastout_cursor_begin(handle);
          fastout_cursor_putc(expected[i], &c);
          ASSERT_EQ(fastout_cursor_end(c), 0);
        }
      }
    }
    f.close();
  }
  EXPECT_EQ(read_file(path), expected);
}

TEST(hot_path, an_empty_write_still_meets_a_closed_writer) {
  fastout::file closed;
  EXPECT_THROW(closed.write("", 0), std::system_error);
  EXPECT_THROW(closed.write(nullptr, 0), std::system_error);
}
