// SPDX-License-Identifier: MIT
// Tests of the iostream adapter (include/fastout/iostream.h): the text is
// exactly what std::ostream makes (checked against std::ostringstream and
// std::ofstream), the put area is the writer's own buffer, the flush
// policy, std::ofstream's open modes and stream-state rules, and failures
// for real (/dev/full) and through the system-call layer.
#include <fastout/cursor.h>
#include <fastout/iostream.h>
#include <fastout/print.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout::buffering;
using fastout::file;
using fastout::flush_policy;
using fastout_test::contains;
using fastout_test::read_file;
using fastout_test::temp_dir;
using fastout_test::with_buffer;
using fastout_test::write_file;

using fastout_test::system_error_code;

// A mix of what programs write with <<: every kind of value, manipulators
// that outlast one insertion and ones that do not, and long strings.
void write_everything(std::ostream& out, int seed) {
  std::mt19937 random(static_cast<unsigned>(seed));
  const std::string long_text(5000, 'L');
  for (int i = 0; i < 300; ++i) {
    switch (random() % 16) {
      case 0: out << static_cast<int>(random()) << ','; break;
      case 1: out << -static_cast<long long>(random()) * 1000003LL << '\n'; break;
      case 2: out << static_cast<double>(random()) / 7 << ' '; break;
      case 3: out << std::setw(12) << std::setfill('*') << std::left << i << '|'; break;
      case 4: out << std::hex << std::showbase << random() << std::dec << std::noshowbase; break;
      case 5: out << std::fixed << std::setprecision(3) << 3.14159 * i << std::defaultfloat; break;
      case 6: out << std::scientific << 1e-300 * i << std::defaultfloat; break;
      case 7: out << std::boolalpha << (i % 2 == 0) << std::noboolalpha << (i % 3 == 0); break;
      case 8: out << 'c' << static_cast<char>('a' + i % 26); break;
      case 9: out << "a C string, " << std::string("a std::string") << '\n'; break;
      case 10: out << long_text.substr(0, random() % long_text.size()); break;
      case 11: out.put('p').write("written", 7); break;
      case 12: out << std::setw(20) << std::right << "right" << std::setw(0); break;
      case 13: out << std::showpos << i << std::noshowpos << std::endl; break;
      case 14:
        out << std::flush << std::uppercase << std::hex << 255 << std::nouppercase << std::dec;
        break;
      case 15:
        out << std::numeric_limits<double>::max() << std::numeric_limits<long long>::min();
        break;
    }
  }
  out << std::setfill(' ');
}

std::string expected_text(int seed) {
  std::ostringstream expected;
  write_everything(expected, seed);
  return expected.str();
}

// ---------------------------------------------------------------- the text

TEST(streambuf, the_text_is_std_ostreams_for_every_buffer_size_and_mode) {
  temp_dir dir;
  for (buffering mode : {buffering::full, buffering::line}) {
    for (std::size_t size : fastout_test::size_list{0, 1, 2, 7, 64, 4096, 1 << 20}) {
      for (flush_policy policy : {flush_policy::standard, flush_policy::on_close}) {
        SCOPED_TRACE("buffer " + std::to_string(size) + (mode == buffering::line ? " line" : "") +
                     (policy == flush_policy::on_close ? " on_close" : ""));
        const std::string path = dir.file("text");
        const int seed = static_cast<int>(size) + 1;
        {
          file f(path, with_buffer(size, mode));
          fastout::streambuf buffer(f, policy);
          std::ostream out(&buffer);
          write_everything(out, seed);
          EXPECT_TRUE(out.good());
          f.close();
        }
        EXPECT_EQ(read_file(path), expected_text(seed));
      }
    }
  }
}

TEST(streambuf, the_put_area_is_the_writers_buffer) {
  temp_dir dir;
  file f(dir.file("area"), with_buffer(64));
  fastout::streambuf buffer(f);
  std::ostream out(&buffer);
  out << "abc" << 42;
  // Nothing was copied anywhere else: the text is in the writer's buffer,
  // counted as pending, and nothing was written.
  EXPECT_EQ(std::string(fastout::detail::writer_of(f).buffer_begin(), 5), "abc42");
  EXPECT_EQ(f.bytes_pending(), 5u);
  EXPECT_EQ(f.stats().bytes_accepted, 5u);
  EXPECT_EQ(f.stats().write_calls, 0u);
}

