# SPDX-License-Identifier: MIT
# Included by the scripts that read, with nm, a program or library of a
# fastout built with neither codec (c_program_without_codecs.cmake,
# package/run.cmake): such a build has no compression engine
# (src/stages/compression_absent.cpp stands in for it), so nothing of
# compression_pipeline.cpp (compressed_output), compression_stage.cpp (its
# vtable), compression_pool.cpp (the pool, the encoders' cache) or the codec
# loader (codec_loading.cpp, platform/unix/shared_libraries.cpp) may be in
# it, though a program that opens a file could be asked for compression.
# The pool's size (compression_pool_size.cpp) is there, as in every build.

# Fails, naming `file`, if `symbols` (nm's output for it) defines a part of
# the engine.
function(fail_if_compression_engine symbols file)
  set(engine "_ZN7fastout6detail17compressed_output[A-Za-z_0-9]*"
             "_ZTVN7fastout6detail17compression_stageE"
             "_ZN7fastout6detail16compression_pool3getEv"
             "_ZN7fastout6detail13encoder_cache[A-Za-z_0-9]*"
             "_ZN7fastout6detail1[89]load_(codec|shared)_library[A-Za-z_0-9]*")
  string(REPLACE ";" "|" engine "${engine}")
  if(symbols MATCHES "[0-9a-f]+ [A-Za-z] (${engine})\n")
    message(FATAL_ERROR "${file} carries the compression engine (${CMAKE_MATCH_1}), though its "
                        "fastout has no codec")
  endif()
endfunction()
