#!/usr/bin/env bash
# The main job: set up and build, generate the bundled demo model, and benchmark it with
# prism_perf (outputs, partition and latency). Extra arguments go to prism_perf.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
build_dir="${PRISM_BUILD_DIR:-$root/build}"
model="$build_dir/models/prism_demo.onnx"
"$root/.venv/bin/python" "$root/tools/models/make_demo_model.py" "$model"
"$build_dir/prism_perf" -m "$model" -f batch:4 -w 5 -r 100 "$@"
