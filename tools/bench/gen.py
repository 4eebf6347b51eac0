#!/usr/bin/env python3
"""Deterministic generator of synthetic ONNX text models for the parse benchmarks.

    tools/bench/gen.py PRESET [-o OUT] [--seed N]
    tools/bench/gen.py custom --nodes N --floats M [-o OUT] [--seed N]

Presets (sizes are approximate):
    mixed-40mb    200k nodes with attributes + 2M initializer floats   (43 MB)
    mixed-2mb     10k nodes + 100k floats                              (2.1 MB)
    node-heavy    200k nodes, 2k floats in a few small initializers    (18 MB)
    tensor-heavy  4M floats in ~200 initializers, 100 nodes            (49 MB)
    constant-weights  the weights in Constant nodes, not initializers:
                  140k floats in ~80 Constants + 2k nodes              (1.8 MB)
                  (to-binary streams nodes: each Constant's tensor goes through
                  the per-node arena, which initializers never do)

The text stays inside the subset on which onnx 1.12's C++ parser and ours agree
(SYNTAX.md section 5.3): ir_version 8, opset 18, real op names, plain identifiers, SSA
value names, attributes of kinds int/float/string/ints/floats/strings with annotations
matching the literal, float attributes always written with '.' or an exponent, empty
optional inputs only between two names, initializers in the graph's <...> list. Float
data is written as the shortest decimal that reads back to the same float32 (%g style,
like the printer), in the printer's layout ("float[64,3,3,3] w =  {0.1,-0.2,...}").
Output is byte-identical for the same arguments and seed (Python's random.Random).
"""
import argparse
import random
import struct
import sys

GEN_VERSION = 1  # bump when the output for a given preset/seed changes

PRESETS = {
    "mixed-40mb": dict(nodes=200_000, floats=2_000_000),
    "mixed-2mb": dict(nodes=10_000, floats=100_000),
    "node-heavy": dict(nodes=200_000, floats=2_000),
    "tensor-heavy": dict(nodes=100, floats=4_000_000),
    "constant-weights": dict(nodes=2_000, floats=140_000, constants=True),
}

F32 = struct.Struct("<f")


def f32(x):
    """Rounds a Python float to the nearest float32."""
    return F32.unpack(F32.pack(x))[0]


