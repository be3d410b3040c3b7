# SPDX-License-Identifier: MIT
# The Windows consumer (this folder): installs the Windows build under test
# into a prefix, builds main.cpp and main.c against it with the same
# toolchain, runs both under Wine in a fresh directory, and checks the files
# they leave: the UTF-8 names as Windows spells them, the bytes ("\n" only),
# nothing beside a replaced file, and the compressed file through the host's
# zstd when it has one.
#
#   cmake -DFASTOUT_BINARY_DIR=... -DWORK_DIR=... -DTOOLCHAIN=... -DPREFIX_PATH=...
#         -DEMULATOR=wine -DGENERATOR=... -P run.cmake
cmake_minimum_required(VERSION 3.16)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${output}")
  endif()
  set(run_output "${output}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/run)
run(${CMAKE_COMMAND} --install ${FASTOUT_BINARY_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN} -DCMAKE_PREFIX_PATH=${PREFIX_PATH}
    -Dfastout_DIR=${WORK_DIR}/prefix/lib/cmake/fastout -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(program consumer consumer_c)
  execute_process(COMMAND ${EMULATOR} ${WORK_DIR}/build/${program}.exe
                  WORKING_DIRECTORY ${WORK_DIR}/run RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  message(STATUS "${program}:\n${output}${errors}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${program}.exe failed (${result})")
  endif()
endforeach()

# What the programs left, seen from outside.
file(READ "${WORK_DIR}/run/résumé-日本.txt" content HEX)
if(NOT content STREQUAL "6e657720636f6e74656e740a")  # "new content\n"
  message(FATAL_ERROR "the replaced file holds ${content}")
endif()
file(READ "${WORK_DIR}/run/c-été.txt" content)
if(NOT content STREQUAL "42 lines\nend\nappended\n")
  message(FATAL_ERROR "the C program's file holds \"${content}\"")
endif()
file(GLOB left RELATIVE ${WORK_DIR}/run ${WORK_DIR}/run/*)
list(SORT left)
set(expected "c-été.txt;packed.txt.zst;résumé-日本.txt")
if(NOT left STREQUAL expected)
  message(FATAL_ERROR "the directory holds ${left}, not ${expected}")
endif()
find_program(zstd zstd)
if(zstd)
  run(${zstd} -dc ${WORK_DIR}/run/packed.txt.zst)
  string(LENGTH "${run_output}" length)
  if(NOT run_output MATCHES "^0 compressed\n1 compressed\n" OR NOT run_output MATCHES "99999 compressed\n$")
    message(FATAL_ERROR "packed.txt.zst does not decompress to what was written (${length} bytes)")
  endif()
endif()
message(STATUS "the Windows consumer's files are as they should be")
