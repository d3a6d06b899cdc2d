#!/bin/sh
# Installs the build into a temporary prefix, builds examples/c and examples/cxx against the
# installed package (find_package(prism)), runs both on a model, and builds the C example once
# more with pkg-config. Every run on INPUT (raw float32 bytes, given with --input) must print
# onnxruntime's output for it, EXPECTED (raw float32 bytes), within a float tolerance.
# Usage: build_examples.sh CMAKE BUILD_DIR EXAMPLES_DIR MODEL INPUT EXPECTED
set -eu
cmake=$1
build_dir=$2
examples=$3
model=$4
input=$5
expected=$6

work=$(mktemp -d "${TMPDIR:-/tmp}/prism-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

# The "output 0 values:" line of an example's output (file $1, run named $2) against every value
# of EXPECTED: as many values, each within |a - b| <= 1e-4 + 1e-3 * |b| (the examples print 6
# significant digits).
check_against_onnxruntime() {
  printed=$(sed -n 's/^output 0 values://p' "$1")
  od -An -v -tf4 "$expected" | awk -v printed="$printed" -v run="$2" '
    function abs(x) { return x < 0 ? -x : x }
    { for (i = 1; i <= NF; ++i) want[++n] = $i }
    END {
      count = split(printed, got, " ")
      if (count != n) {
        printf "%s: %d output values printed, onnxruntime gives %d\n", run, count, n
        exit 1
      }
      bad = 0
      for (i = 1; i <= n; ++i) {
        number = got[i] ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/
        if (!number || abs(got[i] - want[i]) > 1e-4 + 1e-3 * abs(want[i])) {
          printf "%s: output value %d is %s, onnxruntime gives %s\n", run, i - 1, got[i], want[i]
          bad = 1
        }
      }
      exit bad
    }' >&2
}

# Runs an example (the command after the output file $1), keeping its output in $1; a failing
# run shows that output and stops the test.
run_example() {
  out=$1
  shift
  if ! "$@" > "$out"; then
    cat "$out"
    echo "failed: $*" >&2
    exit 1
  fi
}

# Stops the test when an example's output ($1) has no line matching $2.
expect_line() {
  grep -q "$2" "$1" || { echo "$(basename "$1"): no line matching '$2'" >&2; exit 1; }
}

"$cmake" --install "$build_dir" --prefix "$prefix"
for file in include/prism/prism_c_api.h include/prism/prism_cxx_api.h lib/libprism.so \
            lib/libprism_core.so lib/cmake/prism/prism-config.cmake \
            lib/cmake/prism/prism-config-version.cmake lib/pkgconfig/prism.pc; do
  test -f "$prefix/$file" || { echo "install is missing $file" >&2; exit 1; }
done

for example in c cxx; do
  "$cmake" -S "$examples/$example" -B "$work/build-$example" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release
  "$cmake" --build "$work/build-$example"
done

echo "== C example"
run_example "$work/c.txt" "$work/build-c/prism_example_c" "$model" --input "$input"
cat "$work/c.txt"
echo "== C++ example"
run_example "$work/cxx.txt" "$work/build-cxx/prism_example_cxx" "$model" --input "$input"
cat "$work/cxx.txt"
for out in c cxx; do
  expect_line "$work/$out.txt" "^providers: CPUExecutionProvider$"
  expect_line "$work/$out.txt" "^input 0: input tensor(float) \[1,1,28,28\]$"
  expect_line "$work/$out.txt" "^output 0: output tensor(float) \[1,10\]$"
  check_against_onnxruntime "$work/$out.txt" "$out example"
done

# Without --input both run on zeros: same model, same zeros, same numbers.
for example in c cxx; do
  run_example "$work/$example-zeros.txt" "$work/build-$example/prism_example_$example" "$model"
done
expect_line "$work/c-zeros.txt" "^output 0 values:"
if [ "$(grep "^output 0 values:" "$work/c-zeros.txt")" != \
     "$(grep "^output 0 values:" "$work/cxx-zeros.txt")" ]; then
  echo "the C and C++ examples print different values on zeros" >&2
  exit 1
fi

# The plugin EP installed next to libprism_core.so is found from the installed tree.
for example in c cxx; do
  run_example "$work/$example-ep.txt" "$work/build-$example/prism_example_$example" "$model" \
    TestExecutionProvider --input "$input"
  expect_line "$work/$example-ep.txt" "^providers: TestExecutionProvider CPUExecutionProvider$"
  check_against_onnxruntime "$work/$example-ep.txt" "$example example with the test EP"
done

if command -v pkg-config >/dev/null 2>&1; then
  echo "== C example via pkg-config"
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prism)
  # shellcheck disable=SC2086
  cc -std=c99 -o "$work/pc-example" "$examples/c/main.c" $flags -Wl,-rpath,"$prefix/lib"
  run_example "$work/pc.txt" "$work/pc-example" "$model" --input "$input"
  check_against_onnxruntime "$work/pc.txt" "C example built with pkg-config"
fi
echo "installed package OK"
