"""Reflection: the optimizer's prompt and the parsing of its proposals.

One question per problem: a step's failed answers are grouped by what went wrong (one
judge, or judges whose failure reads the same in words: `failure_clusters`), and the
optimizer is shown one group — the problem in words with the user's own words where a
judge carries them, the answers that failed it — and asked for one short rule. A small
optimizer handles one problem far better than a report of all of them.
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

from trainer.edits import EDIT_KINDS, HEADING, Edit, normalized
from trainer.scoring import USER_SAID, Scored, read_json
from trainer.skill import SkillDoc, count_tokens
from trainer.tasks import Task

# Bounds of an answer, in characters. llama.cpp compiles them (and the enums) into the
# decoding grammar, so even a small model's answer is a short, complete object; real
# endpoints that refuse size bounds get the schema without them (openai_backend).
ANCHOR_CHARS, SECTION_CHARS, WHY_CHARS = 160, 80, 100
MAX_ANCHOR_CHOICES = 60  # above this, the anchor is a free (bounded) string
# Characters ``anchor_choices`` may search through to tell unique lines apart (~15 ms):
# each candidate line costs one search of the body, so a large skill gets free anchors
# instead of a search that grows with the square of its length (a 2 MB skill took 15 s).
SEARCH_CHARS = 1 << 26


def _edit_text_chars(max_edits: int, max_changed_tokens: int) -> int:
    """Room for one edit's text: its share of the step's token budget at ~4 characters a
    token (prose; punctuation-heavy text counts more and may still exceed the budget, which
    the learning rate then drops and counts), within 80..480."""
    return max(80, min(480, 4 * max_changed_tokens // max(1, max_edits)))


def anchor_choices(skill: SkillDoc) -> tuple[list[str], list[str]] | None:
    """(anchors, sections) an edit may name: the body's lines that occur exactly once in
    it (not inside another line either), and its headings; None when there are too many to
    list or to tell apart within SEARCH_CHARS (then anchors are free strings, which
    ``apply_edit`` checks as it does any anchor)."""
    body = skill.body
    lines = [ln.strip() for ln in body.splitlines()]
    budget = SEARCH_CHARS
    anchors = []
    for ln, n in Counter(lines).items():  # a line twice is no anchor: no search for it
        if not ln or n > 1 or len(ln) > ANCHOR_CHARS:
            continue
        budget -= len(body)
        if budget < 0:
            return None
        if body.count(ln) == 1:
            anchors.append(ln)
            if len(anchors) > MAX_ANCHOR_CHOICES:
                return None
    sections = [m.group(2) for ln in lines if (m := HEADING.match(ln))]
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


# The optimizer is asked about one problem at a time and for one rule. A small optimizer
# given every failure at once, with an example edit to show the format, wrote the example
# back (the embedded 1.5B proposed the prompt's own "- Leave type hints out of examples." in
# 2 of 4 demo steps): so the prompt shows no edit at all, only the failure, and the schema
# says what an edit looks like.
SYSTEM = (
    "You improve a skill: instructions that an AI coding agent reads before it works. The "
    "agent's answers below failed in one way. Write one short rule for the skill that makes "
    "the agent avoid this failure on every task of this kind: one line of at most 30 words "
    "in the imperative, in the user's own words where they gave them, about what the answer "
    "must or must not do. "
    "Never copy a task, an answer or a diff into the skill. Put the rule after the `anchor` "
    "line (kind add), at the end of `section` when the anchor is empty, or at the end when "
    "both are empty; or let it replace the `anchor` line (kind replace) when that line causes "
    "the failure, or delete that line (kind delete). An anchor is one line copied exactly "
    "from the skill. Reply with JSON only, an object with one edit in `edits`."
)


# A rule's length, in the learning rate's tokens (~4 characters each, so ~200 characters):
# bounded only by a step's budget, the embedded 1.5B wrote 2 of 6 rules of 70-80 words that
# ran to the schema's 480 characters (benchmarks/reflection_local.py).
RULE_TOKENS = 50
# The problem of a failed answer no judge failed outright (a rubric grade short of full).
NO_FULL_SCORE = "the answer did not get a full score"


def failure_clusters(failures: list[Example]) -> list[tuple[str, list[Example]]]:
    """Failed answers grouped by what went wrong, most failed first: one judge per problem
    (judges whose failure reads the same in words form one cluster; a rubric judge's per-answer
    reason stays with its answer, not in the problem's name)."""
    groups: dict[str, list[Example]] = {}
    for ex in failures:
        for words in dict.fromkeys(problem(f) for f in ex.feedback) or [NO_FULL_SCORE]:
            groups.setdefault(words, []).append(ex)
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def problem(feedback: str) -> str:
    """The problem a feedback line names, without a rubric judge's reason for one answer."""
    if USER_SAID in feedback or not feedback.endswith(")"):
        return feedback
    return feedback.split(" (", 1)[0]


def _note(ex: Example, words: str) -> str:
    """What the judge said about this answer beyond the problem's name (a rubric's reason)."""
    notes = [f[len(words) :].strip(" ()") for f in ex.feedback if problem(f) == words]
    return "; ".join(n for n in notes if n)


def _user(
    skill: SkillDoc,
    words: str,
    failed: list[Example],
    n_failed: int,
    passed: list[Example],
    tried: list[str],
    excerpt: int,
    skill_chars: int,
) -> str:
    body = skill.body if len(skill.body) <= skill_chars else skill.body[:skill_chars] + "\n[...]"
    parts = [f"SKILL (description: {skill.description or '-'}):\n<<<\n{body.strip()}\n>>>"]
    parts.append(f"WHAT WENT WRONG (in {len(failed)} of {n_failed} failed answers): {words}")
    parts.append("FAILED ANSWERS:")
    for i, ex in enumerate(failed, 1):
        note = _note(ex, words)
        parts.append(
            f"{i}. Task: {_cut(ex.prompt, excerpt)}\n"
            f"   The agent answered ({len(ex.answer.split())} words): "
            f'"{_cut(ex.answer, excerpt)}"' + (f"\n   Judge's note: {note}" if note else "")
        )
    if passed:
        parts.append("PASSED TASKS (keep these working):")
        for i, ex in enumerate(passed, 1):
            parts.append(f"{i}. Task: {_cut(ex.prompt, excerpt // 2)}")
    if tried:
        parts.append("ALREADY TRIED, DID NOT HELP (do not propose again):")
        parts.extend(f"- {_cut(t, 160)}" for t in tried)
    parts.append("Now write the one rule that fixes what went wrong.")
    return "\n".join(parts)


def question_messages(
    skill: SkillDoc,
    words: str,
    failed: list[Example],
    n_failed: int,
    passed: list[Example],
    tried: list[str],
    *,
    max_prompt_tokens: int,
) -> list[dict[str, str]]:
    """System + user messages asking for one rule against one problem (`words`, failed by
    `failed`, `n_failed` failed answers in all), shrunk until they fit `max_prompt_tokens`."""
    excerpt, skill_chars = 400, 6000
    failed, passed, tried = list(failed), list(passed), list(tried)
    while True:
        user = _user(skill, words, failed, n_failed, passed, tried, excerpt, skill_chars)
        if count_tokens(SYSTEM) + count_tokens(user) <= max_prompt_tokens:
            break
        if passed:
            passed.pop()
        elif len(tried) > 3:
            tried = tried[: len(tried) // 2]
        elif excerpt > 120:
            excerpt = int(excerpt * 0.7)
        elif len(failed) > 1:
            failed.pop()
        elif skill_chars > 400:
            skill_chars = int(skill_chars * 0.7)
        else:
            break  # the floor: tiny excerpts, one failure, 400 chars of skill
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def copies_prompt(edit: Edit) -> bool:
    """True when an edit's text is only words of the prompt's own instructions (a small
    model may write the instructions back instead of a rule)."""
    said = normalized(edit.text.lstrip("-* "))
    return len(said.split()) >= 3 and said in normalized(SYSTEM)


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
