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
# Everything happens under WORK_DIR/<mode>; nothing outside it is touched.
cmake_minimum_required(VERSION 3.16)

foreach(var MODE FASTOUT_SOURCE_DIR FASTOUT_BINARY_DIR WORK_DIR PREFIX INSTALL_LIBDIR
            FASTOUT_VERSION GENERATOR CXX_COMPILER CXX_STANDARD)
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
  "-DCMAKE_CXX_FLAGS=${sanitize_flags}"
  "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_link_flags}"
  "-DCMAKE_SHARED_LINKER_FLAGS=${sanitize_link_flags}")
if(MAKE_PROGRAM)
  list(APPEND common_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

# Configures, builds and runs the consumer project in test/package/<project>.
function(build_and_run_consumer project build_dir)
  run(${CMAKE_COMMAND} -S ${consumers}/${project} -B ${build_dir} ${common_args}
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
    -DCMAKE_PREFIX_PATH=${PREFIX} -DEXPECT_SHARED=${BUILD_SHARED})

elseif(MODE STREQUAL "pkg_config")
  find_program(PKG_CONFIG pkg-config)
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config is not installed (scripts/install-deps installs it)")
  endif()
  # Prepended to the default search path, which still finds fmt.pc.
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${INSTALL_LIBDIR}/pkgconfig")
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

elseif(MODE STREQUAL "add_subdirectory")
  build_and_run_consumer(add_subdirectory ${dir}
    -DFASTOUT_SOURCE_DIR=${FASTOUT_SOURCE_DIR} -DBUILD_SHARED_LIBS=ON
    "-DFASTOUT_SANITIZE=${SANITIZE}")

elseif(MODE STREQUAL "find_package_shared")
  # fastout's own project, built shared with only the library.
  run(${CMAKE_COMMAND} -S ${FASTOUT_SOURCE_DIR} -B ${dir}/fastout ${common_args}
      -DBUILD_SHARED_LIBS=ON -DFASTOUT_BUILD_TESTS=OFF -DFASTOUT_BUILD_TOOLS=OFF
      -DFASTOUT_BUILD_EXAMPLES=OFF "-DFASTOUT_SANITIZE=${SANITIZE}")
  run(${CMAKE_COMMAND} --build ${dir}/fastout)
  install_and_check(${dir}/fastout ${dir}/prefix)
  build_and_run_consumer(find_package ${dir}/consumer
    -DCMAKE_PREFIX_PATH=${dir}/prefix -DEXPECT_SHARED=ON)

else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
