"""Compile corrections into checks: the grammar first, the judge model for the rest, once.

The grammar (``grammar``) reads the common forms for free. A correction it cannot read goes
to the judge model (the embedded Qwen2.5-Coder-1.5B offline, or the user's endpoint for the
judge role), which answers schema-constrained JSON in the same vocabulary; its answer is
kept only where the user's words carry it (a forbidden word the user wrote, a number they
gave, a feature they named), because a model can invent a rule nobody stated. What it
compiles is cached in the store per correction text and prompt version, so a night asks
only about corrections it has not seen. Without a model (none configured, the simulated
backend, ``mining.compile_with_model: false``, or one that cannot start) mining uses the
grammar and the cache alone, and its report says so. What neither compiles stays with the
rubric judge, in the user's words.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from skillopt_sleep.mining import grammar
from skillopt_sleep.mining.admissible import admissible
from skillopt_sleep.mining.casing import name_casing
from skillopt_sleep.mining.contrast import compile_pair
from skillopt_sleep.mining.cues import GROUNDS as _FEATURE_CUES
from skillopt_sleep.mining.grammar import Check
from skillopt_sleep.mining.literals import literal
from skillopt_sleep.mining.overbroad import without_overbroad
from skillopt_sleep.mining.shapes import is_identifier
from trainer.backends.base import ChatBackend, InfraError
from trainer.checks import (
    COUNT_KINDS,
    END_KINDS,
    FEATURES,
    SCOPES,
    WORD_KINDS,
    passes,
    value_error,
)
from trainer.scoring import read_json

log = logging.getLogger("skillopt_sleep.mining")

PROMPT_VERSION = 6  # bump when the prompt or the reading of its answer changes
CACHE_TABLE = "correction_checks"
MAX_TOKENS = 160

_LITERAL_KINDS = (*WORD_KINDS, *END_KINDS, "identifier_like")
# The scopes the prompt describes; ``code_bare`` is mining's narrowing, read from the pair.
_MODEL_SCOPES = [s for s in SCOPES if s != "code_bare"]
CHECK_SCHEMA: dict[str, Any] = {
    "title": "checks",
    "type": "object",
    "properties": {
        "checks": {
            "type": "array",
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"enum": ["has", "no"]},
                            "value": {"enum": list(FEATURES)},
                            "scope": {"enum": _MODEL_SCOPES},
                        },
                        "required": ["kind", "value", "scope"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"enum": list(COUNT_KINDS)},
                            "value": {"type": "string", "pattern": "^[0-9]{1,4}$"},
                            "scope": {"enum": _MODEL_SCOPES},
                        },
                        "required": ["kind", "value", "scope"],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {
                            "kind": {"enum": list(_LITERAL_KINDS)},
                            "value": {"type": "string", "maxLength": 60},
                            "scope": {"enum": _MODEL_SCOPES},
                        },
                        "required": ["kind", "value", "scope"],
                        "additionalProperties": False,
                    },
                ]
            },
        }
    },
    "required": ["checks"],
    "additionalProperties": False,
}

_SYSTEM = """\
A user corrected an assistant's answer. Turn what the user said into exact checks that any
answer following the user's rule passes and the corrected answer fails. Reply with JSON:
{"checks": [{"kind": ..., "value": ..., "scope": ...}]}, at most 3 checks.

kinds:
- contains / not_contains: a word or phrase the answer must / must not contain
- starts_with / not_starts_with / ends_with / not_ends_with: literal text at the start / end
- max_words, min_words, max_chars, min_chars, max_lines, min_lines, max_sentences,
  min_sentences, max_bullets, min_bullets, max_paragraphs, min_paragraphs, max_indent,
  min_indent (the widest step of indentation, in spaces): value is a number
- has / no: value is a feature: emoji, heading, code_fence, untagged_fence, inline_code,
  bullet, numbered_list, list, table, link, bold, italic, markdown, exclamation,
  trailing_punctuation, question, apology, preamble, closing_offer, contraction, past_tense,
  imperative, lowercase_start, capital_start, diff_lines, first_person, hashtag, at_mention,
  em_dash, checkbox, top_heading, shell_prompt, code_comment, bare_except, untyped_def,
  camelcase_def, single_quoted, american_spelling, british_spelling, glued_body, unsorted,
  hedging, hype, curly_quote, first_person_any, ellipsis, horizontal_rule, blockquote, bare_url,
  number_word, long_number, glued_unit, currency_symbol, short_flag, file_name, flattery,
  recap, nested_list
