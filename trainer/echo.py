"""Echoed headings: failed answers that repeat the skill's own section headings.

Small targets often answer with their instructions' outline instead of the work: given the
demo's sample skill, the embedded 0.5B answered 9 of 16 tasks with the skill's "## Steps"
heading and the steps under it; with the section headings gone (every instruction kept)
1 of 16 did, and the mean score went from 0.29 to 0.63 (docs/models.md, "echoed headings"). A
section heading is structure, not an instruction, so deleting the ones the failed answers
repeated loses no rule. The edit is read off the answers (no optimizer call) and then
screened and gated like any other.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainer.edits import HEADING, Edit, normalized
from trainer.skill import SkillDoc


def _headings(text: str, min_level: int = 1) -> dict[str, str]:
    """Heading text (as edits compare sections) -> the line, for headings at `min_level`+."""
    out: dict[str, str] = {}
    for line in map(str.strip, text.splitlines()):
        m = HEADING.match(line)
        if m and len(m.group(1)) >= min_level:
            out.setdefault(normalized(m.group(2)), line)
    return out


def echoed_headings(skill: SkillDoc, answers: Iterable[str]) -> list[str]:
    """The skill's section headings (level 2 and deeper: the title names the skill) that
    occur as a heading, at any level, in one of `answers`; in the skill's order."""
    sections = _headings(skill.body, min_level=2)
    seen: set[str] = set()
    for answer in answers:
        seen |= sections.keys() & _headings(answer).keys()
    return [line for key, line in sections.items() if key in seen and skill.body.count(line) == 1]


def edits(skill: SkillDoc, failed_answers: Iterable[str]) -> list[Edit]:
    """One delete per section heading the failed answers repeated (none: no echo)."""
    why = "the target repeated this heading as its answer; the lines under it stay"
    return [Edit("delete", anchor=h, rationale=why) for h in echoed_headings(skill, failed_answers)]
