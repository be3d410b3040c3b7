// SPDX-License-Identifier: MIT
// A writer that compresses (the compression stage,
// src/stages/compression_stage.cpp: file_options::compression,
// output_file()'s fastout::compression and fastout::compression_workers),
// through every door: output_file(), the C API's handle on the same
// writer, ofstream, replace mode, and standard output
// (compressed_stdout_helper, run as a process of its own). Round trips
// through libzstd's and libdeflate's decoders for buffer sizes from 1 to
// the default and 0 to 4 workers; flush(); stats(); the destructor; threads
// that never outlive close(); fork(); and faults with compression on:
// /dev/full, RLIMIT_FSIZE, a pipe whose reader is gone, EIO and short
// writes through the fake system calls, and allocation failure in the
// compressor.
#include <fastout/c_api.h>
#include <fastout/compression.h>
#include <fastout/fastout.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stages/compression_internal.h"
#include "compression_test_util.h"
#include "platform/platform_internal.h"
#include "test_util.h"

namespace {

using fastout::compression_format;
using fastout_test::contains;
using fastout_test::decode;
using fastout_test::log_text;
using fastout_test::read_file;
using fastout_test::temp_dir;

constexpr compression_format formats[] = {compression_format::zstd, compression_format::gzip};

fastout::compression_options codec(compression_format format, unsigned workers) {
  fastout::compression_options options = format == compression_format::zstd
                                             ? fastout::compression_options(fastout::zstd{})
                                             : fastout::compression_options(fastout::gzip{});
  options.workers = workers;
  return options;
}

fastout::file_options options_for(compression_format format, unsigned workers,
                                  std::size_t buffer_size = fastout::default_buffer_size) {
  fastout::file_options options;
  options.compression = codec(format, workers);
  options.buffer_size = buffer_size;
  return options;
}

std::string name_of(compression_format format, unsigned workers, std::size_t buffer_size = 0) {
  return std::string(fastout::format_name(format)) + " workers " + std::to_string(workers) +
         (buffer_size != 0 ? " buffer " + std::to_string(buffer_size) : "");
}

// The last error the handler saw, and how many it saw.
fastout::error_report last_report{};
std::string last_report_path;
int reports = 0;
void record_report(const fastout::error_report& report) noexcept {
  last_report = report;
  last_report_path = report.path;
  ++reports;
}
struct scoped_handler {
  scoped_handler() : previous(fastout::set_error_handler(record_report)) {
    reports = 0;
    last_report_path.clear();
  }
  ~scoped_handler() { fastout::set_error_handler(previous); }
  fastout::error_handler previous;
};

// ------------------------------------------------------------ round trips

TEST(compression_stage, round_trips_at_every_buffer_size_and_worker_count) {
  temp_dir dir;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u, 4u}) {
      for (std::size_t buffer_size : {std::size_t{1}, std::size_t{7}, std::size_t{4096},
                                      std::size_t{65281}, fastout::default_buffer_size}) {
        std::size_t many =
            buffer_size < 16 ? 5000 : std::min<std::size_t>(buffer_size * 6 + 5, 2000000);
        for (std::size_t size : {std::size_t{0}, std::size_t{1}, buffer_size / 2, many}) {
          SCOPED_TRACE(name_of(format, workers, buffer_size) + " size " + std::to_string(size));
          std::string data = log_text(size, static_cast<unsigned>(size + workers));
          std::string path = dir.file("out");
          fastout::file out(path, options_for(format, workers, buffer_size));
          // Pieces of several sizes through write() and put().
          for (std::size_t i = 0; i < data.size();) {
            std::size_t piece = std::min<std::size_t>(data.size() - i, 1 + i % 300);
            if (piece == 1) {
              out.put(data[i]);
            } else {
              out.write(data.data() + i, piece);
            }
            i += piece;
          }
          out.close();
          std::string compressed = read_file(path);
          bool complete = false;
          EXPECT_TRUE(decode(format, compressed, &complete) == data);
          EXPECT_TRUE(complete);
          fastout::file_stats stats = out.stats();
          EXPECT_EQ(stats.bytes_accepted, size);
          EXPECT_EQ(stats.bytes_delivered, size);
          EXPECT_EQ(stats.bytes_written, compressed.size());
        }
      }
    }
  }
}

