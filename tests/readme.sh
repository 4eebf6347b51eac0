#!/bin/sh
# The README as a newcomer follows it: its quick start converts a model that exists, and
# every "$ command" of its ```console blocks, run from the repository's root (after the
# quick start), prints exactly the lines the README shows after it (standard output and
# error together; timings are not compared). A command that needs an operator the
# evaluator does not have yet, or Graphviz where it is missing, is a skip. TAP output.
# $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"
readme=$root/README.md

# A scratch copy of the repository's root as the README sees it: the corpus, and onnxtxt
# on PATH.
ln -s "$root/corpus" corpus
mkdir bin
ln -s "$cli" bin/onnxtxt
PATH=$work/bin:$PATH
export PATH

quick=$(grep -o 'build/tools/onnxtxt to-binary corpus/[^ ]* -o [^ ]*' "$readme" | head -n 1)
if [ -n "$quick" ]; then
	# shellcheck disable=SC2086 # the words of the command
	onnxtxt ${quick#build/tools/onnxtxt } 2>err.txt
	status=$?
	check "the quick start converts its bundled model" '[ "$status" -eq 0 ] && [ -s mlp_classifier.onnx ]'
else
	not_ok "the README has a quick start that converts a model"
fi

# Splits the console blocks into numbered files: cmd.N (one command) and want.N (the
# lines the README shows after it).
awk '
	/^```console$/ { inside = 1; next }
	/^```/ { inside = 0; next }
	inside && /^\$ / { n++; print substr($0, 3) > ("cmd." n); printf "" > ("want." n); next }
	inside && n { print > ("want." n) }
	END { print n + 0 > "count" }
' "$readme"
count=$(cat count)
check "the README has console examples" '[ "$count" -gt 10 ]'

# "(0.1 ms)", "set-up 41.902 us" and "min 1.234 ms" are timings
normalise() { sed 's/([0-9.]* ms)$/(... ms)/; s/[0-9][0-9.]* [mu]s\b/... s/g' "$1"; }

i=1
while [ "$i" -le "$count" ]; do
	cmd=$(cat "cmd.$i")
	sh -c "$cmd" >got 2>&1
	normalise got >got.n
	normalise "want.$i" >want.n
	if cmp -s got.n want.n; then
		ok "\$ $cmd"
	elif grep -q 'is not supported' got && ! grep -q 'is not supported' want.n; then
		skip "\$ $cmd" "$(grep -o 'operator [^ ]* is not supported' got | head -n 1) yet"
	elif ! command -v dot >/dev/null 2>&1 && printf '%s' "$cmd" | grep -q '| dot '; then
		skip "\$ $cmd" "Graphviz (dot) is not installed"
	else
		not_ok "\$ $cmd" "the README shows:" "$(head -c 600 want.n)" "the command prints:" "$(head -c 600 got.n)"
	fi
	i=$((i + 1))
done
check "the pictures were drawn" '! command -v dot >/dev/null 2>&1 || { [ -s mlp_classifier.svg ] && [ -s control_flow.png ]; }'

echo "1..$n"
[ "$failed" -eq 0 ]
