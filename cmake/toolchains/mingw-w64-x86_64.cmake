# SPDX-License-Identifier: MIT
# Cross-building for 64-bit Windows with Debian's MinGW-w64 (the posix thread
# model: g++-mingw-w64-x86-64-posix, whose std::thread and std::mutex work):
#
#   cmake -S . -B build/windows -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
#
# Everything is linked statically (libgcc, libstdc++, winpthread), so that
# an .exe needs only KERNEL32 and msvcrt.dll, as a user's program would ship.
# CMAKE_CROSSCOMPILING_EMULATOR is wine when it is installed, so that CTest
# (and gtest_discover_tests) run the programs under Wine; scripts/windows/test
# sets up its prefix, and gives scripts/windows/wine-run instead. CMAKE_PREFIX_PATH may name prefixes built for Windows
# (scripts/windows/build-deps): they are searched as well as the compiler's.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(fastout_mingw_triple x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${fastout_mingw_triple}-gcc-posix)
set(CMAKE_CXX_COMPILER ${fastout_mingw_triple}-g++-posix)
set(CMAKE_RC_COMPILER ${fastout_mingw_triple}-windres)
set(CMAKE_AR ${fastout_mingw_triple}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${fastout_mingw_triple}-ranlib CACHE FILEPATH "")

set(CMAKE_FIND_ROOT_PATH /usr/${fastout_mingw_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Prefixes given with CMAKE_PREFIX_PATH are Windows builds too: search them
# where they are, not below the root path.
list(APPEND CMAKE_FIND_ROOT_PATH ${CMAKE_PREFIX_PATH})

# pkg-config reads only .pc files built for Windows: MinGW-w64's own and
# those of CMAKE_PREFIX_PATH (which CMake's FindPkgConfig adds), never the
# host's, whose libraries would be taken for the target's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/${fastout_mingw_triple}/lib/pkgconfig)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc -static-libstdc++")

# A CMAKE_CROSSCOMPILING_EMULATOR given on the command line is kept
# (scripts/windows/test gives scripts/windows/wine-run, which runs wine).
if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  find_program(fastout_wine NAMES wine wine64)
  if(fastout_wine)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${fastout_wine})
  endif()
endif()
