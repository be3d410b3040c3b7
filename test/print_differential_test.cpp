// SPDX-License-Identifier: MIT
// print, println, vprint and FMT_COMPILE against fmt::format, over
// randomized formats and arguments, through every buffer size and from every
// starting offset; and the bounded path of compiled formats with specs.
#include "print_test_util.h"

namespace {

using namespace print_test;  // NOLINT(google-build-using-namespace): the shared harness
using print_test::big_text;
using print_test::label;
using print_test::logged;
using print_test::loud;
using print_test::point;

// ------------------------------------- the random argument pack and formats

// One argument of every kind at fixed positions; a random format picks among
// them by manual index, or takes a prefix with automatic indexing.
struct argument_pack {
  int i;                   // 0
  unsigned u;              // 1
  long l;                  // 2
  unsigned long ul;        // 3
  long long ll;            // 4
  unsigned long long ull;  // 5
  short s;                 // 6
  unsigned short us;       // 7
  signed char sc;          // 8
  unsigned char uc;        // 9
  double d;                // 10
  float f;                 // 11
  long double ld;          // 12
  std::string cstr;        // 13, passed as const char*
  std::string str;         // 14, passed as std::string
  std::string view;        // 15, passed as std::string_view
  char c;                  // 16
  bool b;                  // 17
  std::uintptr_t ptr;      // 18, passed as const void*
  int width;               // 19, for dynamic widths
  int precision;           // 20, for dynamic precisions
};

#define PACK_ARGS(p)                                                                         \
  (p).i, (p).u, (p).l, (p).ul, (p).ll, (p).ull, (p).s, (p).us, (p).sc, (p).uc, (p).d, (p).f, \
      (p).ld, (p).cstr.c_str(), (p).str, std::string_view((p).view), (p).c, (p).b,           \
      reinterpret_cast<const void*>((p).ptr), (p).width, (p).precision

enum class arg_kind { integer, floating, string, character, boolean, pointer };
constexpr int pack_size = 21;
constexpr int width_index = 19;
constexpr int precision_index = 20;

arg_kind kind_of(int index) {
  if (index < 10 || index >= 19) return arg_kind::integer;
  if (index < 13) return arg_kind::floating;
  if (index < 16) return arg_kind::string;
  if (index == 16) return arg_kind::character;
  if (index == 17) return arg_kind::boolean;
  return arg_kind::pointer;
}

argument_pack random_pack(random_source& r) {
  argument_pack p;
  p.i = r.integer<int>();
  p.u = r.integer<unsigned>();
  p.l = r.integer<long>();
  p.ul = r.integer<unsigned long>();
  p.ll = r.integer<long long>();
  p.ull = r.integer<unsigned long long>();
  p.s = r.integer<short>();
  p.us = r.integer<unsigned short>();
  p.sc = r.integer<signed char>();
  p.uc = r.integer<unsigned char>();
  p.d = r.floating();
  p.f = r.single();
  p.ld = r.extended();
  p.cstr = r.text(false);
  p.str = r.text(true);
  p.view = r.text(true);
  p.c = static_cast<char>(r.chance(80) ? r.between(32, 126) : r.between(-128, 127));
  p.b = r.chance(50);
  p.ptr = static_cast<std::uintptr_t>(r.chance(10) ? 0 : r.bits() >> r.below(64));
  int w = r.below(100) < 90 ? r.between(0, 40) : r.between(100, 400);
  if (r.chance(3)) w = -1;  // fmt: "negative width"
  if (r.chance(1)) w = 5000;
  p.width = w;
  p.precision = r.chance(4) ? -1 : r.between(0, 20);
  return p;
}

// A random format spec (what follows ':') for an argument of `kind`. Mostly
// valid; now and then one fmt rejects, so that errors are compared too.
std::string random_spec(random_source& r, arg_kind kind, bool manual) {
  static const char* const fills[] = {"*", "-", "0", " ", "x", "\xc3\xa9", "\xe2\x86\x92",
                                      "{", "}"};
  static const char* const types[][9] = {
      {"", "d", "x", "X", "o", "b", "B", "c", "d"},  // integer
      {"", "e", "E", "f", "F", "g", "G", "a", "A"},  // floating
      {"", "s", "", "s", "", "s", "", "s", ""},      // string
      {"", "c", "d", "x", "o", "b", "", "c", ""},    // character
      {"", "s", "d", "x", "", "s", "", "", ""},      // boolean
      {"", "p", "", "p", "", "p", "", "p", ""},      // pointer
  };
  const bool numeric = kind == arg_kind::integer || kind == arg_kind::floating;
  const bool odd = r.chance(2);  // a spec that may not fit the kind
  std::string spec;
  if (r.chance(35)) {
    if (r.chance(60)) spec += fills[r.below(r.chance(95) ? 7 : 9)];
    spec += "<>^"[r.below(3)];
  }
  if ((numeric || odd) && r.chance(25)) spec += "+- "[r.below(3)];
  if ((numeric || odd) && r.chance(15)) spec += '#';
  if ((numeric || odd) && r.chance(15)) spec += '0';
  if (r.chance(45)) {
    std::size_t roll = r.below(100);
    if (manual && roll < 15) {
      spec += "{" + std::to_string(width_index) + "}";
    } else if (roll < 25) {
      spec += std::to_string(r.between(30, 150));
    } else if (roll < 29) {
      spec += std::to_string(r.between(200, 1200));
    } else if (roll < 30) {
      spec += "5000";
    } else {
      spec += std::to_string(r.between(1, 20));
    }
  }
  if (((kind == arg_kind::floating || kind == arg_kind::string) && r.chance(40)) ||
      (odd && r.chance(50))) {
    std::size_t roll = r.below(100);
    if (manual && roll < 15) {
      spec += ".{" + std::to_string(precision_index) + "}";
    } else if (roll < 25) {
      spec += "." + std::to_string(r.between(18, 60));
    } else {
      spec += "." + std::to_string(r.between(0, 17));
    }
  }
  if (odd && r.chance(50)) {
    spec += static_cast<char>('A' + r.below(58));  // any letter, or a few signs
  } else {
    spec += types[static_cast<int>(odd ? static_cast<arg_kind>(r.below(6)) : kind)][r.below(9)];
  }
  return spec;
}

// Now and then a broken format: fmt's parser errors must come out alike.
// Not "{:{}}": its width would come from the next argument, any integer of
// the pack, and gigabytes of padding would stream to the file before a later
// error. "{:{19}}" mixes automatic and manual indexing, which fmt rejects
// before writing the field, whatever comes before it.
void maybe_break(random_source& r, std::string& format) {
  if (!r.chance(3)) return;
  static const char* const breakers[] = {"{",     "}",       "{99}", "{:",   "{0",  "{}{0}",
                                         "{0}{}", "{:{19}}", "{x}",  "{-1}", "{0:", "{:d"};
  std::string breaker = breakers[r.below(std::size(breakers))];
  format.insert(r.chance(30) ? 0 : format.size(), breaker);
}

// Fields with manual indices, in any order, some used twice, with dynamic
// widths and precisions: short formats (the cache keeps them) and long ones.
std::string random_manual_format(random_source& r) {
  std::string format;
  std::size_t segments = 1 + r.below(r.chance(25) ? 14 : 6);
  for (std::size_t i = 0; i < segments; ++i) {
    if (r.chance(40)) {
      format += r.format_text();
      continue;
    }
    int index = static_cast<int>(r.below(pack_size));
    format += "{" + std::to_string(index);
    if (r.chance(70)) format += ":" + random_spec(r, kind_of(index), true);
    format += "}";
  }
  maybe_break(r, format);
  return format;
}

// Fields with automatic indexing take the arguments in order.
std::string random_auto_format(random_source& r) {
  std::string format;
  std::size_t fields = 1 + r.below(r.chance(20) ? pack_size : 4);
  for (std::size_t index = 0; index < fields; ++index) {
    if (r.chance(50)) format += r.format_text();
    format +=
        r.chance(30) ? "{}" : "{:" + random_spec(r, kind_of(static_cast<int>(index)), false) + "}";
  }
  if (r.chance(30)) format += r.format_text();
  maybe_break(r, format);
  return format;
}

// A random format with two sets of arguments: the second use of a format
// replays the cached plan (when it is cached), with different values.
struct random_case {
  std::string format;
  argument_pack first;
  argument_pack second;
};

std::vector<random_case> random_cases(std::uint64_t seed, std::size_t count) {
  random_source r(seed);
  std::vector<random_case> cases;
  cases.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    random_case c;
    c.format = i % 2 == 0 ? random_manual_format(r) : random_auto_format(r);
    c.first = random_pack(r);
    c.second = random_pack(r);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Each random case as two pieces: the first values through print(), the
// second through print(), println() or vprint() in turn.
std::vector<piece_case> pieces_of(const std::vector<random_case>& cases) {
  std::vector<piece_case> pieces;
  pieces.reserve(2 * cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const random_case& c = cases[i];
    pieces.push_back(
        {"print(runtime(\"" + c.format + "\"))", reference_into([&](fmt::memory_buffer& out) {
           fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.first));
         }),
         [&c](file& f) { f.print(fmt::runtime(c.format), PACK_ARGS(c.first)); }});
    switch (i % 3) {
      case 0:
        pieces.push_back(
            {"println(runtime(\"" + c.format + "\"))", reference_into([&](fmt::memory_buffer& out) {
               fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.second));
               out.push_back('\n');
             }),
             [&c](file& f) { f.println(fmt::runtime(c.format), PACK_ARGS(c.second)); }});
        break;
      case 1:
        pieces.push_back(
            {"vprint(\"" + c.format + "\")", reference_into([&](fmt::memory_buffer& out) {
               fmt::format_to(fmt::appender(out), fmt::runtime(c.format), PACK_ARGS(c.second));
             }),
             [&c](file& f) { fastout_test::vprint_with(f, c.format, PACK_ARGS(c.second)); }});
        break;
      default:
        pieces.push_back({"print(runtime(\"" + c.format + "\")), again",
                          reference_into([&](fmt::memory_buffer& out) {
                            fmt::format_to(fmt::appender(out), fmt::runtime(c.format),
                                           PACK_ARGS(c.second));
                          }),
                          [&c](file& f) { f.print(fmt::runtime(c.format), PACK_ARGS(c.second)); }});
        break;
    }
  }
  return pieces;
}

