"""What a correction is about, as one typed object: what the user's words name (a feature, a
number, a literal, an example, a shape) and the role their clause gives it. ``topics`` and
``counts`` read topics from the words; ``contrast`` turns them into checks.
"""

from __future__ import annotations

from dataclasses import dataclass

NO, HAS, KEEP, NAMED = "no", "has", "keep", "named"


@dataclass(frozen=True)
class Topic:
    what: str  # "feature" | "count" | "literal" | "identifier" | "mark" | "shape"
    value: str  # a feature name, a number, the literal, the example, the shape's name
    role: str  # NO | HAS | KEEP | NAMED
    scope: str | None = None  # the scope the words name, if any
    unit: str | None = None  # counts: the unit named, if any
    bound: str | None = None  # counts: "max" | "min" when the words say
    at: str | None = None  # literals: "start" | "end" | "line" (a line it opens) when said
    order: int = 0  # where in the correction it was named
    plain: bool = False  # features: named only by "plain text"
