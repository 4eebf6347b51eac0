#!/usr/bin/env python3
"""Prints run.sh's tables and target summary from the raw key=value results.

    tools/bench/report.py RESULTS_DIR

RESULTS_DIR holds `machine` and one directory per input with the outputs of bench_parse and
bench_ref (our_cold.N, ref_cold.N, our_warm.N, ref_warm.N, our_tobin.1, ref_tobin.1, compare).
Exit status: 0 when every measured target is met, 3 when one is not, 1 on missing data.
"""
import os
import statistics
import sys

NOMINAL_REF_MBS = 110.0  # the figure for onnx 1.12, used only when no reference ran
TARGETS = [("node-heavy", 10.0), ("tensor-heavy", 5.0)]
RSS_TARGET = 3.0


def kv(path):
    d = {}
    with open(path) as f:
        for line in f:
            k, sep, v = line.strip().partition("=")
            if sep:
                d[k] = v
    return d


def runs(dirpath, prefix):
    """The results of prefix.1, prefix.2, ... in run order (ours and the reference's run i
    ran back to back)."""
    files = [f for f in os.listdir(dirpath) if f.startswith(prefix + ".") and f.split(".")[-1].isdigit()]
    files.sort(key=lambda f: int(f.split(".")[-1]))
    return [kv(os.path.join(dirpath, f)) for f in files]


class Row:
    """One measurement: times (s) of the runs, the bytes parsed, peak RSS (KiB) if any."""

    def __init__(self, label, times, nbytes, rss_kb=None):
        self.label, self.times, self.nbytes, self.rss_kb = label, times, nbytes, rss_kb

    def mbs(self):  # median throughput
        return self.nbytes / 1e6 / statistics.median(self.times)

    def best(self):
        return self.nbytes / 1e6 / min(self.times)

    def ratio(self, ref):
        """Speed relative to ref: the median of the per-pair ratios when both have the same
        number of runs (run i of each ran back to back), else the ratio of the medians."""
        if len(self.times) == len(ref.times):
            return statistics.median(r / o for o, r in zip(self.times, ref.times)) * self.nbytes / ref.nbytes
        return self.mbs() / ref.mbs()

    def mad(self):  # median absolute deviation of the times, in percent of the median
        m = statistics.median(self.times)
        return 100.0 * statistics.median(abs(t - m) for t in self.times) / m

    def worst(self):  # slowest run, in percent over the median
        m = statistics.median(self.times)
        return 100.0 * (max(self.times) - m) / m


def load(d):
    """Rows of one input directory, keyed by (who, what)."""
    rows = {}
    for who in ("our", "ref"):
        cold = runs(d, who + "_cold")
        if cold:
            n = int(cold[0]["bytes"])
            rows[who, "cold"] = Row(who, [float(r["parse_s"]) for r in cold], n,
                                    statistics.median(int(r["maxrss_kb"]) for r in cold))
            rows[who, "nodes"] = int(cold[0]["nodes"])
        warm = runs(d, who + "_warm")
        if warm:
            rows[who, "warm"] = Row(who, [float(r["best_s"]) for r in warm], int(warm[0]["bytes"]))
        tob = runs(d, who + "_tobin")
        if tob and (who, "cold") in rows:
            times = [float(t["run%d_s" % i]) for t in tob for i in range(int(t["runs"]))]
            rss = statistics.median(float(t["run%d_maxrss_kb" % i]) for t in tob for i in range(int(t["runs"])))
            rows[who, "tobin"] = Row(who, times, rows[who, "cold"].nbytes, rss)
    return rows


def fmt_rss(row):
    if row.rss_kb is None:
        return "%10s %9s" % ("-", "-")
    b = row.rss_kb * 1024
    return "%7.1f MB %8.2fx" % (b / 1e6, b / row.nbytes)


def table(name, rows, compare, out):
    our = rows[("our", "cold")]
    ident = compare.get("identical")
    out.append("== %s: %.2f MB of text, %d nodes -> %.2f MB binary%s" % (
        name, our.nbytes / 1e6, rows[("our", "nodes")], int(compare.get("bytes_out", 0)) / 1e6,
        "" if ident is None else "; binary identical to the reference's: %s" % ident))
    out.append("%-26s %4s %8s %8s %6s %6s %8s %10s %9s"
               % ("", "runs", "MB/s", "best", "MAD", "worst", "x ref", "peak RSS", "RSS/input"))
    labels = [(("our", "cold"), "our parse, cold"), (("our", "warm"), "our parse, warm"),
              (("ref", "cold"), "ref parse, cold"), (("ref", "warm"), "ref parse, warm"),
              (("our", "tobin"), "our to-binary, end-to-end"), (("ref", "tobin"), "ref to-binary, end-to-end")]
    for key, label in labels:
        row = rows.get(key)
        if row is None:
            continue
        ref = rows.get(("ref", key[1]))
        ratio = "%7.2fx" % row.ratio(ref) if ref else "%8s" % "n/a"
        out.append("%-26s %4d %8.1f %8.1f %5.1f%% %5.0f%% %s %s" % (
            label, len(row.times), row.mbs(), row.best(), row.mad(), row.worst(), ratio, fmt_rss(row)))
    if ("ref", "cold") in rows and rows[("ref", "cold")].mbs() < NOMINAL_REF_MBS / 2:
        out.append("(note: the reference ran at %.0f MB/s here, the issue quotes ~%.0f MB/s)"
                   % (rows[("ref", "cold")].mbs(), NOMINAL_REF_MBS))
    out.append("")


