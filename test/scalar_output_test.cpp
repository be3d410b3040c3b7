// SPDX-License-Identifier: MIT
// Scalar output (<< and print("{}") of one scalar): every scalar type, as
// fmt formats it, through every buffer size and near the end of the buffer.
#include "print_test_util.h"

namespace {

using namespace print_test;  // NOLINT(google-build-using-namespace): the shared harness
using print_test::big_text;
using print_test::label;
using print_test::logged;
using print_test::loud;
using print_test::point;

// ------------------------------------------------------------ scalar output

template <typename T>
void add_scalar(std::vector<piece_case>& cases, const char* type, T value) {
  cases.push_back({std::string("<< ") + type, reference_into([value](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", value);
                   }),
                   [value](file& f) { f << value; }, false});
}

template <typename T>
void add_hex(std::vector<piece_case>& cases, const char* type, T value) {
  cases.push_back({std::string("<< hex ") + type, reference_into([value](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{:x}", value);
                   }),
                   [value](file& f) { f << fastout::hex(value); }, false});
}

template <typename T>
void add_integers(std::vector<piece_case>& cases, random_source& r, const char* type,
                  std::size_t count) {
  using limits = std::numeric_limits<T>;
  for (T value : {limits::min(), limits::max(), T(0), T(1), static_cast<T>(limits::min() + 1),
                  static_cast<T>(limits::max() - 1), static_cast<T>(-1)}) {
    add_scalar(cases, type, value);
    add_hex(cases, type, value);
  }
  for (std::size_t i = 0; i < count; ++i) {
    add_scalar(cases, type, r.integer<T>());
    add_hex(cases, type, r.integer<T>());
  }
}

std::vector<piece_case> scalar_cases(std::size_t count) {
  random_source r(12345);
  std::vector<piece_case> cases;
  add_integers<std::int8_t>(cases, r, "int8_t", count);
  add_integers<std::uint8_t>(cases, r, "uint8_t", count);
  add_integers<std::int16_t>(cases, r, "int16_t", count);
  add_integers<std::uint16_t>(cases, r, "uint16_t", count);
  add_integers<std::int32_t>(cases, r, "int32_t", count);
  add_integers<std::uint32_t>(cases, r, "uint32_t", count);
  add_integers<std::int64_t>(cases, r, "int64_t", count);
  add_integers<std::uint64_t>(cases, r, "uint64_t", count);
  add_integers<long long>(cases, r, "long long", count);
  add_integers<unsigned long long>(cases, r, "unsigned long long", count);
  add_integers<long>(cases, r, "long", count);
  add_integers<signed char>(cases, r, "signed char", count);
  add_integers<unsigned char>(cases, r, "unsigned char", count);
  add_integers<unsigned short>(cases, r, "unsigned short", count);
#ifdef __SIZEOF_INT128__
  __extension__ typedef __int128 int128;
  __extension__ typedef unsigned __int128 uint128;
  const uint128 all = ~uint128(0);
  for (uint128 u : {all, all >> 1, (all >> 1) + 1, uint128(0), uint128(1)}) {
    add_scalar(cases, "unsigned __int128", u);
    add_scalar(cases, "__int128", static_cast<int128>(u));
  }
  for (std::size_t i = 0; i < count; ++i) {
    uint128 u = (uint128(r.bits()) << 64 | r.bits()) >> r.below(128);
    add_scalar(cases, "unsigned __int128", u);
    add_scalar(cases, "__int128", static_cast<int128>(r.chance(50) ? u : ~u));
  }
#endif
  for (double d : {0.0,
                   -0.0,
                   std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(),
                   std::copysign(std::numeric_limits<double>::quiet_NaN(), -1.0),
                   std::numeric_limits<double>::denorm_min(),
                   -std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min(),
                   -2.2250738585072014e-308,
                   -2.2250738585072009e-308,
                   std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::lowest(),
                   -1.2345678901234567e-5,
                   1e15,
                   1e16,
                   1e-4,
                   1e-5,
                   0.1,
                   1.0 / 3.0,
                   9007199254740993.0}) {
    add_scalar(cases, "double", d);
  }
  for (float f : {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                  -std::numeric_limits<float>::min(), std::numeric_limits<float>::max(), 0.1f,
                  1.0f / 3.0f, 16777217.0f, 1e-5f}) {
    add_scalar(cases, "float", f);
  }
  for (std::size_t i = 0; i < 10 * count; ++i) {
    std::uint64_t bits = r.bits();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    add_scalar(cases, "double (random bits)", d);
    add_scalar(cases, "double", r.floating());
    std::uint32_t bits32 = static_cast<std::uint32_t>(r.bits());
    float f;
    std::memcpy(&f, &bits32, sizeof f);
    add_scalar(cases, "float (random bits)", f);
    if (i % 8 == 0) {  // subnormals
      std::uint64_t sub = r.bits() >> 12;
      std::memcpy(&d, &sub, sizeof d);
      add_scalar(cases, "double (subnormal)", r.chance(50) ? d : -d);
    }
  }
  for (std::size_t i = 0; i < count; ++i) add_scalar(cases, "long double", r.extended());
  add_scalar(cases, "bool", true);
  add_scalar(cases, "bool", false);
  add_hex(cases, "bool", true);
  for (int c = -128; c < 128; ++c) {
    add_scalar(cases, "char", static_cast<char>(c));
    add_hex(cases, "char", static_cast<char>(c));
  }
  static const std::string strings[] = {"",
                                        "a",
                                        "hello, world",
                                        "line\n",
                                        "tab\there\n\n",
                                        std::string(100, 'L'),
                                        std::string(3000, 'H'),
                                        "\xe6\x97\xa5"};
  for (const std::string& s : strings) {
    cases.push_back({"<< std::string", {false, s}, [&s](file& f) { f << s; }, false});
    cases.push_back(
        {"<< string_view", {false, s}, [&s](file& f) { f << std::string_view(s); }, false});
    cases.push_back({"<< const char*", {false, s}, [&s](file& f) { f << s.c_str(); }, false});
  }
  cases.push_back({"<< char array", {false, "literal"}, [](file& f) { f << "literal"; }, false});
  cases.push_back({"<< point", reference_into([](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", point{-3, 4});
                   }),
                   [](file& f) {
                     f << point{-3, 4};
                   },
                   false});
  cases.push_back({"<< label", {false, "lbl"}, [](file& f) { f << label{"lbl"}; }, false});
  cases.push_back({"<< loud", reference_into([](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", loud{"ab"});
                   }),
                   [](file& f) { f << loud{"ab"}; }, false});
  cases.push_back({"<< nullptr", reference_into([](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", nullptr);
                   }),
                   [](file& f) { f << nullptr; }, false});
  cases.push_back({"<< big_text",
                   {false, std::string(100, 'g')},
                   [](file& f) {
                     f << big_text{100, 'g', false};
                   },
                   false});
  cases.push_back({"<< path", reference_into([](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", std::filesystem::path("a b/c"));
                   }),
                   [](file& f) { f << std::filesystem::path("a b/c"); }, false});
  cases.push_back({"<< void*", reference_into([](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", static_cast<const void*>(strings));
                   }),
                   [](file& f) { f << static_cast<const void*>(strings); }, false});
  cases.push_back({"<< vector", reference_into([](fmt::memory_buffer& out) {
                     fmt::format_to(fmt::appender(out), "{}", std::vector<int>{1, 2, 3});
                   }),
                   [](file& f) {
                     f << std::vector<int>{1, 2, 3};
                   },
                   false});
  return cases;
}

TEST(scalar_output, every_scalar_type_through_every_buffer_size) {
  std::vector<piece_case> cases = scalar_cases(200);
  EXPECT_TRUE(run_in_sequence(cases, every_config()));
}

TEST(scalar_output, near_the_end_of_the_buffer) {
  std::vector<piece_case> all = scalar_cases(3);
  // Every 7th case, and every case longer than 16 bytes but not too long.
  std::vector<piece_case> cases;
  for (std::size_t i = 0; i < all.size(); ++i) {
    std::size_t size = all[i].want.text.size();
    if (i % 7 == 0 || (size > 16 && size < 200)) cases.push_back(all[i]);
  }
  EXPECT_TRUE(run_at_every_offset(cases, offset_configs()));
}

// The text is fmt's even where C's would differ: shortest round trip.
TEST(scalar_output, floating_point_is_the_shortest_round_trip) {
  temp_dir dir;
  file f(dir.file("out"), with_buffer(4096));
  f << 0.1 << ' ' << 1e16 << ' ' << -0.0 << ' ' << 5e-324 << ' ' << 0.1f << ' ' << 1e300 << ' '
    << std::numeric_limits<double>::infinity() << ' ' << std::numeric_limits<double>::quiet_NaN();
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), "0.1 1e+16 -0 5e-324 0.1 1e+300 inf nan");
}

TEST(scalar_output, chars_and_small_integers_as_fmt_formats_them) {
  temp_dir dir;
  file f(dir.file("out"), with_buffer(16));
  f << 'A' << static_cast<signed char>(65) << static_cast<unsigned char>(200)
    << static_cast<std::int8_t>(-128) << true << false << fastout::hex(-255)
    << fastout::hex(static_cast<std::uint8_t>(0xab))
    << fastout::hex(std::numeric_limits<std::int64_t>::min());
  f.close();
  EXPECT_EQ(read_file(dir.file("out")), "A65200-128truefalse-ffab-8000000000000000");
}

}  // namespace
