/* SPDX-License-Identifier: MIT */
/* Which sanitizers a test build has, for C and C++ tests alike: GCC says
 * so with __SANITIZE_ADDRESS__, clang with __has_feature. Defines
 * FASTOUT_TEST_ASAN when AddressSanitizer (and with it LeakSanitizer) is
 * in the build. */
#ifndef FASTOUT_TEST_SANITIZERS_H_
#define FASTOUT_TEST_SANITIZERS_H_

#if defined(__SANITIZE_ADDRESS__)
#  define FASTOUT_TEST_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define FASTOUT_TEST_ASAN 1
#  endif
#endif

#endif /* FASTOUT_TEST_SANITIZERS_H_ */
