"""Mining benchmark: planted recurring task kinds among one-off requests, on two corpora.

    python benchmarks/mining.py              # small planted corpora + 2k and 20k (minutes)
    python benchmarks/mining.py --big        # also 100k requests
    python benchmarks/mining.py --sizes 2000 --generators heldout --json

Generators (``benchmarks/requests/``): ``tuning``, the corpus mining's parameters were
chosen on (with the user's filler and Zipf-sized kinds), and ``heldout``, written apart and
never used to choose anything. The small planted corpora (70-82 sessions, 8 kinds) all
come from the held-out generator.

Each corpus is mined in a child process, so the peak RSS reported is that size's alone.
Reported: pairwise precision / recall / F1 against the planted kinds (one-offs count as
singletons), planted kinds found as a recurring cluster, false recurring clusters (a
recurring cluster whose requests are mostly one-offs: a night spent training on noise),
the seconds of intent cleaning and clustering (wall, and CPU seconds, steadier on a busy
machine: the load average is printed), and the child's peak RSS. Targets (issue
9): no false recurring clusters on held-out corpora; F1 >= 0.90 on every small planted
corpus and >= 0.85 at scale; 100k requests in < 60 s and < 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.metrics.cluster import pair_confusion_matrix  # noqa: E402

from benchmarks.requests import Request, heldout, tuning  # noqa: E402

PLANTED = [(seed, 70 + 3 * seed) for seed in range(5)]  # (seed, sessions): 70..82 sessions


def corpus(generator: str, size: int, seed: int) -> list[Request]:
    if generator == "planted":
        return heldout.planted_sessions(size, seed=seed)
    if generator == "heldout":
        return heldout.corpus(size, seed=seed)
    if generator == "tuning-small":  # for tuning small corpora; not reported
        return tuning.corpus(size, seed=seed, kinds=8, turns_per_session=2, habit_rate=0.3,
                             zipf=True, hard=True)  # fmt: skip
    return tuning.corpus(size, seed=seed, habit_rate=0.3, zipf=True, hard=True)


def score(reqs: list[Request], labels, norms: list[str], min_sessions: int, min_days: int) -> dict:
    """Pairwise quality against the planted kinds, and recurring clusters right or false
    (recurring as mining decides it, on the normalized texts)."""
    from skillopt_sleep.mining.pipeline import is_recurring

    truth = [r.kind or f"one-off-{i}" for i, r in enumerate(reqs)]
    (_, fp), (fn, tp) = pair_confusion_matrix(truth, labels) // 2
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    members, kinds = defaultdict(list), defaultdict(Counter)
    for i, (r, lab) in enumerate(zip(reqs, labels, strict=True)):
        members[lab].append(i)
        kinds[lab][r.kind] += 1
    recurring = [
        lab
        for lab, idx in members.items()
        if is_recurring(
            [norms[i] for i in idx],
            [reqs[i].session_id for i in idx],
            [str(reqs[i].day) for i in idx],
            min_sessions,
            min_days,
        )
    ]
    majority = {lab: kinds[lab].most_common(1)[0][0] for lab in recurring}
    planted = {r.kind for r in reqs if r.kind}
    found = {k for k in majority.values() if k}
    return {
        "requests": len(reqs),
        "sessions": len({r.session_id for r in reqs}),
        "planted_kinds": len(planted),
        "one_offs": sum(r.kind is None for r in reqs),
        "recurring_clusters": len(recurring),
        "precision": round(float(precision), 4),
        "recall": round(float(recall), 4),
        "f1": round(float(f1), 4),
        "kinds_found": len(found),
        "false_recurring": sum(1 for lab in recurring if majority[lab] is None),
    }


def _cpu() -> float:
    """CPU seconds of this process: steadier than wall time on a shared machine."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def mine_labels(reqs: list[Request]) -> tuple[list[int], list[str], dict]:
    """What ``mine`` does to a corpus' requests, without the store: clean, then group."""
    from skillopt_sleep.mining.cluster import cluster_texts
    from skillopt_sleep.mining.intents import intent
    from skillopt_sleep.mining.pipeline import params_from
    from skillopt_sleep.settings.config import defaults

    p = params_from(defaults())
    c0, t0 = _cpu(), time.perf_counter()
    norms = [intent(r.text)[1] for r in reqs]
    t1 = time.perf_counter()
    labels = cluster_texts(norms, p["cluster"])
    c2, t2 = _cpu(), time.perf_counter()
    timing = {"seconds_intents": round(t1 - t0, 2), "seconds_clustering": round(t2 - t1, 2),
              "cpu_seconds": round(c2 - c0, 2)}  # fmt: skip
    return (
        list(labels),
        norms,
        {**timing, "min_sessions": p["min_sessions"], "min_days": p["min_days"]},
    )


def child(generator: str, size: int, seed: int) -> dict:
    """Generate one corpus, mine it, score it; RSS figures are this process's."""
    reqs = corpus(generator, size, seed)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    labels, norms, info = mine_labels(reqs)
    row = score(reqs, labels, norms, info.pop("min_sessions"), info.pop("min_days"))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"generator": generator, "seed": seed, **row, **info,
            "peak_rss_mb": round(rss), "rss_before_mining_mb": round(rss_before)}  # fmt: skip


def run_child(generator: str, size: int, seed: int) -> dict:
    """One corpus in a fresh process: its peak RSS is not inflated by earlier sizes."""
    cmd = [sys.executable, __file__, "--child", f"{generator},{size},{seed}"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"mining {generator} {size} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--sizes", default="2000,20000", help="comma-separated request counts")
    ap.add_argument("--big", action="store_true", help="add 100,000 requests")
    ap.add_argument("--generators", default="tuning,heldout", help="tuning and/or heldout")
    ap.add_argument("--no-planted", action="store_true", help="skip the small planted corpora")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", help=argparse.SUPPRESS)  # generator,size,seed: one corpus
    args = ap.parse_args()
    if args.child:
        g, n, s = args.child.split(",")
        print(json.dumps(child(g, int(n), int(s))))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s] + ([100_000] if args.big else [])
    jobs = [] if args.no_planted else [("planted", n, s) for s, n in PLANTED]
    jobs += [(g, n, args.seed) for n in sizes for g in args.generators.split(",")]
    load = os.getloadavg()
    results = []
    for job in jobs:
        results.append(run_child(*job))
        if not args.json:
            _print(results[-1])
    if args.json:
        print(json.dumps({"benchmark": "mining", "load_avg": load, "results": results}, indent=2))
    else:
        print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def _print(r: dict) -> None:
    name = f"{r['generator']}{'#' + str(r['seed']) if r['generator'] == 'planted' else ''}"
    print(
        f"{name:>10} {r['requests']:>7} req {r['sessions']:>6} sess: P {r['precision']:.3f}"
        f" R {r['recall']:.3f} F1 {r['f1']:.3f}  kinds {r['kinds_found']}/{r['planted_kinds']}"
        f"  false recurring {r['false_recurring']:>3}  recurring {r['recurring_clusters']:>3}"
        f"  {r['seconds_intents'] + r['seconds_clustering']:6.1f} s"
        f" (clustering {r['seconds_clustering']:.1f} s, CPU {r['cpu_seconds']:.1f} s)"
        f"  peak RSS {r['peak_rss_mb']} MB",
        flush=True,
    )


if __name__ == "__main__":
    main()
