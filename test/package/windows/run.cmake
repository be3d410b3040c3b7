# SPDX-License-Identifier: MIT
# The Windows consumer (this folder): installs the Windows build under test
# into a prefix and builds main.cpp and main.c against it with the same
# toolchain, each twice: with find_package() (CMakeLists.txt here), and the
# way docs/install.md and docs/c-api.md say without CMake, the compiler's
# own command line with `pkg-config --static --cflags --libs fastout` (and
# -static, so that the programs need only KERNEL32 and msvcrt.dll). It runs
# each pair under Wine in a fresh directory and checks the files they leave:
# the UTF-8 names as Windows spells them, the bytes ("\n" only), nothing
# beside a replaced file, and the compressed file through the host's zstd
# when it has one. Every library the installed CMake package names for a
# static libfastout's users (bcrypt, ...) must be in fastout.pc too.
#
#   cmake -DFASTOUT_BINARY_DIR=... -DWORK_DIR=... -DTOOLCHAIN=... -DPREFIX_PATH=...
#         -DEMULATOR=wine -DGENERATOR=... -DC_COMPILER=... -DCXX_COMPILER=...
#         -DPKG_CONFIG=... -P run.cmake
#
# PREFIX_PATH is where the dependencies built for Windows are (their CMake
# packages and .pc files); PKG_CONFIG is the host's pkg-config, which reads
# only the .pc files of the prefix and of PREFIX_PATH (PKG_CONFIG_LIBDIR).
cmake_minimum_required(VERSION 3.16)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${output}")
  endif()
  set(run_output "${output}" PARENT_SCOPE)
endfunction()

# Runs the two programs `cxx_program` and `c_program` in the fresh directory
# `dir` and checks what they left there.
function(run_consumers how cxx_program c_program dir)
  file(MAKE_DIRECTORY ${dir})
  foreach(program ${cxx_program} ${c_program})
    execute_process(COMMAND ${EMULATOR} ${program}
                    WORKING_DIRECTORY ${dir} RESULT_VARIABLE result
                    OUTPUT_VARIABLE output ERROR_VARIABLE errors)
    message(STATUS "${program} (${how}):\n${output}${errors}")
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "${program} (${how}) failed (${result})")
    endif()
  endforeach()

  # What the programs left, seen from outside.
  file(READ "${dir}/résumé-日本.txt" content HEX)
  if(NOT content STREQUAL "6e657720636f6e74656e740a")  # "new content\n"
    message(FATAL_ERROR "${how}: the replaced file holds ${content}")
  endif()
  file(READ "${dir}/c-été.txt" content)
  if(NOT content STREQUAL "42 lines\nend\nappended\n")
    message(FATAL_ERROR "${how}: the C program's file holds \"${content}\"")
  endif()
  file(GLOB left RELATIVE ${dir} ${dir}/*)
  list(SORT left)
  set(expected "c-été.txt;packed.txt.zst;résumé-日本.txt")
  if(NOT left STREQUAL expected)
    message(FATAL_ERROR "${how}: the directory holds ${left}, not ${expected}")
  endif()
  find_program(zstd zstd)
  if(zstd)
    run(${zstd} -dc ${dir}/packed.txt.zst)
    string(LENGTH "${run_output}" length)
    if(NOT run_output MATCHES "^0 compressed\n1 compressed\n" OR
       NOT run_output MATCHES "99999 compressed\n$")
      message(FATAL_ERROR "${how}: packed.txt.zst does not decompress to what was written "
                          "(${length} bytes)")
    endif()
  endif()
  message(STATUS "${how}: the Windows consumer's files are as they should be")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${FASTOUT_BINARY_DIR} --prefix ${prefix})

# find_package().
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN} -DCMAKE_PREFIX_PATH=${PREFIX_PATH}
    -Dfastout_DIR=${prefix}/lib/cmake/fastout -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_consumers(find_package ${WORK_DIR}/build/consumer.exe ${WORK_DIR}/build/consumer_c.exe
              ${WORK_DIR}/run)

# pkg-config, reading only the .pc files built for Windows.
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config is not installed (scripts/install-deps installs it)")
endif()
file(GLOB_RECURSE pc_file ${prefix}/fastout.pc)
if(NOT pc_file)
  message(FATAL_ERROR "the install put no fastout.pc under ${prefix}")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)
set(pc_dirs ${pc_dir})
foreach(dependencies ${PREFIX_PATH})
  list(APPEND pc_dirs ${dependencies}/lib/pkgconfig)
endforeach()
string(REPLACE ";" ":" pc_dirs "${pc_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${pc_dirs}")
unset(ENV{PKG_CONFIG_PATH})
run(${PKG_CONFIG} --static --cflags --libs fastout)
string(STRIP "${run_output}" pc_flags)
message(STATUS "pkg-config --static --cflags --libs fastout: ${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")

# What the CMake package asks a static libfastout's users to link by name
# ($<LINK_ONLY:bcrypt>): fastout.pc must say the same.
file(GLOB_RECURSE targets_file ${prefix}/fastout-targets.cmake)
file(STRINGS ${targets_file} link_line REGEX "INTERFACE_LINK_LIBRARIES")
string(REGEX MATCHALL "LINK_ONLY:[A-Za-z0-9_]+>" named "${link_line}")
foreach(item ${named})
  string(REGEX REPLACE "LINK_ONLY:([A-Za-z0-9_]+)>" "-l\\1" flag "${item}")
  if(NOT flag IN_LIST pc_flags)
    message(FATAL_ERROR "the CMake package links ${flag}, and pkg-config --static --libs "
                        "fastout does not: ${pc_flags}")
  endif()
endforeach()

set(pc_build ${WORK_DIR}/pkg-config)
file(MAKE_DIRECTORY ${pc_build})
run(${CXX_COMPILER} -std=c++17 -O2 ${CMAKE_CURRENT_LIST_DIR}/main.cpp ${pc_flags} -static
    -o ${pc_build}/consumer.exe)
run(${C_COMPILER} -std=c99 -O2 ${CMAKE_CURRENT_LIST_DIR}/main.c ${pc_flags} -static
    -o ${pc_build}/consumer_c.exe)
run_consumers(pkg-config ${pc_build}/consumer.exe ${pc_build}/consumer_c.exe
              ${WORK_DIR}/run-pkg-config)
