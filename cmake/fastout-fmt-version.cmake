# SPDX-License-Identifier: MIT
# Which {fmt} versions fastout is tested with, and the check that refuses the
# others. fastout's own CMakeLists.txt and the installed fastout-config.cmake
# both include this file, so a consumer of an installed fastout meets the same
# rule and the same message as a build of fastout itself.
#
# The range is what CI builds and tests against (scripts/test --fmt, .ci/run):
# Debian 12's 9.1.0, and 10.2.1, 11.2.0 and 12.1.0. fastout uses some of
# {fmt}'s internals, which change between major versions, so a {fmt} outside
# the range may fail to compile or, worse, misbehave. Setting
# FASTOUT_ALLOW_UNTESTED_FMT to ON turns the refusal into a warning.

# Checks the {fmt} `version` found in `location` (fmt_DIR). Sets `error_var`
# to the message to fail with, or to "" when the version is tested or the
# user allowed an untested one (then it warns here).
function(fastout_check_fmt_version version location error_var)
  set(oldest 9.1)
  set(newest_major 12)
  set(supported "${oldest} to ${newest_major}.x")
  math(EXPR first_untested_major "${newest_major} + 1")
  set(${error_var} "" PARENT_SCOPE)
  if(version STREQUAL "")
    set(found "a {fmt} of unknown version")
  elseif(version VERSION_LESS oldest OR version VERSION_GREATER_EQUAL first_untested_major)
    set(found "{fmt} ${version}")
  else()
    return()
  endif()
  if(location)
    string(APPEND found " (in ${location})")
  endif()
  if(FASTOUT_ALLOW_UNTESTED_FMT)
    message(WARNING "fastout is tested with {fmt} ${supported} only, and this build uses "
                    "${found}: going on because FASTOUT_ALLOW_UNTESTED_FMT is ON.")
  else()
    string(CONCAT text
      "fastout supports {fmt} ${supported}, but found ${found}. Point "
      "CMAKE_PREFIX_PATH or fmt_DIR at a supported {fmt}, or set "
      "FASTOUT_ALLOW_UNTESTED_FMT=ON to build with this one anyway.")
    set(${error_var} "${text}" PARENT_SCOPE)
  endif()
endfunction()

# The {fmt} that `target` (fmt::fmt) really compiles with: the version in the
# headers its include directories hold, since a package's version file can
# name another {fmt} than the headers a build sees (a parent project's own
# {fmt} beside the system's, say). Sets `version_var` to "12.1.0" and
# `header_var` to the header it was read from, or both to "" when the
# headers cannot be found (a target whose include directories are only
# generator expressions, or none at all). Sets `dirs_var` to the include
# directories found, for a caller that needs them (-isystem).
function(fastout_fmt_headers target version_var header_var dirs_var)
  set(pending ${target})
  set(seen "")
  set(dirs "")
  # fmt::fmt may be an alias, or an interface target that links the real
  # one: follow links a few levels deep.
  foreach(depth RANGE 4)
    set(next "")
    foreach(name ${pending})
      if(NOT TARGET ${name} OR name IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${name})
      get_target_property(aliased ${name} ALIASED_TARGET)
      if(aliased)
        list(APPEND next ${aliased})
        continue()
      endif()
      get_target_property(includes ${name} INTERFACE_INCLUDE_DIRECTORIES)
      foreach(entry ${includes})
        # $<BUILD_INTERFACE:dir> is what a subproject's target gives; an
        # install interface does not apply; of other expressions such as
        # $<$<CONFIG:Release>:dir>, the directory they end in, if it exists.
        if(entry MATCHES "^\\$<BUILD_INTERFACE:([^<>]*)>$")
          list(APPEND dirs "${CMAKE_MATCH_1}")
        elseif(entry MATCHES "INSTALL_INTERFACE")
        elseif(entry MATCHES ":([^:<>]+)>+$")
          if(IS_DIRECTORY "${CMAKE_MATCH_1}")
            list(APPEND dirs "${CMAKE_MATCH_1}")
          endif()
        elseif(NOT entry MATCHES "\\$<")
          list(APPEND dirs "${entry}")
        endif()
      endforeach()
      get_target_property(links ${name} INTERFACE_LINK_LIBRARIES)
      foreach(link ${links})
        if(TARGET ${link})
          list(APPEND next ${link})
        endif()
      endforeach()
    endforeach()
    set(pending ${next})
  endforeach()
  list(REMOVE_DUPLICATES dirs)

  set(version "")
  set(header "")
  foreach(dir ${dirs})
    # FMT_VERSION is in fmt/base.h since {fmt} 11, in fmt/core.h before.
    foreach(candidate ${dir}/fmt/base.h ${dir}/fmt/core.h)
      if(EXISTS ${candidate})
        file(STRINGS ${candidate} line REGEX "^#[ \t]*define[ \t]+FMT_VERSION[ \t]+[0-9]+" LIMIT_COUNT 1)
        if(line MATCHES "FMT_VERSION[ \t]+([0-9]+)")
          math(EXPR major "${CMAKE_MATCH_1} / 10000")
          math(EXPR minor "${CMAKE_MATCH_1} / 100 % 100")
          math(EXPR patch "${CMAKE_MATCH_1} % 100")
          set(version "${major}.${minor}.${patch}")
          set(header "${candidate}")
          break()
        endif()
      endif()
    endforeach()
    if(version)
      break()
    endif()
  endforeach()
  set(${version_var} "${version}" PARENT_SCOPE)
  set(${header_var} "${header}" PARENT_SCOPE)
  set(${dirs_var} "${dirs}" PARENT_SCOPE)
endfunction()