TEST(compression_stage, print_and_output_file_keys_in_any_order) {
  temp_dir dir;
  std::string expected;
  for (int i = 0; i < 100000; ++i) expected += fmt::format("{} {:.2f} line\n", i, i / 3.0);
  for (compression_format format : formats) {
    std::string path = dir.file(std::string("keys.") + fastout::format_name(format));
    {
      auto out = format == compression_format::zstd
                     ? fastout::output_file(path, fastout::compression_workers = 2,
                                            fastout::compression = fastout::zstd{5},
                                            fastout::buffer_size = 1 << 16)
                     : fastout::output_file(path, fastout::compression = fastout::gzip{1},
                                            fastout::compression_workers = 2,
                                            fastout::buffer_size = 1 << 16);
      for (int i = 0; i < 100000; ++i) out.print("{} {:.2f} line\n", i, i / 3.0);
      EXPECT_EQ(fastout::detail::writer_of(out).compression().format, format);
      EXPECT_EQ(fastout::detail::writer_of(out).compression().workers, 2u);
      EXPECT_EQ(fastout::detail::writer_of(out).compression().level,
                format == compression_format::zstd ? 5 : 1);
      out.close();
    }
    EXPECT_TRUE(decode(format, read_file(path)) == expected);
  }
}

TEST(compression_stage, extension_chooses_the_format) {
  temp_dir dir;
  for (const char* name : {"a.zst", "a.gz", "a.bgz", "a.txt"}) {
    std::string path = dir.file(name);
    auto out = fastout::output_file(path, fastout::compression = fastout::by_extension{});
    out.write("hello\n");
    compression_format chosen = fastout::format_for_path(name);
    EXPECT_EQ(fastout::detail::writer_of(out).compression().format, chosen) << name;
    out.close();
    std::string content = read_file(path);
    if (chosen == compression_format::none) {
      EXPECT_EQ(content, "hello\n");
    } else {
      EXPECT_EQ(decode(chosen, content), "hello\n") << name;
    }
  }
}

TEST(compression_stage, flush_makes_everything_before_it_decodable) {
  temp_dir dir;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u}) {
      SCOPED_TRACE(name_of(format, workers));
      std::string path = dir.file("flushed");
      fastout::file out(path, options_for(format, workers, 8192));
      std::string so_far;
      for (std::size_t size : {std::size_t{1}, std::size_t{100000}, std::size_t{3}}) {
        std::string piece = log_text(size, static_cast<unsigned>(size));
        out.write(piece);
        so_far += piece;
        out.flush();
        EXPECT_TRUE(decode(format, read_file(path)) == so_far);
        EXPECT_EQ(out.stats().bytes_delivered, so_far.size());
        EXPECT_EQ(out.stats().bytes_written, read_file(path).size());
      }
      out.close();
      bool complete = false;
      EXPECT_TRUE(decode(format, read_file(path), &complete) == so_far);
      EXPECT_TRUE(complete);
    }
  }
}

TEST(compression_stage, destructor_ends_the_stream) {
  temp_dir dir;
  scoped_handler handler;
  for (compression_format format : formats) {
    std::string path = dir.file("destroyed");
    std::string data = log_text(1000000, 5);
    {
      fastout::file out(path, options_for(format, 1, 65536));
      out.write(data);
    }
    bool complete = false;
    EXPECT_TRUE(decode(format, read_file(path), &complete) == data);
    EXPECT_TRUE(complete);
  }
  EXPECT_EQ(reports, 0);
}

TEST(compression_stage, stats_count_accepted_and_written_bytes_apart) {
  temp_dir dir;
  std::string data = log_text(3000000, 8);
  for (compression_format format : formats) {
    std::string path = dir.file("stats");
    fastout::file out(path, options_for(format, 1));
    out.write(data);
    fastout::file_stats before = out.stats();
    EXPECT_EQ(before.bytes_accepted, data.size());
    EXPECT_LE(before.bytes_delivered, data.size());
    out.close();
    fastout::file_stats after = out.stats();
    EXPECT_EQ(after.bytes_accepted, data.size());
    EXPECT_EQ(after.bytes_delivered, data.size());
    EXPECT_EQ(after.bytes_written, read_file(path).size());
    EXPECT_LT(after.bytes_written, data.size() / 3);  // log text compresses
    EXPECT_GE(after.write_calls, 1u);
  }
}