// The random set makes both outcomes often enough to mean something.
void expect_mixed_outcomes(const std::vector<piece_case>& pieces) {
  std::size_t errors = 0, large = 0, newlines = 0;
  for (const piece_case& p : pieces) {
    if (p.want.throws) {
      ++errors;
    } else {
      if (p.want.text.size() > 64) ++large;
      if (p.want.text.find('\n') != std::string::npos) ++newlines;
    }
  }
  EXPECT_GT(errors, pieces.size() / 50) << "format errors in the random set";
  EXPECT_LT(errors, pieces.size() / 3) << "format errors in the random set";
  EXPECT_GT(large, pieces.size() / 20) << "pieces larger than 64 bytes";
  EXPECT_GT(newlines, pieces.size() / 20) << "pieces with a newline";
}

// ---------------------------------------------- differential: random formats

// Padding through a buffer of a few bytes is fmt's fill() a character at a
// time, twice for a piece larger than the buffer: every size from 1 to 64
// took a minute here. These sizes keep the tiny buffers, both sides of the
// powers of two and the large ones; random_formats_from_every_offset
// covers every split.
std::vector<writer_config> random_configs() {
  std::vector<writer_config> configs;
  for (std::size_t size : size_list{0, 1, 2, 3, 5, 7, 8, 9, 16, 31, 33, 64, 1000, 65536})
    configs.push_back({size, buffering::full});
  for (std::size_t size : size_list{0, 1, 7, 64}) configs.push_back({size, buffering::line});
  return configs;
}

