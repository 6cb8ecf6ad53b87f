"""Corrections the grammar cannot read go to the judge model, once: its answer is cached in
the store, kept only where the user's words carry it, and verified like any judge. The
model is the edge we do not own: here a scripted one, and (marked local_model) the
embedded 1.5B."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from embedded_helpers import embedded_server
from mining_helpers import COMMIT, CONFIG, add_turn, store
from scripted_helpers import Scripted

from skillopt_sleep.mining import load_tasks, mine
from skillopt_sleep.mining.admissible import admissible
from skillopt_sleep.mining.compiler import (
    CACHE_TABLE,
    CHECK_SCHEMA,
    Compiler,
    LazyModel,
    cache_key,
    judge_model,
    read_checks,
)
from skillopt_sleep.mining.grammar import Check
from skillopt_sleep.mining.verify import Evidence, verify
from trainer.backends.local import local_role_config
from trainer.backends.openai_backend import OpenAIBackend
from trainer.tasks import Judge

ALL_TRAIN = {"mining": {**CONFIG["mining"], "min_groups_to_split": 100}}
# nothing reads a rule here without the model: "a block" names no feature the grammar or
# the pair reads (a fence may be asked for, so the pair alone never forbids one)
SAID = "no need to paste it back in a block, I have it open"
DIFF = "Raise the timeout\n\n```\n-timeout = 5\n+timeout = 30\n```"


def _sessions(db) -> None:
    for s in range(9):
        add_turn(db, f"s{s}", 0, COMMIT[s % len(COMMIT)], s + 1,
                 answer=DIFF if s == 3 else "Raise the request timeout")  # fmt: skip
    add_turn(db, "s3", 1, SAID, 4, answer="Raise the request timeout to 30 seconds")


def _scripted(answer: dict) -> tuple[LazyModel, Scripted]:
    backend = Scripted("judge", lambda system, user: json.dumps(answer))
    return LazyModel("scripted judge", lambda stack: backend), backend


def test_the_model_compiles_once_and_the_next_mining_reads_the_cache(tmp_path: Path) -> None:
    db = store(tmp_path)
    _sessions(db)
    model, backend = _scripted({"checks": [{"kind": "no", "value": "code_fence",
                                            "scope": "answer"}]})  # fmt: skip
    first = mine(db, ALL_TRAIN, model)
    assert len(backend.prompts) == 1 and SAID in backend.prompts[0]
    assert first.report["judges"]["model"] == 1
    assert first.report["judges"]["compiled_by"] == "grammar + judge model (scripted judge)"
    judged = {(j.kind, j.value) for t in load_tasks(db) for j in t.judges}
    assert ("no", "code_fence") in judged  # verified: the fenced diff fails, the fix passes
    (row,) = list(db.query(f"select * from {CACHE_TABLE}"))
    assert row["key"] == cache_key(SAID) and json.loads(row["checks"])[0]["value"] == "code_fence"
    assert SAID not in json.dumps(row)  # the correction's text stays in the turns table
    model2, backend2 = _scripted({"checks": []})
    second = mine(db, ALL_TRAIN, model2)
    assert backend2.prompts == [] and second.report["judges"]["cached"] == 1
    third = mine(db, ALL_TRAIN)  # no model at all: the cache still serves
    assert third.report["judges"]["cached"] == 1
    assert ("no", "code_fence") in {(j.kind, j.value) for t in load_tasks(db) for j in t.judges}


def test_a_model_that_cannot_start_leaves_mining_to_the_grammar(tmp_path: Path) -> None:
    db = store(tmp_path)
    _sessions(db)

    def broken(stack: contextlib.ExitStack):
        raise RuntimeError("the embedded model is not installed")

    result = mine(db, ALL_TRAIN, LazyModel("embedded", broken))
    assert result.report["judges"]["compiled_by"] == (
        "grammar only: the judge model is unavailable (the embedded model is not installed)"
    )
    assert result.report["judges"]["not_compiled"] == 1 and result.n_tasks > 0
    assert list(db.query(f"select * from {CACHE_TABLE}")) == []  # retried next time


def test_the_model_is_asked_when_the_grammars_reading_fails_the_session(tmp_path: Path) -> None:
    """The grammar reads "no 'Certainly!'" as a word and the example as a preamble, but
    the user corrected "Great idea! …": the session shows neither is what they meant. The
    "!" their words touch is what the pair shows, so that is read without the model; where
    the pair shows nothing either, the model is asked, and verification keeps what holds."""
    db = store(tmp_path)
    model, backend = _scripted({"checks": [{"kind": "no", "value": "exclamation",
                                            "scope": "answer"}]})  # fmt: skip
    compiler = Compiler(db, model)
    said, corrected, accepted = "get straight to it, no 'Certainly!'", "Great idea! ^a+$", "^a+$"
    checks = compiler.compile(said, corrected, "a regex for a's", accepted)
    assert checks == [Check("not_contains", "Certainly!"), Check("no", "exclamation", "prose")]
    assert backend.prompts == []
    judges = tuple(Judge(c.kind, c.value, scope=c.scope) for c in checks)
    kept, dropped = verify([Evidence(judges, corrected, accepted, "t:0")], [])
    assert [(j.kind, j.value) for j in kept] == [("no", "exclamation")]
    assert [d.reason for d in dropped] == ["the corrected answer passes it"]
    # a reading that fails the session and nothing the pair shows: the model is asked
    assert compiler.compile(SAID, DIFF, "raise the timeout", "Raise it to 30 s") == []
    assert len(backend.prompts) == 1  # its "no exclamation" is not in these words: dropped
    # a reading that holds on the session asks no model
    assert compiler.compile("no emoji", "Done 🚀", "x", "Done") == [Check("no", "emoji", "prose")]
    assert len(backend.prompts) == 1


def test_model_checks_must_be_grounded_in_the_users_words() -> None:
    said = "we use yarn here, never the other tool, and keep it to 3 lines"
    answer = json.dumps({"checks": [
        {"kind": "not_contains", "value": "npm", "scope": "answer"},  # not in the words
        {"kind": "max_lines", "value": "3", "scope": "answer"},  # the number is
        {"kind": "no", "value": "emoji", "scope": "answer"},  # never named
        {"kind": "max_words", "value": "ten", "scope": "answer"},  # not a number
    ]})  # fmt: skip
    assert read_checks(answer, said) == [Check("max_lines", "3", "answer")]
    assert read_checks("not json at all", said) == []
    assert read_checks('{"checks": [{"kind": "rubric", "value": "x"}]}', said) == []


def test_sim_backend_or_switched_off_means_no_model() -> None:
    with judge_model({"models": {"backend": "sim"}}) as model:
        assert model is None
    off = {"models": {"backend": "local"}, "mining": {"compile_with_model": False}}
    with judge_model(off) as model:
        assert model is None
    with judge_model({"models": {"backend": "local"}}, environ={}) as model:
        assert model is not None and "Qwen2.5-Coder-1.5B" in model.label  # not started yet


@pytest.mark.local_model
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_embedded_judge_model_compiles_a_correction(tmp_path: Path) -> None:
    """REAL MODEL: the embedded 1.5B answers the schema; whatever it compiles is valid,
    grounded in the user's words, cached, and not asked again."""
    db = store(tmp_path)
    with embedded_server("qwen2.5-coder-1.5b", n_ctx=4096, max_tokens=160) as server:
        cfg = local_role_config(server, temperature=0.0, max_tokens=160)
        backend = OpenAIBackend(cfg, limiter=server.limiter, identity="local:1.5b:t=0")
        compiler = Compiler(db, LazyModel("embedded 1.5B", lambda stack: backend))
        said = "without the little icons please"
        checks = compiler.compile(said, "Release 4.2 🚀\n- Faster search ✨", "release notes")
    assert compiler.counts["model"] == 1
    assert all(c.kind in str(CHECK_SCHEMA) for c in checks)
    again = Compiler(db, None)
    assert again.compile(said) == checks and again.counts["cached"] == 1


