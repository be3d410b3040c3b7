# SPDX-License-Identifier: MIT
# The CTest printf_corpus_is_the_generators_output: test/printf_corpus.txt is
# what test/printf_corpus_generator.c makes, where the glibc is the one the
# corpus was made with (its first line names it); elsewhere the test is
# skipped, saying so.
#
#   cmake [-DSKIP=<why>] -DGENERATOR=<the generator> -DCORPUS=<printf_corpus.txt> -DOUTPUT=<a file> \
#         -P printf_corpus_check.cmake
if(NOT GENERATOR OR NOT CORPUS OR NOT OUTPUT)
  message(FATAL_ERROR "usage: cmake -DGENERATOR=... -DCORPUS=... -DOUTPUT=... -P printf_corpus_check.cmake")
endif()
if(SKIP)
  message("skipped: ${SKIP}")
  return()
endif()
execute_process(COMMAND ${GENERATOR} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE status
                ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${GENERATOR} failed: ${errors}")
endif()
file(STRINGS ${OUTPUT} made LIMIT_COUNT 1)
file(STRINGS ${CORPUS} committed LIMIT_COUNT 1)
if(NOT made STREQUAL committed)
  message("skipped: the corpus was made with another glibc than this one:\n"
          "  committed: ${committed}\n  here:      ${made}")
  return()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUTPUT} ${CORPUS}
                RESULT_VARIABLE different)
if(different)
  message(FATAL_ERROR "${CORPUS} is not what ${GENERATOR} makes: run it again "
                      "(printf_corpus_generator > test/printf_corpus.txt) and commit the result")
endif()
message(STATUS "the corpus is the generator's output")
