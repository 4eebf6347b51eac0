#!/usr/bin/python3
"""Interop test (TAP): onnxtxt infer against onnx.shape_inference.infer_shapes (Debian's onnx
1.12) on every model of corpus/valid, corpus/infer and corpus/examples that onnx 1.12 can
read (IR version up to 8, opsets up to 17), and on every model of the shared backend data.
For each value onnx 1.12 types (a tensor with an element type, in the main graph or in a
sub-graph of a node), onnxtxt must not contradict it: the same element type, the same rank
where both give a shape, the same number in every dimension where both give one (symbols
may be named differently). Where onnxtxt knows less
(an operator without a rule yet), the value is counted, not failed. One TAP line
per model; the last line sums up the values compared. Without onnx 1.12 it is skipped.
Environment: ONNXTXT (the CLI), ONNXTXT_SOURCE_ROOT, ONNXTXT_SHARED."""
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("ONNXTXT_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SHARED = os.environ.get("ONNXTXT_SHARED") or os.path.join(ROOT, "..", "shared")


def types_of(graph):
    """name -> (elem, dims or None) of every tensor value the graph types."""
    out = {}
    for vi in list(graph.value_info) + list(graph.output) + list(graph.input):
        t = vi.type
        if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.elem_type:
            continue
        dims = None
        if t.tensor_type.HasField("shape"):
            # a negative dim_value (written -1 by hand) says nothing: unknown, as onnxtxt reads it
            dims = [d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else None
                    for d in t.tensor_type.shape.dim]
        out[vi.name] = (t.tensor_type.elem_type, dims)
    return out


def types_in(graph, label=""):
    """types_of the graph and of every sub-graph of its nodes (the names prefixed with the
    sub-graph's place: node[3].body/), since onnx 1.12 types those values too."""
    out = {label + name: t for name, t in types_of(graph).items()}
    for i, node in enumerate(graph.node):
        for a in node.attribute:
            for j, g in enumerate(([a.g] if a.HasField("g") else []) + list(a.graphs)):
                out.update(types_in(g, "%snode[%d].%s%s/" % (label, i, a.name, "[%d]" % j if a.graphs else "")))
    return out


def compare(theirs, ours):
    """(values compared, values onnxtxt knows less of, notes on contradictions). Knowing less
    (a value left untyped, a dim unknown where onnx has a number: an operator without a rule
    yet) is counted, not failed; a different element type, rank or number fails."""
    notes, n, less = [], 0, 0
    for name, (elem, dims) in sorted(theirs.items()):
        n += 1
        if name not in ours:
            less += 1
            continue
        oelem, odims = ours[name]
        if oelem != elem:
            notes.append("# %s: element type %d here, %d in onnx" % (name, oelem, elem))
        elif dims is not None and odims is not None and len(dims) != len(odims):
            notes.append("# %s: shape %s here, %s in onnx" % (name, odims, dims))
        elif dims is not None and odims is not None and any(
                d is not None and o is not None and d != o for d, o in zip(dims, odims)):
            notes.append("# %s: shape %s here, %s in onnx" % (name, odims, dims))
        elif dims is not None and (odims is None or any(d is not None and o is None for d, o in zip(dims, odims))):
            less += 1
    return n, less, notes


def main():
    try:
        import onnx
        import onnx.shape_inference
    except ImportError:
        print("1..0 # SKIP onnx is not installed")
        return 0
    cli = os.environ["ONNXTXT"]
    models = []
    for folder in ("valid", "infer", "examples"):
        d = os.path.join(ROOT, "corpus", folder)
        models += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".onnxtxt")]
    for top, _, files in sorted(os.walk(os.path.join(SHARED, "onnx-backend-data"))):
        models += [os.path.join(top, "model.onnx")] if "model.onnx" in files else []
    n, failed, values, agreeing, knowing_less = 0, 0, 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        src, inferred = os.path.join(tmp, "m.onnx"), os.path.join(tmp, "i.onnx")
        for path in models:
            if subprocess.run([cli, "to-binary", path, "-o", src], stderr=subprocess.DEVNULL).returncode:
                continue
            model = onnx.load(src, load_external_data=False)
            opsets = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
            if not 1 <= model.ir_version <= 8 or any(v > 17 for v in opsets):
                continue
            if subprocess.run([cli, "infer", src, "-o", inferred], stderr=subprocess.DEVNULL).returncode:
                continue  # invalid for onnxtxt: the check suites judge that
            try:
                theirs = types_in(onnx.shape_inference.infer_shapes(model).graph)
            except Exception:  # onnx cannot infer it
                continue
            count, less, notes = compare(theirs, types_in(onnx.load(inferred, load_external_data=False).graph))
            n += 1
            values += count
            agreeing += count - len(notes) - less
            knowing_less += less
            label = os.path.relpath(path, ROOT if path.startswith(ROOT) else SHARED)
            if notes:
                failed += 1
                print("not ok %d - %s: onnxtxt infer agrees with onnx 1.12 (%d values)" % (n, label, count))
                print("\n".join(notes[:10]))
            else:
                print("ok %d - %s: onnxtxt infer agrees with onnx 1.12 (%d values)" % (n, label, count))
    print("# %d values onnx 1.12 types over %d models: %d agree exactly, %d known less here, %d contradict"
          % (values, n, agreeing, knowing_less, values - agreeing - knowing_less))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