TEST(print_differential, random_formats_through_many_buffer_sizes) {
  FASTOUT_SKIP_UNDER_THREAD_SANITIZER();
  std::vector<random_case> cases = random_cases(20240601, 3000);
  std::vector<piece_case> pieces = pieces_of(cases);
  expect_mixed_outcomes(pieces);
  EXPECT_TRUE(run_in_sequence(pieces, random_configs()));
}

TEST(print_differential, random_formats_from_every_offset) {
  std::vector<random_case> cases = random_cases(977, 30);
  std::vector<piece_case> pieces = pieces_of(cases);
  EXPECT_TRUE(run_at_every_offset(pieces, offset_configs()));
}

// Unbuffered writers format on the stack, 4096 bytes at a time.
TEST(print_differential, random_formats_with_large_pieces_unbuffered) {
  std::vector<random_case> cases = random_cases(31337, 400);
  for (random_case& c : cases) {
    c.first.str.assign(4000 + c.first.str.size(), 's');
    c.second.width = 4090 + c.second.width % 16;
  }
  std::vector<piece_case> pieces = pieces_of(cases);
  EXPECT_TRUE(run_in_sequence(
      pieces, {{0, buffering::full}, {0, buffering::line}, {4096, buffering::full}}));
}

// Named arguments, mixed with positional ones.
TEST(print_differential, random_formats_with_named_arguments) {
  random_source r(4242);
  struct named_case {
    std::string format;
    int i;
    double d;
    std::string s;
    unsigned long long u;
  };
  std::vector<named_case> cases;
  cases.reserve(600);
  static const char* const names[] = {"i", "d", "s", "u"};
  static const arg_kind kinds[] = {arg_kind::integer, arg_kind::floating, arg_kind::string,
                                   arg_kind::integer};
  for (int n = 0; n < 600; ++n) {
    named_case c;
    std::size_t fields = 1 + r.below(5);
    for (std::size_t k = 0; k < fields; ++k) {
      if (r.chance(50)) c.format += r.format_text();
      // By name, or now and then by position.
      std::size_t arg = r.below(4);
      c.format += "{" + (r.chance(80) ? std::string(names[arg]) : std::to_string(arg));
      if (r.chance(60)) c.format += ":" + random_spec(r, kinds[arg], false);
      c.format += "}";
    }
    if (r.chance(5)) c.format += "{nope}";
    c.i = r.integer<int>();
    c.d = r.floating();
    c.s = r.text(true);
    c.u = r.integer<unsigned long long>();
    cases.push_back(std::move(c));
  }
  std::vector<piece_case> pieces;
  for (const named_case& c : cases) {
    pieces.push_back({c.format, reference_into([&](fmt::memory_buffer& out) {
                        fmt::format_to(fmt::appender(out), fmt::runtime(c.format),
                                       fmt::arg("i", c.i), fmt::arg("d", c.d), fmt::arg("s", c.s),
                                       fmt::arg("u", c.u));
                      }),
                      [&c](file& f) {
                        f.print(fmt::runtime(c.format), fmt::arg("i", c.i), fmt::arg("d", c.d),
                                fmt::arg("s", c.s), fmt::arg("u", c.u));
                      }});
  }
  EXPECT_TRUE(run_in_sequence(pieces, every_config()));
}

