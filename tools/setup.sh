#!/bin/sh
# Installs the build and test dependencies (Debian packages) when any is missing, then
# configures and builds onnxtxt in build/. Safe to run again.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="gcc pkg-config meson ninja-build re2c lemon libprotobuf-c-dev protobuf-c-compiler check
python3 python3-onnx protobuf-compiler libonnx-dev valgrind clang libclang-rt-14-dev graphviz groff-base
libjpeg-dev libpng-dev"

missing=""
for p in $PACKAGES; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	echo "setup: installing$missing"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null
echo "setup: built build/tools/onnxtxt"