TEST(streambuf, stream_and_writer_calls_come_out_in_order) {
  temp_dir dir;
  for (std::size_t size : fastout_test::size_list{0, 1, 5, 64, 4096}) {
    SCOPED_TRACE("buffer " + std::to_string(size));
    const std::string path = dir.file("order");
    std::string expected;
    {
      file f(path, with_buffer(size));
      fastout::streambuf buffer(f, flush_policy::on_close);
      std::ostream out(&buffer);
      for (int i = 0; i < 500; ++i) {
        out << "s" << i << ' ';
        f.write("w");
        f.print("{} ", i);
        out.put('\n');
        if (i % 50 == 0) f.flush();
        if (i % 70 == 0) out << std::string(100, 'B');
        expected += "s" + std::to_string(i) + " w" + std::to_string(i) + " \n" +
                    (i % 70 == 0 ? std::string(100, 'B') : std::string());
      }
      f.close();
    }
    EXPECT_EQ(read_file(path), expected);
  }
}

TEST(streambuf, a_large_insertion_goes_out_in_one_writev_uncopied) {
  temp_dir dir;
  const std::string path = dir.file("large");
  file f(path, with_buffer(4096));
  fastout::streambuf buffer(f);
  std::ostream out(&buffer);
  out << "head,";
  const std::string large(100000, 'x');
  out << large;
  EXPECT_EQ(f.stats().write_calls, 1u);  // "head," and the 100,000 bytes together
  EXPECT_EQ(f.bytes_pending(), 0u);
  f.close();
  EXPECT_EQ(read_file(path), "head," + large);
}

TEST(streambuf, a_line_buffered_writer_sends_every_line) {
  temp_dir dir;
  const std::string path = dir.file("lines");
  file f(path, with_buffer(4096, buffering::line));
  fastout::streambuf buffer(f, flush_policy::on_close);
  std::ostream out(&buffer);
  out << "one\ntw";
  EXPECT_EQ(read_file(path), "one\n");
  out << 'o' << '\n';
  EXPECT_EQ(read_file(path), "one\ntwo\n");
  out << "three";
  EXPECT_EQ(f.bytes_pending(), 5u);
  EXPECT_EQ(f.stats().write_calls, 2u);
}

TEST(streambuf, an_unbuffered_writer_writes_every_insertion) {
  temp_dir dir;
  const std::string path = dir.file("unbuffered");
  file f(path, with_buffer(0));
  fastout::streambuf buffer(f, flush_policy::on_close);
  std::ostream out(&buffer);
  out << "abc" << 12 << 'x';
  EXPECT_EQ(read_file(path), "abc12x");
  EXPECT_EQ(f.stats().write_calls, 3u);
}

// ---------------------------------------------------------------- flush policy

TEST(flush_policy, standard_flushes_at_endl_flush_and_unitbuf) {
  temp_dir dir;
  const std::string path = dir.file("standard");
  file f(path, with_buffer(4096));
  fastout::streambuf buffer(f);
  std::ostream out(&buffer);
  out << "a" << std::endl;
  EXPECT_EQ(read_file(path), "a\n");
  out << "b" << std::flush;
  EXPECT_EQ(read_file(path), "a\nb");
  out << std::unitbuf << "c" << 1;
  EXPECT_EQ(read_file(path), "a\nbc1");
  EXPECT_EQ(f.stats().write_calls, 4u);  // endl, flush, and one per insertion under unitbuf
}

TEST(flush_policy, on_close_defers_every_flush_and_writes_the_same_bytes) {
  temp_dir dir;
  const std::string path = dir.file("on_close");
  file f(path, with_buffer(4096));
  fastout::streambuf buffer(f, flush_policy::on_close);
  std::ostream out(&buffer);
  for (int i = 0; i < 100; ++i) out << "line " << i << std::endl;
  out << "b" << std::flush << std::unitbuf << "c" << 1 << std::nounitbuf;
  EXPECT_EQ(f.stats().write_calls, 0u);
  EXPECT_EQ(read_file(path), "");
  EXPECT_TRUE(out.good());
  f.close();
  std::ostringstream expected;
  for (int i = 0; i < 100; ++i) expected << "line " << i << std::endl;
  expected << "bc1";
  EXPECT_EQ(read_file(path), expected.str());
  EXPECT_EQ(f.stats().write_calls, 1u);
}

