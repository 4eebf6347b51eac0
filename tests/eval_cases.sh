#!/bin/sh
# Runs "onnxtxt test" over a folder of cases and reports each case as a TAP line. A skip
# passes only when its reason matches $ALLOW_SKIP (an extended regex; unset: no skips), so
# an operator that quietly went missing fails the suite instead of hiding as a skip.
# Usage: eval_cases.sh corpus|backend
set -u
cli=${ONNXTXT:?set ONNXTXT to the onnxtxt executable}
root=${ONNXTXT_SOURCE_ROOT:-$(dirname "$0")/..}
case $1 in
corpus) dir=$root/corpus/eval ;;
backend)
	dir=${ONNXTXT_SHARED:-$root/../shared}/onnx-backend-data
	# the training-preview Gradient operator is outside the evaluator's operator set
	ALLOW_SKIP=${ALLOW_SKIP:-'operator ai\.onnx\.preview\.training\.Gradient is not supported'}
	;;
*) echo "usage: $0 corpus|backend" >&2; exit 2 ;;
esac
if [ ! -d "$dir" ]; then
	echo "1..0 # SKIP $dir not found"
	exit 0
fi
out=$("$cli" test "$dir")
rc=$?
n=0
printf '%s\n' "$out" | {
	while IFS= read -r line; do
		case $line in
		"PASS "*) n=$((n + 1)); echo "ok $n - ${line#PASS }" ;;
		"FAIL "*) n=$((n + 1)); echo "not ok $n - ${line#FAIL }" ;;
		"SKIP "*)
			n=$((n + 1))
			if [ -n "${ALLOW_SKIP:-}" ] && printf '%s' "$line" | grep -Eq "$ALLOW_SKIP"; then
				echo "ok $n - ${line#SKIP } # SKIP"
			else
				echo "not ok $n - ${line#SKIP } (a skip that is not allowed)"
			fi
			;;
		*) echo "# $line" ;;
		esac
	done
	echo "1..$n"
}
# 0: all passed; 1: failures (already reported as not ok); anything else is an error
[ "$rc" -le 1 ] || [ "$rc" -eq 77 ] || echo "not ok - onnxtxt test exited with status $rc"
