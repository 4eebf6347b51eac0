#!/bin/sh
# onnxtxt run and onnxtxt test as a user meets them: inputs from case lines, --input text
# and .pb files, --input-dir / --output-dir in the backend layout, the verdict lines and
# exit statuses of test (0, 1, 77), and clear errors for bad models and inputs.
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"

cat >id.onnxtxt <<'END'
# Identity, with its own input and expected output
#@ input X = float[2, 2] {1, 2, 3, 4}
#@ expect Y = float[2, 2] {1, 2, 3, 4}
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 2] X) => (float[2, 2] Y) {
  Y = Identity(X)
}
END

# ---- run ---------------------------------------------------------------------------------------

if run 0 "run binds the case's inputs" run id.onnxtxt; then
	check "run prints NAME = VALUE" '[ "$(cat out.txt)" = "Y = float[2, 2] {1, 2, 3, 4}" ]'
fi
if run 0 "run --input overrides a case input" run id.onnxtxt --input 'X=float[2,2] {5, 6, 7, 8}'; then
	check "the override is used" '[ "$(cat out.txt)" = "Y = float[2, 2] {5, 6, 7, 8}" ]'
fi
if run 0 "run reads the model from standard input" run - <id.onnxtxt; then
	check "stdin model output" '[ "$(cat out.txt)" = "Y = float[2, 2] {1, 2, 3, 4}" ]'
fi
mkdir out
if run 0 "run --output-dir writes output_N.pb" run id.onnxtxt --output-dir out; then
	check "output_0.pb exists" '[ -s out/output_0.pb ]'
fi
# a missing --output-dir fails before the model runs: no outputs printed, nothing written
if run 3 "run --output-dir of a missing folder is a file error" run id.onnxtxt --output-dir nowhere; then
	check "the folder is named, nothing is printed" \
		"has err.txt '^onnxtxt: error: --output-dir nowhere: No such file or directory' && empty out.txt && [ ! -e nowhere ]"
fi
run 3 "run --output-dir of a file is a file error" run id.onnxtxt --output-dir id.onnxtxt &&
	check "a file is not a folder" "has err.txt 'Not a directory' && empty out.txt"
mkdir in && cp out/output_0.pb in/input_0.pb
if run 0 "run --input-dir binds input_N.pb" run id.onnxtxt --input-dir in --input 'X=float[2,2] {0,0,0,0}' --output-dir out; then
	: # --input came last and wins
	check "the last binding wins" '[ "$(cat out.txt)" = "Y = float[2, 2] {0, 0, 0, 0}" ]'
fi
if run 0 "run --input NAME=FILE.pb" run id.onnxtxt --input X=in/input_0.pb; then
	check ".pb input is read" '[ "$(cat out.txt)" = "Y = float[2, 2] {1, 2, 3, 4}" ]'
fi
if run 0 "run --input FILE.pb binds by position" run id.onnxtxt --input in/input_0.pb; then
	check ".pb input by position" '[ "$(cat out.txt)" = "Y = float[2, 2] {1, 2, 3, 4}" ]'
fi
"$cli" to-binary id.onnxtxt -o id.onnx 2>err.txt
if run 0 "run a binary model with --input" run id.onnx --input 'X=float[2,2] {1,1,1,1}'; then
	check "binary model output" '[ "$(cat out.txt)" = "Y = float[2, 2] {1, 1, 1, 1}" ]'
fi

if run 1 "a missing input is an error" run id.onnx; then
	check "missing input message" "has err.txt \"input 'X' has no value\""
fi
if run 1 "a wrongly shaped input is an error" run id.onnxtxt --input 'X=float[3] {1, 2, 3}'; then
	check "shape message" "has err.txt \"input 'X': expected float\\[2,2\\], got float\\[3\\]\""
fi
if run 2 "an unknown input name is a usage error" run id.onnxtxt --input 'Z=float {1}'; then
	check "unknown input message" "has err.txt \"the model has no input named 'Z'\""
fi
if run 1 "a malformed --input value is an error" run id.onnxtxt --input 'X=float[2,2] {1, 2'; then
	check "the message names the input" "has err.txt '^onnxtxt: error: --input X: column'"
