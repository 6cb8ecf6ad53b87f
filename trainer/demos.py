"""Worked examples: a failed answer, corrected by the optimizer and checked by its task's
own judges, offered to the skill as an example.

Small targets follow an example far better than a rule (the embedded 0.5B on the demo's
tasks: the rules stated 3 of 8, the rules and one worked example 8 of 8;
benchmarks/skill_effect_local.py), yet an optimizer asked for rules almost never writes one.
So the engine asks for the corrected answer of a step's worst failure, and only one that
passes every judge of its task becomes an edit; then it is screened and gated like any
other. An answer that merely repeats one of the skill's examples fails its task
(`copies_example`): an example may teach a form, never stand in for the work.
"""

from __future__ import annotations

import difflib
import re

from trainer.edits import Edit
from trainer.skill import SkillDoc
from trainer.tasks import OUTCOME_JUDGES, Task

HEADING = "Example"
COPIED_WORDS = "the answer copied the skill's example instead of answering this task"
# Answers this close to an example (difflib ratio of their normalized text) are copies.
COPY_RATIO = 0.9
_SECTION = re.compile(r"^#{1,6}[ \t]+Examples?[ \t]*#*[ \t]*$", re.IGNORECASE)
_ANY_HEADING = re.compile(r"^#{1,6}[ \t]+\S")

SYSTEM = (
    "You correct an AI coding agent's answer. Rewrite it so that it fixes every problem "
    "listed and still does the task; keep what was right. Reply with the corrected answer "
    "only: no preface, no explanation, no quotes around it."
)


def can_demonstrate(task: Task) -> bool:
    """An answer alone can pass this task: every judge reads the answer (none reads what
    an agent did in a workspace, which a written example cannot show)."""
    return bool(task.judges) and not any(j.kind in OUTCOME_JUDGES for j in task.judges)


def correction_messages(
    task: Task, answer: str, feedback: tuple[str, ...], excerpt: int = 1500
) -> list[dict[str, str]]:
    """The optimizer's prompt: the task, the failed answer, what went wrong in words."""
    prompt = task.prompt if len(task.prompt) <= excerpt else task.prompt[:excerpt] + " [...]"
    user = (
        f"Task:\n{prompt}\n\nThe agent answered:\n{answer.strip() or '(nothing)'}\n\n"
        f"What went wrong: {'; '.join(feedback) or 'low score'}"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def clean(text: str) -> str:
    """The answer without what models wrap around it: surrounding blank lines and quotes."""
    text = text.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def example_edit(skill: SkillDoc, answer: str) -> Edit:
    """Add `answer` to the skill's Example section, or as a new one at the end."""
    why = "a worked example: a failed answer, corrected, that passes its task's judges"
    heading = _example_heading(skill)
    if heading:
        return Edit("add", text=answer, section=heading, rationale=why)
    return Edit("add", text=f"## {HEADING}\n\n{answer}", rationale=why)


def examples(skill: SkillDoc) -> list[str]:
    """The blocks (runs of non-blank lines) under the skill's Example(s) headings."""
    blocks: list[str] = []
    inside, block = False, []
    for line in [*skill.body.splitlines(), ""]:
        if _ANY_HEADING.match(line):
            inside = bool(_SECTION.match(line.strip()))
            block = []
        elif not line.strip():
            if inside and block:
                blocks.append("\n".join(block))
            block = []
        elif inside:
            block.append(line)
    return blocks


def copies_example(answer: str, blocks: list[str]) -> bool:
    """True when the answer is, or contains, one of the example blocks (near-verbatim)."""
    said = _norm(answer)
    for block in blocks:
        ex = _norm(block)
        if ex and (ex in said or difflib.SequenceMatcher(None, said, ex).ratio() >= COPY_RATIO):
            return True
    return False


def _example_heading(skill: SkillDoc) -> str:
    for line in skill.body.splitlines():
        if _SECTION.match(line.strip()):
            return line.strip().lstrip("#").strip()
    return ""


def _norm(text: str) -> str:
    return " ".join(text.lower().split())