// -------------------------------------- differential: compile-time formats

// Values for the literal formats; the cases refer to them.
struct literal_values {
  std::int8_t i8;
  std::uint8_t u8;
  std::int16_t i16;
  std::uint16_t u16;
  std::int32_t i32;
  std::uint32_t u32;
  std::int64_t i64;
  std::uint64_t u64;
  double d;
  float f;
  long double ld;
  std::string s;
  std::string big;
  char c;
  bool b;
  const void* p;
  int width;
  int precision;
  point pt;
  label lb;
};

literal_values random_literal_values(random_source& r) {
  literal_values v;
  v.i8 = r.integer<std::int8_t>();
  v.u8 = r.integer<std::uint8_t>();
  v.i16 = r.integer<std::int16_t>();
  v.u16 = r.integer<std::uint16_t>();
  v.i32 = r.integer<std::int32_t>();
  v.u32 = r.integer<std::uint32_t>();
  v.i64 = r.integer<std::int64_t>();
  v.u64 = r.integer<std::uint64_t>();
  v.d = r.floating();
  v.f = r.single();
  v.ld = r.extended();
  v.s = r.text(true);
  v.big = std::string(static_cast<std::size_t>(r.between(60, 6000)), 'B') + r.text(true);
  v.c = static_cast<char>(r.between(32, 126));
  v.b = r.chance(50);
  v.p = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(r.bits()));
  v.width = r.between(0, 80);
  v.precision = r.between(0, 30);
  v.pt = {r.integer<int>(), r.integer<int>()};
  v.lb = {r.text(false)};
  return v;
}

