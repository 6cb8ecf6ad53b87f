"""What each config key accepts, read from the ``# valid:`` lines of the defaults file.

The defaults file is the one schema: every key sits there with its default and its
comment, and a key whose values are constrained has a comment line ``# valid: SPEC``
just above it. SPEC lists alternatives separated by ``|``:

- ``int`` / ``number`` (finite: never ``.nan`` or ``.inf``), optionally bounded:
  ``int >= 1``, ``number > 0``, ``number in [0, 1]``, ``number in (0, 1)`` (brackets include
  the end, parentheses do not)
- ``bool``, ``null``, ``string`` (not empty), ``path`` (not empty), ``abs-path`` (starts
  with ``/`` or ``~``), ``url`` (http or https), ``env-name`` (an environment variable name)
- ``cron`` (5 fields, or 6 with a leading seconds field), ``HH:MM``, ``timezone``
  (``local`` or an IANA name)
- ``list of SPEC``: every item matches SPEC
- any other word: that literal value, so ``auto | openai | local`` is an enumeration

A key without a ``valid:`` line accepts values of its default's type (not null).
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

_KEY_LINE = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*):(\s|$)")
_VALID_LINE = re.compile(r"^\s*#\s*valid:\s*(.+?)\s*$")
_INTERVAL = re.compile(r"^in\s*([\[(])\s*(\S+)\s*,\s*(\S+)\s*([\])])$")
_BOUND = re.compile(r"^(>=|>|<=|<)\s*(\S+)$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HHMM = re.compile(r"^(\d{1,2}):(\d{2})$")


class SpecError(ValueError):
    """A ``valid:`` line that cannot be read: a bug in the defaults file."""


def is_number(v: Any) -> bool:
    """A finite number: YAML reads ``.nan`` and ``.inf``, which pass every bound (a NaN
    compares false both ways) and would reach the trainer as settings."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _cron_problem(v: Any) -> str | None:
    from skillopt_sleep import cron  # imports APScheduler: only when a schedule is set

    return cron.problem(v) if isinstance(v, str) else "not a string"


def _timezone_problem(v: Any) -> str | None:
    from skillopt_sleep import cron

    return cron.zone_problem(v) if isinstance(v, str) else "not a string"


def _hhmm_problem(v: Any) -> str | None:
    if isinstance(v, int) and not isinstance(v, bool):
        # YAML 1.1 reads an unquoted 07:00 as the number 420 (base 60)
        return 'YAML read an unquoted time as a number: write it in quotes, e.g. "07:00"'
    return None


def _hhmm_ok(v: Any) -> bool:
    m = _HHMM.match(v) if isinstance(v, str) else None
    return bool(m and int(m[1]) <= 23 and int(m[2]) <= 59)


# kind -> (accepts, words for messages, takes a string from the environment as it is)
_KINDS: dict[str, tuple[Callable[[Any], bool], str, bool]] = {
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer", False),
    "number": (is_number, "a number", False),
    "bool": (lambda v: isinstance(v, bool), "a bool (true or false)", False),
    "null": (lambda v: v is None, "null", False),
    "string": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string", True),
    "path": (lambda v: isinstance(v, str) and v.strip() != "", "a path", True),
    "abs-path": (
        lambda v: isinstance(v, str) and v.startswith(("/", "~")),
        "an absolute directory",
        True,
    ),
    "url": (lambda v: isinstance(v, str) and v.startswith(("http://", "https://")), "a URL", True),
    "env-name": (
        lambda v: isinstance(v, str) and bool(_ENV_NAME.match(v)),
        "an environment variable name",
        True,
    ),
    "cron": (
        lambda v: _cron_problem(v) is None,
        "a cron expression (minute hour day month weekday)",
        True,
    ),
    "HH:MM": (_hhmm_ok, "a time HH:MM", True),
    "timezone": (lambda v: _timezone_problem(v) is None, "'local' or an IANA time zone", True),
}
_DETAIL: dict[str, Callable[[Any], str | None]] = {
    "cron": _cron_problem,
    "timezone": _timezone_problem,
    "HH:MM": _hhmm_problem,
}


@dataclass(frozen=True)
class _Alt:
    kind: str  # a key of _KINDS, or "literal"
    literal: Any = None  # the literal's value, read as YAML (``false`` is a bool)
    low: float | None = None
    low_open: bool = False
    high: float | None = None
    high_open: bool = False

    def accepts(self, v: Any) -> bool:
        if self.kind == "literal":
            return v == self.literal and type(v) is type(self.literal)
        if not _KINDS[self.kind][0](v):
            return False
        if self.low is not None and (v < self.low or (self.low_open and v == self.low)):
            return False
        return not (
            self.high is not None and (v > self.high or (self.high_open and v == self.high))
        )

    def words(self) -> str:
        text = _KINDS[self.kind][1]
        if self.low is not None and self.high is not None:
            lo, hi = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"{text} in {lo}{self.low:g}, {self.high:g}{hi}"
        if self.low is not None:
            return f"{text} {'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None:
            return f"{text} {'<' if self.high_open else '<='} {self.high:g}"
        return text


