#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dumpstats.py: numbers the benchmarks take from gcacc dump files.

    bench/dumpstats.py DUMP.gz [DUMP.gz ...]

The files are one run's dumps (a forking program writes one per process,
GC_ACC_DUMP=...-%p.gz).  Prints one line of key=value pairs, no spaces:

  files, bytes         number of files, their compressed bytes
  raw                  their uncompressed bytes
  colls                "collection" records
  dropped              sum of the records' "dropped" fields
  sites, types         call stacks and types defined ("sites", "types")
  tagrecs              collection records carrying type_rows or site_rows
                       (0: tags were off)
  siterows, typerows   mean rows per collection record
  heap_peak            the largest heap.heap_bytes of any record
  acc_at_peak          acc_memory_bytes of that record (the first such)
  peak_ratio           acc_at_peak / heap_peak
  max_ratio            the largest acc_memory_bytes / heap.heap_bytes of
                       any record (collection or snapshot)
  acc_max              the largest acc_memory_bytes
  acc_ratio            acc_max / heap_peak (the tables may grow after the
                       heap has peaked)
  side_max             the largest sum of acc_memory's tags_bytes,
                       sites_bytes and samples_bytes: the side tables that
                       GC_ACC_TABLE_LIMIT caps (type and pair rows, record
                       buffers and counters are the rest of acc_memory)
  side_ratio           side_max / heap_peak
  census_share         sum of census_ns over sum of mark_ns, collection
                       records with a census
  census_share_p90     the 90th percentile of those records' own
                       census_ns / mark_ns

Over several files heap_peak/acc_at_peak come from the file whose record
has the largest heap, max_ratio is the largest of any file.  Fields that
no record had are printed as -.  Exits 1 if a file cannot be read; a
truncated gzip stream (a process killed) is read up to its last whole line.
"""

import gzip
import json
import os
import sys
import zlib


def lines(path):
    """Whole lines of a gzip file, tolerating a missing trailer."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    buf = b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                break
            try:
                buf += d.decompress(chunk)
            except zlib.error:
                break
            *whole, buf = buf.split(b"\n")
            for ln in whole:
                yield ln
    try:
        buf += d.flush()
    except zlib.error:
        pass
    for ln in buf.split(b"\n"):
        if ln:
            yield ln


def percentile(values, q):
    """The q-quantile of values (nearest rank)."""
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * len(v) + 0.5)) - 1))]


def main(paths):
    s = dict(files=0, bytes=0, raw=0, colls=0, dropped=0, sites=0, types=0,
             tagrecs=0, siterows_sum=0, typerows_sum=0)
    heap_peak = None
    acc_at_peak = None
    max_ratio = None
    acc_max = None
    side_max = None
    mark_sum = census_sum = 0
    shares = []
    for p in paths:
        try:
            s["bytes"] += os.path.getsize(p)
            s["files"] += 1
            for ln in lines(p):
                s["raw"] += len(ln) + 1
                try:
                    r = json.loads(ln)
                except ValueError:
                    continue
                kind = r.get("record")
                s["sites"] += len(r.get("sites") or [])
                s["types"] += len(r.get("types") or [])
                s["dropped"] += r.get("dropped", 0) or 0
                if kind == "collection":
                    s["colls"] += 1
                    sr = r.get("site_rows")
                    tr = r.get("type_rows")
                    if sr is not None or tr is not None:
                        s["tagrecs"] += 1
                    s["siterows_sum"] += len(sr or [])
                    s["typerows_sum"] += len(tr or [])
                    mark = r.get("mark_ns") or 0
                    if r.get("census") and mark > 0:
                        census = r.get("census_ns") or 0
                        mark_sum += mark
                        census_sum += census
                        shares.append(census / mark)
                acc = r.get("acc_memory_bytes")
                heap = (r.get("heap") or {}).get("heap_bytes")
                if acc is None or not heap:
                    continue
                if acc_max is None or acc > acc_max:
                    acc_max = acc
                am = r.get("acc_memory") or {}
                side = sum(am.get(f) or 0 for f in
                           ("tags_bytes", "sites_bytes", "samples_bytes"))
                if side_max is None or side > side_max:
                    side_max = side
                ratio = acc / heap
                if max_ratio is None or ratio > max_ratio:
                    max_ratio = ratio
                if heap_peak is None or heap > heap_peak:
                    heap_peak, acc_at_peak = heap, acc
        except OSError as e:
            print("dumpstats: %s: %s" % (p, e), file=sys.stderr)
            return 1
    n = s["colls"]
    out = [
        "files=%d" % s["files"], "bytes=%d" % s["bytes"], "raw=%d" % s["raw"],
        "colls=%d" % n, "dropped=%d" % s["dropped"],
        "sites=%d" % s["sites"], "types=%d" % s["types"],
        "tagrecs=%d" % s["tagrecs"],
        "siterows=%s" % ("%.1f" % (s["siterows_sum"] / n) if n else "-"),
        "typerows=%s" % ("%.1f" % (s["typerows_sum"] / n) if n else "-"),
        "heap_peak=%s" % ("-" if heap_peak is None else heap_peak),
        "acc_at_peak=%s" % ("-" if acc_at_peak is None else acc_at_peak),
        "peak_ratio=%s" % ("-" if heap_peak is None
                           else "%.4f" % (acc_at_peak / heap_peak)),
        "max_ratio=%s" % ("-" if max_ratio is None else "%.4f" % max_ratio),
        "acc_max=%s" % ("-" if acc_max is None else acc_max),
        "acc_ratio=%s" % ("-" if heap_peak is None or acc_max is None
                          else "%.4f" % (acc_max / heap_peak)),
        "side_max=%s" % ("-" if side_max is None else side_max),
        "side_ratio=%s" % ("-" if heap_peak is None or side_max is None
                           else "%.4f" % (side_max / heap_peak)),
        "census_share=%s" % ("%.4f" % (census_sum / mark_sum)
                             if mark_sum else "-"),
        "census_share_p90=%s" % ("%.4f" % percentile(shares, 0.9)
                                 if shares else "-"),
    ]
    print(",".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
