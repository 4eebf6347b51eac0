#!/bin/sh
# The command line's own conveniences: check (valid and invalid models, text with
# FILE:LINE:COL and binary with paths, standard input, several files, --quiet), dot (output
# Graphviz renders, clusters for sub-graphs, -o), colour (--color, NO_COLOR, terminals),
# the options every command takes, every command's --help, the manual and the bash
# completion against the --help texts. TAP output. $ONNXTXT is the CLI;
# $ONNXTXT_SOURCE_ROOT the source tree (default: ..); $ONNXTXT_MAN the configured manual.

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"
mlp=$root/corpus/valid/mlp_classifier.onnxtxt
broken=$root/corpus/examples/broken.onnxtxt
control=$root/corpus/golden/control_flow.onnxtxt
man=${ONNXTXT_MAN:-}
commands="to-binary to-text fmt check infer dot info run test"

# ---- check ------------------------------------------------------------------------------------

if run 0 "check: a valid model exits 0" check "$mlp"; then
	check "check: a valid model says ok on stdout, nothing on stderr" \
		'[ "$(cat out.txt)" = "$mlp: ok" ] && empty err.txt'
fi
if run 0 "check -q: a valid model exits 0" check -q "$mlp"; then
	check "check -q: prints nothing" 'empty out.txt && empty err.txt'
fi
cp "$broken" broken.onnxtxt
cat >want.txt <<'EOF'
broken.onnxtxt:5:18: error: graph.node[1] (LeakyRelu): attribute 'alpha' must be float, not int (write a float literal: 1.0, not 1)
  y = LeakyRelu <alpha = 1> (g)
                 ^~~~~
broken.onnxtxt:5:30: error: graph.node[1] (LeakyRelu): input 'g' is not defined anywhere
  y = LeakyRelu <alpha = 1> (g)
                             ^
broken.onnxtxt:6:3: error: graph.node[2] (Sigmoid): output 'h' is already defined by node[0]
  h = Sigmoid (y)
  ^
EOF
if run 1 "check: an invalid model exits 1" check broken.onnxtxt; then
	check "check: every problem, at FILE:LINE:COL with the line and a caret" 'same err.txt want.txt'
	check "check: nothing on stdout for an invalid model" 'empty out.txt'
fi
"$cli" check - <broken.onnxtxt >out.txt 2>err.txt
status=$?
sed 's/^broken.onnxtxt:/<stdin>:/' want.txt >want-stdin.txt
check "check -: standard input is named <stdin>" '[ "$status" -eq 1 ] && same err.txt want-stdin.txt'
"$cli" to-binary broken.onnxtxt -o broken.onnx 2>err.txt
cat >want.txt <<'EOF'
broken.onnx: error: graph.node[1] (LeakyRelu): attribute 'alpha' must be float, not int
broken.onnx: error: graph.node[1] (LeakyRelu): input 'g' is not defined anywhere
broken.onnx: error: graph.node[2] (Sigmoid): output 'h' is already defined by node[0]
EOF
if run 1 "check: an invalid binary model exits 1" check broken.onnx; then
	check "check: a binary model's problems name their path, without the text-only hint" 'same err.txt want.txt'
fi
if run 1 "check: several files, one invalid, exit 1" check "$mlp" broken.onnxtxt "$control"; then
	check "check: the valid ones say ok, in order" \
		'[ "$(cat out.txt)" = "$(printf "%s: ok\n%s: ok" "$mlp" "$control")" ]'
	check "check: the invalid one's problems are reported" "[ \$(grep -c ': error: ' err.txt) -eq 3 ]"
fi
printf 'g (float[N] x) => (float[N] y) { y = Relu(x }\n' >syntax.onnxtxt
if run 1 "check: a syntax error exits 1" check syntax.onnxtxt; then
	check "check: the syntax error is reported as such" "has err.txt '^syntax.onnxtxt:1:45: error: expected'"
