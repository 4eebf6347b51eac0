#!/usr/bin/env python3
"""Writes the two models the check benchmark (tools/bench/check.sh) times, as text:

  gen_check.py attrs N OUT       one node with N attributes (Relu <a0 = 0, a1 = 1, ...>)
  gen_check.py functions N OUT   N model-local functions, each calling the next one

Both are invalid on purpose in ways every rule has to look at (unknown attributes, one
problem per attribute up to the problem limit), so that no rule can stop early."""
import sys


def attrs(n, out):
    out.write('<ir_version: 8, opset_import: ["" : 17]>\n')
    out.write("g (float[N] x) => (float[N] y) {\n  y = Relu <")
    out.write(", ".join("a%d = %d" % (i, i) for i in range(n)))
    out.write("> (x)\n}\n")


def functions(n, out):
    out.write('<ir_version: 8, opset_import: ["" : 17, "local" : 1]>\n')
    out.write("g (float[N] x) => (float[N] y) {\n  y = local.F0 (x)\n}\n")
    for i in range(n):
        body = "b = local.F%d (a)" % (i + 1) if i + 1 < n else "b = Relu (a)"
        out.write('<domain: "local", opset_import: ["" : 17, "local" : 1]>\nF%d (a) => (b) {\n  %s\n}\n' % (i, body))


def main():
    kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w", encoding="utf-8") as out:
        {"attrs": attrs, "functions": functions}[kind](n, out)


if __name__ == "__main__":
    main()
