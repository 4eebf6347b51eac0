#!/bin/sh
# tools/setup.sh, run on a copy with stand-ins for dpkg, apt-get, sudo, meson and ninja
# that record what they are asked: the build alone installs only the build packages, with
# --test the test packages too (tools/test.sh asks for them); every step says what it does
# and apt's, meson's and ninja's own output is shown; nothing is installed when all is
# there. TAP output. $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
ONNXTXT=${ONNXTXT:-unused}
. "$(dirname "$0")/tap.sh"

mkdir -p repo/tools stubs
cp "$root/tools/setup.sh" repo/tools/setup.sh
# dpkg -s: installed when the package is listed in $work/installed
cat >stubs/dpkg <<STUB
#!/bin/sh
grep -qx "\$2" "$work/installed" 2>/dev/null
STUB
for tool in apt-get meson ninja; do
	cat >"stubs/$tool" <<STUB
#!/bin/sh
echo "$tool \$*" >>"$work/calls.txt"
echo "$tool is working"
[ "$tool" != meson ] || { mkdir -p build && : >build/build.ninja; }
STUB
done
printf '#!/bin/sh\nexec "$@"\n' >stubs/sudo
chmod +x stubs/*

build_only="gcc pkg-config meson ninja-build re2c lemon libprotobuf-c-dev protobuf-c-compiler check libjpeg-dev libpng-dev"
test_only="python3-onnx libonnx-dev valgrind clang libclang-rt-14-dev graphviz groff-base"
setup() { rm -rf repo/build calls.txt; PATH="$work/stubs:$PATH" sh repo/tools/setup.sh "$@" >out.txt 2>err.txt; }
installed() { sed -n 's/^apt-get install //p' calls.txt | tr ' ' '\n'; }

setup
status=$?
check "setup.sh exits 0" '[ "$status" -eq 0 ]'
for p in $build_only; do
	installed | grep -qx "$p" || not_ok "setup.sh installs the build package $p"
done
ok "setup.sh installs every build package"
check "setup.sh installs no test-only package" \
	'! installed | grep -qx -e python3-onnx -e libonnx-dev -e valgrind -e clang -e libclang-rt-14-dev -e graphviz'
check "setup.sh says what it does at each step" \
	'has out.txt "^setup: installing" && has out.txt "^setup: configuring" && has out.txt "^setup: building" &&
	 has out.txt "^setup: built build/tools/onnxtxt"'
check "apt-get, meson and ninja show their own output" \
	'has out.txt "^apt-get is working" && has out.txt "^meson is working" && has out.txt "^ninja is working"'

setup --test
status=$?
check "setup.sh --test exits 0" '[ "$status" -eq 0 ]'
for p in $build_only $test_only; do
	installed | grep -qx "$p" || not_ok "setup.sh --test installs $p"
done
ok "setup.sh --test installs the build and the test packages"

echo "$build_only" | tr ' ' '\n' >installed
setup
check "nothing is installed when the build packages are there" \
	'! grep -q "^apt-get" calls.txt && has out.txt "^setup: the build packages are installed"'
setup --test
check "--test still installs the test packages then" 'installed | grep -qx valgrind && ! installed | grep -qx gcc'

setup --frobnicate
status=$?
check "an unknown option is a usage error" '[ "$status" -eq 2 ] && has err.txt "usage: tools/setup.sh"'
check "tools/test.sh installs the test packages (setup.sh --test)" \
	'grep -q "^tools/setup.sh --test" "$root/tools/test.sh"'

echo "1..$n"
[ "$failed" -eq 0 ]
