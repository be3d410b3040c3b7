// SPDX-License-Identifier: MIT
// The buffer budget (<fastout/budget.h>): how it is set, how writers'
// buffers follow it (start, grow, give back), that a size the program chose
// stays exact and counted, and that bytes come out exact whatever the
// buffer does meanwhile, on several threads at once.
//
// The budget is the process's: each test sets the limit it needs and
// compares what is in use with what it was when the test began, so the
// tests hold in one process as in one process each (ctest).
#include <fastout/budget.h>
#include <fastout/c_api.h>
#include <fastout/file.h>
#include <fastout/print.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

using fastout_test::read_file;
using fastout_test::temp_dir;

constexpr std::size_t kib = 1024;
constexpr std::size_t mib = kib * kib;

// The limit every test leaves behind: the default a process starts with
// (FASTOUT_BUFFER_BUDGET is not set for these tests).
struct restore_budget {
  std::size_t limit = fastout::buffer_budget().limit;
  ~restore_budget() { fastout::set_buffer_budget(limit); }
};

// A record of about 100 bytes, different for each (output, index).
std::string record(std::size_t output, std::size_t index) {
  std::string text = "@read" + std::to_string(output) + ":" + std::to_string(index) + "\n";
  text.append(80 - text.size() % 40, static_cast<char>('A' + (index + output) % 26));
  text += '\n';
  return text;
}

TEST(budget, a_budget_smaller_than_one_buffer_is_refused) {
  restore_budget restore;
  fastout::set_buffer_budget(8 * kib);
  try {
    fastout::set_buffer_budget(4095);
    FAIL() << "a 4095-byte budget was accepted";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EINVAL);
    EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fastout::set_buffer_budget(0), std::system_error);
  EXPECT_EQ(fastout::buffer_budget().limit, 8 * kib);  // unchanged
  errno = 0;
  EXPECT_EQ(fastout_set_buffer_budget(100), -EINVAL);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(fastout::buffer_budget().limit, 8 * kib);
  fastout::set_buffer_budget(fastout::smallest_buffer_budget);  // the smallest is fine
  EXPECT_EQ(fastout::buffer_budget().limit, 4096u);
  EXPECT_EQ(fastout_set_buffer_budget(32 * kib), 0);
  fastout_buffer_budget figures;
  ASSERT_EQ(fastout_get_buffer_budget(&figures), 0);
  EXPECT_EQ(figures.limit, 32 * kib);
  EXPECT_EQ(fastout_get_buffer_budget(nullptr), -EINVAL);
}

// Run by ctest's budget_environment_* entries (test/CMakeLists.txt), each
// with FASTOUT_BUFFER_BUDGET set and FASTOUT_TEST_BUDGET_EXPECT saying what
// it must do: "invalid", or the limit in bytes. The variable is read once
// per process, so each value needs a process of its own.
TEST(budget_environment, is_used_or_refused_at_open) {
  const char* value = std::getenv("FASTOUT_BUFFER_BUDGET");
  const char* expect = std::getenv("FASTOUT_TEST_BUDGET_EXPECT");
  if (value == nullptr || expect == nullptr)
    GTEST_SKIP() << "run by ctest's budget_environment_* entries, which set "
                    "FASTOUT_BUFFER_BUDGET and FASTOUT_TEST_BUDGET_EXPECT";
  temp_dir dir;
  const std::string path = dir.file("out");
  if (std::string(expect) == "invalid") {
    for (int attempt = 0; attempt < 2; ++attempt) {  // every open, not only the first
      try {
        fastout::file f = fastout::output_file(path);
        FAIL() << "FASTOUT_BUFFER_BUDGET=" << value << " was accepted";
      } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), EINVAL);
        const std::string what = e.what();
        EXPECT_NE(what.find("FASTOUT_BUFFER_BUDGET"), std::string::npos) << what;
        EXPECT_NE(what.find(value), std::string::npos) << what;
        EXPECT_NE(what.find(fastout_test::quoted(path)), std::string::npos) << what;
      }
    }
    EXPECT_EQ(fastout_test::file_size_at(path), -1) << "opening created the file";
    errno = 0;
    EXPECT_EQ(fastout_open(path.c_str(), nullptr), nullptr);
    EXPECT_EQ(errno, EINVAL);
    // The program's own choice works, but opening still refuses the variable.
    fastout::set_buffer_budget(mib);
    EXPECT_THROW(fastout::output_file(path), std::system_error);
    // An unbuffered writer holds nothing of the budget: it opens (standard
    // error, say, to tell the user).
    fastout::file unbuffered = fastout::output_file(path, fastout::buffer_size = 0);
    unbuffered.write("unbuffered\n", 11);
    unbuffered.close();
    EXPECT_EQ(read_file(path), "unbuffered\n");
    return;
  }
  EXPECT_EQ(fastout::buffer_budget().limit, std::strtoull(expect, nullptr, 10));
  fastout::file f = fastout::output_file(path);
  f.write("fine\n", 5);
  f.close();
  EXPECT_EQ(read_file(path), "fine\n");
}