TEST(compression_stage, a_compressing_writer_refuses_what_it_cannot_do) {
  temp_dir dir;
  auto refused = [&](fastout::file_options options, int expected, const char* words) {
    try {
      fastout::file out(dir.file("refused.zst"), options);
      ADD_FAILURE() << "opened";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code().value(), expected) << e.what();
      EXPECT_TRUE(contains(e.what(), words)) << e.what();
      EXPECT_TRUE(contains(e.what(), "refused.zst")) << e.what();
    }
  };
  fastout::file_options bad_level = options_for(compression_format::zstd, 1);
  bad_level.compression.level = 40;
  refused(bad_level, EINVAL, "levels run from");
  fastout::file_options unbuffered = options_for(compression_format::gzip, 1, 0);
  refused(unbuffered, EINVAL, "needs a buffer");
  fastout::file_options append = options_for(compression_format::zstd, 1);
  append.mode = fastout::open_mode::append;
  // Appending a stream is fine for both formats (zstd frames and gzip
  // members concatenate): allowed.
  fastout::file appended(dir.file("appended.zst"), append);
  appended.write("x");
  appended.close();
  EXPECT_EQ(decode(compression_format::zstd, read_file(dir.file("appended.zst"))), "x");
  EXPECT_TRUE(std::string(dir.file("refused.zst")).size() > 0);
  EXPECT_EQ(fastout_test::names_in(dir.path()).size(), 1u);  // nothing created by a refusal
}

TEST(compression_stage, appending_makes_one_valid_file) {
  temp_dir dir;
  for (compression_format format : formats) {
    std::string path = dir.file(std::string("log.") + fastout::format_name(format));
    for (int run = 0; run < 3; ++run) {
      fastout::file_options options = options_for(format, 1, 4096);
      options.mode = fastout::open_mode::append;
      fastout::file out(path, options);
      out.print("run {}\n", run);
      out.close();
    }
    EXPECT_EQ(decode(format, read_file(path)), "run 0\nrun 1\nrun 2\n");
  }
}

// ------------------------------------------------------------ the other doors

TEST(compression_stage, c_api_handle_writes_into_the_same_stream) {
  temp_dir dir;
  std::string path = dir.file("c.zst");
  fastout::file out(path, options_for(compression_format::zstd, 1, 4096));
  fastout_file* handle = fastout::c_handle(out);
  std::string expected;
  for (int i = 0; i < 20000; ++i) {
    fastout_fprintf(handle, "%d c\n", i);
    out.print("{} c++\n", i);
    expected += std::to_string(i) + " c\n" + std::to_string(i) + " c++\n";
  }
  fastout_stats stats;
  ASSERT_EQ(fastout_get_stats(handle, &stats), 0);
  EXPECT_EQ(stats.bytes_accepted, expected.size());
  EXPECT_EQ(fastout_close(handle), 0);
  ASSERT_EQ(fastout_get_stats(handle, &stats), 0);
  EXPECT_EQ(stats.bytes_delivered, expected.size());
  EXPECT_EQ(stats.bytes_written, read_file(path).size());
  EXPECT_TRUE(decode(compression_format::zstd, read_file(path)) == expected);
}

TEST(compression_stage, ofstream_takes_the_compression_keys) {
  temp_dir dir;
  for (compression_format format : formats) {
    std::string path = dir.file("stream");
    std::string expected;
    {
      fastout::ofstream out(path, std::ios::out, fastout::compression = codec(format, 0),
                            fastout::compression_workers = 2);
      ASSERT_TRUE(out.is_open());
      for (int i = 0; i < 50000; ++i) {
        out << i << " stream " << i * 0.5 << '\n';
        expected += std::to_string(i) + " stream " + fmt::format("{}", i * 0.5) + "\n";
      }
      // The position in the text; compressed frames cannot be patched.
      EXPECT_EQ(static_cast<std::size_t>(out.tellp()), expected.size());
      out.seekp(0);
      EXPECT_TRUE(out.fail());
      out.clear();
      out.close();
      EXPECT_FALSE(out.fail());
    }
    EXPECT_TRUE(decode(format, read_file(path)) == expected);
  }
}

// ------------------------------------------------- asking for workers

// What a writer asked for two workers must have: compression() says so,
// writing 1 MiB through 64 KiB buffers starts two threads, and the file
// decodes to what was written.
void expect_two_workers(fastout::file& writer, compression_format format, int level,
                        const std::function<void(const std::string&)>& write,
                        const std::function<void()>& close, const std::string& path) {
  const std::string data = log_text(1 << 20, 7);
  const int before = fastout_test::thread_count_before_workers();
  EXPECT_EQ(fastout::detail::writer_of(writer).compression().workers, 2u);
  EXPECT_EQ(fastout::detail::writer_of(writer).compression().format, format);
  EXPECT_EQ(fastout::detail::writer_of(writer).compression().level, level);
  write(data);
  EXPECT_EQ(fastout_test::thread_count(), before + 2);
  close();
  EXPECT_EQ(fastout_test::thread_count_once_settled(before), before);
  EXPECT_TRUE(decode(format, read_file(path)) == data);
}