fi
if run 3 "a missing model file is a file error" run nowhere.onnxtxt; then
	check "file error message" "has err.txt 'nowhere.onnxtxt'"
fi
cat >bad.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] X) => (float[2] Y) {
  Y = Identity(T)
}
END
if run 1 "an undefined name is an error" run bad.onnxtxt --input 'X=float[2] {1, 2}'; then
	check "undefined name message" "has err.txt \"graph.node\\[0\\] (Identity): input 'T' is not defined\""
	check "run: a planning error is at FILE:LINE:COL of the node, with the line and a caret" \
		"[ \"\$(sed -n 2,3p err.txt)\" = \"\$(printf '  Y = Identity(T)\n      ^~~~~~~~')\" ] &&
		has err.txt \"^bad.onnxtxt:3:7: error: graph.node\\[0\\] (Identity)\""
fi
cat >gather.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 18]>
g (float[3] x) => (float[1] y) {
  idx = Constant <value = int64[1] {7}> ()
  y = Gather <axis = 0> (x, idx)
}
END
if run 1 "run: a kernel error exits 1" run gather.onnxtxt --input 'x=float[3] {1, 2, 3}'; then
	check "run: a kernel error is in GNU form at the node, with check's path" \
		"has err.txt '^gather.onnxtxt:4:7: error: graph.node\\[1\\] (Gather): index 7 is out of range' &&
		has err.txt '^      ^~~~~~$'"
fi
"$cli" to-binary gather.onnxtxt -o gather.onnx 2>/dev/null
if run 1 "run: a kernel error in a binary model exits 1" run gather.onnx --input 'x=float[3] {1, 2, 3}'; then
	check "run: a binary model's error names the path, without a line" \
		"has err.txt '^gather.onnx: error: graph.node\\[1\\] (Gather): index 7'"
fi
cat >declared.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (int64[2] y) {
  y = Relu (x)
}
END
if run 1 "run: an output that contradicts its declared type exits 1" run declared.onnxtxt --input 'x=float[2] {1, -2}'; then
	check "run: the error is at the output's declaration, and nothing is printed" \
		"has err.txt \"^declared.onnxtxt:2:29: error: graph.output\\[0\\]: 'y' is declared int64\\[2\\], the run gave float\\[2\\]\" && empty out.txt"
fi
cat >unknown.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g (float[2] X) => (float[2] Y) {
  Y = NoSuchOp(X)
}
END
if run 1 "an unknown operator is an error" run unknown.onnxtxt --input 'X=float[2] {1, 2}'; then
	check "unknown operator message" "has err.txt 'operator NoSuchOp is not supported'"
fi
run 2 "run without a model is a usage error" run
run 0 "run --help" run --help && check "run --help usage" "has out.txt '^Usage: onnxtxt run'"

# ---- test --------------------------------------------------------------------------------------

# ---- map values (ai.onnx.ml) ---------------------------------------------------------------------

cat >maps.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (map(string, float) M, float[2, 2] X) => (map(string, float) N, seq(map(int64, float)) Z, float[1, 2] V) {
  N = Identity (M)
  Z = ai.onnx.ml.ZipMap <classlabels_int64s = [4, 5]> (X)
  V = ai.onnx.ml.DictVectorizer <string_vocabulary = ["a, b", "b"]> (M)
}
END
cat >seqmap.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g (seq(map(int64, float)) S) => (seq(map(int64, float)) T) {
  T = Identity (S)
}
END
mkdir mapout
if run 0 "run takes and prints maps and sequences of maps" run maps.onnxtxt --input 'M=map(string, float) {"b": 1.5, "a, b": -2}' \
	--input 'X=float[2, 2] {0.5, 0.25, 1, nan}' --output-dir mapout; then
	check "map output" "has out.txt '^N = map(string, float) {\"b\": 1.5, \"a, b\": -2}$'"
	check "sequence of maps output" "has out.txt '^Z = \[map(int64, float) {4: 0.5, 5: 0.25}, map(int64, float) {4: 1, 5: nan}\]$'"
	check "DictVectorizer output" "has out.txt '^V = float\[1, 2\] {-2, 1.5}$'"
