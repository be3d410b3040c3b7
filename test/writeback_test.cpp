// SPDX-License-Identifier: MIT
// Writeback while writing (issue 16): a durable writer (sync) starts the
// writeback of every 8 MiB that reached the file with
// sync_file_range(SYNC_FILE_RANGE_WRITE) and, with more than 8 ranges in
// flight, waits for the oldest (SYNC_FILE_RANGE_WAIT_BEFORE), so that
// close() waits only for the tail. What is checked: the exact ranges; that
// a writer that is not durable makes no call more than before; that a
// writeback error is reported at the call that met it and at close(),
// and is never followed by a sync that could succeed without the lost
// pages; a write error while writeback is in flight; a pipe, where there is
// nothing to write back. The fallbacks where sync_file_range is refused are
// in platform_test.cpp, replacements in replace_test.cpp, kills in
// replace_crash_test.cpp.
#include <fastout/c_api.h>
#include <fastout/fastout.h>
#include <fastout/iostream.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <ostream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout::file;
using fastout::file_options;
using fastout_test::quoted;
using fastout_test::read_file;
using fastout_test::read_syscw;
using fastout_test::temp_dir;

constexpr std::size_t mib = std::size_t{1} << 20;

const fastout::detail::platform_calls& real() { return fastout::detail::real_platform; }
fastout::detail::platform_calls& table() { return fastout::detail::platform; }

// One start_writeback() or wait_for_writeback() call (sync_file_range()
// with SYNC_FILE_RANGE_WRITE or SYNC_FILE_RANGE_WAIT_BEFORE on Linux).
enum class range_kind { start, wait };
struct range_call {
  off_t offset;
  off_t size;
  range_kind kind;
  bool operator==(const range_call& other) const {
    return offset == other.offset && size == other.size && kind == other.kind;
  }
};

std::ostream& operator<<(std::ostream& out, const range_call& c) {
  return out << "{" << c.offset / static_cast<off_t>(mib) << " MiB, "
             << c.size / static_cast<off_t>(mib) << " MiB, "
             << (c.kind == range_kind::start ? "WRITE" : "WAIT_BEFORE") << "}";
}

range_call start(std::size_t from_mib, std::size_t size_mib = 8) {
  return {static_cast<off_t>(from_mib * mib), static_cast<off_t>(size_mib * mib),
          range_kind::start};
}
range_call wait_for(std::size_t from_mib, std::size_t size_mib = 8) {
  return {static_cast<off_t>(from_mib * mib), static_cast<off_t>(size_mib * mib), range_kind::wait};
}

// What the fakes saw, and what they are told to refuse. sync_file_range and
// the syncs are recorded and (unless refused) answered without a real call:
// the tests need only the page cache, not the disk.
struct disk_fakes {
  std::vector<range_call> ranges;
  int writes = 0;  // write, writev and write_uncached
  int lseeks = 0;
  int fdatasyncs = 0;
  int fsyncs = 0;
  // Refusals: sync_file_range call number `range_fails_at` (1-based) with
  // `range_error`; fdatasync with `sync_error`; a write once `write_limit`
  // bytes reached the file, with `write_error`.
  int range_fails_at = 0;
  int range_error = 0;
  int sync_error = 0;
  std::uint64_t write_limit = UINT64_MAX;
  int write_error = 0;
  std::uint64_t written = 0;
} fakes;

ssize_t fake_write(int fd, const void* data, size_t size) {
  ++fakes.writes;
  if (fakes.written >= fakes.write_limit) {
    errno = fakes.write_error;
    return -1;
  }
  ssize_t result = real().write(fd, data, size);
  if (result > 0) fakes.written += static_cast<std::uint64_t>(result);
  return result;
}
ssize_t fake_writev(int fd, const struct iovec* iov, int count) {
  ++fakes.writes;
  if (fakes.written >= fakes.write_limit) {
    errno = fakes.write_error;
    return -1;
  }
  ssize_t result = real().writev(fd, iov, count);
  if (result > 0) fakes.written += static_cast<std::uint64_t>(result);
  return result;
}
ssize_t fake_write_uncached(int fd, const struct iovec* iov, int count) {
  ++fakes.writes;
  ssize_t result = real().write_uncached(fd, iov, count);
  if (result > 0) fakes.written += static_cast<std::uint64_t>(result);
  return result;
}
off_t fake_lseek(int fd, off_t offset, int whence) {
  ++fakes.lseeks;
  return real().lseek(fd, offset, whence);
}
int fake_range(off_t offset, off_t size, range_kind kind) {
  fakes.ranges.push_back({offset, size, kind});
  if (static_cast<int>(fakes.ranges.size()) == fakes.range_fails_at) {
    errno = fakes.range_error;
    return -1;
  }
  return 0;
}
int fake_start_writeback(int, off_t offset, off_t size) {
  return fake_range(offset, size, range_kind::start);
}
int fake_wait_for_writeback(int, off_t offset, off_t size) {
  return fake_range(offset, size, range_kind::wait);
}
int fake_fdatasync(int) {
  ++fakes.fdatasyncs;
  if (fakes.sync_error != 0) {
    errno = fakes.sync_error;
    return -1;
  }
  return 0;
}
int fake_fsync(int) {
  ++fakes.fsyncs;
  return 0;
}

