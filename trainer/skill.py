"""The skill document: YAML frontmatter (`name`, `description`, anything else kept as is)
plus a Markdown body.

The optimizer only ever edits the body and the description; `name` identifies the skill to
the agent and never changes. Hashes and token counts must be stable across runs because
they key the cache and bound the learning rate, so both are computed from the rendered
text with plain, dependency-free rules.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import yaml

_TOKEN_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)

# The Agent Skills limit both agent CLIs enforce on `description` (Codex refuses more).
MAX_DESCRIPTION_CHARS = 1024


def count_tokens(text: str) -> int:
    """Approximate token count: words and punctuation marks.

    Not any model's tokenizer (the trainer talks to many models), but consistent: the same
    text always counts the same, which is all the learning-rate budget and the length cap
    need. It lands within ~30% of BPE counts on English prose and code.
    """
    return len(_TOKEN_RE.findall(text))


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens, for overlap measures."""
    return [t.lower() for t in re.findall(r"\w+", text)]


@dataclass(frozen=True)
class SkillDoc:
    name: str = ""
    description: str = ""
    body: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def parse(cls, text: str) -> SkillDoc:
        """Parse a SKILL.md. A BOM, CRLF line ends and a missing or broken frontmatter are
        tolerated: a skill written by hand should load, not crash the night."""
        text = text.lstrip("\ufeff").replace("\r\n", "\n")
        match = re.match(r"^---[ \t]*\n(.*?)\n---[ \t]*(?:\n|$)", text, re.DOTALL)
        if not match:
            return cls(body=text)
        try:
            meta = yaml.safe_load(match.group(1)) or {}
        except yaml.YAMLError:
            meta = None
        if not isinstance(meta, dict):
            return cls(body=text)
        extra = {k: v for k, v in meta.items() if k not in ("name", "description")}
        return cls(
            name=str(meta.get("name") or ""),
            description=str(meta.get("description") or ""),
            body=text[match.end() :],
            extra=extra,
        )

    def render(self) -> str:
        """The file text. Frontmatter keys keep a fixed order (name, description, the rest
        as they came) so the hash does not depend on dict history."""
        return self._rendered

    @cached_property
    def _rendered(self) -> str:  # documents are immutable; YAML dumping is slow
        meta: dict[str, Any] = {}
        if self.name:
            meta["name"] = self.name
        if self.description:
            meta["description"] = self.description
        meta.update(self.extra)
        if not meta:
            return self.body
        head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=10_000).strip()
        return f"---\n{head}\n---\n{self.body}"

    @cached_property
    def hash(self) -> str:
        """Content hash of the rendered document (first 16 hex of sha256)."""
        return hashlib.sha256(self.render().encode()).hexdigest()[:16]

    @cached_property
    def n_tokens(self) -> int:
        return count_tokens(self.render())

    def with_body(self, body: str) -> SkillDoc:
        return replace(self, body=body)

    def with_description(self, description: str) -> SkillDoc:
        return replace(self, description=description)

    def diff(self, other: SkillDoc, *, context: int = 2) -> str:
        """Unified diff from this document to `other`."""
        return "".join(
            difflib.unified_diff(
                self.render().splitlines(keepends=True),
                other.render().splitlines(keepends=True),
                fromfile="before/SKILL.md",
                tofile="after/SKILL.md",
                n=context,
            )
        )
