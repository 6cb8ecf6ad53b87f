"""A task's content check (skillopt_sleep.mining.content): names of its own request that an
answer to it must mention. It needs no model; an empty, echoed or off-topic answer fails it,
the answer the user accepted passes it (or it is dropped and listed)."""

from __future__ import annotations

from pathlib import Path

from mining_helpers import CONFIG, add_turn, store

from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.content import content_judge, content_terms
from trainer.checks import CONTENT_KIND
from trainer.rollout import Outcome
from trainer.scoring import rule_score


def diff_request(path: str, old: str, new: str, topic: str) -> str:
    return (
        f"write the commit message for the staged diff below, it's the {topic}\n\n```diff\n"
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,2 +1,2 @@\n"
        f"-{old}\n+{new}\n```"
    )


KIND = [
    diff_request("src/tidepool/chart.py", "    if r.height < datum:", "    height = max(r.height, "
                 "datum)", "datum clamp"),  # fmt: skip
    diff_request("src/tidepool/sensor.py", "    stamp, value = line.split(',')",
                 "    stamp, value = line.strip().split(',', 1)", "sensor whitespace fix"),
    diff_request("src/tidepool/units.py", "FEET = 3.28", "FEET_PER_METRE = 3.28084",
                 "feet constant rename"),
    diff_request("README.md", "Tide charts.", "Tide charts for harbours.", "readme intro"),
]  # fmt: skip


def passes(value: str, answer: str) -> bool:
    from trainer.tasks import Judge

    return rule_score(Judge(CONTENT_KIND, value), Outcome(answer)) == 1.0


def test_the_names_that_set_a_request_apart_from_its_kind() -> None:
    terms = content_terms(KIND[0], KIND)
    assert {"chart", "datum", "height", "clamp"} <= set(terms)
    # what every request of the kind has is not this request's content
    assert not {"tidepool", "commit", "staged", "diff", "write", "src"} & set(terms)
    assert "feet_per_metre" in content_terms(KIND[2], KIND)  # an identifier, and its parts
    assert {"feet", "metre"} <= set(content_terms(KIND[2], KIND))


def test_a_content_check_fails_what_does_not_answer_this_request() -> None:
    judge = content_judge(KIND[0], KIND, "t1")
    assert judge is not None and judge.kind == CONTENT_KIND and judge.quotes == ()
    assert passes(judge.value, "fix: clamp heights below chart datum")
    assert passes(judge.value, "Clamp readings to the datum")
    for off in (
        "",
        "## Steps\n1. Read the staged diff.\n2. Say what changed and why.",  # the skill's outline
        "fix: strip whitespace when parsing sensor lines",  # another diff's message
        "pip install . python -m venv .venv",
        "I can't help with that.",
    ):
        assert not passes(judge.value, off), off


def test_words_are_matched_whole() -> None:
    assert passes("datum", "Clamp at the Datum.") and not passes("datum", "datums2 are fine")
    assert not passes("chart", "flowchart update")


def test_a_request_with_nothing_of_its_own_has_no_content_check() -> None:
    same = ["summarize the failing CI log"] * 4
    assert content_judge(same[0], same) is None


def test_mined_tasks_carry_a_verified_content_check_and_the_accepted_answer(
    tmp_path: Path,
) -> None:
    db = store(tmp_path)
    accepted = {
        0: "fix: clamp heights below chart datum",
        1: "fix: strip whitespace when parsing sensor lines",
        2: "refactor: rename the feet constant",
        3: "Update the docs.",  # names nothing of its diff: its check is dropped
    }
    for s in range(8):
        add_turn(db, f"s{s}", 0, KIND[s % 4], s + 1, answer=accepted[s % 4])
    mine(db, {"mining": {**CONFIG["mining"], "min_groups_to_split": 100}})
    tasks = load_tasks(db)
    assert len(tasks) == 4
    by_answer = {t.meta["accepted"]: t for t in tasks}
    assert set(by_answer) == set(accepted.values())
    for answer, task in by_answer.items():
        checks = [j for j in task.judges if j.kind == CONTENT_KIND]
        if answer == "Update the docs.":
            assert not checks
            (dropped,) = [d for d in task.meta["dropped_judges"] if d["kind"] == CONTENT_KIND]
            assert dropped["reason"] == "the accepted answer fails it"
        else:
            (check,) = checks
            assert passes(check.value, answer) and not passes(check.value, "")
            assert "the request's own content" in check.source


def _terms_one_by_one(text: str, kind: list[str], seen: str | None = None) -> list[str]:
    """``content_terms`` as first written: every other request of the kind read again for
    each request (quadratic in the kind); the counted reading must give the same terms."""
    from skillopt_sleep.mining.content import MAX_SHARE, MAX_TERMS, _names

    names = _names(text)
    if seen is not None:
        names = [n for n in names if n in set(_names(seen))]
    rest = list(kind)
    if text in rest:
        rest.remove(text)
    others = [set(_names(t)) for t in rest]
    share = {n: sum(n in o for o in others) for n in names}
    total = max(1, len(others) + 1)
    kept = [n for n in names if (share[n] + 1) / total <= MAX_SHARE or len(others) < 2]
    kept.sort(key=lambda n: share[n])
    return kept[:MAX_TERMS]


def test_a_kind_read_once_gives_the_terms_of_each_request_read_against_all_others() -> None:
    import random

    from skillopt_sleep.mining.content import KindNames

    rng = random.Random(7)
    words = ["datum", "chart", "sensor", "harbour", "metre", "feet", "tidepool", "gauge",
             "parser", "stamp", "reading", "window", "buffer", "anchor", "flood"]  # fmt: skip
    for size in (1, 2, 3, 9, 40):
        kind = [
            f"fix the {' '.join(rng.sample(words, rng.randint(1, 4)))} in src/"
            f"{rng.choice(words)}.py"
            for _ in range(size)
        ]
        kind += rng.sample(kind, size // 3)  # texts asked again count again
        counted = KindNames(kind)
        for text in [*kind, "write the gauge window for the flood anchor", KIND[0]]:
            seen = text[: len(text) // 2]
            want = _terms_one_by_one(text, kind)
            assert content_terms(text, counted) == want == content_terms(text, kind), text
            assert content_terms(text, counted, seen) == _terms_one_by_one(text, kind, seen)
        assert any(content_terms(t, counted) for t in kind)  # the check is not vacuous
