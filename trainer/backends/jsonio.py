"""JSON answers from models that do not always write JSON.

Endpoints that honour ``response_format`` json_schema return valid JSON; weaker ones (and
the small local model) wrap it in code fences, add prose, use single quotes or stop
mid-object. ``parse_json_answer`` tries strict JSON first, then ``json_repair``, then checks
the minimal shape the caller asked for. What cannot be recovered is returned as ``None`` and
counted by ``JsonStats``, so a run reports how many answers it could not use instead of
dropping them silently.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

import json_repair

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def schema_problem(value: Any, schema: dict[str, Any] | None, path: str = "$") -> str | None:
    """The first way ``value`` breaks a simple JSON schema, or None when it fits.

    Covers what our prompts use: ``type`` (one or a list), ``properties``, ``required``,
    ``items`` and ``enum``. Extra keys are allowed: a lenient reader loses less of a weak
    model's answer, and the callers only read the keys they asked for.
    """
    if not schema:
        return None
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        ok = False
        for name in names:
            kinds = _TYPES.get(name, (object,))
            # bool is an int in Python; JSON keeps them apart.
            if isinstance(value, bool) and bool not in kinds:
                continue
            if isinstance(value, kinds):
                ok = True
                break
        if not ok:
            return f"{path}: expected {'/'.join(names)}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: {value!r} is not one of {schema['enum']!r}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}: missing required key {key!r}"
        for key, sub in (schema.get("properties") or {}).items():
            if key in value:
                problem = schema_problem(value[key], sub, f"{path}.{key}")
                if problem:
                    return problem
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            problem = schema_problem(item, schema["items"], f"{path}[{i}]")
            if problem:
                return problem
    return None


def _strict(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, TypeError):
        return False, None


def _repaired(text: str) -> tuple[bool, Any]:
    try:
        value = json_repair.loads(text)
    except Exception:  # noqa: BLE001 - a repair library bug must not crash a run
        return False, None
    # json_repair answers "" when it found nothing that looks like JSON.
    if value == "" and text.strip() not in ('""', "''"):
        return False, None
    return True, value


def parse_json_answer(text: str | None, schema: dict[str, Any] | None = None) -> tuple[Any, bool]:
    """``(value, recovered)``: the answer's JSON value and whether repair was needed.

    ``(None, False)`` means unusable: no JSON could be recovered, or it does not fit
    ``schema``. When the schema wants an object and the model returned a list of them,
    the first fitting object is taken (counted as recovered).
    """
    if not text or not text.strip():
        return None, False
    if schema and isinstance(schema.get("schema"), dict) and "type" not in schema:
        schema = schema["schema"]  # OpenAI's {"name", "schema"} wrapper
    ok, value = _strict(text.strip())
    if ok and schema_problem(value, schema) is None:
        return value, False
    if not ok:
        ok, value = _repaired(text)
        if not ok:
            return None, False
        if schema_problem(value, schema) is None:
            return value, True
    # Parsed, but the wrong shape: salvage an object from a list of candidates.
    if schema and schema.get("type") == "object" and isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and schema_problem(item, schema) is None:
                return item, True
    return None, False


@dataclass
class JsonStats:
    """Counts of JSON answers: clean, repaired, and unusable. Thread-safe.

    Callers fold ``as_dict()`` into a run's results; ``examples`` keeps the first few
    unusable answers (truncated) so a report can show what the model actually wrote.
    """

    parsed: int = 0
    repaired: int = 0
    unparseable: int = 0
    examples: list[str] = field(default_factory=list)
    max_examples: int = 5
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def parse(self, text: str | None, schema: dict[str, Any] | None = None) -> Any:
        """Parse like ``parse_json_answer``, count the outcome, return the value or None."""
        value, recovered = parse_json_answer(text, schema)
        self.record(value is not None or _is_null_ok(text, schema), recovered, text)
        return value

    def record(self, ok: bool, recovered: bool, text: str | None = None) -> None:
        """Count one answer (for callers that parse on their own)."""
        with self._lock:
            if not ok:
                self.unparseable += 1
                if len(self.examples) < self.max_examples:
                    self.examples.append((text or "")[:200])
            elif recovered:
                self.repaired += 1
            else:
                self.parsed += 1

    @property
    def total(self) -> int:
        return self.parsed + self.repaired + self.unparseable

    def merge(self, other: JsonStats) -> None:
        """Add another counter's figures to this one (e.g. per-role stats into a run's)."""
        with self._lock:
            self.parsed += other.parsed
            self.repaired += other.repaired
            self.unparseable += other.unparseable
            room = self.max_examples - len(self.examples)
            self.examples.extend(other.examples[: max(room, 0)])

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return {
                "parsed": self.parsed,
                "repaired": self.repaired,
                "unparseable": self.unparseable,
            }


def _is_null_ok(text: str | None, schema: dict[str, Any] | None) -> bool:
    """A literal JSON ``null`` is a valid answer when the schema allows it."""
    ok, value = _strict((text or "").strip())
    return ok and value is None and schema_problem(None, schema) is None
