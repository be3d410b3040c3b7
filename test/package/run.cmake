# SPDX-License-Identifier: MIT
# Proves that fastout can be used each way a user would: built and installed
# with the README's lines; installed and found with find_package() or
# pkg-config; built in with add_subdirectory() or FetchContent, also beside
# the parent project's own {fmt}.
#
# Run by CTest from the top-level CMakeLists.txt as
#   cmake -DMODE=<mode> -D... -P test/package/run.cmake
# with MODE one of:
#   install              cmake --install this build tree into PREFIX, check what landed
#   find_package         a CMake consumer of PREFIX (needs `install` first)
#   pkg_config           a plain compiler command line using `pkg-config fastout`
#   add_subdirectory     a CMake consumer that builds fastout from source, shared
#   find_package_shared  build and install fastout shared, then a CMake consumer;
#                        the SONAME is libfastout.so.MAJOR.MINOR while MAJOR is 0
# Each of these also builds and runs a C program (main.c) through the C API,
# with the C compiler: its CMake project (c/) enables C only, as a C
# program's would.
#   readme               the README's build-and-install line, as it stands there:
#                        configure, build, install into a prefix; then a consumer
#                        (skipped while the README has no such line)
#   embed_add_subdirectory  a parent project that adds {fmt} 12.1.0 and then
#                        fastout with add_subdirectory (embed/)
#   embed_fetchcontent   the same through FetchContent: {fmt} from its release
#                        tarball, fastout from a clone of this repository's HEAD
#                        (so it tests what is committed)
#   fmt_check            configure fastout against stand-ins for {fmt} 8.1.1 and
#                        13.0.0: refused, and accepted with FASTOUT_ALLOW_UNTESTED_FMT
#   fmt_check_installed  the same stand-ins for a consumer of PREFIX (needs `install`)
#   options              without GoogleTest, a plain configure works and asking
#                        for the tests fails with one message
#   platform             the platform layer a configure chooses (linux, posix for
#                        another Unix system or C library), and one message for
#                        a system fastout does not run on
#   versions             CMake's version, the version macros, the installed
#                        fastout.pc and package version file, and the CHANGELOG's
#                        newest entry agree (needs `install`)
# A cross-compiled build under test (scripts/test --target aarch64) gives
# TOOLCHAIN_FILE, its CMAKE_TOOLCHAIN_FILE, with which every consumer is
# configured (the compilers, where the target's libraries are), EMULATOR,
# its CMAKE_CROSSCOMPILING_EMULATOR (words separated by commas), through
# which every consumer program is run, and PKG_CONFIG, the pkg-config that
# reads the target's .pc files; each is empty or absent for a native build.
# CODECS ("zstd,gzip", as the build under test found them) is what every
# consumer must report it can compress with: a static libfastout's users
# link libzstd and libdeflate through fastout.pc or the CMake package.
# Every consumer uses the {fmt} the build under test found: FMT_DIR (its
# fmt_DIR) for CMake, and the fmt.pc beside it for pkg-config; FMT_VERSION is
# the version it must see. The embed_* modes use {fmt} 12.1.0 from
# $FASTOUT_FMT_SOURCES (default: shared/fmt beside the repository, as
# scripts/build-fmt), and say "run.cmake: skipped: " when it is not there.
# Everything happens under WORK_DIR/<mode>; nothing outside it is touched.
cmake_minimum_required(VERSION 3.16)

foreach(var MODE FASTOUT_SOURCE_DIR FASTOUT_BINARY_DIR WORK_DIR PREFIX INSTALL_LIBDIR
            FASTOUT_VERSION GENERATOR C_COMPILER CXX_COMPILER CXX_STANDARD FMT_DIR FMT_VERSION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake needs -D${var}=...")
  endif()
endforeach()

set(consumers ${CMAKE_CURRENT_LIST_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../demangler_check.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/../compression_engine_check.cmake)
set(dir ${WORK_DIR}/${MODE})

# Runs a command; on failure, shows its output and stops the test.
function(run)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "+ ${shown}")
  execute_process(COMMAND ${ARGN}
                  RESULT_VARIABLE result
                  OUTPUT_VARIABLE output
                  ERROR_VARIABLE output
                  TIMEOUT 300)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "failed (${result}): ${shown}\n${output}")
  endif()
  set(run_output "${output}" PARENT_SCOPE)
endfunction()

# A build of a consumer must link what a sanitized fastout needs.
set(sanitize_flags "")
set(sanitize_link_flags "")
if(SANITIZE)
  string(REPLACE ";" "," sanitizers "${SANITIZE}")
  set(sanitize_flags "-fsanitize=${sanitizers} -fno-omit-frame-pointer")
  set(sanitize_link_flags "-fsanitize=${sanitizers}")
endif()

# A cross-compiled build's toolchain and emulator (above).
set(toolchain_args "")
if(TOOLCHAIN_FILE)
  set(toolchain_args -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE})
endif()
string(REPLACE "," ";" emulator "${EMULATOR}")
# The build's pkg-config (PKG_CONFIG), or the one on PATH.
if(NOT PKG_CONFIG)
  unset(PKG_CONFIG CACHE)
  unset(PKG_CONFIG)
  find_program(PKG_CONFIG pkg-config)
endif()

# The configure arguments every CMake project here gets: the same
# generator, toolchain, compilers and C++ standard as the build under test.
set(common_args
  -G ${GENERATOR}
  ${toolchain_args}
  -DCMAKE_C_COMPILER=${C_COMPILER}
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  -DCMAKE_CXX_STANDARD=${CXX_STANDARD}
  "-DCMAKE_C_FLAGS=${sanitize_flags}"
  "-DCMAKE_CXX_FLAGS=${sanitize_flags}"
  "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_link_flags}"
  "-DCMAKE_SHARED_LINKER_FLAGS=${sanitize_link_flags}")
