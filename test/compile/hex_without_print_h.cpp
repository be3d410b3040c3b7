// SPDX-License-Identifier: MIT
// Includes only the writer's header and uses fastout::hex(): the compiler
// must stop with an error that names <fastout/print.h>, not say that hex is
// not a member of fastout. test/CMakeLists.txt compiles it once per form of
// use (FASTOUT_TEST_FORM: 1 keeps the value, 2 writes it with <<), and
// again with FASTOUT_TEST_WITH_PRINT_H, where it includes print.h too and
// must compile, so that the error comes from the missing header alone.
#include <fastout/file.h>
#ifdef FASTOUT_TEST_WITH_PRINT_H
#  include <fastout/print.h>
#endif

void write_mask(fastout::file& out, unsigned mask) {
#if FASTOUT_TEST_FORM == 1
  const auto digits = fastout::hex(mask);
  static_cast<void>(digits);
  static_cast<void>(out);
#elif FASTOUT_TEST_FORM == 2
  out << fastout::hex(mask) << '\n';
#else
#  error "FASTOUT_TEST_FORM must be 1 or 2"
#endif
}
