#!/usr/bin/python3
"""Operator coverage of the evaluator by the self-contained cases of corpus/eval.

For every operator of the default ONNX domain (SPEC below), writes one row of
corpus/eval/COVERAGE.md: the opset versions of the specification, whether src/eval/ops.h
registers a kernel, and what the cases corpus/eval/*.onnxtxt exercise (opset versions,
element types, number of cases). An operator is "supported" when it is registered and at
least one case runs it, "no tests" when it is registered without cases, else "unsupported".
For the other standard domains (DOMAINS: ai.onnx.ml, ai.onnx.preview, ai.onnx.preview.training)
there is one row per (operator, version): "supported" when the registry has its kernel
(OX_OPS_ML, or a D(domain, OpType) entry of OX_DOMAIN_OPS) and a case runs that very
version; --check fails for any (operator, version) that is not, unless the domain's reasons
say why.

    tools/opcoverage.py            rewrite corpus/eval/COVERAGE.md
    tools/opcoverage.py --check    TAP: one line per operator (a skip when it has no kernel or
                                   no case), one for the registry and the cases (unknown
                                   operators, cases that do not convert), one for COVERAGE.md
                                   being current

A case exercises every default-domain op_type of its model, in the main graph, in sub-graphs
and in model-local functions. To find them the case is converted with `onnxtxt to-binary`
($ONNXTXT, else build/tools/onnxtxt) and decoded with the onnx package (Debian's python3-onnx
under /usr/bin/python3): no regular expression has to understand the syntax of sub-graphs.
Without either, --check reports a skip. The source root is $ONNXTXT_SOURCE_ROOT or the parent
of tools/.
"""
import os
import re
import subprocess
import sys

from generated import start, tap_current, unavailable

