#!/usr/bin/env bash
# Packs what a bare machine with AVX-512 needs to run tests/isa/device_check.sh (the host CPU of
# the device tool's GPU machine: docs/testing.md, "AVX-512 on a lent machine") into .isacarry/
# (ignored by git, under the 64 MiB a call carries): the build's test and benchmark programs and
# its libraries, the shared libraries they need that such a machine lacks (protobuf, ONNX,
# oneDNN, ...; not glibc or the compiler's runtime), the int8 bench models, the ONNX conformance
# data and the bench model generator, each compressed.
#   tests/isa/pack.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shared=${PRISM_SHARED_DIR:-$root/../shared}
out=$root/.isacarry
grep -qx '/.isacarry/' "$root/.git/info/exclude" 2>/dev/null || echo '/.isacarry/' >>"$root/.git/info/exclude"
rm -rf "$out"
mkdir -p "$out/stage/build" "$out/stage/lib"
programs=(prism_unit_tests prism_onnx_test prism_conv_bench prism_gemm_bench prism_perf)
for program in "${programs[@]}"; do cp "$build/$program" "$out/stage/build/"; done
# Every library the build made beside its programs: the plugins the tests find by file name too,
# and the folders of plugins and data the unit tests read from the build.
cp "$build"/*.so "$out/stage/build/"
for folder in plugin-tests custom-op-example session-test-data; do
  cp -r "$build/$folder" "$out/stage/build/"
done
for binary in "$out"/stage/build/*.so "${programs[@]/#/$out/stage/build/}"; do
  ldd "$binary" | awk '/=> \//{print $3}'
done | sort -u | while read -r library; do
  case $(basename "$library") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
    libcuda*|libcublas*|libcudnn*|libcudart*|libnvrtc*|libprism*) ;;
    *) cp -L "$library" "$out/stage/lib/" ;;
  esac
done
strip --strip-debug "$out"/stage/build/*.so "${programs[@]/#/$out/stage/build/}" \
  "$out"/stage/lib/* 2>/dev/null || true
# The int8 QDQ models as this tree's pinned onnxruntime quantizes them (another version's
# quantize_static makes another graph, which the NHWC transformer tests' structure checks reject).
mkdir -p "$out/stage/build/bench-models"
for model in resnet50_qdq mobilenetv2_qdq; do
  if [ -f "$build/bench-models/$model.onnx" ]; then
    cp "$build/bench-models/$model.onnx" "$out/stage/build/bench-models/"
  else
    echo "pack: no $build/bench-models/$model.onnx (benchmarks/make_derived_models.py makes it):" \
      "the machine's own onnxruntime will quantize it" >&2
  fi
done
tar -C "$out/stage" -cf - build lib | xz -T2 -6 >"$out/build.tar.xz"
tar -C "$shared" -cf - onnx-tests bench/make_models.py | xz -T2 -6 >"$out/shared.tar.xz"
rm -rf "$out/stage"
du -sh "$out"/*