TEST(flush_policy, a_tied_stream_flushes_as_the_policy_says) {
  temp_dir dir;
  for (flush_policy policy : {flush_policy::standard, flush_policy::on_close}) {
    const std::string path = dir.file("tied");
    file f(path, with_buffer(4096));
    fastout::streambuf buffer(f, policy);
    std::ostream tied(&buffer);
    std::ostringstream other;
    other.tie(&tied);
    tied << "prompt: ";
    other << "x";  // flushes `tied` first
    EXPECT_EQ(read_file(path), policy == flush_policy::standard ? "prompt: " : "");
  }
}

TEST(flush_policy, on_close_still_reports_a_failed_writer_on_flush) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  file f("/dev/full", with_buffer(4));
  fastout::streambuf buffer(f, flush_policy::on_close);
  std::ostream out(&buffer);
  out << "0123456789";  // more than the buffer: written, and fails
  EXPECT_TRUE(out.bad());
  out.clear();
  out.flush();
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(buffer.error(), system_error_code(ENOSPC));
}

// ---------------------------------------------------------------- ofstream

TEST(ofstream, changing_the_type_is_enough) {
  temp_dir dir;
  const std::string path = dir.file("switch"), reference = dir.file("reference");
  {
    fastout::ofstream out(path);
    std::ofstream expected(reference);
    ASSERT_TRUE(out.is_open());
    write_everything(out, 7);
    write_everything(expected, 7);
    EXPECT_TRUE(out.good());
  }
  std::string reference_text = read_file(reference);
#if defined(_WIN32)
  // std::ofstream opens in text mode on Windows and writes "\r\n" for each
  // "\n"; fastout::ofstream never adds a byte.
  for (std::string::size_type at; (at = reference_text.find("\r\n")) != std::string::npos;)
    reference_text.erase(at, 1);
#endif
  EXPECT_EQ(read_file(path), reference_text);
}

void report(std::ostream& out, int value) { out << "value " << value << std::endl; }

TEST(ofstream, code_that_takes_an_ostream_gets_a_fastout_stream) {
  temp_dir dir;
  const std::string path = dir.file("ostream_ref");
  fastout::ofstream out(path, flush_policy::on_close);
  for (int i = 0; i < 3; ++i) report(out, i);
  EXPECT_EQ(out.rdbuf()->writer().stats().write_calls, 0u);
  out.close();
  EXPECT_TRUE(out.good());
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(read_file(path), "value 0\nvalue 1\nvalue 2\n");
}

TEST(ofstream, parameters_are_taken_in_any_order) {
  temp_dir dir;
  const std::string path = dir.file("params");
  write_file(path, "old\n");
  {
    fastout::ofstream out(path, fastout::buffer_size = 16, std::ios::app,
                          fastout::permissions = 0600, flush_policy::on_close, buffering::full);
    ASSERT_TRUE(out.is_open());
    EXPECT_EQ(out.rdbuf()->writer().buffer_capacity(), 16u);
    EXPECT_EQ(out.rdbuf()->policy(), flush_policy::on_close);
    out << "new" << std::endl;
  }
  EXPECT_EQ(read_file(path), "old\nnew\n");
  fastout::stream_options options;
  options.buffer_size = 0;
  options.flush = flush_policy::on_close;
  fastout::ofstream unbuffered(dir.file("options"), options);
  EXPECT_EQ(unbuffered.rdbuf()->writer().buffer_capacity(), 0u);

  fastout::ofstream created(dir.file("mode"), fastout::permissions = 0640);
  struct stat st;
  ASSERT_EQ(::stat(dir.file("mode").c_str(), &st), 0);
  mode_t mask = static_cast<mode_t>(::umask(0));
  ::umask(mask);
  // On Windows, the read-only attribute or not (kept_bits(), test_util.h).
  EXPECT_EQ(st.st_mode & 0777, fastout_test::kept_bits(0640u & ~mask));
}

