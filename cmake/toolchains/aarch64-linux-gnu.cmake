# SPDX-License-Identifier: MIT
# Cross-builds fastout for Linux on 64-bit ARM (aarch64) on a Debian or
# Ubuntu x86-64 machine, and runs what it builds under qemu:
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# scripts/test --target aarch64 builds and tests with it. It needs Debian's
# cross compilers (g++-aarch64-linux-gnu, gcc-aarch64-linux-gnu) and the
# target's libraries as multiarch packages (libfmt-dev:arm64, and
# libgtest-dev:arm64, libzstd-dev:arm64, libdeflate-dev:arm64 as wanted,
# after `dpkg --add-architecture arm64`); pkgconf:arm64 for their .pc files
# and qemu-user-static to run the tests. scripts/install-deps --target
# aarch64 installs them all (docs/install.md, "Cross-building").
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's multiarch layout needs no sysroot: the target's libraries and
# their CMake packages are in /usr/lib/aarch64-linux-gnu, which
# CMAKE_LIBRARY_ARCHITECTURE makes CMake search (and never the host's
# /usr/lib/x86_64-linux-gnu); the headers are in /usr/include beside the
# host's, and the cross compiler's own C and C++ libraries in
# /usr/aarch64-linux-gnu, the find root. Programs (zstd, gzip, bgzip, sh,
# qemu) are the host's.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# pkg-config must read the target's .pc files: Debian's
# aarch64-linux-gnu-pkg-config (pkgconf:arm64) does; without it, the host's
# pkg-config is pointed at them alone.
find_program(FASTOUT_AARCH64_PKG_CONFIG aarch64-linux-gnu-pkg-config)
if(FASTOUT_AARCH64_PKG_CONFIG)
  set(PKG_CONFIG_EXECUTABLE ${FASTOUT_AARCH64_PKG_CONFIG} CACHE FILEPATH "pkg-config for aarch64")
else()
  set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
endif()

# What runs a built program here: CMake uses it for add_test() of a target
# and gtest_discover_tests(), and fastout's tests for every program they
# start (fastout_test_emulator in the top-level CMakeLists.txt). Not
# `-L /usr/aarch64-linux-gnu`: with it, qemu 7.2 makes every forked child
# spin forever; libc6:arm64 provides the loader at /lib/ld-linux-aarch64.so.1.
# Without qemu the library still builds; the tests cannot run.
find_program(FASTOUT_QEMU_AARCH64 qemu-aarch64-static)
if(FASTOUT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${FASTOUT_QEMU_AARCH64})
endif()
