"""The rollout seam: the engine reaches the target only through a RolloutAdapter, outcomes
are cached like answers, and outcome judges score what an agent did, not what it said."""

from __future__ import annotations

import re
import threading
from dataclasses import replace

import pytest

from trainer import MemoryCache, TrainSettings, optimize
from trainer.backends.base import InfraError
from trainer.budget import Budget
from trainer.calls import Caller, RolloutJob
from trainer.rollout import ChatRollout, Outcome, ToolCall
from trainer.scoring import Rollout, Scorer, rule_score
from trainer.sim import SimWorld
from trainer.skill import SkillDoc
from trainer.tasks import Judge, Task, TaskWorkspace

HARNESS = Outcome(
    answer="Done.",
    where="claude-code",
    tool_calls=(ToolCall("Bash", "git diff --staged", 0), ToolCall("Bash", "pytest -q", 1)),
    files_changed=("src/app.py", "tests/test_app.py"),
    exit_status=0,
    checks={"pytest -q tests/test_app.py": 0, "ruff check .": 1},
)
CHAT = Outcome(answer="I ran git diff --staged and changed src/app.py.")


@pytest.mark.parametrize(
    ("kind", "value", "harness", "chat"),
    [
        ("command_ran", r"^git diff\b", 1.0, None),
        ("command_ran", r"\bmake\b", 0.0, None),
        ("file_changed", "src/*.py", 1.0, None),
        ("file_changed", "docs/*", 0.0, None),
        ("file_unchanged", "docs/*", 1.0, None),
        ("file_unchanged", "tests/*", 0.0, None),
        ("exit_ok", "", 1.0, None),
        ("check", "pytest -q tests/test_app.py", 1.0, None),
        ("check", "ruff check .", 0.0, None),
        ("check", "never run", 0.0, None),
        ("contains", "done", 1.0, 0.0),
    ],
)
def test_outcome_judges_read_what_the_agent_did(kind, value, harness, chat) -> None:
    judge = Judge(kind, value)
    assert rule_score(judge, HARNESS) == harness
    # a chat answer that *mentions* the command or file never passes an outcome judge
    assert rule_score(judge, CHAT) == chat


def test_outcome_judges_are_left_out_of_a_chat_score() -> None:
    task = Task(
        "t1", "commit it", "val", (Judge("command_ran", "git diff"), Judge("max_words", "3"))
    )
    only_outcome = replace(task, id="t2", judges=(Judge("exit_ok", ""),))
    scorer = Scorer(Caller(None, MemoryCache(), Budget()), {})  # type: ignore[arg-type]
    short, none = scorer.score(
        [Rollout(task, 0, "h", Outcome("two words")), Rollout(only_outcome, 0, "h", CHAT)]
    )
    assert short is not None and short.score == 1.0  # max_words alone decides
    assert none is None  # nothing applies: no usable judgment, not a failure


def test_outcome_round_trips_through_its_dict() -> None:
    assert Outcome.from_dict(HARNESS.to_dict()) == HARNESS
    task = Task("t", "p", "train", workspace=TaskWorkspace("/r", "abc", ("make",)))
    assert task.to_dict()["workspace"] == {"repo": "/r", "commit": "abc", "setup": ["make"]}
    assert Task.from_dict(task.to_dict()).workspace == task.workspace
    assert "workspace" not in Task("t", "p", "train").to_dict()


class Workbench:
    """A harness stand-in over the simulated target: every rule marker the target follows
    becomes a command it ran, and the answer says nothing. Judges must read the tools."""

    simulation = True

    def __init__(self, world: SimWorld) -> None:
        self.chat = ChatRollout(world.roles().target)
        self.identity = f"workbench/{self.chat.identity}"
        self.concurrency = 1
        self.calls = 0
        self.fail_next = False
        self.lock = threading.Lock()

    def fingerprint(self, skill: SkillDoc, task: Task, max_tokens: int | None) -> list:
        return [task.prompt, [j.value for j in task.judges], max_tokens]

    def rollout(self, skill: SkillDoc, task: Task, *, max_tokens: int | None) -> Outcome:
        with self.lock:
            self.calls += 1
            if self.fail_next:
                self.fail_next = False
                raise InfraError("harness broke")
        said = self.chat.rollout(skill, task, max_tokens=max_tokens)
        ran = tuple(ToolCall("Bash", f"run {w}", 0) for w in said.answer.split() if "-" in w)
        return Outcome("Done.", said.input_tokens, said.output_tokens, where="workbench",
                       tool_calls=ran, exit_status=0)  # fmt: skip


def _as_command_tasks(world: SimWorld) -> list[Task]:
    return [
        replace(
            t, judges=tuple(Judge("command_ran", re.escape(f"run {j.value}")) for j in t.judges)
        )
        for t in world.tasks
    ]


def test_engine_runs_through_a_non_chat_adapter_and_replays_it_from_cache() -> None:
    world = SimWorld.generate(4, n_rules=4, n_harmful=1, n_train=12, n_val=30, n_test=20)
    assert all(j.kind == "contains" and "-" in j.value for t in world.tasks for j in t.judges)
    tasks = _as_command_tasks(world)
    settings = TrainSettings(epochs=1, steps_per_epoch=3, minibatch=6, samples=2, seed=3)
    bench, cache = Workbench(world), MemoryCache()
    first = optimize(world.start_skill, tasks, world.roles(), settings=settings, cache=cache,
                     rollout=bench)  # fmt: skip
    assert first.counters["rollouts_workbench"] == bench.calls > 0
    assert "rollouts_chat" not in first.counters
    assert first.counters["comparisons"] >= 1  # outcomes were scored and reached the gate
    paid = bench.calls
    again = optimize(world.start_skill, tasks, world.roles(), settings=settings, cache=cache,
                     rollout=bench)  # fmt: skip
    assert bench.calls == paid  # every outcome came back from the cache
    assert again.best_skill.hash == first.best_skill.hash and again.history == first.history


def test_a_broken_harness_is_never_a_task_failure() -> None:
    world = SimWorld.generate(5, n_rules=4, n_harmful=0, n_train=4, n_val=10, n_test=4)
    bench = Workbench(world)
    caller = Caller(world.roles(), MemoryCache(), Budget())
    jobs = [RolloutJob(world.start_skill, t, 0) for t in _as_command_tasks(world)[:2]]
    bench.fail_next = True
    outcomes = caller.rollouts(bench, jobs, None)
    assert outcomes[0] is None and outcomes[1] is not None
    assert caller.budget.usage.infra_errors == 1 and caller.budget.usage.calls == 1
    # the failure was not cached: asking again pays for it, and only for it
    before = bench.calls
    assert all(o is not None for o in caller.rollouts(bench, jobs, None))
    assert bench.calls == before + 1
