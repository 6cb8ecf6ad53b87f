"""``mine(db, config)``: from the ingest tables to clusters, skills, splits and replay tasks.

One pass, one transaction for the writes, so a crash mid-way leaves last night's result
intact. Mining is deterministic for a given store: the same logs give the same clusters,
ids, splits and tasks.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import numpy as np
import sqlite_utils

from skillopt_sleep.mining import echoes, identity, judges, skills, splits, verify, workspaces
from skillopt_sleep.mining.cluster import ClusterParams, cluster_texts
from skillopt_sleep.mining.compiler import Compiler, LazyModel
from skillopt_sleep.mining.content import KindNames, content_judge
from skillopt_sleep.mining.encoded import EncodedRow
from skillopt_sleep.mining.evidence import Evidence, Request, load
from skillopt_sleep.mining.store import ingest_marker, last_run
from skillopt_sleep.settings.config import defaults
from trainer.tasks import Judge, Task, said_source


@dataclass
class MiningResult:
    run_id: int
    n_requests: int
    n_clusters: int
    n_recurring: int
    n_tasks: int
    report: dict[str, Any] = field(default_factory=dict)


def params_from(config: Mapping[str, Any]) -> dict[str, Any]:
    """The ``mining`` section over the packaged defaults (tests may pass a partial one);
    the clustering thresholds are constants tuned by benchmarks/mining.py."""
    m = {**defaults()["mining"], **(config.get("mining") or {})}
    return {
        "min_sessions": int(m["min_sessions"]),
        "min_days": int(m["min_days"]),
        "cluster": ClusterParams(),
        "split": splits.SplitParams(
            fractions=dict(m["split_fractions"]),
            min_groups=int(m["min_groups_to_split"]),
            caps={
                "val": int(m["max_val_tasks"]),
                "test": int(m["max_test_tasks"]),
            },
        ),
        "context_chars": int(m["max_context_chars"]),
    }


def is_recurring(
    texts: list[str], sessions: list[str], days: list[str], min_sessions: int, min_days: int
) -> bool:
    """Whether a cluster's requests (their normalized texts, sessions and days) are a task
    the user keeps asking for: they span ``min_sessions`` sessions on ``min_days`` days, and
    that does not rest on one doubtful join. Either the cluster holds ``min_sessions``
    different texts, or one text was asked in ``min_sessions`` sessions, counting the
    requests that say it and more ("show tools" x2, "show tools and store response in
    file"). A one-off asked twice plus a near neighbour ("announce seat picker" x2,
    "announce font picker") is two texts joined once; it waits for a later night, also
    when the one-off was said with more words the second time ("hey, announce seat
    picker"): a text said again with more words is the same ask (``_asks``)."""
    if len(set(sessions)) < min_sessions or len({d for d in days if d}) < min_days:
        return False
    per_text: dict[str, set[str]] = {}
    for text, session in zip(texts, sessions, strict=True):
        per_text.setdefault(text, set()).add(session)
    words = {t: set(t.split()) for t in per_text}
    if _asks(words) >= min_sessions:
        return True
    return any(
        len(set().union(*(s for u, s in per_text.items() if words[t] <= words[u]))) >= min_sessions
        for t in per_text
    )


FEW_TEXTS = 20  # a cluster of more different texts holds enough asks whatever they say


def _asks(words: Mapping[str, set[str]]) -> int:
    """How many different asks the texts (their word sets) make (at least ``FEW_TEXTS``
    when they are that many): texts
    are one ask when one's words are all in the other's ("load the survey answers" /
    "when you get a chance, load the survey answers")."""
    if len(words) >= FEW_TEXTS:
        return len(words)
    texts = list(words)
    ask = list(range(len(texts)))

    def root(i: int) -> int:
        while ask[i] != i:
            i = ask[i]
        return i

    for i, a in enumerate(texts):
        for j in range(i):
            b = texts[j]
            if words[a] <= words[b] or words[b] <= words[a]:
                ask[root(i)] = root(j)
    return len({root(i) for i in range(len(texts))})


def is_stale(db: sqlite_utils.Database) -> bool:
    """True when ingest has new input since the last mining run (or mining never ran)."""
    run = last_run(db)
    return run is None or run["ingest_marker"] != ingest_marker(db)


def mine_if_stale(db: sqlite_utils.Database, config: Mapping[str, Any]) -> MiningResult | None:
    return mine(db, config) if is_stale(db) else None


def _days_between(a: str, b: str) -> float:
    try:
        return abs((date.fromisoformat(a[:10]) - date.fromisoformat(b[:10])).days)
    except ValueError:
        return 0.0


def _prompt(req: Request, context_chars: int) -> str:
    """The request and the minimal context: the request itself when short enough (pasted
    logs included); else its cleaned intent (which marks what was pasted) and, cut to
    fit, the start of what was pasted with it: requests that differ only in their paste
    (a diff, a log) stay different tasks."""
    body = whole = req.text.strip()
    if len(whole) > context_chars:
        label = "\n\nThe request as written, cut to fit ({} of {} characters):\n"
        room = max(0, context_chars - len(req.intent) - len(label.format(len(whole), len(whole))))
        cut = whole.rfind("\n", room // 2, room)
        head = whole[: cut if cut > 0 else room].rstrip()
        body = req.intent + (label.format(len(head), len(whole)) + head if head else "")
    where = ", ".join(
        x
        for x in (req.project and f"project {req.project}", req.branch and f"branch {req.branch}")
        if x
    )
    return f"{body}\n\n(Context: {where})" if where else body


# Evidence a task's judges may be built from, by the task's split: its own split's and
# train's. A val task judged by what the user said about a test request would carry test
# evidence into every decision the gate makes; test is never used for any decision.
NEW_TASKS = "temp.mined_tasks"  # this run's tasks, until they replace the stored ones

EVIDENCE_SPLITS = {"train": {"train"}, "val": {"train", "val"}, "test": {"train", "test"}}


def _cluster_rules(
    reqs: list[Request], compiler: Compiler
) -> tuple[list[Judge], list[verify.Dropped]]:
    """The rule judges the corrections of ``reqs`` state, each verified against the session
    it came from and every accepted answer of ``reqs`` (kept, dropped)."""
    evidence: list[verify.Evidence] = []
    for r in reqs:  # oldest first, so the latest statement wins in dedupe
        for c in r.corrections:  # the user's words: a skill may repeat them (judge firewall)
            source = said_source(f"turn {c.turn_id}: user correction", c.text)
            checks = compiler.compile(c.text, c.corrected, r.intent, r.accepted)
            found = tuple(judges.to_judge(ch, source, (c.text,)) for ch in checks)
            evidence.append(verify.Evidence(found, c.corrected, r.accepted, r.turn_id))
    accepted = [(r.turn_id, r.accepted) for r in reqs if r.accepted]
    kept, dropped = verify.verify(evidence, accepted)
    return judges.dedupe(kept), dropped


def _own_rules(req: Request) -> tuple[list[Judge], list[verify.Dropped]]:
    """Rules the request states for itself ("in under 50 words"), checked against the
    answer the user accepted for it."""
    stated = judges.rules_from_text(req.intent, f"turn {req.turn_id}: the request",
                                    quotes=(req.intent,))  # fmt: skip
    # "reproduce issue #2300" names this task's issue, not a rule for the kind
    found = tuple(j for j in stated if j.kind != "identifier_like")
    return verify.verify([verify.Evidence(found, None, req.accepted, req.turn_id)], [])


@dataclass(frozen=True)
class _KindEvidence:
    """What the requests of a kind a task may learn from (``EVIDENCE_SPLITS``) say."""

    rules: list[Judge]  # from the user's corrections, verified
    # read from them, but the sessions contradict them: as the rows every task lists,
    # made (and encoded) once for the kind's tasks
    dropped: tuple[EncodedRow, ...]
    corrections: list[judges.Correction]
    accepted: str | None  # the newest accepted answer
    commands: list[str]  # run in most turns: rubric context, `command_ran` in a harness


def _kind_evidence(
    pool: list[Request],
    compiler: Compiler,
    stated: tuple[list[Judge], list[verify.Dropped]] | None = None,
) -> _KindEvidence:
    """``stated``: ``_cluster_rules`` of ``pool`` when already read (the train pool's are
    the cluster's own rules)."""
    ran = [r.commands for r in pool]
    said: dict[str, judges.Correction] = {}  # each correction once, where first said
    for c in (c for r in pool for c in r.corrections):
        said.setdefault(c.text, c)
    rules, dropped = stated or _cluster_rules(pool, compiler)
    return _KindEvidence(
        rules + judges.command_rules(ran),
        tuple(EncodedRow(d.to_dict()) for d in verify.distinct(dropped)),
        list(said.values()),
        next((r.accepted for r in reversed(pool) if r.accepted), None),
        judges.common_commands(ran),
    )


def _content_rule(
    req: Request, kind: KindNames, prompt: str, context_chars: int
) -> tuple[list[Judge], list[verify.Dropped]]:
    """The request's content check (``mining.content``: names the task's `prompt` shows),
    checked against the answer the user accepted for it. A prompt that shows the whole
    request shows every name of it: only a cut one is read for what it shows."""
    whole = len(req.text.strip()) <= context_chars  # as ``_prompt`` cuts
    judge = content_judge(req.text, kind, req.turn_id, seen=None if whole else prompt)
    if judge is None:
        return [], []
    return verify.verify([verify.Evidence((judge,), None, req.accepted, req.turn_id)], [])


def _task(
    req: Request, cid: str, split: str, gid: str, ev: _KindEvidence, ctx: int, kind: KindNames
) -> Task:
    own, own_dropped = _own_rules(req)
    prompt = _prompt(req, ctx)
    content, content_dropped = _content_rule(req, kind, prompt, ctx)
    corrections = ev.corrections
    rub = judges.rubric(req.intent, req.accepted or ev.accepted, corrections, ev.commands)
    # quoted verbatim in the rubric (a kind's later corrections are not in it)
    said = (req.intent, *(c.text for c in corrections[: judges.RUBRIC_CORRECTIONS]))
    rubric = Judge("rubric", rub, 1.0, f"turn {req.turn_id}: accepted outcome", quotes=said)
    js = judges.dedupe([*ev.rules, *own, *content, rubric])
    meta = {
        "cluster_id": cid,
        "turn_id": req.turn_id,
        "session_id": req.session_id,
        "started_at": req.started_at,
        "intent": req.intent,
        "signals": dict(sorted(req.signals.items())),
        "failed": req.failed,
        "real": True,
    }
    if req.accepted:  # what the user accepted: a worked example on train (trainer.demos)
        meta["accepted"] = req.accepted
    dropped = [*ev.dropped, *(d.to_dict() for d in (*own_dropped, *content_dropped))]
    if dropped:  # judges the sessions contradicted: listed, never used
        meta["dropped_judges"] = dropped
    tid = "t-" + splits.group_id_for(req.turn_id)[2:]
    return Task(tid, prompt, split, tuple(js), gid, meta)


def mine(
    db: sqlite_utils.Database, config: Mapping[str, Any], model: LazyModel | None = None
) -> MiningResult:
    """Cluster every human request in the store, map clusters to skills, assign splits
    and write replay tasks. Returns counts and a report of what was skipped and why.

    ``model`` compiles the corrections the grammar cannot read (``compiler.judge_model``);
    without it mining uses the grammar and what the model compiled on earlier runs."""
    p = params_from(config)
    compiler = Compiler(db, model)
    now = datetime.now(UTC).isoformat()
    projects = [r["project"] for r in db.query("select distinct project from sessions")]
    ev: Evidence = load(db, skills.installed(config, [p or "" for p in projects]))
    reqs = ev.requests
    echoed = echoes.echoes(reqs)  # follow-ups read as requests: their work is not theirs
    prints = [() if r.turn_id in echoed else r.fingerprint for r in reqs]
    labels = (
        cluster_texts([r.norm for r in reqs], p["cluster"], prints) if reqs else np.zeros(0, int)
    )
    by_label: dict[int, list[Request]] = {}
    for r, lab in zip(reqs, labels, strict=True):
        by_label.setdefault(int(lab), []).append(r)
    groups = skills.one_per_skill(list(by_label.values()))
    groups.sort(key=lambda rs: (rs[0].started_at, rs[0].turn_id))
    ids = identity.match(
        db,
        [[r.turn_id for r in rs] for rs in groups],
        [[r.norm for r in rs] for rs in groups],
        p["cluster"].merge_threshold,
    )
    stored = {r["id"]: r for r in db.query("select * from clusters")}
    newest = max((r.started_at for r in reqs), default="")
    report: dict[str, Any] = {
        "skipped_no_request": ev.skipped_empty,
        "follow_ups_folded": ev.follow_ups,
        "subagent_turns": ev.subagent_turns,
        "command_or_continuation_turns": ev.other_turns,
        "acknowledgements": ev.acknowledgements,
        "too_small_to_split": [],
        "excluded_bridging_intents": 0,
    }
    cluster_rows, member_rows = [], []
    # tasks wait in a temporary table (on disk) until the last transaction: held as rows,
    # the 60,000 tasks of 100,000 sessions were about 250 MB of text
    db.execute(f"drop table if exists {NEW_TASKS}")
    db.execute(f"create temp table {NEW_TASKS} as select * from tasks where 0")
    commits, by_turn = workspaces.session_commits(db), {r.turn_id: r for r in reqs}
    report["follow_up_clusters"] = 0
    n_tasks = 0
    taken_slugs: set[str] = set()
    n_recurring = n_dropped = 0
    for cid, rs in sorted(zip(ids, groups, strict=True), key=lambda x: -len(x[1])):
        sessions = {r.session_id for r in rs}
        days = {r.day for r in rs if r.day}
        recurring = is_recurring(
            [r.norm for r in rs], [r.session_id for r in rs], [r.day for r in rs],
            p["min_sessions"], p["min_days"],
        )  # fmt: skip
        if recurring and skills.owner(rs) is None and echoes.follow_ups(rs, echoed):
            recurring = False
            report["follow_up_clusters"] += 1
        n_recurring += recurring
        failure = sum(r.failed for r in rs) / len(rs)
        old = stored.get(cid)
        owner = skills.owner(rs)
        if owner is not None:
            skill, managed = owner, 0
        elif old and old["managed"] and old["skill"] not in taken_slugs:
            skill, managed = old["skill"], 1
        else:
            skill, managed = identity.slug([r.norm for r in rs], taken_slugs), 1
        taken_slugs.add(skill)
        intents = list(dict.fromkeys(r.intent for r in reversed(rs)))[:5]
        description = (
            f'Use when the user asks for this recurring task, e.g. "{intents[0][:160]}".'
            if managed
            else f"The user's own skill '{skill}', used for requests like \"{intents[0][:150]}\"."
        )
        recency = 0.5 ** (_days_between(newest, rs[-1].started_at) / 14.0)
        score = math.log1p(len(rs)) * (1.0 + 2.0 * failure) * recency
        rules: list[Judge] = []
        group_of: dict[str, str] = {}
        split_of: dict[str, str] = {}
        if recurring:
            distinct = _distinct(rs)
            key_of = {r.turn_id: splits.request_key(r.norm, r.text) for r in rs}
            keys = splits.newest_first([key_of[r.turn_id] for r in rs], [r.started_at for r in rs])
            per_key = Counter(key_of[r.turn_id] for r in distinct)
            res = splits.assign_cluster(db, cid, keys, p["split"], now, per_key)
            group_of = {t: res.key_group[k] for t, k in key_of.items()}
            split_of = {t: res.key_split[k] for t, k in key_of.items()}
            if res.too_small:
                report["too_small_to_split"].append(cid)
            report["excluded_bridging_intents"] += len(res.excluded)
            rules, dropped = _cluster_rules(
                [r for r in rs if split_of[r.turn_id] == "train"], compiler
            )
            n_dropped += len(dropped)
            made = _tasks_for(cid, rs, distinct, group_of, split_of, p, compiler, (rules, dropped))
            task_rows = workspaces.attach(db, made, by_turn, commits)
            _replace(db, NEW_TASKS, task_rows)
            n_tasks += len(task_rows)
        cluster_rows.append(
            {
                "id": cid, "skill": skill, "managed": managed, "description": description,
                "recurring": int(recurring), "n_turns": len(rs), "n_sessions": len(sessions),
                "n_days": len(days), "failure_rate": round(failure, 4),
                "score": round(score, 6), "first_seen": rs[0].started_at,
                "last_seen": rs[-1].started_at, "sample_intents": json.dumps(intents),
                "rules": json.dumps([j.to_dict() for j in rules]), "active": 1,
                "created_at": old["created_at"] if old else now, "updated_at": now,
            }
        )  # fmt: skip
        member_rows += [
            {
                "turn_id": r.turn_id, "cluster_id": cid, "session_id": r.session_id,
                "started_at": r.started_at, "intent": r.intent[:600], "norm": r.norm[:600],
                "group_id": group_of.get(r.turn_id, ""),
            }
            for r in rs
        ]  # fmt: skip
    report["judges"] = {
        "compiled_by": compiler.describe(), **dict(sorted(compiler.counts.items())),
        "dropped_by_verification": n_dropped,
    }  # fmt: skip
    with db.conn:
        db.execute("update clusters set active = 0")
        db.execute(
            "delete from cluster_members where turn_id in (select id from turns)"
            " or cluster_id in (select value from json_each(?))",
            [json.dumps(ids)],
        )
        db.execute("delete from tasks")
        _replace(db, "clusters", cluster_rows)
        _replace(db, "cluster_members", member_rows)
        db.execute(f"insert or replace into tasks select * from {NEW_TASKS}")
        db.execute(f"drop table {NEW_TASKS}")
        run_id = db.table("mining_runs").insert(
            {
                "started_at": now, "finished_at": datetime.now(UTC).isoformat(),
                "ingest_marker": ingest_marker(db), "n_turns": len(reqs),
                "n_clusters": len(cluster_rows), "n_recurring": n_recurring,
                "report": json.dumps(report),
            }
        ).last_pk  # fmt: skip
    return MiningResult(int(run_id or 0), len(reqs), len(cluster_rows), n_recurring,
                        n_tasks, report)  # fmt: skip


def _replace(db: sqlite_utils.Database, table: str, rows: list[dict[str, Any]]) -> None:
    """Write ``rows`` (each with the same columns) over any with their keys, as one
    statement run for every row: sqlite-utils' ``insert_all`` builds and checks every
    chunk in Python, which at 100,000 sessions took longer than SQLite's writing."""
    if not rows:
        return
    cols = list(rows[0])
    sql = (
        f"insert or replace into {table} ({', '.join(cols)}) values ({', '.join('?' * len(cols))})"
    )
    db.conn.executemany(sql, (tuple(r[c] for c in cols) for r in rows))


def _distinct(rs: list[Request]) -> list[Request]:
    """The distinct requests of a cluster (the newest of each): the same text asked again
    in the same project is one task; a different paste (a diff, a log), file or project
    is another."""
    newest: dict[tuple[str, str], Request] = {}
    for r in reversed(rs):
        newest.setdefault((" ".join(r.text.split()), r.project), r)
    return list(reversed(newest.values()))


def _tasks_for(
    cid: str,
    rs: list[Request],
    distinct: list[Request],
    group_of: dict[str, str],
    split_of: dict[str, str],
    p: dict[str, Any],
    compiler: Compiler,
    train_rules: tuple[list[Judge], list[verify.Dropped]],
) -> Iterator[dict]:
    """One task per distinct request that has a split (a request whose words bridge
    groups in two splits has none). Nothing is dropped here: a night's cost is bounded by
    how many val and test tasks it replays (``mining.max_val_tasks`` / ``max_test_tasks``:
    the splits fill up to them, ``night.plan.replay_set`` takes at most that many) and by
    the trainer's minibatches on train. A task's cluster rules and rubric come from
    requests of ``EVIDENCE_SPLITS`` only; ``train_rules``: those of the train requests."""
    evidence = {
        split: _kind_evidence(
            [r for r in rs if split_of[r.turn_id] in allowed],
            compiler,
            train_rules if allowed == {"train"} else None,
        )
        for split, allowed in EVIDENCE_SPLITS.items()
    }
    # what sets a request apart is read against the requests its split may learn from
    read: dict[str, list[str]] = {}
    kinds = {
        split: KindNames([r.text for r in distinct if split_of[r.turn_id] in allowed], read)
        for split, allowed in EVIDENCE_SPLITS.items()
    }
    # the kind's rules are most of every task's judges: each made into its row once
    rule_rows = {j: EncodedRow(j.to_dict()) for ev in evidence.values() for j in ev.rules}
    for r in distinct:
        split = split_of[r.turn_id]
        if split not in evidence:
            continue
        gid = group_of[r.turn_id]
        t = _task(r, cid, split, gid, evidence[split], p["context_chars"], kinds[split])
        yield {
            "id": t.id, "cluster_id": cid, "turn_id": r.turn_id, "split": t.split,
            "group_id": gid, "prompt": t.prompt,  # judges: JSON in ``workspaces.attach``
            "judges": [rule_rows[j] if j in rule_rows else j.to_dict() for j in t.judges],
            "meta": t.meta, "updated_at": t.meta["started_at"],
        }  # fmt: skip