- identifier_like: value is an example identifier the user gave (SEC-12, #40)
scope: answer (whole), first_line (the subject), lines (each line), bullets (each list
item), code (inside code blocks), prose (outside code blocks), code_lines (each line
inside code blocks).

Rules: use only what the user said. Every word, literal or number in a value must be
written in what the user said. Never require a word just because the user said to use it
instead of another; forbid the other one. If the user's words state no exact rule (too
vague, e.g. "make it better"), reply {"checks": []}.

Examples:
said: keep the subject within 60 characters -> {"checks": [{"kind": "max_chars", "value":
"60", "scope": "first_line"}]}
said: lose the smileys -> {"checks": [{"kind": "no", "value": "emoji", "scope": "answer"}]}
said: we use yarn here, not npm -> {"checks": [{"kind": "not_contains", "value": "npm",
"scope": "answer"}]}
said: way too chatty -> {"checks": []}
"""


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[\w#@.:/+-]+|[^\w\s]", text.lower()))


_NUMBER_WORDS = {v: k for k, v in grammar.NUMBER_WORDS.items() if " " not in k}


def grounded(check: Check, said: str) -> bool:
    """Whether the user's words carry the check: its literal is in them, its number is,
    or they name its feature."""
    low = said.lower()
    if check.kind in ("has", "no"):
        return re.search(_FEATURE_CUES[check.value], low) is not None
    if check.kind in COUNT_KINDS:
        n = int(check.value)
        word = _NUMBER_WORDS.get(n, "")
        return bool(re.search(rf"\b{n}\b", low) or (word and re.search(rf"\b{word}\b", low)))
    return _norm(check.value) in _norm(said)


def read_checks(text: str, said: str) -> list[Check]:
    """The model's checks that are well formed and grounded in what the user said."""
    data, _ = read_json(text)
    items = (data or {}).get("checks")
    if not isinstance(items, list):
        return []
    out: list[Check] = []
    for item in items[:3]:
        if not isinstance(item, dict):
            continue
        kind, value = str(item.get("kind", "")), str(item.get("value", "")).strip()
        scope = str(item.get("scope", "answer"))
        if scope not in SCOPES or kind == "rubric" or value_error(kind, value) is not None:
            continue
        if kind not in (*_LITERAL_KINDS, *COUNT_KINDS, "has", "no"):
            continue
        if kind == "contains" and is_identifier(value, loose=False):
            kind = "identifier_like"  # a rule for every task of the kind, not this one's key
        check = Check(kind, value, scope)
        # as the grammar reads words: a plain word or phrase the user used ("the changes",
        # "plain words") is not one they named; only "no X" forbids one
        named = kind == "identifier_like" or kind not in _LITERAL_KINDS
        if not named and literal(value, plain_ok=kind == "not_contains") is None:
            continue
        if grounded(check, said) and check not in out:
            out.append(check)
    return out


