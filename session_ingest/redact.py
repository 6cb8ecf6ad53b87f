"""Replace secret-shaped strings with typed placeholders such as ``[REDACTED:openai_key]``.

Applied by the parsers to every text before it is stored, so nothing unredacted reaches
the database. ``redact`` runs a rule's regex only when a cheap literal anchor of that rule
occurs in the text (``sk-``, ``AKIA``, ``://``, ``=`` …), which keeps redaction off the
ingest hot path for the ordinary text that contains no secret at all. ``RULES`` lists
the shapes (kind, documented anchors, pattern, replacement).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

Rule = tuple[str, tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str] | None]


def _placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _keep_prefix(kind: str) -> Callable[[re.Match[str]], str]:
    """Keep group 1 (a label such as ``Bearer `` or ``PASSWORD=``), redact the rest."""
    return lambda m: m.group(1) + _placeholder(kind)


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_NAME_TAIL = re.compile(
    r"(?i)(?:key|secret|token|passw(?:or)?d|pwd|credentials?|auth)[A-Za-z0-9_\-]*[\"']?[ \t]*$"
)


_TOKEN = re.compile(r"[A-Za-z0-9+_\-.=~]+")


def _assignment(m: re.Match[str]) -> str:
    """``API_KEY=<value>``: redact values of secret-named keys that look random.

    The regex finds ``=``/``:`` followed by a long token (cheap to scan for); only then is
    the name before it checked, which keeps this rule fast on ordinary prose and code.
    """
    head = m.string[max(0, m.start() - 80) : m.start()]
    name = _NAME_TAIL.search(head)
    value = m.group(1)
    if name is None or value.startswith("[REDACTED"):
        return m.group(0)
    keep = m.group(0)[: m.start(1) - m.start()]
    low = name.group(0).lower()
    if "passw" in low or "pwd" in low:
        return keep + _placeholder("password")
    classes = sum(
        (any(c.islower() for c in value), any(c.isupper() for c in value),
         any(c.isdigit() for c in value))
    )  # fmt: skip
    if len(value) < 16 or not _TOKEN.fullmatch(value) or classes < 2 or _entropy(value) < 3.0:
        return m.group(0)
    return keep + _placeholder("secret")


RULES: list[Rule] = [
    (
        "private_key",
        ("private key-----",),
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
            re.S,
        ),
        None,
    ),
    ("anthropic_key", ("sk-ant-",), re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,}"), None),
    (
        "openai_key",
        ("sk-",),
        re.compile(r"(?<![A-Za-z0-9_\-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        None,
    ),
    (
        "github_token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        None,
    ),
    ("aws_access_key", ("akia", "asia"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), None),
    (
        "slack_token",
        ("xox", "hooks.slack.com"),
        re.compile(
            r"\bxox[abprse]-[A-Za-z0-9\-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/]+"
        ),
        None,
    ),
    ("google_api_key", ("aiza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), None),
    ("hf_token", ("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}"), None),
    (
        "stripe_key",
        ("_live_", "_test_"),
        re.compile(r"\b(?:sk|rk|pk|whsec)_(?:live|test)_[A-Za-z0-9]{16,}"),
        None,
    ),
    ("npm_token", ("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), None),
    (
        "jwt",
        ("eyj",),
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        None,
    ),
    (
        "bearer_token",
        ("bearer",),
        re.compile(r"(?i)(\bbearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=\-]{16,}"),
        _keep_prefix("bearer_token"),
    ),
    (
        "url_password",
        ("://",),
        re.compile(
            r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@\"'<>]+:)(?!\[REDACTED)[^\s@/\"'<>]+(?=@)"
        ),
        _keep_prefix("url_password"),
    ),
    (
        "secret",
        ("key", "secret", "token", "passw", "pwd", "credential", "auth"),
        re.compile(r"[=:][ \t]*[\"']?([^\s\"'`<>,;()\[\]{}]{8,})"),
        _assignment,
    ),
]


_BY_KIND = {rule[0]: rule for rule in RULES}
_GITHUB_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")
# ``_assignment`` redacts only after a secret-like name, matched case-insensitively: when
# none of these occurs in the lowered text, the ``secret`` rule cannot change anything.
_SECRET_NAMES = ("key", "secret", "token", "passw", "pwd", "credential", "auth")
_SECRET_RE = _BY_KIND["secret"][2]


def _sub(kind: str, text: str) -> str:
    _kind, _anchors, pattern, repl = _BY_KIND[kind]
    return pattern.sub(repl or _placeholder(kind), text)


def redact(text: str) -> str:
    """Return ``text`` with every secret-shaped substring replaced by a typed placeholder.

    Each rule runs only when its literal anchor occurs (case as the secrets are written),
    which keeps the common case — no secret at all — to a handful of substring checks.
    """
    if not text:
        return text
    if "PRIVATE KEY-----" in text:
        text = _sub("private_key", text)
    if "sk-" in text:
        if "sk-ant-" in text:
            text = _sub("anthropic_key", text)
        text = _sub("openai_key", text)
    if "_" in text:
        if "gh" in text and any(p in text for p in _GITHUB_PREFIXES):
            text = _sub("github_token", text)
        if "hf_" in text:
            text = _sub("hf_token", text)
        if "_live_" in text or "_test_" in text:
            text = _sub("stripe_key", text)
        if "npm_" in text:
            text = _sub("npm_token", text)
    if "AKIA" in text or "ASIA" in text:
        text = _sub("aws_access_key", text)
    if "xox" in text or "hooks.slack.com" in text:
        text = _sub("slack_token", text)
    if "AIza" in text:
        text = _sub("google_api_key", text)
    if "eyJ" in text:
        text = _sub("jwt", text)
    if "earer" in text or "EARER" in text:
        text = _sub("bearer_token", text)
    if "://" in text:
        text = _sub("url_password", text)
    if ("=" in text or ":" in text) and _may_name_secret(text):
        text = _sub_secret(text)
    return text


def _may_name_secret(text: str) -> bool:
    """False only when no secret-like name can match (``_NAME_TAIL`` is case-insensitive;
    non-ASCII text, where case folding is wider than ``str.lower``, always says True)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(name in low for name in _SECRET_NAMES)


