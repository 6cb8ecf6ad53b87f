"""The Agent Skills rules that Claude Code and Codex enforce on a SKILL.md.

``name``: 1–64 lowercase letters, digits and single hyphens (not at either end), equal to
the skill's directory name (Claude Code invokes a skill by its directory, Codex by its
``name``; Codex refuses a longer name and only logs it). ``description``: non-empty, at
most 1024 characters, no ``<`` or ``>``. A skill that breaks a rule is still read and
trained, but its promotion is staged with the problems as the reason; a skill
skillopt-sleep creates is built to pass them (``clean_description``).
"""

from __future__ import annotations

import re
import unicodedata

from trainer.skill import MAX_DESCRIPTION_CHARS, SkillDoc

MAX_NAME_CHARS = 64
_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid skill name, or None."""
    if not name:
        return "the skill has no name"
    if len(name) > MAX_NAME_CHARS:
        return f"name {name[:20]!r}… is {len(name)} characters (at most {MAX_NAME_CHARS})"
    if not _NAME_RE.fullmatch(name):
        return (
            f"name {name!r} must be lowercase letters, digits and single hyphens "
            "(no hyphen at either end)"
        )
    return None


def description_problem(description: str) -> str | None:
    """Why ``description`` breaks the rules, or None."""
    if not description.strip():
        return "the skill has no description"
    if len(description) > MAX_DESCRIPTION_CHARS:
        return f"description is {len(description)} characters (at most {MAX_DESCRIPTION_CHARS})"
    if "<" in description or ">" in description:
        return "description contains '<' or '>'"
    return None


def problems(text: str, dirname: str) -> list[str]:
    """Every rule ``text``, installed as ``<dirname>/SKILL.md``, breaks (empty: none)."""
    doc = SkillDoc.parse(text)
    if not doc.name and not doc.description:
        return ["SKILL.md has no frontmatter with a name and a description"]
    found = [p for p in (name_problem(doc.name), description_problem(doc.description)) if p]
    if doc.name and doc.name != dirname:
        found.append(
            f"name {doc.name!r} differs from its directory {dirname!r} (Claude Code invokes "
            "a skill by its directory, Codex by its name)"
        )
    return found


def clean_description(text: str) -> str:
    """A description built from untrusted text (user prompts, model output) made to pass
    the rules: one line, no control or invisible characters, no angle brackets or
    backticks, at most MAX_DESCRIPTION_CHARS (cut at a word)."""
    kept = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text
    )
    kept = re.sub(r"[<>`]", "", kept)
    kept = " ".join(kept.split())
    if len(kept) > MAX_DESCRIPTION_CHARS:
        kept = kept[: MAX_DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return kept
