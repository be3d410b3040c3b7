// SPDX-License-Identifier: MIT
// The per-thread runtime format cache (detail/format_cache.h): what it
// plans, what it leaves to fmt::vformat_to, and that its replay is fmt's text.
#include "print_test_util.h"

namespace {

using namespace print_test;  // NOLINT(google-build-using-namespace): the shared harness
using print_test::big_text;
using print_test::label;
using print_test::logged;
using print_test::loud;
using print_test::point;

// ---------------------------------------------------------- the format cache

// The cache is per thread and per list of argument types; each test below
// uses formats with several argument lists on purpose.

TEST(format_cache, same_format_alternating_with_others_of_the_same_types) {
  static const char* const formats[] = {"{} {}\n", "{1} {0}\n", "{:>6}|{:<6}\n", "[{0}]\n",
                                        "{}{}",    "{:x}:{}\n", "{1:.2}{0:+}"};
  std::vector<std::pair<int, std::string>> values;
  random_source r(99);
  for (int i = 0; i < 300; ++i) values.emplace_back(r.integer<int>(), r.text(false));
  std::vector<piece_case> cases;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    // The same format twice in a row, then another: replay, and switch.
    for (const char* format : {formats[i % 7], formats[i % 7], formats[(i * 3 + 1) % 7]}) {
      cases.push_back(
          {format, reference_into([&v, format](fmt::memory_buffer& out) {
             fmt::format_to(fmt::appender(out), fmt::runtime(format), v.first, v.second);
           }),
           [&v, format](file& f) { f.print(fmt::runtime(format), v.first, v.second); }});
    }
  }
  EXPECT_TRUE(run_in_sequence(
      cases, {{0, buffering::full}, {4096, buffering::full}, {7, buffering::line}}));
}

// A runtime format in the same storage, changed in place: the cache must
// compare the text, not the address or the size.
TEST(format_cache, a_runtime_format_reused_at_the_same_address_is_compared) {
  temp_dir dir;
  file f(dir.file("out"));
  std::string expected;
  std::string format;
  format.reserve(100);
  const char* address = format.data();
  // Pairs of the same length.
  static const char* const contents[] = {"{0}-{1}",  "{1}-{0}", "{:>5}|{}", "{:<5}|{}", "{:x}{:d}",
                                         "{:o}{:d}", "{0}{0}",  "{1}{1}",   "{0}{0}",   "a{}b{}"};
  for (int round = 0; round < 3; ++round) {
    for (const char* content : contents) {
      format.assign(content);
      ASSERT_EQ(format.data(), address);
      f.print(fmt::runtime(format), 10 + round, 20);
      expected += fmt::format(fmt::runtime(format), 10 + round, 20);
      f.println(fmt::runtime(format), 11, 21 + round);
      expected += fmt::format(fmt::runtime(format), 11, 21 + round) + '\n';
    }
  }
  // A char array edited in place, one character at a time.
  char text[] = "{0:>4}|{1:>4}";
  for (char align : {'>', '<', '^', '>'}) {
    text[3] = align;
    text[10] = align;
    f.print(fmt::runtime(std::string_view(text)), 1, 2);
    expected += fmt::format(fmt::runtime(std::string_view(text)), 1, 2);
  }
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), expected);
}

