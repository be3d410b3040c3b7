# SPDX-License-Identifier: MIT
# Reads the built library's undefined symbols (`nm -u`): the posix platform
# layer must reach for nothing that only Linux has, whatever the compiler
# defines (g++ defines _GNU_SOURCE for C++ itself, so a macro proves
# nothing), and the linux layer must still use Linux's own calls -- which
# also shows that this test can fail. The windows layer must write with
# WriteFile, never with the C runtime's _write() (its lock, its int result,
# its O_APPEND by seeking, its text mode), and must reach for the Win32 calls
# its guarantees rest on.
#
#   cmake -DNM=... -DLIBRARY=... -DPLATFORM=linux|posix|windows -P platform_symbols.cmake
cmake_minimum_required(VERSION 3.16)  # IN_LIST in script mode
set(linux_only renameat2 sync_file_range pwritev2 fallocate fallocate64 getdents64 fopencookie
               memrchr getrandom strerrordesc_np strerrorname_np copy_file_range on_exit)
execute_process(COMMAND ${NM} -u ${LIBRARY} RESULT_VARIABLE result OUTPUT_VARIABLE output
                ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIBRARY} failed (${result}): ${errors}")
endif()
# "                 U renameat2@GLIBC_2.28" (a shared library), "U renameat2" (static).
string(REGEX MATCHALL "U [A-Za-z_0-9]+" undefined "${output}")
list(TRANSFORM undefined REPLACE "^U " "")
list(REMOVE_DUPLICATES undefined)
list(LENGTH undefined count)
if(count LESS 10)
  message(FATAL_ERROR "${NM} -u ${LIBRARY} lists only ${count} undefined symbols: not a library of ours?")
endif()
if(PLATFORM STREQUAL "windows")
  # A static MinGW library names a DLL's function as __imp_Name.
  set(crt_writes _write write __imp__write __imp_write _wopen __imp__wopen _open __imp__open
                 fopencookie)
  set(found "")
  foreach(symbol ${crt_writes} ${linux_only})
    if(symbol IN_LIST undefined)
      list(APPEND found ${symbol})
    endif()
  endforeach()
  if(found)
    string(REPLACE ";" ", " found "${found}")
    message(FATAL_ERROR "the windows platform layer's library calls ${found}")
  endif()
  foreach(expected WriteFile CreateFileW ReplaceFileW MoveFileExW WriteConsoleW FlushFileBuffers
                   LockFileEx GetFinalPathNameByHandleW _open_osfhandle _get_osfhandle)
    if(NOT expected IN_LIST undefined AND NOT __imp_${expected} IN_LIST undefined)
      message(FATAL_ERROR "the windows platform layer's library does not call ${expected}")
    endif()
  endforeach()
  message(STATUS "${count} undefined symbols: Win32's own calls, no C runtime write")
  return()
endif()
set(found "")
foreach(symbol ${linux_only})
  if(symbol IN_LIST undefined)
    list(APPEND found ${symbol})
  endif()
endforeach()
if(PLATFORM STREQUAL "posix")
  if(found)
    string(REPLACE ";" ", " found "${found}")
    message(FATAL_ERROR "the posix platform layer's library calls Linux-only functions: ${found}")
  endif()
  message(STATUS "${count} undefined symbols, none of them Linux-only (${linux_only})")
else()
  foreach(expected renameat2 sync_file_range pwritev2 fopencookie getrandom on_exit strerrorname_np)
    if(NOT expected IN_LIST found)
      message(FATAL_ERROR "the linux platform layer's library does not call ${expected}: "
                          "is this the linux layer, and does the test read its symbols?")
    endif()
  endforeach()
  string(REPLACE ";" ", " found "${found}")
  message(STATUS "the linux layer calls the Linux-only ${found}")
endif()
