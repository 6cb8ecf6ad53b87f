"""The trainer against the REAL embedded target (Qwen2.5-Coder-0.5B on llama.cpp).

First what everything else rests on: a skill changes what the embedded target writes, on
rule-judged tasks (the issue measured 0/30 -> 23/30; here at a size CI affords). Then the
loop on real, odd output: every answer is parsed or counted, edits reach the gate, a rerun
replays from the cache.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from trainer import MemoryCache, TrainSettings, optimize
from trainer.edits import ORIGINS, Edit
from trainer.lr import LearningRate
from trainer.reflect import copies_prompt
from trainer.rollout import Outcome, rollout_messages
from trainer.scoring import rule_score
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(900)]

try:
    from trainer.backends.local import LocalServer, local_roles
    from trainer.backends.models import QWEN_05B, installed
except ImportError as err:  # pragma: no cover - the 'local' extra is missing
    pytest.skip(f"local backend not importable: {err}", allow_module_level=True)
if not installed(QWEN_05B):
    pytest.skip("local model not installed (extra 'local')", allow_module_level=True)

PROJECT = Path(__file__).resolve().parents[2]
SAMPLES = PROJECT / "skillopt_sleep" / "data" / "samples"
DIFFS = runpy.run_path(str(PROJECT / "benchmarks" / "samples" / "demo_changes.py"))
START = (SAMPLES / "skills" / "commit-message" / "SKILL.md").read_text()
# The sample user's corrections, as mining turns them into rules.
JUDGES = (
    Judge("max_chars", "50", 1.0, "user: too long, keep the subject under 50 chars",
          scope="first_line"),
    Judge("no", "past_tense", 1.0, "user: imperative please: 'add', not 'added'",
          scope="first_line"),
    Judge("not_ends_with", ".", 1.0, "user: no full stop at the end of the subject",
          scope="first_line"),
)  # fmt: skip


def commit_tasks(n: int, split: str = "val") -> list[Task]:
    out = []
    for i, change in enumerate(DIFFS["CHANGES"][:n]):
        prompt = (
            f"commit message for the staged diff please ({change[5]})\n\n"
            f"```diff\n{DIFFS['diff_text'](*change)}\n```"
        )
        out.append(Task(f"c{i}", prompt, split, JUDGES))
    return out


def passes(server: LocalServer, skill: str, tasks: list[Task]) -> int:
    """Tasks whose answer meets every judge; temperature 0, one answer per task."""
    target = local_roles(server, {"target": {"temperature": 0.0}}).target
    doc = SkillDoc.parse(skill)
    ok = 0
    for task in tasks:
        answer = target.complete(rollout_messages(doc, task), max_tokens=40).text
        ok += all(rule_score(j, Outcome(answer)) == 1.0 for j in task.judges)
    return ok


def test_a_skill_that_states_the_rules_changes_what_the_target_writes(
    local_server: LocalServer,
) -> None:
    """The user's own skill (what a message should tell her) leaves her house style to
    chance; the same skill with her corrections added as rules is followed."""
    tasks = commit_tasks(16)
    rules = START.rstrip() + (
        "\n- Keep the subject under 50 chars.\n- Imperative: 'add', not 'added'.\n"
        "- No full stop at the end of the subject.\n"
    )
    before, after = passes(local_server, START, tasks), passes(local_server, rules, tasks)
    print(f"\nrule-judged commit tasks, 0.5B, temperature 0: {before}/16 -> {after}/16")
    # measured here: 5/16 -> 9/16 (8 tasks: 1/8 -> 4/8); a rule-stating skill is followed
    # on a few more tasks, not on all (the 0.5B keeps some past tenses and full stops)
    assert after - before >= 3, (before, after)


def test_local_model_answers_parse_and_edits_reach_the_gate(local_server: LocalServer) -> None:
    """Schema-bounded answers: proposals and rubric verdicts parse (or are recovered), at
    least one edit the model wrote itself applies and gets the gate's verdict on evidence
    (the 0.5B as optimizer: the reflection prompt holds no example edit it could copy), and a
    rerun replays every call from the cache and ends the same."""
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
        max_answer_tokens=32,
        screen=False,  # every applicable edit goes to the gate
        # an edit's text is bounded by the schema (480 characters each): never over budget
        lr=LearningRate(max_edits=2, max_changed_tokens=500),  # two chances per proposal
    )
    cache, roles = MemoryCache(), local_roles(local_server, {})
    result = optimize(skill, tasks, roles, settings=settings, cache=cache)
    c = result.counters
    assert result.stop_reason == "completed" and result.usage.infra_errors == 0
    for kind in ("proposals", "judgments"):
        ok = c.get(f"parsed_{kind}", 0) + c.get(f"repaired_{kind}", 0)
        total = ok + c.get(f"unparseable_{kind}", 0)
        assert total > 0 and ok / total >= 0.8, (kind, c)
    assert c.get("comparisons", 0) >= 1, (c, result.rejected)
    # every comparison ends in a verdict: accepted, rejected, or pending with its evidence
    rejected = [r for r in result.rejected if r.reason.startswith("gate:")]
    assert len(rejected) + result.accepted + len(result.pending) == c["comparisons"]
    # what reached the gate is the model's own: the prompt shows no edit to copy, and an
    # edit made of the prompt's own words is dropped before the screen
    undecided = [Edit.from_dict(e) for r in [*result.pending, *rejected] for e in r.edits]
    gated = [e for h in result.history for e in h.edits] + undecided
    assert gated and all(e.origin in ORIGINS and not copies_prompt(e) for e in gated), gated
    again = optimize(skill, tasks, roles, settings=settings, cache=cache)
    assert again.usage.live_calls == 0 and again.best_skill.hash == result.best_skill.hash
