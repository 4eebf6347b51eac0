#!/bin/sh
# Output for machines: --diagnostics-format json and sarif (goldens for every corpus error
# file, SARIF validated against the OASIS 2.1.0 schema), test --junit (the XML parsed back),
# info (goldens for the corpus and the light backend models) and --color=always goldens.
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).
# ONNXTXT_REGEN=1 rewrites the goldens in corpus/golden/ instead of comparing with them.

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"

golden=$root/corpus/golden
regen=${ONNXTXT_REGEN:-}
py=$(command -v python3 || true)

# compare NAME FILE GOLDEN: FILE must equal GOLDEN (or becomes it, with ONNXTXT_REGEN=1).
compare() {
	if [ -n "$regen" ]; then
		mkdir -p "$(dirname "$3")" && cp "$2" "$3" && ok "$1 (golden rewritten)"
	elif cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "differs from $3:" "$(diff "$3" "$2" | head -20)"
	fi
}

# ---- diagnostics: goldens ----------------------------------------------------------------

# From the source root, so that the goldens hold the paths as corpus/... .
for dir in errors check; do
	for fmt in json sarif; do
		ext=$([ $fmt = json ] && echo jsonl || echo sarif)
		(cd "$root" && "$cli" check -q --diagnostics-format=$fmt corpus/$dir/*.onnxtxt) >out.txt 2>"$dir.$ext"
		status=$?
		check "check --diagnostics-format=$fmt corpus/$dir: exit status 1" '[ "$status" -eq 1 ]'
		compare "check --diagnostics-format=$fmt corpus/$dir matches its golden" "$dir.$ext" "$golden/diagnostics/$dir.$ext"
	done
	files=$(ls "$root/corpus/$dir"/*.onnxtxt | wc -l)
	check "corpus/$dir: every file has at least one JSON line" \
		'[ "$(sed "s/^{\"file\": \"\([^\"]*\)\".*/\1/" $dir.jsonl | sort -u | wc -l)" -eq "$files" ]'
done

# ---- diagnostics: structure --------------------------------------------------------------

if [ -n "$py" ]; then
	cat >keys.py <<'END'
import json, sys
keys = ["file", "line", "column", "end_line", "end_column", "severity", "code", "message", "path", "hint", "fixit"]
for n, line in enumerate(open(sys.argv[1]), 1):
    d = json.loads(line)
    assert list(d) == keys, (n, list(d))
    assert d["severity"] in ("error", "note"), n
    if d["line"] is not None:
        assert (d["end_line"], d["end_column"]) >= (d["line"], d["column"]), n
    if d["fixit"] is not None:
        assert set(d["fixit"]) == {"line", "column", "end_line", "end_column", "text"}, n
print("ok")
END
	for dir in errors check; do
		check "corpus/$dir: every JSON line parses, with every key" '[ "$("$py" keys.py $dir.jsonl 2>&1)" = ok ]'
	done
	cat >sarif.py <<'END'
import json, sys
doc = json.load(open(sys.argv[1]))
try:
    import jsonschema
except ImportError:
    print("no jsonschema")
    sys.exit(0)
schema = json.load(open(sys.argv[2]))
jsonschema.Draft7Validator.check_schema(schema)
validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
errors = list(validator.iter_errors(doc))
for e in errors[:5]:
    print(list(e.absolute_path), e.message)
run = doc["runs"][0]
# the schema has teeth: a column 0, an unknown key and a level SARIF lacks are refused
if run["results"]:
    bad = json.loads(json.dumps(doc))
    r = bad["runs"][0]["results"][0]
    r["level"] = "fatal"
    r["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": "m"}, "region": {"startLine": 0}}}]
    r["line"] = 3
    assert len(list(validator.iter_errors(bad))) == 3, list(validator.iter_errors(bad))
ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
for r in run["results"]:
    assert ids[r["ruleIndex"]] == r["ruleId"], r
print("ok" if not errors else "invalid")
END
	schema=$root/tests/sarif-schema-2.1.0.json
	for dir in errors check; do
		verdict=$("$py" sarif.py $dir.sarif "$schema" 2>&1)
		if [ "$verdict" = "no jsonschema" ]; then
			skip "corpus/$dir: the SARIF log is valid against the SARIF 2.1.0 schema" "python3 has no jsonschema"
		else
			check "corpus/$dir: the SARIF log is valid against the SARIF 2.1.0 schema" '[ "$verdict" = ok ]'
		fi
	done