if(MAKE_PROGRAM)
  list(APPEND common_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

# The same {fmt} as the build under test, which may be one in a prefix of
# its own (scripts/test --fmt) rather than the system's.
set(fmt_args -Dfmt_DIR=${FMT_DIR})

# A fastout built here from source has the codecs of the build under test,
# whose consumers then compress with CODECS: one it was built without is
# OFF, one it has is found (AUTO) as there.
set(codec_args "")
if(NOT CODECS MATCHES "zstd")
  list(APPEND codec_args -DFASTOUT_ZSTD=OFF)
endif()
if(NOT CODECS MATCHES "gzip")
  list(APPEND codec_args -DFASTOUT_LIBDEFLATE=OFF)
endif()

# What a configure of fastout says it found, as CODECS spells it
# ("zstd,gzip"), from its output `configure_output`.
function(codecs_configured configure_output out_var)
  set(found "")
  if(configure_output MATCHES "fastout: ZSTD output with")
    list(APPEND found zstd)
  endif()
  if(configure_output MATCHES "fastout: LIBDEFLATE output with")
    list(APPEND found gzip)
  endif()
  string(REPLACE ";" "," found "${found}")
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Runs a configure that must fail; stops the test unless it did. Leaves its
# output in `run_output` with each run of blanks and line breaks made one
# space, since CMake wraps the lines of its messages.
function(run_failing)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "+ ${shown} (must fail)")
  execute_process(COMMAND ${ARGN}
                  RESULT_VARIABLE result
                  OUTPUT_VARIABLE output
                  ERROR_VARIABLE output
                  TIMEOUT 300)
  if(result EQUAL 0)
    message(FATAL_ERROR "succeeded, but should have failed: ${shown}\n${output}")
  endif()
  string(REGEX REPLACE "[ \t\n]+" " " output "${output}")
  set(run_output "${output}" PARENT_SCOPE)
endfunction()

# Stops the test unless `text` occurs exactly `count` times in `output`.
function(expect_text output text count)
  string(FIND "${output}" "${text}" at)
  set(found 0)
  set(rest "${output}")
  while(NOT at EQUAL -1)
    math(EXPR found "${found} + 1")
    string(LENGTH "${text}" length)
    math(EXPR at "${at} + ${length}")
    string(SUBSTRING "${rest}" ${at} -1 rest)
    string(FIND "${rest}" "${text}" at)
  endwhile()
  if(NOT found EQUAL count)
    message(FATAL_ERROR "expected ${count} time(s), found ${found} time(s): \"${text}\" in:\n${output}")
  endif()
endfunction()

