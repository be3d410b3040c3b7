// SPDX-License-Identifier: MIT
// Loading a codec library when first needed (src/stages/codec_loading.cpp,
// which libfastout-c uses: FASTOUT_LOAD_CODECS): the functions are found in
// a library that has them, and a library that cannot be loaded, or lacks a
// function, gives a message naming the file (and the function) with
// dlerror()'s text. The library chosen through the environment variable
// replaces the default. A C program through libfastout-c meets the same
// failure as ENOTSUP at open (test/package/c_light.c).
#include "stages/codec_loading_internal.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace {

using fastout::detail::load_codec_library;

// libc is there on every Unix system, and has strlen.
#if defined(__APPLE__)
const char* const present_library = "libSystem.B.dylib";
#else
const char* const present_library = "libc.so.6";
#endif
const char* const variable = "FASTOUT_TEST_CODEC_LIBRARY";

TEST(codec_loading, finds_the_functions) {
  unsetenv(variable);
  const char* const names[] = {"strlen", "memcpy"};
  void* functions[2] = {nullptr, nullptr};
  std::string problem;
  ASSERT_TRUE(load_codec_library(&present_library, 1, variable, names, functions, 2, problem))
      << problem;
  EXPECT_NE(functions[0], nullptr);
  EXPECT_NE(functions[1], nullptr);
  using strlen_function = std::size_t (*)(const char*);
  EXPECT_EQ(reinterpret_cast<strlen_function>(functions[0])("fastout"), 7u);
}

TEST(codec_loading, a_missing_library_is_named_with_the_loaders_reason) {
  unsetenv(variable);
  const char* const missing_library = "/nonexistent/libzstd.so.1";
  const char* const names[] = {"ZSTD_compress2"};
  void* functions[1] = {nullptr};
  std::string problem;
  EXPECT_FALSE(load_codec_library(&missing_library, 1, variable, names, functions, 1, problem));
  EXPECT_NE(problem.find("cannot load /nonexistent/libzstd.so.1 ("), std::string::npos) << problem;
  // dlerror() names the file too, and says why (glibc: "cannot open shared
  // object file: No such file or directory").
  EXPECT_NE(problem.find("/nonexistent/libzstd.so.1:"), std::string::npos) << problem;
}

TEST(codec_loading, a_missing_function_is_named) {
  unsetenv(variable);
  const char* const names[] = {"strlen", "ZSTD_no_such_function"};
  void* functions[2] = {nullptr, nullptr};
  std::string problem;
  EXPECT_FALSE(load_codec_library(&present_library, 1, variable, names, functions, 2, problem));
  EXPECT_NE(problem.find(std::string(present_library) + " has no ZSTD_no_such_function ("),
            std::string::npos)
      << problem;
}

TEST(codec_loading, the_first_file_that_loads_is_taken_and_every_one_tried_is_named) {
  unsetenv(variable);
  const char* const names[] = {"strlen"};
  void* functions[1] = {nullptr};
  std::string problem;
  const char* const first_missing[] = {"/nonexistent/libone.so", present_library};
  EXPECT_TRUE(load_codec_library(first_missing, 2, variable, names, functions, 1, problem))
      << problem;
  const char* const both_missing[] = {"/nonexistent/libone.so", "/nonexistent/libtwo.dylib"};
  EXPECT_FALSE(load_codec_library(both_missing, 2, variable, names, functions, 1, problem));
  EXPECT_NE(problem.find("cannot load /nonexistent/libone.so ("), std::string::npos) << problem;
  EXPECT_NE(problem.find(") or /nonexistent/libtwo.dylib ("), std::string::npos) << problem;
}

TEST(codec_loading, the_environment_chooses_the_library) {
  const char* const names[] = {"strlen"};
  void* functions[1] = {nullptr};
  std::string problem;
  setenv(variable, "/nonexistent/libchosen.so", 1);
  EXPECT_FALSE(load_codec_library(&present_library, 1, variable, names, functions, 1, problem));
  EXPECT_NE(problem.find("/nonexistent/libchosen.so"), std::string::npos) << problem;
  // Empty: the default.
  setenv(variable, "", 1);
  problem.clear();
  EXPECT_TRUE(load_codec_library(&present_library, 1, variable, names, functions, 1, problem))
      << problem;
  unsetenv(variable);
}

}  // namespace
