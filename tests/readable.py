#!/usr/bin/python3
"""Readability test (TAP): the printer's output against the official parser (Debian's onnx 1.12).

For every shared backend model ($ONNXTXT_SHARED/onnx-backend-data/*/*/model.onnx) and every
corpus/valid model marked "# interop: onnx-1.12" (converted with `onnxtxt to-binary` first),
`onnxtxt to-text --no-annotations` prints the model, onnx.parser.parse_model (1.12) reads the
text back, and the result must be the same model, apart from content that has no syntax
(normalisations N1..N8, listed above normalise()). Two cases per model:

  direct     the model as it is. If 1.12 cannot read the text, or reads something else, the
             case is skipped only when the model needs a construct that 1.12's syntax lacks
             (detected from the ModelProto, see needs()); otherwise it fails.
  sanitised  a copy rewritten, without changing its meaning, to stay inside SYNTAX.md §5.3
             (rewrites S1..S3, listed above sanitise()): names that are not identifiers are
             renamed, node names (labels) are cleared, trailing empty optional inputs and
             outputs are dropped. It is skipped only when the copy still needs something
             1.12 cannot express; otherwise it must give the same (sanitised) model back.

One TAP line per model and mode ("direct light/test_resnet50"), then a "# summary:" comment.

Environment: ONNXTXT (the onnxtxt CLI), ONNXTXT_SOURCE_ROOT (the source tree), ONNXTXT_SHARED
(the shared data directory). Without onnx 1.12 the whole test is skipped; without the backend
data only that part is. Run it with /usr/bin/python3, where Debian's python3-onnx lives.
"""
import collections
import copy
import glob
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import warnings

import oracle


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# The element-type names and type constructors of HEAD's syntax (SYNTAX.md §1.7). The printer
# quotes an untyped value-info or an attribute graph with one of these names, as HEAD's
# look-ahead would take it for a type; 1.12 cannot read the quotes.
TYPE_KEYWORDS = {
    "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16",
    "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0", "uint4", "int4",
    "float4e2m1", "uint2", "int2", "seq", "map", "optional", "sparse_tensor", "opaque"}
# An attribute value starting with one of these (any case) is a FLOAT at HEAD, so an attribute
# graph with such a name is printed quoted.
SPECIAL_FLOATS = {"inf", "infinity", "nan"}

# Element types whose tensor data 1.12 cannot read (its parser.cc says "Unhandled type"), and
# the release that added data for them (SYNTAX.md §5.1).
DATA_SINCE = {10: "1.17", 16: "1.17", 14: "1.17", 15: "1.17", 17: "1.17", 18: "1.17",
              19: "1.17", 20: "1.17", 21: "1.17", 22: "1.17", 23: "1.18", 24: "1.19",
              25: "1.20", 26: "1.20"}
# Element-type names 1.12 knows (its PrimitiveTypeNameMap: 1..16), and when the others came.
ELEM_SINCE = {17: "1.14", 18: "1.14", 19: "1.14", 20: "1.14", 21: "1.16", 22: "1.16",
              23: "1.18", 24: "1.19", 25: "1.20", 26: "1.20"}
ELEM_NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
              8: "string", 9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64",
              14: "complex64", 15: "complex128", 16: "bfloat16", 17: "float8e4m3fn",
              18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4",
              22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2", 26: "int2"}

# Fields of onnx.proto (the repository's proto/onnx.proto) that 1.12's onnx.proto does not
# know. Its protobuf keeps them as unknown fields; this script handles them by number.
#   Without any syntax (SYNTAX.md §4.5): ignored on both sides, like the known fields of
#   normalise() below.
UNKNOWN_NO_SYNTAX = {
    ("onnx.ModelProto", 26): "configuration",
    ("onnx.GraphProto", 16): "metadata_props",
    ("onnx.NodeProto", 9): "metadata_props",
    ("onnx.NodeProto", 10): "device_configurations",
    ("onnx.ValueInfoProto", 4): "metadata_props",
    ("onnx.TensorProto", 16): "metadata_props",
    ("onnx.FunctionProto", 14): "metadata_props",
}
#   With syntax that came after 1.12: compared (1.12 cannot produce them), and needs() skips.
UNKNOWN_LATER_SYNTAX = {
    ("onnx.NodeProto", 8): ("node overloads", "1.16"),
    ("onnx.FunctionProto", 11): ("function attribute defaults", "1.14"),
    ("onnx.FunctionProto", 12): ("typed function inputs and outputs, function value_info", "1.16"),
    ("onnx.FunctionProto", 13): ("function overloads", "1.16"),
}

# ------------------------------------------------------------------------------------------
# Walking models

def all_graphs(model):
    """Every GraphProto of the model's main graph and its functions, subgraphs included."""
    out = []

    def graph(g):
        out.append(g)
        nodes(g.node)

    def nodes(ns):
        for n in ns:
            for a in n.attribute:
                if a.HasField("g"):
                    graph(a.g)
                for sg in a.graphs:
                    graph(sg)

    graph(model.graph)
    for f in model.functions:
        nodes(f.node)
    return out


