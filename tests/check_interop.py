#!/usr/bin/python3
"""Interop test (TAP): onnxtxt check --no-infer against onnx.checker.check_model (Debian's onnx 1.12).

  (a) src/schema/operators.txt (the schemas of onnx 1.23) has every schema onnx 1.12 has,
      with the same versions, input and output counts and attribute names and types;
  (b) every file of corpus/check, which onnxtxt check rejects, is rejected by onnx.checker
      too, except where its "# reference: accepts (why)" line says onnxtxt is stricter (and
      then onnx.checker must indeed accept it); a file with warnings alone is valid for both;
  (c) every model of corpus/valid, corpus/golden and corpus/examples that onnx 1.12 can
      judge (IR version 1 to 8, no external data) and every model of the shared backend
      data gets the same verdict from both.
One TAP line per check. Environment: ONNXTXT (the CLI), ONNXTXT_SOURCE_ROOT, ONNXTXT_SHARED.
Without onnx 1.12 the whole test is skipped.
"""
import os
import subprocess
import sys
import tempfile

import oracle
from interop import directives, quiet_stdout

ROOT = os.environ.get("ONNXTXT_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SHARED = os.environ.get("ONNXTXT_SHARED") or os.path.join(ROOT, "..", "shared")


def ours(cli, path, infer=False):
    """onnxtxt check's verdict: (valid, first message); structural alone (--no-infer) unless
    infer, since onnx.checker without full_check infers nothing either."""
    r = subprocess.run([cli, "check"] + ([] if infer else ["--no-infer"]) + ["--quiet", "--color=never", path],
                       stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode not in (0, 1):
        raise RuntimeError("onnxtxt check exited %d: %s" % (r.returncode, r.stderr.decode()[:300]))
    return r.returncode == 0, r.stderr.decode("utf-8", "replace").split("\n")[0]


def reference(onnx, data):
    """onnx.checker's verdict on serialized bytes: (valid, message)."""
    try:
        quiet_stdout(onnx.checker.check_model, onnx.load_from_string(data))
        return True, ""
    except Exception as e:  # ValidationError, or a C++ exception the binding passes on
        return False, str(e).strip().replace("\n", " | ")[:200]


def external(model):
    graphs = [model.graph]
    while graphs:
        g = graphs.pop()
        if any(t.data_location == 1 for t in g.initializer):
            return True
        graphs += [a.g for n in g.node for a in n.attribute if a.HasField("g")]
    return False


def to_binary(cli, path, out):
    r = subprocess.run([cli, "to-binary", path, "-o", out], stderr=subprocess.PIPE)
    if r.returncode != 0:
        return None
    with open(out, "rb") as f:
        return f.read()


def loadable(onnx, data):
    """The model in data, or None when Python's protobuf cannot read it: the pure-Python
    implementation decodes every string field as UTF-8, and corpus/golden/bytes.onnxtxt
    has names that are not (onnxtxt writes their bytes \\xHH)."""
    from google.protobuf.message import DecodeError  # installed with onnx
    if not data:
        return None
    try:
        return onnx.load_from_string(data)
    except (UnicodeDecodeError, DecodeError):
        return None


def plan(onnx, cli, tmp):
    """(label, function returning a list of failure notes) for every check."""
    checks = [("src/schema/operators.txt agrees with onnx %s's schemas" % onnx.__version__,
               lambda: schema_agreement(onnx))]
    for name in sorted(os.listdir(os.path.join(ROOT, "corpus", "check"))):
        path = os.path.join(ROOT, "corpus", "check", name)
        text = open(path, "rb").read()
        if b"\n# error: " not in b"\n" + text:  # warnings alone: a valid model
            checks.append(("corpus/check/%s: valid for both (onnxtxt warns)" % name,
                           lambda path=path: same_verdict(onnx, cli, path, to_binary(cli, path, os.path.join(tmp, "w.onnx")))))
            continue
        stricter = "reference" in directives(text)
        checks.append(("corpus/check/%s: %s" % (name, "onnx.checker accepts it (onnxtxt is stricter)"
                                                if stricter else "onnx.checker rejects it too"),
                       lambda path=path, stricter=stricter: check_error_file(onnx, cli, tmp, path, stricter)))
    for folder in ("valid", "golden", "examples"):
        d = os.path.join(ROOT, "corpus", folder)
        for name in sorted(f for f in os.listdir(d) if f.endswith(".onnxtxt")):
            path = os.path.join(d, name)
            if directives(open(path, "rb").read()).get("entry", "model") != "model":
                continue
            data = to_binary(cli, path, os.path.join(tmp, "m.onnx"))
            model = loadable(onnx, data)
            if model is None or not 1 <= model.ir_version <= 8 or external(model):
                continue
            checks.append(("corpus/%s/%s: same verdict" % (folder, name),
                           lambda path=path, data=data: same_verdict(onnx, cli, path, data)))
    backend = os.path.join(SHARED, "onnx-backend-data")
    for top, _, files in sorted(os.walk(backend)):
        if "model.onnx" in files:
            path = os.path.join(top, "model.onnx")
            checks.append(("%s: same verdict" % os.path.relpath(path, SHARED),
                           lambda path=path: same_verdict(onnx, cli, path, open(path, "rb").read())))
    return checks


def our_schemas():
    """(domain, op, since) -> (counts, {attribute: type}) of src/schema/operators.txt."""
    table, key, domain = {}, None, None
    with open(os.path.join(ROOT, "src", "schema", "operators.txt"), encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if w[:1] == ["domain"]:
                domain = "" if w[1] == "ai.onnx" else w[1]
            elif w[:1] == ["op"]:
                key = (domain, w[1], int(w[2]))
                table[key] = ((w[4], w[6]), {})
            elif w[:1] == ["attr"]:
                table[key][1][w[1]] = w[2].upper()
    return table


def schema_agreement(onnx):
    def count(lo, hi):
        return "%d+" % lo if hi >= 2**31 - 1 else str(lo) if lo == hi else "%d-%d" % (lo, hi)
    ours_ = our_schemas()
    notes = []
    for s in onnx.defs.get_all_schemas_with_history():
        key = (s.domain, s.name, s.since_version)
        theirs = ((count(s.min_input, s.max_input), count(s.min_output, s.max_output)),
                  {a: at.type.name for a, at in s.attributes.items()})
        if key not in ours_:
            notes.append("# %s %s-%d: not in operators.txt" % key)
        elif ours_[key] != theirs:
            notes.append("# %s %s-%d: %s here, %s in onnx" % (key + (ours_[key], theirs)))
    return notes[:20]


def check_error_file(onnx, cli, tmp, path, stricter):
    valid, msg = ours(cli, path, infer=True)
    if valid:
        return ["# onnxtxt check accepts it"]
    data = to_binary(cli, path, os.path.join(tmp, "e.onnx"))
    if data is None:
        return ["# onnxtxt to-binary failed"]
    ref_valid, ref_msg = reference(onnx, data)
    if ref_valid != stricter:
        return ["# onnx.checker %s it%s" % ("accepts" if ref_valid else "rejects", ": " + ref_msg if ref_msg else ""),
                "# onnxtxt: " + msg]
    return []


def same_verdict(onnx, cli, path, data):
    valid, msg = ours(cli, path)
    ref_valid, ref_msg = reference(onnx, data)
    if valid == ref_valid:
        return []
    return ["# onnxtxt check: " + ("valid" if valid else msg), "# onnx.checker: " + ("valid" if ref_valid else ref_msg)]


def main():
    onnx = oracle.load("checker")
    if onnx is None:
        return 0
    cli = os.environ.get("ONNXTXT")
    if not cli or not os.access(cli, os.X_OK):
        print("1..0 # SKIP the onnxtxt CLI was not given (set ONNXTXT)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        checks = plan(onnx, cli, tmp)
        print("1..%d" % len(checks))
        failed = 0
        for n, (label, run) in enumerate(checks, 1):
            notes = run()
            failed += bool(notes)
            print("%s %d - %s" % ("not ok" if notes else "ok", n, label))
            for line in notes:
                print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