fastout::compression_options gzip_with_workers(unsigned workers) {
  fastout::compression_options options = fastout::gzip{1};
  options.workers = workers;
  return options;
}

// Every way of asking for a format and two workers, in either order, gets
// both: a format assigned or given as a parameter keeps the workers set
// before it, and compression_workers = n wins wherever it stands.
TEST(compression_stage, every_way_of_asking_for_workers_gets_them) {
  temp_dir dir;
  struct file_way {
    const char* name;
    fastout::file (*open)(const std::string& path);
    compression_format format;
    int level;
  };
  const file_way file_ways[] = {
      {"file_options: workers, then = zstd{5}",
       [](const std::string& path) {
         fastout::file_options options;
         options.buffer_size = 1 << 16;
         options.compression.workers = 2;
         options.compression = fastout::zstd{5};
         return fastout::file(path, options);
       },
       compression_format::zstd, 5},
      {"file_options: = gzip{1}, then workers",
       [](const std::string& path) {
         fastout::file_options options;
         options.buffer_size = 1 << 16;
         options.compression = fastout::gzip{1};
         options.compression.workers = 2;
         return fastout::file(path, options);
       },
       compression_format::gzip, 1},
      {"file_options: workers, then = by_extension{2, 1}",
       [](const std::string& path) {
         fastout::file_options options;
         options.buffer_size = 1 << 16;
         options.compression.workers = 2;
         options.compression = fastout::by_extension{2, 1};
         return fastout::file(path, options);
       },
       compression_format::zstd, 2},
      {"output_file: compression_workers = 2, compression = zstd{5}",
       [](const std::string& path) {
         return fastout::output_file(path, fastout::compression_workers = 2,
                                     fastout::compression = fastout::zstd{5},
                                     fastout::buffer_size = 1 << 16);
       },
       compression_format::zstd, 5},
      {"output_file: compression = gzip{1}, compression_workers = 2",
       [](const std::string& path) {
         return fastout::output_file(path, fastout::compression = fastout::gzip{1},
                                     fastout::compression_workers = 2,
                                     fastout::buffer_size = 1 << 16);
       },
       compression_format::gzip, 1},
      {"output_file: compression = options with 2 workers",
       [](const std::string& path) {
         return fastout::output_file(path, fastout::compression = gzip_with_workers(2),
                                     fastout::buffer_size = 1 << 16);
       },
       compression_format::gzip, 1},
      {"output_file: compression = options with 3 workers, compression_workers = 2",
       [](const std::string& path) {
         return fastout::output_file(path, fastout::compression = gzip_with_workers(3),
                                     fastout::compression_workers = 2,
                                     fastout::buffer_size = 1 << 16);
       },
       compression_format::gzip, 1},
      {"output_file: compression = options with 2 workers, then compression = zstd{5}",
       [](const std::string& path) {
         return fastout::output_file(path, fastout::compression = gzip_with_workers(2),
                                     fastout::compression = fastout::zstd{5},
                                     fastout::buffer_size = 1 << 16);
       },
       compression_format::zstd, 5},
  };
  for (const file_way& way : file_ways) {
    SCOPED_TRACE(way.name);
    const std::string path = dir.file("way.zst");
    fastout::file out = way.open(path);
    expect_two_workers(
        out, way.format, way.level, [&](const std::string& data) { out.write(data); },
        [&] { out.close(); }, path);
  }

  struct stream_way {
    const char* name;
    void (*open)(fastout::ofstream& out, const std::string& path);
    compression_format format;
    int level;
  };
  const stream_way stream_ways[] = {
      {"stream_options: workers, then = zstd{5}",
       [](fastout::ofstream& out, const std::string& path) {
         fastout::stream_options options;
         options.buffer_size = 1 << 16;
         options.compression.workers = 2;
         options.compression = fastout::zstd{5};
         out.open(path, options);
       },
       compression_format::zstd, 5},
      {"ofstream: stream_options with 2 workers, then compression = zstd{5}",
       [](fastout::ofstream& out, const std::string& path) {
         fastout::stream_options options;
         options.buffer_size = 1 << 16;
         options.compression.workers = 2;
         out.open(path, options, fastout::compression = fastout::zstd{5});
       },
       compression_format::zstd, 5},
      {"ofstream: compression = gzip{1}, compression_workers = 2",
       [](fastout::ofstream& out, const std::string& path) {
         out.open(path, fastout::compression = fastout::gzip{1}, fastout::compression_workers = 2,
                  fastout::buffer_size = 1 << 16);
       },
       compression_format::gzip, 1},
  };
  for (const stream_way& way : stream_ways) {
    SCOPED_TRACE(way.name);
    const std::string path = dir.file("way.zst");
    fastout::ofstream out;
    way.open(out, path);
    ASSERT_TRUE(out.is_open());
    expect_two_workers(
        out.rdbuf()->writer(), way.format, way.level, [&](const std::string& data) { out << data; },
        [&] {
          out.close();
          EXPECT_FALSE(out.fail());
        },
        path);
  }
}

