#!/usr/bin/env bash
# Every test: set up and build, then the unit tests, the ONNX conformance suites and the model
# and Python tests (CTest runs them all). Fails when ../shared (or $PRISM_SHARED_DIR) is missing,
# or when fewer tests are registered than the minimum below. Extra arguments go to ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
build_dir="${PRISM_BUILD_DIR:-$root/build}"
shared="${PRISM_SHARED_DIR:-$root/../shared}"
if [ ! -d "$shared/onnx-tests" ]; then
  echo "run_tests: shared test data not found at $shared (set PRISM_SHARED_DIR)" >&2
  exit 1
fi
export PRISM_SHARED_DIR="$(cd "$shared" && pwd)"
# The fewest CTest entries a full run may have (raise it when tests are added): fewer means a test
# family dropped out of the build, and the run fails instead of passing on what is left.
minimum_tests=1827
"$root/scripts/lib/check_test_count.sh" "$build_dir" "$minimum_tests"
cd "$build_dir"
ctest --output-on-failure --no-tests=error -j "$(nproc)" "$@"