else
	skip "JSON and SARIF structure" "python3 not found"
fi

# the fix-it of a misspelled type, with its place: the word before the error's '['
run 1 "a misspelled type: check --diagnostics-format=json" check --diagnostics-format=json \
	"$root/corpus/errors/vi_misspelled_type_hint.onnxtxt"
check "the hint and the fix-it are fields of their own" \
	'has err.txt "\"hint\": \"did you mean '"'"'float16'"'"'?\", \"fixit\": {\"line\": 3, \"column\": 4, \"end_line\": 3, \"end_column\": 11, \"text\": \"float16\"}"'
check "nothing else goes to standard error" '[ "$(wc -l <err.txt)" -eq 1 ]'

# a binary model: no lines, the element's path as a logical location
cat >bad.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) {
  y = Relu (h)
}
END
"$cli" to-binary bad.onnxtxt -o bad.onnx
run 1 "check --diagnostics-format=sarif of a binary model" check --diagnostics-format=sarif bad.onnx
check "the result has the element's path as a logical location" \
	'has err.txt "\"logicalLocations\": \[{\"fullyQualifiedName\": \"graph.node\[0\]\", \"kind\": \"element\"}\]"'
check "and no region" '! has err.txt "\"region\""'
run 1 "check --diagnostics-format=json of a binary model" check --diagnostics-format=json bad.onnx
check "line null, path set" 'has err.txt "\"line\": null, .*\"path\": \"graph.node\[0\]\""'

# every command that reports problems
printf 'g (float[N] x) => (float[N] y) {\n  y = Relu(x\n}\n' >syntax.onnxtxt
for cmd in to-binary fmt run check dot; do
	"$cli" $cmd --diagnostics-format=json syntax.onnxtxt >out.bin 2>err.txt
	check "$cmd --diagnostics-format=json: one JSON line at 3:1" \
		'[ "$(wc -l <err.txt)" -eq 1 ] && has err.txt "^{\"file\": \"syntax.onnxtxt\", \"line\": 3, \"column\": 1, .*\"code\": \"syntax\""'
done
run 1 "a SARIF document for a syntax error in fmt" fmt --diagnostics-format=sarif syntax.onnxtxt
check "the region of the syntax error" 'has err.txt "\"region\": {\"startLine\": 3, \"startColumn\": 1, \"endLine\": 3, \"endColumn\": 2}"'
run 0 "--diagnostics-format=text after sarif" check -q --diagnostics-format=sarif "$root/corpus/valid/annotations.onnxtxt" \
	--diagnostics-format=text
check "the last one wins: no SARIF" 'empty err.txt'
"$cli" check --diagnostics-format=sarif "$root/corpus/valid/annotations.onnxtxt" >out.txt 2>err.txt
check "a valid model: a SARIF document with no results" 'has err.txt "\"results\": \[" && ! has err.txt "ruleId"'
run 3 "a file error as JSON" check --diagnostics-format=json missing.onnxtxt
check "the file error has the code 'error' and no line" 'has err.txt "\"line\": null.*\"code\": \"error\", \"message\": \"cannot open missing.onnxtxt"'
"$cli" --diagnostics-format=json check syntax.onnxtxt >out.txt 2>err.txt
check "--diagnostics-format before the command" 'has err.txt "^{\"file\": \"syntax.onnxtxt\", \"line\": 3,"'
run 2 "an unknown format is a usage error" check --diagnostics-format=xml bad.onnxtxt
check "the usage error names the formats" 'has err.txt "takes text, json or sarif, not .xml."'
# a file name that needs percent-encoding in a URI
cp syntax.onnxtxt 'a b#.onnxtxt'
run 1 "SARIF for a file name with a space and '#'" check --diagnostics-format=sarif 'a b#.onnxtxt'
check "the URI is percent-encoded" 'has err.txt "\"uri\": \"a%20b%23.onnxtxt\""'

# ---- test --junit ------------------------------------------------------------------------

mkdir -p cases/sub
cat >cases/pass.onnxtxt <<'END'
#@ input X = float[2] {1, 2}
#@ expect Y = float[2] {1, 2}
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] X) => (float[2] Y) {
  Y = Identity(X)
}
END
sed 's/expect Y = float\[2\] {1, 2}/expect Y = float[2] {1, 3}/' cases/pass.onnxtxt >'cases/sub/fail <&>.onnxtxt'
sed 's/Identity(X)/com.x.Foo(X)/; s/"" : 17/"" : 17, "com.x" : 1/' cases/pass.onnxtxt >cases/skip.onnxtxt
run 1 "test --junit with a passing, a failing and a skipped case" test --junit report.xml cases cases/pass.onnxtxt
if [ -n "$py" ]; then
	cat >junit.py <<'END'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("4", "1", "1"), root.attrib