// Formats of 64 characters and 8 steps (a field and the text after it) are
// planned, longer ones and ones with more steps are not; both stay right as
// values change, and formats that share a prefix with a cached one are not
// taken for it.
TEST(format_cache, long_formats_and_formats_with_many_segments_are_fmts) {
  std::vector<std::string> formats;
  for (std::size_t size : size_list{63, 64, 65, 66, 200}) {
    std::string padding(size - 7, '.');
    formats.push_back("{}" + padding + "{}|{}");
    formats.push_back("{}" + padding.substr(1) + ",{}|{}");  // differs near the end
    formats.push_back("{2}" + padding.substr(2) + "{1}{0}");
  }
  // 8 and 9 steps, and formats with text between fields (and errors).
  formats.push_back("{0}{1}{2}{0}{1}{2}{0}{1}");
  formats.push_back("{0}{1}{2}{0}{1}{2}{0}{1}{2}");
  formats.push_back("x{0}{1}{2}{0}{1}{2}{0}{1}");
  formats.push_back("x{0}-{1}-{2}-{0}-{1}-{2}-{0}|");
  formats.push_back("{}a{}b{}c{}");
  formats.push_back("{}a{}b{}c{}d");
  formats.push_back("{}a{}b{}c{}d{}");
  formats.push_back("x{}a{}b{}c{}d{}");
  formats.push_back("{}{}{}{0}{1}{2}{0}{1}");
  formats.push_back("{}{}{}{0}{1}{2}{0}{1}{2}");
  formats.push_back("{:x}{:o}{:b}{0:x}{1:o}{2:b}{0}{1}{2}");
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(formats[i].size(), 63u);
    ASSERT_EQ(formats[3 + i].size(), 64u);
    ASSERT_EQ(formats[6 + i].size(), 65u);
  }
  random_source r(5);
  std::vector<std::array<long long, 3>> values;
  for (int i = 0; i < 200; ++i)
    values.push_back({r.integer<long long>(), r.integer<long long>(), r.integer<long long>()});
  std::vector<piece_case> cases;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    for (std::size_t k : {i % formats.size(), i % formats.size(), (i * 7 + 3) % formats.size()}) {
      const std::string& format = formats[k];
      cases.push_back(
          {format, reference_into([&](fmt::memory_buffer& out) {
             fmt::format_to(fmt::appender(out), fmt::runtime(format), v[0], v[1], v[2]);
           }),
           [&v, &format](file& f) { f.print(fmt::runtime(format), v[0], v[1], v[2]); }});
    }
  }
  EXPECT_TRUE(run_in_sequence(
      cases, {{0, buffering::full}, {64, buffering::full}, {4096, buffering::full}}));
}

// A format that throws midway leaves no plan behind: the same string throws
// again with the same types, works with types that suit it, and a string of
// the same length that differs after the error is not replayed as it.
TEST(format_cache, a_format_that_throws_midway_leaves_no_plan) {
  const std::string text = "abc";
  std::vector<piece_case> cases;
  auto add = [&](std::string name, outcome want, std::function<void(file&)> print) {
    cases.push_back({std::move(name), std::move(want), std::move(print)});
  };
  for (int round = 0; round < 3; ++round) {
    add("{} {:d} with a string", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{} {:d}"), 1, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{} {:d}"), 1, text); });
    add("{} {:s} with a string", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{} {:s}"), 1, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{} {:s}"), 1, text); });
    add("{} {:d} with an int", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{} {:d}"), 1, 2);
        }),
        [&](file& f) { f.print(fmt::runtime("{} {:d}"), 1, 2); });
    add("{} {:d} with a string again", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{} {:d}"), 1, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{} {:d}"), 1, text); });
    // Cached, then the same types with a format that fails late, then again.
    add("{}|{} cached", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{}|{}"), 7, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{}|{}"), 7, text); });
    add("{}|{:d} fails", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{}|{:d}"), 7, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{}|{:d}"), 7, text); });
    add("{}|{} again", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{}|{}"), 8, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{}|{}"), 8, text); });
    // A value-dependent error: a negative dynamic width.
    for (int width : {-1, 5, -1, 6}) {
      add("{:{}} width " + std::to_string(width), reference_into([=](fmt::memory_buffer& out) {
            fmt::format_to(fmt::appender(out), fmt::runtime("{:{}}|"), 42, width);
          }),
          [=](file& f) { f.print(fmt::runtime("{:{}}|"), 42, width); });
    }
    // An argument index out of range, after a field that was written.
    add("{0}{1}{2} with two", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{0}{1}{2}"), 1, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{0}{1}{2}"), 1, text); });
    add("{0}{1}{1} with two", reference_into([&](fmt::memory_buffer& out) {
          fmt::format_to(fmt::appender(out), fmt::runtime("{0}{1}{1}"), 1, text);
        }),
        [&](file& f) { f.print(fmt::runtime("{0}{1}{1}"), 1, text); });
  }
  for (const piece_case& c : cases) {
    if (c.name.find("with a string") != std::string::npos &&
        c.name.find("{:d}") != std::string::npos) {
      ASSERT_TRUE(c.want.throws) << c.name;
    }
  }
  EXPECT_TRUE(
      run_in_sequence(cases, {{0, buffering::full}, {1, buffering::full}, {64, buffering::full}}));
}