def _sub_secret(text: str) -> str:
    """``_SECRET_RE.sub(_assignment, text)``, visiting only the ``=``/``:`` positions (found
    with ``str.find``) where a match can start, instead of trying every character."""
    match = _SECRET_RE.match
    find = text.find
    pieces: list[str] = []
    prev = pos = 0
    eq, colon = find("="), find(":")
    while eq >= 0 or colon >= 0:
        at = eq if colon < 0 or 0 <= eq < colon else colon
        m = match(text, at)
        if m is None:
            pos = at + 1
        else:
            pieces.append(text[prev:at])
            pieces.append(_assignment(m))
            prev = pos = m.end()
        if 0 <= eq < pos:
            eq = find("=", pos)
        if 0 <= colon < pos:
            colon = find(":", pos)
    if not pieces:
        return text
    pieces.append(text[prev:])
    return "".join(pieces)


def redact_clip(text: str, limit: int) -> str:
    """Cut to ``limit`` and redact. A margin past the cut is redacted first, so a secret
    straddling the cut is replaced whole rather than left half-visible."""
    if len(text) <= limit:
        return redact(text)
    head = redact(text[: limit + 512])[:limit]
    return f"{head}… [+{len(text) - limit} chars]"


@functools.lru_cache(maxsize=4096)
def _redact_cached(text: str) -> str:
    return redact(text)


def redact_short(value: Any) -> Any:
    """Redact a short, often repeated field (cwd, branch); non-strings pass through."""
    if not isinstance(value, str):
        return value
    return _redact_cached(value) if len(value) < 512 else redact(value)
