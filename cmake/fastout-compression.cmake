# SPDX-License-Identifier: MIT
# The codec libraries behind compressed output (include/fastout/compression.h),
# both optional: a user of the library alone needs only a compiler, CMake and
# {fmt}. Without libzstd, zstd is compiled out; without libdeflate, gzip is;
# a writer that asks for one then fails at open with ENOTSUP naming the
# library.
#
#   FASTOUT_ZSTD, FASTOUT_LIBDEFLATE   AUTO (the default: used when found),
#                                      ON (required) or OFF (never)
#
# Each is found through pkg-config (libzstd.pc, libdeflate.pc: Debian's
# libzstd-dev and libdeflate-dev), then through its CMake package
# (zstdConfig.cmake; libdeflateConfig.cmake from libdeflate 1.15 on), then
# by its header and library. fastout_add_compression(target) puts the
# engine into `target` -- or, when neither library is used, only
# src/stages/compression_absent.cpp, which refuses every format as the
# engine would without them, so that no program links an engine that could
# only refuse -- and sets, in the caller's scope:
#   FASTOUT_HAVE_ZSTD, FASTOUT_HAVE_LIBDEFLATE   ON or OFF
#   FASTOUT_ZSTD_LINK, FASTOUT_LIBDEFLATE_LINK   what to link (a target or paths)
#   FASTOUT_ZSTD_INCLUDE_DIRS, FASTOUT_LIBDEFLATE_INCLUDE_DIRS
#   FASTOUT_COMPRESSION_PC_REQUIRES              "libzstd libdeflate", as found
# and what the installed package files need (fastout.pc.in,
# fastout-config.cmake.in): a static libfastout's users link the codecs
# themselves, a shared one's do not.
#   FASTOUT_PC_CODEC_REQUIRES          ", libzstd, libdeflate" for Requires (static)
#   FASTOUT_PC_CODEC_REQUIRES_PRIVATE  the same, for Requires.private (shared)
#   FASTOUT_PC_CODEC_LIBS              " -l..." for Libs (static): a codec found
#                                      without pkg-config, and -pthread where needed
#   FASTOUT_PC_CODEC_LIBS_PRIVATE      the same, for Libs.private (shared)
#   FASTOUT_CONFIG_CODEC_DEPENDENCIES  find_dependency() lines for a static
#                                      libfastout whose codec is a CMake package's
#                                      target, which its export names

set(FASTOUT_ZSTD AUTO CACHE STRING "zstd output through libzstd: AUTO, ON or OFF")
set_property(CACHE FASTOUT_ZSTD PROPERTY STRINGS AUTO ON OFF)
set(FASTOUT_LIBDEFLATE AUTO CACHE STRING "gzip (BGZF) output through libdeflate: AUTO, ON or OFF")
set_property(CACHE FASTOUT_LIBDEFLATE PROPERTY STRINGS AUTO ON OFF)

# Finds one library. `name` is the prefix of the variables it sets
# (<name>_FOUND, <name>_LINK, <name>_INCLUDE_DIRS, <name>_PC).
macro(_fastout_find_codec name mode pc_module config_package config_targets header library)
  set(${name}_FOUND OFF)
  set(${name}_LINK "")
  set(${name}_INCLUDE_DIRS "")
  set(${name}_PC "")
  if(NOT ${mode} STREQUAL "OFF")
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(_fastout_pc_${name} QUIET ${pc_module})
    endif()
    if(_fastout_pc_${name}_FOUND AND _fastout_pc_${name}_LINK_LIBRARIES)
      # Full paths: a static libfastout's export then names the library
      # itself, not a target its users would have to define.
      set(${name}_FOUND ON)
      set(${name}_LINK ${_fastout_pc_${name}_LINK_LIBRARIES})
      set(${name}_INCLUDE_DIRS ${_fastout_pc_${name}_INCLUDE_DIRS})
      set(${name}_PC ${pc_module})
    else()
      find_package(${config_package} CONFIG QUIET)
      foreach(candidate ${config_targets})
        if(NOT ${name}_FOUND AND TARGET ${candidate})
          set(${name}_FOUND ON)
          set(${name}_LINK ${candidate})
        endif()
      endforeach()
      if(NOT ${name}_FOUND)
        find_path(_fastout_${name}_header ${header})
        find_library(_fastout_${name}_library ${library})
        if(_fastout_${name}_header AND _fastout_${name}_library)
          set(${name}_FOUND ON)
          set(${name}_LINK ${_fastout_${name}_library})
          set(${name}_INCLUDE_DIRS ${_fastout_${name}_header})
        endif()
      endif()
    endif()
    if(NOT ${name}_FOUND AND ${mode} STREQUAL "ON")
      message(FATAL_ERROR "FASTOUT_${name} is ON, but ${pc_module} was found neither through "
                          "pkg-config nor as a CMake package (Debian: apt-get install "
                          "${pc_module}-dev)")
    endif()
  endif()
