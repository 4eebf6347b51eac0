#!/usr/bin/env python3
"""Coverage of the syntax checklist by the valid corpus.

Reads the checklist of SYNTAX.md section 7 (rows marked P or P/R are parser rows; rows
marked only R are printer rows, out of scope here), the decision items of
SYNTAX-DECISIONS.md section P (P1 ... P5; a section with bullets has one item per
bullet, P3.1, P3.2, ... in document order; a section without bullets is one item, P1),
and the "# covers:" directives of corpus/valid/*.onnxtxt, and writes corpus/COVERAGE.md.

    tools/coverage.py            rewrite corpus/COVERAGE.md
    tools/coverage.py --check    TAP: one line per parser row and decision item (not ok if
                                 no file covers it, a skip if it is listed in PENDING),
                                 one for the directives, one for COVERAGE.md being current

Paths: the source root is $ONNXTXT_SOURCE_ROOT or the parent of tools/; the shared docs
are in $ONNXTXT_SHARED or ROOT/../shared. Without them --check reports a skip.
Only the standard library is used.
"""
import os
import re
import sys

from generated import start, tap_current, unavailable

# Items that no valid input can exercise yet, with the reason. While such an item has no
# file, --check reports it as skipped ("ok ... # SKIP pending: reason"), a known gap rather
# than a failure; once a file covers it, it is an ordinary "ok" and the entry can go.
PENDING = {
    "67": "error-format row: no valid input can exercise it (the errors corpus does)",
}

OUTPUT = os.path.join("corpus", "COVERAGE.md")


def md_cell(text):
    return text.replace("|", "\\|").strip()


def read_checklist(path):
    """[(row, feature, pr)] from the table of section 7."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## 7\..*?$(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        raise SystemExit("%s: no section 7" % path)
    rows = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) >= 3 and cells[0].isdigit():
            rows.append((cells[0], cells[1], cells[2]))
    if not rows:
        raise SystemExit("%s: no checklist rows in section 7" % path)
    return rows


def read_decisions(path):
    """[(id, text)] for the P section: bullets become P<n>.<k>, a bullet-less item P<n>."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## P\..*?$(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        raise SystemExit("%s: no section P" % path)
    items = []
    # Each item starts with "**P<n>. Title.**"; its bullets are the "- " lines that follow.
    parts = re.split(r"^\*\*(P\d+)\.\s*(.*?)\*\*", m.group(1), flags=re.M)
    for i in range(1, len(parts), 3):
        pid, title, body = parts[i], parts[i + 1].strip().rstrip("."), parts[i + 2]
        bullets = []
        for line in body.splitlines():
            if line.startswith("- "):
                bullets.append(line[2:].strip())
            elif bullets and line.startswith("  ") and line.strip():
                bullets[-1] += " " + line.strip()
        if bullets:
            for k, b in enumerate(bullets, 1):
                items.append(("%s.%d" % (pid, k), summary(b)))
        else:
            items.append((pid, title))
    if not items:
        raise SystemExit("%s: no items in section P" % path)
    return items


def summary(text, limit=110):
    """The first sentence of a bullet, shortened."""
    s = re.split(r"(?<=[.;])\s", text, maxsplit=1)[0].rstrip(".;")
    return s if len(s) <= limit else s[: limit - 3].rstrip() + "..."


def directives(data):
    out = {}
    for line in data.split(b"\n"):
        if not line.startswith(b"#"):
            break
        line = line.rstrip(b"\r").decode("utf-8", "replace")
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            if key and " " not in key and key not in out:
                out[key] = value.strip()
    return out


def read_corpus(root):
    """{file: directives} for corpus/valid/*.onnxtxt."""
    d = os.path.join(root, "corpus", "valid")
    files = {}
    for name in sorted(os.listdir(d)):
        if name.endswith(".onnxtxt"):
            with open(os.path.join(d, name), "rb") as f:
                files[name] = directives(f.read())
    return files


def analyse(rows, items, files):
    """Who covers what, and every problem with the directives."""
    parser_rows = [r for r in rows if "P" in r[2]]
    known = {r[0]: r for r in rows}
    ids = {i for i, _ in items}
    by_id = {}
    problems = []
    for name, d in files.items():
        covers = d.get("covers")
        if covers is None:
            problems.append("%s: no '# covers:' line" % name)
            continue
        if not covers.split():
            problems.append("%s: empty '# covers:' line" % name)
        for c in covers.split():
            if c in known and "P" not in known[c][2]:
                problems.append("%s: row %s is a printer row" % (name, c))
            elif c not in known and c not in ids:
                problems.append("%s: unknown row or item %r" % (name, c))
            else:
                by_id.setdefault(c, []).append(name)
    for p in PENDING:
        if p not in known and p not in ids:
            problems.append("tools/coverage.py: PENDING names unknown %r" % p)
    return parser_rows, by_id, problems


