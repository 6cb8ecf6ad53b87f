"""A short training run against the REAL local model (SmolLM2-135M on llama.cpp).

The model is weak: this proves the loop's plumbing on real, odd output — the run completes,
every optimizer answer is parsed or counted as unparseable, nothing crashes.
"""

from __future__ import annotations

import pytest

from trainer import MemoryCache, TrainSettings, optimize
from trainer.lr import LearningRate
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(300)]

try:
    from trainer.backends.local import LocalServer, find_gguf, local_roles

    find_gguf()
except Exception as err:  # noqa: BLE001 - any reason means: skip, with the reason shown
    pytest.skip(f"local model not available: {err}", allow_module_level=True)


def test_short_run_on_the_local_model_completes_and_counts_everything() -> None:
    skill = SkillDoc(name="py-style", description="Python style.", body="# Style\n\n- Be brief.\n")
    topics = ["list", "dict", "loop", "file", "string", "class", "test", "sort", "sum"]
    tasks = [
        Task(
            f"t{i}",
            f"In one sentence, how do I use a Python {t}?",
            "train" if i < 2 else "val",
            (Judge("contains", "python"), Judge("max_words", "60")),
        )
        for i, t in enumerate(topics)
    ]
    settings = TrainSettings(
        epochs=1,
        steps_per_epoch=2,
        minibatch=2,
        train_samples=1,
        samples=1,
        max_samples=1,
        max_answer_tokens=80,
        lr=LearningRate(max_edits=1, max_changed_tokens=40),
    )
    cache = MemoryCache()
    with LocalServer() as server:
        roles = local_roles(server, {})
        result = optimize(skill, tasks, roles, settings=settings, cache=cache)
        again = optimize(skill, tasks, roles, settings=settings, cache=cache)
    assert result.stop_reason == "completed"
    assert result.usage["live_calls"] > 0 and result.usage["infra_errors"] == 0
    reflections = sum(1 for _ in range(2))  # at most one per step
    c = result.counters
    answered = c.get("proposed_edits", 0) > 0 or c.get("unparseable_proposals", 0) > 0
    assert answered or c.get("steps_without_failures", 0) == reflections
    assert again.usage["live_calls"] == 0  # replayed from the cache
    assert again.best_skill.hash == result.best_skill.hash


def test_local_model_answers_parse_and_edits_reach_the_gate() -> None:
    """Schema-bounded answers: proposals and rubric verdicts parse (or are recovered) and
    at least one proposed edit applies and gets the gate's verdict on evidence."""
    skill = SkillDoc(
        name="py-help",
        description="Answers Python questions.",
        body="# Python help\n\n## Rules\n\n- Be brief.\n- Name the function to use.\n",
    )
    topics = ["list", "dict", "loop", "file", "string", "class", "test", "sort", "sum", "set"]
    rubric = "Gives one correct, concrete Python example in plain words."
    tasks = [
        Task(
            f"t{i}",
            f"How do I use a Python {t}? One sentence.",
            "train" if i < 4 else "val",
            (Judge("contains", "python"), Judge("rubric", rubric)),
        )
        for i, t in enumerate(topics)
    ]
    settings = TrainSettings(
        epochs=1,
        steps_per_epoch=2,
        minibatch=2,
        train_samples=1,
        samples=1,
        max_samples=1,
        max_answer_tokens=40,
        screen=False,  # every applicable edit goes to the gate
        # an edit's text is bounded to 480 characters by the schema: never over budget
        lr=LearningRate(max_edits=1, max_changed_tokens=500),
    )
    with LocalServer() as server:
        result = optimize(skill, tasks, local_roles(server, {}), settings=settings)
    c = result.counters
    assert result.stop_reason == "completed" and result.usage["infra_errors"] == 0
    for kind in ("proposals", "judgments"):
        ok = c.get(f"parsed_{kind}", 0) + c.get(f"repaired_{kind}", 0)
        total = ok + c.get(f"unparseable_{kind}", 0)
        assert total > 0 and ok / total >= 0.8, (kind, c)
    assert c.get("comparisons", 0) >= 1, (c, result.rejected)
    # every comparison ends in a verdict: accepted, rejected, or pending with its evidence
    rejected = [r for r in result.rejected if r["reason"].startswith("gate:")]
    assert len(rejected) + result.accepted + len(result.pending) == c["comparisons"]