TEST(budget, one_writer_gets_a_full_buffer_and_todays_write_calls) {
  restore_budget restore;
  fastout::set_buffer_budget(64 * mib);
  temp_dir dir;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  fastout::file budgeted = fastout::output_file(dir.file("budgeted"));
  fastout::file chosen = fastout::output_file(dir.file("chosen"), fastout::buffer_size = 256 * kib);
  EXPECT_EQ(budgeted.stats().buffer_size, fastout::default_buffer_size);
  EXPECT_EQ(budgeted.buffer_capacity(), fastout::default_buffer_size);
  const fastout::buffer_budget_figures open = fastout::buffer_budget();
  EXPECT_EQ(open.in_use - before.in_use, 2 * 256 * kib);
  EXPECT_EQ(open.holders - before.holders, 2u);
  std::string expected;
  for (std::size_t i = 0; expected.size() < 3 * mib; ++i) {
    const std::string r = record(0, i);
    budgeted.write(r.data(), r.size());
    chosen.write(r.data(), r.size());
    expected += r;
  }
  EXPECT_EQ(budgeted.stats().buffer_size, fastout::default_buffer_size);
  budgeted.close();
  chosen.close();
  EXPECT_EQ(budgeted.stats().write_calls, chosen.stats().write_calls);
  EXPECT_EQ(budgeted.stats().write_calls, (expected.size() + 256 * kib - 1) / (256 * kib));
  EXPECT_EQ(budgeted.stats().buffer_size, 0u);  // closed
  EXPECT_EQ(read_file(dir.file("budgeted")), expected);
  const fastout::buffer_budget_figures after = fastout::buffer_budget();
  EXPECT_EQ(after.in_use, before.in_use);
  EXPECT_EQ(after.holders, before.holders);
}

TEST(budget, many_writers_start_small_busy_ones_grow_thin_ones_give_back) {
  restore_budget restore;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  ASSERT_EQ(before.in_use, 0u) << "an earlier test left memory charged";
  // Room for two full buffers at open (a sixteenth of the budget).
  fastout::set_buffer_budget(8 * mib);
  temp_dir dir;
  constexpr std::size_t outputs = 64;
  std::vector<fastout::file> files;
  std::vector<std::string> expected(outputs);
  for (std::size_t i = 0; i < outputs; ++i)
    files.push_back(fastout::output_file(dir.file(std::to_string(i))));
  EXPECT_EQ(files[0].stats().buffer_size, 256 * kib);
  EXPECT_EQ(files[1].stats().buffer_size, 256 * kib);
  for (std::size_t i = 2; i < outputs; ++i) EXPECT_EQ(files[i].stats().buffer_size, 4 * kib) << i;
  EXPECT_EQ(fastout::buffer_budget().holders - before.holders, outputs);
  auto send = [&](std::size_t output, std::size_t index) {
    const std::string r = record(output, index);
    files[output].write(r.data(), r.size());
    expected[output] += r;
  };
  // Output 10 is busy; the others get a record now and then.
  for (std::size_t i = 0; i < 20000; ++i) {
    send(10, i);
    if (i % 50 == 0) send(i / 50 % outputs, i);
  }
  EXPECT_EQ(files[10].stats().buffer_size, 256 * kib) << "the busy writer did not grow";
  for (std::size_t i = 2; i < outputs; ++i)
    if (i != 10) {
      EXPECT_EQ(files[i].stats().buffer_size, 4 * kib) << i;
    }
  // More busy writers than the budget has room for: growth is refused, and
  // the budget is under pressure.
  fastout::set_buffer_budget(2 * mib);
  for (std::size_t i = 0; i < 40000; ++i) send(20 + i % 8, i);
  std::size_t grown = 0;
  for (std::size_t i = 20; i < 28; ++i) grown += files[i].stats().buffer_size > 4 * kib;
  EXPECT_GE(grown, 1u);
  EXPECT_LE(fastout::buffer_budget().in_use, fastout::buffer_budget().limit);
  // A thin writer that holds a full buffer gives it back at its next drain.
  send(0, 1);
  files[0].flush();
  EXPECT_EQ(files[0].stats().buffer_size, 4 * kib) << "the thin writer kept its buffer";
  send(0, 2);
  for (std::size_t i = 0; i < outputs; ++i) {
    files[i].close();
    EXPECT_EQ(read_file(dir.file(std::to_string(i))), expected[i]) << i;
  }
  const fastout::buffer_budget_figures after = fastout::buffer_budget();
  EXPECT_EQ(after.in_use, before.in_use);
  EXPECT_EQ(after.holders, before.holders);
}

