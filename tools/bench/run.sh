#!/usr/bin/env bash
# Parse and to-binary benchmark of onnxtxt, side by side with onnx's own C++ parser
# (Debian libonnx-dev 1.12) when it is installed.
#
# Usage: tools/bench/run.sh [options]
#   -B, --build-dir DIR   meson build directory of onnxtxt (default: build); set up as a
#                         release build if missing, refused if it is not a release build
#   -w, --work-dir DIR    bench programs, inputs and raw results (default: BUILD/bench)
#   -o, --out-dir DIR     where to-binary writes its output (default: a fresh directory in
#                         /dev/shm, so fsync is cheap and disk noise stays out; give a
#                         directory on disk to include the disk)
#   -p, --presets LIST    inputs, space-separated gen.py presets
#                         (default: "mixed-40mb mixed-2mb node-heavy tensor-heavy
#                         constant-weights")
#   -r, --runs N          fresh processes per cold measurement and per to-binary (default 7;
#                         inputs under 16 MB get proportionally more, up to 5x)
#   -n, --warm N          parses per warm process (default 5); best of them is kept,
#                         and 3 warm processes are run, of which the median is reported
#       --seed N          generator seed (default: gen.py's)
#       --pin CPU         run every measured process under `taskset -c CPU`
#       --no-ref          skip the reference even when libonnx is installed
#       --perf            also print perf profiles (top functions by self time) of our parse
#                         and of `onnxtxt to-binary` for each input
#       --strict          exit 3 when a target is not met (default: report only)
#   -h, --help
#
# What it does: builds libonnxtxt (meson/ninja) and the two programs (cc/c++ directly:
# bench_parse.c against the public API; bench_ref.cc against libonnx, only when
# /usr/include/onnx/defs/parser.h and the libraries exist), generates the inputs with
# gen.py (cached by preset, seed and gen.py's hash), runs every measurement several times,
# alternating ours and the reference's runs (pairs run back to back, so the ratios are taken
# per pair and survive changes in machine load), checks that both to-binary outputs are
# byte-identical, and prints one table per input and one summary line per target.
# A failed parse or command stops the run with its message (exit 1).
#
# Figures: MB = 10^6 bytes of input text. "cold" = one parse in a fresh process (the CLI's
# situation; the main figure); "warm" = best of N parses in one process. Only the parse call
# is timed in cold/warm (not file reading, not freeing). to-binary is the whole process
# (`onnxtxt to-binary IN -o OUT`, or `bench_ref to-binary IN OUT`: read, parse, serialize,
# write, fsync), wall time via fork/exec + wait4. Peak RSS is ru_maxrss of a process that
# parses once (cold) or of the to-binary child (from wait4), so it includes the text buffer.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=build work='' outdir='' presets='mixed-40mb mixed-2mb node-heavy tensor-heavy constant-weights'
runs=7 warm=5 warm_procs=3 seed='' pin='' use_ref=1 do_perf=0 strict=0
prog=run.sh
# shellcheck source=lib.sh
. "$here/lib.sh"

while [ $# -gt 0 ]; do
	case $1 in
	-B|--build-dir) build=$2; shift ;;
	-w|--work-dir) work=$2; shift ;;
	-o|--out-dir) outdir=$2; shift ;;
	-p|--presets) presets=$2; shift ;;
	-r|--runs) runs=$2; shift ;;
	-n|--warm) warm=$2; shift ;;
	--seed) seed=$2; shift ;;
	--pin) pin=$2; shift ;;
	--no-ref) use_ref=0 ;;
	--perf) do_perf=1 ;;
	--strict) strict=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case $runs$warm in *[!0-9]*) die "--runs and --warm take positive integers" ;; esac
[ "$runs" -ge 1 ] && [ "$warm" -ge 1 ] || die "--runs and --warm take positive integers"

bench_dirs

# ---- build -----------------------------------------------------------------------------
bench_build

# ---- inputs ----------------------------------------------------------------------------
declare -A input
bench_gen_inputs $presets
bench_outdir