TEST(ofstream, pubsetbuf_before_open_sets_the_buffer_size) {
  temp_dir dir;
  // The seed's fix for std::ofstream, unchanged: a 1 MiB buffer.
  static char memory[1 << 20];
  fastout::ofstream big;
  big.rdbuf()->pubsetbuf(memory, sizeof memory);
  big.open(dir.file("big"));
  EXPECT_EQ(big.rdbuf()->writer().buffer_capacity(), sizeof memory);
  big << "text";
  EXPECT_EQ(std::string(fastout::detail::writer_of(big.rdbuf()->writer()).buffer_begin(), 4),
            "text");  // its own memory
  // After open() it does nothing, as with libstdc++.
  big.rdbuf()->pubsetbuf(nullptr, 0);
  EXPECT_EQ(big.rdbuf()->writer().buffer_capacity(), sizeof memory);
  // (nullptr, 0) before open(): unbuffered.
  fastout::ofstream unbuffered;
  unbuffered.rdbuf()->pubsetbuf(nullptr, 0);
  unbuffered.open(dir.file("unbuffered"));
  EXPECT_EQ(unbuffered.rdbuf()->writer().buffer_capacity(), 0u);
  unbuffered << "at once";
  EXPECT_EQ(read_file(dir.file("unbuffered")), "at once");
}

// The open modes of std::ofstream, against libstdc++'s own: the same file
// afterwards, the same success or failure.
TEST(ofstream, open_modes_as_std_ofstream) {
  FASTOUT_SKIP_ON_WINDOWS(
      "compares with std::ofstream, which on Windows opens in text mode and reports tellp() otherwise when appending");
  using std::ios;
  temp_dir dir;
  const ios::openmode modes[] = {
      ios::out,
      ios::out | ios::trunc,
      ios::app,
      ios::out | ios::app,
      ios::in,
      ios::in | ios::out,
      ios::in | ios::trunc,
      ios::in | ios::app,
      ios::ate,
      ios::out | ios::ate,
      ios::in | ios::ate,
      ios::app | ios::ate,
      ios::trunc,
      ios::trunc | ios::app,
      ios::in | ios::trunc | ios::app,
      ios::binary,
      ios::in | ios::out | ios::binary | ios::ate,
  };
  int index = 0;
  for (ios::openmode mode : modes) {
    for (bool exists : {true, false}) {
      SCOPED_TRACE("mode #" + std::to_string(index) + (exists ? ", existing file" : ", no file"));
      const std::string name = std::to_string(index) + (exists ? "-existing" : "-new");
      const std::string ours = dir.file("ours" + name);
      const std::string theirs = dir.file("theirs" + name);
      if (exists) {
        write_file(ours, "0123456789");
        write_file(theirs, "0123456789");
      }
      fastout::ofstream a(ours, mode);
      std::ofstream b(theirs, mode);
      EXPECT_EQ(a.is_open(), b.is_open());
      EXPECT_EQ(a.fail(), b.fail());
      if (a.is_open()) {
        EXPECT_FALSE(a.error()) << a.error_message();
        EXPECT_EQ(static_cast<long long>(a.tellp()), static_cast<long long>(b.tellp()));
        a << "ab";
        b << "ab";
        EXPECT_EQ(static_cast<long long>(a.tellp()), static_cast<long long>(b.tellp()));
      } else {
        EXPECT_TRUE(a.error());
        EXPECT_TRUE(contains(a.error_message(), ours)) << a.error_message();
      }
      a.close();
      b.close();
      EXPECT_EQ(a.fail(), b.fail());
      EXPECT_EQ(fastout_test::file_size_at(ours) >= 0, fastout_test::file_size_at(theirs) >= 0);
      if (fastout_test::file_size_at(theirs) >= 0) {
        EXPECT_EQ(read_file(ours), read_file(theirs));
      }
    }
    ++index;
  }
}

TEST(ofstream, an_unwritable_mode_names_itself) {
  temp_dir dir;
  const std::string path = dir.file("bad_mode");
  fastout::ofstream out(path, std::ios::trunc | std::ios::app);
  EXPECT_TRUE(out.fail());
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(out.error(), system_error_code(EINVAL));
  EXPECT_TRUE(contains(out.error_message(), path)) << out.error_message();
  EXPECT_TRUE(contains(out.error_message(), "out|trunc|app")) << out.error_message();
  EXPECT_EQ(fastout_test::file_size_at(path), -1);  // nothing created
}

