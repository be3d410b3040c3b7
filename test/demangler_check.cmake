# SPDX-License-Identifier: MIT
# Included by the scripts that read a libfastout-c program or library with
# nm (c_program_link.cmake, package/run.cmake): libstdc++'s demangler, which
# its verbose terminate handler brings (51 KB of text, and tables the loader
# relocates at every start), must not be in it -- libfastout-c's own handler
# takes its place (src/doors/c_boundary.cpp). A weak reference to
# __cxa_demangle ("w") is allowed: it is null unless a demangler is loaded.

# Fails, naming `file`, if `symbols` (nm's output for it) defines the demangler.
function(fail_if_demangler symbols file)
  if(symbols MATCHES "[0-9a-f]+ [Tt] (__cxa_demangle|d_print_comp[A-Za-z_.0-9]*)\n")
    message(FATAL_ERROR "${file} carries libstdc++'s demangler (${CMAKE_MATCH_1}): its verbose "
                        "terminate handler was linked, not libfastout-c's")
  endif()
endfunction()
