#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ in build-fuzz/ (clang, -fsanitize=fuzzer,address,undefined)
# and runs each for a while, then the committed regression inputs (docs/security.md).
#
# Usage: scripts/fuzz.sh [--seconds N] [--targets "model tensor_proto capi"] [--parallel]
#                        [--record | --no-record] [--build-only] [--smoke]
#   --seconds N   how long each target runs (default $PRISM_FUZZ_SECONDS or 1200)
#   --parallel    two targets at a time (the machine's two cores); default one after another
#   --record      append each run's final statistics to fuzz/STATS.md (the default when
#                 --seconds is 600 or more; shorter runs, such as CI's smoke, are not recorded)
#   --smoke       CI's run: a fixed number of executions per target from a fixed seed
#                 (-seed=1 -runs=N, at most 120 s each), two targets at a time, not recorded, on
#                 a fresh corpus (every seed model runs once under the sanitizers, then the
#                 mutations). The mutations are not the same on every machine even so (CI found
#                 at 9914 executions what a run here of the same code did not): the smoke samples,
#                 and a finding may predate the change under test; a long run (--seconds) explores
# The seed corpora are made at run time from ../shared/onnx-tests (model.onnx files for the
# model target, tensor .pb files for the tensor target) into build-fuzz/seeds-<target>; what
# libFuzzer finds goes to build-fuzz/corpus-<target> (kept between runs, never committed) and a
# crash to build-fuzz/artifacts/<target>/. Exits non-zero when a target found something or a
# regression input fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/lib/ccache_env.sh"
shared="${PRISM_SHARED_DIR:-$root/../shared}"
build="$root/build-fuzz"
seconds="${PRISM_FUZZ_SECONDS:-1200}"
targets=(model tensor_proto capi)
parallel=0
record=""
build_only=0
smoke=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --targets) read -r -a targets <<< "$2"; shift 2 ;;
    --parallel) parallel=1; shift ;;
    --record) record=1; shift ;;
    --no-record) record=0; shift ;;
    --build-only) build_only=1; shift ;;
    --smoke) smoke=1; parallel=1; record=0; seconds=120; shift ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$record" ]; then
  if [ "$seconds" -ge 600 ]; then record=1; else record=0; fi
fi

# clang and its libFuzzer/sanitizer runtimes (Debian: clang, libclang-rt-<version>-dev).
if ! command -v clang++ >/dev/null 2>&1 ||
   ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: installing clang and libclang-rt-dev"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  version=$(apt-cache policy clang | sed -n 's/.*Candidate: 1:\([0-9]*\).*/\1/p')
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends clang \
    "libclang-rt-${version:-14}-dev"
fi

# ---- build
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
build_start=$(date +%s)
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DPRISM_FUZZ=ON -DPRISM_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" "${launcher[@]}" >/dev/null
fi
fuzzers=()
for target in "${targets[@]}"; do fuzzers+=("${target}_fuzzer"); done
nice -n 10 cmake --build "$build" -j "$(nproc)" --target "${fuzzers[@]}"
echo "fuzz.sh: build took $(( $(date +%s) - build_start )) s"
if [ "$build_only" = 1 ]; then exit 0; fi

