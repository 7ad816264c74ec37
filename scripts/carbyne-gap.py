#!/usr/bin/env python3
"""Carbyne against SJF and DRF, per seed: reads the comparison.json that
`shepherd compare --seed S --policies drf,sjf,<carbyne variants> --out DIR/sS`
wrote for each seed and prints, per Carbyne variant, the median [min, max]
over the seeds of (mean JCT ÷ SJF's), (DRF's mean JCT ÷ its) and (its Jain's
index − DRF's), each a per-seed figure. Usage: carbyne-gap.py DIR/s1 DIR/s2 ...
"""
import json
import sys


def med(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def fmt(v, f):
    return f"{f(med(v))} [{f(min(v))}, {f(max(v))}]"


runs = []
for d in sys.argv[1:]:
    c = json.load(open(f"{d}/comparison.json"))
    runs.append({s["policy"]: (s["all"]["jct_ms"]["mean"], s["fairness"]["mean"]) for s in c["summaries"]})
policies = [p for p in runs[0] if p not in ("drf", "sjf")]
x = lambda v: f"{v:.2f}×"
j = lambda v: f"{v:+.3f}"
print(f"{len(runs)} seeds; median [min, max] of per-seed figures")
print()
print("| policy | mean JCT ÷ SJF's (bar ≤ 1.10×) | DRF's mean JCT ÷ its | Jain's index | Jain − DRF's (bar ≥ −0.060) |")
print("|---|---|---|---|---|")
for p in ["drf", "sjf"] + policies:
    ratio = [r[p][0] / r["sjf"][0] for r in runs]
    gain = [r["drf"][0] / r[p][0] for r in runs]
    jain = [r[p][1] for r in runs]
    dj = [r[p][1] - r["drf"][1] for r in runs]
    print(f"| {p} | {fmt(ratio, x)} | {fmt(gain, x)} | {fmt(jain, lambda v: f'{v:.3f}')} | {fmt(dj, j)} |")