// Writers that are all as busy as each other (records dealt in turn, as
// W17_1k_even writes them) are none of them busy by their share; while a
// quarter of the budget would hold every one at the grown size, their full
// buffers grow anyway, up to that even share, and no further.
TEST(budget, writers_dealt_in_turn_grow_to_an_even_share_of_a_quarter) {
  restore_budget restore;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  ASSERT_EQ(before.in_use, 0u) << "an earlier test left memory charged";
  temp_dir dir;
  constexpr std::size_t outputs = 64;
  for (const auto& [budget, expected_size] :
       {std::pair{std::size_t{16} * mib, 64 * kib},     // a share of 64 KiB: 4 -> 16 -> 64 KiB
        std::pair{std::size_t{8} * mib, 16 * kib},      // 32 KiB: 64 KiB would not fit
        std::pair{std::size_t{768} * kib, 4 * kib}}) {  // 3 KiB: 16 KiB would not fit
    SCOPED_TRACE("budget " + std::to_string(budget));
    // The first few take 256 KiB at open (a sixteenth of the budget);
    // the others start at 4 KiB.
    fastout::set_buffer_budget(budget);
    std::vector<fastout::file> files;
    std::vector<std::string> expected(outputs);
    for (std::size_t i = 0; i < outputs; ++i)
      files.push_back(fastout::output_file(dir.file(std::to_string(i))));
    std::vector<std::size_t> first_sizes;
    for (fastout::file& f : files) first_sizes.push_back(f.stats().buffer_size);
    // A writer's share is counted from its last drain: before any, the
    // first few to fill would be busy by it (the whole process's drains
    // are theirs). Three quarters of a 4 KiB buffer each, then a flush of
    // each, start every count together.
    auto send = [&](std::size_t i) {
      const std::string r = record(i % outputs, i);
      files[i % outputs].write(r.data(), r.size());
      expected[i % outputs] += r;
    };
    constexpr std::size_t rounds_before_the_flush = 30;  // ~3 KiB each
    for (std::size_t i = 0; i < outputs * rounds_before_the_flush; ++i) send(i);
    for (fastout::file& f : files) f.flush();
    for (std::size_t i = outputs * rounds_before_the_flush; i < outputs * 3000; ++i) send(i);
    // Every thin writer grew that far, and most no further (the one whose
    // drain comes first at each size may pass for busy, by its share
    // since its last drain, and the rule for busy ones take it on).
    std::size_t started_small = 0, at_expected_size = 0;
    for (std::size_t i = 0; i < outputs; ++i) {
      if (first_sizes[i] != 4 * kib) continue;
      ++started_small;
      EXPECT_GE(files[i].stats().buffer_size, expected_size) << i;
      at_expected_size += files[i].stats().buffer_size == expected_size;
    }
    EXPECT_GE(at_expected_size * 4, started_small * 3)
        << at_expected_size << " of " << started_small << " have " << expected_size << " bytes";
    EXPECT_LE(fastout::buffer_budget().in_use, fastout::buffer_budget().limit);
    for (std::size_t i = 0; i < outputs; ++i) {
      files[i].close();
      EXPECT_EQ(read_file(dir.file(std::to_string(i))), expected[i]) << i;
    }
  }
  EXPECT_EQ(fastout::buffer_budget().in_use, before.in_use);
}