# Writes into `fake_dir` a stand-in for an installed {fmt} that claims
# `version`: a version file as fmt's own (any newer version satisfies a
# request) and a fmt::fmt with nothing in it. Enough to configure against.
function(write_fake_fmt fake_dir version)
  file(WRITE ${fake_dir}/fmt-config-version.cmake "set(PACKAGE_VERSION ${version})
if(PACKAGE_FIND_VERSION AND PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
")
  file(WRITE ${fake_dir}/fmt-config.cmake "if(NOT TARGET fmt::fmt)
  add_library(fmt::fmt INTERFACE IMPORTED)
endif()
")
endfunction()

# The message fastout fails with for an untested {fmt} (see
# cmake/fastout-fmt-version.cmake), and the warning it gives instead when
# FASTOUT_ALLOW_UNTESTED_FMT is ON.
function(untested_fmt_texts version fake_dir)
  set(refused "fastout supports {fmt} 9.1 to 12.x, but found {fmt} ${version} (in ${fake_dir})."
      PARENT_SCOPE)
  set(allowed "fastout is tested with {fmt} 9.1 to 12.x only, and this build uses {fmt} ${version} (in ${fake_dir}): going on because FASTOUT_ALLOW_UNTESTED_FMT is ON."
      PARENT_SCOPE)
endfunction()

# Configures, builds and runs the consumer project in test/package/<project>,
# with the {fmt} of `consumer_fmt_args` (by default that of the build under
# test).
set(consumer_fmt_args ${fmt_args})
function(build_and_run_consumer project build_dir)
  run(${CMAKE_COMMAND} -S ${consumers}/${project} -B ${build_dir} ${common_args}
      ${consumer_fmt_args} -DFASTOUT_VERSION=${FASTOUT_VERSION} ${ARGN})
  run(${CMAKE_COMMAND} --build ${build_dir})
  run_consumer(${build_dir}/consumer ${build_dir}/out.txt)
endfunction()

# Runs a consumer program (through the emulator of a cross-compiled build),
# which writes `output` (and, compressed, beside it), and checks what it says
# it can compress with against CODECS.
function(run_consumer program output)
  run(${emulator} ${program} ${output} ${FASTOUT_VERSION})
  message(STATUS "${run_output}")
  if(NOT run_output MATCHES "compression: \\[([a-z,]*)\\]")
    message(FATAL_ERROR "${program} did not say what it compresses with:\n${run_output}")
  endif()
  # Quoted: an empty group leaves CMAKE_MATCH_1 unset, which if() would
  # then take as the word itself.
  if(NOT "${CMAKE_MATCH_1}" STREQUAL "${CODECS}")
    message(FATAL_ERROR "${program} compresses with [${CMAKE_MATCH_1}], the library was built "
                        "with [${CODECS}]")
  endif()
  # What it wrote compressed decodes, with the formats' own programs, to
  # what it wrote plainly.
  string(REPLACE "," ";" codecs "${CODECS}")
  foreach(codec ${codecs})
    if(codec STREQUAL "zstd")
      set(suffix .zst)
    else()
      set(suffix .gz)
    endif()
    find_program(decoder ${codec})
    if(NOT decoder)
      message(STATUS "no ${codec} program: ${output}${suffix} not decoded")
      continue()
    endif()
    execute_process(COMMAND ${decoder} -dc ${output}${suffix}
                    OUTPUT_FILE ${output}.decoded RESULT_VARIABLE result ERROR_VARIABLE error)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "${codec} -dc ${output}${suffix} failed (${result}): ${error}")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${output} ${output}.decoded
                    RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "${output}${suffix} does not decode to ${output}")
    endif()
    unset(decoder CACHE)
  endforeach()
endfunction()

# A C program linked with libfastout-c (c_light.c) runs and writes the
# right bytes; with FASTOUT_ZSTD_LIBRARY naming a file that is not there
# (where the build has zstd), or in a build with no codec at all, a zstd
# writer is refused with ENOTSUP; and it needs nothing but the C library at
# run time -- no libstdc++, libgcc_s, libm, {fmt} or codec (readelf -d) --
# and carries no codec symbol, no std::ios_base::Init and no demangler
# (nm); with no codec (CODECS empty), none of the compression engine either.
# `library` is the shared libfastout-c it loads, checked the same way, or
# empty for a static one.
function(check_light_consumer program library)
  run(${emulator} ${program} ${program}.out)
  # stdio's stdout handed to fastout's writer and back, in order.
  if(NOT run_output MATCHES "synced: abc\nunsynced: d\n")
    message(FATAL_ERROR "${program}: stdio and fastout_stdout() out of order "
                        "through fastout_sync_with_stdio():\n${run_output}")
  endif()
  if(CODECS MATCHES "zstd")
    set(ENV{FASTOUT_ZSTD_LIBRARY} /nonexistent/libzstd.so.1)
    run(${emulator} ${program} ${program}.unloadable.out unloadable)
    unset(ENV{FASTOUT_ZSTD_LIBRARY})
    message(STATUS "${run_output}")
  elseif(CODECS STREQUAL "")
    run(${emulator} ${program} ${program}.unloadable.out unloadable)
    message(STATUS "${run_output}")
  endif()
  if(NOT READELF OR NOT NM)
    message(FATAL_ERROR "no readelf or nm to read ${program} with (binutils)")
  endif()
  foreach(file ${program} ${library})
    run(${READELF} -d ${file})
    string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${run_output}")
    foreach(entry ${needed})
      string(REGEX REPLACE ".*\\[(.*)\\]" "\\1" name "${entry}")
      if(NOT name MATCHES "^(libc\\.so|ld-linux|ld64\\.so|libfastout-c\\.so|libdl\\.so|libpthread\\.so)")
        message(FATAL_ERROR "${file} needs ${name} at run time; a program through libfastout-c "
                            "must need only the C library:\n${run_output}")
      endif()
    endforeach()
  endforeach()
  foreach(file ${program} ${library})
    run(${NM} ${file})
    # A codec's own symbol, defined or undefined: a name that begins with
    # its prefix (fastout's own functions may take ZSTD_ types, and their
    # mangled names then hold "ZSTD_EndDirective" and the like).
    if(file STREQUAL program AND
       run_output MATCHES "[0-9a-f ] [A-Za-z] (ZSTD_[A-Za-z_0-9]*|libdeflate_[a-z_0-9]*)")
      message(FATAL_ERROR "${program} carries a codec symbol, ${CMAKE_MATCH_1}")
    endif()
    # Without a codec, no compression engine (compression_engine_check.cmake).
    if(CODECS STREQUAL "")
      fail_if_compression_engine("${run_output}" "${file}")
    endif()
    # Nor the C++ streams' start-up: std::ios_base::Init, which builds the
    # C++ locale and eight streams when the program or library is loaded
    # (600 us a process on the build machine: docs/c-api.md, "What each way
    # costs").
    if(run_output MATCHES "_ZNSt8ios_base4InitC[12]Ev")
      message(FATAL_ERROR "${file} carries std::ios_base::Init, the C++ streams' start-up, "
                          "which a C program through libfastout-c must not pay")
    endif()
    # Nor libstdc++'s demangler (demangler_check.cmake).
    fail_if_demangler("${run_output}" "${file}")
  endforeach()
  set(engine "")
  if(CODECS STREQUAL "")
    set(engine ", no compression engine")
  endif()
  message(STATUS "${program}: only the C library at run time, no codec symbols${engine}, no C++ "
                 "streams, no demangler")
endfunction()

# pkg-config's flags for fastout, checked against what a static or shared
# libfastout's users need: the codecs (libzstd, libdeflate) in --libs for a
# static one; for a shared one only with --static.
function(check_pkg_config_codecs pkg_config shared)
  run(${pkg_config} --libs fastout)
  set(plain "${run_output}")
  run(${pkg_config} --libs --static fastout)
  set(static "${run_output}")
  string(REPLACE "," ";" codecs "${CODECS}")
  foreach(codec ${codecs})
    if(codec STREQUAL "zstd")
      set(flag "-lzstd")
    else()
      set(flag "-ldeflate")
    endif()
    if(NOT static MATCHES "(^| )${flag}( |\n|$)")
      message(FATAL_ERROR "pkg-config --libs --static fastout lacks ${flag}: ${static}")
    endif()
    if(shared AND plain MATCHES "(^| )${flag}( |\n|$)")
      message(FATAL_ERROR "a shared libfastout's pkg-config --libs names ${flag}, which "
                          "libfastout.so links itself: ${plain}")
    endif()
    if(NOT shared AND NOT plain MATCHES "(^| )${flag}( |\n|$)")
      message(FATAL_ERROR "a static libfastout's pkg-config --libs lacks ${flag}: ${plain}")
    endif()
  endforeach()
endfunction()

# Installs the build tree `binary_dir` into `prefix` and checks the result.
function(install_and_check binary_dir prefix)
  file(REMOVE_RECURSE ${prefix})
  run(${CMAKE_COMMAND} --install ${binary_dir} --prefix ${prefix})
  check_install(${prefix})
endfunction()

# Checks what an install put into `prefix`.
function(check_install prefix)
  foreach(path
          include/fastout/file.h
          include/fastout/errors.h
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-config.cmake
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-config-version.cmake
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-targets.cmake
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-fmt-version.cmake
          ${INSTALL_LIBDIR}/pkgconfig/fastout.pc
          share/doc/fastout/LICENSE
          share/doc/fastout/README.md
          share/doc/fastout/CHANGELOG.md)
    if(NOT EXISTS ${prefix}/${path})
      message(FATAL_ERROR "the install has no ${path}")
    endif()
  endforeach()
  file(GLOB_RECURSE internal RELATIVE ${prefix} ${prefix}/*_internal.h)
  if(internal)
    message(FATAL_ERROR "internal headers were installed: ${internal}")
  endif()
  file(GLOB libraries ${prefix}/${INSTALL_LIBDIR}/libfastout*)
  if(NOT libraries)
    message(FATAL_ERROR "the install has no libfastout in ${INSTALL_LIBDIR}")
  endif()
  file(READ ${prefix}/share/doc/fastout/LICENSE licence)
  if(NOT licence MATCHES "MIT License" OR NOT licence MATCHES "Permission is hereby granted")
    message(FATAL_ERROR "${prefix}/share/doc/fastout/LICENSE is not the MIT licence")
  endif()
endfunction()

# The {fmt} 12.1.0 release tarball the embed_* modes build as the parent's
# own {fmt}: in `fmt_tarball`, or the test is skipped.
function(find_fmt_tarball)
  set(sources "$ENV{FASTOUT_FMT_SOURCES}")
  if(sources STREQUAL "")
    get_filename_component(sources "${FASTOUT_SOURCE_DIR}/../shared/fmt" ABSOLUTE)
  endif()
  set(tarball ${sources}/fmt-12.1.0.tar.gz)
  if(NOT EXISTS ${tarball})
    message(STATUS "run.cmake: skipped: ${tarball} does not exist (set FASTOUT_FMT_SOURCES "
                   "to the directory that holds it)")
    return()
  endif()
  set(fmt_tarball ${tarball} PARENT_SCOPE)
endfunction()

# Reads `#define FASTOUT_VERSION_MAJOR 0` and the others from a config.h.
function(read_version_macros header out_var)
  file(STRINGS ${header} lines REGEX "^#define FASTOUT_VERSION_(MAJOR|MINOR|PATCH) ")
  set(parts "")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX MATCH "FASTOUT_VERSION_${part} ([0-9]+)" _ "${lines}")
    if(CMAKE_MATCH_1 STREQUAL "")
      message(FATAL_ERROR "${header} defines no FASTOUT_VERSION_${part}")
    endif()
    list(APPEND parts ${CMAKE_MATCH_1})
  endforeach()
  string(REPLACE ";" "." version "${parts}")
  set(${out_var} "${version}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})

if(MODE STREQUAL "install")
  install_and_check(${FASTOUT_BINARY_DIR} ${PREFIX})

elseif(MODE STREQUAL "find_package")
  build_and_run_consumer(find_package ${dir}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DEXPECT_SHARED=${BUILD_SHARED} -DEXPECT_FMT_VERSION=${FMT_VERSION})
  build_and_run_consumer(c ${dir}/c -DCMAKE_PREFIX_PATH=${PREFIX})
  if(EXISTS ${dir}/c/consumer_light)
    set(light_library "")
    if(BUILD_SHARED)
      file(GLOB light_library ${PREFIX}/${INSTALL_LIBDIR}/libfastout-c.so.*.*.*)
    endif()
    check_light_consumer(${dir}/c/consumer_light "${light_library}")
  endif()

elseif(MODE STREQUAL "pkg_config")
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config is not installed (scripts/install-deps installs it)")
  endif()
  # Prepended to the default search path. {fmt} installs fmt.pc and its CMake
  # package under the same libdir (<libdir>/pkgconfig, <libdir>/cmake/fmt),
  # so the fmt.pc of the {fmt} under test is found from FMT_DIR: the system's
  # for Debian's libfmt-dev, or the one in a prefix of its own.
  set(pc_path "${PREFIX}/${INSTALL_LIBDIR}/pkgconfig")
  get_filename_component(fmt_pc_dir "${FMT_DIR}/../../pkgconfig" ABSOLUTE)
  if(EXISTS ${fmt_pc_dir}/fmt.pc)
    string(APPEND pc_path ":${fmt_pc_dir}")
  endif()
  set(ENV{PKG_CONFIG_PATH} "${pc_path}")
  run(${PKG_CONFIG} --modversion fmt)
  string(STRIP "${run_output}" version)
  if(NOT version STREQUAL FMT_VERSION)
    message(FATAL_ERROR "pkg-config finds fmt ${version}, but fastout was built against "
                        "fmt ${FMT_VERSION} (${FMT_DIR}); PKG_CONFIG_PATH=${pc_path}")
  endif()
  run(${PKG_CONFIG} --modversion fastout)
  string(STRIP "${run_output}" version)
  if(NOT version STREQUAL FASTOUT_VERSION)
    message(FATAL_ERROR "pkg-config says fastout ${version}, expected ${FASTOUT_VERSION}")
  endif()
  run(${PKG_CONFIG} --cflags --libs fastout)
  string(STRIP "${run_output}" pc_flags)
  message(STATUS "pkg-config --cflags --libs fastout: ${pc_flags}")
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  # The .pc file locates the prefix relative to itself, so its -I may read
  # .../lib/pkgconfig/../../include: compare real paths.
  get_filename_component(wanted_include ${PREFIX}/include REALPATH)
  set(include_found OFF)
  foreach(flag ${pc_flags})
    if(flag MATCHES "^-I(.*)")
      get_filename_component(include ${CMAKE_MATCH_1} REALPATH)
      if(include STREQUAL wanted_include)
        set(include_found ON)
      endif()
    endif()
  endforeach()
  if(NOT include_found)
    message(FATAL_ERROR "pkg-config's flags lack -I${PREFIX}/include")
  endif()
  foreach(library -lfastout -lfmt)
    if(NOT library IN_LIST pc_flags)
      message(FATAL_ERROR "pkg-config's flags lack ${library}")
    endif()
  endforeach()
  separate_arguments(extra UNIX_COMMAND "${sanitize_flags}")
  run(${CXX_COMPILER} -std=c++${CXX_STANDARD} ${extra} ${consumers}/main.cpp ${pc_flags}
      -o ${dir}/consumer)
  # A shared libfastout in a private prefix is found through the loader path.
  set(ENV{LD_LIBRARY_PATH} "${PREFIX}/${INSTALL_LIBDIR}")
  run_consumer(${dir}/consumer ${dir}/out.txt)
  # A C program, compiled and linked by the C compiler with the same flags:
  # the C++ runtime a static libfastout needs comes from fastout.pc.
  run(${C_COMPILER} -std=c99 -pedantic ${extra} ${consumers}/main.c ${pc_flags}
      -o ${dir}/consumer_c)
  run_consumer(${dir}/consumer_c ${dir}/out_c.txt)
  check_pkg_config_codecs(${PKG_CONFIG} "${BUILD_SHARED}")
  # libfastout-c, with the line docs/c-api.md gives.
  if(EXISTS "${PREFIX}/${INSTALL_LIBDIR}/pkgconfig/fastout-c.pc")
    run(${PKG_CONFIG} --cflags --libs fastout-c)
    string(STRIP "${run_output}" pc_c_flags)
    message(STATUS "pkg-config --cflags --libs fastout-c: ${pc_c_flags}")
    separate_arguments(pc_c_flags UNIX_COMMAND "${pc_c_flags}")
    run(${C_COMPILER} -std=c99 -pedantic ${extra} ${consumers}/c_light.c ${pc_c_flags}
        -o ${dir}/consumer_light)
    set(light_library "")
    if(BUILD_SHARED)
      file(GLOB light_library ${PREFIX}/${INSTALL_LIBDIR}/libfastout-c.so.*.*.*)
    endif()
    check_light_consumer(${dir}/consumer_light "${light_library}")
  endif()

elseif(MODE STREQUAL "add_subdirectory")
  build_and_run_consumer(add_subdirectory ${dir}
    -DFASTOUT_SOURCE_DIR=${FASTOUT_SOURCE_DIR} -DBUILD_SHARED_LIBS=ON
    "-DFASTOUT_SANITIZE=${SANITIZE}" ${codec_args})
  build_and_run_consumer(c ${dir}/c -DFASTOUT_SOURCE_DIR=${FASTOUT_SOURCE_DIR}
    "-DFASTOUT_SANITIZE=${SANITIZE}" ${codec_args})

elseif(MODE STREQUAL "find_package_shared")
  # fastout's own project, built shared with only the library.
  run(${CMAKE_COMMAND} -S ${FASTOUT_SOURCE_DIR} -B ${dir}/fastout ${common_args} ${fmt_args}
      -DBUILD_SHARED_LIBS=ON -DFASTOUT_BUILD_TESTS=OFF -DFASTOUT_BUILD_TOOLS=OFF
      -DFASTOUT_BUILD_EXAMPLES=OFF "-DFASTOUT_SANITIZE=${SANITIZE}" ${codec_args})
  run(${CMAKE_COMMAND} --build ${dir}/fastout)
  install_and_check(${dir}/fastout ${dir}/prefix)
  build_and_run_consumer(find_package ${dir}/consumer
    -DCMAKE_PREFIX_PATH=${dir}/prefix -DEXPECT_SHARED=ON -DEXPECT_FMT_VERSION=${FMT_VERSION})
  build_and_run_consumer(c ${dir}/consumer-c -DCMAKE_PREFIX_PATH=${dir}/prefix)
  # libfastout-c, built shared where it is built at all (not beside a
  # sanitizer: CMakeLists.txt).
  file(GLOB light_library ${dir}/prefix/${INSTALL_LIBDIR}/libfastout-c.so.*.*.*)
  if(SANITIZE)
  elseif(NOT light_library OR NOT EXISTS ${dir}/consumer-c/consumer_light)
    message(FATAL_ERROR "the shared install has no libfastout-c.so, or the C consumer did not "
                        "build consumer_light against it")
  else()
    check_light_consumer(${dir}/consumer-c/consumer_light "${light_library}")
  endif()
  # The shared library's fastout.pc: the codecs only for --static.
  if(PKG_CONFIG)
    set(pc_path "${dir}/prefix/${INSTALL_LIBDIR}/pkgconfig")
    get_filename_component(fmt_pc_dir "${FMT_DIR}/../../pkgconfig" ABSOLUTE)
    if(EXISTS ${fmt_pc_dir}/fmt.pc)
      string(APPEND pc_path ":${fmt_pc_dir}")
    endif()
    set(ENV{PKG_CONFIG_PATH} "${pc_path}")
    check_pkg_config_codecs(${PKG_CONFIG} ON)
  endif()

  # The SONAME follows the releases that keep the ABI: MAJOR.MINOR while
  # MAJOR is 0 (a 0.x minor release may break it), MAJOR from 1.0 on. The
  # library, its links and what a program records as needed all say so.
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${FASTOUT_VERSION}")
  if(CMAKE_MATCH_1 EQUAL 0)
    set(soname libfastout.so.${CMAKE_MATCH_1}.${CMAKE_MATCH_2})
  else()
    set(soname libfastout.so.${CMAKE_MATCH_1})
  endif()
  if(NOT READELF)
    message(FATAL_ERROR "no readelf to read the SONAME with (binutils)")
  endif()
  set(libdir ${dir}/prefix/${INSTALL_LIBDIR})
  foreach(file libfastout.so.${FASTOUT_VERSION} ${soname} libfastout.so)
    if(NOT EXISTS ${libdir}/${file})
      file(GLOB installed RELATIVE ${libdir} ${libdir}/libfastout*)
      message(FATAL_ERROR "the install has no ${file} in ${libdir}, only: ${installed}")
    endif()
  endforeach()
  run(${READELF} -d ${libdir}/libfastout.so.${FASTOUT_VERSION})
  if(NOT run_output MATCHES "\\(SONAME\\)[^\n]*\\[([^\n]*)\\]")
    message(FATAL_ERROR "libfastout.so.${FASTOUT_VERSION} has no SONAME:\n${run_output}")
  endif()
  if(NOT CMAKE_MATCH_1 STREQUAL soname)
    message(FATAL_ERROR "the SONAME is ${CMAKE_MATCH_1}, expected ${soname}")
  endif()
  get_filename_component(link_target ${libdir}/${soname} REALPATH)
  get_filename_component(real_library ${libdir}/libfastout.so.${FASTOUT_VERSION} REALPATH)
  if(NOT link_target STREQUAL real_library)
    message(FATAL_ERROR "${soname} leads to ${link_target}, not to libfastout.so.${FASTOUT_VERSION}")
  endif()
  run(${READELF} -d ${dir}/consumer/consumer)
  string(REPLACE "." "\\." soname_pattern "${soname}")
  if(NOT run_output MATCHES "\\(NEEDED\\)[^\n]*\\[${soname_pattern}\\]")
    message(FATAL_ERROR "the consumer does not record ${soname} as needed:\n${run_output}")
  endif()
  message(STATUS "SONAME ${soname}")

elseif(MODE STREQUAL "readme")
  # The README's "Build and install" line, as it stands there,
  #   cmake -S . -B build && cmake --build build && cmake --install build --prefix P
  # with "." the source tree, and "build" and "P" directories here: no
  # options but the README's, the default generator and build type, the
  # {fmt} CMake finds by itself (the system's). The compilers are those of
  # the build under test, chosen as a user chooses them: CC and CXX, or for a
  # cross-compiled build its toolchain file, in CMAKE_TOOLCHAIN_FILE (CMake
  # 3.21's variable of the environment: the line itself stays as it is).
  file(STRINGS ${FASTOUT_SOURCE_DIR}/README.md readme_line REGEX "^ *cmake -S \\. -B build " LIMIT_COUNT 1)
  if(NOT readme_line)
    message(STATUS "run.cmake: skipped: README.md has no \"cmake -S . -B build ...\" line")
    return()
  endif()
  message(STATUS "README.md: ${readme_line}")
  separate_arguments(words UNIX_COMMAND "${readme_line}")
  list(APPEND words "&&")
  set(command "")
  set(previous "")
  set(commands 0)
  set(ENV{CC} ${C_COMPILER})
  set(ENV{CXX} ${CXX_COMPILER})
  if(TOOLCHAIN_FILE)
    if(CMAKE_VERSION VERSION_LESS 3.21)
      message(FATAL_ERROR "a cross-compiled README build needs CMake 3.21 or later "
                          "(CMAKE_TOOLCHAIN_FILE in the environment)")
    endif()
    set(ENV{CMAKE_TOOLCHAIN_FILE} ${TOOLCHAIN_FILE})
  endif()
  foreach(word ${words})
    if(word STREQUAL "&&")
      list(GET command 0 program)
      if(NOT program STREQUAL "cmake")
        message(FATAL_ERROR "the README's line runs ${program}, not cmake: ${readme_line}")
      endif()
      list(REMOVE_AT command 0)
      run(${CMAKE_COMMAND} ${command})
      if(commands EQUAL 0)
        set(readme_configure_output "${run_output}")
      endif()
      math(EXPR commands "${commands} + 1")
      set(command "")
    elseif(previous STREQUAL "-S" AND word STREQUAL ".")
      list(APPEND command ${FASTOUT_SOURCE_DIR})
    elseif(word STREQUAL "build")
      list(APPEND command ${dir}/build)
    elseif(previous STREQUAL "--prefix" AND word STREQUAL "P")
      list(APPEND command ${dir}/P)
    else()
      list(APPEND command ${word})
    endif()
    set(previous ${word})
  endforeach()
  if(NOT commands EQUAL 3 OR NOT EXISTS ${dir}/P)
    message(FATAL_ERROR "the README's line is not configure, build and install into P: "
                        "${readme_line}")
  endif()
  # Only the library was built: no tests, driver or examples, and so no
  # GoogleTest needed.
  file(READ ${dir}/build/CMakeCache.txt cache)
  foreach(option FASTOUT_BUILD_TESTS FASTOUT_BUILD_TOOLS FASTOUT_BUILD_EXAMPLES)
    if(NOT cache MATCHES "\n${option}:BOOL=OFF\n")
      message(FATAL_ERROR "${option} is not OFF by default")
    endif()
  endforeach()
  file(GLOB_RECURSE programs ${dir}/build/fastout-bench ${dir}/build/*_test ${dir}/build/hello)
  if(programs)
    message(FATAL_ERROR "a plain build built more than the library: ${programs}")
  endif()
  check_install(${dir}/P)
  # A consumer of that install, with the {fmt} it finds by itself too, and
  # the codecs the README's line found (AUTO), which the build under test
  # may have been configured without.
  codecs_configured("${readme_configure_output}" CODECS)
  set(consumer_fmt_args "")
  build_and_run_consumer(find_package ${dir}/consumer -DCMAKE_PREFIX_PATH=${dir}/P)

elseif(MODE STREQUAL "embed_add_subdirectory" OR MODE STREQUAL "embed_fetchcontent")
  # A parent project with its own {fmt} 12.1.0, beside Debian's 9.1 in
  # /usr/include: fastout must use the parent's fmt::fmt, compile with its
  # headers and show no warning from them.
  find_fmt_tarball()
  if(NOT fmt_tarball)
    return()
  endif()
  if(MODE STREQUAL "embed_add_subdirectory")
    run(${CMAKE_COMMAND} -E make_directory ${dir}/fmt)
    execute_process(COMMAND ${CMAKE_COMMAND} -E tar xzf ${fmt_tarball}
                    WORKING_DIRECTORY ${dir}/fmt RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "cannot extract ${fmt_tarball}")
    endif()
    set(embed_args -DEMBED=add_subdirectory -DFMT_SOURCE_DIR=${dir}/fmt/fmt-12.1.0
        -DFASTOUT_SOURCE_DIR=${FASTOUT_SOURCE_DIR})
  else()
    find_package(Git QUIET)
    if(NOT GIT_FOUND OR NOT EXISTS ${FASTOUT_SOURCE_DIR}/.git)
      message(STATUS "run.cmake: skipped: ${FASTOUT_SOURCE_DIR} is not a git checkout, "
                     "or git is not installed")
      return()
    endif()
    run(${GIT_EXECUTABLE} -C ${FASTOUT_SOURCE_DIR} rev-parse HEAD)
    string(STRIP "${run_output}" head)
    message(STATUS "fastout from ${FASTOUT_SOURCE_DIR} at ${head} (the committed HEAD)")
    set(embed_args -DEMBED=FetchContent -DFMT_TARBALL=${fmt_tarball}
        -DFASTOUT_GIT_REPOSITORY=${FASTOUT_SOURCE_DIR} -DFASTOUT_GIT_TAG=${head})
  endif()
  run(${CMAKE_COMMAND} -S ${consumers}/embed -B ${dir}/build ${common_args} ${embed_args}
      -DFASTOUT_VERSION=${FASTOUT_VERSION} "-DFASTOUT_SANITIZE=${SANITIZE}"
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  # {fmt}'s own sources first, then fastout's alone: any warning in the
  # second build is one that fastout's flags raised, in its code or in
  # {fmt}'s headers.
  run(${CMAKE_COMMAND} --build ${dir}/build --target fmt)
  run(${CMAKE_COMMAND} --build ${dir}/build --target fastout)
  if(run_output MATCHES "warning:")
    message(FATAL_ERROR "building fastout beside the parent's {fmt} gave warnings:\n${run_output}")
  endif()
  # {fmt} 12.1.0's headers happen to raise none of fastout's warnings with
  # today's compilers (11.2.0's raised 58 with g++ 12), so the command lines
  # are checked too: fastout's sources see {fmt}'s headers as system
  # headers (-isystem), never through -I.
  file(STRINGS ${dir}/build/compile_commands.json commands REGEX "fastout\\.dir/src/")
  list(LENGTH commands count)
  if(count LESS 9)
    message(FATAL_ERROR "compile_commands.json has ${count} commands for fastout's sources:\n${commands}")
  endif()
  foreach(command ${commands})
    string(REGEX MATCHALL "-I *[^ ]+" plain "${command}")
    string(REGEX MATCHALL "-isystem +[^ ]+" system "${command}")
    set(fmt_as_system OFF)
    foreach(flag ${plain} ${system})
      string(REGEX REPLACE "^-(I|isystem) *" "" include "${flag}")
      if(EXISTS ${include}/fmt/base.h)
        if(flag MATCHES "^-isystem")
          set(fmt_as_system ON)
        else()
          message(FATAL_ERROR "fastout compiles with {fmt}'s headers as ${flag}, not -isystem:\n${command}")
        endif()
      endif()
    endforeach()
    if(NOT fmt_as_system)
      message(FATAL_ERROR "fastout compiles without -isystem for {fmt}'s headers:\n${command}")
    endif()
  endforeach()
  run(${CMAKE_COMMAND} --build ${dir}/build)
  run(${emulator} ${dir}/build/consumer ${dir}/build/out.txt ${FASTOUT_VERSION})
  message(STATUS "${run_output}")

elseif(MODE STREQUAL "fmt_check")
  # fastout's own configure refuses a {fmt} older than 9.1 or newer than 12.x
  # with one message, and goes on with a warning when allowed to.
  foreach(version 8.1.1 13.0.0)
    set(fake ${dir}/fake-fmt-${version})
    write_fake_fmt(${fake} ${version})
    untested_fmt_texts(${version} ${fake})
    set(args -S ${FASTOUT_SOURCE_DIR} ${common_args} -Dfmt_DIR=${fake}
        -DFASTOUT_BUILD_TESTS=OFF -DFASTOUT_BUILD_TOOLS=OFF -DFASTOUT_BUILD_EXAMPLES=OFF)
    run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/refused-${version})
    expect_text("${run_output}" "${refused}" 1)
    run(${CMAKE_COMMAND} ${args} -B ${dir}/allowed-${version} -DFASTOUT_ALLOW_UNTESTED_FMT=ON)
    string(REGEX REPLACE "[ \t\n]+" " " output "${run_output}")
    expect_text("${output}" "${allowed}" 1)
    expect_text("${output}" "${refused}" 0)
  endforeach()

elseif(MODE STREQUAL "fmt_check_installed")
  # A consumer of the installed package meets the same rule and message. When
  # allowed an untested {fmt}, it is still refused one of another major
  # version than the {fmt} this fastout was built against, whose symbols it
  # could not link with.
  string(REGEX MATCH "^[0-9]+" built_major "${FMT_VERSION}")
  foreach(version 8.1.1 13.0.0)
    set(fake ${dir}/fake-fmt-${version})
    write_fake_fmt(${fake} ${version})
    untested_fmt_texts(${version} ${fake})
    set(args -S ${consumers}/find_package ${common_args} -Dfmt_DIR=${fake}
        -DCMAKE_PREFIX_PATH=${PREFIX} -DFASTOUT_VERSION=${FASTOUT_VERSION})
    run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/refused-${version})
    expect_text("${run_output}" "${refused}" 1)
    run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/allowed-${version} -DFASTOUT_ALLOW_UNTESTED_FMT=ON)
    expect_text("${run_output}" "${allowed}" 1)
    expect_text("${run_output}" "${refused}" 0)
    expect_text("${run_output}" "this fastout was built against {fmt} ${FMT_VERSION}, but found {fmt} ${version} (in ${fake})" 1)
    expect_text("${run_output}" "Point CMAKE_PREFIX_PATH or fmt_DIR at a {fmt} ${built_major}.x." 1)
  endforeach()

elseif(MODE STREQUAL "options")
  # A machine without GoogleTest (CMAKE_DISABLE_FIND_PACKAGE_GTest makes
  # find_package(GTest) find nothing, as there): a plain configure, and one
  # that asks for the driver and the examples, work; one that asks for the
  # tests stops with one message naming the option and the package.
  set(args -S ${FASTOUT_SOURCE_DIR} ${common_args} ${fmt_args}
      -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON)
  run(${CMAKE_COMMAND} ${args} -B ${dir}/plain)
  run(${CMAKE_COMMAND} ${args} -B ${dir}/tools -DFASTOUT_BUILD_TOOLS=ON -DFASTOUT_BUILD_EXAMPLES=ON)
  run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/tests -DFASTOUT_BUILD_TESTS=ON)
  expect_text("${run_output}" "FASTOUT_BUILD_TESTS is ON, but GoogleTest was not found. Install it (Debian: apt-get install libgtest-dev)" 1)
  expect_text("${run_output}" "CMake Error" 1)

elseif(MODE STREQUAL "platform")
  # Which platform layer a configure chooses, and the one message for a
  # system fastout does not run on. CMake's own CMAKE_SYSTEM_NAME, as when
  # cross-compiling: a bare-metal build is no Unix system.
  set(args -S ${FASTOUT_SOURCE_DIR} ${common_args} ${fmt_args})
  set(supported "fastout runs on Linux, macOS, the BSDs, other Unix systems and Windows (see docs/platforms.md)")
  # Without a cross-compiled build's toolchain file, which names its own
  # system (Linux) and would win over -DCMAKE_SYSTEM_NAME.
  set(other_system_args ${args})
  if(toolchain_args)
    list(REMOVE_ITEM other_system_args ${toolchain_args})
  endif()
  run_failing(${CMAKE_COMMAND} ${other_system_args} -B ${dir}/generic -DCMAKE_SYSTEM_NAME=Generic)
  expect_text("${run_output}" "${supported}, and this build is for Generic." 1)
  expect_text("${run_output}" "CMake Error" 1)
  # FreeBSD gets the posix layer (what happens after that choice, with this
  # machine's compiler and no FreeBSD {fmt}, is not this test's business).
  execute_process(COMMAND ${CMAKE_COMMAND} ${other_system_args} -B ${dir}/freebsd
                          -DCMAKE_SYSTEM_NAME=FreeBSD
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  expect_text("${output}" "fastout: platform posix\n" 1)
  # This machine: linux, or posix when asked.
  run(${CMAKE_COMMAND} ${args} -B ${dir}/linux)
  expect_text("${run_output}" "fastout: platform linux\n" 1)
  run(${CMAKE_COMMAND} ${args} -B ${dir}/posix -DFASTOUT_PLATFORM=posix)
  expect_text("${run_output}" "fastout: platform posix (FASTOUT_PLATFORM)" 1)
  # The windows layer is for Windows only (scripts/test --target windows
  # cross-builds it).
  run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/windows-here -DFASTOUT_PLATFORM=windows)
  expect_text("${run_output}" "FASTOUT_PLATFORM=windows cannot be built for Linux" 1)
  run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/other -DFASTOUT_PLATFORM=plan9)
  expect_text("${run_output}" "FASTOUT_PLATFORM is \"plan9\"; it must be one of: linux;posix;windows" 1)
  # Another C library: a <features.h> first on the C compiler's include path
  # that says glibc 2.27, or nothing about glibc (as musl's). Linux without
  # glibc 2.28 builds the posix layer, and refuses the linux one.
  file(WRITE ${dir}/glibc-2.27/features.h "#define __GLIBC__ 2\n#define __GLIBC_MINOR__ 27\n")
  file(WRITE ${dir}/not-glibc/features.h "#define _FEATURES_H\n")
  foreach(case glibc-2.27 not-glibc)
    set(c_flags "${sanitize_flags} -I${dir}/${case}")
    run(${CMAKE_COMMAND} ${args} -B ${dir}/build-${case} "-DCMAKE_C_FLAGS=${c_flags}")
    expect_text("${run_output}" "fastout: platform posix (the C library is not glibc 2.28 or later, which the linux platform needs)" 1)
    run_failing(${CMAKE_COMMAND} ${args} -B ${dir}/linux-${case} "-DCMAKE_C_FLAGS=${c_flags}"
                -DFASTOUT_PLATFORM=linux)
    expect_text("${run_output}" "FASTOUT_PLATFORM=linux needs Linux with glibc 2.28 or later" 1)
    expect_text("${run_output}" "CMake Error" 1)
  endforeach()

elseif(MODE STREQUAL "versions")
  # One version everywhere: CMake's (FASTOUT_VERSION here), the macros in
  # config.h (source and installed), the installed fastout.pc and package
  # version file, and the CHANGELOG's newest release, which has a date.
  read_version_macros(${FASTOUT_SOURCE_DIR}/include/fastout/config.h source_macros)
  read_version_macros(${PREFIX}/include/fastout/config.h installed_macros)
  file(STRINGS ${PREFIX}/${INSTALL_LIBDIR}/pkgconfig/fastout.pc pc_version REGEX "^Version:")
  string(REGEX REPLACE "^Version: *" "" pc_version "${pc_version}")
  file(STRINGS ${PREFIX}/${INSTALL_LIBDIR}/cmake/fastout/fastout-config-version.cmake
       package_version REGEX "^set\\(PACKAGE_VERSION \"[0-9]")
  string(REGEX REPLACE ".*PACKAGE_VERSION \"([^\"]*)\".*" "\\1" package_version "${package_version}")
  set(changelog_version "")
  set(changelog_date "")
  file(STRINGS ${FASTOUT_SOURCE_DIR}/CHANGELOG.md headings REGEX "^## \\[")
  foreach(heading ${headings})
    if(heading MATCHES "^## \\[Unreleased\\]")
      continue()
    endif()
    # The newest release: "## [0.2.0] - 2026-11-24".
    if(NOT heading MATCHES "^## \\[([0-9]+\\.[0-9]+\\.[0-9]+)\\] - ([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$"
       OR CMAKE_MATCH_3 LESS 1 OR CMAKE_MATCH_3 GREATER 12
       OR CMAKE_MATCH_4 LESS 1 OR CMAKE_MATCH_4 GREATER 31)
      message(FATAL_ERROR "CHANGELOG.md's newest release heading is \"${heading}\", "
                          "not \"## [X.Y.Z] - YYYY-MM-DD\"")
    endif()
    set(changelog_version ${CMAKE_MATCH_1})
    set(changelog_date ${CMAKE_MATCH_2}-${CMAKE_MATCH_3}-${CMAKE_MATCH_4})
    break()
  endforeach()
  set(mismatches "")
  foreach(pair "config.h macros=${source_macros}" "installed config.h=${installed_macros}"
               "installed fastout.pc=${pc_version}"
               "installed fastout-config-version.cmake=${package_version}"
               "CHANGELOG.md's newest release=${changelog_version}")
    string(REGEX MATCH "^([^=]*)=(.*)$" _ "${pair}")
    if(NOT CMAKE_MATCH_2 STREQUAL FASTOUT_VERSION)
      string(APPEND mismatches "\n  ${CMAKE_MATCH_1}: \"${CMAKE_MATCH_2}\"")
    endif()
  endforeach()
  if(mismatches)
    message(FATAL_ERROR "CMake's project version is ${FASTOUT_VERSION}, but:${mismatches}")
  endif()
  # The installed changelog is this one.
  file(READ ${FASTOUT_SOURCE_DIR}/CHANGELOG.md source_changelog)
  file(READ ${PREFIX}/share/doc/fastout/CHANGELOG.md installed_changelog)
  if(NOT source_changelog STREQUAL installed_changelog)
    message(FATAL_ERROR "the installed CHANGELOG.md is not the source's")
  endif()
  message(STATUS "fastout ${FASTOUT_VERSION}, released ${changelog_date}")

else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