def test_every_feature_can_be_grounded_and_is_named_to_the_model() -> None:
    """A feature the vocabulary has but the model is never told of, or whose words the
    grounding does not know, could never be read (or would fail on a lookup)."""
    from skillopt_sleep.mining.compiler import _FEATURE_CUES, _SYSTEM
    from trainer.features import FEATURES

    assert set(_FEATURE_CUES) == set(FEATURES)
    assert all(f in _SYSTEM for f in FEATURES)


# What the embedded 1.5B answered (recorded, REAL MODEL, heldout8 rows the grammar reads
# nothing of): a word placed where the user said it goes is the rule; a word the user only
# prefers ("use date-fns") is not, nor one they name as the thing to fix ("add it").
PLACED = "where's the bluf? it goes on the first line"
PLACED_TEXT = '{"checks": [{"kind": "starts_with", "value": "BLUF", "scope": "first_line"}]}'
PREFERRED = (
    "moment is in maintenance mode and bloats the bundle; please use date-fns like the rest "
    "of the frontend"
)
PREFERRED_TEXT = (
    '{"checks": [{"kind": "contains", "value": "date-fns", "scope": "answer"}, '
    '{"kind": "not_contains", "value": "moment", "scope": "answer"}]}'
)


def test_a_word_the_model_places_where_the_user_said_it_goes_is_kept(tmp_path: Path) -> None:
    corrected = "Yesterday the DNS provider had a 40 minute outage."
    accepted = "BLUF: 40 min DNS outage, recovered by manual failover."
    model, backend = _scripted(json.loads(PLACED_TEXT))
    compiler = Compiler(store(tmp_path), model)
    checks = compiler.compile(PLACED, corrected, "summarise the incident", accepted)
    assert checks == [Check("starts_with", "BLUF", "first_line")]
    assert len(backend.prompts) == 1
    kept, _ = verify([Evidence((Judge("starts_with", "BLUF", scope="first_line"),),
                               corrected, accepted, "t:0")], [])  # fmt: skip
    assert [j.value for j in kept] == ["BLUF"]
    # a start the user did not speak of is no rule, however the words read
    assert not admissible(Check("starts_with", "BLUF", "first_line"), "where's the bluf?")


def test_a_word_the_user_only_prefers_is_still_refused(tmp_path: Path) -> None:
    model, _ = _scripted(json.loads(PREFERRED_TEXT))
    compiler = Compiler(store(tmp_path), model)
    corrected = "import moment from 'moment';\nmoment(d).format('YYYY-MM-DD')"
    assert read_checks(PREFERRED_TEXT, PREFERRED) == [
        Check("contains", "date-fns"), Check("not_contains", "moment")
    ]  # fmt: skip
    assert compiler.compile(PREFERRED, corrected, "format a date", "format(d, 'yyyy-MM-dd')") == []
    assert compiler.counts["model"] == 1