// C++20's designated initializers: the format in the initializer, the
// workers after it.
TEST(compression_stage, designated_initializers_get_the_format_and_the_workers) {
#if __cplusplus >= 202002L
  temp_dir dir;
  const std::string path = dir.file("designated");
  fastout::file_options options{.buffer_size = 1 << 16, .compression = fastout::zstd{5}};
  EXPECT_EQ(options.compression.workers, fastout::default_compression_workers);
  options.compression.workers = 2;
  fastout::file out(path, options);
  expect_two_workers(
      out, compression_format::zstd, 5, [&](const std::string& data) { out.write(data); },
      [&] { out.close(); }, path);
#else
  GTEST_SKIP() << "designated initializers need C++20; scripts/test --std 20 runs this test";
#endif
}

TEST(compression_stage, replace_holds_the_whole_stream_in_the_temporary) {
  temp_dir dir;
  for (compression_format format : formats) {
    std::string path = dir.file("replaced");
    fastout_test::write_file(path, "old");
    std::string data = log_text(2000000, 3);
    {
      fastout::file_options options = options_for(format, 2, 65536);
      options.mode = fastout::open_mode::replace;
      options.sync = true;
      fastout::file out(path, options);
      out.write(data);
      out.flush();
      EXPECT_EQ(read_file(path), "old");  // until close()
      out.close();
    }
    bool complete = false;
    EXPECT_TRUE(decode(format, read_file(path), &complete) == data);
    EXPECT_TRUE(complete);
    EXPECT_TRUE(fastout_test::temporaries_in(dir.path()).empty());
    // Canceled: the target stays, no temporary, no thread.
    {
      fastout::file_options options = options_for(format, 2, 65536);
      options.mode = fastout::open_mode::replace;
      fastout::file out(path, options);
      out.write(data);
      out.cancel();
    }
    EXPECT_TRUE(decode(format, read_file(path)) == data);
    EXPECT_TRUE(fastout_test::temporaries_in(dir.path()).empty());
  }
}

// ------------------------------------------------------------ threads and fork

TEST(compression_stage_threads, none_outlives_close_or_the_destructor) {
  temp_dir dir;
  int before = fastout_test::thread_count_before_workers();
  for (unsigned workers : {1u, 2u, 4u}) {
    std::string data = log_text(1 << 20, workers);
    {
      fastout::file out(dir.file("threads"), options_for(compression_format::gzip, workers, 65536));
      out.write(data);
      EXPECT_EQ(fastout_test::thread_count(), before + static_cast<int>(workers));
      out.close();
      EXPECT_EQ(fastout_test::thread_count_once_settled(before), before);
    }
    {
      fastout::file out(dir.file("threads"), options_for(compression_format::zstd, workers, 65536));
      out.write(data);
      EXPECT_EQ(fastout_test::thread_count(), before + static_cast<int>(workers));
    }
    EXPECT_EQ(fastout_test::thread_count_once_settled(before), before);
  }
  // One buffer of output never starts a thread.
  fastout::file small(dir.file("small"), options_for(compression_format::zstd, 2, 65536));
  small.write(log_text(60000));
  small.flush();
  EXPECT_EQ(fastout_test::thread_count(), before);
  small.close();
}

// A child that exits holding an inherited compressing writer loses only
// what it wrote itself: the buffers already handed to the workers are the
// parent's, which writes them (its file is whole), so the child's report
// counts its own 992 bytes, not those too.
std::uint64_t child_lost = 0;
void record_child_loss(const fastout::error_report& report) noexcept {
  child_lost = report.bytes_lost;
}

TEST(compression_stage_fork, a_child_reports_only_its_own_bytes_lost) {
  FASTOUT_SKIP_ON_WINDOWS(
      "the child must inherit the parent's writer through fork(), which Windows has not");
  temp_dir dir;
  for (compression_format format : formats) {
    SCOPED_TRACE(name_of(format, 2));
    std::string path = dir.file("forked");
    std::string parents = log_text(10 * 4096, 3);
    auto out = std::make_unique<fastout::file>(path, options_for(format, 2, 4096));
    out->write(parents);  // ten buffers handed over, some still with the workers
    int status = fastout_test::run_in_child([&] {
      fastout::set_error_handler(record_child_loss);
      out->write(std::string(992, 'c'));  // fits in the buffer: no hand-over yet
      out.reset();                        // the destructor: the hand-over fails (EPERM), reported
      return child_lost == 992 ? 0 : child_lost < 256 ? static_cast<int>(child_lost) + 1 : 255;
    });
    EXPECT_EQ(status, 0) << fastout_test::describe_status(status)
                         << " (the child counted another loss than its 992 bytes)";
    out->close();
    EXPECT_TRUE(decode(format, read_file(path)) == parents);
  }
}

