"""``skillopt-sleep tasks check``: score an answer with a task's judges, as a night does.

Rule judges are scored by the trainer's own scorer (``trainer.scoring``), so what passes
here passes at night; outcome judges need an agent harness run and are not scored for a
plain answer; rubric judges only with ``--rubric``, which asks the judge model. A judge
passes at a score of 0.5 or more (rule judges score 0 or 1).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from skillopt_sleep.cli.context import App, UserError, echo_json
from trainer.nonanswer import non_answer
from trainer.rollout import Outcome
from trainer.scoring import Rollout, Scorer, rule_score
from trainer.shapes import CHECK, stamp, unstamped
from trainer.tasks import Judge, Task, user_said


def _answer(answer_file: Path | None, answer_text: str | None) -> str:
    if (answer_file is None) == (answer_text is None):
        raise UserError("give the answer to score: --answer FILE or --answer-text TEXT (one)")
    if answer_text is not None:
        return answer_text
    assert answer_file is not None
    if str(answer_file) == "-":
        return sys.stdin.read()
    try:
        return answer_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError(f"cannot read {answer_file}: {reason}") from None


@dataclass(frozen=True)
class JudgeResult:
    """One judge on the answer: ``passed`` None when it was not scored."""

    kind: str
    value: str
    scope: str
    passed: bool | None
    score: float | None
    source: str
    quotes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value, "scope": self.scope,
                "pass": self.passed, "score": self.score, "source": self.source,
                "quotes": list(self.quotes)}  # fmt: skip

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> JudgeResult:
        return cls(d["kind"], d["value"], d["scope"], d["pass"], d["score"], d["source"],
                   tuple(d["quotes"]))  # fmt: skip


@dataclass(frozen=True)
class CheckResult:
    """What ``tasks check`` found (``--json`` prints ``to_json``): each judge's result,
    and the night's score and pass-all over the judges scored."""

    task: str
    pass_all: bool
    score: float | None
    judges: tuple[JudgeResult, ...]

    def to_json(self) -> dict[str, Any]:
        return stamp(CHECK, {"task": self.task, "pass_all": self.pass_all, "score": self.score,
                             "judges": [j.to_json() for j in self.judges]})  # fmt: skip

    @classmethod
    def from_json(cls, stored: Any) -> CheckResult:
        """A printed check of any version (``ShapeError`` for a newer release's)."""
        d = unstamped(CHECK, stored)
        return cls(d["task"], d["pass_all"], d["score"],
                   tuple(JudgeResult.from_json(j) for j in d["judges"]))  # fmt: skip


def check_answer(task: Task, answer: str, scorer: Scorer, rubric: bool) -> CheckResult:
    """The task's judges on ``answer``: each judge's result and the night's score over the
    judges scored (rubric judges only when ``rubric``)."""
    outcome = Outcome(answer)
    scored = tuple(j for j in task.judges if rubric or j.kind != "rubric")
    rows = []
    for judge in task.judges:
        score: float | None = None
        if judge.kind == "rubric":
            if rubric:  # a one-judge task: the verdict alone (the call is cached below)
                one = scorer.score([Rollout(replace(task, judges=(judge,)), 0, "", outcome)])[0]
                score = one.score if one is not None else None
        else:
            score = rule_score(judge, outcome)
        rows.append(_row(judge, score))
    total = scorer.score([Rollout(replace(task, judges=scored), 0, "", outcome)])[0]
    # pass-all as a night counts it (every rule judge that applied passed, and the answer
    # is one: empty, the request echoed back or a refusal fails), and with --rubric the
    # rubric passes too
    night = total.pass_all if total is not None else None
    passed = night is not False and all(r.passed for r in rows if r.passed is not None)
    score = None if total is None else round(total.score, 4)
    return CheckResult(task.id, passed, score, tuple(rows))


def _row(judge: Judge, score: float | None) -> JudgeResult:
    said = user_said(judge.source)
    return JudgeResult(
        kind=judge.kind,
        value=judge.value,
        scope=judge.scope,
        passed=None if score is None else score >= 0.5,
        score=score,
        source=judge.source,
        quotes=judge.quotes or ((said,) if said else ()),
    )


@click.command("check")
@click.argument("task_id")
@click.option(
    "--answer",
    "answer_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="File holding the answer to score ('-' reads standard input).",
)
@click.option("--answer-text", help="The answer to score, given as text.")
@click.option("--rubric", is_flag=True, help="Also score rubric judges (asks the judge model).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_obj
def check_cmd(app: App, task_id: str, answer_file: Path | None, answer_text: str | None,
              rubric: bool, as_json: bool) -> None:  # fmt: skip
    """Score an answer with TASK_ID's judges exactly as a night does.

    Exit 0 when it passes every judge scored, 1 when it fails one, 2 on bad input.
    Outcome judges (commands run, files changed) need a harness run and are not scored.

    \b
    Example:
      skillopt-sleep tasks check t-0f1e2d3c4b5a --answer-text "Fix parser crash on empty input"
      skillopt-sleep tasks check t-0f1e2d3c4b5a --answer msg.txt --json
    """
    from skillopt_sleep.mining import mine_if_stale
    from skillopt_sleep.mining.query import all_tasks

    answer = _answer(answer_file, answer_text)
    mine_if_stale(app.db, app.config)
    found = all_tasks(app.db).get(task_id)
    if found is None:
        raise UserError(f"no task {task_id!r}; see `skillopt-sleep tasks list`")
    task = found[0]
    if rubric and any(j.kind == "rubric" for j in task.judges):
        out = _with_judge_model(app, task, answer)
    else:
        out = check_answer(task, answer, Scorer(None, Counter()), rubric=False)
    if as_json:
        echo_json(out.to_json())
    else:
        _print(out, non_answer(Outcome(answer), task.prompt))
    if not out.pass_all:
        raise SystemExit(1)


def _with_judge_model(app: App, task: Task, answer: str) -> CheckResult:
    from skillopt_sleep.settings.config import state_dir
    from trainer.backends.base import InfraError, Roles
    from trainer.backends.factory import build_judge
    from trainer.budget import Budget
    from trainer.cache import MemoryCache
    from trainer.calls import Caller

    try:
        with build_judge(app.config["models"], os.environ,
                         local_log_dir=state_dir(app.config)) as judge:  # fmt: skip
            caller = Caller(Roles(judge, judge, judge), MemoryCache(), Budget())
            return check_answer(task, answer, Scorer(caller, Counter()), rubric=True)
    except ValueError as exc:
        raise UserError(f"--rubric needs a judge model: {exc}") from None
    except InfraError as exc:
        raise click.ClickException(f"the judge model could not be asked: {exc}") from None


def _print(out: CheckResult, why: str | None) -> None:
    for j in out.judges:
        verdict = "n/a " if j.passed is None else ("pass" if j.passed else "FAIL")
        value = j.value.split("\n")[0][:60]
        scope = f" ({j.scope})" if j.scope != "answer" else ""
        said = f'  <- "{j.quotes[0][:60]}"' if j.quotes and j.kind != "rubric" else ""
        click.echo(f"  {verdict} {j.kind} {value}{scope}{said}")
    score = "n/a" if out.score is None else f"{out.score:.2f}"
    verdict = "passes every judge scored" if out.pass_all else "fails"
    if why:
        verdict += f": {why}"
    click.echo(f"task {out.task}: score {score}; {verdict}")
