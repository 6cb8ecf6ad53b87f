"""Bounded, verifiable edits of a skill document.

An edit names the exact text it attaches to (its anchor). The anchor must occur exactly
once in the body: an edit that matches nothing or several places is returned with the
reason, never applied to a guessed location — a wrong guess would silently corrupt a skill
that a person relies on. `name` is immutable; a description change is its own edit kind
because it changes *when* the agent loads the skill, not what it does once loaded.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

from trainer.skill import MAX_DESCRIPTION_CHARS, SkillDoc, count_tokens

EDIT_KINDS = ("add", "replace", "delete", "description")
# Where an edit came from, recorded with it through the ledger and the report: the user's own
# corrections in their words (trainer.corrections), the optimizer's reflection on failures, a
# worked example the optimizer wrote and its task's judges passed, or one of the answers the
# user accepted, as an example (trainer.demos): the report must not credit the optimizer with it.
ORIGINS = ("corrections", "reflection", "example", "accepted_answer")


class EditError(ValueError):
    """The edit cannot be applied; the message says why, in words for the optimizer."""


@dataclass(frozen=True)
class Edit:
    kind: str
    text: str = ""  # new text (add, replace, description)
    anchor: str = ""  # exact existing text (add-after, replace, delete)
    section: str = ""  # heading text, for add at the end of a section
    rationale: str = ""  # why the optimizer wants it; not part of the hash
    origin: str = ""  # one of ORIGINS ("" in records written before edits said); not hashed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Edit:
        return cls(
            kind=str(data.get("kind", "")).strip().lower(),
            text=str(data.get("text") or ""),
            anchor=str(data.get("anchor") or ""),
            section=str(data.get("section") or ""),
            rationale=str(data.get("rationale") or data.get("why") or ""),
            origin=str(data.get("origin") or ""),
        )

    @property
    def hash(self) -> str:
        """Normalized hash for the ledger: case, whitespace, the rationale and the origin do
        not make an edit new, so a rephrased retry of a rejected edit is still recognised,
        whichever way it was found."""
        parts = [self.kind, *map(normalized, (self.anchor, self.section, self.text))]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    @property
    def changed_tokens(self) -> int:
        """Tokens added plus tokens removed: the learning-rate currency."""
        if self.kind == "delete":
            return count_tokens(self.anchor)
        if self.kind == "replace":
            return count_tokens(self.anchor) + count_tokens(self.text)
        return count_tokens(self.text)


def joined_origin(origins: Iterable[str]) -> str:
    """Where a set of edits came from, each origin once in order ("corrections+example");
    an edit recorded before edits said is "unknown"."""
    return "+".join(dict.fromkeys(o or "unknown" for o in origins)) or "unknown"


def normalized(text: str) -> str:
    """Text as edits compare it: case, spacing and end punctuation aside."""
    return " ".join(text.split()).lower().rstrip(".;:!")  # split(): runs of \s, as re has


def edit_set_hash(edits: list[Edit]) -> str:
    """Hash of a bundle of edits (order-free); a single edit's set hash is its own hash."""
    if len(edits) == 1:
        return edits[0].hash
    joined = ",".join(sorted(e.hash for e in edits))
    return hashlib.sha256(joined.encode()).hexdigest()[:16]


def _find_once(body: str, anchor: str) -> int:
    if not anchor.strip():
        raise EditError("empty anchor")
    count = body.count(anchor)
    if count == 0:
        raise EditError("anchor not found in the skill (it must be copied exactly)")
    if count > 1:
        raise EditError(f"anchor is ambiguous: it occurs {count} times; quote more text")
    return body.index(anchor)


# A Markdown heading line: (the hashes, the heading text).
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")


def _section_end(body: str, section: str) -> int:
    """Offset just after the last non-blank line of the named section."""
    lines = body.splitlines(keepends=True)
    want = normalized(section.lstrip("#"))
    hits = []
    for i, line in enumerate(lines):
        m = HEADING.match(line.rstrip("\n"))
        if m and normalized(m.group(2)) == want:
            hits.append((i, len(m.group(1))))
    if not hits:
        raise EditError(f"section {section!r} not found")
    if len(hits) > 1:
        raise EditError(f"section {section!r} is ambiguous: {len(hits)} headings match")
    start, level = hits[0]
    end = len(lines)
    for j in range(start + 1, len(lines)):
        m = HEADING.match(lines[j].rstrip("\n"))
        if m and len(m.group(1)) <= level:
            end = j
            break
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return sum(len(x) for x in lines[:end])