void add_literal_cases(std::vector<piece_case>& cases, const literal_values& v) {
  ADD_LITERAL_CASES(cases, "{}", v.i32);
  ADD_LITERAL_CASES(cases, "{} {} {} {} {} {} {} {}", v.i8, v.u8, v.i16, v.u16, v.i32, v.u32, v.i64,
                    v.u64);
  ADD_LITERAL_CASES(cases, "{:+} {:#x} {:#o} {:#b} {:08X} {:<6d}|{:^7}|", v.i8, v.u8, v.i16, v.u16,
                    v.i32, v.i64, v.u64);
  ADD_LITERAL_CASES(cases, "{} {} {}", v.d, v.f, v.ld);
  ADD_LITERAL_CASES(cases, "{:>12.3f}|{:<+14e}|{:^#12g}|{:a}|{:E}|{:.0f}", v.d, v.d, v.f, v.d, v.ld,
                    v.d);
  ADD_LITERAL_CASES(cases, "{:.17g} {:.40f}", v.d, v.d);
  ADD_LITERAL_CASES(cases, "{}|{:>10}|{:*^9.3}|{:.0}|{:s}", v.s, v.s, v.s, v.s, v.s);
  ADD_LITERAL_CASES(cases, "{} {:c} {:d} {:#x} {:>4}", v.c, v.c, v.c, v.c, v.c);
  ADD_LITERAL_CASES(cases, "{} {:>6} {:d} {:s}", v.b, v.b, v.b, v.b);
  ADD_LITERAL_CASES(cases, "{} {:p} {:>30}", v.p, v.p, v.p);
  ADD_LITERAL_CASES(cases, "{1} {0} {1} {2}", v.i32, v.s, v.d);
  ADD_LITERAL_CASES(cases, "{{}} {{{}}} }}{{", v.i32);
  ADD_LITERAL_CASES(cases, "{:{}}|{:.{}f}|{:{}.{}e}", v.i32, v.width, v.d, v.precision, v.d,
                    v.width, v.precision);
  ADD_LITERAL_CASES(cases, "{0:>{1}}|{2:.{3}}", v.s, v.width, v.s, v.precision);
  ADD_LITERAL_CASES(cases, "{} {:>5000}", v.i32, v.s);
  ADD_LITERAL_CASES(cases, "{}|{}", v.big, v.i64);
  ADD_LITERAL_CASES(cases, "{:\xc3\xa9^21}|{:\xe2\x86\x92<9}", v.s, v.i32);
  ADD_LITERAL_CASES(cases, "{name:>12}|{other}|{0}", fmt::arg("name", v.i64),
                    fmt::arg("other", v.s));
  ADD_LITERAL_CASES(cases, "{} {:p} {:c}", v.pt, v.pt, v.pt);
  ADD_LITERAL_CASES(cases, "{}|{:>20}|{:.3}", v.lb, v.lb, v.lb);
  ADD_LITERAL_CASES(cases, "{}", big_text{static_cast<std::size_t>(v.width) * 100, 'T', false});
  ADD_LITERAL_CASES(cases, "line\n{}\nline {}\n", v.i32, v.s);
  ADD_LITERAL_CASES(cases, "{}", std::string_view(v.s));
  ADD_LITERAL_CASES(cases, "{}{}", v.s.c_str(), 'x');
  // Char arrays, short and longer than 16 bytes: the bounded compiled path
  // hands fmt a pointer to them (detail::fast_argument).
  ADD_LITERAL_CASES(cases, "{}|{:>40}|{}", "a char array longer than sixteen bytes", "short", v.s);
  // No arguments at all.
  cases.push_back(
      {"print(\"no fields\\n\")", {false, "no fields\n"}, [](file& f) { f.print("no fields\n"); }});
  cases.push_back({"println(\"{{}}\")", {false, "{}\n"}, [](file& f) { f.println("{{}}"); }});
  cases.push_back(
      {"print(FMT_COMPILE(\"x{{\"))", {false, "x{"}, [](file& f) { f.print(FMT_COMPILE("x{{")); }});
  cases.push_back({"print(\"\")", {false, ""}, [](file& f) { f.print(""); }});
}