// Named arguments are found by name on every call: two calls with the same
// format and the same argument types may name them in another order.
TEST(format_cache, named_arguments_are_looked_up_on_every_call) {
  std::vector<piece_case> cases;
  for (int round = 0; round < 3; ++round) {
    cases.push_back({"{a} with a first", reference_into([](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), "{a}|", fmt::arg("a", 1),
                                      fmt::arg("b", 2));
                     }),
                     [](file& f) { f.print("{a}|", fmt::arg("a", 1), fmt::arg("b", 2)); }});
    cases.push_back({"{a} with a second", reference_into([](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), "{a}|", fmt::arg("b", 1),
                                      fmt::arg("a", 2));
                     }),
                     [](file& f) { f.print("{a}|", fmt::arg("b", 1), fmt::arg("a", 2)); }});
    cases.push_back({"{a:>4} with a second", reference_into([](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), "{a:>4}|", fmt::arg("b", 1),
                                      fmt::arg("a", 2));
                     }),
                     [](file& f) { f.print("{a:>4}|", fmt::arg("b", 1), fmt::arg("a", 2)); }});
    cases.push_back({"{a:>4} with a first", reference_into([](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), "{a:>4}|", fmt::arg("a", 1),
                                      fmt::arg("b", 2));
                     }),
                     [](file& f) { f.print("{a:>4}|", fmt::arg("a", 1), fmt::arg("b", 2)); }});
    cases.push_back(
        {"{a} with no a", reference_into([](fmt::memory_buffer& out) {
           fmt::format_to(fmt::appender(out), fmt::runtime("{a}|"), fmt::arg("x", 1),
                          fmt::arg("y", 2));
         }),
         [](file& f) { f.print(fmt::runtime("{a}|"), fmt::arg("x", 1), fmt::arg("y", 2)); }});
  }
  ASSERT_NE(cases[0].want.text, cases[1].want.text);
  ASSERT_TRUE(cases[4].want.throws);
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full}, {4096, buffering::full}}));
}

// Each thread has its own cache: two threads printing with the same format
// and argument types, each to its own writer, at the same time.
TEST(format_cache, two_threads_with_the_same_format_each_keep_their_plan) {
  temp_dir dir;
  std::atomic<int> ready{0};
  auto work = [&](int id, std::string* expected) {
    file f(dir.file("out" + std::to_string(id)), with_buffer(id == 0 ? 61 : 4096));
    ready.fetch_add(1);
    while (ready.load() < 2) std::this_thread::yield();
    for (int i = 0; i < 20000; ++i) {
      long long value = static_cast<long long>(i) * (id == 0 ? 7919 : -104729);
      double d = i / (id == 0 ? 3.0 : 7.0);
      const char* format = i % 3 == 0   ? "{} {:.3f}\n"
                           : i % 3 == 1 ? "{:>12}|{:e}\n"
                                        : "{1}:{0:x}\n";
      f.print(fmt::runtime(format), value, d);
      *expected += fmt::format(fmt::runtime(format), value, d);
    }
    f.close();
  };
  std::string expected[2];
  std::thread first(work, 0, &expected[0]);
  std::thread second(work, 1, &expected[1]);
  first.join();
  second.join();
  EXPECT_EQ(read_file(dir.file("out0")), expected[0]);
  EXPECT_EQ(read_file(dir.file("out1")), expected[1]);
}

