#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs examples/echo.cpp and the system's /bin/echo (GNU coreutils) with the
# same arguments and environment, and fails if their output or exit status
# differ. Every escape GNU echo knows is here, with its edge cases.
#
#   test/echo_test.sh [--reference REFERENCE_ECHO] COMMAND...
#
# COMMAND is what starts examples/echo.cpp: its path, after the emulator
# that runs it in a cross-compiled build (examples/CMakeLists.txt gives
# CMAKE_CROSSCOMPILING_EMULATOR's words first). The reference is /bin/echo
# unless given.
set -u

reference=/bin/echo
if [ "${1:-}" = --reference ]; then
  reference=$2
  shift 2
fi
if [ $# -eq 0 ]; then
  echo "usage: echo_test.sh [--reference REFERENCE_ECHO] COMMAND..." >&2
  exit 2
fi
ours=("$@")
if ! "$reference" --version 2>/dev/null | grep -q 'GNU coreutils'; then
  # Not a skip: a check that passes without comparing anything is no check.
  echo "echo_test: $reference is not GNU coreutils' echo; install coreutils or pass one" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fastout-echo-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
cases=0

# check [VAR=value ...] -- ARG...: both echos with these arguments.
check() {
  local env_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do env_args+=("$1"); shift; done
  shift
  cases=$((cases + 1))
  env -u POSIXLY_CORRECT "${env_args[@]}" "$reference" "$@" >"$work/expected" 2>/dev/null
  local expected_status=$?
  env -u POSIXLY_CORRECT "${env_args[@]}" "${ours[@]}" "$@" >"$work/actual" 2>"$work/stderr"
  local actual_status=$?
  if ! cmp -s "$work/expected" "$work/actual" || [ "$expected_status" != "$actual_status" ]; then
    failures=$((failures + 1))
    echo "DIFFERS: ${env_args[*]} echo$(printf ' %q' "$@")" >&2
    echo "  expected (status $expected_status): $(od -An -c "$work/expected" | tr -s ' ')" >&2
    echo "  actual   (status $actual_status): $(od -An -c "$work/actual" | tr -s ' ')" >&2
    [ -s "$work/stderr" ] && echo "  stderr: $(cat "$work/stderr")" >&2
  fi
}

# No escapes, and what is an option.
check --
check -- ''
check -- '' ''
check -- hello
check -- hello world
check -- '  spaced  ' 'out '
check -- -n hello
check -- -n
check -- -n -n hello
check -- -nn hello
check -- -e
check -- -E
check -- -
check -- --
check -- -- -n
check -- -x hello
check -- -nx hello
check -- -n -x -n
check -- hello -n
check -- -neE 'a\tb'
check -- -nEe 'a\tb'
check -- -e -E 'a\tb'
check -- -E -e 'a\tb'
check -- 'a\tb'
check -- $'caf\xc3\xa9 \xff\xfe'

# Every escape.
for escape in '\\' '\a' '\b' '\e' '\f' '\n' '\r' '\t' '\v' '\q' '\%' '\ ' '\"' "\\'"; do
  check -- -e "x${escape}y"
done
check -- -e 'trailing backslash\'
check -- -e '\'
check -- -e 'a\\\\b\\'
check -- -e 'stop\c here' 'and not this'
check -- -e 'first' 'second\c' 'third'
check -- -e '\c'
check -- -ne 'no newline\c'
# Hex: one or two digits, either case; none is no escape.
check -- -e '\x41\x4a\x4A\x7e\xff\x00z'
check -- -e '\x4g' '\x' '\xZ' '\x0' '\x123'
# Octal: \0 and up to three more digits, or one to three digits from 1.
check -- -e '\0' '\01' '\012' '\0101' '\01012' '\08' '\0777'
check -- -e '\1' '\12' '\101' '\1012' '\18' '\7' '\777' '\400' '\377'
# Escapes are only read with -e (or POSIXLY_CORRECT).
check -- '\n\t\x41\101\c'
check -- -E -e -E '\n\t'

# POSIXLY_CORRECT: escapes always, options only after a first "-n".
check POSIXLY_CORRECT=1 -- 'a\tb\n'
check POSIXLY_CORRECT=1 -- -e 'a\tb'
check POSIXLY_CORRECT=1 -- -n 'a\tb'
check POSIXLY_CORRECT=1 -- -n -e -E 'a\tb'
check POSIXLY_CORRECT=1 -- -ne 'a\tb'
check POSIXLY_CORRECT=1 -- -E 'a\tb\c' 'more'

# Longer than any stdio buffer, and than fastout's: 300,000 bytes in three
# arguments (one may hold 128 KiB), with escapes.
big=$(head -c 100000 /dev/zero | tr '\0' 'a')
check -- -e "${big}\\t" "\\x41${big}" "$big"
check -- "$big" "$big" "$big"

# A write error: the same status as GNU echo, and a message naming the cause.
"${ours[@]}" hello >/dev/full 2>"$work/full"
status=$?
cases=$((cases + 1))
if [ "$status" != 1 ] || ! grep -q 'No space left on device' "$work/full"; then
  failures=$((failures + 1))
  echo "DIFFERS: echo hello >/dev/full: status $status, stderr: $(cat "$work/full")" >&2
fi

echo "echo_test: $cases cases, $failures differ"
[ "$failures" = 0 ]
