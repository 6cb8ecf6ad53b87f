"""Worked examples: a failed task answered anew by the optimizer, checked by the task's
own judges, offered to the skill as an example.

Small targets follow an example far better than a rule (the embedded 0.5B on the demo's
tasks: the rules stated 3 of 8, the rules and one worked example 8 of 8;
benchmarks/skill_effect_local.py), yet an optimizer asked for rules almost never writes one.
So the engine asks the optimizer to answer a step's worst failed task under what went
wrong, stated as requirements, and only an answer that passes every judge of its task
becomes an edit; then it is screened and gated like any other. An answer that merely
repeats one of the skill's examples fails its task (`copies_example`): an example may teach
a form, never stand in for the work.
"""

from __future__ import annotations

import difflib
import re

from trainer.edits import Edit, normalized
from trainer.scoring import USER_SAID
from trainer.skill import SkillDoc
from trainer.tasks import OUTCOME_JUDGES, Task

MARKER = "Example of a good answer:"  # the line before each worked example in a skill
COPIED_WORDS = "the answer copied the skill's example instead of answering this task"
# Answers this close to an example (difflib ratio of their normalized text) are copies.
COPY_RATIO = 0.9
# Failed tasks answered per step. Passing its task's judges does not make an answer a good
# example: of 13 such answers by the embedded 1.5B to the demo's train tasks, 5 were not
# commit messages at all ("docs/install.md", a line of code). Among three, one is likely of
# the right kind, and the train screen picks the one the target does best with.
TRIES = 3

# The failed answer is not shown: shown it, the embedded 1.5B rewrote it with its faults in
# (0 of 8 passed); asked to answer the task under the user's stated requirements, 7 of 8
# passed (docs/models.md, "worked examples").
SYSTEM = (
    "You answer a task for a user who has said what they want. Meet every requirement "
    "they stated. Reply with the answer only."
)


def can_demonstrate(task: Task) -> bool:
    """An answer alone can pass this task: every judge reads the answer (none reads what
    an agent did in a workspace, which a written example cannot show)."""
    return bool(task.judges) and not any(j.kind in OUTCOME_JUDGES for j in task.judges)


def answer_messages(
    task: Task, feedback: tuple[str, ...], excerpt: int = 1500
) -> list[dict[str, str]]:
    """The optimizer's prompt: the task and, as requirements, what went wrong in words (the
    user's own words where the feedback carries them)."""
    prompt = task.prompt if len(task.prompt) <= excerpt else task.prompt[:excerpt] + " [...]"
    wants = [f.split(USER_SAID, 1)[-1] for f in dict.fromkeys(feedback)] or ["a better answer"]
    user = (
        f"Task:\n{prompt}\n\nRequirements (the user's own words where known):\n"
        + "\n".join(f"- {w}" for w in wants)
        + "\n\nAnswer:"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def clean(text: str) -> str:
    """The answer without what models wrap around it: a code fence, quotes or backticks
    around the whole of it, surrounding blank lines."""
    text = text.strip()
    fenced = re.fullmatch(r"```[\w+-]*\n(.*?)\n?```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1).strip()
    while len(text) > 1 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def example_edit(answer: str, accepted: bool = False) -> Edit:
    """The worked example as an edit: the marker line and the answer, at the end of the
    skill (a heading would be echoed: the 0.5B copied an "## Example" section's answer
    in 5 of 16 tasks, a marker line's in 1 of 16). `accepted`: the answer is the one the
    user accepted for a train task (else the optimizer's, checked by the task's judges)."""
    why = (
        "a worked example: the answer the user accepted for a train task"
        if accepted
        else "a worked example: the answer to a failed task that meets its judges"
    )
    origin = "accepted_answer" if accepted else "example"
    return Edit("add", text=f"{MARKER}\n\n{answer}", rationale=why, origin=origin)


def examples(skill: SkillDoc) -> list[str]:
    """The worked examples in a skill: the paragraph after each marker line."""
    out: list[str] = []
    block: list[str] = []
    inside = False
    for line in [*skill.body.splitlines(), MARKER]:  # a last marker ends the last block
        text = line.strip()
        if text == MARKER or (not text and block):
            if block:
                out.append("\n".join(block))
            block, inside = [], text == MARKER
        elif text and inside:
            block.append(line)
    return out


def copies_example(answer: str, blocks: list[str]) -> bool:
    """True when the answer is, or contains, one of the example blocks (near-verbatim)."""
    said = normalized(answer)
    for block in blocks:
        ex = normalized(block)
        if ex and (ex in said or difflib.SequenceMatcher(None, said, ex).ratio() >= COPY_RATIO):
            return True
    return False
