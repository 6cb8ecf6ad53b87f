"""Reflection: the optimizer's prompt and the parsing of its proposals.

The prompt must fit a 4k-token context (the embedded default model is SmolLM2-135M with
n_ctx 4096), so it is assembled from parts and shrunk — fewer successes, fewer failures,
shorter excerpts, a shorter ledger — until the approximate count is under the limit.
Answers are JSON (schema-constrained where the endpoint supports it); json_repair recovers
what it can and the engine counts what it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trainer.edits import EDIT_KINDS, Edit
from trainer.scoring import parse_json
from trainer.skill import SkillDoc, count_tokens

PROPOSAL_SCHEMA: dict[str, Any] = {
    "name": "skill_edits",
    "schema": {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": list(EDIT_KINDS)},
                        "anchor": {"type": "string"},
                        "section": {"type": "string"},
                        "text": {"type": "string"},
                        "why": {"type": "string"},
                    },
                    "required": ["kind", "text"],
                },
            }
        },
        "required": ["edits"],
    },
}


@dataclass(frozen=True)
class Example:
    prompt: str
    answer: str
    feedback: tuple[str, ...]  # words only: the firewall has been applied upstream


def _cut(text: str, chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 3] + "..."


def _system(max_edits: int, max_tokens: int) -> str:
    return (
        "You improve a skill: instructions that an AI coding agent reads before working. "
        f"Propose at most {max_edits} small edits (together at most {max_tokens} words) "
        "that would make the agent succeed on the failed tasks without hurting the passed "
        "ones. Write general rules, not answers to particular tasks.\n"
        "Edit kinds: add (new text; placed after `anchor` if given, else at the end of "
        "`section` if given, else at the end), replace (`anchor` -> text), delete "
        "(`anchor`), description (text = new one-line description). An anchor must be "
        "copied exactly from the skill and occur once.\n"
        'Reply with JSON only: {"edits": [{"kind": "add", "anchor": "", "section": "", '
        '"text": "...", "why": "..."}]}'
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
        parts.append("FAILED TASKS:")
        for i, ex in enumerate(failures, 1):
            parts.append(
                f"{i}. Task: {_cut(ex.prompt, excerpt)}\n   Answer: {_cut(ex.answer, excerpt)}"
                f"\n   What went wrong: {'; '.join(ex.feedback) or 'low score'}"
            )
    if successes:
        parts.append("PASSED TASKS (keep these working):")
        for i, ex in enumerate(successes, 1):
            parts.append(f"{i}. Task: {_cut(ex.prompt, excerpt // 2)}")
    if tried:
        parts.append("ALREADY TRIED, DID NOT HELP (do not propose again):")
        parts.extend(f"- {_cut(t, 160)}" for t in tried)
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


def parse_proposals(text: str) -> list[Edit] | None:
    """Edits from an optimizer answer; None when nothing usable can be recovered."""
    data = parse_json(text)
    if data is None:
        return None
    items = data.get("edits", [data] if "kind" in data else None)
    if not isinstance(items, list):
        return None
    edits = [Edit.from_dict(x) for x in items if isinstance(x, dict)]
    edits = [e for e in edits if e.kind]
    if items and not edits:
        return None
    return edits
