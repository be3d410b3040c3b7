// SPDX-License-Identifier: MIT
// Includes only the writer's header and calls print(), println() and <<:
// the compiler must stop with one error that names <fastout/print.h>, never
// leave the program to fail at the linker. With FASTOUT_TEST_WITH_PRINT_H
// it includes print.h too and must compile, so that the error above comes
// from the missing header and nothing else.
#include <fastout/file.h>
#ifdef FASTOUT_TEST_WITH_PRINT_H
#  include <fastout/print.h>
#endif

void write_report(fastout::file& out, int count) {
  out.print("{} items\n", count);
  out.println("{}", count);
  out << count << '\n';
}
