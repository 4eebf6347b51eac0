#!/usr/bin/env python3
"""`onnxtxt fmt` keeps comments (TAP): every corpus model with comments added between its tokens.

For every model of corpus/valid, corpus/golden, corpus/eval and corpus/fmt, comments are inserted between
its tokens, three ways in turn: on a line of their own before a token, at the end of a token's
line, and both; some with blank lines around them. Two cases per model:

  canonical  comments added to the model's canonical text (`fmt --drop-comments`), so the
             tokens of the input and of the output are the same: every comment must come
             out with the same number of tokens before it, still at the end of a token's
             line when it was (trailing) or on a line of its own when it was not;
  source     comments added to the file as it is (its own comments, and a test case's
             "#@ input" / "#@ expect" lines, included).

In both, fmt must keep every comment, in order, with its text; a second fmt must change
nothing (`fmt --check`); and the model must stay the same (`to-binary` of input and output
give the same bytes). One TAP line per model and case; files that are not models (a node,
a type: the parser's other entry points) are left out.

Then the goldens of the tricky positions: corpus/fmt/NAME.onnxtxt must format to exactly
corpus/fmt/NAME.txt, which must format to itself.

Environment: ONNXTXT (the onnxtxt CLI), ONNXTXT_SOURCE_ROOT (the source tree).
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

CLI = os.environ["ONNXTXT"]
ROOT = os.environ.get("ONNXTXT_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), ".."))

# Lexemes as the scanner reads them, coarser where that cannot matter: comments are '#' to
# the end of the line but "#@" annotations, a test case's "#@ input"/"#@ expect" lines being
# comments; strings may span lines.
LEXEME = re.compile(r'(#@[ \t]*(?:input|expect)[ \t][^\n]*)|(#@[^\n]*)|(#[^\n]*)|("(?:[^"\\]|\\.)*")'
                    r'|(=>|[A-Za-z0-9_.+\-]+|\S)', re.S)


def lex(text):
    """[(kind, start, end)], kind 'comment', 'note' or 'token'."""
    out = []
    for m in LEXEME.finditer(text):
        kind = "comment" if m.group(1) or m.group(3) else "note" if m.group(2) else "token"
        out.append((kind, m.start(), m.end()))
    return out


def comments(text):
    """[(text, tokens before it, trailing)] for each comment of text."""
    res, count, prev_end = [], 0, None
    for kind, s, e in lex(text):
        if kind == "comment":
            trailing = prev_end is not None and "\n" not in text[prev_end:s]
            res.append((text[s:e].rstrip(" \t\r"), count, trailing))
        elif kind == "token":
            count += 1
            prev_end = e
    return res


def add_comments(text, name):
    """text with comments between its tokens: before, after, both, or none, in turn."""
    out, pos, k = [], 0, 0
    toks = [(s, e) for kind, s, e in lex(text) if kind == "token"]
    out.append("# %s: a comment before everything\n" % name)
    for i, (s, e) in enumerate(toks):
        way = i % 4
        if way in (1, 2) and i:  # trailing the token before: up to its end, then the comment
            prev_end = toks[i - 1][1]
            out.append(text[pos:prev_end])
            out.append("  # c%d trailing" % k)
            k += 1
            out.append("\n" if "\n" not in text[prev_end:s] else "")
            pos = prev_end
        if way in (0, 2):
            out.append(text[pos:s])
            blank = "\n" if i % 7 == 0 else ""
            word = re.sub(r"[^A-Za-z0-9_.]", "", text[s:e][:12])
            out.append("%s\n# c%d before %s%s\n" % (blank, k, word, blank if i % 11 == 0 else ""))
            k += 1
            pos = s
    out.append(text[pos:])
    out.append("\n# a comment after everything   \n")
    return "".join(out)


def run(*args):
    return subprocess.run([CLI] + list(args), capture_output=True)


def failed_names(stderr):
    """The files an fmt run reported an error for."""
    return set(re.findall(r"^(.*?):\d+:\d+: error:", stderr.decode(errors="replace"), re.M))


def canonical_texts(files, work):
    """{path: canonical text without comments} for the files that are models."""
    os.makedirs(os.path.join(work, "canon"))
    copies = {}
    for i, path in enumerate(files):
        copies[path] = os.path.join(work, "canon", "%d.onnxtxt" % i)
        with open(path, "rb") as f, open(copies[path], "wb") as g:
            g.write(f.read())
    bad = failed_names(run("fmt", "-i", "--drop-comments", *copies.values()).stderr)
    res = {}
    for path, copy in copies.items():
        if copy not in bad:
            with open(copy, encoding="utf-8", errors="surrogateescape") as f:
                res[path] = f.read()
    return res


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)


def binary(path):
    r = run("to-binary", path, "-o", path + ".onnx")
    if r.returncode:
        return None
    with open(path + ".onnx", "rb") as f:
        return f.read()


def verdict(src, out, text, exact, errors, unstable):
    """None when fmt kept the comments of text (in src, formatted in place as out) as it
    should, else what went wrong."""
    if out in errors:
        return "fmt failed"
    formatted = read(out)
    want, got = comments(text), comments(formatted)
    if [c[0] for c in want] != [c[0] for c in got]:
        lost = [c[0] for c in want if c[0] not in [g[0] for g in got]]
        return "comments lost or reordered (%d in, %d out; first lost: %r)" % (len(want), len(got), lost[:1])
    if exact and want != got:
        bad = next(w for w, g in zip(want, got) if w != g)
        return "a comment moved: %r" % (bad,)
    if out in unstable:
        return "fmt is not idempotent: a second fmt changes the output"
    before = binary(src)
    if before is None or before != binary(out):
        return "the model changed (to-binary of input and output differ)"
    return None


def goldens(start):
    """TAP lines for corpus/fmt; returns (cases, failures)."""
    n = failed = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "corpus", "fmt", "*.onnxtxt"))):
        golden = path[:-len(".onnxtxt")] + ".txt"
        name = os.path.relpath(path, ROOT)
        r = run("fmt", path)
        for label, problem in (
                ("fmt %s gives %s" % (name, os.path.basename(golden)),
                 r.returncode or r.stdout.decode() != read(golden)),
                ("fmt --check %s: the golden is canonical" % os.path.basename(golden),
                 run("fmt", "--check", golden).returncode)):
            n += 1
            failed += bool(problem)
            print("%s %d - %s" % ("not ok" if problem else "ok", start + n, label))
    return n, failed


def main():
    files = []
    for sub in ("valid", "golden", "eval", "fmt"):
        files += sorted(glob.glob(os.path.join(ROOT, "corpus", sub, "*.onnxtxt")))
    with tempfile.TemporaryDirectory() as work:
        canon = canonical_texts(files, work)
        cases = []  # (label, input file, output file, text, exact)
        for i, path in enumerate(p for p in files if p in canon):
            name = os.path.relpath(path, ROOT)
            for case, base, exact in (("canonical", canon[path], True), ("source", read(path), False)):
                text = add_comments(base, os.path.basename(path))
                src = os.path.join(work, "%s-%d.onnxtxt" % (case, i))
                out = os.path.join(work, "%s-%d.out.onnxtxt" % (case, i))
                write(src, text)
                write(out, text)
                cases.append(("%s %s" % (case, name), src, out, text, exact))
        outs = [c[2] for c in cases]
        errors = failed_names(run("fmt", "-i", *outs).stderr)
        unstable = set(run("fmt", "--check", *outs).stdout.decode().split("\n"))
        gold = len(glob.glob(os.path.join(ROOT, "corpus", "fmt", "*.onnxtxt")))
        print("1..%d" % (len(cases) + 2 * gold))
        failed = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            problems = pool.map(lambda c: verdict(c[1], c[2], c[3], c[4], errors, unstable), cases)
        for n, ((label, src, out, text, exact), problem) in enumerate(zip(cases, problems), 1):
            if problem:
                failed += 1
                print("not ok %d - %s\n# %s" % (n, label, problem.replace("\n", "\n# ")))
            else:
                print("ok %d - %s" % (n, label))
    print("# summary: %d of %d cases kept every comment; %d files are not models" %
          (len(cases) - failed, len(cases), len(files) - len(canon)))
    n, bad = goldens(len(cases))
    print("# goldens: %d of %d as expected" % (n - bad, n))
    return 1 if failed or bad else 0


if __name__ == "__main__":
    sys.exit(main())