def render(rows, items, files, by_id):
    entries = {}
    for name, d in files.items():
        entries.setdefault(d.get("entry", "model"), []).append(name)
    interop = [n for n, d in files.items() if d.get("interop")]
    parser_rows = [r for r in rows if "P" in r[2]]
    covered_rows = sum(1 for r in parser_rows if by_id.get(r[0]))
    covered_items = sum(1 for i, _ in items if by_id.get(i))

    def cell(key):
        names = by_id.get(key)
        if names:
            return ", ".join("`%s`" % n[: -len(".onnxtxt")] for n in names)
        if key in PENDING:
            return "**none** (pending: %s)" % PENDING[key]
        return "**none**"

    out = [
        "# Coverage of the syntax by the valid corpus",
        "",
        "Generated by `tools/coverage.py` from the checklist of `SYNTAX.md` §7, the items of",
        "`SYNTAX-DECISIONS.md` §P and the `# covers:` lines of `corpus/valid/*.onnxtxt`. Do not edit;",
        "run `tools/coverage.py` after changing the corpus (`meson test coverage` checks it).",
        "",
        "- %d files in `corpus/valid`, %d of them marked `# interop: onnx-1.12`." % (len(files), len(interop)),
        "- Parser rows (P, P/R) covered: %d of %d. Printer-only rows (R) are out of scope." % (covered_rows, len(parser_rows)),
        "- Decision items covered: %d of %d." % (covered_items, len(items)),
        "- Entry points: %s." % ", ".join("%s (%d)" % (e, len(n)) for e, n in sorted(entries.items())),
        "",
        "Rows that describe errors (8, 13, 17, 38, 68, P2, P5) are covered here by their accepting",
        "side: the boundary values and near misses that must still parse. The rejecting side belongs",
        "to `corpus/errors`. File names below are given without the `.onnxtxt` suffix.",
        "",
        "## SYNTAX.md §7 checklist",
        "",
        "| row | feature | P/R | files |",
        "| --- | --- | --- | --- |",
    ]
    for num, feature, pr in rows:
        files_cell = cell(num) if "P" in pr else (cell(num) if by_id.get(num) else "printer row (out of scope)")
        out.append("| %s | %s | %s | %s |" % (num, md_cell(feature), pr, files_cell))
    out += ["", "## SYNTAX-DECISIONS.md §P items", "", "| item | decision | files |", "| --- | --- | --- |"]
    for pid, text in items:
        out.append("| %s | %s | %s |" % (pid, md_cell(text), cell(pid)))
    out.append("")
    return "\n".join(out)


def main():
    args, root = start(__doc__, __file__)
    shared = os.environ.get("ONNXTXT_SHARED") or os.path.join(root, "..", "shared")
    syntax = os.path.join(shared, "SYNTAX.md")
    decisions = os.path.join(shared, "SYNTAX-DECISIONS.md")
    if not (os.path.isfile(syntax) and os.path.isfile(decisions)):
        return unavailable("coverage.py", args.check, "SYNTAX.md or SYNTAX-DECISIONS.md not found in %s" % shared,
                           " (set ONNXTXT_SHARED)")

    rows = read_checklist(syntax)
    items = read_decisions(decisions)
    files = read_corpus(root)
    parser_rows, by_id, problems = analyse(rows, items, files)
    text = render(rows, items, files, by_id)
    path = os.path.join(root, OUTPUT)

    if not args.check:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        for p in problems:
            sys.stderr.write("coverage.py: %s\n" % p)
        return 1 if problems else 0

    lines = []
    for num, feature, pr in parser_rows:
        lines.append((num, "row %s (%s): %s" % (num, pr, summary(feature, 70))))
    for pid, desc in items:
        lines.append((pid, "%s: %s" % (pid, summary(desc, 70))))
    print("1..%d" % (len(lines) + 2))
    failed = 0
    n = 0
    for key, label in lines:
        n += 1
        names = by_id.get(key)
        if names:
            print("ok %d - %s (%d files)" % (n, label, len(names)))
        elif key in PENDING:
            print("ok %d - %s # SKIP pending: %s" % (n, label, PENDING[key]))
        else:
            failed += 1
            print("not ok %d - %s: no file in corpus/valid covers it" % (n, label))
    n += 1
    if problems:
        failed += 1
        print("not ok %d - corpus/valid directives" % n)
        for p in problems:
            print("# " + p)
    else:
        print("ok %d - corpus/valid directives (%d files)" % (n, len(files)))
    n += 1
    failed += tap_current(n, path, text, OUTPUT, "tools/coverage.py")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