// An empty runtime format, including one with no storage at all.
TEST(format_cache, empty_formats_give_fmts_text) {
  std::vector<piece_case> cases;
  for (int round = 0; round < 2; ++round) {
    cases.push_back({"{}", {false, "1"}, [](file& f) { f.print(fmt::runtime("{}"), 1); }});
    cases.push_back(
        {"empty view", {false, ""}, [](file& f) { f.print(fmt::runtime(std::string_view()), 1); }});
    cases.push_back({"empty string", {false, ""}, [](file& f) { f.print(fmt::runtime(""), 1); }});
    cases.push_back({"{:d} fails", reference_into([](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), fmt::runtime("{:d}"), "s");
                     }),
                     [](file& f) { f.print(fmt::runtime("{:d}"), "s"); }});
    cases.push_back({"empty view, no args", {false, ""}, [](file& f) {
                       f.print(fmt::runtime(std::string_view()));
                     }});
    cases.push_back({"empty println", {false, "\n"}, [](file& f) {
                       f.println(fmt::runtime(std::string_view()), 2);
                     }});
    cases.push_back({"empty vprint", {false, ""}, [](file& f) {
                       fastout_test::vprint_with(f, std::string_view(), 3);
                     }});
  }
  EXPECT_TRUE(
      run_in_sequence(cases, {{0, buffering::full}, {8, buffering::full}, {8, buffering::line}}));
}

// A format string the same length as the cached one, differing in one
// character, at every position of every length a plan holds: the cache
// compares the whole text (short texts without memcmp). The character is an
// argument index, so that taking one string for the other shows.
TEST(format_cache, formats_differing_in_one_character_are_told_apart) {
  std::vector<std::string> formats;
  for (std::size_t size = 3; size <= 66; ++size) {
    std::string text(size, 'a');
    for (std::size_t i = 0; i < size; ++i) text[i] = static_cast<char>('a' + i % 26);
    for (std::size_t at = 1; at + 1 < size; ++at) {
      std::string format = text;
      format.replace(at - 1, 3, "{0}");
      formats.push_back(format);
      format[at] = '1';
      formats.push_back(format);
    }
    formats.push_back(text);  // and text alone, copied whole at every length
  }
  std::vector<piece_case> cases;
  for (const std::string& format : formats) {
    cases.push_back({format, reference_into([&format](fmt::memory_buffer& out) {
                       fmt::format_to(fmt::appender(out), fmt::runtime(format), 1, 2);
                     }),
                     [&format](file& f) { f.print(fmt::runtime(format), 1, 2); }});
  }
  EXPECT_TRUE(run_in_sequence(cases, {{0, buffering::full},
                                      {5, buffering::full},
                                      {64, buffering::full},
                                      {4096, buffering::full}}));
}

// Every type formatted without fmt's type-erased arguments, with and without
// specs, each format twice in a row (the second call replays the plan), with
// new values every round.
TEST(format_cache, every_built_in_type_is_replayed) {
  random_source r(2718);
  std::vector<piece_case> cases;
  static char buffer[] = "mutable";
  static const char array[] = "array";
  static int target = 0;
  for (int round = 0; round < 40; ++round) {
    const auto i8 = r.integer<signed char>();
    const auto u8 = r.integer<unsigned char>();
    const auto i16 = r.integer<short>();
    const auto u16 = r.integer<unsigned short>();
    const auto i32 = r.integer<int>();
    const auto u32 = r.integer<unsigned>();
    const auto il = r.integer<long>();
    const auto ul = r.integer<unsigned long>();
    const auto ill = r.integer<long long>();
    const auto ull = r.integer<unsigned long long>();
    const double d = r.floating();
    const float f = r.single();
    const long double ld = r.extended();
    const bool b = r.chance(50);
    const char c = static_cast<char>(r.between(32, 126));
    const std::string s = r.text(true);
    const void* p = r.chance(20) ? nullptr : static_cast<const void*>(&target);
    auto add = [&](std::string name, outcome want, std::function<void(file&)> print) {
      cases.push_back({name, want, print});
      cases.push_back({name + ", again", want, print});
    };
#define ADD_RUNTIME_CASE(S, ...)                                              \
  add("print(runtime(" #S "))", reference_into([=](fmt::memory_buffer& out) { \
        fmt::format_to(fmt::appender(out), fmt::runtime(S), __VA_ARGS__);     \
      }),                                                                     \
      [=](file& out) { out.print(fmt::runtime(S), __VA_ARGS__); })
    ADD_RUNTIME_CASE("{} {} {} {} {} {} {} {} {} {}|", i8, u8, i16, u16, i32, u32, il, ul, ill,
                     ull);
    ADD_RUNTIME_CASE("{:+} {:#x} {:o} {:>5} {:<6} {:^7} {:08} {:b} {:X} {:#b}|", i8, u8, i16, u16,
                     i32, u32, il, ul, ill, ull);
    ADD_RUNTIME_CASE("{} {} {}|{:.3e}|{:>10.2f}|{:g}", d, f, ld, d, f, ld);
    ADD_RUNTIME_CASE("{} {} {:d} {:>3} {:x} {:s}|", b, c, c, c, b, b);
    ADD_RUNTIME_CASE("{}|{:>9}|{:.2}|{}|{:*<8}", s, s, std::string_view(s), fmt::string_view(s),
                     std::string_view(s));
    ADD_RUNTIME_CASE("{} {} {:>8} {:<9}|", array, buffer, array, static_cast<char*>(buffer));
    ADD_RUNTIME_CASE("{} {} {:>20} {}|", p, nullptr, static_cast<void*>(&target),
                     static_cast<const void*>(nullptr));
    ADD_RUNTIME_CASE("{1}{0}{1}|{0:>4}", i32, s);