def _nothing_new(body: str, text: str) -> bool:
    """True when no line of `text` is missing from `body` (compared as the ledger compares:
    case, spacing and end punctuation aside): such an edit changes nothing the agent reads,
    or only removes its anchor, so it would spend a comparison to learn nothing."""
    want = {normalized(line) for line in text.splitlines() if line.strip()}
    # every line's form is part of the whole body's: a line missing from that (a new rule,
    # the common case) is settled without normalizing each of a large skill's lines
    flat = normalized(body)
    if not all(w in flat for w in want):
        return False
    return want <= {normalized(line) for line in body.splitlines()}


def _insert_at(body: str, pos: int, text: str) -> str:
    """Insert `text` as its own line(s) at a line boundary `pos`."""
    before, after = body[:pos], body[pos:]
    if before and not before.endswith("\n"):
        before += "\n"
    block = text.strip("\n") + "\n"
    return before + block + after


def apply_edit(doc: SkillDoc, edit: Edit) -> SkillDoc:
    """Apply one edit or raise EditError with the reason."""
    if edit.kind == "name":
        raise EditError("the skill name is immutable")
    if edit.kind not in EDIT_KINDS:
        raise EditError(f"unknown edit kind {edit.kind!r}; use one of {EDIT_KINDS}")
    if edit.kind == "description":
        text = " ".join(edit.text.split())
        if not text:
            raise EditError("empty description")
        if len(text) > MAX_DESCRIPTION_CHARS:
            raise EditError(f"description longer than {MAX_DESCRIPTION_CHARS} characters")
        if "<" in text or ">" in text:
            raise EditError("a description must not contain '<' or '>'")
        return doc.with_description(text)
    body = doc.body
    if edit.kind == "add" and not edit.text.strip():
        raise EditError("nothing to add")
    if edit.kind == "replace" and not edit.text.strip():
        raise EditError("empty replacement; use delete")
    if edit.kind in ("add", "replace") and _nothing_new(body, edit.text):
        raise EditError("nothing new: every line of the text is already in the skill")
    if edit.kind == "add":
        if edit.anchor:
            at = _find_once(body, edit.anchor) + len(edit.anchor)
            eol = body.find("\n", at)
            pos = len(body) if eol < 0 else eol + 1
        elif edit.section:
            pos = _section_end(body, edit.section)
        else:
            pos = len(body.rstrip("\n"))
            body = body[:pos] + ("\n" if body else "")
            pos = len(body)
        new_body = _insert_at(body, pos, edit.text)
    elif edit.kind == "replace":
        at = _find_once(body, edit.anchor)
        new_body = body[:at] + edit.text + body[at + len(edit.anchor) :]
    else:  # delete
        at = _find_once(body, edit.anchor)
        end = at + len(edit.anchor)
        line_start = body.rfind("\n", 0, at) + 1
        line_end = body.find("\n", end)
        line_end = len(body) if line_end < 0 else line_end + 1
        if not (body[line_start:at] + body[end:line_end]).strip():
            before, after = body[:line_start], body[line_end:]
            if after.startswith("\n") and (not before or before.endswith("\n\n")):
                after = after[1:]  # a line between blank lines: one blank line stays
            new_body = before + after  # the whole line goes
        else:
            new_body = body[:at] + body[end:]
    new = doc.with_body(new_body)
    # The body must not smuggle in a frontmatter (e.g. text starting with '---\nname:').
    reparsed = SkillDoc.parse(new.render())
    if (reparsed.name, reparsed.description) != (doc.name, doc.description):
        raise EditError("the edit would change the frontmatter; only the body may change")
    return new


def apply_edits(
    doc: SkillDoc, edits: list[Edit], checkpoint: Callable[[], None] | None = None
) -> tuple[SkillDoc, list[Edit], list[tuple[Edit, str]]]:
    """Apply edits in order; returns (new doc, applied, [(failed edit, reason)]).
    `checkpoint` is called before each edit (one takes a while on a large skill): it
    raises to stop the run."""
    applied: list[Edit] = []
    failed: list[tuple[Edit, str]] = []
    for edit in edits:
        if checkpoint is not None:
            checkpoint()
        try:
            doc = apply_edit(doc, edit)
        except EditError as err:
            failed.append((edit, str(err)))
        else:
            applied.append(edit)
    return doc, applied, failed
