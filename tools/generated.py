"""The check every generated table of tools/ makes under --check: the committed file is
what its script writes now (coverage.py, opcoverage.py, infercoverage.py)."""


def tap_current(n, path, text, output, regenerate):
    """Prints TAP line n: whether the file at path (OUTPUT, as the message names it) holds
    text; stale or missing names the command that rewrites it. Returns 1 when it fails."""
    try:
        with open(path, encoding="utf-8") as f:
            current = f.read()
    except OSError:
        current = None
    if current == text:
        print("ok %d - %s is up to date" % (n, output))
        return 0
    print("not ok %d - %s is %s: run %s" % (n, output, "missing" if current is None else "out of date", regenerate))
    return 1