fi
run 3 "check: a missing file exits 3" check missing.onnxtxt && check "check: the missing file is named" 'has err.txt missing.onnxtxt'
run 3 "check: a missing file beats an invalid one" check broken.onnxtxt missing.onnxtxt && ok "check: exit status 3 wins"
run 2 "check: no model is a usage error" check && check "check: the usage error says what is missing" \
	"has err.txt 'expected at least one model'"
# More problems than --max-errors (default 100): the rest are counted, not dropped silently.
{
	printf '<ir_version: 8, opset_import: ["": 17]>\ng (float[N] p) => (float[N] y) {\n  y = Relu (p)\n'
	i=0
	while [ $i -lt 150 ]; do printf '  t%d = Relu (u%d)\n' $i $i; i=$((i + 1)); done
	printf '}\n'
} >many.onnxtxt
if run 1 "check: 150 problems exit 1" check many.onnxtxt; then
	check "check: 100 problems by default, then how many more" "[ \$(grep -c ': error: ' err.txt) -eq 100 ] &&
		[ \"\$(tail -n 1 err.txt)\" = 'many.onnxtxt: note: 50 more problems not shown; --max-errors 0 shows all' ]"
fi
if run 1 "check --max-errors 0: exits 1" check --max-errors 0 many.onnxtxt; then
	check "check --max-errors 0: every problem, no note" "[ \$(grep -c ': error: ' err.txt) -eq 150 ] && ! has err.txt note:"
fi
"$cli" to-binary many.onnxtxt -o many.onnx 2>/dev/null
if run 1 "check --max-errors 1: a binary model exits 1" check --max-errors 1 many.onnx; then
	check "check --max-errors 1: one problem, then the count of the others" "[ \$(grep -c ': error: ' err.txt) -eq 1 ] &&
		has err.txt '^many.onnx: note: 149 more problems not shown'"
fi
run 2 "check --max-errors: not a number is a usage error" check --max-errors -1 many.onnxtxt &&
	check "check --max-errors: the usage error names the value" "has err.txt \"needs a number (0: all), not '-1'\""
for f in "$root"/corpus/check/*.onnxtxt; do
	want=1
	grep -q '^# error: ' "$f" || want=0 # warnings alone: valid
	"$cli" check -q "$f" >/dev/null 2>&1
	[ $? -eq $want ] || not_ok "check: $(basename "$f") exits $want"
done
ok "check: every file of corpus/check exits 1, or 0 when it has warnings alone"
run 0 "check: a warning leaves the model valid" check "$root/corpus/check/opset_newer_than_known.onnxtxt" &&
	check "check: the warning is on standard error, then ok" \
		"has err.txt 'warning: opset 40 of the default domain is newer than any' && has out.txt 'opset_newer_than_known.onnxtxt: ok'"

# ---- fmt keeps test cases -----------------------------------------------------------------------

# A test case's "#@ input" and "#@ expect" lines are comments to the parser: fmt -i keeps
# them where they are, as they are.
printf '#@ input x = float[2] {1, -1}\n#@ expect y = float[2] {1, 0}\n<ir_version: 8, opset_import: ["" : 17]>\ng (float[2] x) => (float[2] y) { y = Relu(x) }\n' >case.onnxtxt
cat >case.expected <<'EOF'
#@ input x = float[2] {1, -1}
#@ expect y = float[2] {1, 0}
<
  ir_version: 8,
  opset_import: ["" : 17]
>
g (float[2] x) => (float[2] y)
{
  y = Relu (x)
}
EOF
if run 0 "fmt -i: a test case is formatted" fmt -i case.onnxtxt; then
	check "fmt -i: the test case lines keep their place and text" "same case.onnxtxt case.expected && empty err.txt"
	run 0 "fmt -i: the formatted test case still runs" test case.onnxtxt
fi
run 0 "fmt -i --drop-comments rewrites a test case" fmt -i --drop-comments case.onnxtxt &&
	check "fmt -i --drop-comments: the case lines are gone, as asked" "! grep -q '^#@ input' case.onnxtxt"
printf '<ir_version: 8, opset_import: ["" : 17]>\n#@ doc_string: "d"\ng (float[2] x) => (float[2] y) { y = Relu(x) }\n' >annotated.onnxtxt
run 0 "fmt -i: annotations are not comments" fmt -i annotated.onnxtxt &&
	check "fmt -i: the annotated file is rewritten with its annotation" "has annotated.onnxtxt '#@ doc_string: \"d\"'"

# ---- dot --------------------------------------------------------------------------------------

if run 0 "dot: exits 0" dot "$control"; then
	cp out.txt control.dot
	check "dot: a digraph named after the graph" "head -n 1 control.dot | grep -q '^digraph \"control\" {\$'"
	check "dot: one cluster per sub-graph (If's two branches, Loop's body)" \
		"[ \$(grep -c '^ *subgraph cluster_' control.dot) -eq 3 ]"
	check "dot: the clusters are named after the node and attribute" \
		"has control.dot 'label=<If then_branch>' && has control.dot 'label=<Loop body>'"
	check "dot: a sub-graph's outputs lead to its node with dashed edges" \
		"[ \$(grep -c 'style=dashed\\]' control.dot) -eq 5 ]"
	check "dot: edges carry the value's name and declared type" "has control.dot 'label=\"[a-z_]*\\\\nfloat\\[3\\]\"'"
fi
if run 0 "dot: mlp exits 0" dot "$mlp"; then
	cp out.txt mlp.dot
	check "dot: nodes show their attributes" "has mlp.dot 'axis = -1'"
	check "dot: initializers show in the box of the node that reads them" "has mlp.dot 'w1: float\\[4, 8\\]'"
fi
run 0 "dot -o: exits 0" dot "$mlp" -o out.dot && check "dot -o: writes the same as standard output" 'same out.dot mlp.dot'
"$cli" to-binary "$mlp" -o mlp.onnx 2>/dev/null
run 0 "dot: a binary model exits 0" dot mlp.onnx && check "dot: binary and text give the same picture" 'same out.txt mlp.dot'
printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[2] x) => (float[2] y) { y = Add (x, nowhere) }\n' >undef.onnxtxt
run 0 "dot: an undefined input still draws" dot undef.onnxtxt && check "dot: the undefined input is red" \
	"grep -q 'color=red.*nowhere' out.txt"
cp out.txt undef.dot
# Operand order: after Split, Sub(b, a) joins the same two boxes twice; the labels say which
# value is which input, so the picture reads back.
printf '<ir_version: 8, opset_import: ["" : 18]>\ng (float[4] x) => (float[2] y) {\n  a, b = Split <num_outputs = 2> (x)\n  y = Sub (b, a)\n}\n' >split.onnxtxt
if run 0 "dot: Split then Sub(b, a) exits 0" dot split.onnxtxt; then
	cp out.txt split.dot
	# a and b are declared nowhere: their types are the inferred ones (float[2] each)
	check "dot: the two edges into Sub say which value is which operand, with its inferred type" \
		"has split.dot '^  n2 -> n3 \\[label=\"0: b\\\\nfloat\\[2\\]\"\\];\$' && has split.dot '^  n2 -> n3 \\[label=\"1: a\\\\nfloat\\[2\\]\"\\];\$'"
	check "dot: an edge into a one-input node or an output has the name alone" \
		"has split.dot '^  n1 -> n2 \\[label=\"x\\\\nfloat\\[4\\]\"\\];\$'"
fi
run 2 "dot: two models is a usage error" dot "$mlp" "$control"
run 1 "dot: an invalid file exits 1" dot syntax.onnxtxt
if command -v dot >/dev/null 2>&1; then
	for f in control.dot mlp.dot undef.dot split.dot; do
		dot -Tsvg "$f" >picture.svg 2>err.txt
		status=$?
		check "dot: Graphviz renders $f without a message" '[ "$status" -eq 0 ] && empty err.txt && has picture.svg "<svg"'
	done
	for f in "$root"/corpus/*/*.onnxtxt; do
		"$cli" dot "$f" >any.dot 2>err.txt
		status=$?
		# 1: not a model (an error case, an entry other than a model); sanitizers report
		# on stderr whatever the status
		if [ "$status" -gt 1 ] || grep -q 'runtime error\|Sanitizer' err.txt; then
			not_ok "dot: $(basename "$f") exits $status" "$(head -c 400 err.txt)"
		elif [ "$status" -eq 0 ]; then
			dot -Tsvg any.dot >/dev/null 2>err.txt && empty err.txt || not_ok "dot: Graphviz renders $(basename "$f")"
		fi
	done
	ok "dot: Graphviz renders every corpus model that reads"
	"$cli" dot "$mlp" | dot -Tsvg >pipe.svg 2>err.txt
	check "dot: the README's pipe works" 'has pipe.svg "<svg" && empty err.txt'
else
	skip "dot: Graphviz renders the output" "Graphviz (dot) is not installed"
fi

# ---- colour -----------------------------------------------------------------------------------

esc=$(printf '\033')
run 1 "--color=always: exits 1" --color=always check broken.onnxtxt
check "--color=always colours 'error:' even off a terminal" "grep -q \"\${esc}\\[1;31merror:\" err.txt"
check "--color=always colours the caret line" "grep -q \"\${esc}\\[1;32m *^\" err.txt"
cp err.txt colored.txt
run 1 "--color=always after the command" check --color=always broken.onnxtxt && check "--color after the command works the same" 'same err.txt colored.txt'
run 1 "--color alone means always" check --color broken.onnxtxt && check "--color alone colours" 'same err.txt colored.txt'
run 1 "--color=never: exits 1" --color=never check broken.onnxtxt
check "--color=never: no escape codes" "! grep -q \"\$esc\" err.txt"
run 1 "off a terminal: exits 1" check broken.onnxtxt && check "off a terminal, auto: no escape codes" "! grep -q \"\$esc\" err.txt"
run 2 "--color=sometimes is a usage error" --color=sometimes check "$mlp" &&
	check "--color=sometimes: the message lists the choices" "has err.txt 'auto, always or never'"
NO_COLOR=1 "$cli" --color=always check broken.onnxtxt >out.txt 2>err.txt
check "--color=always beats NO_COLOR" "grep -q \"\$esc\" err.txt"
run 2 "usage errors are coloured too" --color=always check &&
	check "a usage error has a coloured 'error:'" "grep -q \"\${esc}\\[1;31merror:\" err.txt"
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "'$cli' check '$work/broken.onnxtxt'" /dev/null >tty.txt 2>&1 </dev/null
	check "on a terminal, auto colours" "grep -q \"\${esc}\\[1;31merror:\" tty.txt"
	NO_COLOR=1 script -qec "'$cli' check '$work/broken.onnxtxt'" /dev/null >tty.txt 2>&1 </dev/null
	check "on a terminal, NO_COLOR turns colour off" "has tty.txt 'error:' && ! grep -q \"\$esc\" tty.txt"
	NO_COLOR= script -qec "'$cli' check '$work/broken.onnxtxt'" /dev/null >tty.txt 2>&1 </dev/null
	check "an empty NO_COLOR does not" "grep -q \"\${esc}\\[1;31merror:\" tty.txt"
	TERM=dumb script -qec "'$cli' check '$work/broken.onnxtxt'" /dev/null >tty.txt 2>&1 </dev/null
	check "TERM=dumb turns colour off" "has tty.txt 'error:' && ! grep -q \"\$esc\" tty.txt"
else
	skip "on a terminal, auto colours" "script (util-linux) is not available"
fi

# ---- options every command takes ---------------------------------------------------------------

run 0 "-q before the command" -q check "$mlp" && check "-q before the command is quiet" 'empty out.txt'
run 0 "--quiet after the model" check "$mlp" --quiet && check "--quiet after the model is quiet" 'empty out.txt'
run 2 "an unknown global option" --frobnicate check "$mlp" &&
	check "the unknown global option is named" "has err.txt \"unknown option '--frobnicate'\""
run 2 "an unknown short option" check -z "$mlp" && check "the unknown short option is named" "has err.txt \"check: unknown option '-z'\""
run 2 "an option without its argument" dot "$mlp" -o && check "the missing argument is named" \
	"has err.txt \"dot: option '-o' needs an argument\""
for c in $commands; do
	run 2 "$c --color=bad is a usage error" "$c" --color=bad "$mlp" && ok "$c takes --color"
done

# ---- usage errors: what they say, and where they send the reader -----------------------------

if run 2 "a misspelt global option" --colour=never check "$mlp"; then
	check "a global option's error has one prefix and a suggestion" \
		"[ \"\$(head -n 1 err.txt)\" = \"onnxtxt: error: unknown option '--colour=never' (did you mean '--color'?)\" ]"
	check "a global usage error points to onnxtxt --help" "has err.txt \"^Try 'onnxtxt --help'\""
fi
if run 2 "a misspelt command option" run "$mlp" --inptu x; then
	check "a command's option suggestion" "has err.txt \"run: unknown option '--inptu' (did you mean '--input'?)\""
fi
for c in $commands; do
	run 2 "$c: a usage error" "$c" --frobnicate &&
		check "$c: a usage error points to the command's own help" "has err.txt \"^Try 'onnxtxt $c --help'\""
done
if run 2 "a misspelt command" to-txt "$mlp"; then
	check "a misspelt command gets a suggestion" "has err.txt \"unknown command 'to-txt' (did you mean 'to-text'?)\""
fi
run 2 "an unknown command far from any" frobnicate && check "no suggestion when nothing is near" "! has err.txt 'did you mean'"
run 0 "help alone" help && check "help is --help" '"$cli" --help | cmp -s - out.txt'
for c in $commands; do
	run 0 "help $c" help "$c" && check "help $c is $c --help" '"$cli" "$c" --help | cmp -s - out.txt'
done
run 2 "help of an unknown command" help to-txt && check "help of a misspelt command suggests" "has err.txt \"did you mean 'to-text'\""
cat >id2.onnxtxt <<'EOF'
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) { y = Identity(x) }
EOF
for v in 'float[2] {1, 2}' '[float[2] {1, 2}]' none 'string[1] {"a=b"}'; do
	if run 2 "run -i '$v' without NAME= is a usage error" run id2.onnxtxt -i "$v"; then
		check "run -i '$v': the message asks for NAME=VALUE" \
			"has err.txt \"a value needs the name of the input it is for: --input NAME=VALUE\" && ! has err.txt 'cannot open'"
	fi
