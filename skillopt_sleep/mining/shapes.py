"""Shapes a correction names without spelling them out, and the checks each could mean.

"ISO dates", "a conventional-commit type", "the closing keyword", "just the code", "the
ticket key", "the codename", "in caps" ask for (or forbid) a shape of text, not a word.
Some shapes are only ever forbidden, whatever the clause's polarity says, because naming
them is how users forbid them: "never plain force, with lease", "no piping curl into
bash", "stage the files by name", "one command per line", "no star imports", "not the
whole traceback", "2.4.0, not v2.4.0". ``contrast`` tries each shape's checks against the
two answers; the first one the corrected answer fails and the accepted one passes is kept.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.conventions import CONVENTION_CHECKS, CONVENTION_CUES, names_what_is_out
from skillopt_sleep.mining.phrases import FINE_AFTER, NEG_RX, PRONOUN_NEG, Check
from skillopt_sleep.mining.prefilter import Prefiltered
from skillopt_sleep.mining.topic import NAMED, NO, Topic
from trainer.checks import identifier_pattern

START = re.compile(
    r"\b(?:start|starts|begin|begins|prefix|prefixed|front|top|lead|leads|open|opens|opening|"
    r"first)\b",
    re.IGNORECASE,
)

# An emoji shortcode (":red_circle:"): an example of its kind, never that very one.
SHORTCODE = re.compile(r":[a-z][a-z0-9_+-]*:")

_SHAPES = {
    "closing_ref": r"\bclosing keyword\b|\bauto-?clos\w*|\blink(?:ing)? the (?:issue|ticket)\b|"
    r"(?<![\w-])(?:closes|fixes|resolves) #\d+",
    "code_only": r"\b(?:just|only)(?: the)? (?:code|snippet|command|script|query|regex|sql|"
    r"config|block|diff|yaml|json)\b|\b(?:code|command|snippet|sql|regex)(?: block)? only\b|"
    r"\bno (?:explanation|commentary|prose)\b|\bwithout (?:the |any )?(?:explanation|commentary)\b",
    "ticket": r"\b(?:ticket|jira|issue)(?: key| id| number| ref\w*)?\b",
    "case": r"\b(?:upper-?case|upper case|(?:in |all )caps|capitals|capitali[sz]\w*|lower-?case|"
    r"lower case)\b",
    "name": r"\b(?:code ?name|(?:customer|client|company|product|vendor|partner|internal)'?s? "
    r"names?|their name)\b",
    "iso_date": r"\b(?:yyyy|YYYY)[-/.](?:mm|MM)[-/.](?:dd|DD)\b|\biso(?:[- ]?8601)?\b.*\b(?:dates?|"
    r"timestamps?|format)\b|\b(?:dates?|timestamps?)\b.*\biso\b",
    "commit_type": r"\bconventional[- ]commits?\b|\btype prefix\b|\bcommit type\b|"
    r"(?<![\w-])(?:feat|fix|docs|chore|refactor|perf|test|build|ci|style)(?:\([\w-]+\))?!?:",
    "signoff": r"\b(?:signed-off|sign-?off) (?:line|trailer)\b|\bDCO\b",
    "tldr": r"\btl[; ]?\s?dr\b",
    # "each line needs the PR number", "every bullet ends with (#NNN)": an item's reference
    "item_ref": r"\b(?:PR|pull request|issue)\s+(?:numbers?|refs?|references?|links?|ids?)\b|"
    r"\(#(?:N{2,}|X{2,}|n{2,}|x{2,})\)",
    # "one code block only", "why three blocks?": a second block is what is out
    "second_block": r"\b(?:one|single|1)\s+(?:code\s+)?(?:block|fence)\b|"
    r"\b(?:two|three|four|several|multiple|separate|\d)\s+(?:code\s+)?(?:blocks|fences)\b",
    # "start each bullet with the name in backticks", "lead with the flag in code formatting"
    "lead_code": r"\b(?:start|starts|begin|begins|lead|leads|open|opens)\b[^.;]{0,50}?"
    r"\b(?:backtick\w*|code[- ]format\w*|inline code|monospace)",
    # only ever forbidden (``_FORBIDDEN``)
    "force_push": r"\bforce[- ]?push\w*|\bwith[- ]lease\b|(?<![\w-])--force\b",
    "pipe_to_shell": r"\bpip(?:e|es|ed|ing)\b[^.?!]{0,40}?\b(?:sh|bash|zsh|shell)\b|"
    r"\b(?:into|to) (?:sh|bash|zsh|a shell|the shell)\b|"
    r"\|\s*(?:sudo\s+)?(?:ba|z)?sh\b",
    "git_add_all": r"\bgit add (?:-A|--all|\.|\*)|\b(?:stage|add)(?: the| each)?(?: files?| them| "
    r"changes?)? (?:by|by their|one by one by) names?\b|\badd(?:ing)? all (?:the )?files\b|"
    r"\b(?:stage|add) everything\b",
    "and_chaining": r"&&|\bchain(?:ed|ing)?\b|\bone (?:command )?(?:per|a) line\b|"
    r"\b(?:each|every) command (?:on|in) (?:its own|a separate|separate) lines?\b",
    "star_import": r"\b(?:star|wildcard)[- ]imports?\b|[`'\"]?\*[`'\"]? imports?\b|"
    r"\bimport \*",
    "mass_mention": r"(?<![\w.])@(?:channel|here|everyone)\b|\bping(?:s|ing)? (?:everyone|the "
    r"(?:whole|entire) channel)\b",
    "self_narration": r"\bnarrat\w*|['\"`]this (?:commit|pr|patch|change)\b",
    "sphinx_fields": r"\bsphinx\b|(?<!\w):(?:param|rtype|returns?|raises)\b|\brest[- ]style\b",
    "ai_trailer": r"\bco-?author\w*|\bgenerated[- ](?:with|by)\b|\bai (?:attribution|trailers?|"
    r"credits?|footers?)\b|\b(?:attribution|credit) (?:footers?|lines?|trailers?)\b",
    "bare_pip": r"\bpython3? -m pip\b|\bbare pip\b",
    "npm_install": r"\bnpm ci\b",
    "percent_format": r"%[- ]?(?:formatting|format|style|strings?)\b|\bprintf[- ]style\b",
    "tab_indent": r"\btabs?\b.{0,40}\b(?:indent\w*|spaces)\b|\bindent\w* with (?:\d|two|four) "
    r"spaces\b|\bspaces,? not tabs\b",
    "trailing_space": r"\btrailing (?:white ?space|spaces?|blanks?)\b",
    "line_numbers": r"\bline numbers?\b|\bnumbered lines\b",
    "traceback": r"\b(?:full|whole|entire|complete|raw) (?:python )?(?:traceback|stack ?trace)s?\b",
    "version_prefix": r"\bv[- ]?prefix\w*|\bprefix\w* (?:the )?versions? with (?:a |an )?"
    r"['\"`]?v\b|(?<![\w-])v\d+(?:\.\d+)+(?![\w-])|\b(?:without|no|drop|lose) (?:the |a )?"
    r"['\"`]?v['\"`]?(?: letter| prefix)",
    **CONVENTION_CUES,
}
# Each shape searched only where the words every match of it holds are: most texts name
# none (one pass of all shapes as one pattern took three times as long).
_SHAPES_RX = {name: Prefiltered(pat, re.IGNORECASE) for name, pat in _SHAPES.items()}
# A negation that says what the answer lacks, not what to leave out: "the second one isn't
# concurrent", "did we not agree on CONCURRENTLY", "without -f, curl exits 0".
_COMPLAINS = re.compile(
    r"\b(?:isn'?t|is not|aren'?t|are not|wasn'?t|weren'?t|doesn'?t|does not|didn'?t|did not|"
    r"did (?:we|you|i|they) not|ha(?:s|ve|d) no|with no|without|missing|lacks?)\b",
    re.IGNORECASE,
)
_FORBIDDEN = {
    "force_push", "pipe_to_shell", "git_add_all", "and_chaining", "star_import", "traceback",
    "version_prefix", "mass_mention", "self_narration", "sphinx_fields", "ai_trailer", "bare_pip",
    "npm_install", "percent_format", "tab_indent", "trailing_space", "line_numbers",
    "second_block", *CONVENTION_CUES,
}  # fmt: skip
# Forbidden shapes that only a rejection names ("the whole traceback" may be asked for).
_NEEDS_REJECTION = {"traceback", "version_prefix"}
_REJECTS = Prefiltered(
    NEG_RX.pattern + r"|\b(?:just|only)\b|\bleave\b.*\bout\b|\bkeep\b.*\bout\b", re.IGNORECASE
)

# Staging everything: `git add -A`, `--all`, `.`, `*`, `-u`, or a commit with `-a` / `-am`.
ADD_ALL = (
    r"\bgit\s+add\s+(?:-A|--all|\.|\*|-u|--update)(?=\s|$|;|&|`)|"
    r"\bgit\s+commit\s+(?:-[a-zA-Z]*a[a-zA-Z]*|--all)(?=\s|$|;|&|`)"
)

# A trailer crediting a tool, not a person: a human co-author is no AI attribution.
AI_TRAILER = (
    r"(?im)^.*(?:co-authored-by:.*(?:\b(?:claude|codex|copilot|chatgpt|gpt|gemini|cursor|ai|bot|"
    r"assistant|agent|anthropic|openai|llm)\b|\[bot\])|generated (?:with|by) )"
)
_CHECKS: dict[str, list[Check]] = {
    # commands: in the whole answer first (`git push -f` in a sentence runs as well), in
    # the code blocks where the accepted answer names the command in its prose
    "force_push": [
        Check("not_regex", r"(?m)^.*\bgit\s+push\b.*(?<![\w-])(?:--force|-f)(?![\w-])", "answer"),
        Check("not_regex", r"(?m)^.*\bgit\s+push\b.*(?<![\w-])(?:--force|-f)(?![\w-])", "code"),
    ],
    "pipe_to_shell": [
        Check("not_regex", r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b", "code"),
        Check("not_regex", r"\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b", "answer"),
    ],
    "git_add_all": [Check("not_regex", ADD_ALL, "answer"), Check("not_regex", ADD_ALL, "code")],
    "and_chaining": [Check("not_contains", "&&", "code"), Check("not_contains", "&&", "answer")],
    "star_import": [
        Check("not_regex", r"(?m)^\s*from\s+\S+\s+import\s+\*", "code"),
        Check("not_regex", r"(?m)^\s*from\s+\S+\s+import\s+\*", "answer"),
    ],
    "mass_mention": [Check("not_regex", r"(?<![\w.])@(?:channel|here|everyone)\b", "answer")],
    "self_narration": [
        Check("not_regex", r"(?i)\bthis (?:commit|pr|patch|change|pull request|mr)\b", "answer")
    ],
    "sphinx_fields": [
        Check("not_regex", r"(?m)^\s*:(?:param|type|returns?|rtype|raises?)\b", "code"),
        Check("not_regex", r"(?m)^\s*:(?:param|type|returns?|rtype|raises?)\b", "answer"),
    ],
    "ai_trailer": [Check("not_regex", AI_TRAILER, "answer")],
    "bare_pip": [Check("not_regex", r"(?m)(?<!-m )(?<![\w./-])pip3?\s+install\b", "answer")],
    "npm_install": [
        Check("not_regex", r"(?m)\bnpm\s+(?:install|i)(?:\s+--?[\w-]+)*\s*(?:$|&&|;|\|)", "answer")
    ],
    "percent_format": [
        Check(
            "not_regex",
            r"[\"'][^\"'\n]*%[-#0 +]*\d*(?:\.\d+)?[sdifrxXeEgGc][^\"'\n]*[\"']\s*%",
            "code",
        ),
    ],  # fmt: skip
    "tab_indent": [
        Check("not_regex", r"(?m)^ *\t", "code"),
        Check("not_regex", r"(?m)^ *\t", "answer"),
    ],
    "trailing_space": [Check("not_regex", r"(?m)[ \t]+$", "answer")],
    "line_numbers": [Check("not_regex", r"(?m)^[ \t]*\d{1,4}(?:[ \t]+|[:|.][ \t]*)\S", "code")],
    "traceback": [Check("not_contains", "Traceback (most recent call last)", "answer")],
    # a third fence line: a second block opened after the first one closed
    "second_block": [
        Check("not_regex", r"(?ms)^[ \t]*(?:```|~~~).*?^[ \t]*(?:```|~~~).*?^[ \t]*(?:```|~~~)")
    ],
    "version_prefix": [
        Check("not_regex", r"(?<![\w-])v\d+(?:\.\d+)+(?![\w-])", "prose"),
        Check("not_regex", r"(?<![\w-])v\d+(?:\.\d+)+(?![\w-])", "answer"),
    ],
    **CONVENTION_CHECKS,
}
# The commands a shape rules out: a flag or word found only inside one is the command's
# (``overbroad``: the ``-f`` of ``git push -f`` is the force push). Not the shapes of prose:
# "no Co-authored-by" is every such trailer, not only an AI's.
COMMAND_CONSTRUCTS = frozenset(
    c.value
    for name in ("force_push", "pipe_to_shell", "git_add_all", "bare_pip", "npm_install")
    for c in _CHECKS[name]
    if c.kind == "not_regex"
)

# A ticket key (CORE-412) to keep out of an answer; the names of standards and encodings
# (UTF-8, ISO-8601, SHA-256, RFC-9110, CVE-2024-1) have the same shape and are no tickets.
KEY_PATTERN = (
    r"(?<![\w-])(?!(?:UTF|ISO|SHA|RFC|CVE|PEP|TLS|SSL|HTTP|AES|RSA|MD|ES|CP|GPT|IPV|X)-\d)"
    r"[A-Z][A-Z0-9]+-\d+(?![\w-])"
)
_KEY = re.compile(r"[A-Z][A-Z0-9]+-(?:\d+|x+|X+|N+|n+|#+)")


def is_key(example: str) -> bool:
    """A ticket key or its template (CORE-412, MOB-xxxx)."""
    return _KEY.fullmatch(example.strip(" .,;:()'\"`")) is not None


def shape_topics(text: str) -> list[Topic]:
    """The shapes a correction names, each with the role its words give it."""
    out: list[Topic] = []
    for name, pat in _SHAPES_RX.items():
        m = pat.search(text)
        if not m:
            continue
        neg = NEG_RX.search(text[: m.start()][-30:]) is not None
        # "no f-strings in log calls": a remedy refused names no convention; a negation in
        # an earlier clause refuses something else ("not % formatting, use an f-string")
        clause = re.split(r"[,.;:!?]\s", text[: m.start()])[-1][-30:]
        refused = NEG_RX.search(clause) is not None and not _COMPLAINS.search(clause)
        if name in CONVENTION_CUES and refused and not names_what_is_out(name, m.group(0)):
            continue
        if name in _FORBIDDEN:
            if FINE_AFTER.match(text[m.end() :]):
                continue  # "the && chain is fine": named as allowed
            if name in _NEEDS_REJECTION and not _REJECTS.search(text):
                continue
            role = NO
        elif name in ("name", "ticket"):
            out_of = PRONOUN_NEG.search(text) or re.search(r"\bout\b", text)
            role = NO if neg or out_of else NAMED
        elif neg and name not in ("code_only", "lead_code"):  # "doesn't start with …": missed
            continue
        else:
            role = NAMED
        at = "start" if START.search(text) else None
        out.append(Topic("shape", name, role, at=at, order=m.start()))
    return out


_IDENTIFIER = re.compile(r"(?<![\w-])(?:[A-Z][A-Z0-9]+-\d+|#\d+)(?![\w-])")
_NAME = re.compile(r"(?<![\w-])[A-Z][\w-]*[a-z][\w-]*")
_COMMIT_TYPE = r"\A\W*[a-z]+(?:\([^)\n]*\))?!?:\s"
ISO_DATE = r"(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-])"
_MONTH = r"(?i:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_DAY, _MON = r"(?:0?[1-9]|[12]\d|3[01])", r"(?:0?[1-9]|1[0-2])"
# A date written another way than ISO 8601: "03/04/2026", "18/12", "4.3.2026", "March 4",
# "4 March" (a day and a month with a slash need two digits each: "1/2" is a half, "16/9"
# a ratio). "ISO dates" is a rule on every date the answer writes, not a date every answer
# must hold.
OTHER_DATE = (
    r"(?<![\w/.-])\d{1,2}/\d{1,2}/\d{2,4}(?![\w/])|(?<![\w.])\d{1,2}\.\d{1,2}\.\d{4}(?![\w.])|"
    rf"(?<![\w/.-])(?=\d\d/\d\d)(?:{_DAY}/{_MON}|{_MON}/{_DAY})(?![\w/%]|\.\d)|"
    rf"\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}(?!\w)"
)
_CLOSING_REF = r"(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+#\d+"


def _case_candidates(corrected: str, accepted: str) -> list[Check]:
    """Words the accepted answer wrote in another case only: forbidden as the corrected
    answer wrote them (``select`` where the user wants ``SELECT``)."""
    words = set(re.findall(r"(?<![\w-])[A-Za-z][\w-]*", accepted))
    lowered = {w.lower(): w for w in words}
    changed = sorted(
        {
            w
            for w in re.findall(r"(?<![\w-])[A-Za-z][\w-]*", corrected)
            if len(w) > 2 and w not in words and w.lower() in lowered
        }  # fmt: skip
    )
    if not changed:
        return []
    pattern = rf"(?<![\w-])(?:{'|'.join(re.escape(w) for w in changed)})(?![\w-])"
    # the code's keywords first, not their words in a comment or a string; then anywhere
    return [Check("not_regex", pattern, scope) for scope in ("code_bare", "answer")]


def shape_candidates(t: Topic, corrected: str, accepted: str) -> list[Check]:
    """A shape named without being spelt out; a ticket key's and a name's instance is
    what the accepted answer added or dropped."""
    if t.value in _CHECKS:
        return _CHECKS[t.value]
    if t.value == "tldr":  # "tldr first", "it goes on the first line": opening the answer;
        # "where's the tl;dr?": a line of its own anywhere
        anywhere = Check("regex", r"(?im)^\W*tl;?\s?dr\b", "answer")
        return [Check("starts_with", "TL;DR", "first_line"), anywhere] if t.at else [anywhere]
    if t.value == "item_ref":  # each list item ends with its reference, in brackets first
        return [
            Check("regex", r"\(#\d+\)\W*$", "bullets"),
            Check("regex", r"#\d+\)?\W*$", "bullets"),
        ]
    if t.value == "lead_code":  # each item, else each line, opens with inline code
        return [Check("starts_with", "`", "bullets"), Check("starts_with", "`", "lines")]
    if t.value == "signoff":  # the DCO trailer, whoever signs
        return [Check("regex", r"(?im)^\s*Signed-off-by:\s*\S", "answer")]
    if t.value == "iso_date":
        return [Check("not_regex", OTHER_DATE, "answer")]
    if t.value == "commit_type":
        return [Check("regex", _COMMIT_TYPE, "first_line")]
    if t.value == "closing_ref":
        return [Check("regex", _CLOSING_REF, "answer")]
    if t.value == "code_only":
        return [Check("max_words", "0", "prose"), Check("no", "preamble", "answer")]
    if t.value == "ticket" and t.role == NO:  # "strip the ticket ids": every key, not one
        return [Check("not_regex", KEY_PATTERN, "answer")]
    if t.value == "ticket":
        keys = list(dict.fromkeys(_IDENTIFIER.findall(accepted)))
        new = [k for k in keys if k not in corrected]
        out = [Check("identifier_like", k, "answer") for k in new]
        if t.at == "start":
            out += [Check("regex", r"\A\W*" + identifier_pattern(k), "first_line") for k in keys]
        return out
    if t.value == "case":  # "SELECT, FROM in caps": the words whose case the answer changed
        return _case_candidates(corrected, accepted)
    if t.value == "name" and t.role == NO:
        gone = {w for w in _NAME.findall(corrected) if not re.search(rf"\b{w}\b", accepted)}
        return [Check("not_contains", gone.pop(), "answer")] if len(gone) == 1 else []
    return []


def is_identifier(example: str, loose: bool = True) -> bool:
    """An identifier a user gives as an example: a ticket key (SEC-412), an issue (#318),
    a date or version (2025-03-14), a word and an issue (Fixes #318). Outside "like …"
    (``loose=False``) only the unmistakable shapes count."""
    e = example.strip(" .,;:()'\"`")
    strict = r"[A-Z]{2,}-\d+|#\d+|\d{4}-\d{2}-\d{2}"
    if not loose:
        return bool(re.fullmatch(strict, e))
    # a version counts with its letter ("v2.0.3"): the shape asks for the letter too
    loose_shapes = r"[A-Za-z]+[-_]?\d+|[A-Za-z]?\d+(?:[-/.]\d+)+|[A-Za-z]+ #\d+"
    return bool(re.fullmatch(rf"{strict}|{loose_shapes}", e))
