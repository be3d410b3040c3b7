# SPDX-License-Identifier: MIT
# The CTest c_program_link: a program linked as C programs link
# libfastout-c (c_program_link.cpp) carries libfastout-c's terminate
# handler, not libstdc++'s verbose one, whose demangler is 51 KB of every
# static C program and a page the loader relocates at every start
# (docs/c-api.md, "What each way costs"); and the handler still says what
# libstdc++'s says -- the exception's type and what() -- then aborts. It
# carries no replace stage (the C API cannot ask for one; the C++ API's
# request is refused), and the buffer reserve is the last of the program's
# zero-initialized data. In a build with zstd, a zstd writer whose library
# cannot be loaded is refused with the loader's reason.
#
#   cmake -DNM=<nm> -DPROGRAM=<c_program_link> [-DHAVE_ZSTD=ON] -P c_program_link.cmake
if(NOT NM OR NOT PROGRAM)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DPROGRAM=<program> -P c_program_link.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/demangler_check.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/program_symbols.cmake)

get_filename_component(directory "${PROGRAM}" DIRECTORY)
# With zstd (HAVE_ZSTD), a library that is not there: the open's refusal
# must name it and say why it did not load.
set(zstd_argument "")
set(zstd_line "")
if(HAVE_ZSTD)
  set(zstd_argument zstd)
  set(zstd_line "zstd: cannot write \"[^\n]*/unloadable.zst\" compressed with zstd: [^\n]*/no-such-directory/libzstd.so.1[^\n]*No such file or directory[^\n]*\n")
endif()
set(ENV{FASTOUT_ZSTD_LIBRARY} ${directory}/no-such-directory/libzstd.so.1)
execute_process(COMMAND ${PROGRAM} ${directory} ${zstd_argument} RESULT_VARIABLE result
                OUTPUT_VARIABLE output ERROR_VARIABLE error)
message(STATUS "exit: ${result}\nstandard output: ${output}\nstandard error: ${error}")
# The replacement refused, naming the path and why, the zstd writer's
# refusal, then the line before the exception.
if(NOT output MATCHES "^replace: cannot open \"[^\n]*/replaced\": replace, sync, sync_directory and preallocate are not in libfastout-c, the C API's library; a C\\+\\+ program links libfastout: [^\n]+\n${zstd_line}before the exception\n$")
  message(FATAL_ERROR "the program did not write its lines before the exception: '${output}'")
endif()
# The type as the compiler names it (no demangler in the program), then
# what(), as libstdc++'s handler words them.
set(expected "terminate called after throwing an instance of 'St13runtime_error'\n"
             "  what\\(\\):  an exception left a noexcept function\n")
string(CONCAT expected ${expected})
if(NOT error MATCHES "^${expected}$")
  message(FATAL_ERROR "standard error is not the handler's report:\n${error}")
endif()
# abort(): killed by SIGABRT, which execute_process reports as a string.
if(result MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the program exited with ${result}; it must abort")
endif()

read_program_symbols(${PROGRAM} fastout_puts symbols)
# Nor the replace stage: only its test of the options, needed().
if(symbols MATCHES "[0-9a-f]+ [Tt] (_ZN7fastout6detail22sync_and_replace_stage(9open_path|14for_descriptor)[A-Za-z_0-9]*)")
  message(FATAL_ERROR "${PROGRAM} carries the replace stage (${CMAKE_MATCH_1}), which the C API "
                      "cannot ask for")
endif()
fail_if_demangler("${symbols}" "${PROGRAM}")

# The buffer reserve (src/memory/buffer_memory.cpp) comes after every other
# zero-initialized variable, so that a small program's variables share the
# pages the program touches anyway: nothing but the linker's end markers
# after it.
execute_process(COMMAND ${NM} -n ${PROGRAM} OUTPUT_VARIABLE by_address)
# By its assembly name, or as a plain array in buffer_memory.cpp would be.
string(REGEX MATCH
       "[0-9a-f]+ [Bb] (fastout_detail_buffer_reserve|_ZN7fastout6detail12_GLOBAL__N_17reserveE)\n.*"
       after "${by_address}")
if(NOT after)
  message(FATAL_ERROR "no buffer reserve in ${PROGRAM}'s zero-initialized data")
endif()
# What follows the reserve's line (not REGEX REPLACE "^...": CMake applies
# the anchor again after each replacement).
string(FIND "${after}" "\n" line_end)
math(EXPR line_end "${line_end} + 1")
string(SUBSTRING "${after}" ${line_end} -1 after)
string(REGEX MATCHALL "[0-9a-f]+ [BbDdSsVv] [^\n]+" later "${after}")
foreach(entry ${later})
  if(NOT entry MATCHES " (_end|__end__|end|_bss_end__|__bss_end__|__end)$")
    message(FATAL_ERROR "${entry} comes after the buffer reserve in ${PROGRAM}: the reserve "
                        "must be the last of its zero-initialized data")
  endif()
endforeach()
