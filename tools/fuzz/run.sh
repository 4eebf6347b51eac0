#!/bin/sh
# Builds the libFuzzer harnesses with clang, ASan and UBSan in build-fuzz/ and runs each for
# SECONDS (default 20), seeded from corpus/ (text) and from corpus/valid converted to binary.
# Usage: tools/fuzz/run.sh [SECONDS [HARNESS...]]. Prints one line per harness (time,
# executions, new corpus size) and exits 1 if any harness found a crash, a leak, a hang or a
# broken property; the input is kept as build-fuzz/artifacts/HARNESS-*. Inputs found along
# the way stay in build-fuzz/corpus/HARNESS/, so later runs continue from them. Exits 0
# with a "skipped" line when clang's libFuzzer runtime is missing. Results also go to
# build-fuzz/testlog.json, one line per harness in meson's format, for tools/testsummary.py.
set -u
cd "$(dirname "$0")/../.."
seconds=${1:-20}
[ $# -gt 0 ] && shift
harnesses=${*:-parse unpack print_text print_binary eval}
out=build-fuzz

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)(n & 0); }\n' \
	>"$probe/probe.c"
# log NAME RESULT: a line of build-fuzz/testlog.json
log_result() {
	printf '{"name": "fuzz %s", "result": "%s", "stdout": ""}\n' "$1" "$2" >>$out/testlog.json
}

if ! clang -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" >/dev/null 2>&1; then
	echo "fuzz: skipped: clang with libFuzzer (Debian: clang, libclang-rt-14-dev) is not available"
	mkdir -p $out && : >$out/testlog.json && log_result all SKIP
	exit 0
fi

if [ ! -f $out/build.ninja ]; then
	CC=clang meson setup $out -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized >$out.setup.log 2>&1 || { cat $out.setup.log; exit 1; }
	rm -f $out.setup.log
fi
targets="tools/onnxtxt"
for h in $harnesses; do
	[ -f tools/fuzz/fuzz_$h.c ] && targets="$targets tools/fuzz/fuzz_$h"
done
: >$out/testlog.json
if ! ninja -C $out $targets >$out/fuzz-build.log 2>&1; then
	cat $out/fuzz-build.log
	log_result build FAIL
	exit 1
fi

# Binary seeds: every valid corpus model, as the CLI writes it.
mkdir -p $out/seeds/binary $out/artifacts
for f in corpus/valid/*.onnxtxt; do
	b=$out/seeds/binary/$(basename "$f" .onnxtxt).onnx
	[ -f "$b" ] || ASAN_OPTIONS=detect_leaks=0 $out/tools/onnxtxt to-binary "$f" -o "$b" 2>/dev/null || rm -f "$b"
done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for h in $harnesses; do
	exe=$out/tools/fuzz/fuzz_$h
	if [ ! -x "$exe" ]; then
		echo "fuzz $h: no such harness"
		log_result "$h" FAIL
		status=1
		continue
	fi
	case $h in
	unpack | print_binary) seeds="$out/seeds/binary" dict="" ;;
	*) seeds="corpus/valid corpus/errors corpus/golden corpus/eval" dict="-dict=tools/fuzz/onnxtxt.dict" ;;
	esac
	[ -d corpus/fuzz/$h ] && seeds="$seeds corpus/fuzz/$h"
	existing=""
	for d in $seeds; do [ -d "$d" ] && existing="$existing $d"; done
	mkdir -p $out/corpus/$h
	log=$out/fuzz-$h.log
	# -rss_limit_mb and -malloc_limit_mb turn runaway allocation into a finding
	# shellcheck disable=SC2086
	"$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 $dict \
		-artifact_prefix=$out/artifacts/$h- $out/corpus/$h $existing >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	size=$(find $out/corpus/$h -type f | wc -l)
	if [ $rc -eq 0 ]; then
		echo "fuzz $h: ${seconds} s, ${runs:-?} executions (${rate:-?}/s), corpus $size inputs, nothing found"
		log_result "$h" OK
	else
		log_result "$h" FAIL
		echo "fuzz $h: FAILED (exit $rc) after ${runs:-?} executions; log $log:"
		grep -E "ERROR|SUMMARY|check failed|runtime error|Test unit written" "$log" | head -n 12
		status=1
	fi
done
exit $status
