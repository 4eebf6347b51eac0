#!/bin/sh
# meson install into a scratch DESTDIR: the program, both libraries, the headers, the
# pkg-config file, the manual and the bash completion land in the usual places; the
# installed program starts in an empty environment (its run path finds the installed
# library, no LD_LIBRARY_PATH); the README's C example, cut from README.md, compiles against the installed library through
# pkg-config (shared and static) and prints what the README says it prints. TAP output;
# a skip without meson, pkg-config or a C compiler.
# Environment: ONNXTXT_SOURCE_ROOT, ONNXTXT_BUILD_ROOT, MESON (the meson command), CC.

# shellcheck disable=SC2016,SC2034
ONNXTXT=${ONNXTXT:-unused}
. "$(dirname "$0")/tap.sh"
build=${ONNXTXT_BUILD_ROOT:?set ONNXTXT_BUILD_ROOT to the build directory}
meson=${MESON:-meson}
cc=${CC:-cc}

for tool in "$meson" pkg-config "$cc"; do
	if ! command -v "${tool%% *}" >/dev/null 2>&1; then
		echo "1..0 # SKIP ${tool%% *} is not installed"
		exit 0
	fi
done

dest=$work/dest
DESTDIR=$dest $meson install -C "$build" --no-rebuild --quiet >install.log 2>&1
status=$?
if [ "$status" -ne 0 ]; then
	not_ok "meson install into DESTDIR succeeds" "$(head -c 1000 install.log)"
	echo "1..$n"
	exit 1
fi
ok "meson install into DESTDIR succeeds"

# The prefix and libdir the build was configured with, as the installed files show them.
prefix=$(find "$dest" -path '*/bin/onnxtxt' | sed "s|^$dest||; s|/bin/onnxtxt\$||")
pc=$(find "$dest" -name onnxtxt.pc | head -n 1)
libdir=$(dirname "$(dirname "$pc")")
check "the program is in PREFIX/bin" '[ -x "$dest$prefix/bin/onnxtxt" ]'
check "the shared library is in the libdir, with its soname links" \
	'[ -f "$libdir/libonnxtxt.so.0.1.0" ] && [ -L "$libdir/libonnxtxt.so.0" ] && [ -L "$libdir/libonnxtxt.so" ]'
check "the static library is in the libdir" '[ -f "$libdir/libonnxtxt.a" ]'
check "the headers are in PREFIX/include/onnxtxt" \
	'[ -f "$dest$prefix/include/onnxtxt/onnxtxt.h" ] && [ -f "$dest$prefix/include/onnxtxt/onnx.pb-c.h" ]'
check "the pkg-config file is in LIBDIR/pkgconfig" '[ -n "$pc" ] && [ "$(basename "$(dirname "$pc")")" = pkgconfig ]'
check "the manual is in PREFIX/share/man/man1" '[ -f "$dest$prefix/share/man/man1/onnxtxt.1" ]'
check "the bash completion is in PREFIX/share/bash-completion/completions" \
	'[ -f "$dest$prefix/share/bash-completion/completions/onnxtxt" ]'

# A clean environment (no LD_LIBRARY_PATH): the program finds the library through its
# run path, relative to where it is, as it must in a prefix such as ~/.local.
env -i "$dest$prefix/bin/onnxtxt" --version >version.txt 2>&1
check "the installed program starts in a clean environment" 'grep -q "^onnxtxt [0-9]" version.txt'
grep -q "^onnxtxt [0-9]" version.txt || sed 's/^/# /' version.txt | head -n 3
used=$(env -i ldd "$dest$prefix/bin/onnxtxt" 2>&1 | sed -n 's/^[[:space:]]*libonnxtxt\.so\.0 => \([^ ]*\) .*/\1/p')
check "the installed program uses the installed library" \
	'[ -n "$used" ] && [ "$(realpath "$used")" = "$(realpath "$libdir/libonnxtxt.so.0")" ]'
if command -v man >/dev/null 2>&1; then
	MANWIDTH=100 man -l "$dest$prefix/share/man/man1/onnxtxt.1" >man.txt 2>man.err
	check "man renders the installed manual" 'grep -q "EXIT STATUS" man.txt && [ ! -s man.err ]'
else
	skip "man renders the installed manual" "man is not installed"
fi

# The README's example: the ```c block after the c-example marker, and its output.
awk '/^<!-- c-example:/ { want = 1; next } want && /^```c$/ { inside = 1; next }
	inside && /^```$/ { exit } inside { print }' "$root/README.md" >relu.c
awk '/^<!-- c-example output -->/ { want = 1; next } want && /^```$/ { if (inside) exit; inside = 1; next }
	inside { print }' "$root/README.md" >want.txt
check "the README has the C example and its output" '[ -s relu.c ] && [ -s want.txt ]'

export PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs onnxtxt 2>pc.err)
check "pkg-config --cflags --libs onnxtxt" '[ -n "$flags" ] && [ ! -s pc.err ]'
# shellcheck disable=SC2086 # the words of the flags
$cc -std=c11 -Wall -Wextra -Werror relu.c $flags -o relu-shared 2>cc.err
status=$?
check "the C example compiles as the README shows, against the shared library" '[ "$status" -eq 0 ]'
[ "$status" -eq 0 ] || sed 's/^/# /' cc.err
static_flags=$(pkg-config --static --cflags --libs onnxtxt | sed 's/-lonnxtxt/-l:libonnxtxt.a/')
# shellcheck disable=SC2086
$cc -std=c11 relu.c $static_flags -o relu-static 2>cc.err
status=$?
check "the C example links with the static library" '[ "$status" -eq 0 ]'
[ "$status" -eq 0 ] || sed 's/^/# /' cc.err
check "the static program does not need libonnxtxt.so" '! ldd ./relu-static 2>/dev/null | grep -q libonnxtxt'

# the README's program has no run path of its own: it is told where the library is
LD_LIBRARY_PATH=${libdir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
for kind in shared static; do
	[ -x "relu-$kind" ] || continue
	rm -f relu.onnx
	"./relu-$kind" >got.txt 2>err.txt
	status=$?
	if [ "$status" -ne 0 ] && grep -q 'is not supported' err.txt; then
		skip "the C example ($kind) prints what the README shows" "$(grep -o 'operator [^ ]* is not supported' err.txt) yet"
		check "the C example ($kind) parsed and checked the model first" 'grep -q "the model is valid" got.txt'
		continue
	fi
	check "the C example ($kind) prints what the README shows" '[ "$status" -eq 0 ] && same got.txt want.txt'
	same got.txt want.txt || { diff want.txt got.txt | sed 's/^/# /'; sed 's/^/# /' err.txt; }
	check "the C example ($kind) wrote relu.onnx, which onnxtxt reads" \
		'"$dest$prefix/bin/onnxtxt" check -q relu.onnx'
done

echo "1..$n"
[ "$failed" -eq 0 ]