TEST(ofstream, open_failures_name_the_path_and_the_cause) {
  temp_dir dir;
  struct bad_path {
    std::string path;
    int error_number;
  };
  const bad_path cases[] = {
      {dir.file("missing/file"), ENOENT},
      {dir.path(), EISDIR},
  };
  for (const auto& c : cases) {
    fastout::ofstream out(c.path);
    EXPECT_TRUE(out.fail());
    EXPECT_FALSE(out.is_open());
    EXPECT_EQ(out.error(), system_error_code(c.error_number));
    EXPECT_TRUE(contains(out.error_message(), c.path)) << out.error_message();

    fastout::ofstream throwing;
    throwing.exceptions(std::ios::failbit | std::ios::badbit);
    try {
      throwing.open(c.path);
      ADD_FAILURE() << "no exception";
    } catch (const std::ios_base::failure& e) {
      EXPECT_EQ(e.code(), system_error_code(c.error_number));
      EXPECT_TRUE(contains(e.what(), c.path)) << e.what();
      EXPECT_TRUE(contains(e.what(), std::strerror(c.error_number))) << e.what();
    }
    EXPECT_TRUE(throwing.fail());
  }
}

// A null path (std::getenv() of an unset variable) fails the open with
// EINVAL and failbit, as a path that cannot be opened does; not a crash.
TEST(ofstream, null_path_sets_failbit_with_einval) {
  const char* unset = std::getenv("FASTOUT_TEST_VARIABLE_THAT_IS_NEVER_SET");
  ASSERT_EQ(unset, nullptr);
  fastout::ofstream out(unset);
  EXPECT_TRUE(out.fail());
  EXPECT_FALSE(out.is_open());
  EXPECT_EQ(out.error(), system_error_code(EINVAL));
  EXPECT_TRUE(contains(out.error_message(), "the path is a null pointer")) << out.error_message();

  fastout::ofstream later;
  later.open(nullptr);
  EXPECT_TRUE(later.fail());
  EXPECT_FALSE(later.is_open());
  EXPECT_EQ(later.error(), system_error_code(EINVAL));

  fastout::ofstream throwing;
  throwing.exceptions(std::ios::failbit);
  try {
    throwing.open(unset, std::ios::app);
    ADD_FAILURE() << "no exception";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), system_error_code(EINVAL));
    EXPECT_TRUE(contains(e.what(), "null pointer")) << e.what();
  }

  // An open stream asked to open a null path stays open on its file.
  temp_dir dir;
  fastout::ofstream open_one(dir.file("first"));
  open_one.open(unset);
  EXPECT_TRUE(open_one.fail());
  EXPECT_TRUE(open_one.is_open());

  fastout::filebuf buffer;
  EXPECT_EQ(buffer.open(unset, std::ios::out), nullptr);
  EXPECT_EQ(buffer.error(), system_error_code(EINVAL));
}

TEST(ofstream, stream_state_rules_as_std_ofstream) {
  temp_dir dir;
  // Opening an open stream fails and leaves it open on the first file.
  fastout::ofstream out(dir.file("first"));
  out.open(dir.file("second"));
  EXPECT_TRUE(out.fail());
  EXPECT_TRUE(out.is_open());
  EXPECT_EQ(out.rdbuf()->writer().path(), dir.file("first"));
  EXPECT_EQ(fastout_test::file_size_at(dir.file("second")), -1);
  // A successful open clears the state.
  out.close();
  out.open(dir.file("second"));
  EXPECT_TRUE(out.good());
  // Closing twice sets failbit, as std::ofstream.
  out.close();
  EXPECT_TRUE(out.good());
  out.close();
  EXPECT_TRUE(out.fail());
  // Writing to a closed stream sets badbit.
  out.clear();
  out << "lost";
  EXPECT_TRUE(out.bad());
  std::ofstream reference;
  reference.close();
  EXPECT_TRUE(reference.fail());
  reference.clear();
  reference << "lost";
  EXPECT_TRUE(reference.bad());
  // A default-constructed one is closed and good.
  fastout::ofstream closed;
  EXPECT_TRUE(closed.good());
  EXPECT_FALSE(closed.is_open());
}

