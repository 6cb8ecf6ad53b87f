"""Mining's shortcuts read what the work they stand for reads: a cheap test before a dear
pattern, a corrected answer's code words read once instead of a pattern per word, a judge
held to a kind's accepted answers once per rule instead of once per statement, a prompt
showing its whole request not read again for its names, a follow-up ingest flagged read
only for an acknowledgement, a follow-up respelt once. Each is
checked against the reading as first written, on generated input rich in what it keys on
(cues in any case, hyphens, brackets, Unicode letters and spaces, repeated turns)."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from skillopt_sleep.mining.phrases import pair_spans
from skillopt_sleep.mining.topics import _code_words
from skillopt_sleep.mining.verify import (
    ACCEPTED_FAILS,
    CORRECTED_PASSES,
    NO_ACCEPTED,
    Evidence,
    passes,
    verify,
)
from trainer.tasks import Judge

_PAIR_PATTERNS = (
    (r"(.+?)\s*,?\s+(?:not|rather than|instead of|over(?!\s+\d))\s+(.+)", False),
    (r"(?:rather|prefer)\s+(.+?)\s+than\s+(.+)", False),
    (r"(?:swap|replace|switch|change|turn|convert)\s+(.+?)\s+(?:for|with|to|into)\s+(.+)", True),
    (r"(?:write|spell)\s+(.+?)\s+as\s+(.+)", True),
    (r"(.+?)\s*(?:->|→)\s*(.+)", True),
    (r"(?<![\w/])s/([^/\n]+)/([^/\n]*)/", True),
)
_STATEMENT = (
    r"\b(?:is|are|was|were|do|does|did|should|must|can|could|will|would|has|have|need|"
    r"needs|they'?re|it'?s|that'?s|we'?re|you'?re)\W*$"
)


def _pair_spans_as_written(clause: str) -> list[tuple[int, int, str]]:
    for pat, rejected_first in _PAIR_PATTERNS:
        m = re.search(pat, clause, re.IGNORECASE)
        if m and not rejected_first and re.search(_STATEMENT, m.group(1), re.IGNORECASE):
            continue
        if m:
            rejected, kept = (m.span(1), m.span(2)) if rejected_first else (m.span(2), m.span(1))
            return [(*rejected, "no"), (*kept, "keep")]
    return []


_PAIR_TOKENS = ["not", "NOT", "Not", "rather than", "instead of", "over", "OVER", "over 3",
                "rather", "prefer", "than", "swap", "for", "write", "as", "->", "→", "s/a/b/",
                "s/x/", "it's", "is", "should", "use", "pytest", "unittest", "ſ", "noſt", ",",
                ", not", "(", ")", "/", "3", "é"]  # fmt: skip
_SPACES = st.sampled_from([" ", " ", "  ", "\t", "\u00a0", "\u2003", ", ", ""])


@st.composite
def _clauses(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(_PAIR_TOKENS), _SPACES), max_size=12))
    return "".join(tok + space for tok, space in parts)


@settings(max_examples=600, deadline=None)
@given(_clauses())
def test_a_pair_is_read_as_its_pattern_reads_it(clause: str) -> None:
    assert pair_spans(clause) == _pair_spans_as_written(clause)


def test_the_pairs_the_cues_let_through_are_read() -> None:
    assert pair_spans("use pytest, not unittest")[0][2] == "no"
    assert pair_spans("swap os.system for subprocess")
    assert pair_spans("utilize -> use") and pair_spans("s/utilize/use/")
    assert pair_spans("it should not be long") == []


def _is_code_word_as_written(word: str, corrected: str) -> bool:
    code = " ".join(a or b for a, b in re.findall(r"```[^\n]*\n(.*?)```|`([^`\n]+)`",
                                                  corrected, re.DOTALL))  # fmt: skip
    return bool(
        re.search(rf"\b{re.escape(word)}\s*\(", corrected)
        or re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", code)
    )


_WORDS = ["print", "printf", "log", "log-level", "level", "x_y", "run", "é", "ab", "call"]
_CODE_TOKENS = [*_WORDS, "-", "--", "_", "(", " (", "\u00a0(", ")", "`", "```", "```py\n",
                "\n", " ", ".", "é", "9", "x"]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_CODE_TOKENS), max_size=25), st.sampled_from(_WORDS))
def test_a_word_is_code_where_its_patterns_find_it(tokens: list[str], word: str) -> None:
    corrected = "".join(tokens)
    plain = [w for w in _WORDS if re.fullmatch(r"[a-z][\w-]*", w)]  # the words it is asked
    for w in {word, *plain}:
        if re.fullmatch(r"[a-z][\w-]*", w):
            assert (w in _code_words(corrected)) == _is_code_word_as_written(w, corrected)


def test_code_words_are_the_called_and_the_quoted() -> None:
    words = _code_words("call print() and log-level ( x) here; `ab_c` and\n```\nrun x\n```")
    assert {"print", "log-level", "level", "ab_c", "run", "x"} <= words
    assert "call" not in words and "here" not in words


def _reason_as_written(judge: Judge, ev: Evidence, accepted: list[tuple[str, str]]) -> str:
    """``verify``'s reason as first written: each judge held to every other accepted answer."""
    if ev.corrected is not None and passes(judge, ev.corrected):
        return CORRECTED_PASSES
    if ev.accepted is not None and not passes(judge, ev.accepted):
        return ACCEPTED_FAILS
    others = [(tid, a) for tid, a in accepted if tid != ev.turn_id]
    failing = next((tid for tid, a in others if not passes(judge, a)), None)
    if failing is not None:
        return f"the accepted answer of turn {failing} fails it"
    if ev.accepted is None and not others:
        return NO_ACCEPTED
    return ""


