# shellcheck shell=bash
# Shell functions shared by tools/bench/run.sh (parse) and tools/bench/print.sh (to-text).
# Sourced, not run. The caller sets `prog` (its name, for messages), `here` (tools/bench),
# `src` (the source root) and, before bench_dirs, `build` and `work` (possibly empty).

die() { echo "$prog: $*" >&2; exit 1; }
warn() { echo "$prog: warning: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# bench_dirs: makes build and work absolute (work defaults to BUILD/bench) and refuses a
# work dir inside the source tree but outside the build dir. Leaves the shell in src.
bench_dirs() {
	cd "$src"
	case $build in /*) ;; *) build=$src/$build ;; esac
	work=${work:-$build/bench}
	mkdir -p "$work"
	work=$(cd "$work" && pwd)
	case $work/ in "$build"/*) ;; "$src"/*) die "work dir must be outside the source tree (or in the build dir): $work" ;; esac
}

# bench_build: a release build of libonnxtxt in $build (set up if missing, refused if it is
# not release or has sanitizers), then bench_parse, and bench_ref when $use_ref is 1 and
# libonnx-dev is installed. Sets onnxtxt, CC, CXX, have_ref and ref_version.
bench_build() {
	if [ ! -f "$build/build.ninja" ]; then
		echo "== meson setup $build (release)" >&2
		meson setup "$build" --buildtype=release >&2
	fi
	local bt
	bt=$(python3 -c 'import json,sys; o={x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}; print(o["buildtype"], o.get("b_sanitize","none"))' \
		"$build/meson-info/intro-buildoptions.json")
	case $bt in
	"release none") ;;
	*) die "$build is a '$bt' build; benchmark a release build without sanitizers" \
		"(meson configure $build -Dbuildtype=release -Db_sanitize=none, or --build-dir another)" ;;
	esac
	ninja -C "$build" >&2 || die "ninja failed"
	onnxtxt=$build/tools/onnxtxt
	[ -x "$onnxtxt" ] || die "no CLI at $onnxtxt"

	CC=${CC:-cc} CXX=${CXX:-c++}
	"$CC" -O2 -std=c11 -Wall -Wextra -Werror -I"$src/include" -I"$build/include" \
		"$here/bench_parse.c" -o "$work/bench_parse" -L"$build" -lonnxtxt -lprotobuf-c -Wl,-rpath,"$build" \
		|| die "cannot build bench_parse"
	have_ref=0
	if [ $use_ref = 1 ] && [ -f /usr/include/onnx/defs/parser.h ]; then
		if "$CXX" -O2 -std=c++17 -DONNX_ML=1 -DONNX_NAMESPACE=onnx "$here/bench_ref.cc" -o "$work/bench_ref" \
			-lonnx -lonnx_proto -lprotobuf 2>"$work/bench_ref.log"; then
			have_ref=1
		else
			warn "cannot build bench_ref against libonnx (see $work/bench_ref.log)"
		fi
	elif [ $use_ref = 1 ]; then
		warn "/usr/include/onnx/defs/parser.h missing; install libonnx-dev for the reference"
	fi
	ref_version=$(dpkg-query -W -f='${Version}' libonnx-dev 2>/dev/null || echo unknown)
}

# bench_gen_inputs PRESETS...: generates each gen.py preset once into $work/inputs (cached
# by preset, seed and gen.py's hash) and records its path in the associative array `input`,
# which the caller declares.
bench_gen_inputs() {
	local genhash p f
	genhash=$(sha1sum "$here/gen.py" | cut -c1-8)
	mkdir -p "$work/inputs"
	for p in "$@"; do
		f=$work/inputs/$p-${seed:-default}-$genhash.onnxtxt
		if [ ! -s "$f" ]; then
			echo "== generating $p" >&2
			python3 "$here/gen.py" "$p" ${seed:+--seed "$seed"} -o "$f.tmp" || die "gen.py $p failed"
			mv "$f.tmp" "$f"
		fi
		input[$p]=$f
	done
}

# bench_outdir: when outdir is empty, a fresh directory in /dev/shm (tmpfs: fsync is cheap
# and disk noise stays out), removed on exit; makes outdir absolute.
bench_outdir() {
	if [ -z "$outdir" ]; then
		if [ -d /dev/shm ] && [ -w /dev/shm ]; then
			outdir=$(mktemp -d /dev/shm/onnxtxt-bench.XXXXXX)
		else
			outdir=$(mktemp -d "$work/out.XXXXXX")
		fi
		made_outdir=$outdir
		trap 'rm -rf -- "$made_outdir"' EXIT
	fi
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
}

# measure NAME OUTFILE CMD...: runs CMD (under taskset when the caller's taskset_ array
# says so), keeps its key=value output, stops on failure.
measure() {
	local name=$1 out=$2
	shift 2
	if ! "${taskset_[@]}" "$@" >"$out" 2>"$out.err"; then
		cat "$out.err" >&2
		die "$name failed: $*"
	fi
}

# psi_avg60 RESOURCE: "some" pressure over the last minute, in percent (empty if no PSI).
psi_avg60() { sed -n 's/^some avg10=[0-9.]* avg60=\([0-9.]*\).*/\1/p' "/proc/pressure/$1" 2>/dev/null; }

# bench_load_before: records the load average and pressure before the measurements.
bench_load_before() {
	load_before=$(cut -d' ' -f1-3 /proc/loadavg)
	psi_before="cpu $(psi_avg60 cpu)%, memory $(psi_avg60 memory)%"
}

# bench_machine: the machine's description and its load before and after, as key=value
# lines for report.py and report_print.py (the caller adds settings and inputs).
bench_machine() {
	echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "cores=$(nproc)"
	echo "thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
	echo "kernel=$(uname -r)"
	echo "hypervisor=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p' | grep . || echo none)"
	echo "commit=$(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "onnxtxt=$("$onnxtxt" --version)"
	echo "ref=$([ $have_ref = 1 ] && echo "onnx $ref_version" || echo none)"
	echo "cc=$("$CC" --version | head -1)"
	echo "outdir=$outdir ($(df -T "$outdir" | awk 'NR==2 {print $2}'))"
	echo "loadavg=$load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after (1/5/15 min)"
	echo "pressure=$psi_before before, cpu $(psi_avg60 cpu)%, memory $(psi_avg60 memory)% after (PSI some, avg60)"
	echo "cpu_psi_after=$(psi_avg60 cpu)"
	echo "memavail=$(awk '/MemAvailable/ {printf "%.1f GB", $2 / 1e6}' /proc/meminfo) available after"
}

# top_symbols DATA N: the N hottest symbols by self time, with their DSO; then shares by DSO.
top_symbols() {
	perf report -i "$1" --no-children --sort dso,sym --stdio 2>/dev/null | awk -v n="$2" '/^ +[0-9]/ && k++ < n'
	perf report -i "$1" --no-children --sort dso --stdio 2>/dev/null \
		| awk '/^ +[0-9]/ { s = s sep $1 " " $2; sep = ", " } END { print "    by DSO: " s }'
}
