# SPDX-License-Identifier: MIT
# The CTest c_program_without_codecs: a build with neither codec links no
# compression engine into a C program, and refuses compression as the
# engine would without the codecs. CI's builds have both codecs, so the
# program (c_program_without_codecs.cpp) is linked with the libfastout-c
# such a build makes: this build's objects but the engine's, and what
# fastout_add_loaded_compression() adds with no codec (test/CMakeLists.txt).
# That stands for a build without codecs only while no other source of
# src/ asks which codecs there are: checked here first.
#
#   cmake -DNM=<nm> -DPROGRAM=<program> -DSOURCE_DIR=<fastout's source tree>
#         -DWORK_DIR=<an empty directory to write in> -P c_program_without_codecs.cmake
foreach(var NM PROGRAM SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "usage: cmake -DNM=<nm> -DPROGRAM=<program> -DSOURCE_DIR=<source tree> "
                        "-DWORK_DIR=<directory> -P c_program_without_codecs.cmake")
  endif()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/compression_engine_check.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/program_symbols.cmake)

# Only the engine's own sources ask: the rest compiles the same with or
# without codecs, so this build's objects of it are a codec-less build's.
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}/src ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.h)
set(engine_sources "^stages/(compression_|codec_loading|zstd_encoder|bgzf_encoder)|^platform/unix/shared_libraries")
foreach(source ${sources})
  if(source MATCHES "${engine_sources}")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/src/${source} asking REGEX "^[ \t]*#[ \t]*(if|elif).*FASTOUT_(HAVE_ZSTD|HAVE_LIBDEFLATE|LOAD_CODECS)")
  if(asking)
    message(FATAL_ERROR "src/${source} asks which codecs the build has (${asking}): "
                        "c_program_without_codecs then needs a libfastout-c compiled without them")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${PROGRAM} ${WORK_DIR} RESULT_VARIABLE result OUTPUT_VARIABLE output
                ERROR_VARIABLE error)
message(STATUS "exit: ${result}\nstandard output: ${output}\nstandard error: ${error}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the program failed (${result})")
endif()
# The refusals, as every build without the codecs words them: the
# engine's (compression_internal.h's compiled_out_message()), spelled out.
set(expected "c: refused, ENOTSUP, available 0\n")
foreach(pair "zstd;libzstd" "gzip;libdeflate")
  list(GET pair 0 format)
  list(GET pair 1 library)
  string(APPEND expected "c++: 1: cannot write \"${WORK_DIR}/out\" compressed with ${format}: this "
                         "fastout was built without ${library} (install it, e.g. Debian's "
                         "${library}-dev, and rebuild fastout): Operation not supported\n")
endforeach()
if(NOT output STREQUAL expected)
  message(FATAL_ERROR "the program printed\n${output}\nnot\n${expected}")
endif()
file(READ ${WORK_DIR}/plain.txt plain)
if(NOT plain STREQUAL "plain 1\n")
  message(FATAL_ERROR "plain.txt holds '${plain}', not 'plain 1'")
endif()
foreach(refused c.zst out)
  if(EXISTS ${WORK_DIR}/${refused})
    message(FATAL_ERROR "a refused open left ${WORK_DIR}/${refused}")
  endif()
endforeach()

read_program_symbols(${PROGRAM} fastout_printf symbols)
fail_if_compression_engine("${symbols}" "${PROGRAM}")
message(STATUS "${PROGRAM}: refused as without the codecs, and no compression engine")