done
"$cli" test -q "$root/corpus/examples" >out.txt 2>err.txt
check "test -q: no PASS lines, the summary stays" "! grep -q '^PASS' out.txt && grep -q 'passed, .* failed, .* skipped' out.txt"

# ---- help ---------------------------------------------------------------------------------------

if run 0 "--help exits 0" --help; then
	cp out.txt main-help.txt
	for c in $commands; do
		check "--help lists $c" "grep -q '^  $c ' main-help.txt"
	done
	for code in 0 1 2 3 77; do
		check "--help documents exit status $code" "grep -q '^  $code ' main-help.txt"
	done
	check "--help documents --color and --quiet" "has main-help.txt '--color\\[=WHEN\\]' && has main-help.txt '--quiet'"
fi
for c in $commands; do
	if run 0 "$c --help exits 0" "$c" --help; then
		cp out.txt "help-$c.txt"
		check "$c --help: a usage line, nothing on stderr" "head -n 1 help-$c.txt | grep -q '^Usage: onnxtxt $c' && empty err.txt"
		check "$c --help: the common options" "has help-$c.txt '^  -q, --quiet ' && has help-$c.txt '^  --color\\[=WHEN\\] ' && has help-$c.txt '^  -h, --help '"
		check "$c --help: the exit status" "has help-$c.txt 'Exit status'"
		check "$c --help: no line over 100 columns" "[ \$(awk '{ if (length > 100) n++ } END { print n + 0 }' help-$c.txt) -eq 0 ]"
	fi
	run 0 "$c -h exits 0" "$c" -h && check "$c -h is --help" "same out.txt help-$c.txt"