// Installs the fakes for one test, and puts the real calls back after it.
class writeback : public testing::Test {
 protected:
  void SetUp() override {
    fakes = disk_fakes();
    table().write = fake_write;
    table().writev = fake_writev;
    table().write_uncached = fake_write_uncached;
    table().lseek = fake_lseek;
    table().start_writeback = fake_start_writeback;
    table().wait_for_writeback = fake_wait_for_writeback;
    table().fdatasync = fake_fdatasync;
    table().fsync = fake_fsync;
  }

  fastout_test::scoped_platform restore_;
  temp_dir dir_;
};

// `count` MiB, each a different byte, so a misplaced piece shows.
std::string pieces(std::size_t count) {
  std::string data;
  data.reserve(count * mib);
  for (std::size_t i = 0; i < count; ++i) data.append(mib, static_cast<char>('a' + i % 26));
  return data;
}

void write_pieces(file& f, const std::string& data) {
  for (std::size_t at = 0; at < data.size(); at += mib) f.write(data.data() + at, mib);
}

// ---------------------------------------------------------------- the ranges

TEST_F(writeback, starts_every_8_mib_and_waits_for_the_range_8_before) {
  const std::string path = dir_.file("out");
  const std::string data = pieces(100);
  file f = fastout::output_file(path, fastout::sync = true);
  write_pieces(f, data);
  // 12 whole ranges reached the file; the 9th start waits for the first,
  // and so on: 8 ranges are in flight at most.
  const std::vector<range_call> expected = {start(0),  start(8),     start(16), start(24),
                                            start(32), start(40),    start(48), start(56),
                                            start(64), wait_for(0),  start(72), wait_for(8),
                                            start(80), wait_for(16), start(88), wait_for(24)};
  EXPECT_EQ(fakes.ranges, expected);
  EXPECT_EQ(fakes.lseeks, 12);  // once per range, never per write
  EXPECT_EQ(fakes.fdatasyncs, 0);
  f.close();
  EXPECT_EQ(fakes.ranges.size(), expected.size());  // the tail is the sync's
  EXPECT_EQ(fakes.fdatasyncs, 1);
  EXPECT_EQ(fakes.fsyncs, 0);
  EXPECT_EQ(read_file(path), data);
}

// Formatted text leaves through the buffer, up to 256 KiB at a time, whole
// lines: a range starts at the flush that completes 8 MiB, and the next
// begins where it ended.
TEST_F(writeback, ranges_follow_the_flushes_of_formatted_text) {
  const std::string path = dir_.file("out");
  file f = fastout::output_file(path, fastout::sync = true);
  std::string expected_text;
  for (std::int64_t i = 0; i < 2000000; ++i) {
    f.print("{}\n", i * 7919);
    expected_text += std::to_string(i * 7919) + "\n";
  }
  f.close();
  ASSERT_GT(expected_text.size(), 16 * mib);
  ASSERT_LT(expected_text.size(), 24 * mib);
  const off_t range = static_cast<off_t>(8 * mib);
  const off_t buffer = static_cast<off_t>(fastout::default_buffer_size);
  ASSERT_EQ(fakes.ranges.size(), 2u);
  EXPECT_EQ(fakes.ranges[0].offset, 0);
  EXPECT_GE(fakes.ranges[0].size, range);
  EXPECT_LT(fakes.ranges[0].size, range + buffer);
  EXPECT_EQ(fakes.ranges[1].offset, fakes.ranges[0].size);
  EXPECT_GE(fakes.ranges[1].size, range);
  EXPECT_LT(fakes.ranges[1].size, range + buffer);
  for (const range_call& c : fakes.ranges) EXPECT_EQ(c.kind, range_kind::start);
  EXPECT_EQ(fakes.fdatasyncs, 1);
  EXPECT_EQ(read_file(path), expected_text);
}

