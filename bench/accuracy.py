#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""accuracy.py: the sampled profile's estimates against the exact figures.

    accuracy.py GCACC LABEL EXACT_DUMP SAMPLED_DUMP...
    accuracy.py --bins CELLS

EXACT_DUMP is a run of the full profile (GC_ACC_PROFILE=full or trace,
exact per-object tags), each SAMPLED_DUMP a run of the same program with
the same arguments and heap in the sampled profile.  Reads each dump's
type and callsite rows with `GCACC export --jsonl types|sites` and
prints, per group (types, callsites): the totals, then every judged row
(at least SHARE of the exact live or allocated bytes, or among the TOP
largest by allocated bytes), with the exact bytes, the expected number
of samples (bytes / sample rate), the samples the runs took (mean),
1/sqrt(expected samples) (the error's expected size), the root mean
square and the mean of the runs' errors (the mean shows a bias), and
with 6 runs or fewer each run's error.  Live is at the last census; allocated over the session.
Then one summary line: median and worst |error| over the judged cells
(not the totals) of every run, and the root mean square of each error
times sqrt(expected samples) (about 1 when the errors are the size
their sample counts predict).  With ACCURACY_CELLS=FILE it appends
each judged cell and total (expected samples, error) to FILE; --bins
FILE then prints them by expected samples.  Environment:
ACCURACY_SHARE (percent, default 5), ACCURACY_TOP (default 10).  bench/accuracy.sh runs it.
"""

import gzip
import json
import math
import os
import subprocess
import sys


def header(dump):
    with gzip.open(dump, "rt") as f:
        return json.loads(f.readline())


def rows(gcacc, table, dump):
    """Per key (type name, or stack): live and live samples at the last
    row (the value at the last census: rows are written when they
    change), allocated bytes and samples summed over the records."""
    key = "name" if table == "types" else "stack"
    out = subprocess.run([gcacc, "export", "--no-progress", "--jsonl", table,
                          dump], check=True, capture_output=True, text=True)
    got, last_gc = {}, 0
    for line in out.stdout.splitlines():
        r = json.loads(line)
        k = r[key] or "(stack unknown)"
        g = got.setdefault(k, {"live": 0, "alloc": 0, "s_live": 0,
                               "s_alloc": 0})
        g["live"] = r["live_bytes"]
        g["s_live"] = r["samples_live"]
        g["alloc"] += r["alloc_bytes"]
        g["s_alloc"] += r["samples_alloc"]
        last_gc = max(last_gc, r["gc_no"])
    return got, last_gc


def census(gcacc, dump):
    """The exact live bytes of every object at the last census (the
    class rows: exact in every profile), and that census's gc_no; None
    when the dump has no census."""
    out = subprocess.run([gcacc, "top", "--no-progress", "--group", "class",
                          "-n", "1", "--json", dump],
                         capture_output=True, text=True)
    if out.returncode != 0:
        if "no collection with a census" in out.stderr:
            return None, None
        sys.exit("accuracy.py: gcacc top failed on %s: %s"
                 % (dump, out.stderr.strip()))
    at = json.loads(out.stdout)["at"][0]
    return at["total_live_bytes"], at["gc_no"]


def mib(b):
    return "%.1f MiB" % (b / 1048576) if b >= 1048576 else \
        "%.0f KiB" % (b / 1024)


def median(v):
    v = sorted(v)
    n = len(v)
    if n == 0:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def short(k, table):
    """The innermost frame of a stack; a type's name as it is."""
    return k.split(" < ")[0] if table == "sites" else k


def bins(path):
    """The cells of every workload (ACCURACY_CELLS lines: expected
    samples, error), by expected samples."""
    cells = []
    with open(path) as f:
        for line in f:
            n, e = line.split()
            cells.append((float(n), abs(float(e))))
    print("all workloads: |error| by expected samples (rows and totals, "
          "every run)")
    print("  %-15s %6s %8s %8s %8s %10s" % ("expected samples", "cells",
                                           "median", "p90", "worst",
                                           "1/sqrt(n)"))
    for lo, hi in ((0, 10), (10, 100), (100, 1000), (1000, float("inf"))):
        a = sorted(e for n, e in cells if lo <= n < hi)
        if not a:
            continue
        p = [1 / math.sqrt(n) for n, e in cells if lo <= n < hi and n > 0]
        print("  %-16s %6d %7.1f%% %7.1f%% %7.1f%% %9.1f%%" % (
            "%d-%d" % (lo, hi) if hi != float("inf") else ">= %d" % lo,
            len(a), 100 * median(a), 100 * a[math.ceil(0.9 * len(a)) - 1],
            100 * a[-1], 100 * median(p) if p else float("inf")))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--bins":
        bins(sys.argv[2])
        return
    if len(sys.argv) < 5:
        sys.exit("usage: accuracy.py GCACC LABEL EXACT_DUMP SAMPLED_DUMP...")
    gcacc, label, exact_dump = sys.argv[1:4]
    sampled = sys.argv[4:]
    share = float(os.environ.get("ACCURACY_SHARE", "5")) / 100
    top = int(os.environ.get("ACCURACY_TOP", "10"))
    h = header(sampled[0])["config"]
    if h.get("profile") != "sampled":
        sys.exit("accuracy.py: %s is not a sampled profile" % sampled[0])
    if header(exact_dump)["config"].get("profile") not in ("full", "trace"):
        sys.exit("accuracy.py: %s is not a full profile" % exact_dump)
    rate = h["sample_bytes"]
    runs = len(sampled)
    print("%s: %d sampled run%s at one sample per %s against the full "
          "profile" % (label, runs, "" if runs == 1 else "s", mib(rate)))
    # The runs' own exact live heaps: a conservative collector retains a
    # little more or less from run to run (stale words on the stack), so
    # the exact run's live figures are the truth only up to that.
    c_ex, c_gc = census(gcacc, exact_dump)
    if c_ex is None:
        print("  no census in the exact run: nothing to compare (run "
              "longer)")
        return
    c_s = [census(gcacc, d)[0] or 0 for d in sampled]
    d = [100 * (c / c_ex - 1) for c in c_s]
    print("  census live at gc %d (exact, all objects): %s in the exact run;"
          " the sampled runs' own: %s" % (
              c_gc, mib(c_ex), " ".join("%+.1f%%" % x for x in d)
              if runs <= 6 else "%+.1f%% to %+.1f%%" % (min(d), max(d))))
    cells = []                  # (|error|, expected samples) of judged cells
    keep = []                   # (expected samples, error), totals too
    for table in ("types", "sites"):
        ex, ex_gc = rows(gcacc, table, exact_dump)
        est = [rows(gcacc, table, d) for d in sampled]
        if not ex:
            print("\n  %s: none in the exact run" % table)
            continue
        for _, gc in est:
            if gc != ex_gc:
                print("  warning: %s: last census gc %d, exact run's gc %d"
                      % (table, gc, ex_gc))
        tot = {m: sum(g[m] for g in ex.values()) for m in ("live", "alloc")}
        by_alloc = sorted(ex, key=lambda k: -ex[k]["alloc"])
        judged = []
        for k in by_alloc:
            ms = [m for m in ("live", "alloc")
                  if tot[m] > 0 and ex[k][m] >= share * tot[m]]
            if k in by_alloc[:top] and "alloc" not in ms:
                ms.append("alloc")
            if ms:
                judged.append((k, ms))
        print("\n  %s (%d in the exact run; live at gc %d, allocated over "
              "the session)" % (table, len(ex), ex_gc))
        print("  %-26s %-5s %10s %6s %8s %8s %7s %7s %7s%s" % (
            "", "", "exact", "share", "exp.smp", "samples", "1/sqrt",
            "rms err", "mean", "  error of each run" if runs <= 6 else ""))

        def line(name, m, exact, total, s_taken, errs):
            n = exact / rate
            print("  %-26s %-5s %10s %5.1f%% %8.0f %8.0f %6.1f%% %6.1f%% "
                  "%+6.1f%%%s" % (
                      name[:26], m, mib(exact),
                      100 * exact / total if total else 0, n, s_taken,
                      100 / math.sqrt(n) if n > 0 else float("inf"),
                      100 * math.sqrt(sum(e * e for e in errs) / len(errs)),
                      100 * sum(errs) / len(errs),
                      "  " + " ".join("%+6.1f%%" % (100 * e) for e in errs)
                      if runs <= 6 else ""))

        for m in ("live", "alloc"):
            if tot[m] == 0:
                continue
            e_tot = [sum(g[m] for g in r.values()) for r, _ in est]
            s_tot = [sum(g["s_" + m] for g in r.values()) for r, _ in est]
            errs = [e / tot[m] - 1 for e in e_tot]
            line("total", m, tot[m], tot[m], sum(s_tot) / runs, errs)
            if table == "types":
                keep += [(tot[m] / rate, x) for x in errs]
        names = [short(k, table) for k, _ in judged]
        for (k, ms), name in zip(judged, names):
            if names.count(name) > 1:   # stacks that share their inner frame
                name = "%s (%s)" % (name, 1 + by_alloc.index(k))
            for m in ms:
                e = [r.get(k, {}).get(m, 0) for r, _ in est]
                s = [r.get(k, {}).get("s_" + m, 0) for r, _ in est]
                errs = [x / ex[k][m] - 1 for x in e]
                line(name, m, ex[k][m], tot[m], sum(s) / runs, errs)
                cells += [(abs(x), ex[k][m] / rate) for x in errs]
                keep += [(ex[k][m] / rate, x) for x in errs]
    if cells:
        a = [c[0] for c in cells]
        big = [c[0] for c in cells if c[1] >= 100]
        # Each error in units of its expected size, 1/sqrt(n): about 1 if
        # the estimates are as good as their sample counts allow.
        z = math.sqrt(sum(e * e * n for e, n in cells) / len(cells))
        print("\n  summary %s: |error| median %.1f%%, worst %.1f%% over %d "
              "cells (rows x runs; expected samples %.0f to %.0f)" % (
                  label, 100 * median(a), 100 * max(a), len(a),
                  min(c[1] for c in cells), max(c[1] for c in cells)), end="")
        if big:
            print("; with >= 100 expected samples: median %.1f%%, worst "
                  "%.1f%% over %d" % (100 * median(big), 100 * max(big),
                                      len(big)), end="")
        print("; rms of error x sqrt(expected samples) %.2f" % z)
    if os.environ.get("ACCURACY_CELLS"):
        with open(os.environ["ACCURACY_CELLS"], "a") as f:
            for n, e in keep:
                f.write("%g %g\n" % (n, e))


if __name__ == "__main__":
    main()
