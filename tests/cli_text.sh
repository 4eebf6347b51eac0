#!/bin/sh
# The text direction of the command line: to-text (binary or text in, detected from the
# content; the golden printer outputs byte for byte; atomic output; external data files and
# their location checks), to-binary --embed-external-data, and fmt (print, --check, -i with
# its comment and permission rules). Exit statuses: 0 ok, 1 invalid model (or fmt --check
# finding a non-canonical file), 2 usage, 3 file error.
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"
mlp=$root/corpus/valid/mlp_classifier.onnxtxt
golden_dir=$root/corpus/golden
shared=${ONNXTXT_SHARED:-$root/../shared}
squeezenet=$shared/onnx-backend-data/light-random/test_squeezenet/model.onnx

# the file's inode and modification time (to nanoseconds): changes when a file is replaced
stamp() { stat -c '%i %y' "$1"; }

# ---- help -----------------------------------------------------------------------------------

for opt in --help -h; do
	if run 0 "to-text $opt exits 0" to-text "$opt"; then
		check "to-text $opt prints its usage on stdout, nothing on stderr" \
			"has out.txt '^Usage: onnxtxt to-text ' && empty err.txt"
		check "to-text $opt documents every option" \
			"has out.txt '^  -o, --output ' && has out.txt '^  --no-annotations ' &&
			has out.txt '^  --float-literals ' && has out.txt '^  --external-data FILE' &&
			has out.txt '^  --size-threshold N ' && has out.txt '^  -h, --help '"
	fi
	if run 0 "fmt $opt exits 0" fmt "$opt"; then
		check "fmt $opt prints its usage on stdout, nothing on stderr" \
			"has out.txt '^Usage: onnxtxt fmt \[-i | --check\] \[--drop-comments\] FILE\.\.\.\$' && empty err.txt"
		check "fmt $opt documents every option" \
			"has out.txt '^  -i ' && has out.txt '^  --check ' && has out.txt '^  --drop-comments ' &&
			has out.txt '^  -h, --help '"
	fi
done
# The synopsis lists every option.
"$cli" to-text --help >out.txt 2>err.txt
check "to-text --help: the usage lists --external-data FILE and --size-threshold N" \
	"sed -n '1,/^\$/p' out.txt | grep -q -- '--external-data FILE' && sed -n '1,/^\$/p' out.txt | grep -q -- '--size-threshold N'"

# ---- usage errors: status 2, a message on stderr, nothing on stdout -------------------------

usage_error() {
	what=$1
	shift
	if run 2 "$what exits 2" "$@"; then
		check "$what: a message on stderr, nothing on stdout" 'nonempty err.txt && empty out.txt'
	fi
}
printf 'g(float x)=>(float y){y=Relu(x)}\n' >loose.onnxtxt
cp loose.onnxtxt loose.copy
before=$(entries .)
usage_error "to-text: an unknown option" to-text --frobnicate "$mlp"
usage_error "to-text: no input" to-text
usage_error "to-text: no input after -o" to-text -o new.txt
usage_error "to-text: two inputs" to-text "$mlp" loose.onnxtxt
usage_error "to-text: -o without a file" to-text "$mlp" -o
usage_error "to-text: --external-data without a file" to-text "$mlp" --external-data
usage_error "to-text: --size-threshold abc" to-text --size-threshold abc "$mlp"
usage_error "to-text: --size-threshold -1" to-text --size-threshold -1 "$mlp"
usage_error "to-text: --size-threshold ''" to-text --size-threshold '' "$mlp"
usage_error "to-text: --size-threshold 12k" to-text --size-threshold 12k "$mlp"
usage_error "to-text: --size-threshold beyond 64 bits" to-text --size-threshold 18446744073709551616 "$mlp"
usage_error "fmt: an unknown option" fmt --frobnicate loose.onnxtxt
usage_error "fmt: no files" fmt
usage_error "fmt -i: no files" fmt -i
usage_error "fmt -i --check" fmt -i --check loose.onnxtxt
usage_error "fmt --check -i" fmt --check -i loose.onnxtxt
usage_error "fmt -i -" fmt -i -
usage_error "fmt -i with - among the files" fmt -i loose.onnxtxt -
check "usage errors leave a file to format untouched" 'same loose.onnxtxt loose.copy'
check "usage errors create no file" '[ "$(entries .)" = "$before" ]'
# A byte count is digits only (strtoull would skip the blank and negate "-1" to 2^64 - 1).
"$cli" to-text --size-threshold ' -1' "$mlp" >out.txt 2>err.txt
status=$?
check "to-text: --size-threshold ' -1' (a blank, then a minus) exits 2" '[ "$status" -eq 2 ] && empty out.txt'

# ---- golden printer outputs through the CLI ---------------------------------------------------

