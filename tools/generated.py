"""What the scripts that generate tables in tools/ share (coverage.py, opcoverage.py,
infercoverage.py): their command line, the answer when what they read is not there, and
the check they make under --check, that the committed file is what the script writes now."""

import argparse
import os
import sys


def start(doc, script):
    """The parsed command line (--check) of the script at path script, described by the
    first paragraph of doc, and the source root ($ONNXTXT_SOURCE_ROOT, else the script's
    parent folder's parent)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="TAP check instead of rewriting COVERAGE.md")
    args = ap.parse_args()
    root = os.environ.get("ONNXTXT_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(script)), "..")
    return args, root


def unavailable(name, check, why, hint=""):
    """What the script name answers when what it reads is missing (why; hint follows it on
    standard error): under --check a TAP skip, status 0; else an error, status 1."""
    if check:
        print("1..0 # SKIP " + why)
        return 0
    sys.stderr.write("%s: %s%s\n" % (name, why, hint))
    return 1


def tap_current(n, path, text, output, regenerate):
    """Prints TAP line n: whether the file at path (OUTPUT, as the message names it) holds
    text; stale or missing names the command that rewrites it. Returns 1 when it fails."""
    try:
        with open(path, encoding="utf-8") as f:
            current = f.read()
    except OSError:
        current = None
    if current == text:
        print("ok %d - %s is up to date" % (n, output))
        return 0
    print("not ok %d - %s is %s: run %s" % (n, output, "missing" if current is None else "out of date", regenerate))
    return 1
