# Shared by the CLI test scripts: the TAP harness and a scratch directory to run in.
# $ONNXTXT is the CLI; $ONNXTXT_SOURCE_ROOT the source tree (default: ..). Sourced, so
# callers see cli, root, work and the helpers.

# check() evaluates its condition later, so the single quotes and the "unused" variables are
# on purpose:
# shellcheck disable=SC2016,SC2034
set -u

cli=${ONNXTXT:?set ONNXTXT to the onnxtxt executable}
root=${ONNXTXT_SOURCE_ROOT:-$(dirname "$0")/..}
# both are used after cd into a scratch directory
case $cli in /*) ;; */*) cli=$(pwd)/$cli ;; esac
root=$(cd "$root" && pwd) || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/onnxtxt-cli-XXXXXX") || exit 1
chmod 755 "$work"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 1

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for line in "$@"; do echo "# $line"; done
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# run EXPECTED_STATUS DESCRIPTION ARGS...: runs the CLI with stdout in out.txt and stderr in
# err.txt, and checks the exit status.
run() {
	want=$1 desc=$2
	shift 2
	"$cli" "$@" >out.txt 2>err.txt
	got=$?
	if [ "$got" -eq "$want" ]; then
		return 0
	fi
	not_ok "$desc" "exit status $got, want $want" "stderr: $(head -c 400 err.txt)"
	return 1
}

# check DESCRIPTION CONDITION: a test case from a shell condition (evaluated).
check() {
	if eval "$2"; then ok "$1"; else not_ok "$1" "failed: $2" "stderr: $(head -c 400 err.txt)"; fi
}

nonempty() { [ -s "$1" ]; }
empty() { [ ! -s "$1" ]; }
has() { grep -q -- "$2" "$1"; }
same() { cmp -s "$1" "$2"; }
# the entries of a directory, one a line (ls -A is POSIX)
entries() { ls -A "$1"; }
