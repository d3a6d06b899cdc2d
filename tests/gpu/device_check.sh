#!/usr/bin/env bash
# On a bare GPU machine (the device tool's; docs/cuda.md "Testing on a GPU"): sets up what
# tests/gpu/pack.sh carried in .gpucarry/, then runs tests/gpu/run.sh (GPU tests, conformance with
# CUDA first, consistency against the CPU EP) and, unless told not to, the timings against PyTorch
# eager (benchmarks/gpu_compare.py). Logs and tables go to $OUT (or /tmp/gpu-out).
#   tests/gpu/device_check.sh [--no-timings] [--models resnet50,bert_base] [--batches 1,32]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
carry=$root/.gpucarry
out=${OUT:-/tmp/gpu-out}
mkdir -p "$out"
timings=1
models=resnet50,bert_base
batches=1,32
while [ $# -gt 0 ]; do
  case $1 in
    --no-timings) timings=0 ;;
    --models) models=$2; shift ;;
    --batches) batches=$2; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$python" --version
# CUDA's libraries: the toolkit's, else the NVIDIA wheels beside PyTorch.
cuda_dirs=$("$python" - <<'PY'
import glob, os
dirs = []
for pattern in ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]:
    dirs += glob.glob(pattern)
try:
    import nvidia
    for base in nvidia.__path__:
        dirs += sorted(glob.glob(os.path.join(base, "*", "lib")))
except ImportError:
    pass
print(":".join(d for d in dirs if os.path.isdir(d)))
PY
)
# The carried libraries last: where the machine has its own (zlib, ...), its own win.
export LD_LIBRARY_PATH=$cuda_dirs:${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$carry/lib
export PRISMRT_LIBRARY_DIR=$carry/lib
export PYTHONPATH=$root/python:${PYTHONPATH:-}
export PRISM_SHARED_DIR=/tmp/prism-shared
mkdir -p "$PRISM_SHARED_DIR/bench"
tar -C "$PRISM_SHARED_DIR" -xJf "$carry/shared/onnx-tests.tar.xz"
cp "$carry/shared/bench/make_models.py" "$PRISM_SHARED_DIR/bench/"
ldd "$carry/lib/libprism_provider_cuda.so" | grep -E "not found|cudnn|cublas|cudart" | tee "$out/ldd.txt"
"$python" -c 'import prismrt; print("providers:", prismrt.get_available_providers())'
status=0
# tests/gpu/run.sh with the carried binaries in place of build/.
mkdir -p /tmp/prism-build
cp "$carry"/bin/* "$carry"/lib/*.so /tmp/prism-build/
PYTHON=$python timeout "${GPU_TESTS_TIMEOUT:-360}" "$root/tests/gpu/run.sh" /tmp/prism-build 2>&1 |
  tee "$out/gpu_tests.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
if [ $timings -eq 1 ]; then
  models_dir=/tmp/prism-models
  "$python" "$PRISM_SHARED_DIR/bench/make_models.py" "$models_dir" --models "$models" --no-check
  "$python" "$root/benchmarks/make_batch_variants.py" "$models_dir" --models "$models" --batch 32
  timeout "${TIMINGS_TIMEOUT:-300}" "$python" "$root/benchmarks/gpu_compare.py" --models-dir "$models_dir" --models "$models" \
    --batches "$batches" --markdown "$out/gpu_compare.md" --json "$out/gpu_compare.json" \
    --reports "$out/partition_reports.txt" ${PROFILE:+--profile "$out/kernel_profile.txt"} \
    2>&1 | tee "$out/gpu_compare.log" || status=1
fi
exit $status