fi
if run 0 "a MapProto .pb reads back" run maps.onnxtxt --input M=mapout/output_0.pb --input 'X=float[2, 2] {0, 0, 0, 0}'; then
	check "the map read back" "has out.txt '^N = map(string, float) {\"b\": 1.5, \"a, b\": -2}$'"
fi
if run 0 "a SequenceProto of maps reads back" run seqmap.onnxtxt --input S=mapout/output_1.pb; then
	check "the sequence of maps read back" "has out.txt '^T = \[map(int64, float) {4: 0.5, 5: 0.25}, map(int64, float) {4: 1, 5: nan}\]$'"
fi
if run 1 "a repeated map key is an error" run maps.onnxtxt --input 'M=map(string, float) {"a": 1, "a": 2}' --input 'X=float[2, 2] {0, 0, 0, 0}'; then
	check "repeated key message" "has err.txt 'map key 1 repeats an earlier key'"
fi
if run 1 "a float map key is an error" run maps.onnxtxt --input 'M=map(float, float) {1: 1}' --input 'X=float[2, 2] {0, 0, 0, 0}'; then
	check "key type message" "has err.txt 'a map key is an integer of 8 to 64 bits or a string, not float'"
fi
if run 1 "a map of the wrong value type is an error" run maps.onnxtxt --input 'M=map(string, double) {"a": 1}' --input 'X=float[2, 2] {0, 0, 0, 0}'; then
	check "map type message" "has err.txt \"input 'M': expected map(string, float), got map(string, double)\""
fi
if run 1 "a map entry without ':' is an error" run maps.onnxtxt --input 'M=map(string, float) {"a" 1}' --input 'X=float[2, 2] {0, 0, 0, 0}'; then
	check "entry message" "has err.txt \"expected a map entry 'KEY: VALUE'\""
fi
if run 1 "DictVectorizer names a key outside its vocabulary" run maps.onnxtxt --input 'M=map(string, float) {"c": 1}' --input 'X=float[2, 2] {0, 0, 0, 0}'; then
	check "vocabulary message" "has err.txt 'graph.node\[2\] (ai.onnx.ml.DictVectorizer): map key \"c\" is not in string_vocabulary'"
fi
cat >mapcase.onnxtxt <<'END'
#@ input S = [map(int64, float) {1: 0.5, 2: 0.25}]
#@ expect T = [map(int64, float) {2: 0.25, 1: 0.75}]
<ir_version: 8, opset_import: ["" : 17]>
g (seq(map(int64, float)) S) => (seq(map(int64, float)) T) {
  T = Identity (S)
}
END
sed 's/{2: 0.25, 1: 0.75}/{2: 0.25, 1: 0.5}/' mapcase.onnxtxt >mapcase_ok.onnxtxt
sed 's/{2: 0.25, 1: 0.75}/{2: 0.25, 3: 0.5}/' mapcase.onnxtxt >mapcase_key.onnxtxt
if run 1 "test compares maps by key" test mapcase_ok.onnxtxt mapcase.onnxtxt mapcase_key.onnxtxt; then
	check "entries in another order match" "has out.txt '^PASS mapcase_ok.onnxtxt'"
	check "a value mismatch names the key" "has out.txt \"^FAIL mapcase.onnxtxt:2: output 'T': item 0: map: key 1: got 0.5, expected 0.75$\""
	check "a missing key is named" "has out.txt \"^FAIL mapcase_key.onnxtxt:2: output 'T': item 0: map: key 3 is missing$\""
fi
cat >cycle.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 5]>
g (float[1, 1] X) => (float[1, 1] Y) {
  Y = ai.onnx.ml.TreeEnsemble <nodes_featureids = [0, 0], nodes_modes = uint8[2] {0, 0}, nodes_splits = float[2] {0, 0}, nodes_truenodeids = [1, 0], nodes_trueleafs = [0, 0], nodes_falsenodeids = [1, 0], nodes_falseleafs = [0, 0], tree_roots = [0], leaf_targetids = [0], leaf_weights = float[1] {1}, n_targets = 1> (X)
}
END
if run 1 "a tree whose nodes form a cycle is an error" run cycle.onnxtxt --input 'X=float[1, 1] {1}'; then
	check "cycle message" "has err.txt 'tree 0 does not end in a leaf (its nodes form a cycle)'"