endmacro()

# The encoder of one codec found (ZSTD or LIBDEFLATE): its source, the
# definition that says it is there, and its headers. Both ways of building
# the engine below add it.
function(_fastout_add_encoder target codec include_dirs)
  if(codec STREQUAL "ZSTD")
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/stages/zstd_encoder.cpp)
  else()
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/stages/bgzf_encoder.cpp)
  endif()
  target_compile_definitions(${target} PRIVATE FASTOUT_HAVE_${codec})
  target_include_directories(${target} SYSTEM PRIVATE ${include_dirs})
endfunction()

# The engine optimized for size (in every target of the directory that
# includes this file): it runs once a buffer of 64 KiB and more, and the
# codec does the work per byte. Measured with callgrind on a C program
# writing 300,000 lines compressed on the caller's thread: zstd +11,000 and
# gzip -5,000 instructions in 388 and 978 million; W18's static C program,
# which links the engine whether it compresses or not, 31 KB less text
# (289,761 -> 258,906 bytes).
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(
    ${PROJECT_SOURCE_DIR}/src/stages/compression_pipeline.cpp
    ${PROJECT_SOURCE_DIR}/src/stages/compression_stage.cpp
    ${PROJECT_SOURCE_DIR}/src/stages/compression_pool.cpp
    ${PROJECT_SOURCE_DIR}/src/stages/codec_loading.cpp
    ${PROJECT_SOURCE_DIR}/src/stages/zstd_encoder.cpp
    ${PROJECT_SOURCE_DIR}/src/stages/bgzf_encoder.cpp
    PROPERTIES COMPILE_OPTIONS -Os)
endif()

# The engine's sources common to both ways of building it below, or with
# neither codec (`have_zstd` and `have_libdeflate` OFF) compression_absent.cpp
# in its place; the pool's size (compression_pool_size.cpp) either way.
function(_fastout_add_engine target have_zstd have_libdeflate)
  set(stages ${PROJECT_SOURCE_DIR}/src/stages)
  if(have_zstd OR have_libdeflate)
    target_sources(${target} PRIVATE ${stages}/compression_pipeline.cpp
                                     ${stages}/compression_pool.cpp
                                     ${stages}/compression_stage.cpp)
  else()
    target_sources(${target} PRIVATE ${stages}/compression_absent.cpp)
  endif()
  target_sources(${target} PRIVATE ${stages}/compression_pool_size.cpp)
endfunction()

