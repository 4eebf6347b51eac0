#!/usr/bin/env python3
"""Counts test cases in meson testlog.json files and prints 'N passed, N failed' last.

A TAP test counts each of its 'ok'/'not ok' lines as a case (so every corpus file is
counted); any other test counts once. Exits 1 when anything failed or a log is missing."""
import json
import re
import sys

passed = failed = skipped = 0
missing = []
for path in sys.argv[1:]:
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        missing.append(path)
        continue
    for line in lines:
        t = json.loads(line)
        result = t.get("result")
        cases = re.findall(r"^(ok|not ok)\b(.*)$", t.get("stdout") or "", re.M)
        if result == "SKIP":
            skipped += 1
        elif not cases:
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            else:
                failed += 1
        else:
            for status, rest in cases:
                if re.search(r"#\s*skip", rest, re.I):
                    skipped += 1
                elif status == "ok":
                    passed += 1
                else:
                    failed += 1
            if result not in ("OK", "EXPECTEDFAIL") and not any(s == "not ok" for s, _ in cases):
                failed += 1  # crashed or timed out after its last case
for path in missing:
    print(f"missing test log: {path}")
    failed += 1
if skipped:
    print(f"({skipped} skipped)")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
