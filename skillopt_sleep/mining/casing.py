"""A name the user writes in its own casing ("GitHub, capital H", '"Github" -> "GitHub"',
"macOS pls"): answers must write it that way.

Read only where the pair shows it: the corrected answer wrote the name in another casing and
the accepted one as the user did. A domain (``github.com``) or part of an identifier
(``GITHUB_TOKEN``) is no spelling of the name, and passes.
"""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import Check
from trainer.checks import passes

# A word with a capital after a small letter: how brand names are cased (GitHub, macOS).
_MIXED_CASE = re.compile(r"(?<![\w./-])([A-Za-z]*[a-z][A-Z][A-Za-z]*)(?![\w-])")


def name_casing(said: str, corrected: str, accepted: str) -> list[Check]:
    """A check per mixed-case name the user wrote that the corrected answer wrote otherwise."""
    out: list[Check] = []
    for name in dict.fromkeys(m.group(1) for m in _MIXED_CASE.finditer(said)):
        other = rf"(?<![\w./-])(?!{name}\b)(?i:{re.escape(name)})(?![\w-]|\.\w)"
        check = Check("not_regex", other, "answer")
        if not passes(check.kind, check.value, check.scope, corrected) and passes(
            check.kind, check.value, check.scope, accepted
        ):
            out.append(check)
    return out
