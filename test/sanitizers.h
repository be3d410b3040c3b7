/* SPDX-License-Identifier: MIT */
/* Which sanitizers a test build has, for C and C++ tests alike: GCC says
 * so with __SANITIZE_ADDRESS__, clang with __has_feature. Defines
 * FASTOUT_TEST_ASAN when AddressSanitizer (and with it LeakSanitizer) is
 * in the build, FASTOUT_TEST_TSAN when ThreadSanitizer is. */
#ifndef FASTOUT_TEST_SANITIZERS_H_
#define FASTOUT_TEST_SANITIZERS_H_

#if defined(__SANITIZE_ADDRESS__)
#  define FASTOUT_TEST_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define FASTOUT_TEST_ASAN 1
#  endif
#endif

#if defined(__SANITIZE_THREAD__)
#  define FASTOUT_TEST_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define FASTOUT_TEST_TSAN 1
#  endif
#endif

/* Why a sweep of one thread's formatting through every buffer size is
 * skipped under ThreadSanitizer (FASTOUT_SKIP_UNDER_THREAD_SANITIZER in
 * print_test_util.h, C_TEST_SKIP_UNDER_THREAD_SANITIZER in c_test.h): TSan looks
 * for races between threads and these start none, while it makes them
 * several times slower -- they were more than a quarter of CI's TSan
 * stage (.ci/run).
 * The other stages run them, and under TSan the same programs' other tests
 * still run (with that stage's {fmt} and C++20). */
#define FASTOUT_TEST_SWEEP_NOT_UNDER_TSAN                                           \
  "not under ThreadSanitizer: this sweep starts no thread, so TSan has nothing to " \
  "check in it; every other CI stage runs it"

#endif /* FASTOUT_TEST_SANITIZERS_H_ */