_ANSWERS = ["Fix parser crash", "fix parser crash 🚀", "Fixed the parser", "Add export",
            "Fix login\n\nThe token expired.", "- one\n- two", "Fix", ""]  # fmt: skip
_JUDGES = [Judge("max_words", "3", 1.0, "s"), Judge("no", "emoji", 1.0, "s"),
           Judge("has", "capital_start", 1.0, "s", (), "first_line"),
           Judge("not_contains", "parser", 1.0, "s"), Judge("contains", "Fix", 1.0, "t"),
           Judge("no", "past_tense", 1.0, "s", (), "first_line")]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.lists(st.sampled_from(_JUDGES), max_size=3),
                       st.sampled_from([None, *_ANSWERS]), st.sampled_from([None, *_ANSWERS]),
                       st.integers(0, 5)), max_size=8),
    st.lists(st.tuples(st.integers(0, 5), st.sampled_from(_ANSWERS)), max_size=7),
)  # fmt: skip
def test_a_judge_is_held_to_the_accepted_answers_as_one_by_one(
    stated: list[tuple[list[Judge], str | None, str | None, int]],
    accepted: list[tuple[int, str]],
) -> None:
    evidence = [Evidence(tuple(js), c, a, f"t{n}") for js, c, a, n in stated]
    held = [(f"t{n}", a) for n, a in accepted]
    kept, dropped = verify(evidence, held)
    want = [(j, _reason_as_written(j, ev, held)) for ev in evidence for j in ev.judges]
    assert kept == [j for j, reason in want if not reason]
    assert [(d.judge, d.reason) for d in dropped] == [(j, r) for j, r in want if r]


_NAME_TOKENS = ["src/tide_pool/chart.py", "README.md", "datumClamp", "FEET_PER_METRE", "x.y",
                "gauge", "a/b/", "./run.sh", "v2.1", "the", "redacted", "[REDACTED]", "1234",
                "é", "naïve", "--force", "(", ")", "```", "fooBar.tsx", "_", ".", "/", "-",
                "```diff\n-old_datum = 1\n+new_datum = 2\n```", "Traceback (most recent call"
                " last):\n  File \"harbour.py\", line 3\nKeyError: 'anchor'"]  # fmt: skip
_GAPS = st.sampled_from([" ", "\n", "\n\n", "\t", "", ", ", ": ", "  \n"])


@st.composite
def _requests(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(_NAME_TOKENS), _GAPS), max_size=14))
    return draw(_GAPS) + "".join(tok + gap for tok, gap in parts)


@settings(max_examples=400, deadline=None)
@given(_requests(), st.lists(_requests(), max_size=4), st.sampled_from(["", "/w/tide_pool"]),
       st.sampled_from(["", "feat/datumClamp"]), st.integers(5, 400))  # fmt: skip
def test_a_task_shown_its_whole_request_gets_the_content_check_it_got_when_the_prompt_was_read(
    text: str, others: list[str], project: str, branch: str, context_chars: int
) -> None:
    from skillopt_sleep.mining.content import KindNames, content_judge
    from skillopt_sleep.mining.evidence import Request
    from skillopt_sleep.mining.intents import intent
    from skillopt_sleep.mining.pipeline import _content_rule, _prompt

    cleaned, norm = intent(text)
    req = Request("t1", "s1", "2026-01-01", text, cleaned, norm, [], project, branch)
    kind = KindNames([text, *others])
    prompt = _prompt(req, context_chars)
    got = _content_rule(req, kind, prompt, context_chars)
    read = content_judge(text, kind, "t1", seen=prompt)  # the prompt read for its names
    assert got[0] + [d.judge for d in got[1]] == ([read] if read else [])


_FOLLOW_UPS = ["thanks", "perfect", "👍", "go ahead", "no", "shorter", "no emoji", "why?",
               "now the changelog", "also add a test", "too long, 50 chars max", "looks good",
               "great, thanks!", "drop the headers", "use rg instead of grep", "", "ok", "?",
               "that's it", "keep going", "what about the docs",
               "number the steps please"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_FOLLOW_UPS), _GAPS), min_size=1, max_size=3),
    st.sampled_from(["", "Here is the summary:\n- one\n- two", "Done. 🎉 All tests pass."]),
)
def test_a_flagged_follow_up_read_only_for_an_acknowledgement_is_read_as_classify_reads_it(
    parts: list[tuple[str, str]], answer: str
) -> None:
    from skillopt_sleep.mining import followups

    text = "".join(p + g for p, g in parts).strip()
    assume(not followups.is_new_work(text))  # new work is classified in full (evidence.load)
    full = followups.classify(text, answer)
    as_load_reads = full if full != followups.REQUEST else followups.CORRECTION
    ack = followups.is_ack(text, after_answer=True)
    assert (followups.ACK if ack else followups.CORRECTION) == as_load_reads


_SLIPS = ["insted", "Insted", "bulets", "heders", "emojs", "sentance", "perod", "markdwn",
          "withuot", "subjet", "lowercse", "numberd", "instead", "bullets", "grep", "Grafana",
          "colums", "columns", "ok", "e-mial", "pre-comit", "x9insted", "INSTED"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_SLIPS), _GAPS), max_size=10),
       st.lists(st.sampled_from(_SLIPS), max_size=3))  # fmt: skip
def test_respelling_a_follow_up_again_changes_nothing(
    parts: list[tuple[str, str]], answer_words: list[str]
) -> None:
    from skillopt_sleep.mining.phrases import respell

    text, answer = "".join(p + g for p, g in parts), " ".join(answer_words)
    once = respell(text, answer)
    assert respell(once, answer) == once
