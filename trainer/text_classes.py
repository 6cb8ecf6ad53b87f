"""Classes of text a user objects to as a kind rather than as one word: typography (curly
quotes, an ellipsis, a rule line, a blockquote), numbers (spelled out, unseparated, a unit
glued to its number, a currency symbol), a bare URL, a short command-line flag, a file name,
flattery ("good catch", "great question"), a recap ("In summary, …"), a sub-bullet.

They are features of the check vocabulary (``trainer.features.FEATURES``): "no smart quotes"
is every curly quote, not the one the answer had, and "no file names in the subject" every
file name, not ``values.yaml``. Each is written to miss its look-alikes ("someone" has no
number word, a port is no unseparated number, ``S3`` or ``5xx`` no unit, ``e.g.`` no file).
"""

from __future__ import annotations

import re
from collections.abc import Callable


def has_match(pattern: str, flags: int = re.MULTILINE) -> Callable[[str], bool]:
    """A feature test: whether a text has a match of ``pattern`` (every pattern feature of
    ``trainer.checks`` is one)."""
    rx = re.compile(pattern, flags)
    return lambda text: rx.search(text) is not None


# "one" is left out: it is a pronoun as often as a number ("the one above").
_NUMBER_WORDS = (
    "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    "ninety|hundred|thousand"
)
_UNITS = (
    "ms|us|µs|ns|s|sec|secs|min|mins|h|hr|hrs|KB|kB|MB|GB|TB|KiB|MiB|GiB|TiB|Kb|Mb|Gb|px|rem|"
    "Hz|kHz|MHz|GHz|fps|rps|qps|km|kg|cm|mm"
)
_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|sh|bash|zsh|"
    "md|rst|txt|json|yaml|yml|toml|ini|cfg|conf|lock|sql|html|css|scss|env|xml|csv|proto|tf|"
    "gradle|vue|svelte|mod|sum"
)

# Names of software that end like a file ("Node.js 22" names no file).
_LIBRARIES = "(?:Node|Deno|Vue|Next|Nuxt|Express|Three|Chart|D3|Ember|Backbone|Angular|Alpine)"

TEXT_CLASSES: dict[str, tuple[Callable[[str], bool], str]] = {
    "first_person_any": (
        has_match(
            r"\b(?:I(?!/\w)|I'm|I've|I'll|I'd)\b|\b(?:[Mm]e|[Mm]y|[Mm]ine|[Ww]e|[Ww]e're|[Ww]e've|"
            r"[Ww]e'll|[Ww]e'd|[Oo]ur|[Oo]urs|[Uu]s)\b(?!-\w)"  # "us-east-1" is a region
        ),
        "the first person, singular or plural: I/me/my, we/us/our (not US)",
    ),
    "curly_quote": (
        has_match("[\u201c\u201d\u2018\u2019\u201e]"),
        "a curly (smart) quote: \u201c \u201d \u2018 \u2019",
    ),
    "ellipsis": (has_match(r"\.\.\.|\u2026"), "an ellipsis (... or \u2026)"),
    "horizontal_rule": (
        has_match(r"^ {0,3}(?:-[ \t]*){3,}$|^ {0,3}(?:\*[ \t]*){3,}$|^ {0,3}(?:_[ \t]*){3,}$"),
        "a horizontal rule line (---, ***, ___)",
    ),
    "blockquote": (has_match(r"^ {0,3}>"), "a blockquote line (> …)"),
    "bare_url": (
        has_match(r"(?<!\]\()(?<![\w/.-])(?:https?://|www\.)[^\s)>\]]"),
        "a URL written out rather than as a [text](url) link (<https://…> counts)",
    ),
    "number_word": (
        has_match(rf"\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE),
        "a number spelled out (two … ninety, hundred, thousand; not 'one')",
    ),
    "long_number": (
        has_match(r"(?<![\w.,:/#-])\d{5,}(?![\w.,:/-]|,\d)"),
        "a number of five or more digits without separators (18342)",
    ),
    "glued_unit": (
        has_match(rf"(?<![\w.])\d+(?:\.\d+)?(?:{_UNITS})\b(?!-)"),
        "a unit glued to its number (410ms, 20MB)",
    ),
    "currency_symbol": (
        has_match(r"[$\u20ac\u00a3\u00a5]\s?\d"),
        "a currency symbol before an amount ($12, \u20ac5)",
    ),
    "short_flag": (
        has_match(r"(?:^|[ \t])-[A-Za-z][A-Za-z0-9]*(?=[ \t]|$)"),
        "a short command-line option (-q, -rf), not a --long one",
    ),
    "flattery": (
        has_match(
            r"\b(?:good|great|nice|excellent|awesome|fantastic|brilliant|sharp) (?:catch|question|"
            r"point|call|spot|find)\b|\byou(?:'re| are) (?:absolutely |totally |completely |"
            r"exactly |so )?right(?=\s*[!,.;:\u2014-]|\s*$)|\bwhat a great\b",
            re.IGNORECASE,
        ),
        'flattery of the reader (good catch, great question, "You\'re absolutely right!"; not'
        ' "you\'re right to worry")',
    ),
    "nested_list": (
        has_match(r"^(?: {2,}|\t)(?:[-*+\u2022]|\d{1,3}[.)])\s+\S"),
        "a list item indented under another (a sub-bullet)",
    ),
    "recap": (
        has_match(
            r"(?:^|[.!?]\s+)\W*(?:in summary|in conclusion|to summari[sz]e|to sum up|in short|"
            r"all in all|in a nutshell)\b",
            re.IGNORECASE | re.MULTILINE,
        ),
        "a recap opening a sentence (In summary, In conclusion, To sum up)",
    ),
    "file_name": (
        has_match(
            rf"(?<![\w/.@-])(?!{_LIBRARIES}\.js\b)(?:[\w-]+/)*(?:[\w-]+\.)*[\w-]*[A-Za-z0-9_]\."
            rf"(?:{_EXTENSIONS})(?![\w-]|\.\w)|"
            r"(?<![\w/.-])(?:Dockerfile|Makefile|Jenkinsfile|Gemfile|Procfile)(?![\w.-])"
        ),
        "a file name or path with its extension (values.yaml, src/export.py, Dockerfile)",
    ),
}