TEST(compression_stage_fork, child_gets_a_clear_error_and_the_parent_goes_on) {
  FASTOUT_SKIP_ON_WINDOWS(
      "the child must inherit the parent's writer through fork(), which Windows has not");
  temp_dir dir;
  for (compression_format format : formats) {
    std::string path = dir.file("forked");
    std::string first = log_text(300000, 1);
    std::string second = log_text(300000, 2);
    fastout::file out(path, options_for(format, 1, 65536));
    out.write(first);
    int status = fastout_test::run_in_child([&] {
      try {
        out.write(second);  // fills buffers: a hand-over in the child
        out.flush();
        return 1;
      } catch (const std::system_error& e) {
        if (e.code().value() != EPERM) return 2;
        if (!contains(e.what(), "fork")) return 3;
      }
      // The error handler, not a hang, when the child's copy is destroyed.
      return 0;
    });
    EXPECT_EQ(status, 0) << fastout_test::describe_status(status);
    // A child that closes its copy with nothing pending (the parent had
    // flushed) leaves the stream alone, without an error: nothing of its
    // own was lost, and the stream's end is the parent's to write.
    out.flush();
    status = fastout_test::run_in_child([&] {
      try {
        out.close();
      } catch (const std::system_error&) {
        return 1;
      }
      return 0;
    });
    EXPECT_EQ(status, 0) << fastout_test::describe_status(status);
    out.write(second);
    out.close();
    EXPECT_TRUE(decode(format, read_file(path)) == first + second);
  }
}

// ------------------------------------------------------------ faults

TEST(compression_stage_faults, dev_full_reports_enospc_with_exact_counts) {
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u, 2u}) {
      SCOPED_TRACE(name_of(format, workers));
      fastout::file out("/dev/full", options_for(format, workers, 4096));
      std::string data = log_text(200000, 4);
      try {
        out.write(data);
        out.close();
        ADD_FAILURE() << "no error";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), ENOSPC) << e.what();
        EXPECT_TRUE(contains(e.what(), "/dev/full")) << e.what();
      }
      if (out.is_open()) {
        EXPECT_THROW(out.close(), std::system_error);
      }
      fastout::file_stats stats = out.stats();
      EXPECT_EQ(stats.bytes_written, 0u);
      EXPECT_EQ(stats.bytes_delivered, 0u);
      EXPECT_GE(stats.bytes_accepted, 4096u);
    }
  }
}

TEST(compression_stage_faults, report_mode_reports_once_at_close) {
  scoped_handler handler;
  for (compression_format format : formats) {
    fastout::file_options options = options_for(format, 1, 4096);
    options.errors = fastout::write_errors::report;
    fastout::file out("/dev/full", options);
    std::string data = log_text(100000, 6);
    reports = 0;
    out.write(data);  // no throw
    out.write(data);
    out.close();  // reports, as the destructor would
    EXPECT_EQ(reports, 1);
    EXPECT_EQ(last_report.error.value(), ENOSPC);
    EXPECT_EQ(last_report.bytes_lost, 2 * data.size());
    EXPECT_EQ(out.stats().bytes_accepted, 2 * data.size());
    EXPECT_EQ(out.stats().bytes_delivered, 0u);
  }
  // Destroyed without close(): one report per writer.
  for (compression_format format : formats) {
    reports = 0;
    {
      fastout::file_options options = options_for(format, 1, 4096);
      options.errors = fastout::write_errors::report;
      fastout::file out("/dev/full", options);
      out.write(log_text(100000, 6));
    }
    EXPECT_EQ(reports, 1);
    EXPECT_EQ(last_report.error.value(), ENOSPC);
    EXPECT_EQ(last_report.bytes_lost, 100000u);
    EXPECT_EQ(last_report_path, "/dev/full");
  }
}

