#!/usr/bin/env bash
# Prints a hash of the CMake configure arguments and of every CMake file of the tree at ROOT, so
# that setup.sh reconfigures when either changes. Usage: configure_stamp.sh ROOT [CMAKE_ARG...]
set -euo pipefail
root=$1
shift
cmake_files=$(cd "$root" && find . \( -path ./build -o -path './build-*' -o -path ./.venv -o \
                -path ./.git \) -prune -o \( -name CMakeLists.txt -o -name '*.cmake' -o \
                -name '*.cmake.in' -o -name '*.pc.in' \) -type f -print | LC_ALL=C sort)
{
  printf 'arg %s\n' "$@"
  for file in $cmake_files; do
    printf 'file %s\n' "$file"
    cat "$root/$file"
  done
} | sha256sum | cut -d' ' -f1
