#!/usr/bin/env bash
# The CUDA EP's checks on a machine with a GPU (the device tool's machines: see
# docs/cuda.md). Run from the repository root of a tree built with the CUDA toolkit
# (build/libprism_provider_cuda.so present) and the Python package installed in .venv:
#   tests/gpu/run.sh [BUILD_DIR]
# 1. the GPU tests (tests/gpu/test_*.py: every kernel family against onnxruntime's CPU
#    results, placement read from the partition report, device IO binding, gpu_mem_limit);
# 2. the ONNX node conformance suite with CUDA first (everything the CPU EP passes must pass,
#    and every op of tests/conformance/cuda_claimed_ops.txt must run on CUDA in a passed test);
# 3. the cross-provider consistency test (CUDA against the CPU EP on perturbed inputs).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
python=${PYTHON:-$root/.venv/bin/python}
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "== GPU tests"
PRISM_BUILD_DIR=$build "$python" -m pytest -q -p no:cacheprovider -rs "$root/tests/gpu" || status=1
# In one process (--no-isolate): a child per test would start CUDA a thousand times.
conformance=("$build/prism_onnx_test" --suite node --no-isolate
             --ops-file "$root/tests/conformance/core_ops.txt")
echo "== node conformance suite, CUDA first"
"${conformance[@]}" --providers CUDAExecutionProvider \
  --expected-failures "$root/tests/conformance/expected_failures.txt" \
  --require-provider-ops "$root/tests/conformance/cuda_claimed_ops.txt" \
  --report-dir "$build/conformance-report/node-cuda" || status=1
echo "== cross-provider consistency, CUDA against the CPU EP"
"${conformance[@]}" --compare-with-cpu --providers CUDAExecutionProvider \
  --report-dir "$build/conformance-report/node-cuda-consistency" || status=1
exit $status
