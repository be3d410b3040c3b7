# SPDX-License-Identifier: MIT
# src/ is in folders by layer, each using only the ones below it
# (HACKING.md, "Which way dependencies go"):
#
#   doors/     the C API, printf, the iostream adapter, the standard streams
#   open/      opening: assembles a writer's route out
#   writer/    the writer, and printing into its buffer
#   stages/    what a buffer passes on its way out
#   memory/    the process's buffer budget, which writers and stages share
#   platform/  the operating system
#
# This reads every quoted #include in src/ and include/ and fails if a file
# includes one from a layer above its own, if the platform folder uses
# anything of fastout's but <fastout/config.h>, if a public header includes
# an internal one, if the writer names a stage, or if files include each
# other in a loop. It also holds the platform layer whole: nothing outside
# src/platform/ asks which system it is on (an #if, #ifdef or #elif on a
# system's or a C library's macro: _WIN32, __GLIBC__, __APPLE__, __linux__,
# ...; a compiler's or a processor's is no platform's), and nothing reaches
# into one implementation's folder (linux/, posix/, windows/, or unix/,
# which only linux/ and posix/ share) but that implementation: the
# interface included.
#
#   cmake -DSOURCE_DIR=<repository> -P source_layers.cmake
cmake_minimum_required(VERSION 3.16)
set(layers doors open writer stages memory platform)
set(problems "")

file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}/src
     ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.h)
