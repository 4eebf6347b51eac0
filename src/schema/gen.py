#!/usr/bin/env python3
"""Turns src/schema/operators.txt into the C tables of src/schema/schema.h (run by meson at
build time: gen.py operators.txt out.c). Any line it does not understand stops the build
with its line number."""
import json
import sys

ELEM = {t: "ONNX__TENSOR_PROTO__DATA_TYPE__" + t.upper() for t in (
    "float uint8 int8 uint16 int16 int32 int64 string bool float16 double uint32 uint64 complex64 "
    "complex128 bfloat16 float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz uint4 int4 float4e2m1 "
    "float8e8m0 uint2 int2").split()}
KINDS = [("tensor(", ")", 0), ("seq(tensor(", "))", 1), ("optional(tensor(", "))", 2),
         ("optional(seq(tensor(", ")))", 3), ("sparse_tensor(", ")", 4)]
OPTION = {"single": "OX_FORMAL_SINGLE", "optional": "OX_FORMAL_OPTIONAL", "variadic": "OX_FORMAL_VARIADIC"}


class Bad(Exception):
    pass


def c_str(s):
    return json.dumps(s)  # a JSON string of ASCII text is a C string literal


def typeset(types):
    """The five element-type masks and the other types of a list of type spellings."""
    masks, other = [[] for _ in KINDS], []
    for t in types:
        for head, tail, k in sorted(KINDS, key=lambda k: -len(k[0])):
            inner = t[len(head):-len(tail)] if t.startswith(head) and t.endswith(tail) else None
            if inner in ELEM:
                masks[k].append("1u << %s" % ELEM[inner])
                break
        else:
            if not (t.startswith("map(") or t.startswith("seq(") or t.startswith("optional(")):
                raise Bad("unknown type '%s'" % t)
            other.append(t)
    fields = ["%s" % (" | ".join(m) if m else "0") for m in masks]
    return "{%s, %s}" % (", ".join(fields), c_str(" ".join(other)))


def count(s):
    if s.endswith("+"):
        return int(s[:-1]), -1
    lo, _, hi = s.partition("-")
    return int(lo), int(hi or lo)


class Schema:
    def __init__(self, domain, words):
        if len(words) < 7 or words[3] != "in" or words[5] != "out":
            raise Bad("expected 'op NAME SINCE in N out N [flags]'")
        self.domain, self.name, self.since = domain, words[1], int(words[2])
        self.ins, self.outs = count(words[4]), count(words[6])
        flags = {"deprecated": 1, "experimental": 2, "function": 4, "inference": 8}
        if any(w not in flags for w in words[7:]):
            raise Bad("unknown flag among %s" % words[7:])
        self.flags = sum(flags[w] for w in words[7:])
        self.inputs, self.outputs, self.attrs, self.types = [], [], [], []

    def add(self, words, line):
        if words[0] in ("in", "out") and len(words) >= 3:
            extra = words[3:]
            option = extra[0] if extra and extra[0] in OPTION else "single"
            if any(w not in (option, "heterogeneous", "min0") for w in extra):
                raise Bad("unknown word among %s" % extra)
            formal = (words[1], words[2], option, "heterogeneous" not in extra, 0 if "min0" in extra else 1)
            (self.inputs if words[0] == "in" else self.outputs).append(formal)
        elif words[0] == "attr" and len(words) >= 3:
            rest = line.split(None, 3)[3] if len(words) > 3 else ""
            if rest and rest != "required" and not rest.startswith("= "):
                raise Bad("expected 'required' or '= DEFAULT'")
            self.attrs.append((words[1], words[2], rest == "required", json.loads(rest[2:]) if rest.startswith("= ") else None))
        elif words[0] == "type" and len(words) >= 3:
            self.types.append((words[1], words[2:]))
        else:
            raise Bad("expected in, out, attr or type")


def parse(path):
    domains, schemas, cur, domain = [], [], None, None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            words = line.split()
            try:
                if not words or words[0].startswith("#"):
                    continue
                if words[0] == "domain" and len(words) == 4 and words[2] == "opsets":
                    domain = "" if words[1] == "ai.onnx" else words[1]
                    domains.append((domain,) + count(words[3]))
                elif words[0] == "op" and domain is not None:
                    cur = Schema(domain, words)
                    schemas.append(cur)
                elif cur is not None and line.startswith("  "):
                    cur.add(words, line.strip())
                else:
                    raise Bad("unexpected line")
            except (Bad, ValueError) as e:
                sys.exit("%s:%d: %s" % (path, no, e))
    return domains, schemas


