#!/usr/bin/env bash
# Check benchmark (issues 12 and 13): `onnxtxt check` must stay linear in the model. Times
# check on one node with 100k attributes, on 40k model-local functions (each calling the
# next) and, with type and shape inference, on a valid model of 200k nodes (and that one
# with --no-infer too), as text and as binary, beside to-binary of the same text. The models
# come from tools/bench/gen_check.py.
#
# Usage: tools/bench/check.sh [-B BUILD_DIR] [-a ATTRIBUTES] [-f FUNCTIONS] [-n NODES]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build attrs=100000 funcs=40000 nodes=200000
while [ $# -gt 0 ]; do
	case $1 in
	-B) build=$2; shift 2 ;;
	-a) attrs=$2; shift 2 ;;
	-f) funcs=$2; shift 2 ;;
	-n) nodes=$2; shift 2 ;;
	-h|--help) sed -n '2,9p' "$0"; exit 0 ;;
	*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release >/dev/null
ninja -C "$build" tools/onnxtxt >/dev/null
cli=$build/tools/onnxtxt work=$build/bench
mkdir -p "$work"
python3 tools/bench/gen_check.py attrs "$attrs" "$work/attrs.onnxtxt"
python3 tools/bench/gen_check.py functions "$funcs" "$work/functions.onnxtxt"
python3 tools/bench/gen_check.py infer "$nodes" "$work/infer.onnxtxt"
seconds() { # the wall-clock seconds of a command (its exit status is not judged)
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}
printf '%-28s %10s %10s %10s\n' model "check text" "check bin" "to-binary"
row() { # LABEL MODEL [CHECK OPTIONS]
	local label=$1 m=$2
	shift 2
	tb=$(seconds "$cli" to-binary "$work/$m.onnxtxt" -o "$work/$m.onnx")
	ct=$(seconds "$cli" check -q "$@" "$work/$m.onnxtxt")
	cb=$(seconds "$cli" check -q "$@" "$work/$m.onnx")
	printf '%-28s %9.2fs %9.2fs %9.2fs\n' "$label" "$ct" "$cb" "$tb"
}
row "attrs ($attrs)" attrs
row "functions ($funcs)" functions
"$cli" check -q "$work/infer.onnxtxt" || { echo "check.sh: the inference model is not valid" >&2; exit 1; }
row "infer ($nodes nodes)" infer
row "infer, --no-infer" infer --no-infer
