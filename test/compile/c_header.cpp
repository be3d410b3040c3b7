// SPDX-License-Identifier: MIT
// The C header compiled as C++: test/CMakeLists.txt compiles this file with
// -std=c++98, 11, 17 and 20 and strict warnings as errors (old-style casts,
// conversions, casts that drop const), so that C++ code can use the C API
// -- and share a writer with C code -- whatever its standard and flags.
#include <fastout/c_api.h>

int use_every_inline_function(fastout_file* f) {
  fastout_options options;
  fastout_options_init(&options);
  int result = fastout_putc('x', f);
  if (fastout_write("abc", 1, 3, f) != 3) return -1;
  result += fastout_fputs("text", f);
  result += fastout_fprintf(f, "%d %s\n", 1, "two");
  result += fastout_putchar('z');
  result += fastout_puts("line");
  result += fastout_printf("%d\n", 3);
  fastout_cursor cursor = fastout_cursor_begin(f);
  result += fastout_cursor_putc('y', &cursor);
  return result + fastout_cursor_end(cursor);
}
