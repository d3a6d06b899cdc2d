#!/bin/sh
# Installs the build into a temporary prefix, builds examples/custom_op against the installed
# package (find_package(prism), out of tree), writes its models with PYTHON, and runs the custom
# op library from C, C++ and Python (the prismrt package installed into PYTHON's environment):
# each run checks its outputs against hand-computed values and must list the custom op nodes in
# the partition report.
# Usage: build_custom_op_example.sh CMAKE BUILD_DIR EXAMPLE_DIR PYTHON
set -eu
cmake=$1
build_dir=$2
example=$3
python=$4

work=$(mktemp -d "${TMPDIR:-/tmp}/prism-custom-op-example.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

. "$(dirname "$0")/example_checks.sh"

"$cmake" --install "$build_dir" --prefix "$prefix" > /dev/null
"$cmake" -S "$example" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
"$cmake" --build "$work/build"
library=$work/build/libprism_example_custom_ops.so
# The library needs nothing of Prism's but the function table RegisterCustomOps receives.
if command -v readelf > /dev/null 2>&1 && readelf -d "$library" | grep -q "libprism"; then
  echo "the custom op library links a Prism library" >&2
  exit 1
fi
"$python" "$example/make_model.py" "$work/models"

echo "== C"
run_example "$work/c.txt" "$work/build/prism_custom_op_example_c" "$library" \
  "$work/models/custom_op_example.onnx"
expect_line "$work/c.txt" "^output Y: 17 34 51 68 85 102$"
expect_line "$work/c.txt" "sum (SumAll, opset 1, custom op of domain 'prism.example') -> CPUExecutionProvider"
expect_line "$work/c.txt" "^custom op example OK (C)$"

echo "== C++"
run_example "$work/cxx.txt" "$work/build/prism_custom_op_example_cxx" "$library" \
  "$work/models/custom_op_example_cxx.onnx"
expect_line "$work/cxx.txt" "^output Z: -17 -34 -51 -68 -85 -102$"
expect_line "$work/cxx.txt" "negate (Negate, opset 1, custom op of domain 'prism.example.cxx') -> CPUExecutionProvider"
expect_line "$work/cxx.txt" "^custom op example OK (C++)$"

echo "== Python"
run_example "$work/py.txt" "$python" "$example/run_custom_op.py" "$library" \
  "$work/models/custom_op_example.onnx"
expect_line "$work/py.txt" "^output Y: 17 34 51 68 85 102$"
expect_line "$work/py.txt" "^custom op example OK (Python)$"
echo "custom op example OK"
