#!/bin/sh
# The whole test suite: sets up (the build's and the tests' dependencies), builds and runs
# every test under meson (unit suites, corpus loops, interop with the official onnx
# package, CLI, install), then the same suites again in an ASan+UBSan build, the C suites
# under valgrind, and each libFuzzer harness for FUZZ_SECONDS (default 20) under ASan+UBSan. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
tools/setup.sh --test || exit 1

status=0
meson test -C build --print-errorlogs >build/test-output.txt 2>&1 || status=1
tail -n 12 build/test-output.txt

# gcc's UBSan leaves out float-cast-overflow (a double out of an integer's range), which
# clang's, and so the fuzzers', has: added, so that the replays catch what the fuzzers found
if [ ! -f build-asan/build.ninja ]; then
	meson setup build-asan -Db_sanitize=address,undefined -Dc_args=-fsanitize=float-cast-overflow \
		-Db_lundef=false -Dbuildtype=debugoptimized >/dev/null || status=1
fi
if ninja -C build-asan >/dev/null; then
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C build-asan --suite unit --print-errorlogs >build-asan/test-output.txt 2>&1 || status=1
	tail -n 12 build-asan/test-output.txt
else
	echo "asan build failed"
	status=1
fi

# valgrind memcheck over the Check suites and fuzz replays of build/ (errors and leaks fail)
meson test -C build --setup valgrind --suite check --print-errorlogs --num-processes 2 \
	>build/valgrind-output.txt 2>&1 || status=1
tail -n 8 build/valgrind-output.txt

tools/fuzz/run.sh "${FUZZ_SECONDS:-20}" || status=1

python3 tools/testsummary.py build/meson-logs/testlog.json build-asan/meson-logs/testlog.json \
	build/meson-logs/testlog-valgrind.json build-fuzz/testlog.json || status=1
exit $status
