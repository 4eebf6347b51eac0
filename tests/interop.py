#!/usr/bin/python3
"""Interop test (TAP): the valid corpus against the official onnx package (Debian's 1.12).

For every model file in corpus/valid (entry point "model", the default), the onnxtxt CLI
converts the text to binary, and then:
  (a) a file marked "# interop: onnx-1.12" must give exactly the bytes of
      onnx.parser.parse_model(text).SerializeToString();
  (b) a model whose ir_version is between 1 and 8 must pass onnx.checker.check_model.
One TAP line per check, named after the file.

Environment: ONNXTXT (path of the onnxtxt CLI), ONNXTXT_SOURCE_ROOT (the source tree).
Without onnx 1.12 the whole test is skipped. Run it with /usr/bin/python3: that is where
Debian's python3-onnx lives (a python3 earlier on PATH may not have onnx).
"""
import difflib
import os
import subprocess
import sys

import oracle



def directives(text):
    """The "# key: value" lines of the file's leading comment block (as tests/check_corpus.c
    reads them)."""
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


def text_diff(ours, ref, limit=12):
    """A short unified diff of the two protos' text forms, as TAP comment lines."""
    lines = difflib.unified_diff(str(ref).splitlines(), str(ours).splitlines(),
                                 "onnx.parser (1.12)", "onnxtxt", lineterm="", n=2)
    return ["#   " + l for l in list(lines)[:limit]]


def quiet_stdout(fn, *args):
    """Runs fn with file descriptor 1 sent to stderr, so that messages printed by onnx's
    C++ code (checker warnings) cannot end up in the TAP stream."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        return fn(*args)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def main():
    onnx = oracle.load("checker", "parser")
    if onnx is None:
        return 0
    version = onnx.__version__

    root = os.environ.get("ONNXTXT_SOURCE_ROOT") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    cli = os.environ.get("ONNXTXT")
    corpus = os.path.join(root, "corpus", "valid")
    if not cli or not os.access(cli, os.X_OK):
        print("1..0 # SKIP the onnxtxt CLI was not given (set ONNXTXT)")
        return 0

    # Convert every model first, then plan: TAP wants the count up front, and which files
    # the checker applies to depends on the ir_version we produce.
    checks = []  # (file name, kind, note)
    outputs = {}
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".onnxtxt"):
            continue
        with open(os.path.join(corpus, name), "rb") as f:
            text = f.read()
        d = directives(text)
        entry = d.get("entry", "model")
        marker = d.get("interop")
        if marker is not None and (marker != "onnx-" + oracle.ORACLE or entry != "model"):
            checks.append((name, "bad-marker", "# interop marker %r: only 'onnx-%s', on a model file (entry %s)"
                           % (marker, oracle.ORACLE, entry)))
            continue
        if entry != "model":
            continue
        r = subprocess.run([cli, "to-binary", os.path.join(corpus, name), "-o", "-"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            err = r.stderr.decode("utf-8", "replace").splitlines()[:5]
            checks.append((name, "convert", "\n".join(["# onnxtxt to-binary failed (exit %d)" % r.returncode]
                                                      + ["#   " + l for l in err])))
            continue
        outputs[name] = (text, r.stdout)
        if marker is not None:
            checks.append((name, "interop", None))
        try:
            ir_version = onnx.load_from_string(r.stdout).ir_version
        except Exception as e:
            checks.append((name, "convert", "# onnx cannot read our bytes: %s" % e))
            continue
        if 1 <= ir_version <= 8:
            checks.append((name, "checker", None))

    print("1..%d" % len(checks))
    failed = 0
    for n, (name, kind, note) in enumerate(checks, 1):
        notes = [note] if note else []
        if kind == "bad-marker":
            label = "%s: interop marker" % name
        elif kind == "convert":
            label = "%s: converts to a model onnx can read" % name
        elif kind == "interop":
            label = "%s: same bytes as onnx.parser.parse_model (onnx %s)" % (name, version)
            text, ours = outputs[name]
            try:
                ref = onnx.parser.parse_model(text.decode("utf-8")).SerializeToString()
            except Exception as e:  # ParseError, or one of the reference's exceptions
                notes.append("# onnx.parser.parse_model rejected it: %s" % str(e).replace("\n", " | ")[:300])
            else:
                if ref != ours:
                    notes.append("# bytes differ (onnx %d bytes, onnxtxt %d bytes)" % (len(ref), len(ours)))
                    try:
                        notes += text_diff(onnx.load_from_string(ours), onnx.load_from_string(ref))
                    except Exception as e:
                        notes.append("#   cannot decode: %s" % e)
        else:
            label = "%s: onnx.checker.check_model" % name
            try:
                quiet_stdout(onnx.checker.check_model, onnx.load_from_string(outputs[name][1]))
            except Exception as e:
                notes.append("# " + str(e).strip().replace("\n", " | ")[:300])
        ok = not notes
        if not ok:
            failed += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", n, label))
        for l in notes:
            print(l)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
