"""Replace secret-shaped strings with typed placeholders such as ``[REDACTED:openai_key]``.

Applied by the parsers to every text before it is stored, so nothing unredacted reaches
the database. The shapes follow the rule sets of the well-known detectors (detect-secrets'
plugins, gitleaks' rules): provider tokens with fixed prefixes, private key blocks,
credentials in URLs and headers, passwords given to a command on its command line,
base64 that decodes to any of these, and values assigned to secret-named keys (among
them pre-signed URLs' signatures: Azure SAS ``sig=``, ``X-Amz-Signature=``). Those
detectors scan files for a report; they run at about 0.01–0.2 MB/s here, while ingest
redacts tens of MB per pass, so the rules are written here as anchored regexes: each runs
only when a cheap literal of its shape occurs in the text, which keeps ordinary text (no
secret at all) to a handful of substring checks. Text holding JSON escapes
(``\\u0073k-…``, ``:\\/\\/``) is also checked in decoded form. ``RULES`` lists the shapes
in the order they apply.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

Repl = Callable[[re.Match[str]], str]


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    repl: Repl | str
    needs: str = ""  # a key of GATES: what a text must contain for the rule to match


def placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _keep_label(kind: str) -> Repl:
    """Keep group 1 (a label such as ``Bearer `` or ``postgres://app:``), redact group 2."""
    return lambda m: m.group(1) + placeholder(kind)


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_TOKEN = re.compile(r"[A-Za-z0-9+/_\-.=~]+")


def looks_random(value: str, min_len: int = 16) -> bool:
    """Key material rather than a word, a path or a number: long, mixed, high entropy."""
    if len(value) < min_len or not _TOKEN.fullmatch(value):
        return False
    if value[:1] in "/~." and value.count("/") >= 2 and "+" not in value:
        return False  # a file path
    classes = (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
    )
    return classes >= 2 and _entropy(value) >= 3.0


def _basic_auth(m: re.Match[str]) -> str:
    """``Basic <base64>`` only when it decodes to ``user:password`` (not "Basic setup")."""
    try:
        decoded = base64.b64decode(m.group(2), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return m.group(0)
    if ":" not in decoded or not decoded.isprintable():
        return m.group(0)
    return m.group(1) + placeholder("basic_auth")


def _url_password(m: re.Match[str]) -> str:
    if re.match(r"\d{1,5}/|\$", m.group(2)):
        return m.group(0)  # host:port/@scope/… (npm) or ${VAR}: not a password
    return m.group(1) + placeholder("url_password")


def _url_token(m: re.Match[str]) -> str:
    """A token as the URL's user name (Sentry DSN key, ``https://<token>@host``)."""
    if not looks_random(m.group(2), 20):
        return m.group(0)
    return m.group(1) + placeholder("url_token")


def _telegram(m: re.Match[str]) -> str:
    """``<bot id>:AA…``: the part after the numeric bot id is the secret."""
    at = m.start()
    if not (at and m.string[at - 1].isdigit()):
        return m.group(0)
    return ":" + placeholder("telegram_bot_token")


def _curl_user(m: re.Match[str]) -> str:
    if m.group(2).isdigit() or m.group(2).startswith("$"):
        return m.group(0)  # docker -u 1000:1000, curl -u $USER:$TOKEN
    return m.group(1) + placeholder("password")


# A command-line argument: quoted, or up to the next space.
_ARG = r"""(?:'[^'\n]+'|"[^"\n]+"|[^\s'"]\S*)"""


def _cli_password(m: re.Match[str]) -> str:
    """Group 2, a password given as an argument, unless it names one (``$PW``, ``<pw>``)."""
    if m.group(2).strip("'\"")[:1] in ("$", "`", "<", "{", "%", ""):
        return m.group(0)
    return m.group(1) + placeholder("password")


# ``<tool> login … -p <password>`` (not ``ssh -l login -p 22``)
_LOGIN_TOOLS = ("docker", "podman", "nerdctl", "buildah", "skopeo", "registry", "oras", "oc",
                "az", "acr", "cf", "crane", "regctl")  # fmt: skip


_BASE64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _base64_secret(m: re.Match[str]) -> str:
    """Base64 whose decoded text holds a secret (``echo <b64> | base64 -d``), also when
    the decoded text is base64 again (encoded twice or three times)."""
    token = m.group(0)
    for _ in range(3):
        try:
            raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            break
        if _CONTROL.search(decoded):
            break  # binary data
        if redact(decoded) != decoded:
            return placeholder("base64_secret")
        if not _BASE64.fullmatch(decoded):
            break
        token = decoded
    return m.group(0)


_WORD_BEFORE = re.compile(r"[A-Za-z0-9_\-]")


def _bounded(repl: Repl | str) -> Repl:
    """Apply ``repl`` only when the match starts a word. (The pattern does not say so
    itself: a pattern that starts with a literal is searched for at C speed, one that
    starts with a word-boundary assertion is tried at every position, ~40 times slower.)"""

    def apply(m: re.Match[str]) -> str:
        at = m.start()
        if at and _WORD_BEFORE.match(m.string, at - 1):
            return m.group(0)
        return repl(m) if callable(repl) else repl

    return apply


def _rule(kind: str, pattern: str, repl: Repl | None = None, *, needs: str = "",
          flags: int = 0, bounded: bool = True) -> Rule:  # fmt: skip
    """A rule. With ``needs=""`` the pattern must start with a literal (searched fast)."""
    out: Repl | str = repl or placeholder(kind)
    return Rule(kind, re.compile(pattern, flags), _bounded(out) if bounded else out, needs)


# The commands whose flag takes a password, and that flag. Every one is a flag after a
# space (``_CLI_FLAG``), which one scan finds; only a text that has one is tried further.
_CLI_FLAG = re.compile(r" -(?:[pPawU]|\w*S|(?:src|dest)?(?:store|key)pass)")  # -S, -kS: sudo
_CLI_PASSWORD_FLAGS = (  # each starts with a literal (searched fast)
    r"mysql\w*\b[^\n|;&]*?\s-p(?=\S)",  # -p<pw>; "-p <db>" prompts for it
    r"mariadb\w*\b[^\n|;&]*?\s-p(?=\S)",
    r"redis-cli\b[^\n|;&]*?\s-a\s*",
    r"ldap\w+\b[^\n|;&]*?\s-w\s*",
    r"zip\b[^\n|;&]*?\s-P\s*",  # zip, unzip
    r"7z\w?\b[^\n|;&]*?\s-p(?=\S)",
)

# Cheap checks shared by several rules, each done at most once per text. A token after
# ``_`` or ``-`` is at least 16 (10) such characters long, which snake_case and kebab-case
# words rarely are: one fast scan then rules out every rule of that family.
_UNDERSCORE_TOKEN = re.compile(r"_[A-Za-z0-9]{16}")
_DASH_TOKEN = re.compile(r"-[A-Za-z0-9_\-]{10}")
GATES: dict[str, Callable[[str], bool]] = {
    "_token": lambda t: "_" in t and _UNDERSCORE_TOKEN.search(t) is not None,
    "-token": lambda t: "-" in t and _DASH_TOKEN.search(t) is not None,
    "-": lambda t: "-" in t,
    ".": lambda t: "." in t,
    ":": lambda t: ":" in t,
    "://": lambda t: ":" in t and "://" in t,
    "A": lambda t: "A" in t,
    "bearer": lambda t: "earer" in t or "EARER" in t,
    "basic": lambda t: "asic" in t or "ASIC" in t,
    "stripe": lambda t: "_" in t and ("_live_" in t or "_test_" in t),
    "mailchimp": lambda t: "-" in t and "-us" in t,
    # a literal the rule's pattern starts with: ``in`` is cheaper than a call to ``sub``
    "SK": lambda t: "SK" in t,
    "dapi": lambda t: "dapi" in t,
    "machine": lambda t: "machine" in t,
    "cli": lambda t: " -" in t and _CLI_FLAG.search(t) is not None,
    # base64 -d, b64decode, FromBase64String, Base64.getDecoder (not int64, x86_64)
    "b64": lambda t: "64" in t and ("ase64" in t or "b64" in t or "ASE64" in t),
}


_END_KEY = r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"

# In the order they apply, grouped by what they need (see ``GATES``): key blocks first
# (they contain token-like lines), a specific prefix before a general one that shares it
# (``sk-ant-`` before ``sk-``), tokens before credentials in context.
RULES: list[Rule] = [
    _rule("private_key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?" + _END_KEY,
          needs="-", flags=re.S, bounded=False),
    _rule("password", r"((?:-u|--user|--auth)[ =]?['\"]?[^\s:'\"]+:)(?!\[REDACTED)([^\s'\"]+)",
          _curl_user, needs="-"),
    _rule("password", r"(--(?:password|passwd|pass)[ =])(?!\[REDACTED)(" + _ARG + ")",
          _cli_password, needs="-"),
    _rule("anthropic_key", r"sk-ant-[A-Za-z0-9_\-]{20,}", needs="-token"),
    _rule("openai_key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}", needs="-token"),
    _rule("gitlab_token", r"glpat-[A-Za-z0-9_\-]{20,}", needs="-token"),
    _rule("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_\-]{20,}", needs="-token"),
    _rule("slack_token", r"xox[abprse]-[A-Za-z0-9\-]{10,}", needs="-token"),
    _rule("slack_token", r"xapp-\d-[A-Za-z0-9\-]{10,}", needs="-token"),
    _rule("pypi_token", r"pypi-AgE[A-Za-z0-9_\-]{40,}", needs="-token"),
    _rule("github_token", r"gh[pousr]_[A-Za-z0-9]{30,}", needs="_token"),
    _rule("github_token", r"github_pat_[A-Za-z0-9_]{22,}", needs="_token"),
    _rule("stripe_webhook_secret", r"whsec_[A-Za-z0-9]{24,}", needs="_token"),
    _rule("hf_token", r"hf_[A-Za-z0-9]{30,}", needs="_token"),
    _rule("npm_token", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", needs="_token"),
    _rule("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}(?![0-9A-Za-z])", needs="_token"),
    _rule("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![0-9A-Za-z])",
          needs="_token"),
    _rule("groq_key", r"gsk_[A-Za-z0-9]{40,}", needs="_token"),
    _rule("aws_access_key", r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|APKA)[0-9A-Z]{16}(?![0-9A-Za-z])",
          needs="A"),
    _rule("google_api_key", r"AIza[0-9A-Za-z_\-]{35}", needs="A"),
    _rule("sendgrid_key", r"SG\.[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}", needs="."),
    _rule("vault_token", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", needs="."),
    _rule("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", needs="."),
    _rule("telegram_bot_token", r"(:)(AA[A-Za-z0-9_\-]{30,})", _telegram, needs=":",
          bounded=False),
    _rule("slack_webhook",
          r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
          needs="://"),
    _rule("url_password",
          r"(://[^\s:/@\"'<>]*:)(?!\[REDACTED)([^\s\"'<>]*[^\s\"'<>@])(?=@[A-Za-z0-9\[_])",
          _url_password, needs="://", bounded=False),
    _rule("url_token", r"(://)([A-Za-z0-9_\-]{20,})(?=@[A-Za-z0-9\[])", _url_token,
          needs="://", bounded=False),
    _rule("stripe_key", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}", needs="stripe"),
    _rule("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", needs="mailchimp", bounded=False),
    _rule("twilio_key", r"SK[0-9a-fA-F]{32}(?![0-9A-Za-z])", needs="SK"),
    # sshpass takes only options before -p (so "sshpass -f f ssh -p 22" is no password)
    _rule("password", r"(sshpass(?:\s+-[^p\s]\S*(?:\s+[^-\s]\S*)?)*?\s+-p\s*)(?!\[REDACTED)("
          + _ARG + ")", _cli_password, needs="cli"),
    *(_rule("password", "(" + flag + r")(?!\[REDACTED)(" + _ARG + ")", _cli_password, needs="cli",
            bounded=False) for flag in _CLI_PASSWORD_FLAGS),
    # the tool is part of the match: a login of another kind earlier on the line (a netrc
    # entry's "login me") must not start a match that swallows the tool's own
    _rule("password", r"(\b(?:" + "|".join(_LOGIN_TOOLS) + r")\s+login(?=\s)[^\n|;&]*?\s-p\s*)"
          r"(?!\[REDACTED)(" + _ARG + ")", _cli_password, needs="cli"),  # docker/oc/az … login -p
    _rule("password", r"(echo\s+)(?!\[REDACTED)(" + _ARG + r")(?=\s*\|\s*sudo\s[^\n|;&]*-\w*S)",
          _cli_password, needs="cli"),  # echo <pw> | sudo -S
    _rule("password", r"(sudo\s[^\n|;&]*<<<\s*)(?!\[REDACTED)(" + _ARG + ")", _cli_password,
          needs="cli"),  # sudo -S … <<< <pw>
    _rule("password", r"(-(?:src|dest)?(?:store|key)pass\s+)(?!\[REDACTED)(" + _ARG + ")",
          _cli_password, needs="cli"),  # keytool, jarsigner
    _rule("password", r"( -U\s*['\"]?[^\s%'\"]+%)(?!\[REDACTED)([^\s'\"]+)", _cli_password,
          needs="cli", bounded=False),  # smbclient -U user%password
    _rule("databricks_token", r"dapi[a-f0-9]{32}(?:-\d+)?(?![0-9A-Za-z])", needs="dapi"),
    _rule("password", r"(machine\s+\S+\s+login\s+\S+\s+password\s+)(?!\[REDACTED)(\S+)",
          _keep_label("password"), needs="machine"),
    _rule("bearer_token", r"(\bbearer\s+)(?!\[REDACTED)([A-Za-z0-9._~+/=\-]{16,})",
          _keep_label("bearer_token"), needs="bearer", flags=re.I, bounded=False),
    _rule("basic_auth", r"(\bbasic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![\w+/=])", _basic_auth,
          needs="basic", flags=re.I, bounded=False),
    # last of the rules: a blob holding a secret another rule would find whole is found whole
    _rule("base64_secret", _BASE64.pattern, _base64_secret, needs="b64"),
]  # fmt: skip


# ---------------------------------------------------------------- secret-named values

# ``NAME = value`` / ``"name": "value"`` / ``name: value``: the name holds one of these
# fragments (matched ASCII case-insensitively), the value follows the assignment.
# ``sig=`` and ``signature=`` are a pre-signed URL's query parameters: Azure SAS ``sig=``,
# ``X-Amz-Signature=``, ``X-Goog-Signature=``, CloudFront ``Signature=`` (random values,
# redacted as those of the other names are). Every match starts where a name does.
NAMES = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "sig=", "signature=")
ASSIGNMENT = re.compile(
    r"(?:(?:passw(?:or)?d?|pwd|pass|secret|token|key|credentials?|auth)[A-Za-z0-9_\-.]{0,40}"
    r"\\?[\"']?[ \t]{0,8}(?::=|=>|=|:)|sig=|signature=)[ \t]*"
    r"(?:\\?\"(?P<dq>[^\"\\\n]+)\\?\"|'(?P<sq>[^'\n]+)'|(?P<bare>[^\s\"'`<>,;&()\[\]{}\\]+))",
    re.I | re.A,
)
_OPERATOR_REACH = 64  # name fragment (≤ 11) + rest of the name (≤ 40) + quote + spaces (≤ 8)
# Values of password-named keys that are code or placeholders, not passwords.
_NOT_PASSWORDS = frozenset(
    {"none", "null", "nil", "true", "false", "str", "string", "int", "bool", "bytes", "any",
     "optional", "secretstr", "required", "undefined", "empty", "text", "self", "input",
     "getpass", "password", "passwd", "=", "==", "***", "****", "*****", "xxx", "<redacted>"}
)  # fmt: skip
_CODE_REF = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _assignment(m: re.Match[str]) -> str:
    """Redact the value when the name says password, or the value looks like key material."""
    value = m.group("dq") or m.group("sq") or m.group("bare")
    name = m.group(0)[:8].lower()
    start = m.start("dq") if m.group("dq") else m.start("sq") if m.group("sq") else m.start("bare")
    keep = m.string[m.start() : start]
    tail = m.string[start + len(value) : m.end()]
    if name.startswith(("pass", "pwd")):
        if len(value) < 3 or value.lower() in _NOT_PASSWORDS or value[0] in "$%{<*":
            return m.group(0)
        after = m.string[m.end() : m.end() + 1]
        if m.group("bare") and (_CODE_REF.fullmatch(value) or after in ("(", "[")):
            return m.group(0)  # password=args.password, password=getpass(): code, not a value
        return keep + placeholder("password") + tail
    if not looks_random(unquote(value) if "%" in value else value):
        return m.group(0)  # (a value in a URL is percent-encoded: X-Amz-Security-Token=…)
    return keep + placeholder("secret") + tail


def _sub_assignments(text: str) -> str:
    """``ASSIGNMENT.sub(_assignment, text)``, trying only the positions where a name
    fragment starts (found with ``str.find`` in the lowered text) instead of every one."""
    low = text.lower()
    if len(low) != len(text):  # a character lowered to two: positions would shift
        low = text.translate(_ASCII_LOWER)
    starts: set[int] = set()
    for name in NAMES:
        i = low.find(name)
        while i >= 0:
            starts.add(i)
            i = low.find(name, i + 1)
    if not starts:
        return text
    pieces: list[str] = []
    prev = 0
    match, find = ASSIGNMENT.match, text.find
    for i in sorted(starts):
        if i < prev:
            continue
        # the operator, if any, is within _OPERATOR_REACH of the name (the regex bounds it)
        if find("=", i, i + _OPERATOR_REACH) < 0 and find(":", i, i + _OPERATOR_REACH) < 0:
            continue
        m = match(text, i)
        if m is None:
            continue
        pieces.append(text[prev:i])
        pieces.append(_assignment(m))
        prev = m.end()
    if not pieces:
        return text
    pieces.append(text[prev:])
    return "".join(pieces)


# ---------------------------------------------------------------- entry points

# A JSON string escape; surrogate pairs are decoded as one character, a lone surrogate is
# left as written (it cannot be stored).
_ESCAPE = re.compile(
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r"|u(?![dD][89a-fA-F])([0-9a-fA-F]{4})|([\"\\/bfnrt]))"
)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t"}  # fmt: skip


def _blocks(rules: list[Rule]) -> list[tuple[str, list[Rule]]]:
    """Consecutive rules with the same ``needs``: the gate is checked once per block."""
    out: list[tuple[str, list[Rule]]] = []
    for rule in rules:
        if out and out[-1][0] == rule.needs:
            out[-1][1].append(rule)
        else:
            out.append((rule.needs, [rule]))
    return out


_BLOCKS = _blocks(RULES)


def _plain(text: str) -> str:
    for needs, rules in _BLOCKS:
        if needs and not GATES[needs](text):
            continue
        for rule in rules:
            text = rule.pattern.sub(rule.repl, text)
    if "=" in text or ":" in text:
        text = _sub_assignments(text)
    return text


def _unescape(m: re.Match[str]) -> str:
    high, low, code, simple = m.groups()
    if high:
        return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
    return chr(int(code, 16)) if code else _SIMPLE_ESCAPES[simple]


def redact(text: str) -> str:
    """Return ``text`` with every secret-shaped substring replaced by a typed placeholder.

    Text that holds JSON string escapes (a tool printed JSON, a record was stored raw) is
    also redacted decoded, so ``\\u0073k-…`` or ``https:\\/\\/user:pw@…`` cannot slip
    through; when that finds a secret the decoded, redacted text is returned.
    """
    if not text:
        return text
    out = _plain(text)
    decoded = out
    for _ in range(2):  # JSON printed inside JSON is escaped twice
        if not ("\\" in decoded and ("\\u" in decoded or "\\/" in decoded)):
            break
        decoded = _ESCAPE.sub(_unescape, decoded)
        redacted = _plain(decoded)
        if redacted != decoded:
            return redacted
    return out


_WHITESPACE = re.compile(r"\s")
CLIP_MARGIN = 512
CLIP_CONTEXT = 64  # at most this much of the rest of the window's last line is redacted with it


def _line_end(text: str, end: int) -> int:
    """``end`` moved on to the end of its line, at most ``CLIP_CONTEXT`` characters and at
    whitespace: rules that read what follows a secret (``| base64 -d``, ``| sudo -S``)
    see it when the secret is the window's last token."""
    stop = min(len(text), end + CLIP_CONTEXT)
    nl = text.find("\n", end, stop)
    if nl >= 0 or stop == len(text):
        return nl if nl >= 0 else stop
    return max(end, text.rfind(" ", end, stop), text.rfind("\t", end, stop))


def redact_clip(text: str, limit: int) -> str:
    """Redact and cut to ``limit`` characters, leaving no part of a secret visible.

    Only a window a little longer than ``limit`` is redacted (texts can be megabytes). The
    window ends at whitespace, which no single-token secret contains, so no secret is cut
    in half and left unrecognised, and it takes the rest of that line as context (see
    ``_line_end``); a private key block cut open is redacted to the end of the window.
    When redaction shrinks the window below ``limit`` (a key block became a
    placeholder), the window grows and is redacted again.
    """
    if len(text) <= limit:
        return redact(text)
    want = limit + CLIP_MARGIN
    while True:
        gap = _WHITESPACE.search(text, want)
        end = gap.start() if gap else len(text)
        head = redact(text[: _line_end(text, end)])
        if len(head) > limit or end >= len(text):
            break
        want = max(end + (limit - len(head)) + CLIP_MARGIN, 2 * end)
    if end >= len(text) and len(head) <= limit:
        return head
    return f"{head[:limit]}… [+{len(text) - limit} chars]"


@functools.lru_cache(maxsize=4096)
def _redact_cached(text: str) -> str:
    return redact(text)


def redact_short(value: Any) -> Any:
    """Redact a short, often repeated field (cwd, branch); non-strings pass through."""
    if not isinstance(value, str):
        return value
    return _redact_cached(value) if len(value) < 512 else redact(value)
