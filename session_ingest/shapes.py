"""The shapes of the log records' fields that the parsers read, checked in one place.

Both formats are open, drifting unions: fields come and go, and a hostile or broken
writer can put any JSON value anywhere. The parsers in ``claude.py`` and ``codex.py``
read a known set of fields and rely on their types (a string ``cwd``, an integer token
count that fits SQLite, a list of content blocks …). ``claude_problem(record)`` and
``codex_problem(record)`` check exactly those fields before a record is parsed and name
the first one with the wrong shape; ingest then skips the record and counts it like a
malformed line. A field that is
absent or ``null`` is fine (parsers treat both as "not given"); fields no parser reads are
not looked at, so new fields never make a record bad.

A spec is a Python type (``str``, ``bool``, ``list``, ``dict``), ``COUNT`` (a token
count), ``EXIT`` (an exit status), ``ANY``, a tuple of alternatives, ``Obj({key: spec})``
(a JSON object; only the listed keys are checked) or ``ListOf(spec)`` (a JSON array whose
every item has that shape).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Check = Callable[[Any], "str | None"]  # None when the value fits, else a path ("" = here)

COUNT = "count"  # an int (not a bool), 0 <= n < 2**53: sums of them fit SQLite's integer
EXIT = "exit"  # an int (not a bool) of a process exit status's size
ANY = "any"
_MAX_COUNT = 1 << 53
_MAX_EXIT = 1 << 31


@dataclass(frozen=True)
class Obj:
    fields: dict[str, Any]


@dataclass(frozen=True)
class ListOf:
    item: Any


def _scalar(name: str, ok: Callable[[Any], bool]) -> Check:
    return lambda v: None if ok(v) else f" is {_kind(v)}, not {name}"


_BASIC: dict[Any, Check] = {
    str: _scalar("a string", lambda v: type(v) is str),
    bool: _scalar("true/false", lambda v: type(v) is bool),
    list: _scalar("a list", lambda v: type(v) is list),
    dict: _scalar("an object", lambda v: type(v) is dict),
    COUNT: _scalar("a count", lambda v: type(v) is int and 0 <= v < _MAX_COUNT),
    EXIT: _scalar("an exit code", lambda v: type(v) is int and -_MAX_EXIT <= v < _MAX_EXIT),
    ANY: lambda v: None,
}
_BASE_TYPE = {str: str, bool: bool, list: list, dict: dict, COUNT: int, EXIT: int}


def _kind(v: Any) -> str:
    if v is True or v is False:
        return "true/false"
    if type(v) is int:
        return "a number out of range" if abs(v) >= _MAX_COUNT else "a number"
    return {str: "a string", float: "a number", list: "a list", dict: "an object"}.get(
        type(v), type(v).__name__
    )


def compile_spec(spec: Any) -> Check:
    """A checking function for ``spec`` (see the module docstring)."""
    if isinstance(spec, Obj):
        # key -> a plain type (checked inline: the hot path) or a checking function.
        # The record's keys are walked, not the spec's: records hold fewer keys.
        fields: dict[str, Any] = {
            k: t if t in (str, bool, list, dict) else compile_spec(t)
            for k, t in spec.fields.items()
        }

        def check_obj(v: Any) -> str | None:
            if type(v) is not dict:
                return f" is {_kind(v)}, not an object"
            for key, x in v.items():
                f = fields.get(key)
                if f is None or x is None:
                    continue
                if type(f) is type:
                    if type(x) is not f:
                        return f".{key}{_BASIC[f](x)}"
                else:
                    p = f(x)
                    if p is not None:
                        return f".{key}{p}"
            return None

        return check_obj
    if isinstance(spec, ListOf):
        item = compile_spec(spec.item)

        def check_list(v: Any) -> str | None:
            if type(v) is not list:
                return f" is {_kind(v)}, not a list"
            for i, x in enumerate(v):
                p = item(x)
                if p is not None:
                    return f"[{i}]{p}"
            return None

        return check_list
    if isinstance(spec, tuple):  # alternatives, told apart by their JSON type
        alts = [(_base(s), compile_spec(s)) for s in spec]

        def check_alt(v: Any) -> str | None:
            for base, check in alts:
                if base is object or type(v) is base:
                    return check(v)
            return f" is {_kind(v)}, not " + " or ".join(_name(s) for s in spec)

        return check_alt
    return _BASIC[spec]


def _base(spec: Any) -> type:
    if spec == ANY:
        return object
    if isinstance(spec, Obj):
        return dict
    if isinstance(spec, ListOf):
        return list
    return _BASE_TYPE[spec]


def _name(spec: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            int: "a number"}[_base(spec)]  # fmt: skip


# ----------------------------------------------------------------- Claude Code

_TEXT_ITEM = Obj({"type": str, "text": str})
_CLAUDE_BLOCK = Obj(
    {
        "type": str,
        "text": str,
        "id": str,
        "name": str,
        "input": (Obj({"skill": str}), ANY),
        "tool_use_id": str,
        "is_error": bool,
        "content": (str, ListOf(_TEXT_ITEM)),
    }
)
CLAUDE = Obj(
    {
        "type": str,
        "subtype": str,
        "sessionId": str,
        "uuid": str,
        "parentUuid": str,
        "timestamp": str,
        "cwd": str,
        "gitBranch": str,
        "version": str,
        "entrypoint": str,
        "agentId": str,
        "requestId": str,
        "customTitle": str,
        "aiTitle": str,
        "isSidechain": bool,
        "isMeta": bool,
        "isCompactSummary": bool,
        "isApiErrorMessage": bool,
        "message": Obj(
            {
                "id": str,
                "model": str,
                "content": (str, ListOf(_CLAUDE_BLOCK)),
                "usage": Obj(
                    {
                        "input_tokens": COUNT,
                        "output_tokens": COUNT,
                        "cache_creation_input_tokens": COUNT,
                        "cache_read_input_tokens": COUNT,
                        "cache_creation": Obj(
                            {"ephemeral_5m_input_tokens": COUNT, "ephemeral_1h_input_tokens": COUNT}
                        ),
                    }
                ),
            }
        ),
    }
)

# ----------------------------------------------------------------- Codex

_CONTENT = (str, ListOf(_TEXT_ITEM))
SESSION_META = Obj(
    {
        "id": str,
        "timestamp": str,
        "cwd": str,
        "originator": str,
        "cli_version": str,
        "source": (
            str,
            Obj({"subagent": (str, Obj({"thread_spawn": Obj({"parent_thread_id": str})}))}),
        ),
        "git": Obj({"branch": str}),
    }
)
RESPONSE_ITEM = Obj(
    {
        "type": str,
        "role": str,
        "content": _CONTENT,
        "name": str,
        "arguments": (str, dict),
        "input": (str, dict),
        "call_id": str,
        "id": str,
        "output": (str, ListOf(_TEXT_ITEM), _TEXT_ITEM),  # 0.146: one item, unwrapped
        "action": Obj({"command": (str, ListOf(str))}),
    }
)
EVENT_MSG = Obj(
    {
        "type": str,
        "message": str,
        "images": list,
        "local_images": list,
        "info": Obj({"total_token_usage": Obj({"input_tokens": COUNT, "output_tokens": COUNT})}),
        "reason": str,
        "call_id": str,
        "exit_code": EXIT,
        "success": bool,
    }
)
_ENVELOPE = Obj({"timestamp": str, "type": str, "payload": dict})
_PAYLOADS = {
    "session_meta": SESSION_META,
    "turn_context": Obj({"model": str, "cwd": str}),
    "response_item": RESPONSE_ITEM,
    "event_msg": EVENT_MSG,
}

_claude = compile_spec(CLAUDE)
_envelope = compile_spec(_ENVELOPE)
_payload = {kind: compile_spec(spec) for kind, spec in _PAYLOADS.items()}
_bare_item = _payload["response_item"]  # legacy pre-envelope lines
_header = _payload["session_meta"]  # legacy bare header line


def claude_problem(record: dict[str, Any]) -> str | None:
    """The first field of a Claude record a parser reads that has the wrong shape, as
    ``"message.usage.input_tokens is a string, not a count"``; None when all fit."""
    p = _claude(record)
    return None if p is None else p.lstrip(".")


def codex_problem(record: dict[str, Any]) -> str | None:
    """As ``claude_problem``, for a Codex line of any era (envelope, legacy item or header)."""
    if "payload" in record:
        p = _envelope(record)
        if p is None:
            check = _payload.get(record.get("type"))  # type: ignore[arg-type]
            p = check(record["payload"]) if check else None
            p = f".payload{p}" if p is not None else None
    elif "type" in record:
        p = _bare_item(record)
    else:
        p = _header(record)
    return None if p is None else p.lstrip(".")
