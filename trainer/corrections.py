"""The user's corrections as a candidate edit: what they told the agent, in their words.

A user who corrects an agent ("no, keep the whole message under 12 words", "I said don't
add ## headings") has stated a rule of the task kind. Mining compiles each correction into
judges and keeps only those the sessions verify (``skillopt_sleep.mining.verify``), each
with the words it came from (``Judge.quotes``, the source saying "the user said"). The
first candidate a run tries is those words carried into the skill, one short imperative
line per rule, with no optimizer call: what Claude Code's and Codex's memories do without
checking, here screened and gated like any edit (origin ``corrections``).

Only the *train* tasks' judges are read: val and test tasks may carry other quotes, and
only train may shape a candidate. A line keeps the user's words; what is stripped is what
makes a reply a reply ("please", "no,", "I said", "again") and complaints that state no
rule on their own ("too long."), unless nothing else is left.
"""

from __future__ import annotations

import re
from collections import Counter

from trainer.demos import MARKER
from trainer.edits import Edit, normalized
from trainer.skill import SkillDoc, count_tokens
from trainer.tasks import ANSWER_JUDGES, Judge, Task, user_said

ORIGIN = "corrections"
RATIONALE = "the user's own corrections, in their words"
MAX_LINE_WORDS = 30  # a rule is a line; a longer clause is a story, not a rule

# Where a reply starts or ends, not the rule: stripped, repeatedly. "no" only before a
# comma or a stop ("no, start with ..."): in "no explanation" it is the rule.
_LEAD = re.compile(
    r"^(?:(?:no|nope|nah|ok|okay|hmm+|well|so|actually|again|sorry)\s*[,.!;:-]+|"
    r"(?:(?:way |much |still |far )?too \w+(?: again)?|that'?s (?:wrong|not it))\s*[,.!;:-]+|"
    r"(?:also|and|but|please|pls|remember(?: that)?|"
    r"(?:like |as )?i (?:said|told you|asked(?: for)?|already said)(?: before)?)\b[,:;.!-]*)\s*",
    re.IGNORECASE,
)
_PLEASE = re.compile(r"\s*\bplease\b", re.IGNORECASE)
_TAIL = re.compile(r"[\s,;:-]*\b(?:thanks|thank you|again|ok|okay)\s*[.!]*$", re.IGNORECASE)
# A clause that only judges the answer ("too long", "that's wrong", "still verbose").
_COMPLAINT = re.compile(
    r"^(?:(?:it'?s|that'?s|this is|way|much|still|again|far)\s+)*"
    r"(?:too\s+\w+|wrong|not right|not what i (?:asked|wanted)|verbose|wordy|again)"
    r"(?:\s+again)?$",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\s*\n+\s*")


def rule_judges(tasks: list[Task]) -> list[Judge]:
    """The verified judges of the train tasks that carry the user's correction words."""
    return [
        j
        for t in tasks
        if t.split == "train"
        for j in t.judges
        if j.kind in ANSWER_JUDGES and j.kind != "rubric" and j.quotes and user_said(j.source)
    ]


def clauses(quote: str) -> list[str]:
    """The rule-stating clauses of one correction, in the user's words, as lines."""
    out = []
    for part in _CLAUSES.split(" ".join(quote.split())):
        text = part.strip(" ,;")
        while (stripped := _LEAD.sub("", text, count=1).strip(" ,;")) != text:
            text = stripped
        text = _TAIL.sub("", _PLEASE.sub("", text)).strip(" ,;")
        if re.match(r"(?i)you forgot\b", text):
            text = "Don't forget" + text[len("you forgot") :]
        if not re.search(r"\w", text) or _COMPLAINT.match(text.rstrip(".!")):
            continue
        if len(text.split()) > MAX_LINE_WORDS:
            continue
        text = text[0].upper() + text[1:]
        out.append(text + "." if text[-1].isalnum() else text)
    return out


def _about(clause: str, judge: Judge) -> bool:
    """Whether a clause speaks of what the judge checks (a word or number of its value)."""
    words = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}|\d+", clause.lower())}
    value = {w.rstrip("s") for w in re.findall(r"[a-z]{3,}|\d+", judge.value.lower())}
    return bool(words & value)


def lines(tasks: list[Task]) -> list[str]:
    """One line per rule the train tasks' judges verify, the rules the user stated most
    often first: the shortest of the user's phrasings, its clauses about the rule (all of
    its rule-stating clauses when none names what the judge checks)."""
    judges = rule_judges(tasks)
    said: Counter[tuple[str, str, str]] = Counter()
    quotes: dict[tuple[str, str, str], list[str]] = {}
    for j in judges:
        key = (j.kind, j.value.lower(), j.scope)
        for q in j.quotes:
            if q not in quotes.setdefault(key, []):
                quotes[key].append(q)
                said[key] += 1
    used: set[str] = set()
    out: list[str] = []
    by_key = {(j.kind, j.value.lower(), j.scope): j for j in judges}
    for key in sorted(quotes, key=lambda k: -said[k]):  # stable: first stated among equals
        if any(q in used for q in quotes[key]):
            continue  # a phrasing already carried states this rule too
        quote = min(quotes[key], key=lambda q: (len(q), q))
        used.add(quote)
        found = clauses(quote)
        about = [c for c in found if _about(c, by_key[key])]
        for line in about or found:
            if normalized(line) not in {normalized(x) for x in out}:
                out.append(line)
    return out


def _placement(skill: SkillDoc) -> str:
    """An anchor that puts new lines before the skill's worked examples (a line right after
    an example would read as part of it), or "" for the end of the skill."""
    body = skill.body.splitlines()
    marker = next((i for i, ln in enumerate(body) if ln.strip() == MARKER), None)
    if marker is None:
        return ""
    before = next((ln for ln in reversed(body[:marker]) if ln.strip()), "")
    return before if before and skill.body.count(before) == 1 else ""


def edit(skill: SkillDoc, tasks: list[Task], max_tokens: int) -> Edit | None:
    """The corrections edit for `skill`: the lines it does not state yet, as a list added
    to it, as many as fit `max_tokens` (the step's learning rate); None when none is new."""
    have = {normalized(ln.lstrip("-*• ")) for ln in skill.body.splitlines()}
    new = [ln for ln in lines(tasks) if normalized(ln) not in have]
    kept: list[str] = []
    for line in new:
        if count_tokens("\n".join(f"- {x}" for x in [*kept, line])) <= max_tokens:
            kept.append(line)
    if not kept:
        return None
    text = "\n".join(f"- {x}" for x in kept)
    return Edit("add", text=text, anchor=_placement(skill), rationale=RATIONALE, origin=ORIGIN)
