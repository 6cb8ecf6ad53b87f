"""mine(): recurring clusters, skills, judges with provenance, stable ids and splits."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from mining_helpers import ACCEPTED, CONFIG, CORRECTED, add_turn, seed, store

from skillopt_sleep.mining import Cluster, is_stale, load_clusters, load_tasks, mine
from skillopt_sleep.mining.splits import SplitParams, _near_dups, assign_cluster
from skillopt_sleep.mining.verify import passes


def _by_skill(db) -> dict[str, Cluster]:
    return {c.skill: c for c in load_clusters(db)}


def test_recurring_kinds_found_one_offs_not(tmp_path: Path) -> None:
    db = store(tmp_path)
    seed(db)
    result = mine(db, CONFIG)
    clusters = load_clusters(db)
    recurring = [c for c in clusters if c.recurring]
    assert len(recurring) == 2 and result.n_recurring == 2
    commit = next(c for c in recurring if "commit" in c.skill)
    assert commit.n_turns == 9 and commit.n_sessions == 9 and commit.n_days == 9
    assert commit.managed_skill is True
    assert 0 < commit.failure_rate < 0.2  # one corrected turn of nine
    # the correction turn was folded into the request, not clustered as a request
    assert all("subject line" not in s for c in clusters for s in c.sample_intents)
    assert not any(c.recurring for c in clusters if c not in recurring)
    for c in clusters:  # every member a user's turn of a session
        assert c.members and all(m.turn_id.startswith(f"{m.session_id}:") for m in c.members)


def test_a_cluster_is_typed_and_prints_as_the_listing_has_it(tmp_path: Path) -> None:
    """The plan reads typed ``Cluster``s; ``to_json`` (what ``tasks list --json`` prints of
    each: tests/cli/test_cli_versions.py) reads back equal."""
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    typed = load_clusters(db)
    assert [Cluster.from_json(json.loads(json.dumps(c.to_json()))) for c in typed] == typed
    assert [c.rank for c in typed] == list(range(1, len(typed) + 1))
    tasks = {t.id: t for t in load_tasks(db)}
    for cluster in typed:
        for task in cluster.tasks:  # each listed task is a task the trainer is fed
            assert tasks[task.id].meta["cluster_id"] == cluster.id
            assert tasks[task.id].split == task.split
    recurring = [c.recurring for c in typed]
    assert recurring == sorted(recurring, reverse=True) and sum(recurring) == 2  # first


def test_invoked_skill_owns_the_cluster(tmp_path: Path) -> None:
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    reg = _by_skill(db)["regression-tests"]
    assert reg.managed_skill is False and reg.recurring


def test_one_stray_invocation_does_not_claim_a_cluster(tmp_path: Path) -> None:
    db = store(tmp_path)
    for i in range(10):
        skills = ["commit-message"] if i == 0 else []
        add_turn(db, f"s{i}", 0, f"bump the requests dependency to version 2.{i}", 1 + i,
                 skills=skills)  # fmt: skip
    mine(db, CONFIG)
    (cluster,) = [c for c in load_clusters(db) if c.recurring]
    assert cluster.skill != "commit-message" and cluster.managed_skill is True


def test_every_distinct_request_is_a_task_and_val_and_test_are_capped(tmp_path: Path) -> None:
    """56 different requests of one kind: 56 tasks. Val and test hold at most their caps
    (the night's cost); the rest trains, where a step samples a minibatch."""
    db = store(tmp_path)
    areas = ["parser", "scheduler", "billing", "exporter", "auth", "cache", "upload", "search"]
    kinds = ["timeout", "unicode", "rounding", "permission", "pagination", "retry", "locale"]
    for i in range(56):
        text = f"fix the failing {kinds[i % 7]} test in the {areas[i % 8]} module and rerun it"
        add_turn(db, f"s{i}", 0, text, 1 + i % 20, minute=i)
    add_turn(db, "s56", 0, "fix the failing timeout test in the parser module and rerun it", 21)
    caps = {"max_val_tasks": 5, "max_test_tasks": 4}
    config = {"mining": {**CONFIG["mining"], **caps}}
    mine(db, config)
    (cluster,) = [c for c in load_clusters(db) if c.recurring]
    tasks = load_tasks(db, cluster_id=cluster.id)
    assert len(tasks) == 56  # the request asked twice is one task: its newest asking
    assert len({t.prompt for t in tasks}) == 56
    assert "s56:0" in {t.meta["turn_id"] for t in tasks} and "s0:0" not in {
        t.meta["turn_id"] for t in tasks
    }
    n = Counter(t.split for t in tasks)
    assert 1 <= n["val"] <= 5 and 1 <= n["test"] <= 4 and n["train"] == 56 - n["val"] - n["test"]
    assert all(len(ss) == 1 for ss in group_splits_of(tasks).values())


def group_splits_of(tasks: list) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for t in tasks:
        out.setdefault(t.group, set()).add(t.split)
    return out


def pasted_diff(i: int, lines: int = 6) -> str:
    body = "\n".join(
        f"+    total_{i}_{k} = compute_{k}(rows[{i + k}]) * {i * 7 + k}" for k in range(lines)
    )
    head = f"--- a/src/report_{i}.py\n+++ b/src/report_{i}.py\n@@ -1 +1,{lines} @@"
    return f"```diff\n{head}\n{body}\n```"


ASK = "write the commit message for this diff, house style please"


def test_the_same_words_with_different_pasted_diffs_are_different_tasks(tmp_path: Path) -> None:
    """A user who always asks in the same words and pastes the diff: 48 sessions, 48 tasks
    in every split, each with its own diff; no group of near-duplicates straddles splits,
    and the splits never move when more sessions come."""
    db = store(tmp_path)
    for i in range(48):
        add_turn(db, f"c{i}", 0, f"{ASK}\n\n{pasted_diff(i)}", 1 + i % 24, minute=i)
    add_turn(db, "c48", 0, f"{ASK}\n\n{pasted_diff(3)}", 25)  # the same paste again
    mine(db, CONFIG)
    (cluster,) = [c for c in load_clusters(db) if c.recurring]
    tasks = load_tasks(db, cluster_id=cluster.id)
    assert len(tasks) == 48
    for i in range(48):  # each diff is in exactly one task's prompt
        assert sum(f"total_{i}_0 " in t.prompt for t in tasks) == 1, i
    n = Counter(t.split for t in tasks)
    assert min(n["train"], n["val"], n["test"]) >= 5, n
    assert all(len(ss) == 1 for ss in group_splits_of(tasks).values())
    before = {t.id: t.split for t in tasks}
    for i in range(48, 60):
        add_turn(db, f"c{i + 1}", 0, f"{ASK}\n\n{pasted_diff(i)}", 26 + i % 3, minute=i)
    mine(db, CONFIG)
    after = {t.id: t.split for t in load_tasks(db, cluster_id=cluster.id)}
    assert len(after) == 60
    assert all(after[tid] == split for tid, split in before.items())


def test_a_long_paste_is_cut_to_fit_and_keeps_tasks_apart(tmp_path: Path) -> None:
    db = store(tmp_path)
    for i in range(6):
        add_turn(db, f"c{i}", 0, f"{ASK}\n\n{pasted_diff(i, lines=80)}", 1 + i, minute=i)
    config = {"mining": {**CONFIG["mining"], "max_context_chars": 1200}}
    mine(db, config)
    tasks = load_tasks(db)
    assert len(tasks) == 6
    for t in tasks:
        assert len(t.prompt) <= 1200 + 80  # the cut, plus the context line
        assert t.prompt.startswith(ASK) and "cut to fit" in t.prompt
    assert len({t.prompt for t in tasks}) == 6  # each shows the start of its own diff


def test_judges_from_corrections_with_provenance(tmp_path: Path) -> None:
    """The correction "subject under 50 chars and use pytest not unittest" becomes a
    subject-length check and a ban on unittest, each verified on the session (the corrected
    answer fails it, the accepted one passes); "use pytest" requires nothing (a pytest test
    need not say "pytest")."""
    db = store(tmp_path)
    seed(db)
    mine(db, CONFIG)
    commit = next(c for c in load_clusters(db) if "commit" in c.skill)
    judges = commit.tasks[0].judges
    kinds = {(j.kind, j.value, j.scope) for j in judges}
    assert ("max_chars", "50", "first_line") in kinds
    assert ("not_contains", "unittest", "answer") in kinds
    assert not any(j.kind == "contains" and j.value == "pytest" for j in judges)
    # the command run in every turn of the kind: context for the rubric of a chat replay
    # (the sessions' repository is not on this machine), never a word check on the answer
    assert not any("git diff" in j.value for j in judges if j.kind != "rubric")
    rules = [j for j in judges if j.kind in ("max_chars", "not_contains")]
    for judge in rules:  # never an inverted judge: the user's own answers decide
        assert not passes(judge, CORRECTED) and passes(judge, ACCEPTED)
    rubric = next(j for j in judges if j.kind == "rubric")
    assert "under 50 chars" in rubric.value and "`git diff`" in rubric.value
    assert CORRECTED not in rubric.value  # the corrected answer is never "accepted"
    assert all(j.source for j in judges)
    assert any("user correction" in j.source and "sess-002:0" in j.source for j in judges)


def test_rerun_is_stable_and_new_sessions_keep_ids_and_splits(tmp_path: Path) -> None:
    db = store(tmp_path)
    seed(db, sessions=9)
    mine(db, CONFIG)
    before = {c.id: c for c in load_clusters(db)}
    splits_before = {t.id: t.split for t in load_tasks(db)}
    keys_before = {r["key"]: r["split"] for r in db.query("select * from split_keys")}
    assert not is_stale(db)
    mine(db, CONFIG)  # same input: same everything
    assert {c.id for c in load_clusters(db)} == set(before)
    assert {t.id: t.split for t in load_tasks(db)} == splits_before
    seed(db, sessions=6, start_day=12)  # new nights of work
    add_turn(db, "sess-new", 0, "write a conventional commit message for the staged changes "
             "in parser.py", 20)  # fmt: skip
    assert is_stale(db)
    mine(db, CONFIG)
    after = {c.id: c for c in load_clusters(db)}
    for cid, c in before.items():
        if c.recurring:
            assert cid in after and after[cid].skill == c.skill
            assert after[cid].n_turns > c.n_turns
    keys_after = {r["key"]: r["split"] for r in db.query("select * from split_keys")}
    assert all(keys_after[k] == s for k, s in keys_before.items())
    for t in load_tasks(db):
        if t.id in splits_before:
            assert t.split == splits_before[t.id]


def test_fresh_store_mines_the_same_ids(tmp_path: Path) -> None:
    a, b = store(tmp_path / "a"), store(tmp_path / "b")
    seed(a)
    seed(b)
    mine(a, CONFIG)
    mine(b, CONFIG)
    assert [c.id for c in load_clusters(a)] == [c.id for c in load_clusters(b)]


def test_splits_never_leak_a_near_duplicate_group(tmp_path: Path) -> None:
    db = store(tmp_path)
    base = [
        "fix the failing test in zpath", "write release notes for the next version",
        "summarize the failing ci log", "add type hints to the parser module",
        "explain this stack trace from production", "rename the helper everywhere",
        "draft the pull request description", "upgrade numpy and fix what breaks",
    ]  # fmt: skip
    keys = base + [k.replace("the", "teh", 1) for k in base] + [k + " now" for k in base]
    params = SplitParams()
    res = assign_cluster(db, "c-x", keys, params)
    assert {"train", "val", "test"} <= set(res.key_split.values())
    near = _near_dups(keys, params.dup_threshold)
    for i, others in enumerate(near):
        for j in others:  # every near-duplicate pair shares group and split
            assert res.key_group[keys[i]] == res.key_group[keys[j]]
            assert res.key_split[keys[i]] == res.key_split[keys[j]]
    for variant in (keys[8], keys[16]):  # typo and suffix variants joined their original
        assert res.key_group[variant] == res.key_group[keys[0]]
    # tomorrow: the same keys plus new ones, one a near-duplicate: nothing moves
    res2 = assign_cluster(db, "c-x", ["fix the failing test in zpath again", *keys], params)
    assert all(res2.key_split[k] == res.key_split[k] for k in keys)
    assert res2.key_split["fix the failing test in zpath again"] == res.key_split[keys[0]]


def test_small_cluster_reported_not_split(tmp_path: Path) -> None:
    db = store(tmp_path)
    for s in range(4):  # one phrasing only: a single near-duplicate group
        add_turn(db, f"s{s}", 0, "update the changelog for the release", s + 1)
    result = mine(db, CONFIG)
    (c,) = [c for c in load_clusters(db) if c.recurring]
    assert c.id in result.report["too_small_to_split"] and c.too_small_to_split
    assert {t.split for t in c.tasks} == {"train"}


def test_edge_inputs(tmp_path: Path) -> None:
    db = store(tmp_path)
    mine(db, CONFIG)  # empty store
    assert load_clusters(db) == []
    add_turn(db, "empty", 0, "", 1)  # no human text
    add_turn(db, "empty", 1, "<system-reminder>x</system-reminder>", 1)
    add_turn(db, "w1", 0, "continue", 1)
    add_turn(db, "w2", 0, "continue", 2)
    add_turn(db, "w3", 0, "continue", 3)
    add_turn(db, "big", 0, "please review this " + "lorem ipsum dolor " * 6000, 2)
    add_turn(db, "zh", 0, "请为暂存的更改写一条提交信息", 3)
    add_turn(db, "ar", 0, "اكتب رسالة الالتزام", 3)
    add_turn(db, "sub", 0, "Warmup", 3, kind="subagent")
    result = mine(db, CONFIG)
    assert result.report["skipped_no_request"] == 2
    assert result.report["subagent_turns"] == 1
    clusters = load_clusters(db)
    one_word = next(c for c in clusters if c.sample_intents == ("continue",))
    assert one_word.n_turns == 3
    big = next(c for c in clusters if c.sample_intents[0].startswith("please review"))
    assert len(big.sample_intents[0]) < 700
    json.dumps([c.to_json() for c in clusters])  # serializable


def test_judges_use_only_their_own_split_or_train(tmp_path: Path) -> None:
    """What the user said about a test request never reaches a train or val task's judges,
    and val evidence never reaches train: the gate decides on val, test is never used."""
    db = store(tmp_path)
    areas = ["parser", "scheduler", "billing", "exporter", "auth", "cache", "upload", "search"]
    for i in range(40):
        text = f"fix the failing timeout test in the {areas[i % 8]} code, case {i}"
        add_turn(db, f"s{i}", 0, text, 1 + i % 20, minute=i)
    mine(db, CONFIG)
    by_split: dict[str, list] = {}
    for t in load_tasks(db):
        by_split.setdefault(t.split, []).append(t)
    assert {"train", "val", "test"} <= set(by_split)
    leaks = {"test": by_split["test"][0], "val": by_split["val"][0]}
    words = {"test": ("pytest", "unittest", "SECRET-TEST-ANSWER"),
             "val": ("ruff", "flake8", "SECRET-VAL-ANSWER")}  # fmt: skip
    for split, task in leaks.items():
        session = task.meta["session_id"]
        want, avoid, answer = words[split]
        add_turn(db, session, 1, f"no, use {want} not {avoid}", 1 + int(session[1:]) % 20,
                 answer=answer)  # fmt: skip
    mine(db, CONFIG)
    tasks = load_tasks(db)
    assert {(t.id, t.split) for t in tasks} >= {(t.id, t.split) for t in leaks.values()}

    def evidence(t) -> str:
        return json.dumps([j.to_dict() for j in t.judges])

    for t in tasks:
        text = evidence(t)
        sees_test = any(w in text for w in words["test"])
        sees_val = any(w in text for w in words["val"])
        assert sees_test == (t.split == "test"), (t.split, text)
        assert sees_val == (t.split == "val"), (t.split, text)
    stored = next(c for c in db.query("select rules from clusters where recurring = 1"))
    assert not any(w in stored["rules"] for ws in words.values() for w in ws)


def test_a_one_off_asked_twice_and_a_neighbour_wait_for_more_evidence(tmp_path: Path) -> None:
    """Three sessions on three days, but only two texts joined once: not yet a task kind.
    A third session asking one of them again makes it one."""
    db = store(tmp_path)
    seed(db)
    add_turn(db, "p1", 0, "announce the new seat picker", 1)
    add_turn(db, "p2", 0, "announce the new font picker", 2)
    add_turn(db, "p3", 0, "announce the new seat picker", 3)
    mine(db, CONFIG)
    (picker,) = [c for c in load_clusters(db) if "picker" in c.sample_intents[0]]
    assert (picker.n_turns, picker.n_sessions, picker.n_days) == (3, 3, 3)
    assert not picker.recurring
    add_turn(db, "p4", 0, "announce the new seat picker", 4)
    mine(db, CONFIG)
    (picker,) = [c for c in load_clusters(db) if "picker" in c.sample_intents[0]]
    assert picker.n_turns == 4 and picker.recurring