TEST(ofstream, seek_and_tell_as_std_ofstream) {
  temp_dir dir;
  const std::string ours = dir.file("seek_ours"), theirs = dir.file("seek_theirs");
  auto work = [](std::ostream& out, std::vector<long long>& tells) {
    tells.push_back(static_cast<long long>(out.tellp()));
    out << "0123456789";
    tells.push_back(static_cast<long long>(out.tellp()));
    out.seekp(3);
    out << "abc";
    tells.push_back(static_cast<long long>(out.tellp()));
    out.seekp(-2, std::ios::end);
    out << "XYZ";
    out.seekp(0, std::ios::beg);
    out << "_";
    tells.push_back(static_cast<long long>(out.tellp()));
  };
  std::vector<long long> ours_tells, theirs_tells;
  {
    fastout::ofstream a(ours);
    std::ofstream b(theirs);
    work(a, ours_tells);
    work(b, theirs_tells);
    EXPECT_TRUE(a.good());
  }
  EXPECT_EQ(read_file(ours), read_file(theirs));
  EXPECT_EQ(read_file(ours), "_12abc67XYZ");
  EXPECT_EQ(ours_tells, theirs_tells);
  // On a pipe there is no position, as with std::ofstream.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    file writer = file::borrow(fds[1]);
    fastout::streambuf buffer(writer);
    std::ostream out(&buffer);
    EXPECT_EQ(static_cast<long long>(out.tellp()), -1);
    out.seekp(0);
    EXPECT_TRUE(out.fail());
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST(ofstream, move_and_swap_keep_the_stream) {
  temp_dir dir;
  const std::string a_path = dir.file("a"), b_path = dir.file("b");
  {
    fastout::ofstream a(a_path, flush_policy::on_close);
    a << "a1 ";
    fastout::ofstream moved(std::move(a));
    moved << "a2 ";
    EXPECT_FALSE(a.is_open());  // NOLINT(bugprone-use-after-move): the state after a move
    fastout::ofstream b(b_path);
    b << "b1 ";
    swap(moved, b);
    moved << "b2";
    b << "a3";
    fastout::ofstream assigned;
    assigned = std::move(b);
    assigned << " a4";
    EXPECT_EQ(assigned.rdbuf()->policy(), flush_policy::on_close);
  }
  EXPECT_EQ(read_file(a_path), "a1 a2 a3 a4");
  EXPECT_EQ(read_file(b_path), "b1 b2");
}

// ---------------------------------------------------------------- errors

TEST(stream_errors, dev_full_sets_badbit_and_keeps_the_cause) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  fastout::ofstream out("/dev/full", fastout::buffer_size = 16);
  ASSERT_TRUE(out.is_open());
  out << std::string(100, 'x');
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.error(), system_error_code(ENOSPC));
  EXPECT_TRUE(contains(out.error_message(), "\"/dev/full\"")) << out.error_message();
  EXPECT_TRUE(contains(out.error_message(), "No space left on device")) << out.error_message();
  // Later insertions do nothing (the sentry sees badbit); clearing and
  // trying again meets the writer's sticky error.
  const std::uint64_t calls = out.rdbuf()->writer().stats().write_calls;
  out << "more" << 1 << std::endl;
  out.clear();
  out << "again" << std::endl;
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.rdbuf()->writer().stats().write_calls, calls);
  out.close();
  EXPECT_TRUE(out.fail());
}

TEST(stream_errors, endls_flush_failing_sets_badbit) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  fastout::ofstream out("/dev/full");
  out << "x" << std::endl;
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.error(), system_error_code(ENOSPC));
}

TEST(stream_errors, exceptions_are_std_ios_base_failure) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  fastout::ofstream out("/dev/full", fastout::buffer_size = 16);
  out.exceptions(std::ios::badbit);
  EXPECT_THROW(out << std::string(100, 'x'), std::ios_base::failure);
  EXPECT_TRUE(out.bad());
  out.clear();
  out.exceptions(std::ios::failbit);
  try {
    out.close();
    ADD_FAILURE() << "close() did not throw";
  } catch (const std::ios_base::failure& e) {
    EXPECT_EQ(e.code(), system_error_code(ENOSPC));
    EXPECT_TRUE(contains(e.what(), "/dev/full")) << e.what();
  }
}

