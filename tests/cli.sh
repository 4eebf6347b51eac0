#!/bin/sh
# The command line as a user meets it: help and version, exit statuses (0 ok, 1 invalid model,
# 2 usage, 3 file error), GNU-style error messages with the source line and a caret, output
# that equals the library's and the official onnx package's bytes, and atomic output files.
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"
golden=$root/corpus/valid/golden_sample.onnxtxt
mlp=$root/corpus/valid/mlp_classifier.onnxtxt

# ---- help and version -----------------------------------------------------------------------

for opt in --help -h; do
	if run 0 "$opt exits 0" "$opt"; then
		check "$opt prints a usage on stdout" "has out.txt '^Usage: onnxtxt'"
	fi
done
for opt in --version -V; do
	if run 0 "$opt exits 0" "$opt"; then
		version=$(sed -n 's/^#define ONNXTXT_VERSION "\(.*\)"$/\1/p' "$root/include/onnxtxt/onnxtxt.h")
		check "$opt prints onnxtxt $version" '[ "$(cat out.txt)" = "onnxtxt $version" ]'
	fi
done
for opt in --help -h; do
	if run 0 "to-binary $opt exits 0" to-binary "$opt"; then
		check "to-binary $opt prints its usage" "has out.txt '^Usage: onnxtxt to-binary'"
	fi
done

# ---- usage errors: status 2, a message on stderr, nothing on stdout -------------------------

usage_error() {
	desc=$1
	shift
	if run 2 "$desc exits 2" "$@"; then
		check "$desc: message on stderr only" 'nonempty err.txt && empty out.txt'
	fi
}
usage_error "no command"
usage_error "unknown command" frobnicate "$golden"
usage_error "unknown option" --frobnicate
usage_error "unknown option of to-binary" to-binary --frobnicate "$golden"
usage_error "missing input" to-binary
usage_error "missing input after -o" to-binary -o out.onnx
usage_error "-o without a file" to-binary "$golden" -o
usage_error "two inputs" to-binary "$golden" "$mlp"
check "usage errors wrote no file" '[ ! -e out.onnx ]'

# ---- invalid models: status 1 with FILE:LINE:COL, the line and a caret ----------------------