def messages(said: str, corrected: str, request: str) -> list[dict[str, str]]:
    user = (
        f"The request: {request[:300]}\n\nThe answer the user corrected:\n{corrected[:700]}\n\n"
        f"What the user said: {said[:300]}"
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def cache_key(said: str) -> str:
    return hashlib.sha256(f"{PROMPT_VERSION}\x00{said.strip()}".encode()).hexdigest()


class LazyModel:
    """The judge model, started on first use (a night with no new correction starts
    nothing). ``unavailable`` says why it could not be had."""

    def __init__(self, label: str, start: Callable[[contextlib.ExitStack], ChatBackend]):
        self.label = label
        self._start = start
        self._stack = contextlib.ExitStack()
        self._backend: ChatBackend | None = None
        self.unavailable: str | None = None

    def backend(self) -> ChatBackend | None:
        if self._backend is None and self.unavailable is None:
            try:
                self._backend = self._start(self._stack)
            except Exception as exc:  # noqa: BLE001 - any reason: mining goes on without it
                self.unavailable = " ".join(str(exc).split())[:200] or type(exc).__name__
                log.warning("judge model unavailable for mining: %s", self.unavailable)
        return self._backend

    def close(self) -> None:
        self._stack.close()


def _holds_on_session(check: Check, corrected: str, accepted: str | None) -> bool:
    """The corrected answer fails the check and the accepted one (if any) passes it."""
    ok = passes(check.kind, check.value, check.scope, corrected)
    return not ok and (accepted is None or passes(check.kind, check.value, check.scope, accepted))


class Compiler:
    """Compiles corrections: grammar, then the cache, then the model (when there is one)."""

    def __init__(self, db: sqlite_utils.Database, model: LazyModel | None = None) -> None:
        self.db = db
        self.model = model
        self.counts: Counter[str] = Counter()
        # a correction is in several splits' pools: compiled once per session it came from
        self._seen: dict[tuple[str, str, str | None], list[Check]] = {}

    def compile(
        self, said: str, corrected: str = "", request: str = "", accepted: str | None = None
    ) -> list[Check]:
        """The checks ``said`` states; [] when neither the grammar nor the model finds one.
        The grammar's reading, and what the user named read against the two answers
        (``contrast``), is tried on the session first (the corrected answer must fail a
        check, the ``accepted`` one pass it); when none of its checks holds there, or it read
        nothing, the judge model is asked too. Verification (``verify``) decides."""
        key = (said, corrected, accepted)
        if key not in self._seen:
            self._seen[key] = self._compile(said, corrected, request, accepted)
        return self._seen[key]

    def _compile(
        self, said: str, corrected: str, request: str, accepted: str | None
    ) -> list[Check]:
        checks = without_overbroad(
            compile_pair(said, corrected, accepted), said, corrected, request
        )
        if accepted is not None:
            checks += [c for c in name_casing(said, corrected, accepted) if c not in checks]
        if checks:
            self.counts["grammar"] += 1
        if any(_holds_on_session(c, corrected, accepted) for c in checks):
            return checks
        key = cache_key(said)
        row = next(self.db.query(f"select checks from {CACHE_TABLE} where key = ?", [key]), None)
        if row is not None:
            self.counts["cached"] += 1
            return checks + [Check(**c) for c in json.loads(row["checks"])]
        backend = self.model.backend() if self.model else None
        if backend is None:
            self.counts["not_compiled" if not checks else "grammar_only"] += 1
            return checks
        try:
            comp = backend.complete(
                messages(said, corrected, request), json_schema=CHECK_SCHEMA, max_tokens=MAX_TOKENS
            )
        except InfraError as exc:
            self.counts["model_failures"] += 1
            log.warning("judge model failed on a correction: %s", exc)
            return checks
        found = [c for c in read_checks(comp.text, said) if admissible(c, said, corrected)]
        self.counts["model"] += 1
        with self.db.conn:
            self.db.table(CACHE_TABLE).insert(
                {"key": key, "prompt_version": PROMPT_VERSION,
                 "model": str(getattr(backend, "identity", "")),
                 "checks": json.dumps([c.__dict__ for c in found]),
                 "created_at": datetime.now(UTC).isoformat()},
                pk="key", replace=True,
            )  # fmt: skip
        return checks + [c for c in found if c not in checks]

    def describe(self) -> str:
        """One line for the mining report: what compiled the corrections."""
        if self.model is None:
            return "grammar only (no judge model for mining)"
        if self.model.unavailable:
            return f"grammar only: the judge model is unavailable ({self.model.unavailable})"
        return f"grammar + judge model ({self.model.label})"


@contextlib.contextmanager
def judge_model(
    config: Mapping[str, Any],
    environ: Mapping[str, str] = os.environ,
    log_dir: str | Path | None = None,
) -> Iterator[LazyModel | None]:
    """The judge model mining may ask (``models.judge``, at temperature 0), started on
    first use and stopped on exit; None when ``mining.compile_with_model`` is off or the
    models are simulated."""
    from trainer.backends.config import local_from_config, resolve_backend, roles_from_config
    from trainer.backends.factory import build_judge
    from trainer.backends.models import model_spec

    models = config.get("models") or {}
    kind = resolve_backend(models, environ)
    if not (config.get("mining") or {}).get("compile_with_model", True) or kind == "sim":
        yield None
        return
    if kind == "openai":
        cfg = roles_from_config(models, environ)["judge"]
        label = f"{cfg.model} at {cfg.base_url or 'the default endpoint'}"
    else:
        label = f"{model_spec(local_from_config(models).judge).label}, embedded"

    def start(stack: contextlib.ExitStack) -> ChatBackend:
        return stack.enter_context(
            build_judge(
                models, environ, local_log_dir=log_dir, temperature=0.0, max_tokens=MAX_TOKENS
            )  # fmt: skip
        )

    model = LazyModel(label, start)
    try:
        yield model
    finally:
        model.close()