suites = root.findall("testsuite")
assert [s.get("name") for s in suites] == ["cases", "cases/pass.onnxtxt"], suites
cases = {c.get("name"): c for c in suites[0].findall("testcase")}
assert sorted(cases) == ["pass.onnxtxt", "skip.onnxtxt", "sub/fail <&>.onnxtxt"], sorted(cases)
assert len(cases["pass.onnxtxt"]) == 0
fail = cases["sub/fail <&>.onnxtxt"].find("failure")
assert fail.get("message") == "output 'Y': element [1] (index 1): got 2, expected 3", fail.get("message")
assert fail.text == fail.get("message")
skipped = cases["skip.onnxtxt"].find("skipped")
assert "com.x.Foo is not supported" in skipped.get("message"), skipped.get("message")
assert (suites[0].get("tests"), suites[0].get("failures"), suites[0].get("skipped")) == ("3", "1", "1")
assert float(cases["pass.onnxtxt"].get("time")) >= 0
print("ok")
END
	check "the JUnit XML parses, with one suite per PATH and the messages" '[ "$("$py" junit.py report.xml 2>&1)" = ok ]'
else
	skip "the JUnit XML parses" "python3 not found"
fi
check "the report is complete (no temporary file left)" '[ ! -e report.xml.tmp-junit ] && has report.xml "</testsuites>"'
run 3 "test --junit into a missing folder: a file error" test --junit nowhere/report.xml cases/pass.onnxtxt
check "it names the file" 'has err.txt "cannot write nowhere/report.xml"'
run 1 "test --diagnostics-format=json" test --diagnostics-format=json cases
check "a failed case is an error at its line" \
	'has err.txt "^{\"file\": \"cases/sub/fail <&>.onnxtxt\", \"line\": 2, .*\"severity\": \"error\", \"code\": \"test-failed\""'
check "a skipped case is a note" 'has err.txt "\"severity\": \"note\", \"code\": \"test-skipped\""'

# ---- info --------------------------------------------------------------------------------