printf '<ir_version: 8>\ng (float[N] x) => (float y) { y = Add(x, }\n' >bad.onnxtxt
expected_error() {
	cat <<EOF
$1:2:42: error: expected ')', ',', an identifier or a string after ',', found '}'
g (float[N] x) => (float y) { y = Add(x, }
                                         ^
EOF
}
if run 1 "a syntax error exits 1" to-binary bad.onnxtxt -o bad.onnx; then
	expected_error bad.onnxtxt >want.txt
	check "a syntax error shows FILE:LINE:COL: error:, the line and a caret" 'same err.txt want.txt'
	check "a syntax error writes nothing" '[ ! -e bad.onnx ]'
fi
"$cli" to-binary - <bad.onnxtxt >out.txt 2>err.txt
status=$?
expected_error '<stdin>' >want.txt
check "a syntax error on standard input exits 1" '[ "$status" -eq 1 ]'
check "the error on standard input is named <stdin>, with the line and a caret" 'same err.txt want.txt'
check "nothing on standard output after an error" 'empty out.txt'

printf 'g (int8[1] x = {300}) => (int8[1] y) { y = Identity(x) }\n' >value.onnxtxt
if run 1 "a value out of range exits 1" to-binary value.onnxtxt; then
	check "the value error names its place" "has err.txt '^value.onnxtxt:1:17: error: value 300 is out of range for int8\$'"
fi
deep=$(i=0; while [ $i -lt 70 ]; do printf 'seq('; i=$((i + 1)); done)
printf 'g (%sfloat x) => () {}\n' "$deep" >deep.onnxtxt
if run 1 "nesting beyond the limit exits 1" to-binary deep.onnxtxt; then
	check "the limit is named" "has err.txt '^deep.onnxtxt:1:[0-9]*: error: nesting too deep'"
fi

# ---- file errors: status 3 ------------------------------------------------------------------

if run 3 "a missing input file exits 3" to-binary missing.onnxtxt -o out.onnx; then
	check "the missing file is named" "has err.txt missing.onnxtxt"
	check "a missing input writes nothing" '[ ! -e out.onnx ]'
fi
mkdir adir
run 3 "a directory as input exits 3" to-binary adir && ok "a directory as input is a file error"
run 3 "a directory as output exits 3" to-binary "$golden" -o adir &&
	check "the directory is left alone" '[ -d adir ] && [ -z "$(entries adir)" ]'
run 3 "output into a missing directory exits 3" to-binary "$golden" -o nodir/out.onnx &&
	check "no directory was created" '[ ! -e nodir ]'
# Output errors: every command, --help and --version say why standard output could not be
# written, once, and exit 3 (the output is lost, so success would be a lie).
if [ -w /dev/full ]; then
	relu=$root/corpus/examples/relu.onnxtxt
	echo "onnxtxt: error: cannot write standard output: No space left on device" >full-want.txt
	while IFS='|' read -r desc args; do
		# shellcheck disable=SC2086 # the words of the arguments
		"$cli" $args >/dev/full 2>err.txt
		status=$?
		check "$desc > /dev/full: exit 3 and the reason" '[ "$status" -eq 3 ] && same err.txt full-want.txt'
	done <<EOF
to-binary|to-binary $golden
to-binary -o -|to-binary $golden -o -
to-text|to-text $mlp
fmt|fmt $golden
fmt --check|fmt --check $mlp
check|check $mlp
dot|dot $mlp
run|run $relu
test|test $relu
test of many cases|test $root/corpus/eval
--help|--help
--version|--version
run --help|run --help
help check|help check
EOF
	for c in to-text to-binary dot; do
		"$cli" "$c" "$mlp" -o /dev/full >out.txt 2>err.txt
		status=$?
		check "$c -o /dev/full: exit 3 with the file and the reason" \
			'[ "$status" -eq 3 ] && [ "$(cat err.txt)" = "onnxtxt: error: cannot write /dev/full: No space left on device" ]'
	done
else
	skip "a full standard output exits 3" "/dev/full is not writable"
fi
"$cli" --version >&- 2>err.txt
status=$?
check "a closed standard output exits 3 with the reason" \
	'[ "$status" -eq 3 ] && has err.txt "^onnxtxt: error: cannot write standard output: Bad file descriptor$"'

# ---- output bytes ---------------------------------------------------------------------------

for f in "$golden" "$mlp"; do
	name=$(basename "$f")
	run 0 "$name: -o FILE" to-binary "$f" -o file.onnx || continue
	check "$name: -o FILE writes nothing to stdout or stderr" 'empty out.txt && empty err.txt'
	"$cli" to-binary "$f" -o - >dash.onnx 2>err.txt
	check "$name: -o - equals -o FILE" 'same dash.onnx file.onnx'
	"$cli" to-binary "$f" >plain.onnx 2>err.txt
	check "$name: standard output equals -o FILE" 'same plain.onnx file.onnx'
	"$cli" to-binary - -o stdin.onnx <"$f" 2>err.txt
	check "$name: standard input gives the same bytes" 'same stdin.onnx file.onnx'
	check "$name: the model is not empty" 'nonempty file.onnx'
	cp file.onnx "$name.onnx"
done

# The official onnx package (Debian's python3-onnx 1.12) must produce the same bytes.
if /usr/bin/python3 -c 'import onnx.parser' 2>/dev/null; then
	for f in "$golden" "$mlp"; do
		name=$(basename "$f")
		/usr/bin/python3 - "$f" >official.onnx 2>err.txt <<'EOF'
import sys
import onnx.parser
with open(sys.argv[1], encoding="utf-8") as f:
    model = onnx.parser.parse_model(f.read())
sys.stdout.buffer.write(model.SerializeToString())
EOF
		"$cli" to-binary "$f" -o mine.onnx 2>>err.txt
		check "$name: same bytes as onnx $(/usr/bin/python3 -c 'import onnx; print(onnx.__version__)')" \
			'same mine.onnx official.onnx'
	done
else
	skip "same bytes as the official onnx package" "/usr/bin/python3 has no onnx"
fi

# ---- atomic output --------------------------------------------------------------------------

mkdir atomic
printf 'old content\n' >atomic/out.onnx
cp atomic/out.onnx old.copy
before=$(entries atomic)
run 1 "a parse error exits 1" to-binary bad.onnxtxt -o atomic/out.onnx
check "a parse error leaves an existing output untouched" 'same atomic/out.onnx old.copy'
check "a parse error leaves no temporary file" '[ "$(entries atomic)" = "$before" ]'
run 1 "a parse error with a new output exits 1" to-binary bad.onnxtxt -o atomic/new.onnx
check "a parse error creates no output and no temporary file" '[ "$(entries atomic)" = "$before" ]'
run 0 "a good model replaces the output" to-binary "$golden" -o atomic/out.onnx &&
	check "the output is replaced, without a temporary file left" \
		'same atomic/out.onnx golden_sample.onnxtxt.onnx && [ "$(entries atomic)" = "$before" ]'

# An unwritable directory (root ignores permissions, so root runs the CLI as nobody).
mkdir ro
printf 'old content\n' >ro/out.onnx
cp "$golden" in.onnxtxt
chmod 644 ro/out.onnx in.onnxtxt
chmod 555 ro
as_user=
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null 2>&1 &&
		setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		as_user=none
	fi
fi
if [ "$as_user" = none ]; then
	skip "an unwritable directory exits 3" "running as root without setpriv"
else
	$as_user "$cli" to-binary in.onnxtxt -o ro/out.onnx >out.txt 2>err.txt
	status=$?
	check "an unwritable directory exits 3" '[ "$status" -eq 3 ]'
	check "an unwritable directory is reported" 'nonempty err.txt'
	check "an unwritable directory keeps the old file" 'same ro/out.onnx old.copy'
	$as_user "$cli" to-binary in.onnxtxt -o ro/new.onnx >out.txt 2>err.txt
	status=$?
	check "a new file in an unwritable directory exits 3" '[ "$status" -eq 3 ]'
	check "an unwritable directory is left as it was" '[ "$(entries ro)" = out.onnx ]'
fi
chmod 755 ro

# An interrupted write (SIGINT, SIGTERM, SIGHUP) removes its temporary file: a model big
# enough that the write lasts, a signal as soon as the temporary file is there, then the
# program must have died of that signal and left nothing beside the output. env
# --default-signal undoes the shell's ignoring SIGINT in background jobs.
{
	printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[N] x) => (float[N] y)\n'
	printf '<float[4000000] w = {'
	yes '1.5,' | head -n 3999999 | tr -d '\n'
	printf '1.5}>\n{ y = Add(x, w) }\n'
} >big.onnxtxt
"$cli" to-binary big.onnxtxt -o big.onnx 2>err.txt
interrupt() { # SIGNAL NUMBER COMMAND ARGS...: runs the CLI, signals it mid-write
	sig=$1 num=$2
	shift 2
	rm -rf sig && mkdir sig
	env --default-signal=INT "$cli" "$@" >/dev/null 2>err.txt &
	pid=$!
	i=0
	while [ $i -lt 2000 ] && [ -z "$(entries sig)" ] && kill -0 $pid 2>/dev/null; do
		sleep 0.005
		i=$((i + 1))
	done
	seen=$(entries sig)
	kill -"$sig" $pid 2>/dev/null
	wait $pid
	status=$?
	if [ -z "$seen" ] || [ "$status" -ne $((128 + num)) ]; then
		skip "$sig during $1 -o removes the temporary file" "the write ended before the signal"
	else
		check "$sig during $1 -o removes the temporary file" '[ -z "$(entries sig)" ]'
	fi
}
if env --default-signal=INT true 2>/dev/null && [ -s big.onnx ]; then
	interrupt INT 2 to-binary big.onnxtxt -o sig/out.onnx
	interrupt TERM 15 to-binary big.onnxtxt -o sig/out.onnx
	interrupt HUP 1 to-binary big.onnxtxt -o sig/out.onnx
	interrupt TERM 15 to-text big.onnx -o sig/out.onnxtxt