def numel(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def shortest(f):
    """Shortest %g text that reads back as the float32 f (f is already a float32)."""
    for p in (6, 7, 8):
        s = "%.*g" % (p, f)
        if F32.unpack(F32.pack(float(s)))[0] == f:
            break
    else:
        s = "%.9g" % f
    return s


class Gen:
    def __init__(self, nodes, floats, seed, name, constants=False):
        self.r = random.Random(seed)
        self.nodes, self.floats, self.name, self.constants = nodes, floats, name, constants
        self.out = []
        self.n_floats = 0
        self.pools = {"conv": [], "bias": [], "mat": [], "norm": []}

    # ---- initializers -----------------------------------------------------------------
    def float_data(self, count, mean, scale):
        g, vals = self.r.gauss, []
        for _ in range(count):
            x = g(mean, scale)
            if abs(x) < 1e-30:  # 1.12's std::stof throws on subnormals: keep clear of them
                x = 0.0
            vals.append(shortest(f32(x)))
        self.n_floats += count
        return ",".join(vals)

    def tensor(self, dims, name, mean, scale):
        shape = ",".join(map(str, dims))
        return "float[%s] %s =  {%s}" % (shape, name, self.float_data(numel(dims), mean, scale))

    def plan_tensors(self):
        """Realistic weight shapes until the float budget is spent; returns the texts.
        No tensor takes more than an eighth of the budget, so there are always several."""
        r, texts, left, i = self.r, [], self.floats, 0
        limit = max(64, self.floats // 8)
        while left > 0:
            kind = r.choice(("conv", "conv", "mat", "norm"))
            c_out, c_in = r.choice((16, 32, 64, 128, 256)), r.choice((8, 16, 32, 64, 128))
            k = r.choice((1, 3, 3, 5))
            dims = {"conv": [c_out, c_in, k, k], "mat": [c_in * 4, c_out], "norm": [c_out]}[kind]
            while numel(dims) > limit and dims[0] > 1:
                dims[0] //= 2
            n = numel(dims)
            if n > left:  # the remainder becomes a bias-like vector
                kind, dims, n = "bias", [left], left
            name = "%s_w%d" % (kind, i)
            if kind == "norm":
                texts.append(self.tensor(dims, name, 1.0, 0.1))
            else:
                texts.append(self.tensor(dims, name, 0.0, (2.0 / max(1, n // dims[0])) ** 0.5))
            self.pools[kind].append(name)
            if kind in ("conv", "mat") and left - n >= dims[0]:  # its bias
                texts.append(self.tensor([dims[0]], "%s_b%d" % (kind, i), 0.0, 0.01))
                self.pools["bias"].append("%s_b%d" % (kind, i))
                n += dims[0]
            left -= n
            i += 1
        return texts

    def int_consts(self):
        consts = [
            ("shape_flat", [2], [1, -1]), ("shape_4d", [4], [1, 64, 28, 28]),
            ("axes_0", [1], [0]), ("axes_23", [2], [2, 3]), ("split_2", [2], [32, 32]),
            ("starts", [1], [0]), ("ends", [1], [16]), ("steps", [1], [1]),
            ("idx", [3], [0, 2, 1]),
        ]
        return ["int64[%d] %s =  {%s}" % (d[0], n, ",".join(map(str, v))) for n, d, v in consts]

    # ---- nodes --------------------------------------------------------------------------
    def weight(self, *kinds):
        """An initializer of the first kind that has one, else of any kind."""
        for k in kinds + ("conv", "mat", "norm", "bias"):
            if self.pools[k]:
                return self.r.choice(self.pools[k])
        return "input"

    def node(self, i, x, y):
        """One node line: returns (text, outputs). x, y: earlier values."""
        r, w = self.r, self.weight
        o = "%s_%d"
        op = r.choices(OPS, WEIGHTS)[0]
        k = r.choice((1, 3, 3, 3, 5, 7))
        s = r.choice((1, 1, 1, 2))
        p = k // 2
        name = o % (op.lower(), i)
        if op == "Conv":
            attrs = ("auto_pad: string = \"NOTSET\", dilations: ints = [1,1], group: int = %d, "
                     "kernel_shape: ints = [%d,%d], pads: ints = [%d,%d,%d,%d], strides: ints = [%d,%d]"
                     % (r.choice((1, 1, 1, 32)), k, k, p, p, p, p, s, s))
            ins = "%s, %s, %s" % (x, w("conv"), w("bias"))
        elif op == "Gemm":
            attrs = "alpha: float = 1.0, beta: float = 1.0, transA: int = 0, transB: int = 1"
            ins = "%s, %s, %s" % (x, w("mat"), w("bias"))
        elif op == "MatMul":
            attrs, ins = None, "%s, %s" % (x, w("mat"))
        elif op in ("Relu", "Sigmoid", "Tanh", "Identity", "Sqrt", "Exp"):
            attrs, ins = None, x
        elif op in ("Add", "Mul", "Sub", "Div"):
            attrs, ins = None, "%s, %s" % (x, y if r.random() < 0.6 else w("bias", "norm"))
        elif op == "LeakyRelu":
            attrs, ins = "alpha: float = %s" % r.choice(("0.01", "0.1", "0.2")), x
        elif op == "MaxPool":
            attrs = ("ceil_mode: int = 0, kernel_shape: ints = [%d,%d], pads: ints = [%d,%d,%d,%d], "
                     "strides: ints = [2,2]" % (k, k, p, p, p, p))
            ins = x
        elif op == "BatchNormalization":
            attrs = "epsilon: float = 1e-05, momentum: float = 0.9"
            n = w("norm", "bias")
            ins = "%s, %s, %s, %s, %s" % (x, n, w("norm", "bias"), w("norm", "bias"), n)
        elif op == "LayerNormalization":
            attrs = "axis: int = -1, epsilon: float = 1e-05"
            ins = "%s, %s, %s" % (x, w("norm", "bias"), w("bias", "norm"))
        elif op == "Reshape":
            attrs, ins = "allowzero: int = 0", "%s, %s" % (x, r.choice(("shape_flat", "shape_4d")))
        elif op == "Transpose":
            attrs, ins = "perm: ints = %s" % r.choice(("[0,2,3,1]", "[0,3,1,2]", "[1,0]")), x
        elif op == "Concat":
            attrs, ins = "axis: int = 1", "%s, %s" % (x, y)
        elif op == "Softmax":
            attrs, ins = "axis: int = -1", x
        elif op == "Cast":
            attrs, ins = "to: int = %d" % r.choice((1, 7, 10)), x
        elif op == "ReduceMean":
            attrs, ins = "keepdims: int = 1", "%s, axes_23" % x
        elif op == "Gather":
            attrs, ins = "axis: int = 0", "%s, idx" % x
        elif op == "Unsqueeze":
            attrs, ins = None, "%s, axes_0" % x
        elif op == "Slice":
            attrs, ins = None, "%s, starts, ends, axes_0, steps" % x
        elif op == "Resize":
            attrs = ("coordinate_transformation_mode: string = \"asymmetric\", mode: string = \"nearest\", "
                     "nearest_mode: string = \"floor\"")
            ins = "%s,,%s" % (x, w("bias"))
        elif op == "Clip":
            attrs, ins = None, "%s,,%s" % (x, w("bias"))
        elif op == "Split":
            a, b = name + "_a", name + "_b"
            return ("   %s, %s = Split <axis: int = 1> (%s, split_2)\n" % (a, b, x), [a, b])
        elif op == "LSTM":
            attrs = ("activations: strings = [\"Sigmoid\", \"Tanh\", \"Tanh\"], clip: float = 10.0, "
                     "direction: string = \"forward\", hidden_size: int = %d" % r.choice((64, 128, 256)))
            ins = "%s, %s, %s" % (x, w("mat"), w("mat"))
        elif op == "Constant":
            if r.random() < 0.5:
                attrs = "value_floats: floats = [%s]" % ", ".join(
                    shortest(f32(r.uniform(-2, 2))) for _ in range(r.randint(1, 4)))
            else:
                attrs = "value_ints: ints = [%s]" % ", ".join(str(r.randint(-8, 64)) for _ in range(r.randint(1, 4)))
            ins = ""
        else:
            raise AssertionError(op)
        a = " <%s>" % attrs if attrs else ""
        return ("   %s = %s%s (%s)\n" % (name, op, a, ins), [name])

    def run(self):
        w = self.out.append
        w("<\n   ir_version: 8,\n   opset_import: [\"\" : 18],\n   producer_name: \"onnxtxt-bench\"\n>\n")
        w("%s (float[1,3,224,224] input) => (float[1,1000] output) \n" % self.name)
        inits = self.int_consts() + self.plan_tensors()
        if self.constants:  # "float[..] name =  {..}" becomes "name = Constant <value = float[..] {..}> ()"
            consts, inits = inits, []
            w("{\n")
            for t in consts:
                typ, rest = t.split(" ", 1)
                name, data = rest.split(" =  ", 1)
                w("   %s = Constant <value = %s %s> ()\n" % (name, typ, data))
        else:
            w("   <%s>\n{\n" % ", ".join(inits))
        live = ["input"]
        for i in range(self.nodes - 1):
            x = live[-1]
            y = live[-1 - min(len(live) - 1, self.r.randint(1, 6))]
            text, outs = self.node(i, x, y)
            w(text)
            live.extend(outs)
            del live[:-16]
        w("   output = Identity (%s)\n}" % live[-1])
        return "".join(self.out)


OPS, WEIGHTS = zip(*[
    ("Conv", 14), ("Relu", 12), ("Add", 10), ("BatchNormalization", 6), ("Gemm", 4), ("MatMul", 4),
    ("Mul", 4), ("Reshape", 4), ("Transpose", 3), ("Concat", 3), ("MaxPool", 3), ("LeakyRelu", 2),
    ("Sigmoid", 2), ("Softmax", 2), ("LayerNormalization", 2), ("Cast", 2), ("ReduceMean", 2),
    ("Gather", 2), ("Unsqueeze", 2), ("Slice", 2), ("Split", 2), ("Resize", 1), ("Clip", 1),
    ("Sub", 1), ("Div", 1), ("Tanh", 1), ("Sqrt", 1), ("Exp", 1), ("Identity", 1), ("LSTM", 1),
    ("Constant", 2),
])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset", choices=sorted(PRESETS) + ["custom"])
    ap.add_argument("-o", "--output", default="-", help="output file (default: standard output)")
    ap.add_argument("--seed", type=int, default=20240501)
    ap.add_argument("--nodes", type=int, help="number of nodes (custom, or override a preset)")
    ap.add_argument("--floats", type=int, help="initializer floats (custom, or override a preset)")
    a = ap.parse_args()
    cfg = dict(PRESETS.get(a.preset, dict(nodes=1000, floats=10_000)))
    if a.nodes is not None:
        cfg["nodes"] = a.nodes
    if a.floats is not None:
        cfg["floats"] = a.floats
    if cfg["nodes"] < 1 or cfg["floats"] < 0:
        ap.error("need --nodes >= 1 and --floats >= 0")
    g = Gen(cfg["nodes"], cfg["floats"], a.seed, "bench_" + a.preset.replace("-", "_"), cfg.get("constants", False))
    text = g.run().encode()
    if a.output == "-":
        sys.stdout.buffer.write(text)
    else:
        with open(a.output, "wb") as f:
            f.write(text)
    print("gen.py v%d %s seed=%d: %d bytes, %d nodes, %d floats" %
          (GEN_VERSION, a.preset, a.seed, len(text), cfg["nodes"], g.n_floats), file=sys.stderr)


if __name__ == "__main__":
    main()
