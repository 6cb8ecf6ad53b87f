"""Outcome signals of a session's turns: what went wrong or right, each with short evidence.

Structural signals come from the turn itself (interrupt, rejected tool, failing tool or
test). User reactions are read *position-aware*: only the first sentence of the next
human request after a turn counts, and negations ("no problem", "not bad", "doesn't
work now") are handled, because a bag of words ("wrong" anywhere) is mostly noise.
"""

from __future__ import annotations

import difflib
import re

from session_ingest.model import EVIDENCE_CHARS, HUMAN, Session, Signal, Turn, first_sentence

_TEST_CMD = re.compile(
    r"\b(?:pytest|py\.test|tox|nox|npm (?:run )?test|yarn test|pnpm test|jest|vitest|mocha|"
    r"cargo test|go test|mix test|rspec|phpunit|ctest|make (?:test|check)|gradle test|"
    r"mvn test|unittest|bun test|deno test)\b"
)
_TEST_FAIL_WORDS = ("FAIL", " failed", "Traceback", "AssertionError", "panicked at")

_NOT_CORRECTION = re.compile(
    r"^(?:no (?:problem|worries|need|rush|prob)|not bad|nothing else|no,? thanks|"
    r"no,? (?:that'?s|it'?s) (?:perfect|great|fine|good|correct|right))",
    re.I,
)
_CORRECTION = re.compile(
    r"^(?:no\b|nope\b|wrong\b|incorrect\b|revert\b|undo\b|stop\b(?! the| running| server)|"
    r"wait\b|actually\b|hmm\b|that'?s not\b|that is not\b|not what\b|i said\b|i asked\b)"
    r"|\b(?:that'?s (?:wrong|not (?:it|right|what))|you forgot|you missed|you broke|"
    r"why did you|didn'?t ask|did not ask|i said|not what i (?:asked|wanted|meant)|"
    r"still (?:fail\w*|broken|not working|doesn'?t work|does not work|wrong|an? error|the same)|"
    r"(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not) (?:work|working|fix\w*|compile|run)|"
    r"(?:it'?s|is) (?:still )?broken|revert (?:that|this|it|the)|undo (?:that|this|it|the)|"
    r"try again|same (?:error|problem|issue))",
    re.I,
)
_POSITIVE = re.compile(
    r"\b(?:thanks?|thank you|thx|perfect|great|awesome|excellent|nice|lgtm|looks good|"
    r"works (?:now|great|perfectly)|that worked|it works|well done|good job|brilliant|exactly|"
    r"not bad)\b",
    re.I,
)
_NEGATED_POSITIVE = re.compile(
    r"\b(?:not|n't|never|no longer|hardly)\s+(?:\w+\s+){0,2}?"
    r"(?:perfect|great|nice|good|works?|working|exactly)|\bbut\b",
    re.I,
)
_REASK_MIN = 0.85


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _q(text: str) -> str:
    return text[:EVIDENCE_CHARS]


def reaction(next_text: str) -> tuple[str, str] | None:
    """Classify the first sentence of a follow-up request: correction, positive, or None."""
    head = first_sentence(next_text)
    if not head:
        return None
    if not _NOT_CORRECTION.search(head):
        m = _CORRECTION.search(head)
        if m:
            return "correction", head
    if _POSITIVE.search(head) and not _NEGATED_POSITIVE.search(head):
        return "positive", head
    return None


def _says_failed(output: str) -> bool:
    return any(w in output for w in _TEST_FAIL_WORDS)


def is_test_command(args: str) -> bool:
    return bool(_TEST_CMD.search(args))


def _structural(t: Turn) -> list[Signal]:
    out: list[Signal] = []
    if t.interrupted:
        out.append(Signal("interrupt", t.idx, _q(t.interrupted)))
    for c in t.tool_calls:
        if c.rejected:
            out.append(Signal("tool_rejected", t.idx, _q(f"{c.name}: {c.output_excerpt}")))
            continue
        failed = c.is_error or (c.exit_code not in (None, 0))
        if is_test_command(c.args_summary) and (failed or _says_failed(c.output_excerpt)):
            code = f" (exit {c.exit_code})" if c.exit_code is not None else ""
            out.append(Signal("test_failure", t.idx, _q(f"{c.args_summary}{code}")))
        elif failed:
            code = f"exit {c.exit_code}: " if c.exit_code is not None else ""
            out.append(Signal("tool_failure", t.idx, _q(f"{c.name}: {code}{c.output_excerpt}")))
    return out


def compute(session: Session) -> list[Signal]:
    """All signals of ``session`` (its turns must be built and indexed)."""
    signals: list[Signal] = []
    turns = session.turns
    human = [t for t in turns if t.kind == HUMAN and t.user_text]
    next_human = {a.idx: b for a, b in zip(human, human[1:], strict=False)}
    for t in turns:
        signals.extend(_structural(t))
        nxt = next_human.get(t.idx)
        if nxt is None:
            continue
        r = reaction(nxt.user_text)
        if r:
            signals.append(Signal(r[0], t.idx, _q(r[1])))
        elif t.kind == HUMAN and _similar(t.user_text, nxt.user_text):
            signals.append(Signal("reask", t.idx, _q(first_sentence(nxt.user_text))))
    if turns and session.kind != "subagent":
        last = turns[-1]
        failed_last = bool(last.tool_calls) and (
            last.tool_calls[-1].is_error or last.tool_calls[-1].exit_code not in (None, 0)
        )
        if not last.finished and (last.interrupted or last.api_error or failed_last):
            why = last.interrupted or last.api_error or f"{last.tool_calls[-1].name} failed"
            signals.append(Signal("abandonment", last.idx, _q(f"session ended after: {why}")))
    return signals


def _similar(a: str, b: str) -> bool:
    na, nb = _norm(a), _norm(b)
    if not na or not nb or len(na) < 12:
        return False
    if na == nb:
        return True
    wa, wb = set(na.split()), set(nb.split())
    if len(wa & wb) / len(wa | wb) < 0.6:  # cheap gate before the quadratic matcher
        return False
    return difflib.SequenceMatcher(None, na[:500], nb[:500]).ratio() >= _REASK_MIN
