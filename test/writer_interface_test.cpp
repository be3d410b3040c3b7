// SPDX-License-Identifier: MIT
// The writer's internal interface, the one way into its buffer for text
// made in place: pieces (begin_piece(), grow_piece(), end_piece()), which
// print and fastout_printf write through, and loans of a piece (lend(),
// take_back()), which the stream buffer and fmt::writer's buffer hold
// between the writer's own calls.
#include <fastout/file.h>
#include <fastout/iostream.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout_test::read_file;
using fastout_test::scoped_platform;
using fastout_test::temp_dir;
using fastout_test::with_buffer;

// Writes `text` into a piece at `at`, growing it one byte at a time as a
// producer that does not know its length would.
char* produce(fastout::file& f, fastout::detail::piece& p, char* at, const std::string& text) {
  for (char c : text) {
    if (at == p.end) at = fastout::detail::writer_of(f).grow_piece(p, at, 1);
    *at++ = c;
  }
  return at;
}

// Every chunk the fake write() and writev() were given, in order; the
// n-th call (from 1) fails with EIO when fail_at says so.
std::vector<std::string> chunks;
int calls = 0;
int fail_at = 0;

ssize_t recording_writev(int fd, const struct iovec* iov, int count) {
  (void)fd;
  if (++calls == fail_at) {
    errno = EIO;
    return -1;
  }
  std::string chunk;
  for (int i = 0; i < count; ++i)
    chunk.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  chunks.push_back(chunk);
  return static_cast<ssize_t>(chunk.size());
}

ssize_t recording_write(int fd, const void* data, size_t size) {
  struct iovec iov = {const_cast<void*>(data), size};
  return recording_writev(fd, &iov, 1);
}

void record_writes(int failing_call = 0) {
  chunks.clear();
  calls = 0;
  fail_at = failing_call;
  fastout::detail::platform.write = recording_write;
  fastout::detail::platform.writev = recording_writev;
}

// A stream buffer whose put area a test can look at.
class visible_streambuf : public fastout::streambuf {
 public:
  using fastout::streambuf::streambuf;
  bool has_put_area() const { return pbase() != nullptr && epptr() > pptr(); }
};

}  // namespace

TEST(writer_interface, a_whole_piece_moves_to_the_front_of_the_buffer_unsplit) {
  temp_dir dir;
  scoped_platform restore;
  fastout::file f(dir.file("out"), with_buffer(8));
  record_writes();
  f.write("abcde", 5);
  char spare[4];
  fastout::detail::piece p = fastout::detail::writer_of(f).begin_piece(spare, sizeof spare);
  char* at = produce(f, p, p.text, "123456");  // needs the front of the buffer
  fastout::detail::writer_of(f).end_piece(p, at);
  f.flush();
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0], "abcde");   // the text before it, alone
  EXPECT_EQ(chunks[1], "123456");  // the piece, whole
  EXPECT_EQ(f.stats().bytes_accepted, 11u);
}

TEST(writer_interface, a_piece_larger_than_the_buffer_streams_and_counts_what_it_sent) {
  temp_dir dir;
  scoped_platform restore;
  fastout::file f(dir.file("out"), with_buffer(4));
  record_writes();
  f.put('x');
  char spare[4];
  fastout::detail::piece p = fastout::detail::writer_of(f).begin_piece(spare, sizeof spare);
  const std::string text(100000, 'y');  // larger than the streaming area too
  char* at = produce(f, p, p.text, text);
  EXPECT_GT(p.sent, 0u);
  EXPECT_EQ(p.sent + static_cast<std::size_t>(at - p.text), text.size());
  fastout::detail::writer_of(f).end_piece(p, at);
  f.flush();
  std::string all;
  for (const std::string& chunk : chunks) all += chunk;
  EXPECT_EQ(all, "x" + text);
  EXPECT_EQ(f.stats().bytes_accepted, 1 + text.size());
  EXPECT_EQ(f.stats().bytes_written, 1 + text.size());
  // Through the 64 KiB streaming area, not the 4-byte buffer.
  EXPECT_LE(chunks.size(), 3u);
}

TEST(writer_interface, a_whole_piece_whose_room_cannot_be_made_is_dropped_uncounted) {
  temp_dir dir;
  scoped_platform restore;
  fastout::file f(dir.file("out"), with_buffer(8));
  record_writes(1);  // the first write fails
  f.write("abcde", 5);
  char spare[4];
  fastout::detail::piece p = fastout::detail::writer_of(f).begin_piece(spare, sizeof spare);
  EXPECT_THROW(produce(f, p, p.text, "123456"), std::system_error);
  EXPECT_EQ(f.stats().bytes_accepted, 5u);  // the piece was not complete
  EXPECT_EQ(f.stats().bytes_written, 0u);
  EXPECT_EQ(f.error(), fastout_test::system_error_code(EIO));
}

TEST(writer_interface, a_stream_buffer_keeps_its_put_area_across_endl) {
  temp_dir dir;
  const std::string path = dir.file("out");
  fastout::file f(path, with_buffer(64));
  visible_streambuf buffer(f);
  std::ostream out(&buffer);
  out << "first" << std::endl;
  EXPECT_TRUE(buffer.has_put_area());  // flushed, and still lent: no overflow for the next line
  EXPECT_EQ(f.stats().write_calls, 1u);
  out << "second" << std::endl;
  EXPECT_TRUE(buffer.has_put_area());
  EXPECT_EQ(f.stats().write_calls, 2u);
  EXPECT_EQ(read_file(path), "first\nsecond\n");
  EXPECT_EQ(f.bytes_pending(), 0u);
}

TEST(writer_interface, the_writer_takes_a_loan_back_before_its_own_calls_after_a_send) {
  temp_dir dir;
  const std::string path = dir.file("out");
  {
    fastout::file f(path, with_buffer(64));
    fastout::streambuf buffer(f);
    std::ostream out(&buffer);
    out << "a" << std::flush;  // sent, and the put area kept: the loan goes on
    f.put('b');                // must take the loan back first, not write over it
    out << "c" << std::flush;
    f.put('d');
    out << "e";
    f.close();
  }
  EXPECT_EQ(read_file(path), "abcde");
}

TEST(writer_interface, a_failed_flush_through_a_stream_buffer_counts_every_byte_once) {
  temp_dir dir;
  scoped_platform restore;
  fastout::file f(dir.file("out"), with_buffer(64));
  fastout::streambuf buffer(f);
  std::ostream out(&buffer);
  out << "older";
  record_writes(1);
  out << "-line" << std::endl;
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(buffer.error(), fastout_test::system_error_code(EIO));
  EXPECT_EQ(f.stats().bytes_accepted, 11u);
  EXPECT_EQ(f.stats().bytes_written, 0u);
  EXPECT_EQ(f.bytes_pending(), 0u);
  EXPECT_THROW(f.put('x'), std::system_error);  // sticky, and the loan is back
  EXPECT_EQ(f.stats().bytes_accepted, 11u);
}
