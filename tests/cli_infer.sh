#!/bin/sh
# Type and shape inference from the command line: onnxtxt infer on every corpus/infer model
# gives its NAME.txt byte for byte (the inferred types in value_info, declared ones refined),
# the result checks clean and infers to itself, -o NAME.onnx writes the same model in binary,
# and an invalid model writes nothing; check --no-infer and --strict; to-text --infer.
# TAP output. $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..).

# shellcheck disable=SC2016,SC2034
. "$(dirname "$0")/tap.sh"
dir=$root/corpus/infer

for model in "$dir"/*.onnxtxt; do
	name=$(basename "$model" .onnxtxt)
	if run 0 "infer $name exits 0" infer "$model"; then
		cp out.txt "$name.txt"
		check "infer $name gives $name.txt" 'same "$dir/$name.txt" "$name.txt"'
		run 0 "the inferred $name checks clean" check -q "$name.txt" && ok "the inferred $name checks clean"
		run 0 "infer of the inferred $name exits 0" infer "$name.txt" &&
			check "infer of the inferred $name changes nothing" 'same "$name.txt" out.txt'
		if run 0 "infer $name -o $name.onnx exits 0" infer "$model" -o "$name.onnx"; then
			"$cli" to-binary "$name.txt" -o "$name.expected.onnx"
			check "infer -o $name.onnx writes the same model in binary" 'same "$name.onnx" "$name.expected.onnx"'
		fi
	fi
done

# an invalid model: the problems, nothing written
bad=$root/corpus/check/infer_declared_shape.onnxtxt
if run 1 "infer of an invalid model exits 1" infer "$bad" -o bad.onnxtxt; then
	check "infer of an invalid model reports at the node and writes nothing" \
		"has err.txt ':6:3: error: graph.node\\[0\\] (Transpose): output .Y. is inferred as float\\[3,2\\], but it is declared as float\\[2,3\\]' && [ ! -e bad.onnxtxt ] && empty out.txt"
fi
run 0 "check --no-infer keeps the structural check alone" check --no-infer "$bad" && ok "check --no-infer passes a model only inference rejects"
run 1 "check rejects it" check "$bad" && ok "check rejects a model with an inferred conflict"
run 2 "check --no-infer --strict is a usage error" check --no-infer --strict "$bad" && ok "check: --no-infer and --strict exclude each other"

# --strict: an operator without a rule (one of a domain the schemas do not know) is an error
printf '<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>\ng (float[2] x) => (float[2] y) {\n  y = com.example.Scale (x)\n}\n' >norule.onnxtxt
run 0 "check passes an operator without a rule" check -q norule.onnxtxt && ok "an operator without a rule is no error by default"
if run 1 "check --strict rejects an operator without a rule" check --strict norule.onnxtxt; then
	check "check --strict says which operator has no rule, at the operator" \
		"has err.txt ':3:7: error: graph.node\\[0\\] (com.example.Scale): no inference rule for operator .Scale. of domain .com.example.'"
fi
run 1 "infer --strict rejects it too" infer --strict norule.onnxtxt && ok "infer --strict rejects an operator without a rule"

# to-text --infer prints what infer prints
if run 0 "to-text --infer exits 0" to-text --infer "$dir/shape_values.onnxtxt"; then
	check "to-text --infer prints the inferred types" 'same out.txt "$dir/shape_values.txt"'
fi
run 1 "to-text --infer of an invalid model exits 1" to-text --infer "$bad" && ok "to-text --infer reports an invalid model"

# help
if run 0 "infer --help exits 0" infer --help; then
	check "infer --help documents every option" \
		"has out.txt '^Usage: onnxtxt infer ' && has out.txt '^  -o, --output OUT ' && has out.txt '^  --strict '"
fi
run 2 "infer without a model is a usage error" infer && ok "infer needs a model"

echo "1..$n"
[ "$failed" -eq 0 ]
