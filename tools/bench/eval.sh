#!/usr/bin/env bash
# Evaluator benchmark: the figures issues 4 and 15 set targets for, beside the onnxruntime 1.30
# figures measured on this machine (onnxruntime is not installable here, so its numbers
# are constants, not re-measured). Kernel throughput (MatMul, Conv, elementwise) has its
# own programs: tools/bench/eval_linalg.c and eval_elementwise.c.
#
# Usage: tools/bench/eval.sh [-B BUILD_DIR] [-n RUNS]
#   snippet      one-node text model parsed, bound, run and freed in process (median)
#   process      `onnxtxt run` of the same snippet as a whole process (median of RUNS)
#   resnet50     light resnet50 (../shared/onnx-backend-data): read + session, then a run
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
runs=50
while [ $# -gt 0 ]; do
	case $1 in
	-B) build=$2; shift 2 ;;
	-n) runs=$2; shift 2 ;;
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "eval.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
work=$build/bench
mkdir -p "$work"
cc -O2 -Iinclude -I"$build/include" tools/bench/bench_eval.c -L"$build" -lonnxtxt -lprotobuf-c \
	-Wl,-rpath,"$(pwd)/$build" -o "$work/bench_eval"
cc -O2 -Iinclude -I"$build/include" tools/bench/bench_parse.c -L"$build" -lonnxtxt -lprotobuf-c \
	-Wl,-rpath,"$(pwd)/$build" -o "$work/bench_parse"

snippet=$work/snippet.onnxtxt
cat >"$snippet" <<'END'
#@ input X = float[2, 3] {1, -2, 3, -4, 5, -6}
<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] X) => (float[2, 3] Y) { Y = Relu(X) }
END

get() { sed -n "s/^$1=//p"; }
us() { awk -v t="$1" 'BEGIN { printf "%.1f", t * 1e6 }'; }
ms() { awk -v t="$1" 'BEGIN { printf "%.2f", t * 1e3 }'; }

s=$("$work/bench_eval" snippet "$snippet" 20000 | get snippet_median)
echo "snippet in process:   $(us "$s") us   (target <= 5 us; onnxruntime create+run 390 us)"
p=$("$work/bench_parse" spawn "$runs" -- "$build/tools/onnxtxt" run "$snippet" | get median_s)
echo "onnxtxt run process:  $(ms "$p") ms   (target <= 2 ms; onnxruntime process 98 ms)"

case_dir=${ONNXTXT_SHARED:-../shared}/onnx-backend-data/light/test_resnet50
if [ -d "$case_dir" ]; then
	out=$("$work/bench_eval" model "$case_dir/model.onnx" "$case_dir/test_data_set_0" 5)
	load=$(echo "$out" | get load) session=$(echo "$out" | get session) run=$(echo "$out" | get run_median)
	total=$(awk -v a="$load" -v b="$session" -v c="$run" 'BEGIN { print a + b + c }')
	echo "resnet50: read $(ms "$load") ms + session $(ms "$session") ms + run $(ms "$run") ms = $(ms "$total") ms"
	echo "          (target: less than onnxruntime's 65 ms create + 75 ms run = 140 ms)"
else
	echo "resnet50: skipped, $case_dir not found"
fi
