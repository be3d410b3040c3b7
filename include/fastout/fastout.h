// SPDX-License-Identifier: MIT
// fastout's C++ API, all of it: the header a C++ program includes.
//
//   #include <fastout/fastout.h>
//
//   auto out = fastout::output_file("out.txt");
//   out.print("{} {}\n", "answer", 42);
//   out.close();
//
// C programs include <fastout/c_api.h> instead. A C++ program that wants
// less may include one feature's header on its own, each of which includes
// what it needs: options.h (what a writer can be opened with), errors.h
// (its counters, its error report and the error handler), file.h (the
// writer), print.h (formatting), cursor.h, standard_streams.h, iostream.h,
// compression.h.
#ifndef FASTOUT_FASTOUT_H_
#define FASTOUT_FASTOUT_H_

// In C, this one error and nothing else: the C++ headers would add pages.
#ifndef __cplusplus
#  error "<fastout/fastout.h> is fastout's C++ API; a C program includes <fastout/c_api.h>"
#else
#  include <fastout/budget.h>
#  include <fastout/compression.h>
#  include <fastout/cursor.h>
#  include <fastout/errors.h>
#  include <fastout/file.h>
#  include <fastout/iostream.h>
#  include <fastout/options.h>
#  include <fastout/print.h>
#  include <fastout/standard_streams.h>
#endif

#endif  // FASTOUT_FASTOUT_H_