# The operators of the default domain ("" / "ai.onnx") with the opset versions that define
# them (since_version). Opsets 1 to 17 are onnx.defs of onnx 1.12 (Debian's python3-onnx);
# 18 to 25 are onnx/defs/operator_sets.h of ONNX 1.20.0; opset 26 (ONNX 1.21.0) adds BitCast
# and CumProd; opsets 27 and 28 (../shared/onnx-schemas.json) add CausalConvWithState,
# LinearAttention and SwiGLU. Revisions of existing operators in opsets 26 to 28 (Range 27,
# Celu 28 among others) are not listed: append such versions to the entries below.
SPEC_SOURCE = "ONNX 1.21.0, opset 26, with the opset 27-28 additions"
SPEC = """
Abs 1 6 13; Acos 7 22; Acosh 9 22; Add 1 6 7 13 14; AffineGrid 20; And 1 7; ArgMax 1 11 12 13
ArgMin 1 11 12 13; Asin 7 22; Asinh 9 22; Atan 7 22; Atanh 9 22; Attention 23 24
AveragePool 1 7 10 11 19 22; BatchNormalization 1 6 7 9 14 15; Bernoulli 15 22; BitCast 26
BitShift 11; BitwiseAnd 18; BitwiseNot 18; BitwiseOr 18; BitwiseXor 18; BlackmanWindow 17
Cast 1 6 9 13 19 21 23 24 25; CastLike 15 19 21 23 24 25; CausalConvWithState 27; Ceil 1 6 13
Celu 12; CenterCropPad 18
Clip 1 6 11 12 13; Col2Im 18; Compress 9 11; Concat 1 4 11 13; ConcatFromSequence 11
Constant 1 9 11 12 13 19 21 23 24 25; ConstantOfShape 9 20 21 23 24 25; Conv 1 11 22
ConvInteger 10; ConvTranspose 1 11 22; Cos 7 22; Cosh 9 22; CumProd 26; CumSum 11 14
DeformConv 19 22; DepthToSpace 1 11 13; DequantizeLinear 10 13 19 21 23 24 25; Det 11 22
DFT 17 20; Div 1 6 7 13 14; Dropout 1 6 7 10 12 13 22; DynamicQuantizeLinear 11; Einsum 12
Elu 1 6 22; Equal 1 7 11 13 19; Erf 9 13; Exp 1 6 13; Expand 8 13; EyeLike 9 22
Flatten 1 9 11 13 21 23 24 25; Floor 1 6 13; Gather 1 11 13; GatherElements 11 13
GatherND 11 12 13; Gelu 20; Gemm 1 6 7 9 11 13; GlobalAveragePool 1 22; GlobalLpPool 1 2 22
GlobalMaxPool 1 22; Greater 1 7 9 13; GreaterOrEqual 12 16; GridSample 16 20 22
GroupNormalization 18 21; GRU 1 3 7 14 22; HammingWindow 17; HannWindow 17; Hardmax 1 11 13
HardSigmoid 1 6 22; HardSwish 14 22; Identity 1 13 14 16 19 21 23 24 25
If 1 11 13 16 19 21 23 24 25; ImageDecoder 20; InstanceNormalization 1 6 22; IsInf 10 20
IsNaN 9 13 20; LayerNormalization 17; LeakyRelu 1 6 16; LinearAttention 27; Less 1 7 9 13; LessOrEqual 12 16
Log 1 6 13; LogSoftmax 1 11 13; Loop 1 11 13 16 19 21 23 24 25; LpNormalization 1 22
LpPool 1 2 11 18 22; LRN 1 13; LSTM 1 7 14 22; MatMul 1 9 13; MatMulInteger 10; Max 1 6 8 12 13
MaxPool 1 8 10 11 12 22; MaxRoiPool 1 22; MaxUnpool 9 11 22; Mean 1 6 8 13
MeanVarianceNormalization 9 13; MelWeightMatrix 17; Min 1 6 8 12 13; Mish 18 22; Mod 10 13
Mul 1 6 7 13 14; Multinomial 7 22; Neg 1 6 13; NegativeLogLikelihoodLoss 12 13 22
NonMaxSuppression 10 11; NonZero 9 13; Not 1; OneHot 9 11; Optional 15; OptionalGetElement 15 18
OptionalHasElement 15 18; Or 1 7; Pad 1 2 11 13 18 19 21 23 24 25; Pow 1 7 12 13 15
PRelu 1 6 7 9 16; QLinearConv 10; QLinearMatMul 10 21; QuantizeLinear 10 13 19 21 23 24 25
RandomNormal 1 22; RandomNormalLike 1 22; RandomUniform 1 22; RandomUniformLike 1 22; Range 11
Reciprocal 1 6 13; ReduceL1 1 11 13 18; ReduceL2 1 11 13 18; ReduceLogSum 1 11 13 18
ReduceLogSumExp 1 11 13 18; ReduceMax 1 11 12 13 18 20; ReduceMean 1 11 13 18
ReduceMin 1 11 12 13 18 20; ReduceProd 1 11 13 18; ReduceSum 1 11 13; ReduceSumSquare 1 11 13 18
RegexFullMatch 20; Relu 1 6 13 14; Reshape 1 5 13 14 19 21 23 24 25; Resize 10 11 13 18 19
ReverseSequence 10; RMSNormalization 23; RNN 1 7 14 22; RoiAlign 10 16 22; RotaryEmbedding 23
Round 11 22; Scan 8 9 11 16 19 21 23 24 25; Scatter 9 11; ScatterElements 11 13 16 18
ScatterND 11 13 16 18; Selu 1 6 22; SequenceAt 11; SequenceConstruct 11; SequenceEmpty 11
SequenceErase 11; SequenceInsert 11; SequenceLength 11; SequenceMap 17
Shape 1 13 15 19 21 23 24 25; Shrink 9; Sigmoid 1 6 13; Sign 9 13; Sin 7 22; Sinh 9 22
Size 1 13 19 21 23 24 25; Slice 1 10 11 13; Softmax 1 11 13; SoftmaxCrossEntropyLoss 12 13
Softplus 1 22; Softsign 1 22; SpaceToDepth 1 13; Split 1 2 11 13 18; SplitToSequence 11 24
Sqrt 1 6 13; Squeeze 1 11 13 21 23 24 25; STFT 17; StringConcat 20; StringNormalizer 10
StringSplit 20; Sub 1 6 7 13 14; Sum 1 6 8 13; SwiGLU 28; Swish 24; Tan 7 22; Tanh 1 6 13; TensorScatter 24
TfIdfVectorizer 9; ThresholdedRelu 10 22; Tile 1 6 13; TopK 1 10 11 24
Transpose 1 13 21 23 24 25; Trilu 14; Unique 11; Unsqueeze 1 11 13 21 23 24 25
Upsample 1 7 9 10; Where 9 16; Xor 1 7
"""

