#!/bin/sh
# Installs the Debian packages the build needs when any is missing (with --test, also
# those only the test suites need: tools/test.sh asks for them), then configures and
# builds onnxtxt in build/. Says what it does at each step, and lets apt, meson and ninja
# show their own progress. Safe to run again.
set -eu
cd "$(dirname "$0")/.."

# what `meson setup build` and `ninja -C build` need (check: the unit suites are built too;
# libjpeg and libpng: ImageDecoder, optional)
BUILD_PACKAGES="gcc pkg-config meson ninja-build re2c lemon libprotobuf-c-dev protobuf-c-compiler check
libjpeg-dev libpng-dev"
# what only the tests need: Debian's onnx for the interop suites, valgrind, clang and its
# sanitizer runtime for the fuzz builds, Graphviz and groff for the pictures and the
# manual, libonnx-dev and protoc for the comparisons with onnx's own tools
TEST_PACKAGES="python3 python3-onnx python3-jsonschema protobuf-compiler libonnx-dev valgrind clang libclang-rt-14-dev graphviz
groff-base"

case "${1:-}" in
"") packages=$BUILD_PACKAGES what="build" ;;
--test) packages="$BUILD_PACKAGES $TEST_PACKAGES" what="build and test" ;;
*)
	echo "usage: tools/setup.sh [--test]   (--test: also install what the tests need)" >&2
	exit 2
	;;
esac

step() { echo "setup: $*"; }

missing=""
for p in $packages; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	step "installing the missing $what packages:$missing"
	step "apt-get update"
	$SUDO apt-get update -q
	step "apt-get install"
	# shellcheck disable=SC2086 # the words of the list
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
else
	step "the $what packages are installed"
fi

if [ ! -f build/build.ninja ]; then
	step "configuring build/ (meson setup)"
	meson setup build
fi
step "building (ninja -C build)"
ninja -C build
step "built build/tools/onnxtxt"
