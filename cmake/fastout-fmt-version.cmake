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