fi
cat >onehot.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (int64[2] X) => (float[2, 2] Y) {
  Y = ai.onnx.ml.OneHotEncoder <cats_int64s = [5, 6], zeros = 0> (X)
}
END
if run 1 "OneHotEncoder with zeros = 0 refuses an unknown category" run onehot.onnxtxt --input 'X=int64[2] {5, 7}'; then
	check "category message" "has err.txt 'X\[1\] is not one of the categories, and zeros is 0'"
fi
cat >hostile.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (float[2, 2] X) => (float[2, 1] Y, float[2, 1] W) {
  Y = ai.onnx.ml.LinearRegressor <coefficients = [1.0, 2.0], targets = 4611686018427387904> (X)
  W = ai.onnx.ml.TreeEnsembleRegressor <n_targets = 4611686018427387904, nodes_treeids = [0], nodes_nodeids = [0], nodes_featureids = [0], nodes_modes = ["LEAF"], nodes_values = [0.0], nodes_truenodeids = [0], nodes_falsenodeids = [0]> (X)
}
END
if run 1 "a huge targets attribute is an error, not an overflow" run hostile.onnxtxt --input 'X=float[2, 2] {1, 2, 3, 4}'; then
	check "targets message" "has err.txt 'do not fit 2 features and 4611686018427387904 targets or classes'"
fi
sed 's/^  Y = .*//; s/float\[2, 1\] Y, //' hostile.onnxtxt >hostile2.onnxtxt
if run 1 "a huge n_targets is an error" run hostile2.onnxtxt --input 'X=float[2, 2] {1, 2, 3, 4}'; then
	check "n_targets message" "has err.txt 'n_targets is 4611686018427387904; expected 1 to 2^36'"
fi
# an error run: what is refused, the model, its input, and (a grep pattern of) the message
refuses() {
	if run 1 "$1 is an error" run "$2" --input "$3"; then
		check "$1: message" "has err.txt '$4'"
	fi
}
cat >treelists.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>
g (float[2, 2] X) => (float[2, 1] W) {
  W = ai.onnx.ml.TreeEnsembleRegressor <nodes_treeids = [0, 0], nodes_nodeids = [0], nodes_featureids = [0], nodes_modes = ["LEAF"], nodes_values = [0.0], nodes_truenodeids = [0], nodes_falsenodeids = [0]> (X)
}
END
sed 's/nodes_treeids = \[0, 0\]/nodes_treeids = [0], base_values = [1.0, 2.0]/' treelists.onnxtxt >treebase.onnxtxt
sed 's/float\[2, 1\] W/int64[2] W/; s/TreeEnsembleRegressor </TreeEnsembleClassifier <classlabels_int64s = [0, 1], base_values = [1.0, 2.0, 3.0], /; s/nodes_treeids = \[0, 0\]/nodes_treeids = [0]/' \
	treelists.onnxtxt >treebase2.onnxtxt
sed 's/nodes_trueleafs = \[0, 0\]/nodes_trueleafs = [0]/' cycle.onnxtxt >treelists5.onnxtxt
x22='X=float[2, 2] {1, 2, 3, 4}'
refuses "tree node lists of different lengths" treelists.onnxtxt "$x22" 'the nodes_\* attributes have different lengths (2 and 1)'
refuses "base_values of another length than n_targets" treebase.onnxtxt "$x22" 'base_values has 2 values for 1 targets'
refuses "base_values of another length than the classes" treebase2.onnxtxt "$x22" 'base_values has 3 values for 2 classes'
refuses "TreeEnsemble node lists of different lengths" treelists5.onnxtxt 'X=float[1, 1] {1}' \
	'the nodes_\* attributes have different lengths (2 and 1)'