# info_golden NAME MODEL: text and JSON summaries against corpus/golden/info/NAME.{txt,json}
info_golden() {
	if "$cli" info "$2" >info.txt 2>err.txt && "$cli" info --json "$2" >info.json 2>>err.txt; then
		compare "info $1" info.txt "$golden/info/$1.txt"
		compare "info --json $1" info.json "$golden/info/$1.json"
		if [ -n "$py" ]; then
			check "info --json $1 is JSON" '"$py" -c "import json, sys; json.load(open(sys.argv[1]))" info.json'
		fi
	else
		not_ok "info $1" "$(head -c 400 err.txt)"
	fi
}
for f in "$root"/corpus/golden/*.onnxtxt "$root"/corpus/examples/relu.onnxtxt; do
	info_golden "$(basename "$f" .onnxtxt)" "$f"
done
light=${ONNXTXT_SHARED:-$root/../shared}/onnx-backend-data/light
if [ -d "$light" ]; then
	for d in "$light"/test_*; do
		info_golden "light_$(basename "$d")" "$d/model.onnx"
	done
else
	skip "info of the light backend models" "$light is absent"
fi
# the same model as text and as binary gives the same summary
"$cli" to-binary "$root/corpus/golden/control_flow.onnxtxt" -o cf.onnx
check "info of a model's text and of its binary are the same" \
	'[ "$("$cli" info cf.onnx)" = "$("$cli" info "$root/corpus/golden/control_flow.onnxtxt")" ]'
# external data: its file, its tensors and their bytes, with no data read
{
	echo '<ir_version: 8, opset_import: ["" : 17]>'
	echo "g (float[4] x) => (float[4] y) <float[4] w = {1, 2, 3, 4}, int64[600] big = {$(seq -s, 1 600)}> {"
	echo '  y = Add(x, w)'
	echo '}'
} >ext.onnxtxt
"$cli" to-text ext.onnxtxt --external-data weights.bin --size-threshold 100 -o ext2.onnxtxt
rm -f weights.bin # info reads no tensor data, so the file need not even be there
run 0 "info of a model with external data" info ext2.onnxtxt
check "it names the file, its tensors and bytes" 'has out.txt "^  weights.bin: 1 tensor, 4800 bytes\$"'
check "the largest tensor first" '[ "$(sed -n "/^largest tensors:/{n;p}" out.txt)" = "  big: int64[600], 4800 bytes" ]'
check "initializers by element type" 'has out.txt "^  int64: 1 tensor, 600 parameters, 4800 bytes\$"'
run 1 "info of a file that is no model" info "$root/corpus/errors/attr_int_overflow.onnxtxt"
check "the parse error, at its place" 'has err.txt "attr_int_overflow.onnxtxt:4:19: error: integer"'
run 2 "info takes one model" info a b

# ---- syntax colour -----------------------------------------------------------------------

cat >case.onnxtxt <<'END'
# A test case, with comments.
#@ input X = float[2] {1, -2}
#@ expect Y = float[2] {1, 0}
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] X) => (float[2] Y) {
  Y = Relu(X)  # the rest of the line
}
END
color_golden() {
	compare "$1 --color=always matches its golden" out.txt "$golden/color/$2"
}
if run 0 "to-text --color=always" to-text --color=always "$root/corpus/golden/functions.onnxtxt"; then
	color_golden to-text functions.txt
fi
# (no plain comments: whether fmt keeps them is not this test's business)
cat >annotated.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17], producer_name: "colour">
#@ doc_string: "A graph with a doc string."
g (float[2] X, seq(int64[N]) s) => (float[2] Y) <int64 k = {3}, float f = {-2.5e-3}> {
  Y = Relu(X)
  n = Constant <value_string = "a \"string\""> ()
}
END
if run 0 "fmt --color=always: annotations, strings, types, numbers" fmt --color=always annotated.onnxtxt; then
	color_golden fmt annotated.txt
fi
if run 0 "fmt --color=always: comments and test case lines grey" fmt --color=always case.onnxtxt; then
	color_golden fmt case.txt
	check "the trailing comment keeps its place, grey" 'has out.txt "(.\[34mX.\[0m)  .\[90m# the rest of the line.\[0m\$"'
fi
if run 0 "run --color=always" run --color=always case.onnxtxt; then
	color_golden run run.txt
	check "the output name blue, the type cyan, the numbers yellow" \
		'[ "$(cat out.txt)" = "$(printf "\033[34mY\033[0m = \033[36mfloat\033[0m[\033[33m2\033[0m] {\033[33m1\033[0m, \033[33m0\033[0m}")" ]'
fi
# colour only decorates: without the escape sequences the text is the same, byte for byte
esc=$(printf '\033')
for f in "$root"/corpus/golden/*.onnxtxt "$root"/corpus/valid/*.onnxtxt; do
	"$cli" to-text "$f" >want.txt 2>/dev/null || continue # entry_*.onnxtxt: not models
	"$cli" to-text --color=always "$f" | sed "s/$esc\[[0-9;]*m//g" >plain.txt
	cmp -s plain.txt want.txt || not_ok "to-text --color=always of $(basename "$f"), without colour, is to-text's text"
done
ok "to-text --color=always of every corpus model, without colour, is to-text's text"
run 0 "to-text into a file or a pipe has no colour (auto)" to-text "$root/corpus/golden/functions.onnxtxt"
check "no escape sequence" '! grep -q "$esc" out.txt'
NO_COLOR=1 "$cli" to-text --color=never "$root/corpus/golden/functions.onnxtxt" >out.txt
check "--color=never: no escape sequence" '! grep -q "$esc" out.txt'
"$cli" to-text --color=always "$root/corpus/golden/functions.onnxtxt" -o colored.onnxtxt
check "-o FILE is never coloured" '! grep -q "$esc" colored.onnxtxt'
if command -v script >/dev/null 2>&1; then
	script -qec "'$cli' run case.onnxtxt" /dev/null >tty.txt 2>&1
	check "on a terminal, run colours its output (auto)" 'grep -q "$esc\[34mY" tty.txt'
	NO_COLOR=1 script -qec "'$cli' run case.onnxtxt" /dev/null >tty.txt 2>&1
	check "NO_COLOR turns it off on a terminal" '! grep -q "$esc" tty.txt'
else
	skip "colour on a terminal" "script (util-linux) is not installed"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