file(GLOB_RECURSE public RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/include/*.h)
list(LENGTH sources count)
if(count LESS 20)
  message(FATAL_ERROR "only ${count} sources under ${SOURCE_DIR}/src: not fastout's tree?")
endif()

function(layer_of path out)
  string(REGEX MATCH "^[^/]+" folder "${path}")
  list(FIND layers "${folder}" index)
  set(${out} ${index} PARENT_SCOPE)
endfunction()

# The macros that say which system or C library a build is for. Compilers
# (_MSC_VER, __GNUC__, __clang__) and processors (__x86_64__) are not
# among them: code may choose an intrinsic by them.
set(platform_macros
    _WIN32 _WIN64 __WIN32__ WIN32 __WINDOWS__ __CYGWIN__ __MINGW32__ __MINGW64__
    __APPLE__ __MACH__ __linux__ __linux linux __gnu_linux__ __ANDROID__
    __FreeBSD__ __NetBSD__ __OpenBSD__ __DragonFly__ __unix__ __unix unix __sun _AIX __hpux
    __HAIKU__ __EMSCRIPTEN__ __wasi__ __Fuchsia__ __QNX__
    __GLIBC__ __GLIBC_MINOR__ __GNU_LIBRARY__ __UCLIBC__ __BIONIC__ _NEWLIB_VERSION
    "_POSIX_[A-Z0-9_]+" "_XOPEN_[A-Z0-9_]+")
string(REPLACE ";" "|" platform_macro_pattern "${platform_macros}")
set(platform_macro_pattern "(^|[^A-Za-z0-9_])(${platform_macro_pattern})([^A-Za-z0-9_]|$)")

# Which implementation of the platform a file under src/platform/ belongs
# to ("" for the interface's own files), and which implementations' folders
# it may include from.
set(unix_layers linux posix)
function(implementation_of path out)
  if(path MATCHES "^platform/([^/]+)/")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(edges "")
foreach(source ${sources})
  layer_of(${source} own)
  if(own EQUAL -1)
    string(APPEND problems "\n  src/${source} is in no layer's folder (${layers})")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/src/${source} lines REGEX "^[ \t]*#[ \t]*include")
  foreach(line ${lines})
    if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      set(included ${CMAKE_MATCH_1})
      if(NOT EXISTS ${SOURCE_DIR}/src/${included})
        string(APPEND problems "\n  src/${source} includes \"${included}\", which is not under src/")
        continue()
      endif()
      implementation_of(${included} their_implementation)
      if(their_implementation)
        implementation_of(${source} own_implementation)
        if(NOT own_implementation STREQUAL their_implementation AND
           NOT (their_implementation STREQUAL "unix" AND own_implementation IN_LIST unix_layers))
          if(own_implementation)
            set(who "platform/${own_implementation}/")
          elseif(source MATCHES "^platform/")
            set(who "the interface's own files")
          else()
            set(who "a layer above the platform")
          endif()
          string(APPEND problems "\n  src/${source} includes \"${included}\": only "
                                 "platform/${their_implementation}/ (and, for unix/, linux/ and "
                                 "posix/) may reach into that implementation's folder, not ${who}")
        endif()
      endif()
      layer_of(${included} theirs)
      if(theirs LESS own)
        list(GET layers ${own} own_name)
        list(GET layers ${theirs} their_name)
        string(APPEND problems "\n  src/${source} (${own_name}) includes \"${included}\" "
                               "from ${their_name}, a layer above it")
      endif()
      list(APPEND edges "${source}>${included}")
    elseif(line MATCHES "#[ \t]*include[ \t]*<fastout/([^>]+)>")
      set(public_header ${CMAKE_MATCH_1})
      if(source MATCHES "^platform/" AND NOT public_header STREQUAL "config.h")
        string(APPEND problems "\n  src/${source} includes <fastout/${public_header}>: the "
                               "platform layer depends on nothing of fastout's but config.h")
      endif()
    endif()
  endforeach()
  if(NOT source MATCHES "^platform/")
    file(STRINGS ${SOURCE_DIR}/src/${source} conditionals REGEX "^[ \t]*#[ \t]*(if|elif)")
    foreach(line ${conditionals})
      if(line MATCHES "${platform_macro_pattern}")
        string(APPEND problems "\n  src/${source} asks which system it is on (${CMAKE_MATCH_2}: "
                               "\"${line}\"): that is src/platform/'s to know, behind its "
                               "interface")
      endif()
    endforeach()
  endif()
  if(source MATCHES "^writer/")
    file(READ ${SOURCE_DIR}/src/${source} text)
    if(text MATCHES "(compression_stage|sync_and_replace_stage|file_stage|stages/[a-z_]+_stage)")
      set(named ${CMAKE_MATCH_1})
      string(APPEND problems "\n  src/${source} names a stage (${named}): the writer "
                             "knows only stage_internal.h's interface")
    endif()
  endif()
endforeach()

foreach(header ${public})
  file(STRINGS ${SOURCE_DIR}/${header} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(APPEND problems "\n  ${header} includes an internal header: ${line}")
  endforeach()
endforeach()

# Loops: a depth-first walk over the include edges.
set(done "")
function(visit node path)
  if(node IN_LIST path)
    set(loop ${path} ${node})
    string(REPLACE ";" " -> " shown "${loop}")
    set(problems "${problems}\n  a loop: ${shown}" PARENT_SCOPE)
    return()
  endif()
  if(node IN_LIST done)
    return()
  endif()
  set(deeper ${path} ${node})
  foreach(edge ${edges})
    if(edge MATCHES "^${node}>(.*)$")
      visit(${CMAKE_MATCH_1} "${deeper}")
      set(problems "${problems}" PARENT_SCOPE)
    endif()
  endforeach()
  list(APPEND done ${node})
  set(done "${done}" PARENT_SCOPE)
endfunction()
foreach(source ${sources})
  visit(${source} "")
endforeach()

# ---- the stages know no writer (issue 27) -------------------------------
# The stages, the budget and the platform are below the writer: no source there includes
# <fastout/file.h>, detail/writer.h, or a public header that includes either
# (which would bring the writer and {fmt} into every stage). What a stage
# needs of the public API is in small headers: errors.h, options.h,
# compression.h. (The platform rule above already refuses all but config.h.)
set(writer_headers fastout/file.h fastout/detail/writer.h)
set(grown TRUE)
while(grown)
  set(grown FALSE)
  foreach(header ${public})
    string(REGEX REPLACE "^include/" "" name "${header}")
    if(name IN_LIST writer_headers)
      continue()
    endif()
    file(STRINGS ${SOURCE_DIR}/${header} lines REGEX "^[ \t]*#[ \t]*include[ \t]*<fastout/")
    foreach(line ${lines})
      if(line MATCHES "<(fastout/[^>]+)>" AND CMAKE_MATCH_1 IN_LIST writer_headers)
        list(APPEND writer_headers ${name})
        set(grown TRUE)
        break()
      endif()
    endforeach()
  endforeach()
endwhile()
foreach(source ${sources})
  if(NOT source MATCHES "^(stages|memory|platform)/")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/src/${source} lines REGEX "^[ \t]*#[ \t]*include[ \t]*<fastout/")
  foreach(line ${lines})
    if(line MATCHES "<(fastout/[^>]+)>" AND CMAKE_MATCH_1 IN_LIST writer_headers)
      string(APPEND problems "\n  src/${source} includes <${CMAKE_MATCH_1}>, which brings the "
                             "writer: a stage knows it only through stage_internal.h")
    endif()
  endforeach()
endforeach()
# ---- end of the stages rule ----------------------------------------------

if(problems)
  message(FATAL_ERROR "src/ breaks its layering:${problems}")
endif()
list(LENGTH edges edge_count)
message(STATUS "${count} sources, ${edge_count} includes between them: every one downward "
               "or within a layer, no loops, no implementation's folder reached into, and no "
               "system asked about above src/platform/")
