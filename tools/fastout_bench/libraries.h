// SPDX-License-Identifier: MIT
// fastout-bench: the optional libraries this build of the driver has,
// FASTOUT_BENCH_HAVE_<NAME>, 1 where tools/CMakeLists.txt found the library
// and 0 otherwise: zlib, htslib, libzstd and libdeflate, which the
// compressed workloads' contenders write with and their check reads with,
// and stb (stb_sprintf), a printf engine W6, W7 and W8 compare with.
#ifndef FASTOUT_BENCH_LIBRARIES_H_
#define FASTOUT_BENCH_LIBRARIES_H_

#ifndef FASTOUT_BENCH_HAVE_ZLIB
#  define FASTOUT_BENCH_HAVE_ZLIB 0
#endif
#ifndef FASTOUT_BENCH_HAVE_HTSLIB
#  define FASTOUT_BENCH_HAVE_HTSLIB 0
#endif
#ifndef FASTOUT_BENCH_HAVE_ZSTD
#  define FASTOUT_BENCH_HAVE_ZSTD 0
#endif
#ifndef FASTOUT_BENCH_HAVE_LIBDEFLATE
#  define FASTOUT_BENCH_HAVE_LIBDEFLATE 0
#endif

#ifndef FASTOUT_BENCH_HAVE_STB
#  define FASTOUT_BENCH_HAVE_STB 0
#endif

#endif  // FASTOUT_BENCH_LIBRARIES_H_