// After a failure a write_errors::report writer keeps taking text (and
// dropping it): prints whose pieces grow, put() and write(), with workers
// that were compressing when the file failed. (ASan and TSan watch the
// buffer the writer keeps.)
TEST(compression_stage_faults, report_mode_keeps_accepting_every_call_after_a_failure) {
  scoped_handler handler;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 2u}) {
      SCOPED_TRACE(name_of(format, workers));
      reports = 0;
      fastout::file_options options = options_for(format, workers, 4096);
      options.errors = fastout::write_errors::report;
      fastout::file out("/dev/full", options);
      std::uint64_t expected = 0;
      for (int i = 0; i < 20000; ++i) {
        std::string line = fmt::format("{} {:>40} {:.3f}\n", i, "text", i / 7.0);
        out.print("{} {:>40} {:.3f}\n", i, "text", i / 7.0);
        out.put('x');
        out.write(line);
        expected += 2 * line.size() + 1;
      }
      EXPECT_EQ(out.error().value(), ENOSPC);
      out.close();
      EXPECT_EQ(reports, 1);
      EXPECT_EQ(out.stats().bytes_accepted, expected);
      EXPECT_EQ(last_report.bytes_lost, expected);
    }
  }
}

// On Windows, which has no RLIMIT_FSIZE, the platform table's writes stop
// the file at 20000 bytes as Windows does one that outgrows its filesystem
// (ERROR_FILE_TOO_LARGE, EFBIG: windows_file_size_limit, test_util.h).
TEST(compression_stage_faults, file_size_limit_reports_efbig) {
  temp_dir dir;
  for (compression_format format : formats) {
    std::string path = dir.file("limited");
    auto body = [&] {
      fastout::file out(path, options_for(format, 1, 65536));
      try {
        out.write(log_text(3000000, 7));
        out.close();
        return 1;
      } catch (const std::system_error& e) {
        if (e.code().value() != EFBIG) return 2;
      }
      fastout::file_stats stats = out.stats();
      if (stats.bytes_written != 20000) return 3;
      if (stats.bytes_delivered >= stats.bytes_accepted) return 4;
      return 0;
    };
    int status = fastout_test::run_with_file_size_limit(20000, body);
    EXPECT_EQ(status, 0) << fastout_test::describe_status(status);
  }
}

TEST(compression_stage_faults, pipe_without_reader_reports_epipe) {
  for (compression_format format : formats) {
    int status = fastout_test::run_in_child([&] {
      std::signal(SIGPIPE, SIG_IGN);
      int ends[2];
      if (::pipe(ends) != 0) return 10;
      ::close(ends[0]);
      fastout::file out = fastout::file::adopt(ends[1], options_for(format, 1, 4096), "<pipe>");
      try {
        out.write(log_text(200000, 9));
        out.close();
        return 1;
      } catch (const std::system_error& e) {
        if (e.code().value() != EPIPE) return 2;
        if (!contains(e.what(), "<pipe>")) return 3;
      }
      return 0;
    });
    EXPECT_EQ(status, 0) << fastout_test::describe_status(status);
  }
}

// Fakes: writes fail with EIO after `write_budget` bytes, and each writes
// at most `largest_write` bytes (short writes).
std::size_t write_budget = 0;
std::size_t largest_write = 0;
std::size_t written_so_far = 0;
ssize_t fake_write(int fd, const void* data, std::size_t size) {
  if (size > largest_write) size = largest_write;
  if (written_so_far + size > write_budget) size = write_budget - written_so_far;
  if (size == 0) {
    errno = EIO;
    return -1;
  }
  ssize_t result = fastout::detail::real_platform.write(fd, data, size);
  if (result > 0) written_so_far += static_cast<std::size_t>(result);
  return result;
}
ssize_t fake_writev(int fd, const struct iovec* iov, int count) {
  for (int i = 0; i < count; ++i)
    if (iov[i].iov_len > 0) return fake_write(fd, iov[i].iov_base, iov[i].iov_len);
  return 0;
}
ssize_t fake_write_uncached(int fd, const struct iovec* iov, int count) {
  return fake_writev(fd, iov, count);
}

