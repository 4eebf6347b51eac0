#!/usr/bin/env bash
# Whole-model benchmark: onnxtxt against onnxruntime on every light and light-random
# backend model, 1 and 2 threads, in process and as whole processes (issue 15's table).
#
# Usage: tools/bench/models.sh [-B BUILD_DIR] [-n RUNS] [-k PROCESS_RUNS] [-r ROUNDS] [--ort DIR] [MODEL_DIR...]
#   -r ROUNDS   measure each model ROUNDS times, ours and onnxruntime's in turn, and give the
#               median of the rounds' figures (best: the best of all) and of their ratios: on
#               a shared machine whose speed drifts over seconds, each ratio then compares
#               runs made seconds apart
#   --ort DIR   a folder with node_modules/onnxruntime-node (npm install --ignore-scripts
#               onnxruntime-node@1.30.0); default $ONNXRUNTIME_NODE, else /work/ort. Without
#               it (or without node) only our rows are measured, and the table says so.
#   MODEL_DIR   backend test folders (model.onnx + test_data_set_0); default every one under
#               ../shared/onnx-backend-data/light and light-random ($ONNXTXT_SHARED).
# Columns (seconds are medians of RUNS runs after the session's first, best in brackets):
#   ours t1 / ort t1     run time, one thread (ort: intra-op threads 1, sequential)
#   ours t2 / ort dflt   run time, two threads (ort: its default, one per core)
#   ours proc            `onnxtxt test --threads 2 DIR` as a whole process: read, session,
#                        one run, compare (median of PROCESS_RUNS)
#   ort create+run       onnxruntime's session creation + first run, in process (node's own
#                        start-up left out)
#   cpu t1 / ort cpu     process CPU time per run with one thread (median): on a loaded
#                        machine the fairer figure, since time other processes held the
#                        core is not counted
# Ratios are ours / onnxruntime's (< 1 is faster). The machine is shared: the header gives
# the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build runs=10 pruns=5 rounds=1 ort=${ONNXRUNTIME_NODE:-/work/ort}
dirs=()
while [ $# -gt 0 ]; do
	case $1 in
	-B) build=$2; shift 2 ;;
	-n) runs=$2; shift 2 ;;
	-k) pruns=$2; shift 2 ;;
	-r) rounds=$2; shift 2 ;;
	--ort) ort=$2; shift 2 ;;
	-h|--help) sed -n '2,24p' "$0"; exit 0 ;;
	-*) echo "models.sh: unknown option $1" >&2; exit 2 ;;
	*) dirs+=("$1"); shift ;;
	esac
done
[ -f "$build/build.ninja" ] || meson setup "$build" --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
work=$build/bench
mkdir -p "$work"
for p in bench_eval bench_parse; do
	cc -O2 -Iinclude -I"$build/include" "tools/bench/$p.c" -L"$build" -lonnxtxt -lprotobuf-c \
		-Wl,-rpath,"$(pwd)/$build" -o "$work/$p"
done
if [ ${#dirs[@]} -eq 0 ]; then
	shared=${ONNXTXT_SHARED:-../shared}/onnx-backend-data
	for d in "$shared"/light/*/ "$shared"/light-random/*/; do
		[ -f "$d/model.onnx" ] && dirs+=("${d%/}")
	done
fi
[ ${#dirs[@]} -gt 0 ] || { echo "models.sh: no models found" >&2; exit 1; }
have_ort=0
if command -v node >/dev/null && [ -d "$ort/node_modules/onnxruntime-node" ]; then
	have_ort=1
else
	echo "onnxruntime: not found (node and $ort/node_modules/onnxruntime-node); our rows only"
fi

get() { sed -n "s/^$1=//p" | head -1; }
# The median, and the least, of the numbers on standard input; empty for none.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
least() { sort -g | head -1; }
# Over the rounds' lines of figures in $rows: column c's median (or $2 of it), and the
# median of the ratios of columns a and b.
col() { echo -n "$rows" | awk -v c="$1" 'NF >= c { print $c }' | ${2:-median}; }
rat() { echo -n "$rows" | awk -v a="$1" -v b="$2" 'NF >= b && $b > 0 { print $a / $b }' | median; }
ms() { awk -v t="$1" 'BEGIN { if (t == "") print "-"; else printf "%.1f", t * 1e3 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
x() { awk -v r="$1" 'BEGIN { if (r == "") print "-"; else printf "%.2f", r }'; }

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-30s %14s %14s %6s %14s %14s %6s %10s %10s %6s %8s %8s %6s\n' model "ours t1" "ort t1" x "ours t2" \
	"ort dflt" x "ours proc" "ort c+r" x "cpu t1" "ort cpu" x
for d in "${dirs[@]}"; do
	name=$(basename "$(dirname "$d")")/$(basename "$d")
	name=${name#light/}
	# one line of figures a round: ours t1, best, cpu; ours t2, best; ort t1, cpu; ort dflt, create+run
	rows=""
	for ((q = 0; q < rounds; q++)); do
		o1=$("$work/bench_eval" model "$d/model.onnx" "$d/test_data_set_0" "$runs" 1)
		o2=$("$work/bench_eval" model "$d/model.onnx" "$d/test_data_set_0" "$runs" 2)
		x1="" x0="" c=""
		if [ $have_ort = 1 ]; then
			x1=$(node tools/bench/ort.js "$ort" "$d" 1 "$runs")
			x0=$(node tools/bench/ort.js "$ort" "$d" 0 "$runs")
			c=$(awk -v a="$(echo "$x0" | get session)" -v b="$(echo "$x0" | get first_run)" 'BEGIN { print a + b }')
		fi
		rows+="$(echo "$o1" | get run_median) $(echo "$o1" | get run_best) $(echo "$o1" | get run_cpu_median)"
		rows+=" $(echo "$o2" | get run_median) $(echo "$o2" | get run_best)"
		rows+=" $(echo "$x1" | get run_median) $(echo "$x1" | get run_cpu_median) $(echo "$x0" | get run_median) $c"$'\n'
	done
	m1=$(col 1) b1=$(col 2 least) k1=$(col 3) m2=$(col 4) b2=$(col 5 least)
	r1=$(col 6) u1=$(col 7) r0=$(col 8) c0=$(col 9)
	q1=$(rat 1 6) q2=$(rat 4 8) qk=$(rat 3 7)
	pr=$("$work/bench_parse" spawn "$pruns" -- "$build/tools/onnxtxt" -q test --threads 2 "$d" | get median_s)
	printf '%-30s %14s %14s %6s %14s %14s %6s %10s %10s %6s %8s %8s %6s\n' "$name" \
		"$(ms "$m1") [$(ms "$b1")]" "$(ms "$r1")" "$(x "$q1")" \
		"$(ms "$m2") [$(ms "$b2")]" "$(ms "$r0")" "$(x "$q2")" \
		"$(ms "$pr")" "$(ms "$c0")" "$(ratio "$pr" "$c0")" "$(ms "$k1")" "$(ms "$u1")" "$(x "$qk")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "times in ms; x = ours / onnxruntime; targets: t1 and t2 x <= 1.1, proc x <= 0.5"