// A file that had content: the ranges are where the new bytes are, from
// the file position (O_APPEND), not from the count of bytes written.
TEST_F(writeback, appending_starts_where_the_file_ended) {
  const std::string path = dir_.file("log");
  const std::string old(3 * mib, 'o');
  fastout_test::write_file(path, old);
  const std::string data = pieces(17);
  file f = fastout::output_file(path, fastout::open_mode::append, fastout::sync = true);
  write_pieces(f, data);
  f.close();
  const std::vector<range_call> expected = {start(3), start(11)};
  EXPECT_EQ(fakes.ranges, expected);
  EXPECT_EQ(read_file(path), old + data);
}

// Less than one range: nothing is started, not even the lseek; the sync at
// close() writes it all.
TEST_F(writeback, small_output_is_left_to_the_sync_at_close) {
  const std::string path = dir_.file("out");
  file f = fastout::output_file(path, fastout::sync = true);
  write_pieces(f, pieces(7));
  f.write(std::string(mib - 1, 'z'));
  f.close();
  EXPECT_TRUE(fakes.ranges.empty());
  EXPECT_EQ(fakes.lseeks, 0);
  EXPECT_EQ(fakes.fdatasyncs, 1);
}

// Every door writes through the same route, so each gets writeback without
// code of its own: the iostream adapter and the C API on a durable writer.
TEST_F(writeback, every_door_starts_writeback) {
  const std::string data = pieces(20);
  {
    file f = fastout::output_file(dir_.file("stream"), fastout::sync = true);
    {
      fastout::streambuf buffer(f);
      std::ostream out(&buffer);
      for (std::size_t at = 0; at < data.size(); at += 1000)
        out.write(data.data() + at,
                  static_cast<std::streamsize>(std::min<std::size_t>(1000, data.size() - at)));
      EXPECT_TRUE(out.flush());
    }
    f.close();
  }
  const std::vector<range_call> two = {start(0), start(8)};
  EXPECT_EQ(fakes.ranges, two);
  EXPECT_EQ(fakes.fdatasyncs, 1);
  EXPECT_EQ(read_file(dir_.file("stream")), data);

  fakes = disk_fakes();
  file f = fastout::output_file(dir_.file("c"), fastout::sync = true);
  fastout_file* handle = fastout::c_handle(f);
  for (std::size_t at = 0; at < data.size(); at += 1000)
    ASSERT_EQ(
        fastout_write(data.data() + at, 1, std::min<std::size_t>(1000, data.size() - at), handle),
        std::min<std::size_t>(1000, data.size() - at));
  f.close();
  EXPECT_EQ(fakes.ranges, two);
  EXPECT_EQ(fakes.fdatasyncs, 1);
  EXPECT_EQ(read_file(dir_.file("c")), data);
}

// ---------------------------------------------------------------- nothing for the others

// Writers that are not durable make exactly the calls they made before:
// their writes, and no lseek or sync_file_range. The replacement without
// sync and page_cache::drop have close steps; a plain writer has none.
TEST_F(writeback, a_writer_that_is_not_durable_makes_no_extra_call) {
  // Three of a durable writer's 8 MiB writeback windows, where it would
  // have started two ranges and waited for one.
  constexpr int piece_count = 24;
  const std::string data = pieces(piece_count);
  file_options replace;
  replace.mode = fastout::open_mode::replace;
  file_options drop;
  drop.cache = fastout::page_cache::drop;
  file_options directory;
  directory.sync_directory = true;
  file_options preallocated;
  preallocated.preallocate = data.size();
  int n = 0;
  for (const file_options& options : {file_options(), replace, drop, directory, preallocated}) {
    SCOPED_TRACE("options " + std::to_string(n));
    fakes = disk_fakes();
    const std::string path = dir_.file("out" + std::to_string(n++));
    file f(path, options);
    write_pieces(f, data);
    f.print("{}\n", 42);
    f.close();
    // The pieces straight from the caller, then the line; one more where
    // RWF_DONTCACHE is refused (tmpfs; anywhere without pwritev2, as under
    // qemu-user) and the piece is written again.
    EXPECT_EQ(static_cast<std::uint64_t>(fakes.writes), f.stats().write_calls);
    if (options.cache == fastout::page_cache::keep || f.drops_page_cache()) {
      EXPECT_EQ(fakes.writes, piece_count + 1);
    } else {
      if (fastout_test::pwritev2_is_missing()) {
        std::printf("%s\n", fastout_test::pwritev2_missing_note);
      }
      EXPECT_EQ(fakes.writes, piece_count + 2);
    }
    EXPECT_TRUE(fakes.ranges.empty());
    EXPECT_EQ(fakes.lseeks, 0);
    EXPECT_EQ(fakes.fdatasyncs, 0);
    EXPECT_EQ(fakes.fsyncs, options.sync_directory ? 1 : 0);
    EXPECT_EQ(read_file(path), data + "42\n");
  }
}

