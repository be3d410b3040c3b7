// SPDX-License-Identifier: MIT
// The printf target's calls with real variadic arguments.
//
// printf reads its arguments with va_arg() by the types the format names,
// so fastout_vfprintf() and vsnprintf() must both be given arguments of
// exactly those types: one call site per list of types. These are made by
// templates (printf_call_shapes.cpp), from five ways an argument travels --
// int, long long, double, long double, a pointer -- for every list of up to
// five arguments (3,906 shapes), and for 6 to 12 arguments where all but
// one are ints (the gaps of a positional format, which glibc reads as
// ints). A format that needs another list is not tried.
#ifndef FASTOUT_FUZZ_PRINTF_CALL_SHAPES_H_
#define FASTOUT_FUZZ_PRINTF_CALL_SHAPES_H_

#include <cstddef>

namespace fastout_fuzz {

enum class passed : unsigned char {
  int_value,
  long_long_value,
  double_value,
  long_double_value,
  pointer
};

inline constexpr std::size_t most_arguments = 12;
inline constexpr std::size_t most_mixed_arguments = 5;

// Each argument's value in every type; shapes take the one they pass.
struct argument_values {
  int i[most_arguments];
  long long ll[most_arguments];
  double d[most_arguments];
  long double ld[most_arguments];
  const void* p[most_arguments];
};

struct call_context;

// Called with the arguments as `shape` says; defined by the target.
int run_call(call_context* context, const char* format, ...);

// Whether the list of types has a shape.
bool has_shape(const passed* types, std::size_t count);

// run_call(context, format, the values as `types` says...): -1 without
// calling if there is no such shape.
int call_with_shape(call_context* context, const char* format, const passed* types,
                    std::size_t count, const argument_values& values);

}  // namespace fastout_fuzz

#endif  // FASTOUT_FUZZ_PRINTF_CALL_SHAPES_H_
