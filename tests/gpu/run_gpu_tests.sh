#!/usr/bin/env bash
# The CUDA EP's GPU tests (tests/gpu/test_cuda_*.py) for CTest: exit 77 (CTest's SKIP_RETURN_CODE
# for cuda_ep_gpu, shown as "Skipped") with the reason when no CUDA device is usable, so the tests
# are never counted as passed on a machine without a GPU. Usage: run_gpu_tests.sh PYTHON
set -euo pipefail
python=$1
here=$(cd "$(dirname "$0")" && pwd)
if ! "$python" -c 'import prismrt, sys; sys.exit(0 if "CUDAExecutionProvider" in prismrt.get_available_providers() else 1)'; then
  echo "SKIPPED: no usable CUDA device here (CUDAExecutionProvider not available); run tests/gpu/run.sh on a GPU machine"
  exit 77
fi
exec "$python" -m pytest -q -p no:cacheprovider -rs "$here"
