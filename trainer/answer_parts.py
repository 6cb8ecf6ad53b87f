"""How an answer's parts are read: its fenced and inline code, its list items, and what
it hands over behind a lead-in ("Here is the message:", then the message).

The named features (``trainer.features``) and the checks' scopes (``trainer.checks``) read
the same parts, so both take them from here.
"""

from __future__ import annotations

import re

FENCE_LINE = re.compile(r"^\s*(```|~~~)")
FENCED = re.compile(r"^\s*(```|~~~)[^\n]*\n(.*?)(?:^\s*\1[^\n]*$|\Z)", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"`[^`\n]+`")
# A fence that wraps text rather than code: its deliverable is a message, not a program.
_TEXT_FENCE = re.compile(
    r"^\s*(```|~~~)\s*(?:text|txt|plain|plaintext|gitcommit|commit|git|markdown|md)?\s*\n"
    r"(.*?)^\s*\1\s*$",
    re.DOTALL | re.MULTILINE,
)
ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(\S.*)$")
_MESSAGE_FENCES = {
    "",
    "text",
    "txt",
    "plain",
    "plaintext",
    "gitcommit",
    "commit",
    "git",
}
BULLET = re.compile(r"^\s*[-*+•]\s+\S", re.MULTILINE)
# An answer opening with a pleasantry ("Sure", "Here is …"): the ``preamble`` feature, and
# one way a line leads in to the deliverable.
PREAMBLE = re.compile(
    r"\A\W*(?:sure|certainly|of course|absolutely|here(?:'s| is| are)|great question|"
    r"happy to|i'?d be happy|no problem|okay|ok)\b",
    re.IGNORECASE,
)


# "Here is the commit message:" then a blank line: a lead-in, not the message's subject.
_FIRST_PARAGRAPH = re.compile(r"\A\s*([^\n]+)\n[ \t]*\n(?=\s*\S)")


def _leads_in(line: str) -> bool:
    """A line that introduces what follows: three or more words ending in ":", or a
    pleasantry ("Sure, here's the updated message.")."""
    line = line.strip()
    return bool(re.fullmatch(r"(?:\S+\s+){2,}\S*:", line)) or PREAMBLE.search(line) is not None


def deliverable(answer: str) -> str:
    """What the answer hands over: the inside of its one plain fence when the rest is a
    lead-in (at most two lines, the last one leading in) and at most two lines after; the
    rest of the answer after a lead-in line and a blank line; else the answer. A fence
    tagged with a programming language holds code, not the message."""
    fences = list(FENCED.finditer(answer))
    if not fences:
        first = _FIRST_PARAGRAPH.match(answer)
        return answer[first.end() :] if first and _leads_in(first.group(1)) else answer
    m = _TEXT_FENCE.search(answer)
    if len(fences) != 1 or m is None or m.start() != fences[0].start():
        return answer
    before, after = answer[: m.start()].strip(), answer[m.end() :].strip()
    if before and not _leads_in(before.splitlines()[-1]):
        return answer
    if len(before.splitlines()) > 2 or len(after.splitlines()) > 2:
        return answer
    return m.group(2)


def fence_language(answer: str, m: re.Match[str]) -> str:
    """The language a fence is tagged with ("" when untagged), lower case."""
    info = answer[m.start() : m.start(2)].strip().lstrip("`~").strip().lower()
    return info.split()[0] if info else ""


def without_program_code(text: str) -> str:
    """The text less its blocks of code: a YAML ``- checkout`` step is no bullet of the
    answer's, nor is a list shown as markdown source in a ``md`` fence; a list in a text or
    untagged fence (a commit message handed over) still is."""
    return FENCED.sub(
        lambda m: m.group(0) if fence_language(text, m) in _MESSAGE_FENCES else "", text
    )


