#!/usr/bin/env bash
# Idempotent set-up on Debian 12: installs the apt packages the build and tests need, makes the
# Python virtual environment .venv with the pinned test requirements, configures and builds.
# Quick when everything is already in place. Environment overrides:
#   PRISM_BUILD_DIR (default: build), PRISM_BUILD_TYPE (default: Release)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/lib/ccache_env.sh"
cd "$root"
build_dir="${PRISM_BUILD_DIR:-$root/build}"
build_type="${PRISM_BUILD_TYPE:-Release}"

apt_packages=(cmake g++ make ccache libprotobuf-dev protobuf-compiler libonnx-dev libeigen3-dev
              libgtest-dev libgmock-dev libbenchmark-dev python3-dev python3-venv graphviz
              clang-format qemu-user libjpeg62-turbo-dev libpng-dev libtiff-dev libwebp-dev
              libopenjp2-7-dev pkg-config libre2-dev libdnnl-dev ocl-icd-opencl-dev)
missing=()
for package in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# One virtual environment with pinned requirements; rebuilt when the pins change.
stamp=".venv/.requirements-test.txt"
if [ ! -x .venv/bin/python ] || ! cmp -s requirements-test.txt "$stamp"; then
  echo "setup: creating .venv with requirements-test.txt"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements-test.txt
  cp requirements-test.txt "$stamp"
fi

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
configure_args=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type"
                -DPRISM_WARNINGS_AS_ERRORS=ON -DPython_EXECUTABLE="$root/.venv/bin/python"
                "${launcher[@]}")
# Reconfigure when the options above or any of the tree's CMake files change, not only when no
# cache exists: a stale cache can silently drop tests or keep old flags.
configure_stamp=$("$root/scripts/lib/configure_stamp.sh" "$root" "${configure_args[@]}")
stamp_file="$build_dir/.prism-configure-stamp"
if [ ! -f "$build_dir/CMakeCache.txt" ] || [ "$(cat "$stamp_file" 2>/dev/null)" != "$configure_stamp" ]; then
  echo "setup: configuring $build_dir"
  cmake "${configure_args[@]}"
  echo "$configure_stamp" > "$stamp_file"
fi
cmake --build "$build_dir" -j "$(nproc)"
