#!/usr/bin/env bash
# How much of their DRF share Carbyne's jobs leave to others (Carbyne §2.2:
# "50 % of the time, at least 20 % of the allocated resources could be used
# as leftover" on Microsoft's DAGs). Simulates one workload under `carbyne`
# with the plan events on (RUST_LOG=shepherd::policy::carbyne=debug) and
# prints, over every plan (Pseudocode 1's INTRAJOBSCHEDULER run):
#   * yielded ÷ share per plan (L_k ÷ A_k as dominant shares): quantiles and
#     the fraction of plans yielding at least 20 %;
#   * the cluster-wide fraction at each instant plans were made: Σ L_k ÷
#     Σ A_k over every app's latest plan (an app counts from its first plan
#     to its last), its quantiles over those instants.
# Usage: scripts/carbyne-leftover.sh [simulate args...]
#   default: --generate tpcds --nodes 100 --seed 1
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${NOBUILD:-}" ] || cargo build --release --quiet --bin shepherd
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--generate tpcds --nodes 100 --seed 1)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
RUST_LOG=shepherd::policy::carbyne=debug ./target/release/shepherd simulate "${args[@]}" --policy carbyne --no-progress 2>"$log" | tail -n 2
python3 - "$log" <<'EOF'
import re, sys
plans = []
pat = re.compile(r"carbyne plan app=(\d+) now_ms=(-?\d+) .* share=([0-9.e-]+) yielded=([0-9.e-]+)")
for line in open(sys.argv[1]):
    m = pat.search(line)
    if m:
        plans.append((int(m.group(2)), int(m.group(1)), float(m.group(3)), float(m.group(4))))
if not plans:
    sys.exit("no carbyne plan events in the log")
def q(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]
ratio = [y / s for (_, _, s, y) in plans if s > 0]
print(f"plans: {len(plans)}")
print("yielded / share per plan: P25 %.3f  P50 %.3f  P75 %.3f  P90 %.3f" % tuple(q(ratio, p) for p in (0.25, 0.5, 0.75, 0.9)))
print("plans yielding >= 20 %% of their share: %.1f %%" % (100 * sum(r >= 0.2 for r in ratio) / len(ratio)))
last_plan = {}
for i, (t, a, _, _) in enumerate(plans):
    last_plan[a] = i
latest, series = {}, []
for i, (t, a, s, y) in enumerate(plans):
    latest[a] = (s, y)
    nxt = plans[i + 1][0] if i + 1 < len(plans) else None
    if nxt != t:
        S = sum(v[0] for v in latest.values())
        Y = sum(v[1] for v in latest.values())
        if S > 0:
            series.append(Y / S)
        # Apps whose last plan has passed no longer hold a share.
        for b in [b for b in latest if last_plan[b] <= i]:
            del latest[b]
print("cluster-wide Σ yielded / Σ share at planning instants: P25 %.3f  P50 %.3f  P75 %.3f" % tuple(q(series, p) for p in (0.25, 0.5, 0.75)))
print("instants with >= 20 %% yielded: %.1f %%" % (100 * sum(r >= 0.2 for r in series) / len(series)))
EOF