#undef ADD_RUNTIME_CASE
  }
  EXPECT_TRUE(run_in_sequence(
      cases, {{0, buffering::full}, {7, buffering::full}, {4096, buffering::full}}));
}

#ifdef FASTOUT_FORMAT_CACHE
// What the cache plans, and what it leaves to fmt: a planner that planned
// nothing would pass every test above, fmt formatting everything.
TEST(format_cache, plans_what_it_can_and_leaves_the_rest_to_fmt) {
  temp_dir dir;
  file f(dir.file("out"));
  const std::string s = "s";
  struct expectation {
    const char* format;
    int planned;  // 1: planned, 0: fmt's, -1: not remembered at all
  };
  static const expectation expectations[] = {
      {"{}\n", 1},
      {"{} {}", 1},
      {"{1}{0}", 1},
      {"{:>5}|{:<3}", 1},
      {"{{}}{}}}{}", 1},
      {"", 1},
      {"{:x}:{:.1}", 1},
      {"{0}a{1}b{0}c{1}", 1},
      {"{}{0}", -1},                        // an error: mixed indexing
      {"{:{}}", -1},                        // an error: the width is a string
      {"{1:{0}}", 0},                       // a width from an argument
      {"{:>8}{:d}", -1},                    // an error
      {"{name}", -1},                       // an error: no such name
      {"x{0}a{1}b{0}c{1}d{0}e", 1},         // 6 steps: "x", then a field and its text
      {"{0}{1}{0}{1}{0}{1}{0}{1}", 1},      // 8 steps
      {"{0}{1}{0}{1}{0}{1}{0}{1}{0}", 0},   // 9
      {"x{0}{1}{0}{1}{0}{1}{0}{1}", 0},     // 9
      {"{{{0}{1}{0}{1}{0}{1}{0}", 1},       // 8
      {"{0}{{{1}{0}{1}}}{0}{1}{0}{1}", 1},  // 8: "{" and "}" are text after a field
      {"a{{b{0}{1}{0}{1}{0}{1}{0}", 0},     // 9: "a{" and "b" are two steps
      {"{}12345678901234567890123456789012345678901234567890123456789012", 1},    // 64
      {"{}123456789012345678901234567890123456789012345678901234567890123", -1},  // 65
  };
  for (const expectation& e : expectations) {
    SCOPED_TRACE(e.format);
    try {
      f.print(fmt::runtime(e.format), 42, s);
    } catch (const fmt::format_error&) {
    }
    const auto& plan = fastout::detail::last_plan<int, std::string>;
    const std::size_t size = std::strlen(e.format);
    if (e.planned < 0) {
      EXPECT_NE(plan.format_size, size);
    } else {
      ASSERT_EQ(plan.format_size, size);
      EXPECT_EQ(std::string_view(plan.format, size), e.format);
      EXPECT_EQ(plan.by_fmt, e.planned == 0);
    }
  }
}
#endif

}  // namespace
