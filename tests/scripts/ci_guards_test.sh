#!/usr/bin/env bash
# Self-test of the guards that keep tests from dropping out of CI (scripts/lib): the test-count
# check must fail below its minimum and on a build tree with no tests, and the configure stamp
# must change when a CMake file or a configure argument changes. Usage: ci_guards_test.sh
# SOURCE_DIR BUILD_DIR
set -uo pipefail
source_dir=$1
build_dir=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

check=$source_dir/scripts/lib/check_test_count.sh
if ! out=$("$check" "$build_dir" 1 2>&1); then fail "count check failed with minimum 1: $out"; fi
count=$(printf '%s' "$out" | sed -n 's/^check_test_count: \([0-9]*\) tests registered.*/\1/p')
[ -n "$count" ] || fail "count check printed no count: $out"
# Planted fault: one test fewer than the minimum.
if out=$("$check" "$build_dir" $((count + 1)) 2>&1); then
  fail "count check passed with $count tests against minimum $((count + 1))"
elif ! printf '%s' "$out" | grep -q "registers $count tests, fewer than the minimum $((count + 1))"; then
  fail "count check message: $out"
fi
# Planted fault: a build tree whose tests all dropped out.
empty=$(mktemp -d)
trap 'rm -rf "$empty" "$tree"' EXIT
if out=$("$check" "$empty" 1 2>&1); then fail "count check passed on an empty build tree: $out"; fi

stamp=$source_dir/scripts/lib/configure_stamp.sh
tree=$(mktemp -d)
mkdir -p "$tree/sub" "$tree/cmake" "$tree/build"
echo 'project(x)' > "$tree/CMakeLists.txt"
echo 'add_library(y y.cc)' > "$tree/sub/CMakeLists.txt"
echo 'set(Z 1)' > "$tree/cmake/z.cmake"
base=$("$stamp" "$tree" -DA=1)
[ "$base" = "$("$stamp" "$tree" -DA=1)" ] || fail "configure stamp is not stable"
[ "$base" != "$("$stamp" "$tree" -DA=2)" ] || fail "configure stamp ignores a changed option"
echo 'add_library(y y.cc w.cc)' > "$tree/sub/CMakeLists.txt"
changed=$("$stamp" "$tree" -DA=1)
[ "$base" != "$changed" ] || fail "configure stamp ignores a changed sub/CMakeLists.txt"
echo 'set(Z 2)' > "$tree/cmake/z.cmake"
[ "$changed" != "$("$stamp" "$tree" -DA=1)" ] || fail "configure stamp ignores a changed .cmake file"
changed=$("$stamp" "$tree" -DA=1)
echo 'project(generated)' > "$tree/build/CMakeLists.txt"
[ "$changed" = "$("$stamp" "$tree" -DA=1)" ] || fail "configure stamp reads the build folder"

if [ "$failures" -ne 0 ]; then echo "$failures guard checks failed"; exit 1; fi
echo "ci guards: all checks passed"