# ---- measurements ----------------------------------------------------------------------
res=$work/results
rm -rf "$res"
mkdir -p "$res"
taskset_=()
[ -n "$pin" ] && taskset_=(taskset -c "$pin")

bench_load_before
measure "CLI baseline" "$res/baseline_cli" "$work/bench_parse" spawn 1 -- "$onnxtxt" --version
for p in $presets; do
	f=${input[$p]}
	d=$res/$p
	mkdir -p "$d"
	size=$(stat -c %s "$f")
	# Small inputs are quick and noisier: give them up to 5x the runs (down to 16 MB).
	scale=$(( 16000000 / (size + 1) ))
	scale=$(( scale < 1 ? 1 : scale > 5 ? 5 : scale ))
	n=$(( runs * scale ))
	echo "== $p: $size bytes, $n runs" >&2
	for i in $(seq "$n"); do
		measure "our cold parse" "$d/our_cold.$i" "$work/bench_parse" cold "$f"
		if [ $have_ref = 1 ]; then
			measure "reference cold parse" "$d/ref_cold.$i" "$work/bench_ref" cold "$f"
		fi
	done
	for i in $(seq "$warm_procs"); do
		measure "our warm parse" "$d/our_warm.$i" "$work/bench_parse" warm "$f" "$warm"
		if [ $have_ref = 1 ]; then
			measure "reference warm parse" "$d/ref_warm.$i" "$work/bench_ref" warm "$f" "$warm"
		fi
	done
	for i in $(seq "$n"); do
		measure "our to-binary" "$d/our_tobin.$i" "$work/bench_parse" spawn 1 -- \
			"$onnxtxt" to-binary "$f" -o "$outdir/$p.our.onnx"
		if [ $have_ref = 1 ]; then
			measure "reference to-binary" "$d/ref_tobin.$i" "$work/bench_parse" spawn 1 -- \
				"$work/bench_ref" to-binary "$f" "$outdir/$p.ref.onnx"
		fi
	done
	if [ $have_ref = 1 ]; then
		if cmp -s "$outdir/$p.our.onnx" "$outdir/$p.ref.onnx"; then
			echo "identical=yes" >"$d/compare"
		else
			echo "identical=no" >"$d/compare"
		fi
	fi
	echo "bytes_out=$(stat -c %s "$outdir/$p.our.onnx")" >>"$d/compare"
	rm -f "$outdir/$p.our.onnx" "$outdir/$p.ref.onnx"
done

# ---- report ----------------------------------------------------------------------------
{
	bench_machine
	echo "settings=cold and to-binary runs $runs (x up to 5 for small inputs), warm: best of $warm parses x $warm_procs processes, pin ${pin:-none}"
	echo "presets=$presets"
} >"$res/machine"
rc=0
python3 "$here/report.py" "$res" || rc=$?

# ---- optional profile ------------------------------------------------------------------
if [ $do_perf = 1 ]; then
	command -v perf >/dev/null || die "perf not installed"
	rm -f "$work"/perf.*
	for p in $presets; do
		echo
		echo "== perf: our parse of $p (10 fresh bench_parse cold processes, file reading included; self time)"
		perf record -q -F 5000 -o "$work/perf.$p.data" -- sh -c \
			'for i in 1 2 3 4 5 6 7 8 9 10; do "$0" cold "$1" >/dev/null || exit 1; done' \
			"$work/bench_parse" "${input[$p]}" 2>"$work/perf.$p.err" || die "perf record failed (see $work/perf.$p.err)"
		top_symbols "$work/perf.$p.data" 15
		echo "== perf: onnxtxt to-binary of $p (one whole process; self time)"
		perf record -q -F 5000 -o "$work/perf.$p.tobin.data" -- "$onnxtxt" to-binary "${input[$p]}" \
			-o "$outdir/$p.perf.onnx" >/dev/null 2>"$work/perf.$p.err" || die "perf record failed (see $work/perf.$p.err)"
		rm -f "$outdir/$p.perf.onnx"
		top_symbols "$work/perf.$p.tobin.data" 10
	done
fi

[ $strict = 1 ] && [ $rc = 3 ] && exit 3
[ $rc = 3 ] && rc=0
exit $rc
