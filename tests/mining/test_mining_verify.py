"""Judges are verified against the sessions they came from; the accepted outcome is the
last answer before acceptance, never one the user corrected."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from mining_helpers import COMMIT, CONFIG, add_turn, store

from skillopt_sleep.cli import main
from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.evidence import load
from skillopt_sleep.mining.verify import ACCEPTED_FAILS, CORRECTED_PASSES, passes

ALL_TRAIN = {"mining": {**CONFIG["mining"], "min_groups_to_split": 100}}  # one evidence pool
LONG = "Move the parser tests over to the shared harness module and clean up the fixtures"


def test_accepted_outcome_is_the_last_answer_before_acceptance(tmp_path: Path) -> None:
    db = store(tmp_path)
    add_turn(db, "a", 0, "write the commit message for the parser fix", 1, answer=LONG)
    add_turn(db, "a", 1, "too long, under 6 words", 1, answer="Fix parser on empty input")
    add_turn(db, "a", 2, "thanks!", 1, answer="You're welcome.")
    add_turn(db, "b", 0, "write the commit message for the cache fix", 2, answer=LONG)
    add_turn(db, "b", 1, "shorter please", 2, answer="Cache prices 🚀")
    add_turn(db, "b", 2, "lose the emoji", 2, answer="Cache prices")  # then the session ends
    add_turn(db, "c", 0, "write the commit message for the login fix", 3, answer="Fix login",
             signals=[("interrupt", "[Request interrupted by user]")])  # fmt: skip
    add_turn(db, "d", 0, "write the commit message for the export", 4, answer="Add export",
             signals=[("correction", "actually, can you also")])  # fmt: skip
    add_turn(db, "d", 1, "actually, can you also write the changelog entry", 4, answer="- x")
    by_turn = {r.turn_id: r for r in load(db).requests}
    a, b = by_turn["a:0"], by_turn["b:0"]
    assert a.accepted == "Fix parser on empty input"
    assert [c.corrected for c in a.corrections] == [LONG]  # the answer the user corrected
    assert b.accepted == "Cache prices"
    assert [c.corrected for c in b.corrections] == [LONG, "Cache prices 🚀"]
    assert by_turn["c:0"].accepted is None  # an interrupted answer was not accepted
    # ingest's signal on "actually, can you also …": more work, so a new request, and the
    # answer before it was not corrected
    assert by_turn["d:0"].accepted == "Add export" and by_turn["d:0"].corrections == []
    assert "d:1" in by_turn


def _cluster(db, corrections: dict[int, tuple[str, str, str]], accepted: dict[int, str]) -> None:
    """Nine commit-message sessions; ``corrections[s] = (first answer, said, fixed answer)``;
    ``accepted[s]`` the answer of an uncorrected session (default a short one)."""
    for s in range(9):
        sid = f"s{s}"
        if s in corrections:
            first, said, fixed = corrections[s]
            add_turn(db, sid, 0, COMMIT[s % len(COMMIT)], s + 1, answer=first)
            add_turn(db, sid, 1, said, s + 1, answer=fixed)
        else:
            add_turn(db, sid, 0, COMMIT[s % len(COMMIT)], s + 1,
                     answer=accepted.get(s, "Fix parser crash"))  # fmt: skip


def _dropped(db) -> dict[tuple[str, str], str]:
    return {(d["kind"], d["value"]): d["reason"] for t in load_tasks(db)
            for d in t.meta.get("dropped_judges", [])}  # fmt: skip


def _kept(db) -> set[tuple[str, str]]:
    return {(j.kind, j.value) for t in load_tasks(db) for j in t.judges if j.kind != "rubric"}


def test_an_inverted_judge_is_dropped_and_listed(tmp_path: Path) -> None:
    """The user said "no unittest" but accepted an answer that still says unittest: the
    check would fail what the user accepted, so it never reaches a night."""
    db = store(tmp_path)
    _cluster(db, {1: ("Port tests to unittest classes", "no, use pytest not unittest",
                      "Port the unittest tests to pytest")}, {})  # fmt: skip
    mine(db, ALL_TRAIN)
    assert ("not_contains", "unittest") not in _kept(db)
    assert _dropped(db)[("not_contains", "unittest")] == ACCEPTED_FAILS
    tid = load_tasks(db)[0].id
    res = CliRunner().invoke(main, ["--state-dir", str(tmp_path / "state"), "tasks", "show", tid])
    assert res.exit_code == 0
    assert "dropped: the accepted answer fails it: not_contains unittest" in res.output


def test_a_judge_the_corrected_answer_passes_is_dropped(tmp_path: Path) -> None:
    db = store(tmp_path)
    _cluster(db, {2: ("Fix parser", "no emoji please", "Fix parser again")}, {})
    mine(db, ALL_TRAIN)
    assert _dropped(db)[("no", "emoji")] == CORRECTED_PASSES


def test_judges_of_one_kind_must_not_contradict_another_sessions_accepted_answer(
    tmp_path: Path,
) -> None:
    db = store(tmp_path)
    _cluster(db, {2: (LONG, "keep it under 6 words", "Fix parser on empty input")},
             {5: "Fix the crash in the parser when the input file is empty"})  # fmt: skip
    mine(db, ALL_TRAIN)
    assert _dropped(db)[("max_words", "6")] == "the accepted answer of turn s5:0 fails it"
    store2 = store(tmp_path / "other")
    _cluster(store2, {2: (LONG, "keep it under 6 words", "Fix parser on empty input")}, {})
    mine(store2, ALL_TRAIN)
    assert ("max_words", "6") in _kept(store2)  # no session contradicts it: kept
    for t in load_tasks(store2):  # and never one the user's answers fail
        for j in t.judges:
            if (j.kind, j.value) == ("max_words", "6"):
                assert passes(j, "Fix parser on empty input") and not passes(j, LONG)


def test_a_rule_dropped_in_many_sessions_is_listed_once_per_task(tmp_path: Path) -> None:
    """Four sessions of the kind say "no, use pytest not unittest" and the user accepted
    answers that still say unittest: every task lists that dropped judge once, from the
    newest statement, not once per session (a task's size must not grow with its kind)."""
    db = store(tmp_path)
    said = ("Port tests to unittest classes", "no, use pytest not unittest",
            "Port the unittest tests to pytest")  # fmt: skip
    _cluster(db, {s: said for s in (1, 3, 5, 7)}, {})
    mine(db, ALL_TRAIN)
    tasks = load_tasks(db)
    assert len(tasks) >= 4
    for t in tasks:
        listed = [d for d in t.meta.get("dropped_judges", [])
                  if (d["kind"], d["value"]) == ("not_contains", "unittest")]  # fmt: skip
        assert len(listed) == 1 and listed[0]["reason"] == ACCEPTED_FAILS
        assert listed[0]["source"].startswith("turn s7:0")  # the newest statement
