# SPDX-License-Identifier: MIT
# Included by the scripts that read a linked program's symbols with nm
# (c_program_link.cmake, c_program_without_codecs.cmake).

# Sets `out_var` to nm's output for `program` (NM, the script's -DNM=...);
# fails if nm fails, or if the output lacks `expected`, a symbol the
# program must define: otherwise a check that a symbol is absent could pass
# on a text that names nothing.
function(read_program_symbols program expected out_var)
  execute_process(COMMAND ${NM} ${program} RESULT_VARIABLE nm_result OUTPUT_VARIABLE symbols
                  ERROR_VARIABLE nm_error)
  if(NOT nm_result EQUAL 0)
    message(FATAL_ERROR "${NM} ${program} failed: ${nm_error}")
  endif()
  if(NOT symbols MATCHES "${expected}")
    message(FATAL_ERROR "nm lists no ${expected} in ${program}: it cannot be read")
  endif()
  set(${out_var} "${symbols}" PARENT_SCOPE)
endfunction()