TEST(compression_stage_faults, short_writes_lose_nothing_and_eio_is_exact) {
  temp_dir dir;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 2u}) {
      SCOPED_TRACE(name_of(format, workers));
      std::string data = log_text(1500000, 11);
      fastout_test::scoped_platform restore;
      fastout::detail::platform.write = fake_write;
      fastout::detail::platform.writev = fake_writev;
      fastout::detail::platform.write_uncached = fake_write_uncached;
      written_so_far = 0;
      largest_write = 777;
      write_budget = SIZE_MAX;
      std::string path = dir.file("short");
      {
        fastout::file out(path, options_for(format, workers, 65536));
        out.write(data);
        out.close();
      }
      EXPECT_TRUE(decode(format, read_file(path)) == data);
      // EIO after 50,000 bytes: sticky, exact.
      written_so_far = 0;
      write_budget = 50000;
      fastout::file out(path, options_for(format, workers, 65536));
      try {
        out.write(data);
        out.close();
        ADD_FAILURE() << "no error";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EIO) << e.what();
      }
      EXPECT_THROW(out.write("more"), std::system_error);  // sticky
      EXPECT_EQ(out.stats().bytes_written, 50000u);
      EXPECT_EQ(read_file(path).size(), 50000u);
      EXPECT_LT(out.stats().bytes_delivered, data.size());
      // What was delivered decodes: whole frames, then a cut one.
      if (format == compression_format::zstd) {
        std::string prefix = data.substr(0, static_cast<std::size_t>(out.stats().bytes_delivered));
        EXPECT_EQ(decode(format, read_file(path)).compare(0, prefix.size(), prefix), 0);
      }
    }
  }
}

// The compressor's memory, failing from the n-th allocation on; workers
// allocate too, hence the atomic.
std::atomic<int> allocations_left{-1};
void* failing_allocate(std::size_t size) {
  int left = allocations_left.load();
  while (left > 0 && !allocations_left.compare_exchange_weak(left, left - 1)) {
  }
  if (left == 0) return nullptr;
  return std::malloc(size);
}

TEST(compression_stage_faults, allocation_failure_in_the_compressor_is_reported) {
  temp_dir dir;
  scoped_handler handler;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 1u}) {
      std::string data = log_text(1000000, 12);
      bool failed_after_open = false;
      for (int n = 0; n < 40; ++n) {
        SCOPED_TRACE(name_of(format, workers) + " allocation " + std::to_string(n));
        fastout::detail::compression_system.allocate = failing_allocate;
        allocations_left = n;
        std::string path = dir.file("memory");
        bool opened = false;
        try {
          fastout::file out(path, options_for(format, workers, 65536));
          opened = true;
          out.write(data);
          out.close();
          // Enough allocations: everything made it.
          EXPECT_TRUE(decode(format, read_file(path)) == data);
          fastout::detail::compression_system = fastout::detail::real_compression_hooks;
          break;
        } catch (const std::system_error& e) {
          EXPECT_EQ(e.code().value(), ENOMEM) << e.what();
          EXPECT_TRUE(contains(e.what(), "memory")) << e.what();
          if (opened) failed_after_open = true;
        }
        fastout::detail::compression_system = fastout::detail::real_compression_hooks;
      }
      (void)failed_after_open;
    }
  }
}

// A durable compressing writer (sync) starts the writeback of the
// compressed bytes as they reach the file, as a plain durable writer does
// (writeback_test.cpp): the stream's close step passes reached_file() on to
// the sync steps it wraps. Random bytes barely compress, so 24 MiB of them
// make more than two 8 MiB ranges of compressed output.
std::atomic<int> writeback_starts{0};
std::atomic<int> data_syncs{0};

int counting_start_writeback(int fd, off_t offset, off_t size) {
  ++writeback_starts;
  return fastout::detail::real_platform.start_writeback(fd, offset, size);
}

int counting_fdatasync(int fd) {
  ++data_syncs;
  return fastout::detail::real_platform.fdatasync(fd);
}

TEST(compression_stage, durable_writer_writes_back_the_compressed_bytes_while_writing) {
  FASTOUT_SKIP_UNLESS_LINUX("writeback while writing (sync_file_range)");
  std::string data(24u << 20, '\0');
  std::uint64_t state = 88172645463325252u;  // xorshift: fast, not compressible
  for (char& c : data) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    c = static_cast<char>(state);
  }
  temp_dir dir;
  for (compression_format format : formats) {
    for (unsigned workers : {0u, 2u}) {
      SCOPED_TRACE(name_of(format, workers));
      fastout_test::scoped_platform restore;
      fastout::detail::platform.start_writeback = counting_start_writeback;
      fastout::detail::platform.fdatasync = counting_fdatasync;
      writeback_starts = 0;
      data_syncs = 0;
      const std::string path = dir.file("durable");
      fastout::file_options options = options_for(format, workers);
      options.sync = true;
      fastout::file out(path, options);
      for (std::size_t at = 0; at < data.size(); at += 4096) out.write(data.data() + at, 4096);
      out.close();
      EXPECT_GE(out.stats().bytes_written, data.size());
      EXPECT_GE(writeback_starts.load(), 2);
      EXPECT_EQ(data_syncs.load(), 1);
      EXPECT_TRUE(decode(format, read_file(path)) == data);
    }
  }
}

}  // namespace