def speed_target(name, factor, all_rows):
    rows = all_rows.get(name)
    head = "target: %s parse >= %gx the reference (cold): " % (name, factor)
    if rows is None:
        return head + "not measured (preset not run)", None
    our = rows[("our", "cold")]
    ref = rows.get(("ref", "cold"))
    if ref:
        ratio, refmbs, src = our.ratio(ref), ref.mbs(), "onnx 1.12 measured side by side"
    else:
        ratio, refmbs, src = our.mbs() / NOMINAL_REF_MBS, NOMINAL_REF_MBS, "the issue's nominal figure; no reference built"
    warm = ""
    if ("our", "warm") in rows and ("ref", "warm") in rows:
        warm = "; warm %.2fx" % rows[("our", "warm")].ratio(rows[("ref", "warm")])
    ok = ratio >= factor
    return (head + "%s, %.1f vs %.1f MB/s (%s) = %.2fx%s"
            % ("met" if ok else "NOT met", our.mbs(), refmbs, src, ratio, warm)), ok


def rss_target(all_rows):
    parts, ok = [], True
    for what, key in (("parse", ("our", "cold")), ("to-binary", ("our", "tobin"))):
        items = []
        for name, rows in all_rows.items():
            row = rows.get(key)
            if row is None or row.rss_kb is None:
                continue
            x = row.rss_kb * 1024 / row.nbytes
            ok = ok and x <= RSS_TARGET
            items.append("%s %.2fx" % (name, x))
        parts.append("%s: %s" % (what, ", ".join(items)))
    return ("target: peak RSS <= %gx the input (our parse process, our to-binary process): %s; %s"
            % (RSS_TARGET, "met" if ok else "NOT met", "; ".join(parts))), ok


def baselines(res, machine):
    """Peak RSS of the processes before they read any input: the floor under RSS/input."""
    parts = []
    first = machine.get("presets", "").split()[:1]
    for who, label in (("our", "bench_parse"), ("ref", "bench_ref")):
        cold = runs(os.path.join(res, first[0]), who + "_cold") if first else []
        if cold and "baseline_kb" in cold[0]:
            parts.append("%s %.1f MB" % (label, int(cold[0]["baseline_kb"]) * 1024 / 1e6))
    cli = os.path.join(res, "baseline_cli")
    if os.path.exists(cli):
        parts.append("onnxtxt --version %.1f MB" % (float(kv(cli)["maxrss_kb"]) * 1024 / 1e6))
    return "peak RSS before reading input: " + ", ".join(parts)


MACHINE_KEYS = ("cpu", "cores", "hypervisor", "thp", "kernel", "cc", "commit", "onnxtxt", "ref", "outdir", "loadavg",
                "pressure", "memavail", "settings")


def machine_lines(machine, keys=MACHINE_KEYS, ratios="'x ref'"):
    """The header: the machine and its load, with a warning when the CPU was contended."""
    out = ["  %-10s %s" % (k, machine.get(k, "?")) for k in keys]
    try:
        busy = float(machine.get("cpu_psi_after", ""))
    except ValueError:
        busy = 0.0
    if busy > 20:
        out.append("  WARNING: other processes competed for the CPU during the run (PSI cpu %.0f%%): absolute MB/s"
                   % busy)
        out.append("  are unreliable; the paired %s ratios much less so. Rerun on a quiet machine." % ratios)
    return out


def main():
    res = sys.argv[1]
    machine = kv(os.path.join(res, "machine"))
    out = ["onnxtxt parse benchmark", ""] + machine_lines(machine)
    out.append("  %-10s %s" % ("baseline", baselines(res, machine)))
    out += ["  (MB/s = 10^6 bytes of text per second, median over runs (warm: over processes, each the best of",
            "   its parses); best = fastest run; MAD = median absolute deviation of the run times / median;",
            "   worst = slowest run over the median; x ref = speed vs the reference's same kind of row, the",
            "   median of the ratios of back-to-back pairs of runs (robust to load changing during the run);",
            "   peak RSS = ru_maxrss of the process (median), including the text buffer)", ""]
    all_rows = {}
    for name in machine.get("presets", "").split():
        d = os.path.join(res, name)
        if not os.path.isdir(d):
            print("report.py: no results for %s" % name, file=sys.stderr)
            return 1
        all_rows[name] = load(d)
        compare = kv(os.path.join(d, "compare")) if os.path.exists(os.path.join(d, "compare")) else {}
        table(name, all_rows[name], compare, out)
    verdicts = []
    for name, factor in TARGETS:
        line, ok = speed_target(name, factor, all_rows)
        out.append(line)
        verdicts.append(ok)
    line, ok = rss_target(all_rows)
    out.append(line)
    verdicts.append(ok)
    print("\n".join(out))
    return 3 if False in verdicts else 0


if __name__ == "__main__":
    sys.exit(main())