# The operators of ai.onnx.ml with their since-versions (onnx/defs/traditionalml, ml opset 5;
# ../shared/onnx-schemas.json has the same list).
ML_SPEC_SOURCE = "ONNX 1.21.0, ai.onnx.ml opset 5"
ML_SPEC = """
ArrayFeatureExtractor 1; Binarizer 1; CastMap 1; CategoryMapper 1; DictVectorizer 1
FeatureVectorizer 1; Imputer 1; LabelEncoder 1 2 4; LinearClassifier 1; LinearRegressor 1
Normalizer 1; OneHotEncoder 1; SVMClassifier 1; SVMRegressor 1; Scaler 1; TreeEnsemble 5
TreeEnsembleClassifier 1 3 5; TreeEnsembleRegressor 1 3 5; ZipMap 1
"""
ML_DEPRECATED = {("TreeEnsembleClassifier", 5), ("TreeEnsembleRegressor", 5)}
# Why an (operator, version) of ai.onnx.ml has no kernel or no case, where that is a decision.
ML_REASONS = {}
ML_DOMAIN = "ai.onnx.ml"

# The domains other than the default one, each with one row per (operator, version): name,
# where the list comes from, the list, deprecated (operator, version) pairs, reasons as
# ML_REASONS, and the registry list that holds its kernels. The preview domains are
# ../shared/onnx-schemas.json (ONNX 1.23.0).
DOMAINS = [
    {"name": ML_DOMAIN, "source": ML_SPEC_SOURCE, "spec": ML_SPEC, "deprecated": ML_DEPRECATED,
     "reasons": ML_REASONS, "registry": "`OX_OPS_ML`"},
    {"name": "ai.onnx.preview", "source": "ONNX 1.23.0, ai.onnx.preview opset 1",
     "spec": "FlexAttention 1", "deprecated": set(), "reasons": {},
     "registry": "the entries of `OX_DOMAIN_OPS`"},
    {"name": "ai.onnx.preview.training", "source": "ONNX 1.23.0, ai.onnx.preview.training opset 1",
     "spec": "Adagrad 1; Adam 1; Gradient 1; Momentum 1", "deprecated": set(), "reasons": {},
     "registry": "the entries of `OX_DOMAIN_OPS`"},
]

# Operators the specification itself deprecates, with the version that did.
DEPRECATED = {"Scatter": 11, "Upsample": 10}

# Why an operator has no kernel, where that is a decision rather than work not done yet.
REASONS = {}
DEFAULT_REASON = "no kernel in src/eval/ops.h"

# Element type names of the textual syntax, in TensorProto.DataType order (index = enum).
ELEM_TYPES = [None, "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
              "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128",
              "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
              "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2"]
TYPE_ORDER = {t: i for i, t in enumerate(ELEM_TYPES) if t}

OUTPUT = os.path.join("corpus", "eval", "COVERAGE.md")
CASES = os.path.join("corpus", "eval")


def read_spec(text=SPEC):
    spec = {}
    for entry in re.split(r"[;\n]", text):
        if entry.strip():
            name, *versions = entry.split()
            spec[name] = [int(v) for v in versions]
    return spec


