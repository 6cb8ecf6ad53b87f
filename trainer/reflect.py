"""Reflection: the optimizer's prompt and the parsing of its proposals.

The prompt must fit the context of small models (the embedded optimizer runs with an 8k
context shared by two slots), so it is assembled from parts and shrunk — fewer successes,
fewer failures, shorter excerpts, a shorter ledger — until the approximate count is under
the limit.
Answers are JSON (schema-constrained where the endpoint supports it); json_repair recovers
what it can and the engine counts what it cannot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from trainer.edits import EDIT_KINDS, HEADING, Edit
from trainer.scoring import Scored, read_json
from trainer.skill import SkillDoc, count_tokens
from trainer.tasks import Task

# Bounds of an answer, in characters. llama.cpp compiles them (and the enums) into the
# decoding grammar, so even a small model's answer is a short, complete object; real
# endpoints that refuse size bounds get the schema without them (openai_backend).
ANCHOR_CHARS, SECTION_CHARS, WHY_CHARS = 160, 80, 100
MAX_ANCHOR_CHOICES = 60  # above this, the anchor is a free (bounded) string


def _edit_text_chars(max_edits: int, max_changed_tokens: int) -> int:
    """Room for one edit's text: its share of the step's token budget at ~4 characters a
    token (prose; punctuation-heavy text counts more and may still exceed the budget, which
    the learning rate then drops and counts), within 80..480."""
    return max(80, min(480, 4 * max_changed_tokens // max(1, max_edits)))


def anchor_choices(skill: SkillDoc) -> tuple[list[str], list[str]] | None:
    """(anchors, sections) an edit may name: the body's lines that occur exactly once, and
    its headings; None when there are too many to list (then anchors are free strings)."""
    lines = [ln.strip() for ln in skill.body.splitlines()]
    anchors = [ln for ln in dict.fromkeys(lines) if ln and skill.body.count(ln) == 1]
    sections = [m.group(2) for ln in lines if (m := HEADING.match(ln))]
    anchors = [a for a in anchors if len(a) <= ANCHOR_CHARS]
    if len(anchors) > MAX_ANCHOR_CHOICES:
        return None
    return anchors, list(dict.fromkeys(s for s in sections if len(s) <= SECTION_CHARS))


def proposal_schema(
    max_edits: int = 2, max_changed_tokens: int = 120, skill: SkillDoc | None = None
) -> dict[str, Any]:
    """The optimizer's answer: 1..max_edits edits, every string bounded. With a skill, the
    anchor and section are chosen from its own lines and headings (enums), so an edit never
    fails for an anchor the model misquoted; a replace or delete must name an anchor, so it
    never fails for a missing one."""
    anchor: dict[str, Any] = {"type": "string", "maxLength": ANCHOR_CHARS}
    required_anchor: dict[str, Any] = {**anchor, "minLength": 1}
    section: dict[str, Any] = {"type": "string", "maxLength": SECTION_CHARS}
    choices = anchor_choices(skill) if skill is not None else None
    if choices is not None:
        anchor = {"type": "string", "enum": ["", *choices[0]]}
        required_anchor = {"type": "string", "enum": choices[0]}
        section = {"type": "string", "enum": ["", *choices[1]]}
    text: dict[str, Any] = {
        "type": "string",
        "minLength": 1,
        "maxLength": _edit_text_chars(max_edits, max_changed_tokens),
    }

    def edit(kinds: list[str], anchor: dict[str, Any], text: dict[str, Any]) -> dict[str, Any]:
        # A grammar writes the fields in this order. The problem, then the rule that fixes
        # it, then where the rule goes: written after an anchor, the embedded 1.5B copied
        # the skill's lines near it (0 of 6 proposals on target); written right after the
        # problem, 3 of 3 were (docs/models.md, "field order").
        return {
            "type": "object",
            "properties": {
                "why": {"type": "string", "maxLength": WHY_CHARS},
                "text": text,
                "kind": {"type": "string", "enum": kinds},
                "anchor": anchor,
                "section": section,
            },
            "required": ["why", "text", "kind", "anchor", "section"],
            "additionalProperties": False,
        }

    kinds = [k for k in EDIT_KINDS if k not in ("replace", "delete")]
    branches = [edit(kinds, anchor, text)]
    if required_anchor.get("enum") != []:  # a skill with no unique line: nothing to point at
        branches.append(edit(["replace"], required_anchor, text))
        branches.append(edit(["delete"], required_anchor, {"type": "string", "maxLength": 0}))
    return {
        "title": "skill_edits",
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "minItems": 1,
                "maxItems": max(1, max_edits),
                "items": {"anyOf": branches},
            }
        },
        "required": ["edits"],
        "additionalProperties": False,
    }


def proposal_max_tokens(max_edits: int, max_changed_tokens: int) -> int:
    """Output tokens for an answer at the schema's bounds (prose runs ~4 characters per
    token; a degenerate answer that runs longer is cut and repaired by json_repair)."""
    per_edit = ANCHOR_CHARS + SECTION_CHARS + WHY_CHARS
    per_edit += _edit_text_chars(max_edits, max_changed_tokens)
    return 40 + max(1, max_edits) * (30 + per_edit // 3)


@dataclass(frozen=True)
class Example:
    prompt: str
    answer: str
    feedback: tuple[str, ...]  # words only: the firewall has been applied upstream


def split_examples(
    rows: list[tuple[Task, str, Scored, str]],
) -> tuple[list[Example], list[Example]]:
    """(failures, successes) of a minibatch's scored rollouts ``(task, sample, score,
    answer)``, one per task — its worst sample failed, its first one passed — so the
    optimizer sees each problem once, the worst first."""
    fails: list[tuple[float, str, str, Example]] = []
    wins: list[tuple[float, str, str, Example]] = []
    for task, sample, sc, answer in rows:
        ex = Example(task.prompt, answer, tuple(dict.fromkeys(sc.feedback)))
        (fails if sc.score < 1.0 else wins).append((sc.score, f"{task.id}:{sample}", task.id, ex))
    fails.sort(key=lambda x: x[:2])
    wins.sort(key=lambda x: x[1])
    return _one_per_task(fails), _one_per_task(wins)


def _one_per_task(rows: list[tuple[float, str, str, Example]]) -> list[Example]:
    first: dict[str, Example] = {}
    for _score, _key, task_id, ex in rows:
        first.setdefault(task_id, ex)
    return list(first.values())


def _cut(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 3] + "..."


def _system(max_edits: int, max_tokens: int) -> str:
    return (
        "You improve a skill: instructions that an AI coding agent reads before working. "
        f"Propose 1 to {max_edits} small edits (together at most {max_tokens} words) "
        "that would make the agent succeed on the failed tasks without hurting the passed "
        "ones. An edit's text is an instruction for the agent: a short general rule in the "
        "imperative, written in your own words like a line of the skill. Never copy a task, "
        "an answer or a diff into the skill. For example, if answers used type hints and "
        'the user said "no type hints in examples", a good edit is '
        '{"why": "the user wants examples without type hints", '
        '"text": "- Leave type hints out of examples.", "kind": "add", "anchor": "", '
        '"section": "Rules"}\n'
        "Edit kinds: add (text goes after the `anchor` line, else at the end of `section`, "
        'else at the end when both are ""), replace (the `anchor` line becomes text), '
        "delete (the `anchor` line), description (text = new one-line description). "
        "An anchor is one line copied exactly from the skill.\n"
        'Reply with JSON only: {"edits": [{"why": "...", "text": "- ...", "kind": "add", '
        '"anchor": "", "section": ""}]}'
    )


def _user(
    skill: SkillDoc,
    failures: list[Example],
    successes: list[Example],
    tried: list[str],
    excerpt: int,
    skill_chars: int,
) -> str:
    body = skill.body if len(skill.body) <= skill_chars else skill.body[:skill_chars] + "\n[...]"
    parts = [f"SKILL (description: {skill.description or '-'}):\n<<<\n{body.strip()}\n>>>"]
    if failures:
        problems = Counter(f for ex in failures for f in dict.fromkeys(ex.feedback))
        parts.append(f"WHAT WENT WRONG (in {len(failures)} failed tasks):")
        parts.extend(f"- {p} ({n} of {len(failures)})" for p, n in problems.most_common())
        parts.append("FAILED TASKS:")
        for i, ex in enumerate(failures, 1):
            parts.append(
                f"{i}. Task: {_cut(ex.prompt, excerpt)}\n"
                f"   The agent answered ({len(ex.answer.split())} words): "
                f'"{_cut(ex.answer, excerpt)}"'
                f"\n   What went wrong: {'; '.join(ex.feedback) or 'low score'}"
            )
    if successes:
        parts.append("PASSED TASKS (keep these working):")
        for i, ex in enumerate(successes, 1):
            parts.append(f"{i}. Task: {_cut(ex.prompt, excerpt // 2)}")
    if tried:
        parts.append("ALREADY TRIED, DID NOT HELP (do not propose again):")
        parts.extend(f"- {_cut(t, 160)}" for t in tried)
    parts.append("Now propose the edits: general rules that fix what went wrong.")
    return "\n".join(parts)


def build_messages(
    skill: SkillDoc,
    failures: list[Example],
    successes: list[Example],
    tried: list[str],
    *,
    max_edits: int,
    max_changed_tokens: int,
    max_prompt_tokens: int,
) -> list[dict[str, str]]:
    """System + user messages, shrunk until they fit `max_prompt_tokens`."""
    system = _system(max_edits, max_changed_tokens)
    excerpt, skill_chars = 400, 6000
    failures, successes, tried = list(failures), list(successes), list(tried)
    while True:
        user = _user(skill, failures, successes, tried, excerpt, skill_chars)
        if count_tokens(system) + count_tokens(user) <= max_prompt_tokens:
            break
        if successes:
            successes.pop()
        elif len(tried) > 3:
            tried = tried[: len(tried) // 2]
        elif excerpt > 120:
            excerpt = int(excerpt * 0.7)
        elif len(failures) > 1:
            failures.pop()
        elif skill_chars > 400:
            skill_chars = int(skill_chars * 0.7)
        else:
            break  # the floor: tiny excerpts, one failure, 400 chars of skill
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def read_proposals(text: str) -> tuple[list[Edit] | None, bool]:
    """``(edits, recovered)`` from an optimizer answer: edits is None when nothing usable
    can be recovered; recovered says the JSON needed repair or the shape was salvaged."""
    data, recovered = read_json(text)
    if data is None:
        return None, False
    items = data.get("edits")
    if not isinstance(items, list):
        if "kind" not in data:
            return None, False
        items, recovered = [data], True  # a bare edit object
    edits = [Edit.from_dict(x) for x in items if isinstance(x, dict)]
    edits = [e for e in edits if e.kind]
    if items and not edits:
        return None, False
    return edits, recovered or len(edits) < len(items)