function(fastout_add_compression target)
  _fastout_find_codec(ZSTD ${FASTOUT_ZSTD} libzstd zstd
                      "zstd::libzstd_shared;zstd::libzstd_static" zstd.h zstd)
  _fastout_find_codec(LIBDEFLATE ${FASTOUT_LIBDEFLATE} libdeflate libdeflate
                      "libdeflate::libdeflate_shared;libdeflate::libdeflate_static"
                      libdeflate.h deflate)
  _fastout_add_engine(${target} ${ZSTD_FOUND} ${LIBDEFLATE_FOUND})
  # Worker threads: pthread_create. glibc 2.34 and later has it in libc
  # (CMAKE_THREAD_LIBS_INIT is empty); older ones need -pthread, linked as a
  # flag rather than Threads::Threads, a target a static libfastout's users
  # would have to define.
  find_package(Threads REQUIRED)
  if(CMAKE_THREAD_LIBS_INIT)
    target_link_libraries(${target} PRIVATE ${CMAKE_THREAD_LIBS_INIT})
  endif()
  set(requires "")
  foreach(codec ZSTD LIBDEFLATE)
    if(${codec}_FOUND)
      _fastout_add_encoder(${target} ${codec} "${${codec}_INCLUDE_DIRS}")
      target_link_libraries(${target} PRIVATE ${${codec}_LINK})
      list(APPEND requires ${${codec}_PC})
      message(STATUS "fastout: ${codec} output with ${${codec}_LINK}")
    else()
      message(STATUS "fastout: no ${codec} output (FASTOUT_${codec}=${FASTOUT_${codec}})")
    endif()
    set(FASTOUT_HAVE_${codec} ${${codec}_FOUND} PARENT_SCOPE)
    set(FASTOUT_${codec}_LINK ${${codec}_LINK} PARENT_SCOPE)
    set(FASTOUT_${codec}_INCLUDE_DIRS ${${codec}_INCLUDE_DIRS} PARENT_SCOPE)
  endforeach()
  string(REPLACE ";" " " requires "${requires}")
  set(FASTOUT_COMPRESSION_PC_REQUIRES "${requires}" PARENT_SCOPE)

  # The installed package files. A static libfastout has the codecs in its
  # link interface: its users link them (pkg-config's public Requires and
  # Libs; the CMake export names the libraries, or the codec's own target,
  # which then needs its package found). A shared one names them itself
  # (DT_NEEDED), so pkg-config lists them as private, for --static only.
  set(pc_requires "")
  set(pc_libs "")
  set(config_dependencies "")
  foreach(codec ZSTD LIBDEFLATE)
    if(NOT ${codec}_FOUND)
      continue()
    endif()
    if(${codec}_PC)
      string(APPEND pc_requires ", ${${codec}_PC}")
    else()
      foreach(item ${${codec}_LINK})
        if(TARGET ${item})
          # A CMake package's imported target: its file, for pkg-config.
          get_target_property(location ${item} IMPORTED_LOCATION)
          if(NOT location)
            get_target_property(configurations ${item} IMPORTED_CONFIGURATIONS)
            list(GET configurations 0 first)
            get_target_property(location ${item} IMPORTED_LOCATION_${first})
          endif()
          if(location)
            string(APPEND pc_libs " ${location}")
          endif()
          if(codec STREQUAL "ZSTD")
            string(APPEND config_dependencies "find_dependency(zstd CONFIG)\n")
          else()
            string(APPEND config_dependencies "find_dependency(libdeflate CONFIG)\n")
          endif()
        else()
          string(APPEND pc_libs " ${item}")
        endif()
      endforeach()
    endif()
  endforeach()
  if(CMAKE_THREAD_LIBS_INIT)
    string(APPEND pc_libs " ${CMAKE_THREAD_LIBS_INIT}")
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    set(FASTOUT_PC_CODEC_REQUIRES "${pc_requires}" PARENT_SCOPE)
    set(FASTOUT_PC_CODEC_REQUIRES_PRIVATE "" PARENT_SCOPE)
    set(FASTOUT_PC_CODEC_LIBS "${pc_libs}" PARENT_SCOPE)
    set(FASTOUT_PC_CODEC_LIBS_PRIVATE "" PARENT_SCOPE)
    set(FASTOUT_CONFIG_CODEC_DEPENDENCIES "${config_dependencies}" PARENT_SCOPE)
  else()
    string(REGEX REPLACE "^, " "" pc_requires "${pc_requires}")
    set(FASTOUT_PC_CODEC_REQUIRES "" PARENT_SCOPE)
    set(FASTOUT_PC_CODEC_REQUIRES_PRIVATE "${pc_requires}" PARENT_SCOPE)
    set(FASTOUT_PC_CODEC_LIBS "" PARENT_SCOPE)
    set(FASTOUT_PC_CODEC_LIBS_PRIVATE "${pc_libs}" PARENT_SCOPE)
    set(FASTOUT_CONFIG_CODEC_DEPENDENCIES "" PARENT_SCOPE)
  endif()
endfunction()

# The same engine for a target that loads the codecs when first needed
# (libfastout-c on Unix, src/stages/codec_loading_internal.h): the codecs'
# headers, as fastout_add_compression() found them (call that first), but
# not their libraries; dlopen()'s library (CMAKE_DL_LIBS: empty where the C
# library has it) instead. With neither codec found, no loader either: there
# is nothing to load.
function(fastout_add_loaded_compression target)
  _fastout_add_engine(${target} "${FASTOUT_HAVE_ZSTD}" "${FASTOUT_HAVE_LIBDEFLATE}")
  if(FASTOUT_HAVE_ZSTD OR FASTOUT_HAVE_LIBDEFLATE)
    target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/stages/codec_loading.cpp
                                     ${PROJECT_SOURCE_DIR}/src/platform/unix/shared_libraries.cpp)
  endif()
  target_compile_definitions(${target} PRIVATE FASTOUT_LOAD_CODECS)
  if(CMAKE_THREAD_LIBS_INIT)
    target_link_libraries(${target} PRIVATE ${CMAKE_THREAD_LIBS_INIT})
  endif()
  if(CMAKE_DL_LIBS)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
  foreach(codec ZSTD LIBDEFLATE)
    if(FASTOUT_HAVE_${codec})
      _fastout_add_encoder(${target} ${codec} "${FASTOUT_${codec}_INCLUDE_DIRS}")
      foreach(item ${FASTOUT_${codec}_LINK})
        if(TARGET ${item})
          target_include_directories(${target} SYSTEM PRIVATE
            $<TARGET_PROPERTY:${item},INTERFACE_INCLUDE_DIRECTORIES>)
        endif()
      endforeach()
    endif()
  endforeach()
endfunction()