@dataclass(frozen=True)
class Rule:
    """The values one key accepts (a parsed ``valid:`` line)."""

    text: str
    alts: tuple[_Alt, ...]
    item: Rule | None = None  # "list of SPEC"

    @property
    def literals(self) -> list[str]:
        return [a.literal for a in self.alts if isinstance(a.literal, str)]

    @property
    def nullable(self) -> bool:
        return any(a.kind == "null" for a in self.alts)

    @property
    def string_only(self) -> bool:
        """Every non-null value is a string: the environment's text is taken as it is
        (so ``*/5 * * * *`` is a schedule, not YAML)."""
        if self.item is not None:
            return False
        kinds = [a for a in self.alts if a.kind != "null"]
        return bool(kinds) and all(
            isinstance(a.literal, str) if a.kind == "literal" else _KINDS[a.kind][2] for a in kinds
        )

    def accepts(self, value: Any) -> bool:
        if self.item is not None:
            return isinstance(value, list) and all(self.item.accepts(v) for v in value)
        return any(a.accepts(value) for a in self.alts)

    def words(self) -> str:
        if self.item is not None:
            return f"a list, each item {self.item.words()}"
        parts = []
        literals = [json.dumps(a.literal) if not isinstance(a.literal, str) else a.literal
                    for a in self.alts if a.kind == "literal"]  # fmt: skip
        if len(literals) == 1:
            parts.append(literals[0])
        elif literals:
            parts.append("one of " + ", ".join(literals))
        parts += [a.words() for a in self.alts if a.kind != "literal"]
        return " or ".join(parts)

    def problem(self, value: Any) -> str | None:
        """None when ``value`` is accepted, else why not, in one line."""
        if self.accepts(value):
            return None
        if self.item is not None and isinstance(value, list):
            bad = next(v for v in value if not self.item.accepts(v))
            return f"must be {self.words()}, got the item {bad!r}{self.item._hints(bad)}"
        return f"must be {self.words()}, got {value!r}{self._hints(value)}"

    def _hints(self, value: Any) -> str:
        details = [d(value) for a in self.alts if (d := _DETAIL.get(a.kind)) and d(value)]
        out = f" ({details[0]})" if len(details) == 1 else ""
        if isinstance(value, str) and self.literals:
            close = difflib.get_close_matches(value.lower(), self.literals, n=1, cutoff=0.6)
            out += f" (did you mean '{close[0]}'?)" if close else ""
        return out


def _number(text: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise SpecError(f"bad bound {text!r} in valid: {spec}") from None


def _alt(word: str, spec: str) -> _Alt:
    head, _, rest = word.partition(" ")
    rest = rest.strip()
    if head not in _KINDS:
        if rest or not re.match(r"^[A-Za-z0-9_.-]+$", word):
            raise SpecError(f"cannot read {word!r} in valid: {spec}")
        return _Alt("literal", literal=yaml.safe_load(word))
    if not rest:
        return _Alt(head)
    if head not in ("int", "number"):
        raise SpecError(f"only int and number take bounds, in valid: {spec}")
    if m := _INTERVAL.match(rest):
        return _Alt(
            head,
            low=_number(m[2], spec),
            low_open=m[1] == "(",
            high=_number(m[3], spec),
            high_open=m[4] == ")",
        )
    if m := _BOUND.match(rest):
        bound, op = _number(m[2], spec), m[1]
        if op.startswith(">"):
            return _Alt(head, low=bound, low_open=op == ">")
        return _Alt(head, high=bound, high_open=op == "<")
    raise SpecError(f"cannot read bound {rest!r} in valid: {spec}")


def parse_rule(spec: str) -> Rule:
    """A ``valid:`` SPEC as a :class:`Rule`; :class:`SpecError` when it cannot be read."""
    spec = spec.strip()
    if spec.startswith("list of "):
        return Rule(spec, (), item=parse_rule(spec.removeprefix("list of ")))
    alts = tuple(_alt(part.strip(), spec) for part in spec.split("|"))
    return Rule(spec, alts)


def rules_from_text(text: str) -> dict[str, Rule]:
    """``{dotted key: Rule}`` from a defaults file: each ``# valid:`` line belongs to the
    next key line of its comment block (a blank line ends the block)."""
    rules: dict[str, Rule] = {}
    stack: list[tuple[int, str]] = []
    pending: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            pending = None
            continue
        if m := _VALID_LINE.match(line):
            if pending is not None:
                raise SpecError(f"line {number}: two valid: lines for one key")
            pending = m[1]
            continue
        if line.lstrip().startswith("#"):
            continue
        m = _KEY_LINE.match(line)
        if m is None:
            continue
        indent = len(m[1])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, m[2]))
        if pending is not None:
            rules[".".join(k for _, k in stack)] = parse_rule(pending)
            pending = None
    if pending is not None:
        raise SpecError("a valid: line at the end of the file belongs to no key")
    return rules