TEST(print_differential, compile_time_and_compiled_formats_through_every_buffer_size) {
  FASTOUT_SKIP_UNDER_THREAD_SANITIZER();
  random_source r(7);
  std::vector<literal_values> values;
  for (int i = 0; i < 12; ++i) values.push_back(random_literal_values(r));
  std::vector<piece_case> cases;
  for (const literal_values& v : values) add_literal_cases(cases, v);
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

TEST(print_differential, compile_time_and_compiled_formats_from_every_offset) {
  random_source r(8);
  literal_values v = random_literal_values(r);
  v.big.resize(100);
  std::vector<piece_case> cases;
  add_literal_cases(cases, v);
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
}

// A piece larger than the whole buffer, from every offset, in every way.
TEST(print_differential, pieces_larger_than_the_buffer) {
  std::string s = "tail";
  std::vector<piece_case> cases;
  ADD_LITERAL_CASES(cases, "{:>5000}", s);
  ADD_LITERAL_CASES(cases, "{:<70}|{}", s, 42);
  ADD_LITERAL_CASES(cases, "{}", big_text{300, 'x', false});
  ADD_LITERAL_CASES(cases, "a\n{:>130}\nb", s);
  cases.push_back({"vprint(\"{:>5000}\")", reference_into([&](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{:>5000}", s);
                   }),
                   [&](file& f) { fastout_test::vprint_with(f, "{:>5000}", s); }});
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

// ------------------------------- compiled formats with specs: the bounded path

// print(FMT_COMPILE(...)) writes straight into the buffer when
// detail::bounded_format bounds the text before formatting; with fmt 9 that
// includes fields with specs of built-in scalars and strings. An
// underestimate writes past the buffer, so every format below is checked
// three ways: at compile time, that it takes the bounded path (the
// optimization cannot silently go); against fmt::formatted_size, that the
// bound holds the text, over extreme and random values; and through files at
// every buffer size and offset, against fmt::format.

// Arguments for the formats with specs.
struct spec_values {
  std::int64_t i64;
  std::uint64_t u64;
  std::int32_t i32;
  std::uint32_t u32;
  std::int16_t i16;
  std::uint16_t u16;
  std::int8_t i8;
  std::uint8_t u8;
  double d;
  float f;
  std::string s;
  std::string mutable_text;  // passed as char*
  char array[12];            // passed as char[12]
  char c;
  bool b;

  spec_values(std::int64_t a_i64, std::uint64_t a_u64, double a_d, float a_f, std::string a_s,
              char a_c, bool a_b)
      : i64(a_i64),
        u64(a_u64),
        i32(static_cast<std::int32_t>(a_i64)),
        u32(static_cast<std::uint32_t>(a_u64)),
        i16(static_cast<std::int16_t>(a_i64)),
        u16(static_cast<std::uint16_t>(a_u64)),
        i8(static_cast<std::int8_t>(a_i64)),
        u8(static_cast<std::uint8_t>(a_u64)),
        d(a_d),
        f(a_f),
        s(std::move(a_s)),
        mutable_text(s),
        array(),
        c(a_c),
        b(a_b) {
    s.copy(array, sizeof array - 1);
  }
};

// Each format with its arguments, for X(format, args...): the W8 row; every
// integer presentation, sign, '#' and '0'; multi-byte fills; 'f', 'e', 'g',
// 'a' and none with precisions up to past fmt's 767 digits; float; every
// string type with precision and width; bool and char as text and as
// integers; widths wider than the small buffers; manual indexing.
// {fmt} 10 and later reject 'c' for a bool and a sign for a char.
#if FMT_VERSION >= 100000
#  define BOOL_SPECS "{:>6}|{:<6s}|{:d}|{:#x}|{:05d}|{:^7}|{:b}|{:o}"
#  define CHAR_SPECS "{:>4}|{:c}|{:*^5}|{:d}|{:#x}|{:x}|{:08b}"
#else
#  define BOOL_SPECS "{:>6}|{:<6s}|{:d}|{:#x}|{:05d}|{:^7}|{:b}|{:c}"
#  define CHAR_SPECS "{:>4}|{:c}|{:*^5}|{:d}|{:#x}|{:+d}|{:08b}"
#endif
#define FOR_EACH_SPEC_FORMAT(X, v)                                                                \
  X("{},{:.2f},{},{}\n", v.i64, v.d, v.s, v.i32);                                                 \
  X("{:>12}|{:<+8}|{:^#10x}|{:08X}|{: d}|{:#o}|{:o}", v.i32, v.i64, v.u64, v.i32, v.i16, v.u16,   \
    v.i8);                                                                                        \
  X("{:#b}|{:B}|{:#066b}|{:b}|{:#B}|{:x}|{:#X}", v.i64, v.u64, v.i64, v.u8, v.i8, v.i64, v.u64);  \
  X("{:c}|{:>5c}|{:d}|{:+d}|{:#x}|{:<3}|{:-}", v.u8, v.u8, v.u8, v.i8, v.u16, v.u32, v.i16);      \
  X("{:\xc3\xa9^30}|{:\xf0\x9f\x92\xa1>12}|{:\xe2\x86\x92<9}|{:\xf0\x9f\x92\xa1^+#20x}", v.s,     \
    v.i32, v.d, v.i64);                                                                           \
  X("{:\xc3\xa9<08}|{:\xf0\x9f\x92\xa1>+010.3f}", v.i32, v.d);                                    \
  X("{:.2f}|{:+.0f}|{:#.0f}|{:F}|{:12.3f}|{:014.2f}|{:f}", v.d, v.d, v.d, v.d, v.f, v.d, v.d);    \
  X("{:e}|{:.0e}|{:#.3E}|{:+.17e}|{:.40e}|{:>30e}", v.d, v.d, v.d, v.d, v.d, v.d);                \
  X("{:g}|{:.1g}|{:#G}|{:.17g}|{:#.30g}|{:.0}|{:.5}|{:#.0g}", v.d, v.d, v.d, v.d, v.d, v.d, v.d,  \
    v.d);                                                                                         \
  X("{:a}|{:.0a}|{:#A}|{:.20a}|{:+a}|{:#.3a}", v.d, v.d, v.d, v.d, v.d, v.d);                     \
  X("{}|{:}|{:>30}|{:<+}|{: }|{:015}|{:#}", v.d, v.d, v.d, v.d, v.d, v.d, v.d);                   \
  X("{:.2f}|{:e}|{:g}|{:a}|{:>20}|{:.10}|{:#}|{:.50f}|{:+015.3e}", v.f, v.f, v.f, v.f, v.f, v.f,  \
    v.f, v.f, v.f);                                                                               \
  X("{:.400f}|{:.800e}", v.d, v.d);                                                               \
  X("{:#.500g}|{:.800f}|{:.800a}", v.d, v.d, v.d);                                                \
  X("{:.3}|{:>20.5s}|{:*<12}|{:^9}|{:.0}|{:s}", v.s, std::string_view(v.s), v.s.c_str(), v.array, \
    v.s, v.s);                                                                                    \
  X("{:>8.2}|{:\xc3\xa9^10}|{:\xe2\x86\x92>7.1}", const_cast<char*>(v.mutable_text.c_str()),      \
    fmt::string_view(v.s), v.array);                                                              \
  X(BOOL_SPECS, v.b, v.b, v.b, v.b, v.b, v.b, v.b, v.b);                                          \
  X(CHAR_SPECS, v.c, v.c, v.c, v.c, v.c, v.c, v.c);                                               \
  X("{:>500}|{:<300.2f}", v.i32, v.d);                                                            \
  X("{0:>10}|{0:x}|{1:.3f}|{0}|{2:>4}", v.i32, v.d, v.s);                                         \
  X("x{{{:>5}}}y", v.i32)

// Values at the edges of each type: the longest integers in every base,
// 309-digit doubles, the smallest, NaN and infinities (with signs), the
// rounding that carries into a 16th integral digit, negative zero; empty,
// multi-byte and malformed UTF-8 text (a precision counts code points).
std::vector<spec_values> extreme_spec_values() {
  using dbl = std::numeric_limits<double>;
  using flt = std::numeric_limits<float>;
  using i64 = std::numeric_limits<std::int64_t>;
  using u64 = std::numeric_limits<std::uint64_t>;
  std::vector<spec_values> values;
  values.emplace_back(i64::min(), u64::max(), dbl::max(), flt::max(), "h\xc3\xa9llo w\xc3\xb6rld",
                      'x', true);
  values.emplace_back(i64::max(), 0, dbl::lowest(), flt::lowest(), "", '\0', false);
  values.emplace_back(0, 1, dbl::quiet_NaN(), -flt::quiet_NaN(), "\x80\x80\x80\x80\x80\xbf",
                      static_cast<char>(-1), true);
  values.emplace_back(-1, u64::max() - 1, -dbl::infinity(), flt::infinity(),
                      "\xf0\x9f\x92\xa1\xe6\x97\xa5", '}', false);
  values.emplace_back(i64::min() + 1, 1ull << 63, dbl::min(), flt::min(), "{}", '\n', true);
  values.emplace_back(-128, 255, dbl::denorm_min(), flt::denorm_min(), "a", '~', false);
  values.emplace_back(-32768, 65535, 999999999999999.9, 0.5f, "0123456789abcdef", 'A', true);
  values.emplace_back(127, 128, -999999999999999.5, -99999.995f, "tab\tnewline\n", 'z', false);
  values.emplace_back(42, 42, 1e15, 1e15f, std::string(300, 'w'), '0', true);
  values.emplace_back(-42, 0x7f, -0.0, -0.0f, "\xe2\x86\x92", ' ', false);
  values.emplace_back(1, 2, 0.005, 0.125f, "x", '\x7f', true);
  values.emplace_back(-2, 3, std::copysign(dbl::quiet_NaN(), -1.0), -flt::infinity(), "yz", 'q',
                      false);
  return values;
}

spec_values random_spec_values(random_source& r) {
  return spec_values(r.integer<std::int64_t>(), r.integer<std::uint64_t>(), r.floating(),
                     r.single(), r.text(false), static_cast<char>(r.between(-128, 127)),
                     r.chance(50));
}

template <typename... T, typename S>
constexpr bool takes_bounded_path(S) {
  return fastout::detail::bounded_format<S, T...>::value;
}

// The bound must hold fmt's text; with fmt 9 the format must be bounded at
// all (checked when the function is instantiated, that is at compile time).
template <typename S, typename... T>
void expect_bounded(const char* name, const S& format, const T&... args) {
  using bounded = fastout::detail::bounded_format<S, const T&...>;
#ifdef FASTOUT_FMT_PROBES_SPECS
  static_assert(bounded::value, "print(FMT_COMPILE(...)) must take the bounded path here");
#endif
  if constexpr (bounded::value) {
    std::size_t size = fmt::formatted_size(format, args...);
    std::size_t bound = bounded::max_size(args...);
    EXPECT_LE(size, bound) << name << " wrote \"" << printable(fmt::format(format, args...))
                           << "\"";
  }
}

#define EXPECT_BOUNDED(S, ...) expect_bounded(#S, FMT_COMPILE(S), __VA_ARGS__)

void expect_spec_bounds(const spec_values& v) { FOR_EACH_SPEC_FORMAT(EXPECT_BOUNDED, v); }

void add_spec_cases(std::vector<piece_case>& cases, const spec_values& v) {
#define ADD_SPEC_CASES(S, ...) ADD_LITERAL_CASES(cases, S, __VA_ARGS__)
  FOR_EACH_SPEC_FORMAT(ADD_SPEC_CASES, v);
#undef ADD_SPEC_CASES
}

// Fields the bound cannot know before formatting keep fmt's buffer: a width
// or precision from an argument, the locale ('L'), escapes ('?'), long
// double, pointers, and types with formatters of their own (even one that
// reuses fmt's string formatter), chrono and ranges among them.
static_assert(!takes_bounded_path<int, int>(FMT_COMPILE("{:{}}")));
static_assert(!takes_bounded_path<double, int>(FMT_COMPILE("{:.{}f}")));
static_assert(!takes_bounded_path<std::string, int, int>(FMT_COMPILE("{:>{}.{}}")));
static_assert(!takes_bounded_path<int, int>(FMT_COMPILE("{0:{1}}")));
static_assert(!takes_bounded_path<int>(FMT_COMPILE("{:L}")));
static_assert(!takes_bounded_path<double>(FMT_COMPILE("{:.2Lf}")));
static_assert(!takes_bounded_path<std::string>(FMT_COMPILE("{:?}")));
static_assert(!takes_bounded_path<char>(FMT_COMPILE("{:?}")));
static_assert(!takes_bounded_path<long double>(FMT_COMPILE("{:.2f}")));
static_assert(!takes_bounded_path<long double>(FMT_COMPILE("{}")));
static_assert(!takes_bounded_path<const void*>(FMT_COMPILE("{:>20}")));
static_assert(!takes_bounded_path<const char*>(FMT_COMPILE("{:p}")));
static_assert(!takes_bounded_path<label>(FMT_COMPILE("{:>20}")));
static_assert(!takes_bounded_path<point>(FMT_COMPILE("{:p}")));
static_assert(!takes_bounded_path<loud>(FMT_COMPILE("{}")));
static_assert(!takes_bounded_path<std::chrono::seconds>(FMT_COMPILE("{:%H:%M}")));
static_assert(!takes_bounded_path<std::vector<int>>(FMT_COMPILE("{::>3}")));
static_assert(!takes_bounded_path<decltype(fmt::arg("x", 1))>(FMT_COMPILE("{x:>5}")));
// Plain fields of scalars and strings take it, as before.
static_assert(takes_bounded_path<int, unsigned long long, double, float, bool, char, std::string,
                                 std::string_view, const char*>(FMT_COMPILE("{}{}{}{}{}{}{}{}{}")));

TEST(print_bounded, the_bound_holds_extreme_values) {
  for (const spec_values& v : extreme_spec_values()) expect_spec_bounds(v);
}

TEST(print_bounded, the_bound_holds_random_values) {
  random_source r(1309);
  for (int i = 0; i < 3000; ++i) expect_spec_bounds(random_spec_values(r));
}

TEST(print_bounded, specs_through_every_buffer_size) {
  FASTOUT_SKIP_UNDER_THREAD_SANITIZER();
  random_source r(2718);
  std::vector<spec_values> values = extreme_spec_values();
  for (int i = 0; i < 4; ++i) values.push_back(random_spec_values(r));
  std::vector<piece_case> cases;
  for (const spec_values& v : values) add_spec_cases(cases, v);
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

TEST(print_bounded, specs_from_every_offset) {
  FASTOUT_SKIP_UNDER_THREAD_SANITIZER();
  std::vector<spec_values> values = extreme_spec_values();
  std::vector<piece_case> cases;
  for (std::size_t i : size_list{0, 2, 6}) add_spec_cases(cases, values[i]);
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
}

}  // namespace
