#!/usr/bin/env bash
# Packs what a bare GPU machine (the device tool's) needs to run tests/gpu/device_check.sh into
# .gpucarry/ (ignored by git, under the 64 MiB a call carries): the built libraries and tools
# (from BUILD_DIR, built here with the CUDA toolkit), the shared libraries they need that such a
# machine lacks (protobuf, ONNX; not glibc, libstdc++ or CUDA's, which it has), the ONNX
# conformance data compressed, and the bench model generator.
#   tests/gpu/pack.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shared=${PRISM_SHARED_DIR:-$root/../shared}
out=$root/.gpucarry
grep -qx '/.gpucarry/' "$root/.git/info/exclude" 2>/dev/null || echo '/.gpucarry/' >>"$root/.git/info/exclude"
rm -rf "$out"
mkdir -p "$out/lib" "$out/bin" "$out/shared/bench"
test -f "$build/libprism_provider_cuda.so" || { echo "no $build/libprism_provider_cuda.so: build with the CUDA toolkit first" >&2; exit 1; }
cp "$build"/libprism.so "$build"/libprism_core.so "$build"/libprism_provider_cuda.so "$out/lib/"
cp "$build"/prism_onnx_test "$build"/prism_perf "$out/bin/"
# Shared libraries outside glibc, the compiler's runtime and CUDA's.
for binary in "$out"/lib/*.so "$out"/bin/*; do
  ldd "$binary" | awk '/=> \//{print $3}'
done | sort -u | while read -r library; do
  case $(basename "$library") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
    libcuda*|libcublas*|libcudnn*|libnvrtc*|libprism*) ;;
    *) cp -L "$library" "$out/lib/" ;;
  esac
done
tar -C "$shared" -cf - onnx-tests | xz -T2 -6 >"$out/shared/onnx-tests.tar.xz"
cp "$shared/bench/make_models.py" "$out/shared/bench/"
du -sh "$out"
ls -la "$out/lib"
