"""Scoring answers, and what the optimizer may learn about the scoring.

Rule judges are exact and local. Rubric judges go to the judge role, which answers a JSON
verdict; an answer that cannot be recovered is counted and that judge is left out of the
sample's score (never scored as a failure of the target).

The judge firewall. The optimizer is told what went wrong in words ("the answer left out
something the task expected"), never the judge's internals: no regex, no literal, no rubric
text. Otherwise it learns to write the test into the skill — a skill that passes our judges
and helps no one. `Firewall` also rejects edits that copy internals: a regex verbatim, any
six-word run of a rubric, or a long literal (>= 4 words or >= 30 characters). Short
literals ("pytest", "--dry-run") are allowed: naming the right tool *is* the knowledge a
skill should carry, and mined `contains` judges are mostly such terms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import json_repair

from trainer.backends.base import Completion
from trainer.calls import Caller, Request
from trainer.skill import tokens
from trainer.tasks import Judge, Task

VERDICT_SCHEMA: dict[str, Any] = {
    "name": "verdict",
    "schema": {
        "type": "object",
        "properties": {"score": {"type": "number"}, "reason": {"type": "string"}},
        "required": ["score", "reason"],
        "additionalProperties": False,
    },
}

_WORDS = {
    "contains": "the answer left out something the task expected",
    "not_contains": "the answer included something the task should avoid",
    "regex": "the answer did not have the expected form",
    "not_regex": "the answer had a form the task should avoid",
    "max_words": "the answer was longer than the task wants",
    "rubric": "the answer fell short of the quality the task asks for",
}


def parse_json(text: str) -> dict[str, Any] | None:
    """A JSON object from a model answer, repaired if needed; None if unrecoverable."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    candidate = match.group(0) if match else text
    try:
        value = json_repair.loads(candidate)
    except Exception:  # noqa: BLE001 - json_repair may raise on pathological input
        return None
    return value if isinstance(value, dict) and value else None


def rule_score(judge: Judge, answer: str) -> float:
    if judge.kind == "contains":
        return float(judge.value.lower() in answer.lower())
    if judge.kind == "not_contains":
        return float(judge.value.lower() not in answer.lower())
    if judge.kind in ("regex", "not_regex"):
        try:
            hit = re.search(judge.value, answer, re.MULTILINE) is not None
        except re.error:
            hit = False
        return float(hit if judge.kind == "regex" else not hit)
    if judge.kind == "max_words":
        return float(len(answer.split()) <= int(float(judge.value)))
    raise ValueError(f"not a rule judge: {judge.kind}")


@dataclass
class Scored:
    score: float
    feedback: list[str] = field(default_factory=list)  # words, firewall-safe


@dataclass
class Rollout:
    task: Task
    sample: int | str
    skill_hash: str
    answer: str


class Scorer:
    def __init__(self, caller: Caller, counters: dict[str, int]) -> None:
        self.caller = caller
        self.counters = counters

    def score(self, rollouts: list[Rollout]) -> list[Scored | None]:
        """Scores in order; None for a sample with no usable judgment."""
        requests: list[Request] = []
        where: list[tuple[int, int]] = []
        for r_i, ro in enumerate(rollouts):
            for j_i, judge in enumerate(ro.task.judges):
                if judge.kind == "rubric":
                    requests.append(rubric_request(ro, judge))
                    where.append((r_i, j_i))
        verdicts: dict[tuple[int, int], tuple[float, str] | None] = {}
        if requests:
            for pos, comp in zip(where, self.caller.run("judge", requests), strict=True):
                verdicts[pos] = self._verdict(comp)
        out: list[Scored | None] = []
        for r_i, ro in enumerate(rollouts):
            total = weight = 0.0
            words: list[str] = []
            for j_i, judge in enumerate(ro.task.judges):
                if judge.kind == "rubric":
                    v = verdicts.get((r_i, j_i))
                    if v is None:
                        continue
                    s, reason = v
                else:
                    s, reason = rule_score(judge, ro.answer), ""
                total += judge.weight * s
                weight += judge.weight
                if s < 0.5:
                    words.append(_words(judge, reason))
            out.append(Scored(total / weight, words) if weight else None)
        return out

    def _verdict(self, comp: Completion | None) -> tuple[float, str] | None:
        if comp is None:
            return None
        data = parse_json(comp.text)
        try:
            score = float(data["score"]) if data else None  # type: ignore[index]
        except (KeyError, TypeError, ValueError):
            score = None
        if score is None:
            self.counters["unparseable_judgments"] += 1
            return None
        if score > 1:
            score = score / 10 if score <= 10 else 1.0  # "7/10"-style answers
        return min(1.0, max(0.0, score)), str(data.get("reason", "")) if data else ""


def rubric_request(ro: Rollout, judge: Judge) -> Request:
    system = (
        "You grade an assistant's answer against a rubric. Reply with JSON only: "
        '{"score": <number from 0 to 1>, "reason": "<one short sentence>"}.'
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
        max_tokens=120,
    )


def _shingles(text: str, n: int = 6) -> set[tuple[str, ...]]:
    t = tokens(text)
    return {tuple(t[i : i + n]) for i in range(len(t) - n + 1)}


def _words(judge: Judge, reason: str) -> str:
    base = _WORDS[judge.kind]
    if judge.kind == "rubric" and reason and not (_shingles(reason, 4) & _shingles(judge.value, 4)):
        # the judge's own explanation helps, unless it quotes the rubric
        return f"{base} ({' '.join(reason.split()[:30])})"
    return base


class Firewall:
    """Detects skill text that copies judge internals (see module docstring)."""

    def __init__(self, judges: Iterable[Judge]) -> None:
        self.patterns: list[str] = []
        self.literals: list[str] = []
        self.shingles: set[tuple[str, ...]] = set()
        for j in judges:
            if j.kind in ("regex", "not_regex") and len(j.value) >= 4:
                self.patterns.append(j.value)
            elif j.kind in ("contains", "not_contains"):
                if len(j.value.split()) >= 4 or len(j.value) >= 30:
                    self.literals.append(j.value.lower())
            elif j.kind == "rubric":
                self.shingles |= _shingles(j.value)

    def violation(self, text: str) -> str | None:
        if any(p in text for p in self.patterns):
            return "copies a judge's regex"
        low = text.lower()
        if any(lit in low for lit in self.literals):
            return "copies a judge's expected text"
        if self.shingles and _shingles(text) & self.shingles:
            return "copies a judge's rubric"
        return None