def all_nodes(model):
    for g in all_graphs(model):
        for n in g.node:
            yield n
    for f in model.functions:
        for n in f.node:
            yield n


def unknown_fields(msg):
    """The fields of msg that 1.12's onnx.proto does not know."""
    try:
        return list(msg.UnknownFields())
    except AttributeError:  # newer protobuf: the accessor moved
        from google.protobuf import unknown_fields as uf
        return list(uf.UnknownFieldSet(msg))


def walk_messages(msg, path, visit):
    """Calls visit(msg, path) for msg and every message inside it (known fields only)."""
    visit(msg, path)
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if fd.label == fd.LABEL_REPEATED:
            for i, v in enumerate(value):
                walk_messages(v, "%s.%s[%d]" % (path, fd.name, i), visit)
        else:
            walk_messages(value, "%s.%s" % (path, fd.name), visit)


# ------------------------------------------------------------------------------------------
# What a model needs that 1.12's syntax lacks (SYNTAX.md §5.2, §5.3)

class Needs:
    def __init__(self):
        self.items = collections.OrderedDict()  # construct -> (since, example)

    def add(self, construct, since, example=None):
        if construct not in self.items:
            self.items[construct] = (since, example)

    def __bool__(self):
        return bool(self.items)

    def constructs(self):
        return list(self.items)

    def text(self):
        parts = []
        for construct, (since, example) in self.items.items():
            when = ("onnx \u2265 %s" % since) if since[0].isdigit() else since
            if example is not None:
                when += "; e.g. %s" % example
            parts.append("%s (%s)" % (construct, when))
        return ", ".join(parts)


def q(s):
    """A name for a message: Python's repr of the text."""
    if isinstance(s, bytes):
        s = s.decode("utf-8", "replace")
    return repr(s) if len(s) <= 40 else repr(s[:37] + "...")


def is_subnormal32(x):
    return x != 0 and math.isfinite(x) and abs(x) < 1.1754943508222875e-38


def is_subnormal64(x):
    return x != 0 and math.isfinite(x) and abs(x) < 2.2250738585072014e-308