# Every golden model, converted to binary, prints exactly as NAME.txt (and with a flag as
# NAME.FLAG.txt where that exists); the text itself prints the same.
ngolden=0
for f in "$golden_dir"/*.onnxtxt; do
	name=$(basename "$f" .onnxtxt)
	ngolden=$((ngolden + 1))
	run 0 "golden $name: to-binary" to-binary "$f" -o "$name.onnx" || continue
	if run 0 "golden $name: to-text of the binary exits 0" to-text "$name.onnx"; then
		check "golden $name: to-text of the binary prints $name.txt byte for byte" \
			'same out.txt "$golden_dir/$name.txt" && empty err.txt'
	fi
	"$cli" to-text "$f" >out.txt 2>err.txt
	check "golden $name: to-text of the text prints $name.txt byte for byte" 'same out.txt "$golden_dir/$name.txt"'
	for flag in no-annotations float-literals; do
		[ -e "$golden_dir/$name.$flag.txt" ] || continue
		"$cli" to-text "--$flag" "$name.onnx" >out.txt 2>err.txt
		check "golden $name: to-text --$flag of the binary prints $name.$flag.txt byte for byte" \
			'same out.txt "$golden_dir/$name.$flag.txt"'
		"$cli" to-text "--$flag" "$f" >out.txt 2>err.txt
		check "golden $name: to-text --$flag of the text prints $name.$flag.txt byte for byte" \
			'same out.txt "$golden_dir/$name.$flag.txt"'
	done
done
check "the golden corpus has models" '[ "$ngolden" -gt 0 ]'
# the flags do change the output (so the comparisons above can tell them apart)
check "--no-annotations changes the annotations model's text" \
	'! same "$golden_dir/annotations.txt" "$golden_dir/annotations.no-annotations.txt"'
check "--float-literals changes the tensors model's text" \
	'! same "$golden_dir/tensors.txt" "$golden_dir/tensors.float-literals.txt"'

# ---- binary -> text -> binary over the whole corpus -----------------------------------------

# Files for another entry point (node, type, ...) are not models and are left out.
total=0 unconvertible='' roundtrip_failed='' text_differs=''
for f in "$root"/corpus/valid/*.onnxtxt "$golden_dir"/*.onnxtxt; do
	case $(head -n 1 "$f") in
	'# entry: model' | '# entry: graph') ;;
	'# entry: '*) continue ;;
	esac
	name=$(basename "$f")
	total=$((total + 1))
	rm -f rt.onnx rt.txt rt2.onnx rt-text.txt
	if ! "$cli" to-binary "$f" -o rt.onnx 2>err.txt || ! nonempty rt.onnx; then
		# counts against all three cases below
		unconvertible="$unconvertible $name"
		roundtrip_failed="$roundtrip_failed $name"
		text_differs="$text_differs $name"
		continue
	fi
	if ! "$cli" to-text rt.onnx -o rt.txt 2>err.txt || ! "$cli" to-binary rt.txt -o rt2.onnx 2>>err.txt ||
		! same rt.onnx rt2.onnx; then
		roundtrip_failed="$roundtrip_failed $name"
	fi
	if ! "$cli" to-text "$f" >rt-text.txt 2>err.txt || ! same rt-text.txt rt.txt; then
		text_differs="$text_differs $name"
	fi
done
if [ "$total" -gt 0 ] && [ -z "$unconvertible" ]; then
	ok "all $total corpus models convert to binary"
else
	not_ok "all $total corpus models convert to binary" "failed:$unconvertible"
fi
if [ "$total" -gt 0 ] && [ -z "$roundtrip_failed" ]; then
	ok "binary -> to-text -> to-binary gives identical bytes for all $total corpus models"
else
	not_ok "binary -> to-text -> to-binary gives identical bytes for all $total corpus models" \
		"failed:$roundtrip_failed"
fi
if [ "$total" -gt 0 ] && [ -z "$text_differs" ]; then
	ok "to-text of the text equals to-text of its binary for all $total corpus models"
else
	not_ok "to-text of the text equals to-text of its binary for all $total corpus models" "failed:$text_differs"
fi

# ---- bytes that are not UTF-8 -----------------------------------------------------------------

# A binary model may hold any bytes in its names (here "g\xfe" and "y\xff", in bytes written by
# hand): to-text writes each byte that is not part of well-formed UTF-8 as \xHH in a quoted
# name, so that the text is UTF-8, and to-binary reads that back to the same bytes. Every
# other output shows U+FFFD in its place.
utf8() { iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; }
printf '\010\010\072\036\012\015\012\001x\022\002y\377\042\004Relu\022\002g\376\132\003\012\001x\142\004\012\002y\377\102\002\020\021' >bytes.onnx
if run 0 "to-text of names that are not UTF-8" to-text bytes.onnx; then
	check "to-text of names that are not UTF-8: the text is UTF-8" 'utf8 out.txt && ! utf8 bytes.onnx'
	check "to-text writes those bytes as \\xHH in quoted names" \
		"has out.txt '^\"g\\\\xfe\" (x) => (\"y\\\\xff\")\$' && has out.txt '^  \"y\\\\xff\" = Relu (x)\$'"
	cp out.txt bytes.txt
	run 0 "to-binary of the \\xHH text" to-binary bytes.txt -o bytes-back.onnx &&
		check "binary -> text -> binary gives back the same bytes" 'same bytes-back.onnx bytes.onnx'
	run 0 "fmt of the \\xHH text" fmt bytes.txt &&
		check "fmt keeps the \\xHH escapes (the text is canonical: fmt prints it unchanged)" 'same out.txt bytes.txt'
fi
run 0 "run of a model whose output name is not UTF-8" run bytes.onnx -i 'x=float[2] {1, -1}' &&
	check "run prints the output as '#@ expect' writes it: UTF-8, the name with \\xHH" \
		"utf8 out.txt && has out.txt '^\"y\\\\xff\" = float\\[2\\] {1, 0}\$'"
# messages on standard error too (here fail_at's, for an input without a value)
printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[2] "x\\xff") => (float[2] y) {\n  y = Relu("x\\xff")\n}\n' >unbound.onnxtxt
"$cli" to-binary unbound.onnxtxt -o unbound.onnx 2>err.txt
run 1 "run of a model whose unbound input is not UTF-8" run unbound.onnx &&
	check "run: the message is UTF-8, with U+FFFD for such a byte" \
		"utf8 err.txt && has err.txt \"^unbound.onnx: error: input 'x$(printf '\357\277\275')' has no value\""
for cmd in info "info --json" dot; do
	# shellcheck disable=SC2086
	run 0 "$cmd of names that are not UTF-8" $cmd bytes.onnx &&
		check "$cmd: the output is UTF-8, with U+FFFD for such a byte" "utf8 out.txt && has out.txt 'y$(printf '\357\277\275')'"
done
run 1 "check of names that are not UTF-8 (and no types)" check bytes.onnx &&
	check "check: the messages are UTF-8, with U+FFFD for such a byte" "utf8 err.txt && has err.txt \"'y$(printf '\357\277\275')'\""
for format in json sarif; do
	run 1 "check --diagnostics-format=$format of names that are not UTF-8" check --diagnostics-format=$format bytes.onnx &&
		check "check --diagnostics-format=$format: UTF-8" "utf8 err.txt && has err.txt 'y$(printf '\357\277\275')'"
done
# a value (.pb) with a name and a string that are not UTF-8
printf '\020\010\062\002a\376\102\002n\377' >bytes.pb
if run 0 "to-text of a value whose name and string are not UTF-8" to-text bytes.pb; then
	check "the value prints as UTF-8 text with \\xHH" "utf8 out.txt && has out.txt '^\"n\\\\xff\" = string {\"a\\\\xfe\"}\$'"
	cp out.txt bytes-value.txt
	run 0 "to-binary of the value text" to-binary bytes-value.txt -o bytes-back.pb &&
		check "the value comes back to the same bytes" 'same bytes-back.pb bytes.pb'
fi
# raw bytes that are not UTF-8 in text are refused where they are, with how to write them
printf 'g (float[N] x) => (float[N] y) {\n  y = Relu("x\377") # \303\n}\n' >raw.onnxtxt
run 1 "to-binary refuses a raw byte that is not UTF-8" to-binary raw.onnxtxt -o raw.onnx &&
	check "the error names the place, the byte and the escape; the message is UTF-8; no output" \
		"has err.txt '^raw.onnxtxt:2:14: error: invalid UTF-8 byte 0xff; write a byte that is not text as \\\\xff in a quoted name or string\$' &&
		utf8 err.txt && [ ! -e raw.onnx ]"

# ---- standard input and output ----------------------------------------------------------------

"$cli" to-binary "$mlp" -o mlp.onnx 2>err.txt
for input in mlp.onnx "$mlp"; do
	case $input in *.onnx) kind=binary ;; *) kind=text ;; esac
	run 0 "$kind input: to-text -o FILE exits 0" to-text "$input" -o file.txt || continue
	check "$kind input: -o FILE writes nothing to stdout or stderr" 'empty out.txt && empty err.txt'
	check "$kind input: -o FILE writes the text" 'has file.txt "^mlp (float\[N, 4\] features) => "'
	"$cli" to-text "$input" -o - >dash.txt 2>err.txt
	check "$kind input: -o - gives the same bytes as -o FILE" 'same dash.txt file.txt'
	"$cli" to-text "$input" >plain.txt 2>err.txt
	check "$kind input: standard output gives the same bytes as -o FILE" 'same plain.txt file.txt'
	"$cli" to-text - -o stdin.txt <"$input" 2>err.txt
	check "$kind input: standard input (-) gives the same bytes as a file" 'same stdin.txt file.txt'
	"$cli" to-text - -o - <"$input" >stdio.txt 2>err.txt
	check "$kind input: - -o - gives the same bytes" 'same stdio.txt file.txt'
done

# ---- the format comes from the content, not the name ------------------------------------------

cp tensors.onnx binary-named.onnxtxt
cp "$golden_dir/tensors.onnxtxt" text-named.onnx
if run 0 "a binary model named x.onnxtxt: to-text exits 0" to-text binary-named.onnxtxt; then
	check "a binary model named x.onnxtxt prints as its golden text" 'same out.txt "$golden_dir/tensors.txt"'
fi
if run 0 "a text model named x.onnx: to-text exits 0" to-text text-named.onnx; then
	check "a text model named x.onnx prints as its golden text" 'same out.txt "$golden_dir/tensors.txt"'
fi
"$cli" to-text - <binary-named.onnxtxt >out.txt 2>err.txt
check "a binary model on standard input prints as its golden text" 'same out.txt "$golden_dir/tensors.txt"'

# ---- invalid input: status 1, with the place ----------------------------------------------------

printf '<ir_version: 8>\ng (float[N] x) => (float y) { y = Add(x, }\n' >bad.onnxtxt
expected_error() {
	cat <<EOF
$1:2:42: error: expected ')', ',', an identifier or a string after ',', found '}'
g (float[N] x) => (float y) { y = Add(x, }
                                         ^
EOF
}
if run 1 "to-text: a syntax error exits 1" to-text bad.onnxtxt; then
	expected_error bad.onnxtxt >expected.txt
	check "to-text: a syntax error shows FILE:LINE:COL: error:, the line and a caret" 'same err.txt expected.txt'
	check "to-text: nothing on stdout after a syntax error" 'empty out.txt'
fi
"$cli" to-text - <bad.onnxtxt >out.txt 2>err.txt
status=$?
expected_error '<stdin>' >expected.txt
check "to-text: a syntax error on standard input exits 1, named <stdin>" \
	'[ "$status" -eq 1 ] && same err.txt expected.txt && empty out.txt'

head -c 100 mlp.onnx >truncated.onnx
if run 1 "to-text: a truncated binary model exits 1" to-text truncated.onnx; then
	check "to-text: a truncated binary model is reported with its name" \
		"has err.txt '^truncated.onnx: error: .' && empty out.txt"
fi
printf '\010\377\377\377\377\377\377\377\377\377\377\377' >corrupt.onnx
if run 1 "to-text: a corrupt binary model exits 1" to-text corrupt.onnx; then
	check "to-text: a corrupt binary model is reported with its name" \
		"has err.txt '^corrupt.onnx: error: .' && empty out.txt"
fi
: >empty.onnx
run 1 "to-text: an empty input exits 1" to-text empty.onnx && check "to-text: an empty input is reported" 'nonempty err.txt'

# ---- file errors: status 3 ------------------------------------------------------------------

if run 3 "to-text: a missing input exits 3" to-text missing.onnx -o out.onnxtxt; then
	check "to-text: the missing input is named" 'has err.txt missing.onnx'
	check "to-text: a missing input creates no output" '[ ! -e out.onnxtxt ]'
fi
run 3 "to-text: output into a missing directory exits 3" to-text mlp.onnx -o nodir/out.txt &&
	check "to-text: output into a missing directory creates nothing" '[ ! -e nodir ] && empty out.txt'
mkdir adir
run 3 "to-text: a directory as output exits 3" to-text mlp.onnx -o adir &&
	check "to-text: a directory as output is left alone" '[ -d adir ] && [ -z "$(entries adir)" ]'

# ---- atomic output: a failure neither replaces nor leaves anything -----------------------------

mkdir atomic
printf 'old content\n' >atomic/out.txt
cp atomic/out.txt old.copy
before=$(entries atomic)
for case in bad.onnxtxt:1 truncated.onnx:1 corrupt.onnx:1 missing.onnx:3; do
	input=${case%:*} expected_status=${case#*:}
	"$cli" to-text "$input" -o atomic/out.txt >out.txt 2>err.txt
	status=$?
	check "to-text $input -o EXISTING exits $expected_status" '[ "$status" -eq "$expected_status" ]'
	check "to-text $input: the existing output is not replaced" 'same atomic/out.txt old.copy'
	check "to-text $input: no temporary file is left" '[ "$(entries atomic)" = "$before" ]'
	"$cli" to-text "$input" -o atomic/new.txt >out.txt 2>err.txt
	check "to-text $input -o NEW creates neither the output nor a temporary file" \
		'[ "$(entries atomic)" = "$before" ]'
done
run 0 "to-text replaces an existing output" to-text mlp.onnx -o atomic/out.txt &&
	check "the output is replaced, with no temporary file left" \
		'same atomic/out.txt file.txt && [ "$(entries atomic)" = "$before" ]'

# ---- external data ------------------------------------------------------------------------------

# A hand-written model with a 1100-float initializer (4400 bytes, stored as raw_data so
# that embedding gives back the same bytes) and a 16-byte one that never moves.
{
	printf '<ir_version: 10, opset_import: ["" : 21]>\nbig (float[1100] x) => (float[1100] y)\n'
	printf '<\n  #@ raw\n  float[1100] w = {'
	i=0
	while [ $i -lt 1100 ]; do
		[ $i -eq 0 ] || printf ', '
		printf '%d.5' $((i - 550))
		i=$((i + 1))
	done
	printf '},\n  float[4] b = {1, 2, 3, 4}\n>\n{\n  t = Add (x, w)\n  y = Add (t, b)\n}\n'
} >big.onnxtxt
"$cli" to-binary big.onnxtxt -o big.onnx 2>err.txt
check "the hand-written model with 1100 floats converts to binary" 'nonempty big.onnx'

# Outside every model directory below: the target of the symbolic links that must not be followed.
mkdir outside
printf 'precious\n' >outside/keep.txt

# external_data LABEL MODEL: the external-data cases for a binary model whose tensors hold
# raw_data (so that embedding reproduces it byte for byte).
external_data() {
	label=$1 model=$2
	"$cli" to-text "$model" -o "$label-full.txt" 2>err.txt
	mkdir "$label-o" "$label-o/sub"
	if run 0 "$label: to-text --external-data w.bin -o DIR/FILE exits 0" \
		to-text "$model" -o "$label-o/sub/m.txt" --external-data w.bin; then
		check "$label: the data file is created next to the output" \
			'nonempty "$label-o/sub/w.bin" && [ ! -e w.bin ] && [ "$(entries "$label-o/sub")" = "$(printf "m.txt\nw.bin")" ]'
		check "$label: the text refers to the data file" "has '$label-o/sub/m.txt' '\"location\": \"w.bin\"'"
		check "$label: the text is much smaller than without external data" \
			'[ $(($(wc -c <"$label-o/sub/m.txt") * 10)) -lt "$(wc -c <"$label-full.txt")" ]'
		check "$label: nothing on stdout with -o" 'empty out.txt'
		if run 0 "$label: to-binary --embed-external-data exits 0" \
			to-binary --embed-external-data "$label-o/sub/m.txt" -o "$label-back.onnx"; then
			check "$label: embedding the external data gives back the original bytes" \
				'same "$label-back.onnx" "$model"'
		fi
		run 0 "$label: to-binary without --embed-external-data exits 0" \
			to-binary "$label-o/sub/m.txt" -o "$label-ref.onnx" &&
			check "$label: without --embed-external-data the data stays outside" \
				'[ $(($(wc -c <"$label-ref.onnx") * 10)) -lt "$(wc -c <"$model")" ]'
	fi

	# to standard output: relative to the current directory
	mkdir "$label-std"
	(cd "$label-std" && "$cli" to-text "$model" --external-data w.bin >m.txt 2>../err.txt)
	status=$?
	check "$label: to-text --external-data to stdout exits 0" '[ "$status" -eq 0 ]'
	check "$label: to stdout, the data file is created in the current directory" \
		'nonempty "$label-std/w.bin" && [ "$(entries "$label-std")" = "$(printf "m.txt\nw.bin")" ]'
	check "$label: to stdout, the text and data equal those of -o" \
		'same "$label-std/m.txt" "$label-o/sub/m.txt" && same "$label-std/w.bin" "$label-o/sub/w.bin"'
	(cd "$label-std" && "$cli" to-binary --embed-external-data - <m.txt >back.onnx 2>../err.txt)
	check "$label: embedding from standard input reads the data relative to the current directory" \
		'same "$label-std/back.onnx" "$model"'

	# a threshold above every tensor moves nothing
	mkdir "$label-thr"
	if run 0 "$label: --size-threshold above every tensor exits 0" \
		to-text "$model" -o "$label-thr/m.txt" --external-data w.bin --size-threshold 100000000; then
		check "$label: --size-threshold above every tensor creates no data file" \
			'[ "$(entries "$label-thr")" = m.txt ]'
		check "$label: --size-threshold above every tensor prints the full text" \
			'same "$label-thr/m.txt" "$label-full.txt"'
	fi

	# locations that leave the output's directory are refused, and nothing is created
	mkdir "$label-ref" "$label-ref/a"
	ln -s ../outside "$label-ref/out"
	ln -s ../outside/none.bin "$label-ref/dangling.bin"
	ref_before=$(entries "$label-ref")
	outside_before=$(entries outside)
	for loc in "$work/abs.bin" ../x.bin a/../../x.bin out/x.bin dangling.bin; do
		case $loc in
		/*) shown="an absolute path" ;;
		out/*) shown="$loc (out -> ../outside)" ;;
		dangling.bin) shown="$loc (a dangling link to ../outside/none.bin)" ;;
		*) shown=$loc ;;
		esac
		"$cli" to-text "$model" -o "$label-ref/m.txt" --external-data "$loc" >out.txt 2>err.txt
		status=$?
		check "$label: location $shown is refused (status 1 to 3, a message naming it)" \
			'[ "$status" -ge 1 ] && [ "$status" -le 3 ] && has err.txt "\"$loc\""'
		check "$label: the refused location $shown creates nothing" \
			'[ "$(entries "$label-ref")" = "$ref_before" ] && [ "$(entries outside)" = "$outside_before" ] &&
			[ ! -e abs.bin ] && [ ! -e x.bin ] && empty out.txt'
	done

	# embedding: a data file reached through a symbolic link to outside, or missing
	mkdir "$label-emb"
	cp "$label-o/sub/m.txt" "$label-emb/m.txt"
	cp "$label-o/sub/w.bin" "outside/$label-w.bin"
	ln -s "../outside/$label-w.bin" "$label-emb/w.bin"
	"$cli" to-binary --embed-external-data "$label-emb/m.txt" -o "$label-emb/back.onnx" >out.txt 2>err.txt
	status=$?
	check "$label: embedding refuses a data file that is a link to outside (status 1 to 3)" \
		'[ "$status" -ge 1 ] && [ "$status" -le 3 ]'
	check "$label: the refusal of the link names the location and writes nothing" \
		'has err.txt "\"w.bin\"" && [ ! -e "$label-emb/back.onnx" ] && empty out.txt'
	sed "s|\"location\": \"w.bin\"|\"location\": \"$work/outside/$label-w.bin\"|" "$label-o/sub/m.txt" \
		>"$label-emb/abs.txt"
	"$cli" to-binary --embed-external-data "$label-emb/abs.txt" -o "$label-emb/back.onnx" >out.txt 2>err.txt
	status=$?
	check "$label: embedding refuses an absolute location to an existing file (status 1 to 3)" \
		'[ "$status" -ge 1 ] && [ "$status" -le 3 ]'
	check "$label: the refusal of the absolute location names it and writes nothing" \
		'has err.txt "outside/$label-w.bin" && [ ! -e "$label-emb/back.onnx" ] && empty out.txt'
	# --allow-external-outside follows both, and gives back the original bytes
	for m in m abs; do
		[ $m = m ] && what="the link to outside" || what="the absolute location"
		if run 0 "$label: --allow-external-outside embeds through $what" \
			to-binary --embed-external-data --allow-external-outside "$label-emb/$m.txt" -o "$label-emb/back.onnx"; then
			check "$label: embedding through $what gives back the original bytes" \
				'same "$label-emb/back.onnx" "$model"'
		fi
		rm -f "$label-emb/back.onnx"
	done
	if run 2 "$label: --allow-external-outside without --embed-external-data is a usage error" \
		to-binary --allow-external-outside "$label-emb/m.txt" -o "$label-emb/back.onnx"; then
		check "$label: the usage error names the missing option" 'has err.txt "needs --embed-external-data"'
	fi
	mkdir "$label-miss"
	cp "$label-o/sub/m.txt" "$label-miss/m.txt"
	if run 3 "$label: embedding a missing data file exits 3" \
		to-binary --embed-external-data "$label-miss/m.txt" -o "$label-miss/back.onnx"; then
		check "$label: the missing data file is named, nothing is written" \
			'has err.txt "w\.bin" && [ "$(entries "$label-miss")" = m.txt ] && empty out.txt'
	fi
	# a FIFO as the data file: refused at once, not waited on (timeout catches a hang)
	mkdir "$label-fifo"
	cp "$label-o/sub/m.txt" "$label-fifo/m.txt"
	mkfifo "$label-fifo/w.bin"
	for cmd in to-binary run; do
		[ $cmd = to-binary ] && set -- to-binary --embed-external-data "$label-fifo/m.txt" -o "$label-fifo/back.onnx" ||
			set -- run "$label-fifo/m.txt"
		timeout 20 "$cli" "$@" >out.txt 2>err.txt </dev/null
		status=$?
		check "$label: $cmd with a FIFO as external data exits 3 at once" '[ "$status" -eq 3 ]'
		check "$label: $cmd names the FIFO and writes nothing" \
			'has err.txt "w\.bin is a FIFO, not a regular file" && [ ! -e "$label-fifo/back.onnx" ]'
	done
	rm -f "outside/$label-w.bin"
}

external_data big "$work/big.onnx"
if [ -d "$shared/onnx-backend-data" ] && [ -f "$squeezenet" ]; then
	external_data squeezenet "$squeezenet"
	check "squeezenet: its weights moved out: 31 tensors refer to w.bin" \
		'[ "$(grep -c "\"location\": \"w.bin\"" squeezenet-o/sub/m.txt)" -eq 31 ]'
else
	skip "squeezenet: the external-data cases" "$shared/onnx-backend-data is not there"
fi

# the hand-written model: the threshold is "at least N bytes"; the small tensor stays inline
mkdir thr
run 0 "the default threshold: to-text --external-data exits 0" to-text big.onnx -o thr/eq.txt --external-data eq.bin &&
	check "the default threshold moves w and leaves the 16-byte b inline" \
		"has thr/eq.txt '\"location\": \"eq.bin\", \"offset\": \"0\", \"length\": \"4400\"' &&
		has thr/eq.txt 'float\[4\] b = {1, 2, 3, 4}' && [ \"\$(wc -c <thr/eq.bin)\" -eq 4400 ]"
run 0 "--size-threshold 4400 exits 0" to-text big.onnx -o thr/at.txt --external-data at.bin --size-threshold 4400 &&
	check "--size-threshold 4400 moves the 4400-byte tensor" "has thr/at.txt '\"location\": \"at.bin\"' && [ -e thr/at.bin ]"
run 0 "--size-threshold 4401 exits 0" to-text big.onnx -o thr/above.txt --external-data above.bin --size-threshold 4401 &&
	check "--size-threshold 4401 moves nothing and creates no data file" \
		"! has thr/above.txt location && [ ! -e thr/above.bin ]"
run 0 "--size-threshold 16 exits 0" to-text big.onnx -o thr/all.txt --external-data all.bin --size-threshold 16 &&
	check "--size-threshold 16 moves both tensors into one file" \
		"[ \"\$(grep -c '\"location\": \"all.bin\"' thr/all.txt)\" -eq 2 ] && [ \"\$(wc -c <thr/all.bin)\" -eq 4416 ]"
run 0 "external data from a text input exits 0" to-text big.onnxtxt -o thr/text.txt --external-data text.bin &&
	check "external data from a text input equals that from its binary" \
		'sed s/eq.bin/text.bin/ thr/eq.txt | cmp -s - thr/text.txt && same thr/text.bin thr/eq.bin'
run 3 "external data: a location in a missing directory exits 3" \
	to-text big.onnx -o thr/nodir.txt --external-data nodir/w.bin &&
	check "external data: a missing directory is not created, no output" '[ ! -e thr/nodir ] && [ ! -e thr/nodir.txt ]'

# a refused location never replaces an existing output
mkdir extatomic
cp old.copy extatomic/m.txt
"$cli" to-text big.onnx -o extatomic/m.txt --external-data ../x.bin >out.txt 2>err.txt
status=$?
check "a refused location leaves an existing output as it was" \
	'[ "$status" -ne 0 ] && same extatomic/m.txt old.copy && [ "$(entries extatomic)" = m.txt ]'

# When the text cannot be written, the data file is neither written nor replaced.
mkdir extfail extfail/m.txt
"$cli" to-text big.onnx -o extfail/m.txt --external-data w.bin >out.txt 2>err.txt
status=$?
check "external data: a failed to-text (-o DIRECTORY) leaves no data file" \
	'[ "$status" -eq 3 ] && [ "$(entries extfail)" = m.txt ]'
mkdir extfail2 extfail2/m.txt
printf 'old data\n' >extfail2/w.bin
"$cli" to-text big.onnx -o extfail2/m.txt --external-data w.bin >out.txt 2>err.txt
status=$?
check "external data: a failed to-text (-o DIRECTORY) leaves an existing data file as it was" \
	'[ "$status" -eq 3 ] && [ "$(cat extfail2/w.bin)" = "old data" ]'
# A data file that would be the text's own file is refused before anything is written.
mkdir extsame
"$cli" to-text big.onnx -o extsame/m.txt --external-data m.txt >out.txt 2>err.txt
status=$?
check "external data: a data file that is the output itself is refused" \
	'[ "$status" -ne 0 ] && nonempty err.txt && [ -z "$(entries extsame)" ]'

# ---- values: the .pb files of backend test data ----------------------------------------------

# to-text prints a TensorProto, SequenceProto or OptionalProto as "NAME = VALUE" in the
# value syntax (that of '#@ input' lines), to-binary turns that back into the same bytes
printf 'x = float[2, 2] {1, 2.5, -3, 4}\n' >tensor.txt
if run 0 "to-binary of a named tensor value" to-binary tensor.txt -o tensor.pb; then
	run 0 "to-text of a TensorProto .pb" to-text tensor.pb &&
		check "the tensor prints as NAME = VALUE" 'same out.txt tensor.txt'
	run 0 "to-binary of the value to standard output" to-binary tensor.txt &&
		check "standard output has the same bytes as -o" 'same out.txt tensor.pb'
fi
printf 'seq = [int64[2] {1, 2}, int64 {3}, int64[0] {}]\n' >seq.txt
if run 0 "to-binary of a sequence value" to-binary seq.txt -o seq.pb; then
	run 0 "to-text of a SequenceProto .pb" to-text seq.pb -o seq-back.txt &&
		check "the sequence prints as NAME = [...]" 'same seq-back.txt seq.txt'
fi
printf 'string[2] {"a", "b c"}\n' >unnamed.txt
run 0 "a value without a name" to-binary unnamed.txt -o unnamed.pb &&
	run 0 "to-text of a value without a name" to-text unnamed.pb &&
	check "a value without a name prints as VALUE" 'same out.txt unnamed.txt'
printf '"the x" = bool[3] {1, 0, 1}\n' >quoted.txt
run 0 "a name that is not a word" to-binary quoted.txt -o quoted.pb &&
	run 0 "to-text of a value whose name needs quotes" to-text quoted.pb &&
	check "the name is quoted" 'same out.txt quoted.txt'
# a run's outputs, as a backend test writes them, read back by content
mkdir -p vals
printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[2, 2] x) => (float[2, 2] y) { y = Neg(x) }\n' >neg.onnxtxt
if run 0 "run --output-dir writes output_0.pb" run neg.onnxtxt -i 'x=float[2, 2] {1, 2, 3, 4}' --output-dir vals; then
	run 0 "to-text of output_0.pb" to-text vals/output_0.pb &&
		check "output_0.pb prints as run printed it" '[ "$(cat out.txt)" = "y = float[2, 2] {-1, -2, -3, -4}" ]'
fi
# a MapProto (name "m", int64 keys 1 and 2) with an empty sequence of values: the map's error
printf '\012\001m\020\007\030\001\030\002\052\002\020\001' >map.pb
if run 1 "to-text of a malformed MapProto is an error" to-text map.pb; then
	check "the error is the map's" '[ "$(cat err.txt)" = "map.pb: error: map '"'"'m'"'"': 2 keys but 0 values, or values that are not scalars" ]'
fi
printf 'x = float[2] {1, 2, 3}\n' >badvalue.txt
if run 1 "to-binary of a wrong value is an error" to-binary badvalue.txt -o bad.pb; then
	check "the value's error, with its place" \
		'has err.txt "^badvalue.txt:1:14: error: the tensor has 3 values but its shape needs 2" && [ ! -e bad.pb ]'
fi
# every .pb file of the shared backend data: to-text, then to-binary gives the same bytes
data=${ONNXTXT_SHARED:-$root/../shared}/onnx-backend-data
if [ -d "$data" ]; then
	total=0 bad=
	for f in $(find "$data" -name '*.pb' | sort); do
		total=$((total + 1))
		"$cli" to-text "$f" >pb.txt 2>err.txt && "$cli" to-binary pb.txt -o pb.pb 2>>err.txt && cmp -s pb.pb "$f" ||
			bad="$bad $f"
	done
	check "every .pb of the backend data ($total) goes to text and back to the same bytes" '[ -z "$bad" ]'
	[ -z "$bad" ] || echo "# not the same:$bad" | head -c 2000
else
	skip "the backend data's .pb files go to text and back" "no $data"
fi

# ---- fmt: print -------------------------------------------------------------------------------

printf '<ir_version:8,opset_import:["":18]>   g(float[N] x)=>(float[N] y)\n{t=Relu(x)   y=Neg(t)}\n' >odd.onnxtxt
cat >canonical.expected <<'EOF'
<
  ir_version: 8,
  opset_import: ["" : 18]
>
g (float[N] x) => (float[N] y)
{
  t = Relu (x)
  y = Neg (t)
}
EOF
cp odd.onnxtxt odd.copy
odd_stamp=$(stamp odd.onnxtxt)
if run 0 "fmt of a non-canonical file exits 0" fmt odd.onnxtxt; then
	check "fmt prints the canonical text on stdout" 'same out.txt canonical.expected && empty err.txt'
	check "fmt leaves the file untouched" 'same odd.onnxtxt odd.copy && [ "$(stamp odd.onnxtxt)" = "$odd_stamp" ]'
fi
"$cli" fmt - <odd.onnxtxt >out.txt 2>err.txt
check "fmt - formats standard input" 'same out.txt canonical.expected'
"$cli" to-text odd.onnxtxt >out.txt 2>err.txt
check "fmt and to-text agree on the canonical text" 'same out.txt canonical.expected'

# the golden texts are canonical: fmt prints them unchanged
unchanged=0 changed=''
mkdir canon
for f in "$golden_dir"/*.txt; do
	case $(basename "$f") in *.*.txt) continue ;; esac # NAME.FLAG.txt is printed with a flag
	cp "$f" canon/
	if "$cli" fmt "$f" >out.txt 2>err.txt && same out.txt "$f"; then
		unchanged=$((unchanged + 1))
	else
		changed="$changed $(basename "$f")"
	fi
done
if [ "$unchanged" -gt 0 ] && [ -z "$changed" ]; then
	ok "fmt prints each of the $unchanged golden texts unchanged"
else
	not_ok "fmt prints each of the golden texts unchanged" "changed:$changed"
fi

# ---- fmt --check ------------------------------------------------------------------------------

cp "$golden_dir/names.txt" canon1.txt
cp "$golden_dir/tensors.txt" canon2.txt
printf 'g (float x) => (float y) { y = Relu(x) }\n' >odd2.onnxtxt
for f in canon1.txt canon2.txt odd.onnxtxt odd2.onnxtxt; do cp "$f" "$f.copy"; done
if run 1 "fmt --check with non-canonical files exits 1" fmt --check canon1.txt odd.onnxtxt canon2.txt odd2.onnxtxt; then
	printf 'odd.onnxtxt\nodd2.onnxtxt\n' >expected.txt
	check "fmt --check lists exactly the non-canonical files, in order" 'same out.txt expected.txt && empty err.txt'
fi
check "fmt --check changes no file" \
	'same canon1.txt canon1.txt.copy && same canon2.txt canon2.txt.copy && same odd.onnxtxt odd.onnxtxt.copy && same odd2.onnxtxt odd2.onnxtxt.copy'
run 0 "fmt --check with canonical files only exits 0" fmt --check canon1.txt canon2.txt canon/*.txt &&
	check "fmt --check prints nothing when all are canonical" 'empty out.txt && empty err.txt'
"$cli" fmt --check - <odd.onnxtxt >out.txt 2>err.txt
status=$?
check "fmt --check - names standard input <stdin>" '[ "$status" -eq 1 ] && [ "$(cat out.txt)" = "<stdin>" ]'
# a float-literals text is canonical only with that flag
run 1 "fmt --check lists a --float-literals text (fmt prints without flags)" \
	fmt --check "$golden_dir/tensors.float-literals.txt" &&
	check "fmt --check names the --float-literals text" "has out.txt 'tensors.float-literals.txt\$'"

# ---- fmt -i -----------------------------------------------------------------------------------

cp odd.onnxtxt inplace.onnxtxt
if run 0 "fmt -i of a non-canonical file exits 0" fmt -i inplace.onnxtxt; then
	check "fmt -i rewrites the file as fmt prints it" 'same inplace.onnxtxt canonical.expected'
	check "fmt -i prints nothing" 'empty out.txt && empty err.txt'
fi
cp canon1.txt keep.txt
keep_stamp=$(stamp keep.txt)
sleep 0.01 2>/dev/null || sleep 1
run 0 "fmt -i of a canonical file exits 0" fmt -i keep.txt &&
	check "fmt -i leaves a canonical file alone (same inode and mtime)" \
		'[ "$(stamp keep.txt)" = "$keep_stamp" ] && same keep.txt canon1.txt'
cp odd.onnxtxt second.onnxtxt
before=$(entries .)
run 0 "fmt -i of several files exits 0" fmt -i second.onnxtxt keep.txt &&
	check "fmt -i rewrote the non-canonical one and left no temporary file" \
		'same second.onnxtxt canonical.expected && [ "$(entries .)" = "$before" ]'

# comments: kept, in place (trailing ones too); --drop-comments leaves them out; annotations
# are not comments
printf '# a comment\n<ir_version: 8>\ng (float x) => (float y) { y = Relu(x) }  # another\n' >comments.onnxtxt
cat >comments.expected <<'EOF'
# a comment
<
  ir_version: 8
>
g (float x) => (float y)
{
  y = Relu (x)
}  # another
EOF
if run 0 "fmt -i of a file with comments exits 0" fmt -i comments.onnxtxt; then
	check "fmt -i keeps the comments, before the header and after the last brace" \
		'same comments.onnxtxt comments.expected && empty out.txt && empty err.txt'
fi
printf '# a comment\n<ir_version: 8>\ng (float x) => (float y) { y = Relu(x) }  # another\n' >comments.onnxtxt
"$cli" to-text comments.onnxtxt >expected.txt 2>err.txt
if run 0 "fmt -i --drop-comments of a file with comments exits 0" fmt -i --drop-comments comments.onnxtxt; then
	check "fmt -i --drop-comments rewrites it as to-text prints it, without comments" \
		'same comments.onnxtxt expected.txt && ! has comments.onnxtxt "#"'
fi
printf '# a comment\n<ir_version: 8>\ng (float x) => (float y) { y = Relu(x) }\n' >comments.onnxtxt
run 0 "fmt --drop-comments prints the text without comments" fmt --drop-comments comments.onnxtxt &&
	check "fmt --drop-comments prints what to-text prints" 'same out.txt expected.txt'
cp comments.expected commented.onnxtxt
run 0 "fmt --check of a canonical file with comments exits 0" fmt --check commented.onnxtxt &&
	check "fmt --check finds a commented canonical file canonical" 'empty out.txt'
printf '<ir_version: 8>\ng (float x) => (float y) {\n  #@ doc_string: "Rectifies; # is no comment here"\n  y = Relu(x) }\n' \
	>annotated.onnxtxt
cat >annotated.expected <<'EOF'
<
  ir_version: 8
>
g (float x) => (float y)
{
  #@ doc_string: "Rectifies; # is no comment here"
  y = Relu (x)
}
EOF
if run 0 "fmt -i of a file with #@ annotations (no comments) exits 0" fmt -i annotated.onnxtxt; then
	check "fmt -i rewrites a file whose only #-lines are annotations, keeping them" \
		'same annotated.onnxtxt annotated.expected'
fi
printf 'g  (float "a#b") => (float y) { y = Relu("a#b") }\n' >hash-in-string.onnxtxt
run 0 "fmt -i of a file with # inside a string exits 0" fmt -i hash-in-string.onnxtxt &&
	check "fmt -i rewrites a file whose only # is inside a string" \
		"[ \"\$(cat hash-in-string.onnxtxt)\" = \"\$(printf 'g (float \"a#b\") => (float y)\n{\n  y = Relu (\"a#b\")\n}')\" ]"

# a symbolic link: the file it leads to is rewritten, the link stays
cp odd.onnxtxt target.onnxtxt
ln -s target.onnxtxt link.onnxtxt
run 0 "fmt -i through a symbolic link exits 0" fmt -i link.onnxtxt &&
	check "fmt -i rewrites the link's target and keeps the link" \
		'[ -L link.onnxtxt ] && same target.onnxtxt canonical.expected'

# ---- fmt: invalid input -------------------------------------------------------------------------

cp bad.onnxtxt bad.copy
if run 1 "fmt of a file with a syntax error exits 1" fmt bad.onnxtxt; then
	expected_error bad.onnxtxt >expected.txt
	check "fmt: the syntax error shows FILE:LINE:COL: error:, the line and a caret" 'same err.txt expected.txt'
	check "fmt: nothing on stdout for a file with a syntax error" 'empty out.txt'
fi
bad_stamp=$(stamp bad.onnxtxt)
run 1 "fmt -i of a file with a syntax error exits 1" fmt -i bad.onnxtxt &&
	check "fmt -i leaves a file with a syntax error untouched, and reports its place" \
		'same bad.onnxtxt bad.copy && [ "$(stamp bad.onnxtxt)" = "$bad_stamp" ] && has err.txt "^bad.onnxtxt:2:42: error: "'
cp mlp.onnx binary.onnx
if run 1 "fmt of a binary model exits 1" fmt binary.onnx; then
	check "fmt: a binary model is reported by name" 'has err.txt "binary.onnx is a binary model" && empty out.txt'
fi
run 1 "fmt -i of a binary model exits 1" fmt -i binary.onnx &&
	check "fmt -i leaves a binary model untouched" 'same binary.onnx mlp.onnx'
run 3 "fmt of a missing file exits 3" fmt missing.onnxtxt &&
	check "fmt names the missing file" 'has err.txt missing.onnxtxt'

# several files: fmt goes on after an error and exits with the worst status
printf 'g (float x) => (float y)\n{\n  y = Relu (x)\n}\n' >odd2.expected
cat canonical.expected odd2.expected >expected.txt
if run 1 "fmt GOOD BAD GOOD exits 1" fmt odd.onnxtxt bad.onnxtxt odd2.onnxtxt; then
	check "fmt goes on after a syntax error and prints the other files" 'same out.txt expected.txt'
	check "fmt reports the error among several files" 'has err.txt "^bad.onnxtxt:2:42: error: "'
fi
if run 3 "fmt with a missing and an invalid file exits 3 (the worst)" fmt missing.onnxtxt odd.onnxtxt bad.onnxtxt odd2.onnxtxt; then
	check "fmt prints the readable files and reports both errors" \
		'same out.txt expected.txt && has err.txt missing.onnxtxt && has err.txt "^bad.onnxtxt:"'
fi
run 3 "fmt with an invalid and a missing file exits 3 (order does not matter)" fmt bad.onnxtxt missing.onnxtxt &&
	check "fmt reports the missing file after the invalid one" 'has err.txt "^bad.onnxtxt:" && has err.txt missing.onnxtxt'
if run 3 "fmt --check with a missing file exits 3" fmt --check missing.onnxtxt odd.onnxtxt canon1.txt; then
	check "fmt --check still lists the non-canonical file" '[ "$(cat out.txt)" = odd.onnxtxt ]'
fi
run 1 "fmt --check with a syntax error and a non-canonical file exits 1" fmt --check bad.onnxtxt odd.onnxtxt &&
	check "fmt --check lists the non-canonical file after the error" '[ "$(cat out.txt)" = odd.onnxtxt ]'
cp odd.onnxtxt later.onnxtxt
run 1 "fmt -i BAD GOOD exits 1" fmt -i bad.onnxtxt later.onnxtxt &&
	check "fmt -i goes on after an error: the later file is rewritten, the bad one untouched" \
		'same later.onnxtxt canonical.expected && same bad.onnxtxt bad.copy'

# Canonical text from to-text may hold a control byte inside a string (the syntax has no
# escapes for it); fmt still reads it as text.
printf '<doc_string: "a\001b">\ng (float x) => (float y) { y = Relu(x) }\n' >control.onnxtxt
"$cli" to-text control.onnxtxt -o control.txt 2>err.txt
"$cli" fmt --check control.txt >out.txt 2>err.txt
status=$?
check "fmt --check accepts to-text's canonical output with a control byte in a string" \
	'[ "$status" -eq 0 ] && empty out.txt && empty err.txt'

# ---- fmt -i keeps the file's permissions -------------------------------------------------------

cp odd.onnxtxt private.onnxtxt
chmod 600 private.onnxtxt
if run 0 "fmt -i of a mode 600 file exits 0" fmt -i private.onnxtxt; then
	check "fmt -i rewrote the mode 600 file" 'same private.onnxtxt canonical.expected'
	# the temporary file that replaces it takes its mode
	check "fmt -i keeps mode 600" '[ "$(stat -c %a private.onnxtxt)" = 600 ]'
fi
printf '# a comment\n<ir_version: 8>\ng (float x) => (float y) { y = Relu(x) }  # another\n' >private2.onnxtxt
chmod 640 private2.onnxtxt
if run 0 "fmt -i of a mode 640 file with comments exits 0" fmt -i private2.onnxtxt; then
	check "fmt -i keeps mode 640, and the comments" \
		'[ "$(stat -c %a private2.onnxtxt)" = 640 ] && same private2.onnxtxt comments.expected'
fi

echo "1..$n"
[ "$failed" -eq 0 ]
