"""Judges on a held-out user who corrects the agent (``benchmarks/users/heldout.py``, written
apart from mining and never tuned on): measurement only.

    python benchmarks/judges_user.py --seed 0            # grammar alone
    python benchmarks/judges_user.py --seed 0 --model    # + the embedded judge model

Reported, from the generator's ground truth of every turn:

* recognition: each follow-up's role (correction, ack, request, other) against what
  ``followups.classify`` reads it as;
* per correction: the checks compiled and kept by the session's own pair (the answer it
  corrected fails, the one accepted passes), then ``right`` (every answer corrected for the
  same rules fails them), ``wrong`` (an answer the user accepted for the kind fails one),
  ``partial`` or ``none``; per house rule as well;
* the mined recurring clusters: tasks per split, the judges kept (built from the user's
  words) and the ones verification dropped, with the reason; which roles of turn ended up
  in a recurring cluster (a correction there is a correction clustered as a request).

The JSON goes to ``benchmarks/results/judges_user_seed<N>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.users.heldout import write  # noqa: E402
from skillopt_sleep.mining import load_clusters, mine  # noqa: E402
from skillopt_sleep.mining.compiler import Compiler, judge_model  # noqa: E402
from skillopt_sleep.mining.followups import classify  # noqa: E402
from skillopt_sleep.mining.grammar import Check  # noqa: E402
from skillopt_sleep.settings import config as config_mod  # noqa: E402
from skillopt_sleep.settings.logs import ingest_logs  # noqa: E402
from skillopt_sleep.store import open_store  # noqa: E402
from trainer.checks import passes  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def ok(checks: list[Check], answer: str) -> bool:
    return all(passes(c.kind, c.value, c.scope, answer) for c in checks)


def per_correction(turns: list[dict[str, Any]], compiler: Compiler) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in turns:
        if t["kind"]:
            by_kind[t["kind"]].append(t)
    total: Counter[str] = Counter()
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    for ts in by_kind.values():
        accepted = [t["answer_after"] for t in ts if t["role"] == "correction"]
        accepted += [t["answer_before"] for t in ts if t["role"] == "ack" and t["answer_before"]]
        for t in ts:
            if t["role"] != "correction":
                continue
            checks = compiler.compile(t["text"], t["answer_before"] or "", "", t["answer_after"])
            kept = [
                c for c in checks if not ok([c], t["answer_before"]) and ok([c], t["answer_after"])
            ]
            same = [
                u["answer_before"]
                for u in ts
                if u["role"] == "correction" and set(u["rules"]) == set(t["rules"])
            ]
            if not kept:
                outcome = "none"
            elif not all(ok(kept, a) for a in accepted):
                outcome = "wrong"
            elif all(not ok(kept, a) for a in same):
                outcome = "right"
            else:
                outcome = "partial"
            total[outcome] += 1
            for rule in t["rules"]:
                rules[rule][outcome] += 1
    return {"corrections": dict(total), "per_rule": {r: dict(c) for r, c in sorted(rules.items())}}


def clusters(db: Any) -> list[dict[str, Any]]:
    out = []
    for c in load_clusters(db):
        if not c.recurring:
            continue
        tasks = c.tasks
        kept = Counter(f"{j.kind} {j.value[:40]} ({j.scope})" for t in tasks
                       for j in t.judges if j.kind != "rubric" and j.quotes)  # fmt: skip
        dropped = Counter(
            f"{d.judge.kind} {d.judge.value[:40]} ({d.judge.scope}): {d.reason[:40]}"
            for t in tasks for d in t.dropped_judges
        )  # fmt: skip
        out.append({"skill": c.skill, "turns": c.n_turns,
                    "tasks": dict(Counter(t.split for t in tasks)),
                    "judges_kept": dict(kept), "judges_dropped": dict(dropped)})  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", action="store_true", help="also the embedded judge model")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        truth = write(root / "logs", seed=args.seed)
        turns = truth["turns"]
        read = Counter(
            f"{t['role']} -> {classify(t['text'], t['answer_before'])}"
            for t in turns
            if t["answer_before"] is not None
        )
        config = config_mod.load(overrides={
            "state_dir": str(root / "state"),
            "sources.claude.roots": [str(root / "logs" / "claude")],
            "sources.codex.roots": [str(root / "logs" / "codex")],
            "models.backend": "local" if args.model else "sim",
        }, environ={})  # fmt: skip
        db = open_store(root / "state")
        arms = {"grammar": per_correction(turns, Compiler(db, None))}
        ingest_logs(db, config)
        with judge_model(config, os.environ, root) as model:
            if args.model:
                arms["grammar+model (REAL MODEL)"] = per_correction(turns, Compiler(db, model))
            mined = mine(db, config, model)
        members = {
            " ".join((r["user_text"] or "").split())
            for r in db.query(
                "select t.user_text from cluster_members m join turns t on t.id = m.turn_id "
                "join clusters c on c.id = m.cluster_id where c.recurring = 1"
            )
        }
        roles = Counter(t["role"] for t in turns if " ".join(t["text"].split()) in members)
        doc = {
            "seed": args.seed,
            "recognition": dict(sorted(read.items())),
            "arms": arms,
            "mining": mined.report["judges"],
            "recurring_clusters": clusters(db),
            "roles_in_recurring_clusters": dict(roles),
        }
        db.close()
    print(json.dumps(doc, indent=1, ensure_ascii=False))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"judges_user_seed{args.seed}.json"
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