// The same through /proc/self/io: the kernel's own count of write system
// calls (syscw) for a plain writer is its writes, nothing more, with the
// real calls in place (fastout_test::read_syscw).
TEST(writeback_counts, a_plain_writer_makes_only_its_writes) {
  FASTOUT_SKIP_ON_WINDOWS("needs /proc, which Windows has not");
  temp_dir dir;
  const std::string data = pieces(20);
  file f(dir.file("out"));
  std::uint64_t before = 0;
  if (!read_syscw(before)) GTEST_SKIP() << "/proc/self/io is not readable here";
  write_pieces(f, data);
  f.close();
  std::uint64_t after = 0;
  ASSERT_TRUE(read_syscw(after));
  EXPECT_EQ(after - before, 20u);
  EXPECT_EQ(f.stats().write_calls, 20u);
}

// ---------------------------------------------------------------- errors

// EIO from starting a writeback: the write that met it fails with it (it is
// a sync's failure: the bytes reached the file and may not survive a power
// loss), every later call fails, and close() reports it without syncing
// again -- after a failed writeback the kernel may have marked the lost
// pages clean, and a sync could then succeed without them (fsyncgate).
TEST_F(writeback, eio_from_starting_writeback_fails_the_call_and_close_never_syncs) {
  const std::string path = dir_.file("out");
  fakes.range_fails_at = 2;
  fakes.range_error = EIO;
  file f = fastout::output_file(path, fastout::sync = true);
  const std::string data = pieces(24);
  std::size_t at = 0;
  try {
    for (; at < data.size(); at += mib) f.write(data.data() + at, mib);
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_EQ(std::string(e.what()), "cannot sync " + quoted(path) +
                                         " (16777216 of 16777216 bytes reached the file), but "
                                         "may not survive a power loss: Input/output error");
  }
  EXPECT_EQ(at, 15 * mib);  // the 16th MiB completed the second range
  EXPECT_EQ(f.stats().bytes_written, 16 * mib);
  EXPECT_EQ(f.error().value(), EIO);
  EXPECT_THROW(f.write("more"), std::system_error);
  try {
    f.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_EQ(std::string(e.what()),
              "cannot sync " + quoted(path) +
                  " (16777216 of 16777216 bytes reached the file, but may not survive a power "
                  "loss): Input/output error");
  }
  EXPECT_EQ(fakes.fdatasyncs, 0);
  EXPECT_EQ(fakes.ranges.size(), 2u);
  EXPECT_EQ(read_file(path), data.substr(0, 16 * mib));
}

// EIO from waiting for an older range: sync_file_range reports a writeback
// error to one caller only, so it must be final too.
TEST_F(writeback, eio_from_waiting_for_writeback_is_final) {
  const std::string path = dir_.file("out");
  fakes.range_fails_at = 10;  // the wait after the 9th start
  fakes.range_error = EIO;
  file f = fastout::output_file(path, fastout::sync = true);
  const std::string data = pieces(80);
  try {
    write_pieces(f, data);
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_TRUE(fastout_test::contains(e.what(), "cannot sync")) << e.what();
  }
  ASSERT_EQ(fakes.ranges.size(), 10u);
  EXPECT_EQ(fakes.ranges.back(), wait_for(0));
  EXPECT_EQ(f.stats().bytes_written, 72 * mib);
  EXPECT_THROW(f.close(), std::system_error);
  EXPECT_EQ(fakes.fdatasyncs, 0);
  EXPECT_EQ(fakes.ranges.size(), 10u);
}

// The writebacks went well and the final fdatasync fails: close() says so,
// once, and does not try again.
TEST_F(writeback, eio_from_the_final_sync_is_reported_by_close) {
  const std::string path = dir_.file("out");
  fakes.sync_error = EIO;
  file f = fastout::output_file(path, fastout::sync = true);
  const std::string data = pieces(20);
  write_pieces(f, data);
  EXPECT_EQ(fakes.ranges.size(), 2u);
  try {
    f.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
    EXPECT_EQ(std::string(e.what()),
              "cannot sync " + quoted(path) +
                  " (20971520 of 20971520 bytes reached the file, but may not survive a power "
                  "loss): Input/output error");
  }
  EXPECT_EQ(fakes.fdatasyncs, 1);
  EXPECT_FALSE(f.is_open());
  f.close();  // closed: nothing more
  EXPECT_EQ(fakes.fdatasyncs, 1);
  EXPECT_EQ(read_file(path), data);
}

