#!/usr/bin/env bash
# Builds the unit tests with ThreadSanitizer in build-tsan/ and runs the concurrency tests
# (one session run from several threads, providers swapped while runs are in flight).
# Extra arguments replace the default gtest filter, e.g. --gtest_filter='Concurrency*:Executor*'.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null  # apt packages and .venv only matter here; also builds build/
build_dir="$root/build-tsan"
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$build_dir" -DPRISM_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target prism_unit_tests prism_provider_test
filter=("--gtest_filter=Concurrency*")
if [ "$#" -gt 0 ]; then filter=("$@"); fi
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" "$build_dir/prism_unit_tests" "${filter[@]}"
