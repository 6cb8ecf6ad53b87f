"""Mining's cheaper readings give what the dear ones give: a pattern prefiltered by the text
every match of it contains finds what the pattern finds, a word check that does not compile
a pattern for a text lacking the word answers as the pattern does, and the request endings
counted once give the open words counted twice. Checked on generated text rich in what the
prefilters key on (the literals in any case, pieces of them, Unicode letters that ``re``
matches case-insensitively to ASCII ones)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillopt_sleep.mining import followups, grammar, literals, phrases, shapes
from skillopt_sleep.mining.prefilter import Prefiltered, needed
from skillopt_sleep.mining.vectors import ending_counts, lead_words, open_words
from trainer.checks import passes, word_found, word_pattern

PREFILTERED = [
    ("NEG_RX", phrases.NEG_RX), ("COUNT_PHRASE", phrases.COUNT_PHRASE),
    ("ANY_FEATURE", phrases.ANY_FEATURE), ("PRONOUN_NEG", phrases.PRONOUN_NEG),
    ("_ANY_SCOPE", phrases._ANY_SCOPE), ("_COUNTED", grammar._COUNTED),
    ("_FORBID", literals._FORBID), ("_FORBID_AFTER", literals._FORBID_AFTER),
    ("_REQUIRE", literals._REQUIRE), ("_REJECTS", shapes._REJECTS),
    ("_POINTED", followups._POINTED), ("_UNIT_WORDS", phrases._UNIT_WORDS),
    *((f"shape {name}", rx) for name, rx in shapes._SHAPES_RX.items()),
]  # fmt: skip

# pieces of what the patterns need (whole, cut, in other cases), and the letters that
# ``re`` folds onto ASCII ones ("ſ" is "s", the Kelvin sign "k", dotless and dotted i)
_TOKENS = ["no", "NOT", "don't", "doesnt", "never", "remove", "Drop", "take out", "leave",
           "out", "instead of", "3 words", "50 chars", "one line", "under", "max", "emoji",
           "##", "bullets", "numbered list", "!", "subject", "each line", "wrap", "E501",
           "the", "please", "add", "include", "mention", "forgot", "you missed", "only",
           "just", "keep", "banned", "is", "fine", "ſtop", "ſkip", "\u212aeep", "lı", "İ",
           "nö", "é", "n", "o", "wo", "rd", "s", "'", ",", ".", "-", "(", ")", "`x`",
           "--force", "git add -A", "&&", "import *", "traceback", "v1.2", "pipe to sh",
           "f-string", "pathlib", "ticket", "closes #12", "feat:", "signed-off", "yyyy-mm-dd",
           "camelCase", "select *", "set -euo pipefail", "==="]  # fmt: skip
_SPACES = st.sampled_from([" ", " ", "", "\t", "\u00a0", ", ", ". "])


@st.composite
def _texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(_TOKENS), _SPACES), max_size=14))
    return "".join(tok + space for tok, space in parts)


def _spans(found: object) -> list[tuple[int, int]]:
    return [m.span() for m in found]  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_a_prefiltered_pattern_finds_what_the_pattern_finds(text: str) -> None:
    for name, pattern in PREFILTERED:
        rx = re.compile(pattern.pattern, pattern.flags)
        got, want = pattern.search(text), rx.search(text)
        assert (got and got.span()) == (want and want.span()), name
        got, want = pattern.match(text), rx.match(text)
        assert (got and got.span()) == (want and want.span()), name
        assert _spans(pattern.finditer(text)) == _spans(rx.finditer(text)), name
        assert pattern.sub("_", text) == rx.sub("_", text), name


def _unit_of_as_written(text: str) -> str | None:
    text = re.sub(r"\b(?:subject|first|summary|title|each|every|per|one|single) lines?\b", " ",
                  text, flags=re.IGNORECASE)  # fmt: skip
    units = {phrases.UNITS[m.group(1).lower()] for m in re.finditer(phrases.UNIT, text, re.I)}
    return units.pop() if len(units) == 1 else None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *_TOKENS,
                "subject",
                "line",
                "lines",
                "wo",
                "rd",
                "subject line",
                "bullet",
                "points",
                "first line",
                "chars",
            ]
        ),
        max_size=10,
    )
)
def test_the_unit_a_text_names_is_read_as_before(tokens: list[str]) -> None:
    for sep in (" ", ""):
        text = sep.join(tokens)
        assert phrases.unit_of(text) == _unit_of_as_written(text)


def test_every_prefiltered_pattern_has_a_prefilter() -> None:
    for name, pattern in PREFILTERED:
        assert pattern.needs is not None, name


def test_what_a_pattern_needs_is_read_off_it() -> None:
    assert needed(r"\bno\b|n't\b|\bstop (?:\w+ing|with)\b", re.I) == {"no", "n't", "stop "}
    assert needed(r"\d+ (?:words?|lines?)") == {"word", "line"}
    assert needed(r"(?:ab)+c?") == {"ab"}
    assert needed(r"AB|cd") == {"ab", "cd"}  # compared in lower case
    assert needed(r"\bnone\b|\bno\b") == {"no"}  # where "none" is, "no" is


def test_a_pattern_with_a_match_needing_no_literal_is_always_searched() -> None:
    assert needed(r"(?:abc)?\d+") is None  # the literal is optional
    assert needed(r"abc|\d") is None  # one branch needs none
    assert needed(r"x*") is None
    assert needed("naïve|cafe") is None  # not ASCII: lower() is not re's folding
    always = Prefiltered(r"(?:abc)?\d+")
    assert always.search("x 42").group(0) == "42"  # type: ignore[union-attr]


def test_non_ascii_text_is_searched_as_re_would() -> None:
    stop = Prefiltered(r"\bstop\b", re.I)
    assert stop.search("ſtop it") is not None  # re folds "ſ" onto "s"; lower() does not
    assert stop.search("ok, go") is None
    assert stop.search("STOP") is not None


_WORD_VALUES = ["var", "os.system", "Globex", "this PR", "TODO", "--force", "APP_",
                "git add .", "ſtop", "stop", "naïve", "k", "K", "\u212aelvin", "kelvin",
                "two  words"]  # fmt: skip
_WORD_TEXTS = ["vars and var", "os.system()", "GLOBEX globex", "This PR does", "todo: x",
               "--force-with-lease", "APP_PORT", "git add ./x", "stop", "ſtop", "NAÏVE",
               "kelvin", "\u212aelvin", "two\twords", "", "x"]  # fmt: skip


@given(st.sampled_from(_WORD_VALUES), st.sampled_from(_WORD_TEXTS), st.booleans())
def test_a_word_is_found_where_its_pattern_finds_it(value: str, text: str, token: bool) -> None:
    assert word_found(value, text, token) == (word_pattern(value, token).search(text) is not None)


def test_content_names_are_found_as_words() -> None:
    assert passes("mentions_any", "parse_config | Loader", "answer", "fixed the loader")
    assert not passes("mentions_any", "parse_config | Loader", "answer", "fixed the reader")
    assert passes("not_contains", "var", "code", "```\nlet vars = 1\n```")


_DOC_WORDS = ["write", "the", "commit", "message", "btw", "left", "handed", "layout", "fix"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_DOC_WORDS), max_size=6), max_size=12))
def test_endings_counted_once_give_the_open_words_counted_each_time(docs: list[list[str]]) -> None:
    counts = ending_counts(docs)
    for min_endings in (1, 2):
        assert open_words(docs, min_endings=min_endings, counts=counts) == open_words(
            docs, min_endings=min_endings
        )
    assert lead_words(docs, counts) == lead_words(docs)


def test_kept_readings_are_fresh_lists() -> None:
    first = phrases.clauses("keep it short, no emoji")
    first.append("changed")
    assert phrases.clauses("keep it short, no emoji") == ["keep it short", "no emoji"]
    pairs = phrases.pair_spans("use pytest, not unittest")
    pairs.clear()
    assert phrases.pair_spans("use pytest, not unittest")
