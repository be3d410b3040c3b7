/* SPDX-License-Identifier: MIT */
/* The C API's stdio names, compiled by test/CMakeLists.txt as C (C99, C11)
 * and as C++ (C++98, C++17), by gcc and clang, with strict warnings as
 * errors. This release's calls compile cleanly; each of 0.2.0's three forms
 * (FASTOUT_TEST_OLD_PUTS, _PRINTF, _VPRINTF) compiles to the same call as
 * before but is a -Wdeprecated-declarations warning, an error here, whose
 * message names the call to use. */
#include <fastout/c_api.h>

#include <stdio.h> /* SEEK_SET, SEEK_END, EOF */

int use_the_names(fastout_file* out, va_list args, va_list more);

int use_the_names(fastout_file* out, va_list args, va_list more) {
#if defined(FASTOUT_TEST_OLD_PUTS)
  (void)args;
  (void)more;
  return fastout_puts("text", out);
#elif defined(FASTOUT_TEST_OLD_PRINTF)
  (void)args;
  (void)more;
  return fastout_printf(out, "%d", 1);
#elif defined(FASTOUT_TEST_OLD_VPRINTF)
  (void)more;
  return fastout_vprintf(out, "%d", args);
#else
  int result = fastout_putchar('c');
  result += fastout_puts("text");
  result += fastout_printf("%d\n", 1);
  result += fastout_printf("no arguments\n");
  result += fastout_vprintf("%d", args);
  result += fastout_fputs("text", out);
  result += fastout_fprintf(out, "%s", "x");
  result += fastout_fprintf(fastout_stdout(), "%s", "x");
  result += fastout_vfprintf(out, "%d", more);
  result += fastout_fseek(out, 0L, SEEK_SET);
  result += fastout_fseeko(out, 0, SEEK_END);
  if (fastout_ftell(out) < 0L || fastout_ftello(out) < 0) result = EOF;
  fastout_rewind(out);
  result += fastout_set_error_handler(fastout_silent_error_handler, out);
  return result;
#endif
}
