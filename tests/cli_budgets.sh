#!/bin/sh
# onnxtxt run and test against runaway models (issue 15): --max-memory and --timeout with
# the hostile models of the issue and their exact messages, the function fan-out that must
# plan at once, and run --repeat N --time (the format of its lines, not the numbers).
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"

cat >huge.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g () => (float[N] y) <int64[1] shape = {1000000000}> {
  y = ConstantOfShape(shape)
}
END
cat >forever.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g () => (float y) <int64 n = {1000000000000}, bool c = {1}, float x = {1}> {
  y = Loop(n, c, x) <body = b (int64 i, bool ci, float xi) => (bool co, float xo) {
    co = Identity(ci)
    xo = Identity(xi)
  }>
}
END
# each function calls the next twice, 40 levels: 2^40 calls once expanded
{
	echo '<ir_version: 8, opset_import: ["" : 17, "local" : 1]>'
	echo 'g (float[1] x) => (float[1] y) { y = local.F0(x) }'
	i=0
	while [ "$i" -lt 40 ]; do
		echo '<domain: "local", opset_import: ["" : 17, "local" : 1]>'
		echo "F$i (a) => (b) { t = local.F$((i + 1))(a) b = local.F$((i + 1))(t) }"
		i=$((i + 1))
	done
	echo '<domain: "local", opset_import: ["" : 17, "local" : 1]>'
	echo 'F40 (a) => (b) { b = Add(a, a) }'
} >fanout.onnxtxt
cat >regex.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 20]>
g (string[1] x) => (bool[1] y) {
  y = RegexFullMatch <pattern = "((a{1000}){1000}){1000}"> (x)
}
END

# ---- memory budget -------------------------------------------------------------------------

if run 1 "run --max-memory refuses ConstantOfShape of [1e9]" run huge.onnxtxt --max-memory 1G; then
	check "the message names the node and the budget" '[ "$(head -n 1 err.txt)" = "huge.onnxtxt:3:7: error: graph.node[0] (ConstantOfShape): memory budget of 1 GiB exceeded (a new tensor of 4000000000 bytes, 0 bytes in use)" ]'
	check "nothing is printed" 'empty out.txt'
fi
if run 1 "--max-memory takes plain bytes" run huge.onnxtxt --max-memory 1000000; then
	check "the budget in bytes" 'has err.txt "memory budget of 1000000 bytes exceeded"'
fi
if run 1 "--max-memory 512KiB" run huge.onnxtxt --max-memory 512KiB; then
	check "the budget in KiB" 'has err.txt "memory budget of 512 KiB exceeded"'
fi
if run 0 "a model within the budget runs" run "$root/corpus/examples/relu.onnxtxt" --max-memory 1K; then
	check "its output" '[ "$(cat out.txt)" = "y = float[2, 3] {1.5, 0, 0, 3, 0, 4}" ]'
fi
if run 2 "--max-memory must be a size" run huge.onnxtxt --max-memory 12Q; then
	check "the usage message" 'has err.txt "run: --max-memory takes a size such as 512M or 2G, not .12Q."'
fi
run 2 "--max-memory may not be negative" run huge.onnxtxt --max-memory -1 && ok "negative size refused"

# ---- deadline ------------------------------------------------------------------------------

if run 1 "run --timeout stops a Loop of 10^12 iterations" run forever.onnxtxt --timeout 0.2; then
	check "the message names the node and the limit" '[ "$(head -n 1 err.txt)" = "forever.onnxtxt:3:7: error: graph.node[0] (Loop): time limit of 0.2 s reached" ]'
fi
if run 2 "--timeout must be a number of seconds" run forever.onnxtxt --timeout soon; then
	check "the usage message" 'has err.txt "run: --timeout takes a number of seconds, not .soon."'
fi
if run 1 "test --timeout fails the case" test --timeout 0.1 forever.onnxtxt; then
	check "the FAIL line names the limit" 'has out.txt "^FAIL forever.onnxtxt:3:7: graph.node\[0\] (Loop): time limit of 0.1 s reached$"'