TEST(budget, a_chosen_size_is_exact_and_counted) {
  restore_budget restore;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  fastout::set_buffer_budget(8 * kib);  // smaller than what is chosen below
  temp_dir dir;
  fastout::file key = fastout::output_file(dir.file("key"), fastout::buffer_size = 256 * kib);
  fastout::file odd(dir.file("odd"), fastout_test::with_buffer(1000));
  fastout::file budgeted = fastout::output_file(dir.file("budgeted"));
  fastout_options c_options;
  fastout_options_init(&c_options);
  c_options.buffer_size = 8192;
  fastout_file* c_chosen = fastout_open(dir.file("c_chosen").c_str(), &c_options);
  ASSERT_NE(c_chosen, nullptr);
  fastout_file* c_default = fastout_open(dir.file("c_default").c_str(), nullptr);
  ASSERT_NE(c_default, nullptr);
  EXPECT_EQ(key.stats().buffer_size, 256 * kib);
  EXPECT_EQ(odd.stats().buffer_size, 1000u);
  EXPECT_EQ(budgeted.stats().buffer_size, 4 * kib);
  std::size_t size = 0;
  ASSERT_EQ(fastout_get_buffer_size(c_chosen, &size), 0);
  EXPECT_EQ(size, 8192u);
  ASSERT_EQ(fastout_get_buffer_size(c_default, &size), 0);
  EXPECT_EQ(size, 4 * kib);
  EXPECT_EQ(fastout_get_buffer_size(nullptr, &size), -EINVAL);
  const fastout::buffer_budget_figures open = fastout::buffer_budget();
  EXPECT_EQ(open.in_use - before.in_use, 256 * kib + 1000 + 4 * kib + 8192 + 4 * kib);
  EXPECT_EQ(open.holders - before.holders, 5u);
  // Busy, the chosen sizes stay as they are.
  const std::string r = record(1, 1);
  for (int i = 0; i < 20000; ++i) {
    key.write(r.data(), r.size());
    odd.write(r.data(), r.size());
    ASSERT_EQ(fastout_write(r.data(), 1, r.size(), c_chosen), r.size());
  }
  EXPECT_EQ(key.stats().buffer_size, 256 * kib);
  EXPECT_EQ(odd.stats().buffer_size, 1000u);
  ASSERT_EQ(fastout_get_buffer_size(c_chosen, &size), 0);
  EXPECT_EQ(size, 8192u);
  EXPECT_EQ(fastout_close(c_chosen), 0);
  EXPECT_EQ(fastout_close(c_default), 0);
  key.close();
  odd.close();
  budgeted.close();
  EXPECT_EQ(fastout::buffer_budget().in_use, before.in_use);
  EXPECT_EQ(fastout::buffer_budget().holders, before.holders);
}

TEST(budget, unbuffered_stays_unbuffered_and_holds_nothing) {
  restore_budget restore;
  temp_dir dir;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  fastout::file f = fastout::output_file(dir.file("out"), fastout::buffer_size = 0);
  EXPECT_EQ(f.stats().buffer_size, 0u);
  EXPECT_EQ(fastout::buffer_budget().in_use, before.in_use);
  EXPECT_EQ(fastout::buffer_budget().holders, before.holders);
  for (int i = 0; i < 10; ++i) f.write("abc\n", 4);
  EXPECT_EQ(f.stats().write_calls, 10u);
  f.close();
  std::string expected;
  for (int i = 0; i < 10; ++i) expected += "abc\n";
  EXPECT_EQ(read_file(dir.file("out")), expected);
}

TEST(budget, a_budget_lowered_below_what_is_in_use_takes_memory_back) {
  restore_budget restore;
  fastout::set_buffer_budget(64 * mib);
  temp_dir dir;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  fastout::file f = fastout::output_file(dir.file("out"));
  ASSERT_EQ(f.stats().buffer_size, 256 * kib);
  f.write("before\n", 7);
  fastout::set_buffer_budget(8 * kib);
  f.flush();  // its drain: not busy, and the budget is exceeded
  EXPECT_EQ(f.stats().buffer_size, 4 * kib);
  EXPECT_EQ(fastout::buffer_budget().in_use - before.in_use, 4 * kib);
  // Raised again, a busy writer grows back.
  fastout::set_buffer_budget(64 * mib);
  std::string expected = "before\n";
  for (std::size_t i = 0; i < 20000; ++i) {
    const std::string r = record(2, i);
    f.write(r.data(), r.size());
    expected += r;
  }
  EXPECT_EQ(f.stats().buffer_size, 256 * kib);
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), expected);
  EXPECT_EQ(fastout::buffer_budget().in_use, before.in_use);
}

