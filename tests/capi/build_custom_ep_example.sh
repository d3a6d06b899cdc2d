#!/bin/sh
# Installs the build into a temporary prefix and checks what an execution provider plugin gets
# from it: the EP SDK headers (prism/ep/) each compile alone with only the installed include
# folder, and include nothing but the standard library and each other (no protobuf, no internal
# header); examples/custom_ep builds out of tree against the installed package
# (find_package(prism): prism::ep_sdk for the plugin, prism::prism for the program); the plugin
# links no Prism library; the C++ program and the Python script (the prismrt package installed
# into PYTHON's environment) load it by name and run a model whose nodes it takes in part, checking
# the outputs and the partition report.
# Usage: build_custom_ep_example.sh CMAKE BUILD_DIR EXAMPLE_DIR PYTHON CXX
set -eu
cmake=$1
build_dir=$2
example=$3
python=$4
cxx=$5

work=$(mktemp -d "${TMPDIR:-/tmp}/prism-custom-ep-example.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
prefix=$work/prefix

. "$(dirname "$0")/example_checks.sh"

"$cmake" --install "$build_dir" --prefix "$prefix" > /dev/null

echo "== installed EP SDK headers"
headers=$(ls "$prefix"/include/prism/ep/*.h)
[ -n "$headers" ] || { echo "no headers in $prefix/include/prism/ep" >&2; exit 1; }
for header in $headers; do
  name=prism/ep/$(basename "$header")
  # Only standard headers (<...>) and other SDK headers ("prism/ep/...") may be included.
  if grep -E '^[[:space:]]*#[[:space:]]*include' "$header" |
      grep -Ev '#[[:space:]]*include[[:space:]]*(<[a-z_]+>|"prism/ep/[a-z_]+\.h")'; then
    echo "$name includes something besides the standard library and prism/ep/" >&2
    exit 1
  fi
  if grep -Eiq 'protobuf|onnx::|google::' "$header"; then
    echo "$name mentions protobuf or ONNX's generated types" >&2
    exit 1
  fi
  printf '#include "%s"\nint main() { return 0; }\n' "$name" > "$work/one_header.cc"
  # Only the installed include folder on the path: no source tree, no protobuf.
  "$cxx" -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I "$prefix/include" \
    "$work/one_header.cc" || { echo "$name does not compile alone" >&2; exit 1; }
  echo "$name: compiles alone"
done

echo "== build"
"$cmake" -S "$example" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
"$cmake" --build "$work/build"
plugin=$work/build/libprism_provider_example.so
if command -v readelf > /dev/null 2>&1 && readelf -d "$plugin" | grep -q "libprism"; then
  echo "the example EP plugin links a Prism library" >&2
  exit 1
fi
"$python" "$example/make_model.py" "$work/models"
model=$work/models/custom_ep_example.onnx

echo "== C++"
run_example "$work/cxx.txt" "$work/build/prism_custom_ep_example" "$work/build" "$model"
expect_line "$work/cxx.txt" "\[main\] add (Add, opset 17) -> ExampleExecutionProvider (fused into ExampleExecutionProvider_fused_0)"
expect_line "$work/cxx.txt" "\[main\] sub (Sub, opset 17) -> ExampleExecutionProvider (fused into ExampleExecutionProvider_fused_1)"
expect_line "$work/cxx.txt" "\[main\] sigmoid (Sigmoid, opset 17) -> CPUExecutionProvider"
expect_line "$work/cxx.txt" "ExampleExecutionProvider: op type Sigmoid is not one of Add, Sub, Mul, Relu"
expect_line "$work/cxx.txt" "ExampleExecutionProvider: input 1 has shape \[5000\], input 0 \[3,5000\]; this EP does not broadcast"
expect_line "$work/cxx.txt" "^option ops=Add,Mul,Relu,Sub$"
expect_line "$work/cxx.txt" "^custom EP example OK (C++)$"

echo "== Python"
run_example "$work/py.txt" "$python" "$example/run_custom_ep.py" "$work/build" "$model"
expect_line "$work/py.txt" "^providers: \['ExampleExecutionProvider', 'CPUExecutionProvider'\]$"
expect_line "$work/py.txt" "\[main\] mul (Mul, opset 17) -> ExampleExecutionProvider"
expect_line "$work/py.txt" "^custom EP example OK (Python)$"
echo "custom EP example OK"
