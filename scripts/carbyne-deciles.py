#!/usr/bin/env python3
"""Job by job: where one policy's mean JCT departs from another's. Reads
DIR/<policy>/jobs.csv as `shepherd compare --out DIR` writes it, sorts the
jobs by their work (container-ms) and prints, per tenth of the jobs, the
mean work and every policy's mean JCT, and the summed JCT difference of
the last two named policies (s): where the gap between them lies.
Usage: carbyne-deciles.py DIR POLICY... (at least two)
"""
import csv
import statistics as st
import sys

d, pols = sys.argv[1], sys.argv[2:]
data = {p: {r["id"]: r for r in csv.DictReader(open(f"{d}/{p}/jobs.csv"))} for p in pols}
ids = sorted(data[pols[0]], key=lambda i: int(data[pols[0]][i]["work_ms"]))
n = len(ids)
jct = lambda p, i: int(data[p][i]["jct_ms"]) / 1000
a, b = pols[-2], pols[-1]
print(f"| tenth by work | jobs | mean work (container-s) | " + " | ".join(f"{p} mean JCT (s)" for p in pols) + f" | Σ ({b} − {a}) (s) |")
print("|---" * (len(pols) + 4) + "|")
for k in range(10):
    part = ids[k * n // 10 : (k + 1) * n // 10]
    w = st.mean(int(data[pols[0]][i]["work_ms"]) / 1000 for i in part)
    means = " | ".join(f"{st.mean(jct(p, i) for i in part):.0f}" for p in pols)
    diff = sum(jct(b, i) - jct(a, i) for i in part)
    print(f"| {k + 1} | {len(part)} | {w:.0f} | {means} | {diff:+.0f} |")
means = " | ".join(f"{st.mean(jct(p, i) for i in ids):.0f}" for p in pols)
print(f"| all | {n} | | {means} | {sum(jct(b, i) - jct(a, i) for i in ids):+.0f} |")