// Text written in place (print's pieces, a line-buffered writer's partial
// lines, a piece larger than the buffer) across drains where the buffer
// grows and shrinks comes out byte for byte.
TEST(budget, pieces_and_partial_lines_are_exact_across_resizes) {
  restore_budget restore;
  temp_dir dir;
  for (fastout::buffering mode : {fastout::buffering::full, fastout::buffering::line}) {
    fastout::set_buffer_budget(8 * kib);  // the writer starts at 4 KiB
    const std::string path = dir.file(mode == fastout::buffering::line ? "line" : "full");
    fastout::file_options options;
    options.buffer_mode = mode;
    fastout::file f(path, options);
    ASSERT_EQ(f.stats().buffer_size, 4 * kib);
    fastout::set_buffer_budget(64 * mib);  // room to grow
    std::string expected;
    const std::string long_text(100 * kib, 'L');
    for (std::size_t i = 0; i < 4000; ++i) {
      // Pieces of 1 to 400 bytes, some ending a line, some not.
      const std::string text = record(3, i).substr(0, 1 + i * 7 % 97) + (i % 3 == 0 ? "\n" : "");
      f.print("{}{}", text, i % 5 == 0 ? std::string(i % 300, 'x') : std::string());
      expected += text + (i % 5 == 0 ? std::string(i % 300, 'x') : std::string());
      if (i % 1000 == 999) {
        f.print("[{}]", long_text);  // streams through
        expected += "[" + long_text + "]";
      }
      if (i == 2000) {
        fastout::set_buffer_budget(8 * kib);  // pressure: a flush gives back
        f.flush();
        EXPECT_EQ(f.stats().buffer_size, 4 * kib);
        fastout::set_buffer_budget(64 * mib);
      }
    }
    if (mode == fastout::buffering::full) {
      EXPECT_GT(f.stats().buffer_size, 4 * kib);
    }
    f.close();
    EXPECT_EQ(read_file(path), expected) << path;
  }
}

// Writers on different threads at once, each growing and giving back,
// under a budget they press on: every byte in place, the budget's counts
// back where they were. ThreadSanitizer (CI's stage 3) checks the rest.
TEST(budget, writers_on_several_threads_at_once) {
  restore_budget restore;
  const fastout::buffer_budget_figures before = fastout::buffer_budget();
  fastout::set_buffer_budget(before.in_use + 512 * kib);
  temp_dir dir;
  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 16;
  std::vector<std::vector<std::string>> expected(threads, std::vector<std::string>(per_thread));
  std::vector<std::thread> running;
  std::vector<std::string> failures(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      try {
        std::vector<fastout::file> files;
        for (std::size_t i = 0; i < per_thread; ++i)
          files.push_back(
              fastout::output_file(dir.file(std::to_string(t) + "_" + std::to_string(i))));
        for (std::size_t n = 0; n < 30000; ++n) {
          // Two busy outputs per thread, the rest thin; a flush now and then.
          const std::size_t i = n % 3 != 0 ? n % 2 : n / 3 % per_thread;
          const std::string r = record(t * 100 + i, n);
          files[i].write(r.data(), r.size());
          expected[t][i] += r;
          if (n % 997 == 0) files[n / 997 % per_thread].flush();
        }
        for (auto& f : files) f.close();
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  }
  for (auto& thread : running) thread.join();
  for (std::size_t t = 0; t < threads; ++t) {
    EXPECT_EQ(failures[t], "");
    for (std::size_t i = 0; i < per_thread; ++i)
      EXPECT_EQ(read_file(dir.file(std::to_string(t) + "_" + std::to_string(i))), expected[t][i]);
  }
  EXPECT_EQ(fastout::buffer_budget().in_use, before.in_use);
  EXPECT_EQ(fastout::buffer_budget().holders, before.holders);
}

}  // namespace