done
check "test --help documents exit status 3" "grep -q '3 a PATH' help-test.txt"

# every long option a --help names (help-*.txt)
long_options() { grep -o -- '--[a-z][-a-z]*' "help-$1.txt" | sort -u; }

# ---- the manual ----------------------------------------------------------------------------------

if [ -n "$man" ] && [ -f "$man" ]; then
	for c in $commands; do
		check "the manual has a section for $c" "grep -q '^\\.SS $c\$' '$man'"
		for o in $(long_options "$c"); do
			roff=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
			grep -q -- "$roff" "$man" || not_ok "the manual names $c's $o"
		done
	done
	ok "the manual names every long option of every command"
	for code in 0 1 2 3 77; do
		check "the manual documents exit status $code" "sed -n '/^\\.SH EXIT STATUS/,/^\\.SH/p' '$man' | grep -q '^\\.B $code\$'"
	done
	check "the manual has the version" "grep -q '^\\.TH ONNXTXT 1 .*\"onnxtxt $("$cli" --version | cut -d' ' -f2)\"' '$man'"
	if command -v groff >/dev/null 2>&1; then
		LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$man" >out.txt 2>err.txt
		status=$?
		check "groff renders the manual without a warning" '[ "$status" -eq 0 ] && empty err.txt'
	else
		skip "groff renders the manual without a warning" "groff is not installed"
	fi