fi
if run 1 "test --max-memory fails the case" test --max-memory 64M huge.onnxtxt; then
	check "the FAIL line names the budget" 'has out.txt "^FAIL huge.onnxtxt:3:7: graph.node\[0\] (ConstantOfShape): memory budget of 64 MiB exceeded"'
fi

# ---- function fan-out ----------------------------------------------------------------------

# planning shares the 40 function bodies (it would never end expanding 2^40 calls); the run
# is stopped by the deadline, somewhere down the calls
if run 1 "the function fan-out plans and meets the deadline" run fanout.onnxtxt --input 'x=float[1] {1}' --timeout 0.3; then
	check "the message starts at the graph's node and ends with the limit" 'has err.txt "^fanout.onnxtxt:[0-9]*:[0-9]*: error: graph.node\[0\] (local.F0): .*: time limit of 0.3 s reached$"'
fi

# ---- regular expressions -------------------------------------------------------------------

if run 1 "a regex whose nested counts multiply to 10^9 is refused" run regex.onnxtxt --input 'x=string[1] {"a"}'; then
	check "the message names the pattern and RE2's limit" '[ "$(head -n 1 err.txt)" = "regex.onnxtxt:3:7: error: graph.node[0] (RegexFullMatch): pattern /((a{1000}){1000}){1000}/: repetition counts nested in each other multiply to more than 1000 (RE2'"'"'s limit) (inputs: string[1])" ]'
fi

# ---- run --repeat N --time -----------------------------------------------------------------

ms='[0-9][0-9]*\.[0-9][0-9][0-9] [mu]s'
if run 0 "run --repeat 5 --time" run "$root/corpus/examples/relu.onnxtxt" --repeat 5 --time; then
	check "the outputs of the last run" '[ "$(cat out.txt)" = "y = float[2, 3] {1.5, 0, 0, 3, 0, 4}" ]'
	check "two lines on standard error" '[ "$(wc -l <err.txt)" -eq 2 ]'
	check "the set-up time" 'head -n 1 err.txt | grep -q "^onnxtxt: session set-up $ms$"'
	check "min and median of the runs" 'tail -n 1 err.txt | grep -q "^onnxtxt: 5 runs after 1 warm-up: min $ms, median $ms$"'
fi
if run 0 "test --time: where each case's time went" test --time "$root/corpus/examples/relu.onnxtxt" "$root/corpus/examples/relu.onnxtxt"; then
	check "the cases' lines on standard output" '[ "$(grep -c "^PASS " out.txt)" -eq 2 ]'
	check "one line per case on standard error" '[ "$(wc -l <err.txt)" -eq 2 ]'
	check "read, set-up, run, compare" 'grep -q "^onnxtxt: $root/corpus/examples/relu.onnxtxt: read $ms, set-up $ms, run $ms, compare $ms$" err.txt'
fi
if run 0 "test without --time prints no times" test "$root/corpus/examples/relu.onnxtxt"; then
	check "standard error is empty" 'empty err.txt'
fi
if run 0 "run --time alone times one run" run "$root/corpus/examples/relu.onnxtxt" --time; then
	check "one run after the warm-up" 'grep -q "^onnxtxt: 1 run after 1 warm-up: min $ms, median $ms$" err.txt'
fi
if run 0 "run --repeat without --time prints no times" run "$root/corpus/examples/relu.onnxtxt" --repeat 3; then
	check "standard error is empty" 'empty err.txt'
fi
if run 2 "--repeat takes a positive count" run "$root/corpus/examples/relu.onnxtxt" --repeat 0; then
	check "the usage message" 'has err.txt "run: --repeat takes a number of runs from 1 to 1000000000, not .0."'
fi
if run 1 "a failing run stops the repeats" run forever.onnxtxt --repeat 3 --time --timeout 0.1; then
	check "no times are printed" '! has err.txt "warm-up"'
fi

echo "1..$n"
[ "$failed" -eq 0 ]
