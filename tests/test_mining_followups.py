"""A follow-up after an answer is a correction, an acknowledgement or a new request; by
form and position, not by whether a rule can be compiled from it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from benchmarks.corpus import KINDS, request_text
from skillopt_sleep.mining.followups import ACK, CORRECTION, REQUEST, classify

CORPUS = Path(__file__).parent / "fixtures" / "corrections"


@pytest.mark.parametrize(
    "text",
    [
        "nope, the subject must stay under 60 characters",
        "I told you: no semicolons",
        "too formal for a slack message",
        "you forgot the migration note",
        "lower-case the scope",
        "prose, not a table",
        "60-char subjects.",  # a bare restatement of a rule
        "hmm, that did not work",  # an outcome complaint about the same task
        "mention the ticket, like OPS-3",
        "can you take out the emoji",
    ],
)
def test_corrections_in_many_phrasings(text: str) -> None:
    assert classify(text, "some answer") == CORRECTION


@pytest.mark.parametrize(
    "text",
    [
        "now do the release notes",
        "also add a test for the timeout case",
        "what about the retry path?",
        "write a test that checks the max length",  # form words, but new work
        "delete the old branch",  # takes out something the answer does not have
        "no rush, but could you also look at the flaky test",
        "I need a script that renames files",
    ],
)
def test_new_requests_stay_requests(text: str) -> None:
    assert classify(text, "Add retry to the webhook sender") == REQUEST


def test_acknowledgements_and_position() -> None:
    assert classify("thanks, perfect", "x") == ACK
    assert classify("👍", "x") == ACK
    assert classify("go ahead", "x") == ACK  # after an answer, "go ahead" accepts it
    # taking something out is a correction when the answer has it
    assert classify("remove the retry wrapper", "def f():\n    with retry_wrapper(): ...") == (
        CORRECTION
    )
    assert classify("remove the retry wrapper", "Done: the job is scheduled.") == REQUEST
    assert classify("") == REQUEST
    assert classify("fix this:\n```\nTraceback ...\n```", "x") == REQUEST  # a pasted blob


def test_full_requests_with_a_tail_are_requests() -> None:
    """A second request in a session is no correction because it ends "keep it small" or
    names a missing thing: its first clause asks for new work (benchmarks/corpus.py's
    requests, 300 per kind, as follow-ups)."""
    rng = random.Random(11)
    misread = [
        text
        for kind in KINDS
        for _ in range(300)
        if classify(text := request_text(kind, rng), "Done; the tests pass.") != REQUEST
    ]
    assert misread == []
    assert classify("quick one: keep it small", "Done.") == CORRECTION  # no new work in it


def _lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines() if line]


def test_tuning_corpus_recognition() -> None:
    """On the tuning corpus (written for this, tuned on): every correction is recognised
    and no new request or acknowledgement is taken for one."""
    items = _lines("tuning.jsonl")
    assert len(items) >= 150 and len({i["rule"] for i in items}) >= 40
    missed = [i["said"] for i in items if classify(i["said"], i["corrected"]) != CORRECTION]
    assert missed == []
    others = _lines("tuning_not_corrections.jsonl")
    assert len(others) >= 60
    wrong = [(o["text"], classify(o["text"], "x")) for o in others]
    assert [(t, got) for (t, got), o in zip(wrong, others, strict=True) if got != o["label"]] == []