else
	skip "the manual" "ONNXTXT_MAN is not set"
fi

# ---- bash completion ---------------------------------------------------------------------------

completion=$root/tools/onnxtxt.bash-completion
if command -v bash >/dev/null 2>&1; then
	# complete WORDS...: the completions bash's function offers for the last word
	complete_words() {
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _onnxtxt; printf "%s\n" "${COMPREPLY[@]}"' \
			complete "$completion" "$@"
	}
	check "completion: the commands" "[ \"\$(complete_words onnxtxt '' | tr '\\n' ' ')\" = '$commands help ' ]"
	check "completion: the commands after help" "[ \"\$(complete_words onnxtxt help '' | tr '\\n' ' ')\" = '$commands ' ]"
	for c in $commands; do
		complete_words onnxtxt "$c" -- >offered.txt
		for o in $(long_options "$c"); do
			grep -qx -- "$o" offered.txt || not_ok "completion: $c offers $o"
		done
	done
	ok "completion: every long option of every command"
	check "completion: --color=WHEN values" "[ \"\$(complete_words onnxtxt --color=a | tr '\\n' ' ')\" = '--color=auto --color=always ' ]"
	check "completion: WHEN after a split '='" "[ \"\$(complete_words onnxtxt check --color = n)\" = never ]"
	check "completion: the command after global options" "complete_words onnxtxt -q --color = never dot -- | grep -qx -- --output"
	mkdir -p cdir && : >cdir/model.onnxtxt
	check "completion: file names for the model" "[ \"\$(complete_words onnxtxt check cdir/mo)\" = cdir/model.onnxtxt ]"
else
	skip "completion" "bash is not installed"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