def read_registry(root):
    """The operators of src/eval/ops.h, comments removed (they mention X(OpType)), each with
    the oldest version it has a kernel for (1 for X(Name), the first N of XV(Name, N)
    entries): those of the default domain, and per other domain its operators: OX_OPS_ML's
    for ai.onnx.ml, the D("domain", Name) of OX_DOMAIN_OPS for the others."""
    with open(os.path.join(root, "src", "eval", "ops.h"), encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)

    def oldest(part):
        ops = {}
        for name, since in re.findall(r"\bXV?\((\w+)(?:, (\d+))?\)", part):
            ops[name] = min(ops.get(name, 1000), int(since or 1))
        return ops
    m = re.search(r"#define OX_OPS_ML\(X, XV\)(.*?)(?:\n\s*\n|#endif)", text, flags=re.S)
    others = {d["name"]: {} for d in DOMAINS}
    others[ML_DOMAIN] = oldest(m.group(1)) if m else {}
    for domain, name in re.findall(r'\bD\("([\w.]+)",\s*(\w+)\)', text):
        others.setdefault(domain, {})[name] = 1
    rest = text[:m.start()] + text[m.end():] if m else text
    return oldest(rest), others


def literal_types(text):
    """Element types named by the values of the "#@ input" / "#@ expect" lines."""
    types = set()
    for line in text.splitlines():
        if re.match(r"#@\s*(input|expect)\b", line):
            value = re.sub(r'"(\\.|[^"\\])*"', '""', line.partition("=")[2])
            # a tensor literal is TYPE[dims] {...} or TYPE {...}; sequences hold such literals
            types.update(t for t in re.findall(r"\b([a-z][a-z0-9]*)\s*(?:\[[^\]]*\])?\s*\{", value)
                         if t in TYPE_ORDER)
    return types


def declared_types(tp, out):
    """Element types inside a TypeProto (tensors, and those of sequences, optionals, maps)."""
    kind = tp.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        t = getattr(tp, kind).elem_type
        if 0 < t < len(ELEM_TYPES):
            out.add(ELEM_TYPES[t])
    elif kind in ("sequence_type", "optional_type"):
        declared_types(getattr(tp, kind).elem_type, out)
    elif kind == "map_type":
        if 0 < tp.map_type.key_type < len(ELEM_TYPES):
            out.add(ELEM_TYPES[tp.map_type.key_type])
        declared_types(tp.map_type.value_type, out)


def default_opset(opset_import, fallback=None, domain=""):
    for o in opset_import:
        if (o.domain in ("", "ai.onnx")) if domain == "" else o.domain == domain:
            return o.version
    return fallback


def walk_nodes(nodes, version, ops, versions=None, other=None):
    """Adds (op_type, opset import) for every default-domain node, sub-graphs included, and
    (domain, op_type, opset import of the domain) for every node of the other domains
    (versions: their imports) to other."""
    for node in nodes:
        if node.domain in ("", "ai.onnx"):
            ops.add((node.op_type, version))
        elif other is not None:
            other.add((node.domain, node.op_type, (versions or {}).get(node.domain)))
        for a in node.attribute:
            for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                walk_nodes(g.node, version, ops, versions, other)


