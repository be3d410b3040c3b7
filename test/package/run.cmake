# SPDX-License-Identifier: MIT
# Proves that fastout can be used the three ways a user would: installed and
# found with find_package() or pkg-config, or built in with add_subdirectory().
#
# Run by CTest from the top-level CMakeLists.txt as
#   cmake -DMODE=<mode> -D... -P test/package/run.cmake
# with MODE one of:
#   install              cmake --install this build tree into PREFIX, check what landed
#   find_package         a CMake consumer of PREFIX (needs `install` first)
#   pkg_config           a plain compiler command line using `pkg-config fastout`
#   add_subdirectory     a CMake consumer that builds fastout from source, shared
#   find_package_shared  build and install fastout shared, then a CMake consumer
# Each of these also builds and runs a C program (main.c) through the C API,
# with the C compiler: its CMake project (c/) enables C only, as a C
# program's would.
#   fmt_check            configure fastout against stand-ins for {fmt} 8.1.1 and
#                        13.0.0: refused, and accepted with FASTOUT_ALLOW_UNTESTED_FMT
#   fmt_check_installed  the same stand-ins for a consumer of PREFIX (needs `install`)
# Every consumer uses the {fmt} the build under test found: FMT_DIR (its
# fmt_DIR) for CMake, and the fmt.pc beside it for pkg-config; FMT_VERSION is
# the version it must see.
# Everything happens under WORK_DIR/<mode>; nothing outside it is touched.
cmake_minimum_required(VERSION 3.16)

foreach(var MODE FASTOUT_SOURCE_DIR FASTOUT_BINARY_DIR WORK_DIR PREFIX INSTALL_LIBDIR
            FASTOUT_VERSION GENERATOR C_COMPILER CXX_COMPILER CXX_STANDARD FMT_DIR FMT_VERSION)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake needs -D${var}=...")
  endif()
endforeach()

set(consumers ${CMAKE_CURRENT_LIST_DIR})
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

# The configure arguments every CMake project here gets: the same
# generator, compilers and C++ standard as the build under test.
set(common_args
  -G ${GENERATOR}
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

# Configures, builds and runs the consumer project in test/package/<project>.
function(build_and_run_consumer project build_dir)
  run(${CMAKE_COMMAND} -S ${consumers}/${project} -B ${build_dir} ${common_args} ${fmt_args}
      -DFASTOUT_VERSION=${FASTOUT_VERSION} ${ARGN})
  run(${CMAKE_COMMAND} --build ${build_dir})
  run(${build_dir}/consumer ${build_dir}/out.txt ${FASTOUT_VERSION})
  message(STATUS "${run_output}")
endfunction()

# Installs the build tree `binary_dir` into `prefix` and checks the result.
function(install_and_check binary_dir prefix)
  file(REMOVE_RECURSE ${prefix})
  run(${CMAKE_COMMAND} --install ${binary_dir} --prefix ${prefix})
  foreach(path
          include/fastout/file.h
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-config.cmake
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-config-version.cmake
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-targets.cmake
          ${INSTALL_LIBDIR}/cmake/fastout/fastout-fmt-version.cmake
          ${INSTALL_LIBDIR}/pkgconfig/fastout.pc)
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
endfunction()

file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})

if(MODE STREQUAL "install")
  install_and_check(${FASTOUT_BINARY_DIR} ${PREFIX})

elseif(MODE STREQUAL "find_package")
  build_and_run_consumer(find_package ${dir}
    -DCMAKE_PREFIX_PATH=${PREFIX} -DEXPECT_SHARED=${BUILD_SHARED} -DEXPECT_FMT_VERSION=${FMT_VERSION})
  build_and_run_consumer(c ${dir}/c -DCMAKE_PREFIX_PATH=${PREFIX})

elseif(MODE STREQUAL "pkg_config")
  find_program(PKG_CONFIG pkg-config)
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
  run(${dir}/consumer ${dir}/out.txt ${FASTOUT_VERSION})
  message(STATUS "${run_output}")
  # A C program, compiled and linked by the C compiler with the same flags:
  # the C++ runtime a static libfastout needs comes from fastout.pc.
  run(${C_COMPILER} -std=c99 -pedantic ${extra} ${consumers}/main.c ${pc_flags}
      -o ${dir}/consumer_c)
  run(${dir}/consumer_c ${dir}/out_c.txt ${FASTOUT_VERSION})
  message(STATUS "${run_output}")

elseif(MODE STREQUAL "add_subdirectory")
  build_and_run_consumer(add_subdirectory ${dir}
    -DFASTOUT_SOURCE_DIR=${FASTOUT_SOURCE_DIR} -DBUILD_SHARED_LIBS=ON
    "-DFASTOUT_SANITIZE=${SANITIZE}")
  build_and_run_consumer(c ${dir}/c -DFASTOUT_SOURCE_DIR=${FASTOUT_SOURCE_DIR}
    "-DFASTOUT_SANITIZE=${SANITIZE}")

elseif(MODE STREQUAL "find_package_shared")
  # fastout's own project, built shared with only the library.
  run(${CMAKE_COMMAND} -S ${FASTOUT_SOURCE_DIR} -B ${dir}/fastout ${common_args} ${fmt_args}
      -DBUILD_SHARED_LIBS=ON -DFASTOUT_BUILD_TESTS=OFF -DFASTOUT_BUILD_TOOLS=OFF
      -DFASTOUT_BUILD_EXAMPLES=OFF "-DFASTOUT_SANITIZE=${SANITIZE}")
  run(${CMAKE_COMMAND} --build ${dir}/fastout)
  install_and_check(${dir}/fastout ${dir}/prefix)
  build_and_run_consumer(find_package ${dir}/consumer
    -DCMAKE_PREFIX_PATH=${dir}/prefix -DEXPECT_SHARED=ON -DEXPECT_FMT_VERSION=${FMT_VERSION})
  build_and_run_consumer(c ${dir}/consumer-c -DCMAKE_PREFIX_PATH=${dir}/prefix)

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

else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
