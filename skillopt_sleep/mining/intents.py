"""Intent of a turn: the human request, cleaned, then normalized for clustering.

Two forms exist because they serve two readers. ``clean`` is for people and for replay
prompts: harness text and pasted blobs are replaced by short placeholders, but the
request keeps its words and details ("fix the failing test in foo.py"). ``normalize`` is
for the vectorizer: details that vary from one occurrence of a task to the next (paths,
numbers, hashes, identifiers) become tokens, so that "fix the failing test in foo.py" and
"fix the failing test in bar.py" meet.
"""

from __future__ import annotations

import re

# Longest cleaned intent kept; a 100 KB prompt is summarized, not clustered on its bulk.
MAX_INTENT_CHARS = 600

# Harness-injected blocks that ingest normally removes; stripped again defensively since a
# missed tag would dominate the vectors of every turn that carries it.
_HARNESS_BLOCK = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|environment_context|user_instructions|skill|turn_aborted|"
    r"ide_selection|ide_opened_file)\b[^>]*>.*?</\1>",
    re.DOTALL | re.IGNORECASE,
)
_HARNESS_LINE = re.compile(
    r"^(Caveat: .*|\[Request interrupted by user.*\]|# AGENTS\.md instructions.*)$",
    re.MULTILINE,
)
_FENCE = re.compile(r"```[^\n]*\n(.*?)(```|\Z)", re.DOTALL)
_URL = re.compile(r"\bhttps?://\S+")
_PATH = re.compile(
    r"(?<![\w/])(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?|"  # /a/b, ~/a/b, ./a/b
    r"\b[\w.-]+(?:/[\w.-]+)+\b|"  # src/foo/bar.py
    r"\b[\w-]+\.(?:py|js|ts|tsx|jsx|rs|go|java|rb|c|h|cpp|hpp|md|txt|json|ya?ml|toml|"
    r"cfg|ini|sh|sql|html|css|lock|log|csv)\b",
    re.IGNORECASE,
)
_HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", re.IGNORECASE)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])[#v]?\d+(?:[.,:]\d+)*(?![\w])")
_BACKTICK = re.compile(r"`[^`\n]{1,80}`")
# snake_case, camelCase, PascalCase with an inner capital, dotted.names, kebab-ids-with-3
_IDENT = re.compile(
    r"\b(?:[a-z]+_[\w]+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,})\b"
)
_WS = re.compile(r"[ \t]+")


def _is_blob_line(line: str) -> bool:
    """A line that looks pasted (log, trace, code, data) rather than written to the agent."""
    stripped = line.strip()
    if not stripped:
        return False
    if len(stripped) > 300 and stripped.count(" ") < len(stripped) / 25:
        return True  # a long run without spaces: minified data, base64, one-line JSON
    if line.startswith(("    ", "\t")):
        return True
    if re.match(r"^(Traceback|\s*File \"|\s*at |E  |>>>|\$ |\d{4}-\d\d-\d\d[ T]\d\d:)", line):
        return True
    if len(stripped) < 12:
        return False
    letters = sum(map(str.isalpha, stripped)) + stripped.count(" ")  # a space is no letter
    return letters / len(stripped) < 0.6


def _collapse_blobs(text: str) -> str:
    """Replace runs of three or more pasted-looking lines by one placeholder."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= 3 or any(len(line) > 300 for line in run):
            out.append(f"[pasted {len(run)} lines]")
        else:
            out.extend(run)
        run.clear()

    for line in text.split("\n"):
        if _is_blob_line(line):
            run.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out)


def _fence(match: re.Match[str]) -> str:
    body = match.group(1)
    lines = body.count("\n") + 1
    if lines <= 2 and len(body) <= 120:
        return f"`{body.strip()}`"
    return f"[code block, {lines} lines]"


def clean(text: str | None, max_chars: int = MAX_INTENT_CHARS) -> str:
    """The human request without harness text, code blocks or pasted blobs, one paragraph.

    Placeholders keep the fact that something was pasted (it matters for the replay
    prompt) without letting its bulk decide which cluster the turn lands in.
    """
    if not text:
        return ""
    if len(text) > 200_000:  # bound regex work; the head holds the request
        text = text[:200_000]
    text = _HARNESS_BLOCK.sub(" ", text)
    text = _HARNESS_LINE.sub(" ", text)
    text = _FENCE.sub(_fence, text)
    text = _collapse_blobs(text)
    text = _WS.sub(" ", re.sub(r"\s*\n\s*", " \n ", text)).replace(" \n ", " ").strip()
    if len(text) > max_chars:
        cut = text.rfind(" ", 0, max_chars)
        text = text[: cut if cut > max_chars // 2 else max_chars].rstrip() + " […]"
    return text


# Abbreviations and synonyms common in requests to coding agents, mapped to one form so
# "draft the PR msg" meets "write the pull request message". Kept short and unambiguous.
SYNONYMS = {
    "pr": "pull request", "prs": "pull requests", "mr": "merge request", "msg": "message",
    "msgs": "messages", "bump": "upgrade", "deps": "dependencies", "dep": "dependency",
    "repo": "repository", "repos": "repositories", "db": "database", "fn": "function",
    "func": "function", "funcs": "functions", "args": "arguments", "env": "environment",
    "summarise": "summarize", "summary": "summarize", "summarize": "summarize",
    "docstring": "docstrings", "unit-test": "test", "unittest": "unittest",
}  # fmt: skip


def normalize(text: str) -> str:
    """Lower-case form of a cleaned intent with varying details replaced by stable tokens."""
    text = re.sub(r"\[(pasted \d+ lines|code block, \d+ lines)\]", " zblob ", text)
    text = _URL.sub(" zurl ", text)
    text = _UUID.sub(" zhash ", text)
    text = _PATH.sub(" zpath ", text)
    text = _HASH.sub(" zhash ", text)
    text = _BACKTICK.sub(" zcode ", text)
    text = _IDENT.sub(" zident ", text)
    text = _NUMBER.sub(" znum ", text)
    text = re.sub(r"[^\w\s']+", " ", text.lower())
    return " ".join(SYNONYMS.get(w, w) for w in text.split())


def intent(text: str | None) -> tuple[str, str]:
    """``(clean, normalized)`` for one turn's ``user_text``."""
    cleaned = clean(text)
    return cleaned, normalize(cleaned)