for op in Binarizer Imputer Scaler Normalizer; do
	attrs=""
	[ "$op" = Imputer ] && attrs=" <imputed_value_floats = [0.0]>"
	printf '%s\n' '<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 1]>' 'g (bool[2] X) => (float[2] Y) {' \
		"  Y = ai.onnx.ml.$op$attrs (X)" '}' >mltype.onnxtxt
	refuses "$op on a bool input" mltype.onnxtxt 'X=bool[2] {1, 0}' \
		'input X has element type bool; expected float, double, int64 or int32'
done

sed '/#@ expect/s/{1, 2, 3, 4}/{1, 2, 3, 5}/' id.onnxtxt >fail.onnxtxt
if run 0 "test passes a passing case" test id.onnxtxt; then
	check "PASS line and summary" "has out.txt '^PASS id.onnxtxt' && has out.txt '^1 passed, 0 failed, 0 skipped$'"
fi
if run 1 "test fails a failing case" test fail.onnxtxt id.onnxtxt; then
	check "FAIL line names the first mismatch" \
		"has out.txt \"^FAIL fail.onnxtxt:3: output 'Y': element \\[1,1\\] (index 3): got 4, expected 5$\""
	check "summary counts" "has out.txt '^1 passed, 1 failed, 0 skipped$'"
fi
if run 77 "test exits 77 when everything is skipped" test unknown.onnxtxt; then
	check "SKIP line names the operator at FILE:LINE:COL" \
		"has out.txt '^SKIP unknown.onnxtxt:3:7: graph.node\\[0\\] (NoSuchOp): operator NoSuchOp is not supported'"
fi
sed '/#@ expect/d' id.onnxtxt >noexpect.onnxtxt
if run 1 "a case without expectations fails" test noexpect.onnxtxt; then
	check "no expect message" "has out.txt 'the case checks nothing'"
fi
mkdir -p suite/case/test_data_set_0 suite/sub
cp id.onnx suite/case/model.onnx
cp in/input_0.pb suite/case/test_data_set_0/input_0.pb
cp in/input_0.pb suite/case/test_data_set_0/output_0.pb
cp id.onnxtxt suite/sub/a.onnxtxt
if run 0 "test finds backend folders and text cases in a tree" test suite; then
	check "both were run" "has out.txt '^PASS suite/case' && has out.txt '^PASS suite/sub/a.onnxtxt' && has out.txt '^2 passed'"
fi
run 2 "test without a path is a usage error" test
run 3 "test of a missing path is a file error" test nowhere

# a binary model is told by its content: run with the data sets beside it
if run 0 "test of a binary model.onnx runs its folder's data sets" test suite/case/model.onnx; then
	check "the binary model passed" "has out.txt '^PASS suite/case/model.onnx' && has out.txt '^1 passed, 0 failed'"
fi
cp id.onnx lone.onnx
if run 1 "test of a binary model without data sets fails" test lone.onnx; then
	check "the failure says what is missing, not a text error" \
		"has out.txt '^FAIL lone.onnx: a binary model without test data' && ! has out.txt 'control character'"
fi

# no test case found is an error, so that a wrong path cannot pass in CI
mkdir empty
if run 3 "test of an empty folder is a file error" test empty; then
	check "it says no case was found" "has err.txt 'empty: no test case here' && ! has out.txt '0 passed'"
fi
run 3 "test of a folder with cases and an empty one fails" test suite empty

# links back up the tree are searched once: self -> . and a/up -> ..
mkdir -p loop/a
cp id.onnxtxt loop/x.onnxtxt
ln -s . loop/self
ln -s .. loop/a/up
if command -v timeout >/dev/null 2>&1; then
	timeout 20 "$cli" test loop >out.txt 2>err.txt
else
	"$cli" test loop >out.txt 2>err.txt
fi
status=$?
check "test follows folder links without cycling" '[ "$status" -eq 0 ] && has out.txt "^1 passed, 0 failed, 0 skipped$"'

# A session refuses a misspelled attribute; for a text model run shows where it is.
printf '<ir_version: 8, opset_import: ["" : 17]>\ng (float[2] x) => (float[2] y) {\n  y = LeakyRelu <alpah = 0.5> (x)\n}\n' >typo.onnxtxt
run 1 "run refuses an unknown attribute" run typo.onnxtxt --input "x=float[2] {1, -1}" &&
	check "run: the unknown attribute is shown at its place in the text" \
		"has err.txt 'typo.onnxtxt:3:18: error: graph.node\[0\] (LeakyRelu): unknown attribute .alpah.' && empty out.txt"
