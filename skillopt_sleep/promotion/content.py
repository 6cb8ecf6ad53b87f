"""The content policy: what a night may never put into a skill without a person's review.

Skill text is instructions an agent obeys, and everything a night adds is untrusted: the
optimizer model writes it, and a managed skill's name and description come from user
prompts (which may quote anything, including injected text). A candidate whose text *adds*
(is not already in the skill it replaces) anything below is staged for review, never
written automatically, and the report names the rule:

1. ``pipe-to-shell``: a download run as code — ``curl … | sh``, ``wget -O- … | bash``,
   ``bash <(curl …)``, ``sh -c "$(curl …)"``, ``iwr … | iex``.
2. ``new-host``: a URL or host that the skill did not mention before (``https://…``,
   ``git@host:``, ``www.…``, the argument of curl/wget/ssh/scp/nc). Loopback and the
   names reserved for examples (``localhost``, ``example.com``, ``*.test`` …) are allowed.
3. ``credentials``: credential stores (``~/.ssh``, ``id_rsa``, ``.aws/credentials``,
   ``.netrc``, ``.git-credentials``, ``.pypirc``, ``.npmrc``, ``.docker/config.json``,
   ``.kube/config``, keychain commands), secret-named environment variables
   (``$OPENAI_API_KEY``, ``${GITHUB_TOKEN}``, ``os.environ["DB_PASSWORD"]``), or telling
   the agent to print, send, upload, copy or reveal a key, token, password or secret. A
   clause that forbids or protects ("never print the token", "redact passwords") passes.
4. ``instruction-override``: text that tells the agent to ignore, disregard or forget its
   previous instructions, rules or system prompt.
5. ``hidden-text``: invisible or bidirectional control characters (they make a reviewer
   see something other than what the agent reads).

Ordinary skill text (steps, rules, commands such as ``pytest -q`` or ``git commit``,
mentions of "tests", "the token budget", "never commit secrets") passes every rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    rule: str
    what: str  # the offending text, shortened, for the report

    def __str__(self) -> str:
        return f"{RULE_WORDS[self.rule]} ({self.what})"


RULE_WORDS = {
    "pipe-to-shell": "runs a download as code",
    "new-host": "adds a new host or URL",
    "credentials": "touches credentials",
    "instruction-override": "tells the agent to ignore its instructions",
    "hidden-text": "contains invisible or bidirectional control characters",
}

_FETCH = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)"
_SHELL = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|da|k|fi|c|tc)?sh|python[0-9.]*|perl|ruby|node"
    r"|iex|pwsh|powershell)"
)
_PIPE_TO_SHELL = [
    re.compile(rf"\b{_FETCH}\b[^\n|;&]*\|\s*{_SHELL}\b", re.I),
    re.compile(rf"\b{_SHELL}\s+(?:-\S+\s+)*<\(\s*{_FETCH}\b[^)\n]*\)", re.I),
    re.compile(rf"(?:\b{_SHELL}\s+-c\s+|\beval\s+)[\"']?\$\(\s*{_FETCH}\b[^)\n]*\)", re.I),
]

_URL = re.compile(
    r"\b[a-z][a-z0-9+.-]*://(?:[^/\s@'\"<>()`]*@)?([^/\s:'\"<>()`?#]+)[^\s'\"<>()`]*", re.I
)
_SCP = re.compile(r"\b[\w.-]+@([a-z0-9-]+(?:\.[a-z0-9-]+)+):", re.I)
_WWW = re.compile(r"\b(www\.[a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.I)
_NET_ARG = re.compile(
    r"\b(?:curl|wget|ssh|scp|sftp|nc|ncat|telnet|ftp)\b(?:\s+-{1,2}[\w-]+(?:[ =]\S+)?)*"
    r"\s+(?:[\w.-]+@)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?=[\s:/'\"]|$)",
    re.I,
)
_ALLOWED_HOSTS = re.compile(
    r"(?:localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?"
    r"|(?:[\w-]+\.)*example\.(?:com|org|net)|(?:[\w-]+\.)*(?:example|test|invalid|localhost))",
    re.I,
)

_CRED_STORE = re.compile(
    r"~?/?\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|\.netrc\b"
    r"|\.git-credentials|\.pypirc\b|\.npmrc\b|\.docker/config\.json|\.kube/config|/etc/shadow"
    r"|\bsecurity\s+find-(?:generic|internet)-password|\bgh\s+auth\s+token"
    r"|\bgcloud\s+auth\s+print-access-token|\baws\s+configure\s+get",
    re.I,
)
_SECRET_VAR = re.compile(
    r"(?:\$\{?|%|process\.env\.|os\.environ(?:\.get)?\(?\[?[\"']|getenv\([\"'])"
    r"[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\b",
)
# "token" alone is mostly the model's kind ("under 200 tokens"): only credential tokens count
_CRED_NOUN = (
    r"(?:(?:api|access|secret)[ _-]?keys?|(?:api|access|auth|bearer|github|gh|npm|pypi"
    r"|oauth|session|refresh|personal[ _-]access)[ _-]?tokens?|passwords?|passwd|secrets?"
    r"|credentials?|private[ _-]keys?|ssh[ _-]keys?)"
)
_DISCLOSE = (
    r"(?:print|echo|cat|send|post|upload|share|paste|copy|include|reveal|output|exfiltrate"
    r"|e-?mail|log|dump|read|show|display|transmit|forward|export)"
)
_CRED_ACTION = re.compile(rf"\b{_DISCLOSE}\b[^.;,\n]{{0,60}}\b{_CRED_NOUN}\b", re.I)
_PROTECTIVE = re.compile(
    r"\b(?:never|not|don't|do not|avoid|without|no|redact|mask|rotate|revoke|hide|remove"
    r"|strip|scrub|exclude)\b",
    re.I,
)

_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,20}?\b(?:all\s+|any\s+|the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system)\s+"
    r"(?:instructions?|rules|prompts?|directions|guidelines|messages?)",
    re.I,
)
_HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _pipe_to_shell(text: str) -> Iterable[Finding]:
    for pattern in _PIPE_TO_SHELL:
        for m in pattern.finditer(text):
            yield Finding("pipe-to-shell", _short(m.group(0)))


def _new_hosts(text: str) -> Iterable[Finding]:
    """URLs (whole, so a new path on a known host counts) and hosts named without one."""
    for m in _URL.finditer(text):
        if not _ALLOWED_HOSTS.fullmatch(m.group(1).rstrip(".")):
            yield Finding("new-host", _short(m.group(0).rstrip(".,;:").lower()))
    for pattern in (_SCP, _WWW, _NET_ARG):
        for m in pattern.finditer(text):
            host = m.group(1).lower().rstrip(".")
            if not _ALLOWED_HOSTS.fullmatch(host) and not _in_url(text, m.start(1)):
                yield Finding("new-host", host)


def _in_url(text: str, pos: int) -> bool:
    """Whether ``pos`` lies inside a URL (already reported whole)."""
    return any(m.start() <= pos < m.end() for m in _URL.finditer(text))


def _clauses(text: str) -> Iterable[str]:
    return (c for c in re.split(r"(?<=[.;!?])\s+|\n", text) if c.strip())


def _credentials(text: str) -> Iterable[Finding]:
    for m in _CRED_STORE.finditer(text):
        yield Finding("credentials", _short(m.group(0)))
    for m in _SECRET_VAR.finditer(text):
        yield Finding("credentials", _short(m.group(0)))
    for clause in _clauses(text):
        action = _CRED_ACTION.search(clause)
        if action and not _PROTECTIVE.search(clause):
            yield Finding("credentials", _short(action.group(0)))


def _override(text: str) -> Iterable[Finding]:
    for m in _OVERRIDE.finditer(text):
        yield Finding("instruction-override", _short(m.group(0)))


def _hidden(text: str) -> Iterable[Finding]:
    for m in _HIDDEN.finditer(text):
        yield Finding("hidden-text", f"U+{ord(m.group(0)):04X}")


RULES: dict[str, Callable[[str], Iterable[Finding]]] = {
    "pipe-to-shell": _pipe_to_shell,
    "new-host": _new_hosts,
    "credentials": _credentials,
    "instruction-override": _override,
    "hidden-text": _hidden,
}


def scan(text: str) -> set[Finding]:
    """Everything in ``text`` the rules flag."""
    return {f for rule in RULES.values() for f in rule(text)}


def added(new_text: str, old_text: str | None) -> list[Finding]:
    """What ``new_text`` adds that the rules flag and ``old_text`` (the skill it replaces;
    None for a new skill) did not already have, in rule order."""
    before = scan(old_text or "")
    order = list(RULES)
    return sorted(scan(new_text) - before, key=lambda f: (order.index(f.rule), f.what))


def explain(findings: list[Finding]) -> str:
    """One line for the report: why a candidate was blocked."""
    return (
        "blocked by the content policy: "
        + "; ".join(str(f) for f in findings[:4])
        + (f" (and {len(findings) - 4} more)" if len(findings) > 4 else "")
    )
