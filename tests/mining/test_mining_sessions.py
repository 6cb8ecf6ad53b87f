"""Mining real Claude Code and Codex logs (written, ingested, mined): skills and work."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from benchmarks import mining_sessions
from benchmarks.sessions.tuning_logs import Call, Session, Turn, new_id, write_claude, write_codex
from skillopt_sleep.mining import load_clusters, load_tasks, mine
from skillopt_sleep.settings.logs import ingest_logs
from skillopt_sleep.store import open_store

START = datetime(2026, 3, 2, 9, 0, 0)
ONE_OFFS = [
    "what is the capital of mongolia",
    "draw an ascii diagram of the payment flow",
    "rename the sidebar colour variable in the theme file",
    "convert this csv of invoices into a markdown table",
    "explain how the websocket reconnect backoff works",
    "set up a github action that deploys docs to pages",
    "why does the map view jump to the top on android",
    "sketch a rollout plan for the new pricing page",
]


def _session(home: Path, rng: random.Random, day: int, turns: list[Turn], codex: bool = False):
    s = Session(new_id(rng), "codex" if codex else "claude", "/home/dev/src/shop", "main",
                START + timedelta(days=day), turns)  # fmt: skip
    (write_codex if codex else write_claude)(home, s, rng)
    return s


def _mine(home: Path):
    db = open_store(home / "state")
    report = ingest_logs(db, mining_sessions._config(home))
    assert not report.errors
    mine(db, mining_sessions._config(home))
    return db


def _one_offs(home: Path, rng: random.Random) -> None:
    for i, text in enumerate(ONE_OFFS):
        _session(home, rng, i, [Turn(text, [Call("bash", "git status")], "Done.")])


@pytest.mark.parametrize("seed", range(3))
def test_generated_sessions_mine_into_one_cluster_per_kind_and_skill(
    tmp_path: Path, seed: int
) -> None:
    """The tuning corpus at its default size: every recurring cluster is a kind, each user
    skill has one, and pairs of requests are grouped as the kinds are."""
    where = tmp_path / "corpus"
    mining_sessions.prepare("tuning", seed, 300, where)
    row = mining_sessions.mine_and_score(where)
    assert row["false_recurring"] == 0
    assert set(row["recurring_per_skill"].values()) == {1}
    assert row["kinds_found"] >= row["planted_kinds"] - 1  # the smallest kind may split
    assert row["f1"] >= 0.85 and row["precision"] >= 0.8
    assert row["requests_without_turn"] == 0  # every request written was ingested


def test_requests_that_invoked_one_skill_are_its_task_set_whatever_their_wording(
    tmp_path: Path,
) -> None:
    """Four wordings that share no word and no command, each invoking the user's skill a
    different way (the Skill tool, /name, $name in Codex): one cluster, the skill's."""
    rng = random.Random(1)
    asks = ["summarize these pending edits for the record", "what should the log line say",
            "describe today's work for the history", "give the diff a proper title"]  # fmt: skip
    for day in range(8):
        via = ["tool", "command", "dollar", "tool"][day % 4]
        turn = Turn(asks[day % 4], [Call("bash", "ls")], "feat: x", "commit-message", via)
        _session(tmp_path, rng, day, [turn], codex=via == "dollar")
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    recurring = [c for c in load_clusters(db) if c.recurring]
    assert [(c.skill, c.managed_skill, c.n_turns) for c in recurring] == [
        ("commit-message", False, 8)
    ]