// The error handler sees what a destroyed stream could not write.
std::vector<std::string> reports;
void record_report(const fastout::error_report& r) noexcept {
  reports.push_back(std::string(r.path) + ": " + r.error.message() + ", lost " +
                    std::to_string(r.bytes_lost));
}

// Whether `report` is what record_report() makes of ENOSPC on /dev/full
// with `lost` bytes lost. On Windows the message adds the Win32 error
// behind it, in the system's words (docs/platforms.md): "(Windows error
// 112: ...)", whose text is Windows' or Wine's own.
::testing::AssertionResult is_dev_full_report(const std::string& report, std::uint64_t lost) {
  const std::string end = ", lost " + std::to_string(lost);
#if defined(_WIN32)
  const std::string start = "/dev/full: No space left on device (Windows error 112: ";
  const bool matches =
      report.compare(0, start.size(), start) == 0 &&
      report.size() >= start.size() + end.size() + 1 &&
      report.compare(report.size() - end.size() - 1, end.size() + 1, ")" + end) == 0;
#else
  const bool matches = report == "/dev/full: No space left on device" + end;
#endif
  if (matches) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "unexpected report: " << report;
}

TEST(stream_errors, the_destructor_reports_through_the_error_handler) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  reports.clear();
  fastout::error_handler previous = fastout::set_error_handler(record_report);
  {
    fastout::ofstream out("/dev/full", flush_policy::on_close);
    out << "hello" << std::endl;  // buffered: the error comes at destruction
    EXPECT_TRUE(out.good());
  }
  {
    // close() is the checked way out: failbit, and no report.
    fastout::ofstream out("/dev/full", flush_policy::on_close);
    out << "hello" << std::endl;
    out.close();
    EXPECT_TRUE(out.fail());
  }
  fastout::set_error_handler(previous);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(is_dev_full_report(reports[0], 6));
}

// A writer that reports its write errors instead of throwing them (as the
// standard streams do) still fails the stream: badbit, and the cause.
TEST(streambuf, writer_that_reports_its_errors_sets_badbit) {
  FASTOUT_SKIP_UNLESS_DEV_FULL();
  file writer =
      fastout::output_file("/dev/full", fastout::buffer_size = 16, fastout::write_errors::report);
  {
    fastout::streambuf buffer(writer);
    std::ostream out(&buffer);
    out << std::string(100, 'x');
    EXPECT_TRUE(out.bad());
    EXPECT_EQ(buffer.error(), system_error_code(ENOSPC));
    EXPECT_TRUE(contains(buffer.error_message(), "No space left on device"))
        << buffer.error_message();
    out.clear();
    out << 'y';
    EXPECT_TRUE(out.bad());  // a failed writer lends nothing: every call learns of it
    out.clear();
    out << std::flush;
    EXPECT_TRUE(out.bad());
  }
  EXPECT_EQ(writer.stats().bytes_accepted, 101u);
  EXPECT_EQ(writer.stats().bytes_written, 0u);
  fastout::error_handler previous = fastout::set_error_handler(record_report);
  reports.clear();
  writer.close();
  fastout::set_error_handler(previous);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_TRUE(is_dev_full_report(reports[0], 101));
}

// Fails every write with EIO once `budget` bytes got through.
std::uint64_t budget = 0;
ssize_t failing_writev(int fd, const iovec* iov, int count) {
  if (budget == 0) {
    errno = EIO;
    return -1;
  }
  // Short writes on the way: at most 7 bytes of the first non-empty piece,
  // and never past the budget.
  while (iov->iov_len == 0 && count > 1) {
    ++iov;
    --count;
  }
  iovec one = *iov;
  one.iov_len = std::min<std::size_t>({one.iov_len, 7, budget});
  ssize_t n = fastout::detail::real_platform.writev(fd, &one, 1);
  if (n > 0) budget -= static_cast<std::uint64_t>(n);
  return n;
}
ssize_t failing_write(int fd, const void* data, size_t size) {
  iovec one = {const_cast<void*>(data), size};
  return failing_writev(fd, &one, 1);
}