else
	skip "a signal during -o removes the temporary file" "no env --default-signal, or no big model"
fi
rm -f big.onnxtxt big.onnx

# ---- a terminal -----------------------------------------------------------------------------

if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "'$cli' to-binary '$golden'" /dev/null >tty.txt 2>&1 </dev/null
	status=$?
	check "binary output to a terminal exits 2" '[ "$status" -eq 2 ]'
	check "binary output to a terminal is refused with a message" 'has tty.txt terminal'
	script -qec "'$cli' to-binary '$golden' -o '$work/tty.onnx'" /dev/null >tty.txt 2>&1 </dev/null
	status=$?
	check "-o FILE from a terminal works" '[ "$status" -eq 0 ] && same tty.onnx golden_sample.onnxtxt.onnx'
else
	skip "binary output to a terminal exits 2" "script (util-linux) is not available"
fi

# An error on a very long line still shows the line and the caret.
{
	printf 'g (float x) => (float y) {'
	i=0
	while [ $i -lt 800 ]; do printf ' v%d = Relu(x)' $i; i=$((i + 1)); done
	printf ' y = Relu(x }\n'
} >long.onnxtxt
if run 1 "an error on a long line exits 1" to-binary long.onnxtxt; then
	check "an error on a long line shows a caret" "grep -q '^ *^\$' err.txt"
	check "an error on a long line shows 100 characters around it, not the whole line" "[ \$(wc -c <err.txt) -lt 400 ] && grep -q '^\\.\\.\\..*Relu(x }\$' err.txt"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
