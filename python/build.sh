#!/usr/bin/env bash
# Builds the shared library the Python package loads:
#   python/build.sh            -> python/authppr/libauthppr.so (+ libauthppr.h)
#   python/build.sh DIR        -> DIR/libauthppr.so (point AUTHPPR_LIB at it)
# Needs Go and a C compiler (cgo).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/authppr}
mkdir -p "$out"
cd "$here/.."
CGO_ENABLED=1 go build -buildmode=c-shared -o "$out/libauthppr.so" ./cabi
echo "built $out/libauthppr.so"
