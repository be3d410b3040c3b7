// SPDX-License-Identifier: MIT
// The call shapes of printf_call_shapes.h. Thousands of small functions:
// fuzz/CMakeLists.txt compiles this file without sanitizers or coverage and
// at -O0 (it only forwards arguments), which takes seconds instead of
// half a minute.
#include "printf_call_shapes.h"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace fastout_fuzz {
namespace {

// Every list of up to most_mixed_arguments types.
template <typename... T>
int mixed(call_context* context, const char* format, const passed* types, std::size_t count,
          const argument_values& v, T... done) {
  constexpr std::size_t k = sizeof...(T);
  if (k == count) return run_call(context, format, done...);
  if constexpr (k < most_mixed_arguments) {
    switch (types[k]) {
      case passed::int_value: return mixed(context, format, types, count, v, done..., v.i[k]);
      case passed::long_long_value:
        return mixed(context, format, types, count, v, done..., v.ll[k]);
      case passed::double_value: return mixed(context, format, types, count, v, done..., v.d[k]);
      case passed::long_double_value:
        return mixed(context, format, types, count, v, done..., v.ld[k]);
      case passed::pointer: return mixed(context, format, types, count, v, done..., v.p[k]);
    }
  }
  return -1;
}

// Ints, but the argument at `Special` passed as `Type`.
template <typename Type, std::size_t Special>
struct one_special {
  template <std::size_t I>
  static auto value(const argument_values& v) {
    if constexpr (I != Special) {
      return v.i[I];
    } else if constexpr (std::is_same_v<Type, long long>) {
      return v.ll[I];
    } else if constexpr (std::is_same_v<Type, double>) {
      return v.d[I];
    } else if constexpr (std::is_same_v<Type, long double>) {
      return v.ld[I];
    } else if constexpr (std::is_same_v<Type, const void*>) {
      return v.p[I];
    } else {
      return v.i[I];
    }
  }
  template <std::size_t... I>
  static int call(call_context* context, const char* format, const argument_values& v,
                  std::index_sequence<I...>) {
    return run_call(context, format, value<I>(v)...);
  }
};

template <typename Type, std::size_t Count, std::size_t... Special>
int at_special(call_context* context, const char* format, std::size_t special,
               const argument_values& v, std::index_sequence<Special...>) {
  int result = -1;
  auto call_at = [&](auto position) {
    if (special != position) return false;
    result = one_special<Type, decltype(position)::value>::call(context, format, v,
                                                                std::make_index_sequence<Count>());
    return true;
  };
  static_cast<void>((call_at(std::integral_constant<std::size_t, Special>()) || ...));
  return result;
}

template <std::size_t Count>
int long_list(call_context* context, const char* format, std::size_t special, passed type,
              const argument_values& v) {
  const auto positions = std::make_index_sequence<Count>();
  switch (type) {
    case passed::int_value:
      return one_special<int, 0>::call(context, format, v, std::make_index_sequence<Count>());
    case passed::long_long_value:
      return at_special<long long, Count>(context, format, special, v, positions);
    case passed::double_value:
      return at_special<double, Count>(context, format, special, v, positions);
    case passed::long_double_value:
      return at_special<long double, Count>(context, format, special, v, positions);
    case passed::pointer:
      return at_special<const void*, Count>(context, format, special, v, positions);
  }
  return -1;
}

template <std::size_t... Count>
int long_list_of(std::size_t count, call_context* context, const char* format, std::size_t special,
                 passed type, const argument_values& v, std::index_sequence<Count...>) {
  int result = -1;
  auto call_with = [&](auto length) {
    constexpr std::size_t n = most_mixed_arguments + 1 + decltype(length)::value;
    if (count != n) return false;
    result = long_list<n>(context, format, special, type, v);
    return true;
  };
  static_cast<void>((call_with(std::integral_constant<std::size_t, Count>()) || ...));
  return result;
}

// For a long list: the one argument that is not an int (its position and
// type), or false if more than one is not.
bool only_special(const passed* types, std::size_t count, std::size_t& special, passed& type) {
  special = 0;
  type = passed::int_value;
  for (std::size_t k = 0; k < count; ++k) {
    if (types[k] == passed::int_value) continue;
    if (type != passed::int_value) return false;
    special = k;
    type = types[k];
  }
  return true;
}

}  // namespace

bool has_shape(const passed* types, std::size_t count) {
  if (count <= most_mixed_arguments) return true;
  std::size_t special;
  passed type;
  return count <= most_arguments && only_special(types, count, special, type);
}

int call_with_shape(call_context* context, const char* format, const passed* types,
                    std::size_t count, const argument_values& values) {
  if (count <= most_mixed_arguments) return mixed(context, format, types, count, values);
  std::size_t special;
  passed type;
  if (count > most_arguments || !only_special(types, count, special, type)) return -1;
  return long_list_of(count, context, format, special, type, values,
                      std::make_index_sequence<most_arguments - most_mixed_arguments>());
}

}  // namespace fastout_fuzz
