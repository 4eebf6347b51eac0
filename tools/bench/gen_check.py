#!/usr/bin/env python3
"""Writes the two models the check benchmark (tools/bench/check.sh) times, as text:

  gen_check.py attrs N OUT       one node with N attributes (Relu <a0 = 0, a1 = 1, ...>)
  gen_check.py functions N OUT   N model-local functions, each calling the next one
  gen_check.py infer N OUT       a valid model of about N nodes for type and shape inference:
                                 blocks of MatMul, Add, Relu, Shape -> Gather -> Concat ->
                                 Reshape and Transpose over [B, 64] values

The first two are invalid on purpose in ways every rule has to look at (unknown attributes,
one problem per attribute up to the problem limit), so that no rule can stop early; the
third is valid, so that inference runs over every node."""
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


def infer(n, out):
    out.write('<ir_version: 8, opset_import: ["" : 17]>\n')
    out.write("g (float[B, 64] x0, float[64, 64] w, float[64] bias) => (float[B, 64] y)\n")
    out.write("<int64[1] zero = {0}, int64[1] minus_one = {-1}, int64[2] perm_shape = {64, -1}>\n{\n")
    blocks = max(1, n // 10)
    for i in range(blocks):
        x, j = "x%d" % i, "x%d" % (i + 1)
        out.write("  m%d = MatMul (%s, w)\n  a%d = Add (m%d, bias)\n  r%d = Relu (a%d)\n" % (i, x, i, i, i, i))
        out.write("  s%d = Shape (r%d)\n  n%d = Gather (s%d, zero)\n" % (i, i, i, i))
        out.write("  t%d = Concat <axis = 0> (n%d, minus_one)\n  f%d = Reshape (r%d, t%d)\n" % (i, i, i, i, i))
        out.write("  p%d = Transpose (f%d)\n  q%d = Reshape (p%d, perm_shape)\n  %s = Transpose (q%d)\n"
                  % (i, i, i, i, j, i))
    out.write("  y = Identity (x%d)\n}\n" % blocks)


def main():
    kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w", encoding="utf-8") as out:
        {"attrs": attrs, "functions": functions, "infer": infer}[kind](n, out)


if __name__ == "__main__":
    main()