"$cli" to-binary typo.onnxtxt -o typo.onnx 2>/dev/null
run 1 "run refuses an unknown attribute of a binary model" run typo.onnx --input "x=float[2] {1, -1}" &&
	check "run: a binary model gets the session's message, the node named" \
		"has err.txt \"typo.onnx: error: graph.node\\[0\\] (LeakyRelu): unknown attribute 'alpah' (LeakyRelu has none such at opset 17; did you mean 'alpha'?)\""

# ---- threads -----------------------------------------------------------------------------------

# A Conv large enough for its GEMM to be split over threads, with the BatchNormalization and
# Relu that the session fuses into it, and the same Conv plain: every thread count prints
# the same bits.
cat >mk.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
mk () => (float[1, 24, 37, 37] X) {
  s = Constant <value = float {0}> ()
  l = Constant <value = float {32856}> ()
  d = Constant <value = float {1}> ()
  shape = Constant <value = int64[4] {1, 24, 37, 37}> ()
  r = Range(s, l, d)
  sr = Sin(r)
  X = Reshape(sr, shape)
}
END
cat >conv.onnxtxt <<'END'
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 24, 37, 37] X) => (float[1, 40, 37, 37] Y, float[1, 40, 37, 37] Z) {
  wn = Constant <value = float {8640}> ()
  zero = Constant <value = float {0}> ()
  one = Constant <value = float {1}> ()
  ws = Constant <value = int64[4] {40, 24, 3, 3}> ()
  wr = Range(zero, wn, one)
  wc = Cos(wr)
  W = Reshape(wc, ws)
  cn = Constant <value = float {40}> ()
  cr = Range(zero, cn, one)
  scale = Cos(cr)
  bias = Sin(cr)
  mean = Mul(bias, scale)
  var = Add(cr, one)
  C = Conv <pads = [1, 1, 1, 1]> (X, W)
  N = BatchNormalization <epsilon = 0.001> (C, scale, bias, mean, var)
  Y = Relu(N)
  C2 = Conv <pads = [1, 1, 1, 1]> (X, W)
  Z = Relu(C2)
}
END
mkdir convin
"$cli" run mk.onnxtxt --output-dir convin >/dev/null 2>err.txt && mv convin/output_0.pb convin/input_0.pb
for t in 1 2 3; do
	if run 0 "run --threads $t" run --threads "$t" conv.onnxtxt --input-dir convin; then
		cp out.txt "threads$t.txt"
	fi
done
check "1, 2 and 3 threads print the same outputs" 'cmp -s threads1.txt threads2.txt && cmp -s threads1.txt threads3.txt'
check "the outputs are there" "has threads1.txt '^Y = float\\[1, 40, 37, 37\\] {0.018119236, 0, ' && has threads1.txt '^Z = '"
if run 2 "run --threads 0 is a usage error" run --threads 0 id.onnxtxt; then
	check "--threads message" "has err.txt \"run: --threads takes a whole number from 1 to 1024, not '0'\""
fi
if run 2 "test --threads x is a usage error" test --threads x id.onnxtxt; then
	check "test --threads message" "has err.txt \"test: --threads takes a whole number from 1 to 1024, not 'x'\""
fi
mkdir many
for i in 1 2 3 4 5 6; do cp id.onnxtxt "many/c$i.onnxtxt"; done
cp fail.onnxtxt many/c3.onnxtxt
if run 1 "test --threads 3 runs several cases at once" test --threads 3 many; then
	check "verdicts in the cases' order" \
		'[ "$(cut -d" " -f1,2 out.txt | sed "s/:.*//")" = "$(printf "PASS many/c1.onnxtxt\nPASS many/c2.onnxtxt\nFAIL many/c3.onnxtxt\nPASS many/c4.onnxtxt\nPASS many/c5.onnxtxt\nPASS many/c6.onnxtxt\n5 passed,")" ]'
fi

echo "1..$n"
[ "$failed" -eq 0 ]