ATTR_TYPES = ("float int string tensor graph floats ints strings tensors graphs sparse_tensor "
              "sparse_tensors type_proto type_protos").split()


def attr_entry(out, k, j, a):
    name, typ, required, default = a
    if typ not in ATTR_TYPES:
        raise Bad("unknown attribute type '%s'" % typ)
    fields = {"i": "0", "f": "0", "s": "NULL", "ints": "NULL", "floats": "NULL", "strings": "NULL", "n": "0"}
    if default is not None:
        if typ == "int":
            fields["i"] = "INT64_C(%d)" % default
        elif typ == "float":
            fields["f"] = "%sf" % repr(float(default))
        elif typ == "string":
            fields["s"] = c_str(default)
        elif typ in ("ints", "floats", "strings"):
            ctype = {"ints": "const int64_t", "floats": "const float", "strings": "const char *const"}[typ]
            vals = [("INT64_C(%d)" % v if typ == "ints" else "%sf" % repr(float(v)) if typ == "floats" else c_str(v))
                    for v in default]
            out.append("static %s d%d_%d[] = {%s};" % (ctype, k, j, ", ".join(vals)))
            fields[typ] = "d%d_%d" % (k, j)
            fields["n"] = str(len(default))
        else:
            raise Bad("no default for a %s" % typ)
    return '{%s, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__%s, %d, %d, %s, %s, %s, %s, %s, %s, %s}' % (
        c_str(name), typ.upper(), required, default is not None, fields["i"], fields["f"], fields["s"],
        fields["ints"], fields["floats"], fields["strings"], fields["n"])


def emit_schema(out, k, s):
    params = {p: i for i, (p, _) in enumerate(s.types)}
    if s.types:
        out.append("static const ox_constraint c%d[] = {%s};" % (k, ", ".join(
            "{%s, %s, %s}" % (c_str(p), c_str(" ".join(ts)), typeset(ts)) for p, ts in s.types)))
    for kind, formals in (("i", s.inputs), ("o", s.outputs)):
        if not formals:
            continue
        entries = []
        for j, (name, typ, option, homog, min_arity) in enumerate(formals):
            if typ in params:
                ref = "&c%d[%d].set" % (k, params[typ])
            else:
                out.append("static const ox_typeset t%s%d_%d = %s;" % (kind, k, j, typeset([typ])))
                ref = "&t%s%d_%d" % (kind, k, j)
            entries.append("{%s, %s, %s, %s, %d, %d}" % (c_str(name), c_str(typ), ref, OPTION[option], homog, min_arity))
        out.append("static const ox_formal %s%d[] = {%s};" % (kind, k, ", ".join(entries)))
    attrs = sorted(s.attrs, key=lambda a: a[0].encode())
    if attrs:
        entries = [attr_entry(out, k, j, a) for j, a in enumerate(attrs)]
        out.append("static const ox_schema_attr a%d[] = {\n\t%s};" % (k, ",\n\t".join(entries)))


def render(domains, schemas):
    out = ["/* Generated by src/schema/gen.py from src/schema/operators.txt: do not edit. */",
           "#include <stddef.h>", "#include <stdint.h>", '#include "onnxtxt/onnx.pb-c.h"', '#include "schema/schema.h"', ""]
    schemas = sorted(schemas, key=lambda s: (s.domain.encode(), s.name.encode(), s.since))
    for k, s in enumerate(schemas):
        emit_schema(out, k, s)
    out.append("const ox_schema ox_schema_table[] = {")
    for k, s in enumerate(schemas):
        ref = lambda what, have: "%s%d" % (what, k) if have else "NULL"
        out.append("\t{%s, %s, %d, %d, %d, %d, %d, %du, %s, %s, %s, %s, %d, %d, %d, %d}," % (
            c_str(s.domain), c_str(s.name), s.since, s.ins[0], s.ins[1], s.outs[0], s.outs[1], s.flags,
            ref("i", s.inputs), ref("o", s.outputs), ref("a", s.attrs), ref("c", s.types),
            len(s.inputs), len(s.outputs), len(s.attrs), len(s.types)))
    out += ["};", "const size_t ox_schema_count = %d;" % len(schemas), ""]
    out.append("const ox_schema_domain ox_schema_domains[] = {")
    out += ["\t{%s, %d, %d}," % (c_str(d), lo, hi) for d, lo, hi in domains]
    out += ["};", "const size_t ox_schema_domain_count = %d;" % len(domains), ""]
    return "\n".join(out)


def main():
    domains, schemas = parse(sys.argv[1])
    try:
        text = render(domains, schemas)
    except Bad as e:
        sys.exit("%s: %s" % (sys.argv[1], e))
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