# ---- seed corpora, made at run time from the conformance data (not committed)
make_seeds() {  # make_seeds TARGET DIR
  local target=$1 dir=$2
  if [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then return; fi
  mkdir -p "$dir"
  local suite test file
  for suite in node simple pytorch-operator; do
    [ -d "$shared/onnx-tests/$suite" ] || continue
    for test in "$shared/onnx-tests/$suite"/*/; do
      test=${test%/}
      case "$target" in
        model) [ -f "$test/model.onnx" ] && cp "$test/model.onnx" "$dir/$suite-$(basename "$test").onnx" ;;
        tensor_proto)
          for file in "$test"/test_data_set_*/*.pb; do
            [ -f "$file" ] || continue
            # Small ones only: the target's speed matters more than large payloads.
            if [ "$(stat -c %s "$file")" -le 65536 ]; then
              cp "$file" "$dir/$suite-$(basename "$test")-$(basename "$(dirname "$file")")-$(basename "$file")"
            fi
          done ;;
      esac
    done
  done
  # Sizes, axes and attributes at the int64 limits (fuzz/make_hostile_models.py), for the model
  # target: each runs once under the sanitizers, and the mutator starts from them too.
  if [ "$target" = model ]; then
    if [ -x "$root/.venv/bin/python" ]; then
      "$root/.venv/bin/python" "$root/fuzz/make_hostile_models.py" "$dir"
    else
      echo "fuzz.sh: no .venv (scripts/setup.sh makes it): the hostile-size seeds are left out"
    fi
  fi
  # The C ABI target's scripts are its own bytes: it starts from its regression inputs only.
  echo "fuzz.sh: $(ls "$dir" | wc -l) seeds for $target in $dir"
}

# ---- one target's run
run_target() {  # run_target TARGET -> log in $build/logs/TARGET.log, status in $build/logs/TARGET.rc
  local target=$1
  local seeds="$build/seeds-$target" corpus="$build/corpus-$target"
  local artifacts="$build/artifacts/$target/" log="$build/logs/$target.log"
  if [ "$smoke" = 1 ]; then
    corpus="$build/smoke-corpus-$target"
    rm -rf "$corpus"
  fi
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  make_seeds "$target" "$seeds"
  local options=(-max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048
                 -malloc_limit_mb=512 -timeout=30 -artifact_prefix="$artifacts")
  if [ "$smoke" = 1 ]; then
    # Executions after the seeds: about 30-60 s each on the 2 shared cores.
    local runs
    case "$target" in model) runs=30000 ;; tensor_proto) runs=600000 ;; *) runs=150000 ;; esac
    options+=(-seed=1 -runs="$runs")
  fi
  if [ -f "$root/fuzz/$target.dict" ]; then options+=(-dict="$root/fuzz/$target.dict"); fi
  local command=("$build/${target}_fuzzer" "${options[@]}" "$corpus" "$seeds"
                 "$root/fuzz/regressions/$target")
  echo "${command[*]}" > "$build/logs/$target.command"
  echo "fuzz.sh: $target for $seconds s: ${command[*]}"
  local rc=0 start
  start=$(date +%s)
  ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}" UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}" \
    nice -n 10 "${command[@]}" > "$log" 2>&1 || rc=$?
  echo "$rc" > "$build/logs/$target.rc"
  echo $(( $(date +%s) - start )) > "$build/logs/$target.seconds"  # less than asked after a finding
  tail -n 12 "$log"
}

# ---- the statistics of one run, appended to fuzz/STATS.md
record_stats() {  # record_stats TARGET
  local target=$1
  local log="$build/logs/$target.log"
  local rc execs rate peak added status took
  rc=$(cat "$build/logs/$target.rc")
  took=$(cat "$build/logs/$target.seconds")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -n 1)
  # The last status line: "#N  DONE   cov: C ft: F corp: U/S ..." (or pulse/NEW/REDUCE).
  status=$(grep -E '^#[0-9]+.*cov: [0-9]+' "$log" | tail -n 1 || true)
  local cov ft corp
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$status")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<< "$status")
  local result="clean"
  if [ "$rc" != 0 ]; then
    # Source paths are written relative to the repository (no one machine's absolute path).
    result="finding (exit $rc): $(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|terminate called' "$log" | sed "s|$root/||g" | head -c 120)"
  fi
  local stats="$root/fuzz/STATS.md"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | `%s` |\n' \
    "$(date -u +%Y-%m-%dT%H:%MZ)" "$target" "$took" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "${ft:-?}" "${corp:-?}" "${added:-?}" "${peak:-?}" "$result" \
    "$(sed "s|$root/||g" "$build/logs/$target.command")" >> "$stats"
  local total
  total=$(awk -F'|' -v t=" $target " '$3 == t { s += $4 } END { print s + 0 }' "$stats")
  echo "fuzz.sh: $target: $execs executions, cov $cov, ft $ft; $total s recorded in total"
}

status=0
if [ "$parallel" = 1 ]; then
  for ((i = 0; i < ${#targets[@]}; i += 2)); do
    run_target "${targets[i]}" &
    if [ $((i + 1)) -lt ${#targets[@]} ]; then run_target "${targets[i + 1]}" & fi
    wait
  done
else
  for target in "${targets[@]}"; do run_target "$target"; done
fi
for target in "${targets[@]}"; do
  if [ "$record" = 1 ]; then record_stats "$target"; fi
  if [ "$(cat "$build/logs/$target.rc")" != 0 ]; then
    echo "fuzz.sh: $target found something; see $build/logs/$target.log and $build/artifacts/$target/" >&2
    status=1
  fi
done

# ---- the committed regression inputs, each run once
for target in "${targets[@]}"; do
  inputs=()
  for file in "$root/fuzz/regressions/$target"/*; do
    [ -f "$file" ] && [ "$(basename "$file")" != README.md ] && inputs+=("$file")
  done
  if [ ${#inputs[@]} -eq 0 ]; then continue; fi
  if ! "$build/${target}_fuzzer" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=30 \
       "${inputs[@]}" > "$build/logs/$target-regressions.log" 2>&1; then
    echo "fuzz.sh: a regression input of $target fails; see $build/logs/$target-regressions.log" >&2
    status=1
  else
    echo "fuzz.sh: ${#inputs[@]} regression inputs of $target pass"
  fi
done
exit "$status"