TEST(stream_errors, eio_through_the_system_call_layer_keeps_exact_counts) {
  temp_dir dir;
  const std::string path = dir.file("eio");
  fastout_test::scoped_platform restore;
  fastout::detail::platform.write = failing_write;
  fastout::detail::platform.writev = failing_writev;
  budget = 1000;
  fastout::ofstream out(path, fastout::buffer_size = 64);
  for (int i = 0; i < 1000 && out; ++i) out << "line " << i << '\n';
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(out.error(), system_error_code(EIO));
  const fastout::file_stats stats = out.rdbuf()->writer().stats();
  EXPECT_EQ(stats.bytes_written, 1000u);
  EXPECT_EQ(fastout_test::file_size_at(path), 1000);
  EXPECT_TRUE(contains(out.error_message(), "1000 of")) << out.error_message();
  // What reached the file is exactly the start of the text.
  std::ostringstream expected;
  for (int i = 0; i < 1000; ++i) expected << "line " << i << '\n';
  EXPECT_EQ(read_file(path), expected.str().substr(0, 1000));
  out.close();
  EXPECT_TRUE(out.fail());
}

TEST(stream_errors, a_cursor_on_the_writer_refuses_the_stream) {
  temp_dir dir;
  file f(dir.file("cursor"), with_buffer(64));
  fastout::streambuf buffer(f);
  std::ostream out(&buffer);
  {
    fastout::cursor c = f.make_cursor();
    c.put('c');
    out << "refused";
    EXPECT_TRUE(out.bad());
    EXPECT_EQ(buffer.error(), system_error_code(EBUSY));
  }
  f.close();
  EXPECT_EQ(read_file(dir.file("cursor")), "c");
}

TEST(stream_errors, closing_the_writer_takes_the_streams_text_first) {
  temp_dir dir;
  const std::string path = dir.file("close_under");
  file f(path, with_buffer(64));
  fastout::streambuf buffer(f, flush_policy::on_close);
  std::ostream out(&buffer);
  out << "kept";
  f.close();
  EXPECT_EQ(read_file(path), "kept");
  out << "after";
  EXPECT_TRUE(out.bad());
  EXPECT_EQ(buffer.error(), system_error_code(EBADF));
}

// ---------------------------------------------------------------- random mix

// Stream and writer calls in a random mix, over buffer sizes and modes,
// against the same calls into a std::ostringstream and a string.
TEST(streambuf, a_random_mix_of_stream_and_writer_calls_is_in_order) {
  temp_dir dir;
  std::mt19937 random(2024);
  for (int round = 0; round < 60; ++round) {
    const std::size_t size = std::vector<std::size_t>{0, 1, 3, 16, 100, 4096}[random() % 6];
    const buffering mode = random() % 3 == 0 ? buffering::line : buffering::full;
    const flush_policy policy = random() % 2 == 0 ? flush_policy::standard : flush_policy::on_close;
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string path = dir.file("mix");
    std::string expected;
    {
      file f(path, with_buffer(size, mode));
      fastout::streambuf buffer(f, policy);
      std::ostream out(&buffer);
      for (int i = 0; i < 400; ++i) {
        std::ostringstream model;
        switch (random() % 9) {
          case 0:
            out << i;
            model << i;
            break;
          case 1:
            out << "text\n";
            model << "text\n";
            break;
          case 2:
            out << 1.0 / (i + 1);
            model << 1.0 / (i + 1);
            break;
          case 3:
            out << std::endl;
            model << std::endl;
            break;
          case 4:
            out.put('c');
            model.put('c');
            break;
          case 5:
            f.write("W");
            model << "W";
            break;
          case 6:
            f.put('\n');
            model << '\n';
            break;
          case 7: f.flush(); break;
          case 8: {
            std::string big(random() % 300, static_cast<char>('a' + i % 26));
            out << big;
            model << big;
            break;
          }
        }
        expected += model.str();
      }
      EXPECT_TRUE(out.good());
      EXPECT_EQ(f.stats().bytes_accepted, expected.size());
      f.close();
    }
    EXPECT_EQ(read_file(path), expected);
  }
}

}  // namespace