def test_a_user_invoked_skill_is_a_request_and_its_correction_is_not(tmp_path: Path) -> None:
    """``/commit-message …`` is a command turn in Claude Code's log, and what the user asked
    for (the user has that skill, though the agent never invoked it); the "no, …" after it
    corrects it: evidence for its judges, never a request. ``/init`` is no skill of theirs."""
    skill = tmp_path / ".claude" / "skills" / "commit-message" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: commit-message\ndescription: x\n---\nWrite it.\n")
    rng = random.Random(2)
    long_subject = "fix(cart): recompute the totals whenever a coupon is applied or removed"
    for day in range(4):
        answer = long_subject if day == 1 else "fix: cart totals"
        turns = [Turn(f"for the {['cart', 'tax', 'auth', 'ui'][day]} change", [], answer,
                      "commit-message", "command")]  # fmt: skip
        if day == 1:
            turns.append(Turn("no, keep the subject under 50 characters", [], "fix: totals"))
        turns.append(Turn("", [Call("write", "CLAUDE.md")], "Wrote CLAUDE.md.", "init", "command"))
        _session(tmp_path, rng, day, turns)
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    (cluster,) = [c for c in load_clusters(db) if c.recurring]
    assert cluster.skill == "commit-message" and cluster.n_turns == 4
    assert all(i.startswith("/commit-message for the") for i in cluster.sample_intents)
    intents = {t.meta["intent"] for t in load_tasks(db)}
    assert not any("50 characters" in i or "init" in i for i in intents)
    members = {m.turn_id for c in load_clusters(db) for m in c.members}
    assert len(members) == 4 + len(ONE_OFFS)  # neither the correction nor /init
    judged = [j for t in load_tasks(db) for j in t.judges
              if j.kind != "rubric" and any("50 characters" in q for q in j.quotes)]  # fmt: skip
    assert judged, "the correction became a rule judge of the skill's tasks"


def test_two_ways_of_asking_for_one_skill_are_one_cluster(tmp_path: Path) -> None:
    """Two phrasings that share no word and no work, each a cluster of its own by the
    words, both owned by the skill: one kind of work for it, one cluster."""
    rng = random.Random(3)
    for day in range(10):
        text = ["bump the version and note it", "what is new since the last tag"][day % 2]
        skill = "release-notes" if day % 5 != 4 else None  # most, not all, invoke it
        _session(tmp_path, rng, day, [Turn(text, [Call("bash", "ls")], "## 1.2", skill)])
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    recurring = [c for c in load_clusters(db) if c.recurring]
    assert [(c.skill, c.n_turns) for c in recurring] == [("release-notes", 10)]


def test_one_stray_invocation_does_not_hand_a_small_cluster_to_a_skill(tmp_path: Path) -> None:
    """Three sessions of one ask, one of which invoked an unrelated skill: a third of the
    cluster, but one invocation is no sign of whose task it is."""
    rng = random.Random(4)
    for day in range(3):
        skill = "pr-writer" if day == 0 else None
        turn = Turn(f"dedupe the orders feed{' again' * day}", [Call("bash", "ls")], "ok", skill)
        _session(tmp_path, rng, day, [turn])
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    (cluster,) = [c for c in load_clusters(db) if c.recurring]
    assert cluster.skill != "pr-writer" and cluster.managed_skill is True


def test_a_one_off_asked_again_is_a_recurring_request_not_a_false_cluster(tmp_path: Path) -> None:
    """The scorer's truth: one-offs of one template are one task asked again (the held-out
    generator runs out of templates past 60 one-offs), so their recurring cluster is counted
    apart, not as false; without the template, the same cluster is a false one."""
    rng = random.Random(7)
    asked = "how many http routes do we expose"
    again = [
        _session(tmp_path, rng, day, [Turn(asked, [Call("grep", "@app.route")], "Twelve.")])
        for day in range(6)
    ]
    _one_offs(tmp_path, rng)
    db = _mine(tmp_path)
    try:
        requests = [
            {"session_id": s.id, "text": asked, "kind": None, "follow_up": False,
             "skill": None, "one_off": 0} for s in again
        ]  # fmt: skip
        truth = {"kinds": {}, "requests": requests}
        row = mining_sessions.score(db, truth)
        assert (row["recurring_clusters"], row["recurring_one_offs"]) == (1, 1)
        assert row["false_recurring"] == 0 and row["precision"] == 1.0

        for r in requests:
            r["one_off"] = None  # one-offs the generator calls distinct
        row = mining_sessions.score(db, truth)
        assert (row["recurring_one_offs"], row["false_recurring"]) == (0, 1)
        assert row["precision"] == 0.0
    finally:
        db.close()
