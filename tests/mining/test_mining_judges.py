"""Rule judges mean what the user meant: the grammar's compile of common correction forms,
scored by the trainer's own rule scorer on answers that follow and break each rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_sleep.mining.judges import dedupe, rules_from_text
from trainer.rollout import Outcome
from trainer.scoring import rule_score
from trainer.tasks import Judge

CORPUS = Path(__file__).parent.parent / "fixtures" / "corrections"


def passes(said: str, answer: str, corrected: str = "") -> bool:
    judges = rules_from_text(said, "test", corrected)
    assert judges, f"nothing compiled from {said!r}"
    return all(rule_score(j, Outcome(answer)) == 1.0 for j in judges)


# (what the user said, an answer that follows it, an answer that breaks it)
FORMS = [
    ("please don't call os.system", "subprocess.run(['ls'])", "os.system('ls')"),
    ("never run npm publish", "npm pack", "then npm publish"),
    ("don't add a changelog section", "Fix the changelog parser", "Fix it\n\n## Changelog\nx"),
    ("stop adding type: ignore comments", "x = int(y)", "x = f()  # type: ignore"),
    ("no bullet points", "One paragraph of prose.", "- one\n- two"),
    ("I said no numbered lists", "- a\n- b", "1. a\n2. b"),
    ("no more than two sentences", "One. Two.", "One. Two. Three."),
    ("lowercase the subject", "fix: handle nulls", "fix: Handle nulls"),
    ("don't mention the customer name Acme", "Fixed SSO for some accounts", "Fixed SSO for Acme"),
    ("no markdown", "Maintenance on Saturday.", "**Maintenance** on Saturday."),
    ("stop using the past tense", "Add retry to sender", "Added retry to sender"),
    ("keep the subject under 50 chars", "Short subject\n\n" + "body " * 30, "x" * 60),
    ("too long. keep the whole message under 12 words", "Raise timeout to 30s", "w " * 13),
    ("no emoji please", "Release 4.2", "Release 4.2 🚀"),
    ("you forgot the ticket, e.g. OPS-77", "OPS-12: fix login", "fix login"),
    ("start the subject with `fix:`", "fix: null check", "Null check"),
    ("sign it 'Thanks, Ana'", "Paid.\n\nThanks, Ana", "Paid."),
    ("wrap the body at 72 characters", "Subject\n\nshort lines\nonly", "Subject\n\n" + "x" * 80),
    ("each bullet under 6 words", "- a b c\n- d e", "- a b c d e f g"),
    ("plain text please, this goes to SMS", "Your order shipped.", "Your **order** shipped."),
    ("times should be UTC, not PT", "at 16:40 UTC", "at 9:40 PT"),
    ("write the date as YYYY-MM-DD", "released 2025-03-14", "released March 14"),
    ("drop the period at the end of the subject", "Add pagination\n\nBody.", "Add pagination."),
    ("capitalize the first letter of the title", "Fix typo", "fix typo"),
    ("use logging instead of print", "log.debug('fingerprint %s', k)", "print(k)"),
]


@pytest.mark.parametrize(("said", "follows", "breaks"), FORMS, ids=[f[0] for f in FORMS])
def test_common_forms_compile_to_what_was_meant(said: str, follows: str, breaks: str) -> None:
    assert passes(said, follows), said
    assert not passes(said, breaks), said


def test_alternatives_forbid_the_rejected_one_and_require_nothing() -> None:
    """ "use pytest not unittest": a pytest test need not say "pytest", so only unittest
    is judged; an example pair of tenses ('Add', not 'Added') is not a word rule."""
    judges = rules_from_text("use pytest not unittest", "t")
    assert [(j.kind, j.value) for j in judges] == [("not_contains", "unittest")]
    judges = rules_from_text("imperative please: 'Add', not 'Added'", "t")
    assert [(j.kind, j.value, j.scope) for j in judges] == [("no", "past_tense", "first_line")]


def test_vague_corrections_compile_to_nothing() -> None:
    for said in ("too long", "shorter please", "less jargon", "don't use mocks", "hmm"):
        assert rules_from_text(said, "t") == [], said


def test_never_the_opposite_of_what_was_said() -> None:
    """An example given of what not to write is never required; a complaint phrased as
    a question is no rule; a subject's bare number counts characters, not lines."""
    for said in ("never mention hostnames like db-prod-1",
                 "don't reference tickets like ABC-1 in the subject"):  # fmt: skip
        assert not any(j.kind == "identifier_like" for j in rules_from_text(said, "t")), said
    judges = rules_from_text("only one item? give me 3 or more", "t")
    assert [(j.kind, j.value) for j in judges] == [("min_bullets", "3")]
    judges = rules_from_text("subject line's too long, 72 max", "t")
    assert [(j.kind, j.value, j.scope) for j in judges] == [("max_chars", "72", "first_line")]
    assert rules_from_text("skip the code, just explain", "t") == []  # a part, not a word


def test_a_word_forbidden_only_in_code_when_the_answer_had_it_there() -> None:
    corrected = "Here it is:\n```python\nprint('x')\n```"
    (judge,) = rules_from_text("no print statements", "t", corrected)
    assert (judge.kind, judge.value, judge.scope) == ("not_contains", "print", "code")
    assert rule_score(judge, Outcome("I removed print.\n```python\nlog('x')\n```")) == 1.0


def test_dedupe_keeps_the_latest_of_opposite_judges() -> None:
    a, b = Judge("has", "bullet", source="1"), Judge("no", "bullet", source="2")
    assert dedupe([a, b]) == [b]
    assert dedupe([Judge("max_chars", "50", scope="first_line"), Judge("max_chars", "50")]) == [
        Judge("max_chars", "50", scope="first_line"),
        Judge("max_chars", "50"),
    ]


def test_grammar_alone_is_never_wrong_on_the_tuning_corpus() -> None:
    """Tuning corpus (tuned on): no compiled judge fails the accepted answer or an answer
    that follows the rule; most corrections compile to a judge that separates them."""
    items = [json.loads(x) for x in (CORPUS / "tuning.jsonl").read_text().splitlines() if x]
    wrong, right = [], 0
    for it in items:
        judges = rules_from_text(it["said"], "t", it["corrected"])

        def ok(answer: str, judges: list[Judge] = judges) -> bool:
            return all(rule_score(j, Outcome(answer)) == 1.0 for j in judges)

        if not all(ok(a) for a in [it["accepted"], *it["obeys"]]):
            wrong.append(it["said"])
        elif judges and not ok(it["corrected"]) and not any(ok(v) for v in it["violates"]):
            right += 1
    assert wrong == []
    assert right >= 0.9 * len(items)


def test_commands_run_equally_often_come_out_in_one_order_in_every_process() -> None:
    """Tied commands are ranked by name: a set's order depends on the process's string hash
    seed, and the same store must mine the same tasks in every process."""
    code = (
        "from skillopt_sleep.mining.judges import common_commands\n"
        "turns = [{'git diff', 'pytest -k', 'ruff check', 'make lint'}] * 4\n"
        "print(common_commands(turns))"
    )
    root = Path(__file__).resolve().parents[2]
    seen = set()
    for hash_seed in ("1", "2", "3", "4", "5", "6"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        seen.add(out.stdout.strip())
    assert seen == {"['git diff', 'make lint', 'pytest -k']"}
