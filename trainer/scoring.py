"""Scoring outcomes, and what the optimizer may learn about the scoring.

Rule judges are exact and local: answer judges read the final answer, outcome judges what
an agent harness did (commands run, files changed, its exit status, check commands).
Outcome judges do not apply to a chat rollout and are left out of its score. Rubric
judges go to the judge role, which answers a JSON verdict; an answer that cannot be
recovered is counted and that judge is left out of the sample's score (never scored as a
failure of the target). A score is the judges' weighted mean, and says whether the answer
passed every rule judge that applied (*pass-all*: what the user would have accepted). A
non-answer (`trainer.nonanswer`: empty, the request echoed, a refusal) fails its task
before any judge is asked.

The judge firewall. The optimizer is told what went wrong in words ("the answer left out
something the task expected"), never the judge's internals: no regex, no literal, no rubric
text. Otherwise it learns to write the test into the skill — a skill that passes our judges
and helps no one. `Firewall` also rejects edits that copy internals: a regex verbatim, any
six-word run of a rubric, or a long literal (>= 4 words or >= 30 characters). Short
literals ("pytest", "--dry-run") are allowed: naming the right tool *is* the knowledge a
skill should carry, and mined `contains` judges are mostly such terms. What the user said
(a judge's `quotes`: their corrections, their request) is not an internal: a skill may
restate it in their words, and a judge's reason may quote it; the firewall guards only the
rest (the rubric's scaffolding, a reference answer, regexes, literals the user never said).
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import json_repair

from trainer import checks
from trainer.backends.base import Completion
from trainer.calls import Caller, Request
from trainer.checks import CHECK_KINDS
from trainer.nonanswer import non_answer
from trainer.rollout import Outcome
from trainer.skill import tokens
from trainer.tasks import OUTCOME_JUDGES, Judge, Task, user_said

# A grade from 0 to 10 (an integer: a small model fills it far more reliably than a 0..1
# float) and a bounded reason; the bounds keep the answer complete within JUDGE_MAX_TOKENS.
VERDICT_SCHEMA: dict[str, Any] = {
    "title": "verdict",
    "type": "object",
    "properties": {
        "grade": {"type": "integer", "minimum": 0, "maximum": 10},
        "reason": {"type": "string", "maxLength": 60},
    },
    "required": ["grade", "reason"],
    "additionalProperties": False,
}
JUDGE_MAX_TOKENS = 80
USER_SAID = "; the user said: "  # feedback quotes the user's own words after this

_WORDS = {
    "contains": "the answer left out something the task expected",
    "not_contains": "the answer included something the task should avoid",
    "regex": "the answer did not have the expected form",
    "not_regex": "the answer had a form the task should avoid",
    "starts_with": "the answer did not begin the way the task expects",
    "not_starts_with": "the answer began in a way the task should avoid",
    "ends_with": "the answer did not end the way the task expects",
    "not_ends_with": "the answer ended in a way the task should avoid",
    "has": "the answer lacked a form the task expects",
    "no": "the answer had a form the task should avoid",
    "identifier_like": "the answer left out an identifier the task expected",
    "rubric": "the answer fell short of the quality the task asks for",
    "command_ran": "the agent did not run a command the task needed",
    "file_changed": "the agent did not change a file the task needed changed",
    "file_unchanged": "the agent changed a file the task should leave alone",
    "exit_ok": "the agent did not finish cleanly",
    "check": "the task's check failed after the agent's work",
    **{f"max_{u}": f"the answer had more {u} than the task wants" for u in checks.COUNT_UNITS},
    **{f"min_{u}": f"the answer had fewer {u} than the task wants" for u in checks.COUNT_UNITS},
    "max_words": "the answer was longer than the task wants",
}


def read_json(text: str) -> tuple[dict[str, Any] | None, bool]:
    """``(object, recovered)`` from a model answer: strict JSON first, then the first
    ``{...}`` span repaired by json_repair (recovered=True); ``(None, False)`` if neither
    gives a non-empty object."""
    try:
        value = json.loads(text.strip())
    except (ValueError, TypeError):
        pass
    else:
        if isinstance(value, dict) and value:
            return value, False
    match = re.search(r"\{.*\}", text, re.DOTALL) or re.search(r"\{.*", text, re.DOTALL)
    candidate = match.group(0) if match else text
    try:
        value = json_repair.loads(candidate)
    except Exception:  # noqa: BLE001 - json_repair may raise on pathological input
        return None, False
    return (value, True) if isinstance(value, dict) and value else (None, False)


def rule_score(judge: Judge, outcome: Outcome) -> float | None:
    """1.0 pass, 0.0 fail; None where the judge does not apply (an outcome judge on a
    chat rollout)."""
    if judge.kind in OUTCOME_JUDGES:
        return _outcome_score(judge, outcome) if outcome.harness else None
    if judge.kind not in CHECK_KINDS:
        raise ValueError(f"not a rule judge: {judge.kind}")
    return float(checks.passes(judge.kind, judge.value, judge.scope, outcome.answer))


def _outcome_score(judge: Judge, outcome: Outcome) -> float:
    if judge.kind == "command_ran":
        return float(any(_search(judge.value, c.command) for c in outcome.tool_calls))
    if judge.kind == "file_changed":
        return float(any(fnmatch.fnmatchcase(f, judge.value) for f in outcome.files_changed))
    if judge.kind == "file_unchanged":
        return float(not any(fnmatch.fnmatchcase(f, judge.value) for f in outcome.files_changed))
    if judge.kind == "exit_ok":
        return float(outcome.exit_status == 0)
    return float(outcome.checks.get(judge.value, 1) == 0)  # "check": a missing run fails


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text, re.MULTILINE) is not None
    except re.error:
        return False


@dataclass
class Scored:
    """One answer's score: the judges' weighted mean, and whether it passed every rule
    judge that applied (rule and outcome judges; the rubric is a grade, not a rule). Pass-all
    is what the user would have accepted; None when no rule judge applied (nothing says)."""

    score: float
    feedback: list[str] = field(default_factory=list)  # words, firewall-safe
    pass_all: bool | None = None

    @classmethod
    def failed(cls, words: str, task: Task, outcome: Outcome) -> Scored:
        """An attempt that failed its task whatever its judges say (no answer, a copy of
        the skill's example, a context overflow): score 0, and pass-all false where the
        task has a rule judge for this kind of attempt (else pass-all says nothing, as for
        any answer to that task)."""
        return cls(0.0, [words], pass_all=False if has_rules(task, outcome) else None)


def has_rules(task: Task, outcome: Outcome) -> bool:
    """Whether some rule judge of `task` applies to this attempt (outcome judges only to
    an agent harness's): the tasks pass-all is measured on."""
    return any(
        j.kind != "rubric" and (outcome.harness or j.kind not in OUTCOME_JUDGES)
        for j in task.judges
    )


@dataclass
class Rollout:
    task: Task
    sample: int | str
    skill_hash: str
    outcome: Outcome

    @property
    def answer(self) -> str:
        return self.outcome.answer


class Scorer:
    """Scores rollouts with their tasks' judges; ``caller`` asks the judge role for rubric
    verdicts (None: rule and outcome judges only, as ``tasks check`` without --rubric)."""

    def __init__(self, caller: Caller | None, counters: dict[str, int]) -> None:
        self.caller = caller
        self.counters = counters

    def score(self, rollouts: list[Rollout]) -> list[Scored | None]:
        """Scores in order; None for a sample with no usable judgment."""
        requests: list[Request] = []
        where: list[tuple[int, int]] = []
        missed = [non_answer(ro.outcome, ro.task.prompt) for ro in rollouts]
        for r_i, ro in enumerate(rollouts):
            if missed[r_i]:
                continue  # no answer to grade: no judge call
            for j_i, judge in enumerate(ro.task.judges):
                if judge.kind == "rubric":
                    requests.append(rubric_request(ro, judge))
                    where.append((r_i, j_i))
        verdicts: dict[tuple[int, int], tuple[float, str] | None] = {}
        if requests and self.caller is None:
            raise ValueError("rubric judges need the judge model: Scorer(caller=...)")
        if requests and self.caller is not None:
            for pos, comp in zip(where, self.caller.run("judge", requests), strict=True):
                verdicts[pos] = self._verdict(comp)
        out: list[Scored | None] = []
        for r_i, ro in enumerate(rollouts):
            if why := missed[r_i]:
                self.counters["non_answers"] = self.counters.get("non_answers", 0) + 1
                out.append(Scored.failed(why, ro.task, ro.outcome))
                continue
            total = weight = 0.0
            words: list[str] = []
            rules: list[bool] = []  # each applicable rule judge: passed?
            for j_i, judge in enumerate(ro.task.judges):
                if judge.kind == "rubric":
                    v = verdicts.get((r_i, j_i))
                    if v is None:
                        continue
                    s, reason = v
                else:
                    rule = rule_score(judge, ro.outcome)
                    if rule is None:
                        continue
                    s, reason = rule, ""
                    rules.append(s >= 1.0)
                total += judge.weight * s
                weight += judge.weight
                if s < 0.5:
                    words.append(_words(judge, reason))
            pass_all = all(rules) if rules else None
            out.append(Scored(total / weight, words, pass_all) if weight else None)
        return out

    def _verdict(self, comp: Completion | None) -> tuple[float, str] | None:
        if comp is None:
            return None
        if comp.overflow:  # our rubric prompt is bounded; left out like an unusable verdict
            self.counters["judge_overflows"] += 1
            return None
        verdict, recovered = read_verdict(comp.text)
        if verdict is None:
            self.counters["unparseable_judgments"] += 1
            return None
        self.counters["repaired_judgments" if recovered else "parsed_judgments"] += 1
        return verdict


def read_verdict(text: str) -> tuple[tuple[float, str] | None, bool]:
    """``((score in 0..1, reason), recovered)`` from a judge's answer, or ``(None, False)``.

    ``{"grade": 0..10}`` is what VERDICT_SCHEMA asks for; ``{"score": 0..1}`` (also
    "7"-out-of-10 style values above 1) and a bare number are accepted too, as recovered.
    """
    data, recovered = read_json(text)
    if data is None:
        try:  # a bare number, as a model without a grammar sometimes answers
            return _clamp_score(float(text.strip().strip("[]"))), True
        except ValueError:
            return None, False
    reason = str(data.get("reason", ""))
    try:
        if "grade" in data:
            return (min(1.0, max(0.0, float(data["grade"]) / 10)), reason), recovered
        return (_clamp_score(float(data["score"]))[0], reason), recovered
    except (KeyError, TypeError, ValueError):
        return None, False


def _clamp_score(score: float) -> tuple[float, str]:
    if score > 1:
        score = score / 10 if score <= 10 else 1.0  # "7/10"-style answers
    return min(1.0, max(0.0, score)), ""


def rubric_request(ro: Rollout, judge: Judge) -> Request:
    system = (
        "You grade an assistant's answer against a rubric. Reply with JSON only: "
        '{"grade": <integer from 0 (misses the rubric) to 10 (fully meets it)>, '
        '"reason": "<one short sentence>"}.'
    )
    user = (
        f"Task:\n{ro.task.prompt[:1500]}\n\nRubric:\n{judge.value[:800]}\n\n"
        f"Answer:\n{ro.answer[:3000]}"
    )
    return Request(
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        skill_hash=ro.skill_hash,
        task_id=ro.task.id,
        sample=ro.sample,
        json_schema=VERDICT_SCHEMA,
        max_tokens=JUDGE_MAX_TOKENS,
    )


def _shingles(text: str, n: int = 6) -> set[tuple[str, ...]]:
    t = tokens(text)
    return {tuple(t[i : i + n]) for i in range(len(t) - n + 1)}


def _said(judge: Judge, n: int) -> set[tuple[str, ...]]:
    return set().union(*(_shingles(q, n) for q in judge.quotes)) if judge.quotes else set()


def _words(judge: Judge, reason: str) -> str:
    base = _WORDS[judge.kind]
    said = user_said(judge.source)
    if said and judge.kind != "rubric":
        return f'{base}{USER_SAID}"{said}"'
    internal = _shingles(judge.value, 4) - _said(judge, 4) if judge.kind == "rubric" else set()
    if judge.kind == "rubric" and reason and not (_shingles(reason, 4) & internal):
        # the judge's own explanation helps, unless it quotes the rubric's internals
        return f"{base} ({' '.join(reason.split()[:30])})"
    return base


class Firewall:
    """Detects skill text that copies judge internals (see module docstring)."""

    def __init__(self, judges: Iterable[Judge]) -> None:
        self.patterns: list[str] = []
        self.literals: list[str] = []
        self.shingles: set[tuple[str, ...]] = set()
        judges = list(judges)
        said = [" ".join(tokens(q)) for j in judges for q in j.quotes]
        said_shingles = set().union(*(_shingles(q) for q in said)) if said else set()
        for j in judges:
            if j.kind in ("regex", "not_regex", "command_ran") and len(j.value) >= 4:
                self.patterns.append(j.value)
            elif j.kind in (*checks.WORD_KINDS, *checks.END_KINDS):
                long = len(j.value.split()) >= 4 or len(j.value) >= 30
                if long and not any(" ".join(tokens(j.value)) in q for q in said):
                    self.literals.append(j.value.lower())
            elif j.kind == "rubric":
                self.shingles |= _shingles(j.value) - said_shingles

    def violation(self, text: str) -> str | None:
        if any(p in text for p in self.patterns):
            return "copies a judge's regex"
        low = text.lower()
        if any(lit in low for lit in self.literals):
            return "copies a judge's expected text"
        if self.shingles and _shingles(text) & self.shingles:
            return "copies a judge's rubric"
        return None
