#!/usr/bin/env python3
"""Derives src/schema/operators.txt, the operator schema table onnxtxt is built with, from
the schemas of the official onnx package as ../shared/onnx-schemas.json holds them (every
schema registered in onnx 1.23: all domains, all versions).

  tools/schemas.py [JSON] > src/schema/operators.txt    write the table
  tools/schemas.py --check [JSON] [TABLE]               compare (TAP; SKIP without JSON)

The table is line-oriented, one block per (domain, operator, since_version), so that a new
onnx release shows up as a readable diff; src/schema/gen.py turns it into C at build time.
Its format is described in its own header."""
import json
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
JSON = os.path.join(os.environ.get("ONNXTXT_SHARED") or os.path.join(ROOT, "..", "shared"), "onnx-schemas.json")
TABLE = os.path.join(ROOT, "src", "schema", "operators.txt")
UNBOUNDED = 2**31 - 1

HEADER = """\
# Every operator schema of onnx {version}: {count} schemas of {ops} operators.
# Derived from ../shared/onnx-schemas.json by tools/schemas.py; do not edit by hand
# (the schemas test checks that it still matches). src/schema/gen.py turns it into C.
#
# domain NAME opsets MIN-MAX  the blocks that follow belong to domain NAME ("ai.onnx" is ""),
#                             whose opset versions MIN to MAX onnx knows
# op NAME SINCE in N out N [deprecated] [experimental] [function] [inference]
#                             a schema in force from opset SINCE on; N is a count, MIN-MAX
#                             or MIN+ (no upper bound); deprecated: the operator is removed
#                             from SINCE on; function: it has a function body; inference: it
#                             has a type and shape inference function
#   in NAME TYPE [optional | variadic [heterogeneous] [min0]]
#   out NAME TYPE [...]       formal inputs and outputs in order: TYPE is a type parameter
#                             or a type; a variadic one takes the rest (at least one unless
#                             min0), all of one type unless heterogeneous
#   attr NAME TYPE [required | = DEFAULT]
#                             DEFAULT is a JSON value (floats as the shortest float32)
#   type PARAM TYPE...        the types a type parameter allows
"""


def shortest_float32(x):
    """The shortest decimal that reads back as the same float32."""
    want = struct.pack("<f", x)
    for digits in range(1, 10):
        s = "%.*g" % (digits, x)
        try:
            if struct.pack("<f", float(s)) == want:
                break
        except OverflowError:  # rounded past FLT_MAX
            pass
    if "e" not in s and "." not in s and "inf" not in s and "nan" not in s:
        s += ".0"
    return s


def count(lo, hi):
    if hi >= UNBOUNDED:
        return "%d+" % lo
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)


def formal(kind, f):
    words = [kind, f["name"], f["type_str"].replace(" ", "")]
    if f["option"] != "single":
        words.append(f["option"])
    if f["option"] == "variadic" and not f["is_homogeneous"]:
        words.append("heterogeneous")
    if f["option"] == "variadic" and f["min_arity"] == 0:
        words.append("min0")
    return "  " + " ".join(words)


def default(a):
    v = a["default"]
    if a["type"] == "FLOAT":
        return shortest_float32(v)
    if a["type"] == "FLOATS":
        return "[" + ", ".join(shortest_float32(x) for x in v) + "]"
    return json.dumps(v)


def attribute(a):
    words = ["  attr", a["name"], a["type"].lower()]
    if a["required"]:
        words.append("required")
    elif "default" in a:
        words += ["=", default(a)]
    return " ".join(words)


def block(s):
    head = ["op", s["name"], str(s["since_version"]), "in", count(s["min_input"], s["max_input"]),
            "out", count(s["min_output"], s["max_output"])]
    if s["deprecated"]:
        head.append("deprecated")
    if s["support_level"] == "EXPERIMENTAL":
        head.append("experimental")
    if s["has_function"] or s["has_context_dependent_function"]:
        head.append("function")
    if s["has_type_and_shape_inference_function"]:
        head.append("inference")
    lines = [" ".join(head)]
    lines += [formal("in", f) for f in s["inputs"]]
    lines += [formal("out", f) for f in s["outputs"]]
    lines += [attribute(a) for a in sorted(s["attributes"], key=lambda a: a["name"])]
    lines += ["  type %s %s" % (c["type_param_str"], " ".join(t.replace(" ", "") for t in c["allowed_type_strs"]))
              for c in s["type_constraints"]]
    return lines


def render(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    schemas = sorted(data["schemas"], key=lambda s: (s["domain"], s["name"], s["since_version"]))
    out = [HEADER.format(version=data["onnx_version"], count=len(schemas),
                         ops=len({(s["domain"], s["name"]) for s in schemas}))]
    ranges = {d: info["registry_version_range"] for d, info in data["summary"]["domains"].items()}
    ranges.update({d["domain"]: d["version_range"] for d in data["summary"].get("registry_domains_without_schemas", [])})
    for domain in sorted(ranges):
        out.append("domain %s opsets %d-%d\n" % ((domain or "ai.onnx",) + tuple(ranges[domain])))
        out += ["\n".join(block(s)) + "\n" for s in schemas if s["domain"] == domain]
    return "\n".join(out)


def check(json_path, table_path):
    print("1..1")
    if not os.path.exists(json_path):
        print("ok 1 # SKIP %s is not there" % json_path)
        return 0
    with open(table_path, encoding="utf-8") as f:
        same = f.read() == render(json_path)
    print("%s 1 - %s is what tools/schemas.py derives from %s" % ("ok" if same else "not ok", table_path, json_path))
    if not same:
        print("# regenerate it: tools/schemas.py > src/schema/operators.txt")
    return 0 if same else 1


def main(argv):
    if argv[:1] == ["--check"]:
        return check(argv[1] if len(argv) > 1 else JSON, argv[2] if len(argv) > 2 else TABLE)
    sys.stdout.write(render(argv[0] if argv else JSON))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
