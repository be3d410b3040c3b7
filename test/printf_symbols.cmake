# SPDX-License-Identifier: MIT
# The CTest printf_engine_uses_no_libc_formatter: the object files that make
# fastout_printf's engine (src/doors/printf*.cpp, all but printf_locale.cpp,
# the one allowed to ask the C library for the locale's forms) must not
# reference a C library formatter: no *printf* (snprintf, vsnprintf,
# vfprintf, sprintf, the fortified __*printf_chk, register_printf_*...), no
# fopencookie, no strfrom*, no *cvt. The CTest
# printf_engine_needs_no_libm_at_os gives it the engine compiled again at
# -Os too (SMALL_OBJECTS), which must reference no libm function.
#
#   cmake -DNM=<nm> -DOBJECTS=<the library's objects, ;-separated>
#         [-DSMALL_OBJECTS=<the engine's objects compiled at -Os>] -P printf_symbols.cmake
#
# It also checks that it looked at something: each of the engine's objects
# must be there, and printf_locale.cpp's must show snprintf, which proves
# that nm lists what the check is after.
if(NOT NM OR NOT OBJECTS)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DOBJECTS=<objects> -P printf_symbols.cmake")
endif()

set(forbidden "printf|fopencookie|^_?strfrom|^_?q?[efg]cvt")
# The engine: every src/doors/printf*.cpp but printf_locale.cpp.
set(expected_engine printf printf_call printf_float printf_format printf_output)

# The engine's objects among `objects`, which must be exactly the expected
# ones (`what` names the set in the message), and printf_locale.cpp's, if
# there.
function(engine_objects objects what out_engine out_locale)
  set(engine "")
  set(names "")
  set(locale "")
  foreach(object IN LISTS objects)
    get_filename_component(name "${object}" NAME)
    if(name MATCHES "^printf_locale\\.cpp\\.o(bj)?$")
      set(locale "${object}")
    elseif(name MATCHES "^(printf(_[a-z]+)?)\\.cpp\\.o(bj)?$")
      list(APPEND engine "${object}")
      list(APPEND names "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(SORT names)
  if(NOT names STREQUAL expected_engine)
    message(FATAL_ERROR "expected the engine's objects (${expected_engine}, each .cpp.o) in "
                        "${what}, found ${names}: ${engine}")
  endif()
  set(${out_engine} "${engine}" PARENT_SCOPE)
  set(${out_locale} "${locale}" PARENT_SCOPE)
endfunction()

engine_objects("${OBJECTS}" "the library" engine_objects locale_object)
list(LENGTH engine_objects count)
if(NOT locale_object)
  message(FATAL_ERROR "printf_locale.cpp's object is not among the library's objects")
endif()

# The symbols an object file references (undefined), one a line.
function(undefined_symbols object out)
  execute_process(COMMAND ${NM} -u "${object}"
                  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} -u ${object} failed: ${errors}")
  endif()
  string(REGEX REPLACE "[ \t]*U[ \t]+" "" listing "${listing}")
  string(REPLACE "\n" ";" listing "${listing}")
  set(symbols "")
  foreach(symbol IN LISTS listing)
    # glibc's versioned names (snprintf@GLIBC_2.2.5); C++ names (mangled,
    # _Z..., or __Z... where C names take an underscore) are fastout's and
    # the C++ library's, not C formatters.
    string(REGEX REPLACE "@.*$" "" symbol "${symbol}")
    if(symbol AND NOT symbol MATCHES "^_?_Z")
      list(APPEND symbols "${symbol}")
    endif()
  endforeach()
  set(${out} "${symbols}" PARENT_SCOPE)
endfunction()

undefined_symbols("${locale_object}" locale_symbols)
set(seen_snprintf FALSE)
foreach(symbol IN LISTS locale_symbols)
  if(symbol MATCHES "snprintf")
    set(seen_snprintf TRUE)
  endif()
endforeach()
if(NOT seen_snprintf)
  message(FATAL_ERROR "nm shows no snprintf in ${locale_object}, which calls it: "
                      "this check cannot see what it looks for (${locale_symbols})")
endif()

# "object: symbol" for each symbol of `objects` that matches `pattern`.
function(references_matching objects pattern out)
  set(found "")
  foreach(object IN LISTS objects)
    undefined_symbols("${object}" symbols)
    foreach(symbol IN LISTS symbols)
      if(symbol MATCHES "${pattern}")
        get_filename_component(name "${object}" NAME)
        list(APPEND found "${name}: ${symbol}")
      endif()
    endforeach()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

references_matching("${engine_objects}" "${forbidden}" found)
if(found)
  string(REPLACE ";" "\n  " found "${found}")
  message(FATAL_ERROR "the printf engine references C library formatters:\n  ${found}")
endif()
message(STATUS "the printf engine's ${count} objects reference no C library formatter")

# With SMALL_OBJECTS (the engine compiled at -Os): no libm function either,
# which a compiler calls where it does not inline it.
if(SMALL_OBJECTS)
  set(libm "^(floor|ceil|trunc|round|l?l?rint|nearbyint|pow|exp|exp2|expm1|log|log2|log10|log1p|sqrt|cbrt|frexp|ldexp|scalbn|modf|fmod|remainder|fabs)[fl]?$")
  engine_objects("${SMALL_OBJECTS}" "SMALL_OBJECTS" small_engine small_locale)
  references_matching("${small_engine}" "${libm}" found)
  if(found)
    string(REPLACE ";" "\n  " found "${found}")
    message(FATAL_ERROR "the printf engine at -Os references libm, which a C program "
                        "linking libfastout-c does not link:\n  ${found}")
  endif()
  message(STATUS "the printf engine at -Os references no libm function")
endif()
