#!/usr/bin/env bash
# Builds the threaded tests (prism_tsan_tests: concurrent runs of one session, providers swapped
# while runs are in flight, executor, partitioning, device copies, arenas, thread pools) with
# ThreadSanitizer in build-tsan/ and runs them. Extra arguments are passed to the test binary,
# e.g. --gtest_filter='Concurrency*:Executor*'.
# -O1 with line tables: TSan's reports name file and line, and the sanitized build of the core
# library compiles in about half the time of -O2 -g (CI builds it from a cold cache). No -Werror
# here: at -O1 gcc 12 warns inside its own AVX-512 intrinsics header (a self-initialized
# placeholder); the main build keeps warnings as errors.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/lib/ccache_env.sh"
"$root/scripts/setup.sh" >/dev/null  # apt packages and .venv only matter here; also builds build/
build_dir="$root/build-tsan"
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$build_dir" -DPRISM_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DPython_EXECUTABLE="$root/.venv/bin/python" "${launcher[@]}" \
  >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target prism_tsan_tests prism_provider_test
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" "$build_dir/prism_tsan_tests" "$@"
