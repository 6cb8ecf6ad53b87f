"""Mining benchmark: planted recurring task kinds, in agent session logs and in request text.

    python benchmarks/mining.py              # sessions 300 and 2k (3 seeds), request text
    python benchmarks/mining.py --big        # also 100k sessions (seed 0) and 100k requests
    python benchmarks/mining.py --session-sizes 300 --session-generators heldout --no-requests

**Session corpora** (``benchmarks/sessions/``, see ``mining_sessions``): Claude Code and
Codex logs a generator writes, ingested by the real ingest and mined by the real ``mine``
(what was asked and what was done). ``tuning`` is the corpus the fingerprint was tuned on;
``heldout`` was written apart and measured before anyone tuned on it, and is tuning material
since its failures were read (2026-12-08); ``apart`` was written apart again (see
``benchmarks/sessions/APART.md``) and is the held-out one now. Reported per corpus:
pairwise P / R / F1, kinds found as one recurring cluster (and split over several), false
recurring clusters (those made of follow-ups mined as requests counted apart; a held-out
one-off template asked again is a recurring request, counted apart as well), recurring
clusters per user skill (the goal is one), ``mine``'s seconds and the mining process's
peak RSS. Targets (issue 39): F1 >= 0.9, every kind found, 0 false recurring clusters,
one recurring cluster per skill; 100k sessions mined in < 60 s and < 1 GB.

**Request-text corpora** (``benchmarks/requests/``): requests without sessions' work,
clustered as ``mine`` does; the small planted corpora (70-82 sessions, 8 kinds) come from
the held-out request generator. Reported: P / R / F1, kinds found, false recurring
clusters, seconds of intent cleaning and clustering, peak RSS. Targets (issue 39): no
worse than before the fingerprint (0 false recurring, P >= 0.9).

Every corpus is prepared and mined in child processes, so a peak RSS is that corpus'
mining alone; the load average is printed (the machine is shared). Everything measured
is written to ``benchmarks/results/mining_sessions.json`` (over the rows of the same corpus,
size and seed; other rows stay).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sklearn.metrics.cluster import pair_confusion_matrix  # noqa: E402

from benchmarks import mining_sessions  # noqa: E402
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


RESULTS = Path(__file__).resolve().parent / "results" / "mining_sessions.json"


def run_session_child(task: str, where: Path, *job: object) -> dict:
    """``prepare`` or ``mine`` one session corpus in a fresh process."""
    cmd = [sys.executable, __file__, "--session-child", task, str(where), *map(str, job)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"session corpus {task} {job} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def session_corpus(generator: str, n: int, seed: int, scratch: Path) -> dict:
    where = scratch / f"{generator}-{seed}-{n}"
    prepared = run_session_child("prepare", where, generator, seed, n)
    row = run_session_child("mine", where)
    shutil.rmtree(where, ignore_errors=True)
    return {"corpus": "sessions", "generator": generator, "seed": seed,
            "n_sessions": n, **prepared, **row}  # fmt: skip


def _row_key(r: dict) -> tuple:
    return (r["corpus"], r["generator"], r["seed"], r.get("n_sessions", r["requests"]))


def merged(results: list[dict]) -> list[dict]:
    """The results file's rows with this run's in place of those of the same corpus, size
    and seed: a run of a few corpora keeps the others' figures."""
    old = json.loads(RESULTS.read_text())["results"] if RESULTS.exists() else []
    new = {_row_key(r): r for r in results}
    kept = [new.pop(_row_key(r), r) for r in old]
    return kept + list(new.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--session-sizes", default="300,2000", help="comma-separated session counts")
    ap.add_argument("--session-seeds", type=int, default=3, help="seeds per session size")
    ap.add_argument("--session-generators", default="tuning,heldout,apart")
    ap.add_argument("--sizes", default="2000,20000", help="request counts of request corpora")
    ap.add_argument("--big", action="store_true", help="add 100k sessions and 100k requests")
    ap.add_argument("--generators", default="tuning,heldout", help="request corpora")
    ap.add_argument("--no-planted", action="store_true", help="skip the small planted corpora")
    ap.add_argument("--no-requests", action="store_true", help="only the session corpora")
    ap.add_argument("--no-sessions", action="store_true", help="only the request corpora")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--child", help=argparse.SUPPRESS)  # generator,size,seed: one corpus
    ap.add_argument("--session-child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        g, n, s = args.child.split(",")
        print(json.dumps(child(g, int(n), int(s))))
        return
    if args.session_child:
        task, where, *job = args.session_child
        if task == "prepare":
            out = mining_sessions.prepare(job[0], int(job[1]), int(job[2]), Path(where))
        else:
            out = mining_sessions.mine_and_score(Path(where))
        print(json.dumps(out))
        return
    load = os.getloadavg()
    results = []
    if not args.no_sessions:
        sizes = [int(s) for s in args.session_sizes.split(",") if s]
        jobs = [(g, n, s) for n in sizes for g in args.session_generators.split(",")
                for s in range(args.session_seeds)]  # fmt: skip
        jobs += [(g, 100_000, 0) for g in args.session_generators.split(",") if args.big]
        with tempfile.TemporaryDirectory(prefix="mining-bench-") as scratch:
            for job in jobs:
                results.append(session_corpus(*job, Path(scratch)))
                if not args.json:
                    _print_sessions(results[-1])
    if not args.no_requests:
        sizes = [int(s) for s in args.sizes.split(",") if s] + ([100_000] if args.big else [])
        jobs = [] if args.no_planted else [("planted", n, s) for s, n in PLANTED]
        jobs += [(g, n, args.seed) for n in sizes for g in args.generators.split(",")]
        for job in jobs:
            results.append({"corpus": "requests", **run_child(*job)})
            if not args.json:
                _print(results[-1])
    out = {"benchmark": "mining", "load_avg": load, "results": merged(results)}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2) + "\n")
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {RESULTS}")


def _print_sessions(r: dict) -> None:
    skills = r["recurring_per_skill"]
    print(
        f"{r['generator']:>8}#{r['seed']} {r['n_sessions']:>6} sess {r['requests']:>6} req:"
        f" P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f}"
        f"  kinds {r['kinds_found']}/{r['planted_kinds']} (split {r['kinds_split']})"
        f"  false recurring {r['false_recurring']} ({r['false_of_follow_ups']} of follow-ups)"
        f"  one-offs asked again {r.get('recurring_one_offs', 0)}"
        f"  per skill {min(skills.values(), default=0)}-{max(skills.values(), default=0)}"
        f"  mine {r['mining_seconds']:.1f} s (CPU {r['mining_cpu_seconds']:.1f} s)"
        f"  peak RSS {r['peak_rss_mb']} MB  load {r['load_avg_at_end'][0]:.1f}",
        flush=True,
    )


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
