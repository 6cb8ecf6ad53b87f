"""JSON for task rows whose larger part is their kind's, encoded once for the kind.

Every task of a kind lists the kind's rule judges and the judges its sessions dropped:
at 20,000 sessions about 4 KB of a task's 5 KB of JSON, encoded again for each task.
A row made once for the kind (``EncodedRow``) keeps its JSON, and ``dumps`` writes it
as it was written, so a task's columns are the very text ``json.dumps`` gives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any


class EncodedRow(dict[str, Any]):
    """A row (a dict) with its JSON made once: it is not changed after."""

    __slots__ = ("json",)

    def __init__(self, row: Mapping[str, Any]) -> None:
        super().__init__(row)
        self.json = json.dumps(self)


def dumps(value: Any) -> str:
    """``json.dumps(value)`` (its default separators) for a list, or a dict with string
    keys whose values may be lists, with each ``EncodedRow`` in such a list written from
    its JSON. The parts between them are encoded a run at a time: ``json.dumps`` of a
    list or dict is its items' JSON joined by ", " in brackets or braces."""
    if isinstance(value, list):
        runs = _runs(value, lambda v: isinstance(v, EncodedRow))
        return (
            "[" + ", ".join(_join(runs, lambda r: r.json, lambda run: json.dumps(run)[1:-1])) + "]"
        )
    if isinstance(value, dict) and not isinstance(value, EncodedRow):
        items = list(value.items())
        runs = _runs(items, lambda kv: isinstance(kv[1], list))
        return "{" + ", ".join(_join(runs, lambda kv: f"{json.dumps(kv[0])}: {dumps(kv[1])}",
                                     lambda run: json.dumps(dict(run))[1:-1])) + "}"  # fmt: skip
    return json.dumps(value)


def _runs(items: list[Any], apart: Callable[[Any], bool]) -> list[tuple[bool, list[Any]]]:
    """The items in runs, each ``(apart, items)``: an item ``apart`` alone, the others
    together."""
    runs: list[tuple[bool, list[Any]]] = []
    for item in items:
        own = apart(item)
        if own or not runs or runs[-1][0]:
            runs.append((own, [item]))
        else:
            runs[-1][1].append(item)
    return runs


def _join(
    runs: list[tuple[bool, list[Any]]],
    one: Callable[[Any], str],
    run: Callable[[list[Any]], str],
) -> list[str]:
    return [one(items[0]) if apart else run(items) for apart, items in runs]
