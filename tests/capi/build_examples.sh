#!/bin/sh
# Installs the build into a temporary prefix, builds examples/c and examples/cxx against the
# installed package (find_package(prism)), runs both on a model, and builds the C example once
# more with pkg-config. Usage: build_examples.sh CMAKE BUILD_DIR EXAMPLES_DIR MODEL
set -eu
cmake=$1
build_dir=$2
examples=$3
model=$4

work=$(mktemp -d "${TMPDIR:-/tmp}/prism-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

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
"$work/build-c/prism_example_c" "$model" | tee "$work/c.txt"
echo "== C++ example"
"$work/build-cxx/prism_example_cxx" "$model" | tee "$work/cxx.txt"
for out in c cxx; do
  grep -q "^providers: CPUExecutionProvider$" "$work/$out.txt"
  grep -q "input 0: input tensor(float) \[1,1,28,28\]" "$work/$out.txt"
  grep -q "output 0: output tensor(float) \[1,10\]" "$work/$out.txt"
  grep -q "^output 0 values:" "$work/$out.txt"
done
# Both programs ran the same model on the same zeros: same numbers.
test "$(grep "^output 0 values:" "$work/c.txt")" = "$(grep "^output 0 values:" "$work/cxx.txt")"

# The plugin EP installed next to libprism_core.so is found from the installed tree.
for example in c cxx; do
  "$work/build-$example/prism_example_$example" "$model" TestExecutionProvider > "$work/$example-ep.txt"
  grep -q "^providers: TestExecutionProvider CPUExecutionProvider$" "$work/$example-ep.txt"
  test "$(grep "^output 0 values:" "$work/$example-ep.txt")" = "$(grep "^output 0 values:" "$work/c.txt")"
done

if command -v pkg-config >/dev/null 2>&1; then
  echo "== C example via pkg-config"
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs prism)
  # shellcheck disable=SC2086
  cc -std=c99 -o "$work/pc-example" "$examples/c/main.c" $flags -Wl,-rpath,"$prefix/lib"
  "$work/pc-example" "$model" >/dev/null
fi
echo "installed package OK"