def needs(model):
    """The constructs outside SYNTAX.md §5.3 that this model's content requires, each with the
    onnx release whose parser first had it (or "no syntax" / "onnxtxt only" / "after 1.22").
    Decided from the ModelProto only, never from the parser's error message."""
    from onnx import AttributeProto as A, TensorProto as T
    need = Needs()

    def string(s, what):
        if isinstance(s, str):
            s = s.encode("utf-8")
        if b"\\" in s or b'"' in s:
            need.add('escapes for \\ and " in strings', "1.13", what)
        if b"\0" in s:
            need.add("NUL bytes in strings", "the Python parser ends the text at NUL", what)

    def name(s, what):
        """A quotable name (value, graph, initializer): an identifier or quoted."""
        if not IDENT.match(s):
            need.add("quoted identifiers", "1.18", "%s %s" % (what, q(s)))

    def elem_type(et, what):
        if et in ELEM_SINCE:
            need.add("element type %s" % ELEM_NAMES[et], ELEM_SINCE[et], what)
        elif et not in ELEM_NAMES:
            need.add("undefined or unknown element types", "no syntax", what)

    def shape(sh, what):
        for d in sh.dim:
            if d.HasField("dim_param") and not IDENT.match(d.dim_param):
                need.add("quoted symbolic dimensions", "1.22", "%s in %s" % (q(d.dim_param), what))

    def typ(t, what):
        kind = t.WhichOneof("value")
        if kind == "tensor_type":
            elem_type(t.tensor_type.elem_type, what)
            if t.tensor_type.HasField("shape"):
                shape(t.tensor_type.shape, what)
        elif kind is None:
            pass  # an empty TypeProto prints as an untyped value-info (normalised, see below)
        else:
            need.add("non-tensor types in value-infos", "1.14", "%s %s" % (kind, what))

    def value_info(v, what):
        name(v.name, what)
        if v.HasField("type") and v.type.WhichOneof("value") is not None:
            typ(v.type, "%s %s" % (what, q(v.name)))
        elif v.name in TYPE_KEYWORDS:
            need.add("quoted identifiers", "1.18", "untyped %s %s" % (what, q(v.name)))

    def tensor(t, what, in_attribute):
        if in_attribute:
            if t.name and not IDENT.match(t.name):
                need.add("quoted attribute tensor names", "onnxtxt only", q(t.name))
        else:
            name(t.name, "initializer")
        label = "%s %s" % (what, q(t.name))
        if t.data_type in ELEM_SINCE or t.data_type not in ELEM_NAMES:
            elem_type(t.data_type, label)
        if t.data_location == T.EXTERNAL:
            need.add("external data", "1.16", label)
            return
        fields = [f for f in ("float_data", "int32_data", "string_data", "int64_data", "double_data",
                              "uint64_data") if len(getattr(t, f))] + (["raw_data"] if t.HasField("raw_data") else [])
        count = 1
        for d in t.dims:
            count *= d
        if not fields and count != 0:
            need.add("tensors without data", "1.16", label)
        if t.data_type in DATA_SINCE and (fields and count != 0):
            need.add("%s tensor data" % ELEM_NAMES[t.data_type], DATA_SINCE[t.data_type], label)
        if t.data_type == T.STRING:
            for s in t.string_data:
                string(s, label)
        floats = []
        if t.data_type in (T.FLOAT, T.COMPLEX64):
            if t.HasField("raw_data"):
                floats = list(struct.unpack("<%df" % (len(t.raw_data) // 4), t.raw_data[:len(t.raw_data) // 4 * 4]))
            floats += list(t.float_data)
            sub = is_subnormal32
        elif t.data_type in (T.DOUBLE, T.COMPLEX128):
            if t.HasField("raw_data"):
                floats = list(struct.unpack("<%dd" % (len(t.raw_data) // 8), t.raw_data[:len(t.raw_data) // 8 * 8]))
            floats += list(t.double_data)
            sub = is_subnormal64
        if any(not math.isfinite(x) for x in floats):
            need.add("inf and nan literals", "1.15", label)
        if any(sub(x) for x in floats):
            need.add("subnormal float literals", "onnx after 1.22", label)

    def attribute(a, where):
        what = "attribute %s of %s" % (q(a.name), where)
        if not IDENT.match(a.name):
            need.add("attribute names that are not identifiers", "no syntax", q(a.name))
        if a.ref_attr_name:
            if not IDENT.match(a.ref_attr_name):
                need.add("@ref names that are not identifiers", "no syntax", q(a.ref_attr_name))
            if a.type == A.UNDEFINED:
                need.add("@ref attributes without a type", "no syntax", what)
            return
        # Which value fields the attribute carries, against its type: anything else has no
        # syntax (the printer prints the value of the type only).
        present = set(fd.name for fd, _ in a.ListFields()) - {"name", "type", "doc_string", "ref_attr_name"}
        expected = {A.FLOAT: {"f"}, A.INT: {"i"}, A.STRING: {"s"}, A.TENSOR: {"t"}, A.GRAPH: {"g"},
                    A.SPARSE_TENSOR: {"sparse_tensor"}, A.TYPE_PROTO: {"tp"},
                    A.FLOATS: {"floats"}, A.INTS: {"ints"}, A.STRINGS: {"strings"},
                    A.TENSORS: {"tensors"}, A.GRAPHS: {"graphs"},
                    A.SPARSE_TENSORS: {"sparse_tensors"}, A.TYPE_PROTOS: {"type_protos"}}.get(a.type)
        if expected is None:
            need.add("attributes of undefined or unknown type", "no syntax", what)
            return
        if present - expected:
            need.add("attribute value fields that do not match its type", "no syntax", what)
        if a.type == A.INT:
            pass
        elif a.type == A.FLOAT:
            if not math.isfinite(a.f):
                need.add("inf and nan literals", "1.15", what)
            elif is_subnormal32(a.f):
                need.add("subnormal float literals", "onnx after 1.22", what)
        elif a.type == A.STRING:
            string(a.s, what)
        elif a.type == A.TENSOR:
            if a.HasField("t"):
                tensor(a.t, what, True)
            else:
                need.add("tensor attributes without a tensor", "no syntax", what)
        elif a.type == A.GRAPH:
            if a.HasField("g"):
                graph(a.g, True)
            else:
                need.add("graph attributes without a graph", "no syntax", what)
        elif a.type in (A.FLOATS, A.INTS, A.STRINGS):
            values = {A.FLOATS: a.floats, A.INTS: a.ints, A.STRINGS: a.strings}[a.type]
            if not len(values):
                need.add("empty list attributes", "1.15", what)
            if a.type == A.FLOATS:
                if any(not math.isfinite(x) for x in values):
                    need.add("inf and nan literals", "1.15", what)
                if any(is_subnormal32(x) for x in values):
                    need.add("subnormal float literals", "onnx after 1.22", what)
            if a.type == A.STRINGS:
                for s in values:
                    string(s, what)
        elif a.type == A.TYPE_PROTO:
            need.add("type_proto attributes", "1.14", what)
        elif a.type in (A.TENSORS, A.GRAPHS, A.TYPE_PROTOS):
            need.add("lists of tensors, graphs or type protos", "onnxtxt only, HEAD drops them", what)
        elif a.type in (A.SPARSE_TENSOR, A.SPARSE_TENSORS):
            need.add("sparse tensor attributes", "no syntax", what)

    def node(n):
        where = "node %s" % q(n.name) if n.name else "a %s node" % q(n.op_type)
        if n.HasField("name"):
            need.add("node labels", "1.18", q(n.name))
        if not IDENT.match(n.op_type) or not all(IDENT.match(p) for p in n.domain.split(".") if n.domain):
            need.add("op types or domains that are not identifiers", "no syntax",
                     q((n.domain + "." if n.domain else "") + n.op_type))
        for names, kind in ((n.input, "input"), (n.output, "output")):
            if len(names) and (names[0] == "" or names[-1] == ""):
                need.add("empty optional names at the start or end of a list", "1.18",
                         "%s of %s" % (kind, where))
            for s in names:
                if s:
                    name(s, "value")
        for a in n.attribute:
            attribute(a, where)

    def graph(g, in_attribute):
        name(g.name, "graph")
        if in_attribute and (g.name in TYPE_KEYWORDS or g.name.lower() in SPECIAL_FLOATS):
            need.add("quoted attribute graph names", "onnxtxt only", q(g.name))
        for v in g.input:
            value_info(v, "input")
        for v in g.output:
            value_info(v, "output")
        for v in g.value_info:
            value_info(v, "value_info")
        for t in g.initializer:
            tensor(t, "initializer", False)
        for n in g.node:
            node(n)

    for s in (model.producer_name, model.producer_version, model.domain, model.doc_string):
        string(s, "model header")
    for e in model.metadata_props:
        string(e.key, "metadata_props")
        string(e.value, "metadata_props")
    for o in model.opset_import:
        string(o.domain, "opset_import")
    graph(model.graph, False)
    for f in model.functions:
        if not IDENT.match(f.name):
            need.add("quoted identifiers", "1.18", "function %s" % q(f.name))
        for s in (f.domain, f.doc_string):
            string(s, "function header")
        for o in f.opset_import:
            string(o.domain, "opset_import")
        for s in f.attribute:
            if not IDENT.match(s):
                need.add("function attribute names that are not identifiers", "no syntax", q(s))
        for s in list(f.input) + list(f.output):
            name(s, "function input/output")
            if s in TYPE_KEYWORDS:
                need.add("quoted identifiers", "1.18", "untyped function input/output %s" % q(s))
        for n in f.node:
            node(n)

    def visit(msg, path):
        for uf in unknown_fields(msg):
            later = UNKNOWN_LATER_SYNTAX.get((msg.DESCRIPTOR.full_name, uf.field_number))
            if later:
                need.add(later[0], later[1], path)
    walk_messages(model, "model", visit)
    return need


# ------------------------------------------------------------------------------------------
# Normalisation: what is compared
#
# Both sides (the model given to the printer, and what 1.12 parsed from the printed text) are
# normalised the same way, then compared field by field (their deterministic serialisations,
# plus the unknown fields that remain). Every rule drops or unifies only content that the
# syntax cannot express (SYNTAX.md §2.12, §4.5, §4.6 row 20; SYNTAX-DECISIONS R3):
#
#  N1 doc_string of graphs, nodes, attributes, tensors and value-infos: no syntax (§2.4, §2.6,
#     §2.7, §2.8, §2.9). The model's and a function's doc_string have syntax (header key) and
#     are compared.
#  N2 metadata_props of graphs, nodes, value-infos, tensors and functions: no syntax (§4.5).
#     The model's metadata_props have syntax and are compared.
#  N3 sparse_initializer, quantization_annotation (graph), training_info and configuration
#     (model), device_configurations (node), TensorProto.segment: no syntax (§2.2, §2.4, §4.5).
#  N4 denotations (TypeProto.denotation, Dimension.denotation): no syntax (§2.5).
#     Graph value_info is NOT dropped: the `<...>` list expresses it, also in 1.12.
#  N5 tensor data encoding: raw_data versus the typed fields (float_data, int32_data, ...) is
#     an encoding choice the syntax cannot express (§2.7: the parser never produces raw_data;
#     §4.6 row 19). Both sides' data is decoded with onnx.numpy_helper.to_array and compared
#     bit for bit (dtype, shape, bytes: -0 and 0 differ, NaN payloads count). A typed field
#     is decoded only if to_array gives back exactly its stored values (to_array would wrap
#     an out-of-range int32_data value of an 8-bit type); otherwise, or if the data does not
#     match the dims, it is compared as stored. String data is compared as stored.
#  N6 presence that the syntax cannot express (§2.12, §4.6 row 20): the parser always sets
#     these fields, so "absent" and "set to the default" are the same text. Made explicit on
#     both sides: NodeProto.domain, GraphProto.name, ValueInfoProto.name, TensorProto.name,
#     AttributeProto.name, OperatorSetIdProto.domain and version, StringStringEntryProto key
#     and value, FunctionProto.name, and the value field selected by an attribute's type
#     (f for FLOAT, i for INT, s for STRING): `beta = 0.0` sets f even when the original left
#     it absent. TensorProto.data_location DEFAULT (0) set explicitly is the same as absent.
#     A value-info whose TypeProto is present but empty prints as untyped: the empty type is
#     dropped (§4.6 row 20). Presence that the syntax does express (the model header fields,
#     a node's label, a tensor type's shape: rank 0 vs `[]`) is compared.
#  N7 wire encoding: packed versus unpacked repeated fields, field order and repeated singular
#     fields disappear when a message is decoded; the comparison re-encodes both sides.
#  N8 fields 1.12's onnx.proto does not know arrive as unknown fields; those without syntax
#     (UNKNOWN_NO_SYNTAX) are ignored, all others are compared as raw bytes.

def normalise(model):
    """A normalised copy of the model, and the list of unknown fields that remain (path,
    number, wire type, data). See N1..N8 above."""
    from onnx import AttributeProto as A, TensorProto as T
    m = copy.deepcopy(model)

    def entry(e):  # N6
        e.key = e.key
        e.value = e.value

    def opset(o):  # N6
        o.domain = o.domain
        o.version = o.version

    def typ(t):
        t.ClearField("denotation")  # N4
        kind = t.WhichOneof("value")
        if kind in ("tensor_type", "sparse_tensor_type"):
            tt = getattr(t, kind)
            if tt.HasField("shape"):
                for d in tt.shape.dim:
                    d.ClearField("denotation")  # N4
        elif kind == "sequence_type":
            typ(t.sequence_type.elem_type)
        elif kind == "optional_type":
            typ(t.optional_type.elem_type)
        elif kind == "map_type":
            typ(t.map_type.value_type)

    def value_info(v):
        v.ClearField("doc_string")  # N1
        v.name = v.name  # N6
        if v.HasField("type"):
            typ(v.type)
            if v.type.ByteSize() == 0 and not unknown_fields(v.type):  # N6: empty TypeProto
                v.ClearField("type")

    def tensor(t):
        t.ClearField("doc_string")  # N1
        t.ClearField("segment")  # N3
        t.name = t.name  # N6
        if t.HasField("data_location") and t.data_location == T.DEFAULT:  # N6
            t.ClearField("data_location")
        data(t)  # N5

    def attribute(a):
        a.ClearField("doc_string")  # N1
        a.name = a.name  # N6
        if not a.ref_attr_name:  # N6: the value field of the type is always written
            if a.type == A.FLOAT:
                a.f = a.f
            elif a.type == A.INT:
                a.i = a.i
            elif a.type == A.STRING:
                a.s = a.s
        if a.HasField("t"):
            tensor(a.t)
        if a.HasField("g"):
            graph(a.g)
        if a.HasField("tp"):
            typ(a.tp)
        for x in a.tensors:
            tensor(x)
        for x in a.graphs:
            graph(x)
        for x in a.type_protos:
            typ(x)

    def node(n):
        n.ClearField("doc_string")  # N1
        n.domain = n.domain  # N6
        for a in n.attribute:
            attribute(a)

    def graph(g):
        g.ClearField("doc_string")  # N1
        g.ClearField("sparse_initializer")  # N3
        g.ClearField("quantization_annotation")  # N3
        g.name = g.name  # N6
        for v in list(g.input) + list(g.output) + list(g.value_info):
            value_info(v)
        for t in g.initializer:
            tensor(t)
        for n in g.node:
            node(n)

    m.ClearField("training_info")  # N3
    for o in m.opset_import:
        opset(o)
    for e in m.metadata_props:
        entry(e)
    if m.HasField("graph"):
        graph(m.graph)
    for f in m.functions:
        f.name = f.name  # N6
        for o in f.opset_import:
            opset(o)
        for n in f.node:
            node(n)

    unknown = []

    def visit(msg, path):  # N8
        for uf in unknown_fields(msg):
            if (msg.DESCRIPTOR.full_name, uf.field_number) not in UNKNOWN_NO_SYNTAX:
                unknown.append((path, uf.field_number, uf.wire_type, uf.data))
    walk_messages(m, "model", visit)
    m.DiscardUnknownFields()
    return m, unknown


def data(t):
    """N5: replaces the tensor's data by its decoded values, as raw little-endian bytes of
    to_array's result, when that decoding is exact."""
    import numpy as np
    from onnx import TensorProto as T, mapping, numpy_helper
    if t.data_location == T.EXTERNAL or t.data_type == T.STRING:
        return
    if t.data_type not in mapping.TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE:
        return
    field = mapping.STORAGE_TENSOR_TYPE_TO_FIELD[mapping.TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE[t.data_type]]
    typed = [f for f in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data",
                         "string_data") if len(getattr(t, f))]
    if t.HasField("raw_data"):
        if typed:
            return  # both encodings at once: compare as stored
    elif typed and typed != [field]:
        return  # values in a field that is not this type's: compare as stored
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            arr = np.ascontiguousarray(numpy_helper.to_array(t))
        except Exception:
            return  # e.g. the number of values does not match the dims
        if not t.HasField("raw_data") and t.data_type not in (T.FLOAT, T.DOUBLE, T.COMPLEX64, T.COMPLEX128):
            # An integer storage field: to_array must give back exactly the stored values.
            if t.data_type == T.FLOAT16:
                back = arr.view(np.uint16)
            elif t.data_type == T.BFLOAT16:
                back = arr.view(np.uint32) >> 16
            else:
                back = arr
            if [int(v) for v in back.ravel()] != [int(v) for v in getattr(t, field)]:
                return
    raw = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
    for f in typed:
        t.ClearField(f)
    t.raw_data = raw


def first_difference(a, b, path="model"):
    """A human-readable description of the first difference between two messages of one type."""
    fa = dict((fd.name, (fd, v)) for fd, v in a.ListFields())
    fb = dict((fd.name, (fd, v)) for fd, v in b.ListFields())
    order = [fd.name for fd in a.DESCRIPTOR.fields]
    for name in order:
        if name not in fa and name not in fb:
            continue
        p = "%s.%s" % (path, name)
        if name not in fb:
            return "%s: %s in the model, absent after 1.12" % (p, short(fa[name][1]))
        if name not in fa:
            return "%s: absent in the model, %s after 1.12" % (p, short(fb[name][1]))
        fd, va = fa[name]
        vb = fb[name][1]
        if fd.label == fd.LABEL_REPEATED:
            for i in range(min(len(va), len(vb))):
                d = diff_value(fd, va[i], vb[i], "%s[%d]" % (p, i))
                if d:
                    return d
            if len(va) != len(vb):
                return "%s: %d entries in the model, %d after 1.12 (first extra: %s)" % (
                    p, len(va), len(vb), short((va if len(va) > len(vb) else vb)[min(len(va), len(vb))]))
        else:
            d = diff_value(fd, va, vb, p)
            if d:
                return d
    return None


def diff_value(fd, va, vb, path):
    if fd.message_type is not None:
        return first_difference(va, vb, path)
    if fd.name == "raw_data" and va != vb:
        return "%s: data differs (%d vs %d bytes; first difference at byte %d)" % (
            path, len(va), len(vb), next((i for i in range(min(len(va), len(vb))) if va[i] != vb[i]),
                                         min(len(va), len(vb))))
    if isinstance(va, float):
        same = struct.pack("<d", va) == struct.pack("<d", vb)
    else:
        same = va == vb
    if not same:
        return "%s: %s in the model, %s after 1.12" % (path, short(va), short(vb))
    return None


def short(v):
    s = repr(v) if not hasattr(v, "ListFields") else str(v).replace("\n", " ")
    return s if len(s) <= 120 else s[:117] + "..."


def compare(model, parsed):
    """None if the two models are the same after normalisation, else what differs."""
    na, ua = normalise(model)
    nb, ub = normalise(parsed)
    if na.SerializeToString(deterministic=True) == nb.SerializeToString(deterministic=True) and ua == ub:
        return None
    d = first_difference(na, nb)
    if d:
        return d
    if ua != ub:
        return "unknown fields differ: %s in the model, %s after 1.12" % (short(ua), short(ub))
    return "the serialisations differ"


# ------------------------------------------------------------------------------------------
# The sanitised copy (SYNTAX.md §5.3)
#
#  S1 Every name that 1.12 cannot read bare — not an identifier, or one the printer must quote
#     (an untyped value-info or an attribute graph named like a type keyword, an attribute
#     graph named inf/nan) — is renamed to a fresh identifier, the same new name for every
#     occurrence: graph names (main graph and subgraphs), value names in graph inputs, outputs,
#     value_info, initializers, sparse initializers, node inputs and outputs, function inputs
#     and outputs, and quantization annotations; names of attribute tensors; symbolic
#     dimensions. The mapping is
#     injective and the new names are fresh (they occur nowhere in the model), so every
#     reference still points to the same value, across subgraph scopes too, and the model means
#     the same. The empty name of a missing optional input is not a name and stays.
#  S2 Node names are cleared: a node's name is a label that nothing refers to, and labels have
#     no 1.12 syntax.
#  S3 Trailing empty names in a node's input and output lists are dropped: the ONNX IR lets a
#     missing optional input or output either be omitted at the end of the list or be given
#     the empty name, with the same meaning; `(a, "")` has no 1.12 form (1.12 reads `(a,)` as
#     [a, ""], HEAD as [a]).
# Nothing else is rewritten: whatever else falls outside §5.3 makes the sanitised case a skip.

def sanitise(model):
    """The sanitised copy, and the renaming (old name -> new name)."""
    m = copy.deepcopy(model)
    for n in all_nodes(m):
        n.ClearField("name")  # S2
        while len(n.input) and n.input[-1] == "":  # S3
            del n.input[-1]
        while len(n.output) and n.output[-1] == "":
            del n.output[-1]

    # Every string used as a name anywhere, so that new names are fresh.
    used = set()
    graphs = all_graphs(m)

    def dims(t):
        kind = t.WhichOneof("value")
        if kind in ("tensor_type", "sparse_tensor_type"):
            tt = getattr(t, kind)
            if tt.HasField("shape"):
                for d in tt.shape.dim:
                    if d.HasField("dim_param"):
                        yield d
        elif kind == "sequence_type":
            yield from dims(t.sequence_type.elem_type)
        elif kind == "optional_type":
            yield from dims(t.optional_type.elem_type)
        elif kind == "map_type":
            yield from dims(t.map_type.value_type)

    vis = []
    for g in graphs:
        vis += list(g.input) + list(g.output) + list(g.value_info)
    attr_tensors = [a.t for n in all_nodes(m) for a in n.attribute if a.HasField("t")]
    for g in graphs:
        used.add(g.name)
        used.update(t.name for t in g.initializer)
        used.update(st.values.name for st in g.sparse_initializer)
        for n in g.node:
            used.update(n.input)
            used.update(n.output)
        for qa in g.quantization_annotation:
            used.add(qa.tensor_name)
    for v in vis:
        used.add(v.name)
        used.update(d.dim_param for d in dims(v.type))
    for f in m.functions:
        used.add(f.name)
        used.update(f.input)
        used.update(f.output)
        for n in f.node:
            used.update(n.input)
            used.update(n.output)
    used.update(t.name for t in attr_tensors)

    mapping = {}

    def fresh(s):
        if s not in mapping:
            base = re.sub(r"[^A-Za-z0-9_]", "_", s) or "_"
            if not (base[0].isalpha() or base[0] == "_"):
                base = "_" + base
            while base in used or base in TYPE_KEYWORDS or base.lower() in SPECIAL_FLOATS:
                base += "_"
            used.add(base)
            mapping[s] = base
        return mapping[s]

    def must_rename(s):
        return not IDENT.match(s) or s in TYPE_KEYWORDS or s.lower() in SPECIAL_FLOATS

    def ren(s):
        return fresh(s) if s and must_rename(s) else s

    def ren_list(lst):
        new = [ren(s) for s in lst]
        del lst[:]
        lst.extend(new)

    for g in graphs:
        if must_rename(g.name):
            g.name = fresh(g.name)  # the empty graph name too: nothing refers to a graph name
        for t in g.initializer:
            t.name = ren(t.name)
        for st in g.sparse_initializer:
            st.values.name = ren(st.values.name)
        for n in g.node:
            ren_list(n.input)
            ren_list(n.output)
        for qa in g.quantization_annotation:
            qa.tensor_name = ren(qa.tensor_name)
    for v in vis:
        v.name = ren(v.name)
        for d in dims(v.type):
            if must_rename(d.dim_param):
                d.dim_param = fresh(d.dim_param)
    for f in m.functions:
        ren_list(f.input)
        ren_list(f.output)
        for n in f.node:
            ren_list(n.input)
            ren_list(n.output)
    for t in attr_tensors:
        t.name = ren(t.name)
    return m, mapping


# ------------------------------------------------------------------------------------------
# Running

def directives(text):
    """The "# key: value" lines of the file's leading comment block (as in interop.py)."""
    out = {}
    for line in text.split(b"\n"):
        if not line.startswith(b"#"):
            break
        line = line.rstrip(b"\r").decode("utf-8", "replace")
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            if key and " " not in key and key not in out:
                out[key] = value.strip()
    return out


def to_text(cli, path):
    r = subprocess.run([cli, "to-text", "--no-annotations", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("onnxtxt to-text failed (exit %d): %s" % (
            r.returncode, r.stderr.decode("utf-8", "replace").strip().replace("\n", " | ")[:300]))
    return r.stdout


def parse_112(text):
    """onnx.parser.parse_model on the printed text. Returns (model, None) or (None, error)."""
    import onnx.parser
    try:
        s = text.decode("utf-8")
    except UnicodeDecodeError:
        s = None
    try:
        if s is not None:
            return onnx.parser.parse_model(s), None
        # Text that is not UTF-8 cannot be a Python str; the binding takes the bytes as well.
        ok, msg, data = onnx.parser.C.parse_model(text)
        if not ok:
            raise onnx.parser.ParseError(msg)
        return onnx.load_from_string(data), None
    except Exception as e:  # ParseError, or one of 1.12's C++ exceptions (stoll, stof, ...)
        msg = e.args[0] if e.args else e
        if isinstance(msg, bytes):
            msg = msg.decode("utf-8", "replace")
        return None, "%s: %s" % (type(e).__name__, str(msg).strip())


class Result:
    def __init__(self, status, note=None, reasons=None, diag=None):
        self.status = status  # "ok", "skip", "fail"
        self.note = note  # skip reason
        self.reasons = reasons or []  # constructs, for the summary
        self.diag = diag or []  # diagnostic lines


def check(cli, model, path, need):
    """Prints the model at path, parses it with 1.12 and compares with model."""
    try:
        text = to_text(cli, path)
    except RuntimeError as e:
        return Result("fail", diag=[str(e)])
    parsed, error = parse_112(text)
    if parsed is not None:
        difference = compare(model, parsed)
        if difference is None:
            return Result("ok", diag=(["1.12 reads it although it needs: %s" % need.text()] if need else []))
        problem = ["1.12 reads something else: %s" % difference]
    else:
        problem = ["1.12 rejects the text: %s" % error.replace("\n", " | ")[:400]]
    if need:
        return Result("skip", "needs " + need.text(), need.constructs())
    return Result("fail", diag=problem)


def main():
    onnx = oracle.load("numpy_helper", "parser")
    if onnx is None:
        return 0
    root = os.environ.get("ONNXTXT_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    shared = os.environ.get("ONNXTXT_SHARED") or os.path.join(root, "..", "shared")
    cli = os.environ.get("ONNXTXT")
    if not cli or not os.access(cli, os.X_OK):
        print("1..0 # SKIP the onnxtxt CLI was not given (set ONNXTXT)")
        return 0

    cases = []  # (description, function returning a Result)
    tmp = tempfile.TemporaryDirectory(prefix="onnxtxt-readable-")

    def add_model(label, model, path):
        """The direct and the sanitised case of one model (given as ModelProto and file)."""
        def direct():
            return check(cli, model, path, needs(model))

        def sanitised():
            clean, _ = sanitise(model)
            need = needs(clean)
            if need:
                return Result("skip", "needs " + need.text(), need.constructs())
            clean_path = os.path.join(tmp.name, "sanitised.onnx")
            with open(clean_path, "wb") as f:
                f.write(clean.SerializeToString())
            return check(cli, clean, clean_path, need)
        cases.append(("direct " + label, direct))
        cases.append(("sanitised " + label, sanitised))

    def add_failure(label, message):
        cases.append((label, lambda: Result("fail", diag=[message])))

    # The shared backend models.
    backend = os.path.join(shared, "onnx-backend-data")
    if os.path.isdir(backend):
        paths = sorted(glob.glob(os.path.join(backend, "*", "*", "model.onnx")))
        if not paths:
            add_failure("onnx-backend-data", "no */*/model.onnx under %s" % backend)
        for p in paths:
            label = os.path.relpath(os.path.dirname(p), backend)
            try:
                with open(p, "rb") as f:
                    model = onnx.load_from_string(f.read())
            except Exception as e:
                add_failure("direct " + label, "onnx cannot read the model: %s" % e)
                continue
            add_model(label, model, p)
    else:
        cases.append(("onnx-backend-data",
                      lambda: Result("skip", "directory not found: %s" % backend)))

    # The corpus models inside §5.3.
    corpus = os.path.join(root, "corpus", "valid")
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".onnxtxt"):
            continue
        p = os.path.join(corpus, name)
        with open(p, "rb") as f:
            d = directives(f.read())
        if d.get("interop") != "onnx-" + oracle.ORACLE or d.get("entry", "model") != "model":
            continue
        label = "corpus/" + name[:-len(".onnxtxt")]
        binary = os.path.join(tmp.name, name[:-len(".onnxtxt")] + ".onnx")
        r = subprocess.run([cli, "to-binary", p, "-o", binary], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            add_failure("direct " + label, "onnxtxt to-binary failed (exit %d): %s" % (
                r.returncode, r.stderr.decode("utf-8", "replace").strip().replace("\n", " | ")[:300]))
            continue
        with open(binary, "rb") as f:
            model = onnx.load_from_string(f.read())
        add_model(label, model, binary)

    print("1..%d" % len(cases))
    counts = {mode: collections.Counter() for mode in ("direct", "sanitised", "other")}
    constructs = {mode: collections.Counter() for mode in ("direct", "sanitised", "other")}
    failed = 0
    for n, (label, run) in enumerate(cases, 1):
        mode = label.split(" ", 1)[0] if " " in label else "other"
        mode = mode if mode in counts else "other"
        try:
            res = run()
        except Exception as e:  # a bug in this script must not look like a pass
            res = Result("fail", diag=["the test itself raised %s: %s" % (type(e).__name__, e)])
        counts[mode][res.status] += 1
        constructs[mode].update(res.reasons)
        if res.status == "ok":
            print("ok %d - %s" % (n, label))
        elif res.status == "skip":
            print("ok %d - %s # SKIP %s" % (n, label, res.note))
        else:
            failed += 1
            print("not ok %d - %s" % (n, label))
        for line in res.diag:
            print("# " + line)

    def summary(mode):
        c = counts[mode]
        why = ", ".join("%s %d" % (k, v) for k, v in sorted(constructs[mode].items(), key=lambda kv: (-kv[1], kv[0])))
        return "%s: %d parsed-equal, %d skipped-by-construct%s, %d failed" % (
            mode, c["ok"], c["skip"], " (%s)" % why if why else "", c["fail"])
    print("# summary: " + "; ".join(summary(m) for m in ("direct", "sanitised")))
    if sum(counts["other"].values()):
        print("# summary: other: %d skipped, %d failed" % (counts["other"]["skip"], counts["other"]["fail"]))
    tmp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
