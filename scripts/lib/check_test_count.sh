#!/usr/bin/env bash
# Fails when the CTest tree at BUILD_DIR registers fewer tests than MINIMUM, so a test family that
# drops out of the build (a lost add_test, a failed gtest discovery) fails CI instead of
# shrinking it. Usage: check_test_count.sh BUILD_DIR MINIMUM
set -euo pipefail
build_dir=$1
minimum=$2
listing=$(cd "$build_dir" && ctest -N 2>&1) || {
  echo "check_test_count: 'ctest -N' failed in $build_dir:" >&2
  echo "$listing" >&2
  exit 1
}
count=$(printf '%s\n' "$listing" | sed -n 's/^Total Tests: \([0-9]*\)$/\1/p')
if [ -z "$count" ]; then
  echo "check_test_count: no 'Total Tests' line from ctest -N in $build_dir" >&2
  exit 1
fi
if [ "$count" -lt "$minimum" ]; then
  echo "check_test_count: $build_dir registers $count tests, fewer than the minimum $minimum" \
       "(scripts/run_tests.sh): a test family dropped out" >&2
  exit 1
fi
echo "check_test_count: $count tests registered (minimum $minimum)"