# The names a fence gives each language, and the comment marks of its code. A rule on a
# language's code holds in each of its names ("no var" in ``ts`` as in ``js``), and only there
# (CSS's ``var(--gap)`` is none of JS's); a tag named nowhere is a language of its own.
_LANGUAGES: dict[str, tuple[str, str]] = {
    "javascript": ("js javascript jsx mjs cjs node ts typescript tsx", "// /*"),
    "python": ("python py python3 py3 pycon", "#"),
    "yaml": ("yaml yml", "#"),
    "shell": ("sh bash zsh shell console fish", "#"),
    "powershell": ("powershell ps1", "#"),
    "go": ("go golang", "// /*"),
    "rust": ("rust rs", "// /*"),
    "ruby": ("ruby rb", "#"),
    "sql": ("sql psql postgres postgresql mysql sqlite plsql tsql", "-- /*"),
    "dockerfile": ("dockerfile docker containerfile", "#"),
    "cpp": ("c cpp c++ h hpp cc", "// /*"),
    "csharp": ("cs csharp", "// /*"),
    "kotlin": ("kotlin kt", "// /*"),
    "terraform": ("hcl tf terraform", "# // /*"),
    "make": ("make makefile", "#"),
    "haskell": ("haskell hs", "-- /*"),
    "elixir": ("elixir ex", "#"),
    "lua": ("lua", "-- /*"),
}
_LANGUAGES.update((name, (name, "#")) for name in ("toml", "perl", "r", "conf", "ini", "nginx"))
_LANGUAGES.update(
    (name, (name, "// /*"))
    for name in ("java", "swift", "scala", "php", "dart", "groovy", "gradle", "jsonc")
)
_FAMILY = {name: family for family, (names, _) in _LANGUAGES.items() for name in names.split()}
_SHELLS = set(_LANGUAGES["shell"][0].split()) | set(_LANGUAGES["powershell"][0].split())


def language_family(language: str) -> str:
    """The language a fence's tag names ("ts" -> "javascript"); an unknown tag is its own."""
    return _FAMILY.get(language, language)


def in_languages(answer: str, families: set[str]) -> str:
    """The answer's blocks of code in one of ``families``, and its untagged ones (their
    language unknown, the rule may hold there)."""
    kept = [
        m.group(0)
        for m in FENCED.finditer(answer)
        if (language := fence_language(answer, m)) == "" or language_family(language) in families
    ]
    return "\n".join(kept)


# Comment syntax: an untagged fence takes "#" and "//" comments.
_COMMENTS = {
    "#": r"(?<![^\s;])#(?![!\[]|\w)[^\n]*",  # "# note", not a shebang, "#fff" or "#[derive]"
    "//": r"(?<![:\w])//[^\n]*",  # not the "//" of a URL
    "--": r"--[^\n]*",
    "/*": r"/\*.*?(?:\*/|\Z)",
}
_STRING = r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"


def _comment_marks(language: str) -> list[str]:
    if not language:
        return ["#", "//"]
    family = language_family(language)
    return _LANGUAGES[family][1].split() if family in _LANGUAGES else []


# A module named in a string by an import ("from 'lodash'", "require('lodash')"): code's name.
_IMPORTED = rf"\b(?:from|import|require\()\s*(?:{_STRING})"


def _blank(m: re.Match[str]) -> str:
    """A string literal emptied (``'select'`` -> ``''``: still a value between commas), a
    comment gone; a module an import names kept."""
    text = m.group(0)
    if text[0].isalpha():  # an import and its module
        return text
    return text[0] * 2 if text[0] in "\"'" else " "


def bare_code(answer: str) -> str:
    """The fenced code with its comments blanked and its strings emptied: the keywords and names
    the code uses, not ones a comment or a string mentions ("-- select the latest rows",
    ``'select from where'``, ``// no var here``); the module an import names stays
    (``require('lodash')``). A shell block stays whole: its strings hold
    commands (``bash -c "…"``) and its comments the reader's alternatives (``# or: pip
    install x``)."""
    out = []
    for m in FENCED.finditer(answer):
        language = fence_language(answer, m)
        body = m.group(2)
        if language not in _SHELLS:  # a string first: a "#" or "--" inside one is no comment
            parts = [_IMPORTED, _STRING, *(_COMMENTS[mark] for mark in _comment_marks(language))]
            body = re.sub("|".join(parts), _blank, body, flags=re.DOTALL)
        out.append(body)
    return "\n".join(out).strip()
