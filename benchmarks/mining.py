"""Mining benchmark: planted recurring task kinds among one-off requests.

    python benchmarks/mining.py [--json] [--sizes 10000,100000] [--seed 0]

The corpus (``skillopt_sleep.mining.synthetic``) plants paraphrased task kinds with typos
and varying details, spread over sessions and 30 days, among one-off requests (40 %).
Reported per size: pairwise precision / recall / F1 of the clustering against the planted
kinds (one-offs count as singletons), the share of planted kinds found as recurring, the
number of false recurring clusters (a recurring cluster whose majority is one-off
requests), and the seconds taken by intent cleaning and by clustering. Default mining
settings throughout. Targets: F1 >= 0.9, no false recurring clusters, 100,000 turns < 60 s.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.metrics.cluster import pair_confusion_matrix  # noqa: E402

from benchmarks.requests.tuning import KINDS, corpus  # noqa: E402
from skillopt_sleep.config import defaults  # noqa: E402
from skillopt_sleep.mining.cluster import cluster_texts  # noqa: E402
from skillopt_sleep.mining.intents import intent  # noqa: E402
from skillopt_sleep.mining.pipeline import params_from  # noqa: E402


def run(n: int, seed: int) -> dict:
    p = params_from(defaults())
    reqs = corpus(n, seed=seed)
    t0 = time.perf_counter()
    norms = [intent(r.text)[1] for r in reqs]
    t1 = time.perf_counter()
    labels = cluster_texts(norms, p["cluster"])
    t2 = time.perf_counter()
    truth = [r.kind or f"one-off-{i}" for i, r in enumerate(reqs)]
    (tn, fp), (fn, tp) = pair_confusion_matrix(truth, labels) // 2
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    sessions, days, kinds = defaultdict(set), defaultdict(set), defaultdict(Counter)
    for r, lab in zip(reqs, labels, strict=True):
        sessions[lab].add(r.session_id)
        days[lab].add(r.day)
        kinds[lab][r.kind] += 1
    recurring = [
        lab
        for lab in sessions
        if len(sessions[lab]) >= p["min_sessions"] and len(days[lab]) >= p["min_days"]
    ]
    majority = {lab: kinds[lab].most_common(1)[0][0] for lab in recurring}
    false_recurring = sum(1 for lab in recurring if majority[lab] is None)
    planted = {r.kind for r in reqs if r.kind}
    found = {k for k in majority.values() if k}
    return {
        "turns": n,
        "planted_kinds": len(planted),
        "one_off_requests": sum(r.kind is None for r in reqs),
        "clusters": int(labels.max()) + 1 if len(labels) else 0,
        "recurring_clusters": len(recurring),
        "pairwise_precision": round(float(precision), 4),
        "pairwise_recall": round(float(recall), 4),
        "pairwise_f1": round(float(f1), 4),
        "planted_kinds_found_recurring": round(len(found) / max(1, len(planted)), 4),
        "false_recurring_clusters": false_recurring,
        "seconds_intents": round(t1 - t0, 2),
        "seconds_clustering": round(t2 - t1, 2),
        "seconds_total": round(t2 - t0, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated turn counts")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    results = [run(int(s), args.seed) for s in args.sizes.split(",")]
    out = {"benchmark": "mining", "kinds_available": len(KINDS), "results": results}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for r in results:
        print(
            f"{r['turns']:>7} turns: P {r['pairwise_precision']:.3f}  R {r['pairwise_recall']:.3f}"
            f"  F1 {r['pairwise_f1']:.3f}  kinds found {r['planted_kinds_found_recurring']:.0%}"
            f"  false recurring {r['false_recurring_clusters']}  recurring clusters "
            f"{r['recurring_clusters']}  time {r['seconds_total']:.1f} s "
            f"(intents {r['seconds_intents']:.1f} s, clustering {r['seconds_clustering']:.1f} s)"
        )


if __name__ == "__main__":
    main()