def read_case(path, exe, onnx):
    """(ops, types, other) of one case: ops a set of (op_type, opset import) of the default
    domain, other a set of (domain, op_type, opset import) of the other domains, types a set
    of names."""
    r = subprocess.run([exe, "to-binary", path, "-o", "-"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        msg = r.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ValueError("onnxtxt to-binary failed: %s" % (msg[0] if msg else "exit %d" % r.returncode))
    model = onnx.load_model_from_string(r.stdout)
    version = default_opset(model.opset_import)
    versions = {o.domain: o.version for o in model.opset_import if o.domain not in ("", "ai.onnx")}
    ops, other = set(), set()
    walk_nodes(model.graph.node, version, ops, versions, other)
    for fn in model.functions:
        fv = dict(versions, **{o.domain: o.version for o in fn.opset_import if o.domain not in ("", "ai.onnx")})
        walk_nodes(fn.node, default_opset(fn.opset_import, version), ops, fv, other)
    types = set()
    for v in list(model.graph.input) + list(model.graph.output):
        declared_types(v.type, types)
    with open(path, encoding="utf-8") as f:
        types |= literal_types(f.read())
    return ops, types, other


def spec_version(versions, imported):
    """The version of an operator a model importing opset `imported` runs: the newest
    since-version not above it (None when the operator is newer than the import)."""
    if imported is None:
        return None
    older = [v for v in versions if v <= imported]
    return max(older) if older else None


def analyse(spec, registry, cases):
    """Per-operator rows, and every inconsistency between spec, registry and cases."""
    problems = ["src/eval/ops.h: %s is not an operator of the default domain" % n
                for n in sorted(set(registry) - set(spec))]
    used = {}  # op -> {"cases": set, "versions": set, "types": set}
    for name, (ops, types, _) in sorted(cases.items()):
        for op, imported in sorted(ops, key=lambda o: (o[0], o[1] or 0)):
            if op not in spec:
                problems.append("%s: %s is not an operator of the default domain" % (name, op))
                continue
            u = used.setdefault(op, {"cases": set(), "versions": set(), "types": set()})
            u["cases"].add(name)
            u["types"] |= types
            v = spec_version(spec[op], imported)
            if v is None:
                problems.append("%s: %s does not exist at opset %s" % (name, op, imported))
            else:
                u["versions"].add(v)
    rows = []
    for op in sorted(spec, key=str.lower):
        u = used.get(op, {"cases": set(), "versions": set(), "types": set()})
        registered = op in registry
        if registered and u["cases"]:
            status = "supported"
        elif registered:
            status = "no tests"
        else:
            status = "unsupported"
        rows.append({"op": op, "spec": spec[op], "registered": registered, "oldest": registry.get(op),
                     "status": status,
                     "versions": sorted(u["versions"]), "cases": len(u["cases"]),
                     "types": sorted(u["types"], key=TYPE_ORDER.get)})
    return rows, problems


def analyse_domain(domain, registry, cases):
    """Rows per (operator, version) of one of DOMAINS, and inconsistencies."""
    name_, spec = domain["name"], read_spec(domain["spec"])
    problems = ["src/eval/ops.h: %s is not an operator of %s" % (n, name_)
                for n in sorted(set(registry) - set(spec))]
    used = {}  # (op, version) -> {"cases": set, "types": set}
    for name, (_, types, other) in sorted(cases.items()):
        for d, op, imported in sorted(other, key=lambda o: (o[0], o[1], o[2] or 0)):
            if d != name_:
                continue
            if op not in spec:
                problems.append("%s: %s is not an operator of %s" % (name, op, name_))
                continue
            v = spec_version(spec[op], imported)
            if v is None:
                problems.append("%s: %s.%s does not exist at %s opset %s" % (name, name_, op, name_, imported))
                continue
            u = used.setdefault((op, v), {"cases": set(), "types": set()})
            u["cases"].add(name)
            u["types"] |= types
    rows = []
    for op in sorted(spec, key=str.lower):
        for v in spec[op]:
            u = used.get((op, v), {"cases": set(), "types": set()})
            registered = op in registry and v >= registry[op]
            status = "supported" if registered and u["cases"] else "no tests" if registered else "unsupported"
            rows.append({"op": op, "version": v, "registered": registered, "status": status,
                         "cases": len(u["cases"]), "types": sorted(u["types"], key=TYPE_ORDER.get)})
    return rows, problems


def registered_text(row):
    """yes, no, or the version the kernels start from when older ones have none."""
    if not row["registered"]:
        return "no"
    return "yes" if row["oldest"] <= row["spec"][0] else "from %d" % row["oldest"]


def render_domain(domain, rows):
    ops = sorted({r["op"] for r in rows})
    ok = [r for r in rows if r["status"] == "supported"]
    out = [
        "",
        "## %s" % domain["name"],
        "",
        "From %s (the list is data in the script) and %s" % (domain["source"], domain["registry"]),
        "in `src/eval/ops.h`: one row per operator and version. A version counts as exercised",
        "when a case imports an opset of %s that selects it; `meson test eval_coverage`" % domain["name"],
        "fails for a version that is not supported unless the script gives a reason.",
        "",
        "- %d operators, %d (operator, version) pairs; supported (a kernel and a case for that" % (len(ops), len(rows)),
        "  version): %d of %d; operators with every version supported: %d of %d." % (
            len(ok), len(rows), sum(all(r["status"] == "supported" for r in rows if r["op"] == o) for o in ops), len(ops)),
        "",
        "| op | version | registered | types | cases | status |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        op = r["op"] + (" (deprecated)" if (r["op"], r["version"]) in domain["deprecated"] else "")
        status = r["status"]
        if status != "supported":
            status += ": " + domain["reasons"].get((r["op"], r["version"]), "no reason given")
        out.append("| %s | %d | %s | %s | %d | %s |" % (
            op, r["version"], "yes" if r["registered"] else "no", ", ".join(r["types"]) or "-", r["cases"], status))
    out.append("")
    return "\n".join(out)


def render(rows, ncases):
    by = {s: [r["op"] for r in rows if r["status"] == s] for s in ("supported", "no tests", "unsupported")}
    out = [
        "# Operator coverage of the evaluator",
        "",
        "Generated by `tools/opcoverage.py` from the operators of the specification",
        "(%s; the list is data in the script), the registry `src/eval/ops.h` and the" % SPEC_SOURCE,
        "self-contained cases `corpus/eval/*.onnxtxt`. Do not edit; run `tools/opcoverage.py` after",
        "changing the registry or the cases (`meson test eval_coverage` checks that this file is current).",
        "",
        "- %d operators in the default domain (`ai.onnx`), %d cases in `corpus/eval`." % (len(rows), ncases),
        "- Supported (a kernel and at least one case): %d." % len(by["supported"]),
        "- Registered without cases: %d%s" % (len(by["no tests"]), (": " + ", ".join(by["no tests"]) + ".") if by["no tests"] else "."),
        "- Unsupported (no kernel): %d%s" % (len(by["unsupported"]), (": " + ", ".join(by["unsupported"]) + ".") if by["unsupported"] else "."),
        "",
        "A case exercises every default-domain operator of its model, sub-graphs and local functions",
        "included. *Exercised* lists the versions of the operator the cases run: for each case the",
        "newest since-version at or below its `opset_import`. *Types* are the element types declared",
        "by the inputs and outputs of the case models and named by their `#@ input` / `#@ expect`",
        "values, merged over the cases that use the operator. *Registered* says \"from N\" when the",
        "kernels (picked by operator version, see `src/eval/ops.h`) start at version N and older",
        "versions are refused.",
        "",
        "| op | spec versions | registered | exercised | types | cases | status |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        op = r["op"]
        if op in DEPRECATED:
            op += " (deprecated since %d)" % DEPRECATED[op]
        status = r["status"]
        if status == "unsupported":
            status += ": " + REASONS.get(r["op"], DEFAULT_REASON)
        out.append("| %s | %s | %s | %s | %s | %d | %s |" % (
            op, ", ".join(map(str, r["spec"])), registered_text(r),
            ", ".join(map(str, r["versions"])) or "-", ", ".join(r["types"]) or "-", r["cases"], status))
    out += ["", "## Unsupported operators", ""]
    if not by["unsupported"]:
        out.append("None: every operator of the default domain has a kernel.")
    else:
        reasons = {}
        for op in by["unsupported"]:
            reasons.setdefault(REASONS.get(op, DEFAULT_REASON), []).append(op)
        out.append("%d operators of the default domain have no kernel:" % len(by["unsupported"]))
        out.append("")
        for why, ops in sorted(reasons.items(), key=lambda kv: (kv[0] == DEFAULT_REASON, kv[0])):
            out.append("- %s: %s." % (", ".join(ops), why))
    out.append("")
    return "\n".join(out)


def load_cases(root, exe, onnx):
    cases, problems = {}, []
    d = os.path.join(root, CASES)
    for name in sorted(os.listdir(d)):
        if name.endswith(".onnxtxt"):
            try:
                cases[name] = read_case(os.path.join(d, name), exe, onnx)
            except Exception as e:  # a case that does not convert is reported, not fatal
                problems.append("%s: %s" % (name, e))
    return cases, problems


def main():
    args, root = start(__doc__, __file__)
    exe = os.environ.get("ONNXTXT") or os.path.join(root, "build", "tools", "onnxtxt")
    missing = None
    try:
        import onnx
    except ImportError:
        missing = "the onnx package is not importable by %s (use /usr/bin/python3)" % sys.executable
    if missing is None and not os.access(exe, os.X_OK):
        missing = "%s not found: build it first, or set ONNXTXT" % exe
    if missing:
        return unavailable("opcoverage.py", args.check, missing)

    spec = read_spec()
    registry, others = read_registry(root)
    cases, problems = load_cases(root, exe, onnx)
    rows, more = analyse(spec, registry, cases)
    problems += more
    text = render(rows, len(cases))
    domain_rows = []  # (domain, row)
    for d in DOMAINS:
        drows, more = analyse_domain(d, others.get(d["name"], set()), cases)
        problems += more
        text += render_domain(d, drows)
        domain_rows += [(d, r) for r in drows]
    for name in sorted(set(others) - {d["name"] for d in DOMAINS}):
        problems.append("src/eval/ops.h: %s is not a domain of the specification" % name)
    path = os.path.join(root, OUTPUT)

    if not args.check:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        for p in problems:
            sys.stderr.write("opcoverage.py: %s\n" % p)
        return 1 if problems else 0

    print("1..%d" % (len(rows) + len(domain_rows) + 2))
    failed = 0
    for n, r in enumerate(rows, 1):
        label = "%s (%s)" % (r["op"], ", ".join(map(str, r["spec"])))
        if r["status"] == "supported":
            print("ok %d - %s: %d cases" % (n, label, r["cases"]))
        elif r["status"] == "no tests":
            # a skip, not a failure: a kernel may land before its cases; the table says "no tests"
            print("ok %d - %s # SKIP no tests: registered, but no case in corpus/eval runs it" % (n, label))
        else:
            print("ok %d - %s # SKIP unsupported: %s" % (n, label, REASONS.get(r["op"], DEFAULT_REASON)))
    for n, (d, r) in enumerate(domain_rows, len(rows) + 1):
        label = "%s.%s version %d" % (d["name"], r["op"], r["version"])
        why = d["reasons"].get((r["op"], r["version"]))
        if r["status"] == "supported":
            print("ok %d - %s: %d cases" % (n, label, r["cases"]))
        elif why:
            print("ok %d - %s # SKIP %s: %s" % (n, label, r["status"], why))
        else:
            failed += 1
            print("not ok %d - %s: %s, and no reason is given" % (n, label, r["status"]))
    n = len(rows) + len(domain_rows) + 1
    if problems:
        failed += 1
        print("not ok %d - registry and cases" % n)
        for p in problems:
            print("# " + p)
    else:
        print("ok %d - registry and cases (%d + %s registered, %d cases)" % (
            n, len(registry), " + ".join(str(len(others.get(d["name"], ()))) for d in DOMAINS), len(cases)))
    n += 1
    failed += tap_current(n, path, text, OUTPUT, "tools/opcoverage.py")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
