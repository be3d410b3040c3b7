#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds fastout's fuzz targets the OSS-Fuzz way (its build.sh contract),
# from the environment:
#
#   CC, CXX, CFLAGS, CXXFLAGS  the compilers and their flags (sanitizers and
#                              -fsanitize=fuzzer-no-link included)
#   LIB_FUZZING_ENGINE         what each target links as its engine
#                              (-fsanitize=fuzzer for libFuzzer); unset, the
#                              targets get fuzz/replay_main.cpp's main()
#   OUT                        where each target goes, with its dictionary
#                              (NAME.dict), its libFuzzer options
#                              (NAME.options) and, where zip is installed,
#                              its seed corpus (NAME_seed_corpus.zip)
#   WORK                       the build directory (default $OUT/build)
#   FASTOUT_FUZZ_TARGETS       the targets to build (NAME_fuzzer ...);
#                              unset, all of them
#
# Arguments go to CMake's configure step (-DFASTOUT_WERROR=ON, say).
# scripts/fuzz calls it with clang 14, libFuzzer and ASan + UBSan.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${OUT:?OUT must name the directory the targets go to}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
work=${WORK:-$OUT/build}
mkdir -p "$work"

generator=
if command -v ninja >/dev/null 2>&1; then generator="-G Ninja"; fi
# No build type: the flags are $CFLAGS and $CXXFLAGS alone.
# shellcheck disable=SC2086  # $generator is one or two words
cmake -S "$here" -B "$work" $generator -DCMAKE_BUILD_TYPE= "$@"
# shellcheck disable=SC2086  # the targets are words
cmake --build "$work" -j "${FASTOUT_FUZZ_BUILD_JOBS:-2}" \
  ${FASTOUT_FUZZ_TARGETS:+--target $FASTOUT_FUZZ_TARGETS}

for binary in "$work"/*_fuzzer; do
  [ -x "$binary" ] || continue
  name=$(basename "$binary")
  # Only what this build made, not a target an earlier build left.
  case " ${FASTOUT_FUZZ_TARGETS:-$name} " in
    *" $name "*) ;;
    *) continue ;;
  esac
  cp "$binary" "$OUT/$name"
  [ -f "$here/$name.dict" ] && cp "$here/$name.dict" "$OUT/$name.dict"
  [ -f "$here/$name.options" ] && cp "$here/$name.options" "$OUT/$name.options"
  if [ -d "$here/${name}_seed_corpus" ] && command -v zip >/dev/null 2>&1; then
    rm -f "$OUT/${name}_seed_corpus.zip"
    (cd "$here/${name}_seed_corpus" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  fi
done
echo "fuzz/build.sh: the targets are in $OUT"