// ENOSPC from a write while two ranges are being written back: the write
// error is the writer's, with exact counts; close() neither syncs nor starts
// another range.
TEST_F(writeback, enospc_while_writeback_is_in_flight_is_the_write_error) {
  const std::string path = dir_.file("out");
  fakes.write_limit = 20 * mib;
  fakes.write_error = ENOSPC;
  file f = fastout::output_file(path, fastout::sync = true);
  const std::string data = pieces(30);
  try {
    write_pieces(f, data);
    ADD_FAILURE() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOSPC);
    EXPECT_EQ(std::string(e.what()), "cannot write to " + quoted(path) +
                                         " (20971520 of 22020096 bytes reached the file): No "
                                         "space left on device");
  }
  EXPECT_EQ(fakes.ranges.size(), 2u);
  try {
    f.close();
    ADD_FAILURE() << "closed";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), ENOSPC);
    EXPECT_TRUE(fastout_test::contains(e.what(), "cannot write to")) << e.what();
  }
  EXPECT_EQ(f.stats().bytes_written, 20 * mib);
  EXPECT_EQ(fakes.fdatasyncs, 0);
  EXPECT_EQ(fakes.ranges.size(), 2u);
  EXPECT_EQ(read_file(path), data.substr(0, 20 * mib));
}

// write_errors::report: nothing is thrown; the failed writeback is the
// sticky error, and the error handler hears of it as a sync's failure.
fastout::error_report last_report;
std::string last_path;
int reports = 0;
void remember(const fastout::error_report& report) noexcept {
  last_report = report;
  last_path = report.path;
  ++reports;
}

TEST_F(writeback, write_errors_report_hands_a_failed_writeback_to_the_handler) {
  const std::string path = dir_.file("out");
  fakes.range_fails_at = 1;
  fakes.range_error = EIO;
  reports = 0;
  const fastout::error_handler previous = fastout::set_error_handler(remember);
  {
    file f = fastout::output_file(path, fastout::sync = true, fastout::write_errors::report);
    write_pieces(f, pieces(12));
    EXPECT_EQ(f.error().value(), EIO);
    EXPECT_EQ(f.stats().bytes_written, 8 * mib);
    EXPECT_EQ(f.stats().bytes_accepted, 12 * mib);
  }
  fastout::set_error_handler(previous);
  ASSERT_EQ(reports, 1);
  EXPECT_EQ(last_path, path);
  EXPECT_EQ(last_report.error.value(), EIO);
  EXPECT_TRUE(last_report.sync_failed);
  EXPECT_FALSE(last_report.close_failed);
  EXPECT_EQ(last_report.bytes_lost, 4 * mib);
  EXPECT_EQ(fakes.fdatasyncs, 0);
  EXPECT_EQ(fakes.ranges.size(), 1u);
}

// ---------------------------------------------------------------- for real

// The real calls on a real file: the content arrives whole.
TEST(writeback_real, a_synced_file_has_every_byte) {
  temp_dir dir;
  const std::string path = dir.file("out");
  const std::string data = pieces(20);
  file f = fastout::output_file(path, fastout::sync = true);
  for (std::size_t at = 0; at < data.size(); at += 4096) f.write(data.data() + at, 4096);
  f.close();
  EXPECT_EQ(read_file(path), data);
}

// A durable writer on a pipe: there is no file position (lseek: ESPIPE)
// and nothing to write back, so it writes as before; every byte reaches
// the reader, and close() reports what it always did: a pipe cannot be
// synced (EINVAL).
TEST(writeback_real, a_pipe_gets_every_byte_and_cannot_be_synced) {
  FASTOUT_SKIP_ON_WINDOWS(
      "FlushFileBuffers on a pipe waits until its reader has read everything: syncing a pipe is no error on Windows");
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  std::string received;
  std::thread reader([&] {
    char chunk[65536];
    ssize_t n;
    while ((n = ::read(ends[0], chunk, sizeof chunk)) > 0)
      received.append(chunk, static_cast<std::size_t>(n));
  });
  const std::string data = pieces(20);
  file_options options;
  options.sync = true;
  {
    file f = file::adopt(ends[1], options, "the pipe");
    write_pieces(f, data);
    try {
      f.close();
      ADD_FAILURE() << "closed";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), EINVAL);
      EXPECT_TRUE(fastout_test::contains(e.what(), "cannot sync")) << e.what();
    }
  }
  reader.join();
  ::close(ends[0]);
  EXPECT_EQ(received.size(), data.size());
  EXPECT_TRUE(received == data);
}

}  // namespace
