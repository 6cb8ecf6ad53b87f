"""Which of the user's skills a cluster of requests belongs to, and one cluster per skill.

The skill a request invoked (the ``Skill`` tool, ``/name``, ``$name``) is the strongest sign
of what it asked for: requests that invoked the same skill are that skill's task set,
whatever their wording. Two rules keep that sign honest:

* *The share rule*: a cluster belongs to a skill when at least ``SKILL_SHARE`` of its
  requests invoked it, and more than one of them did (unless the cluster is that one
  request): one stray invocation never hands a kind of work to an unrelated skill.
* *One cluster per skill*: clusters that belong to one skill are merged. The night trains,
  tests and promotes a skill as a whole; two clusters of one skill would split its
  held-out set and its judges in two and train one ``SKILL.md`` twice in a night.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from skillopt_sleep.settings.config import claude_roots, codex_roots

SKILL_SHARE = 0.3


class _Invoking(Protocol):
    skills: list[str]
    started_at: str
    turn_id: str


def owner(reqs: Sequence[_Invoking]) -> str | None:
    """The skill ``reqs`` belong to by the share rule, or None."""
    invoked = Counter(s for r in reqs for s in dict.fromkeys(r.skills))
    if not invoked:
        return None
    skill, n = min(invoked.items(), key=lambda kv: (-kv[1], kv[0]))
    return skill if n >= SKILL_SHARE * len(reqs) and (n >= 2 or len(reqs) == 1) else None


R = TypeVar("R", bound=_Invoking)


def one_per_skill(groups: list[list[R]]) -> list[list[R]]:
    """``groups`` with every group a skill owns merged into one (oldest request first)."""
    out: list[list[R]] = []
    merged: dict[str, list[R]] = {}
    for group in groups:
        skill = owner(group)
        if skill is None:
            out.append(group)
        elif skill in merged:
            merged[skill].extend(group)
        else:
            merged[skill] = list(group)
            out.append(merged[skill])
    for group in merged.values():
        group.sort(key=lambda r: (r.started_at, r.turn_id))
    return out


def installed(config: Mapping[str, Any], projects: Iterable[str]) -> frozenset[str]:
    """The names of the user's skills and commands on disk, so a ``/name`` typed in Claude
    Code (logged as a command, never as the ``Skill`` tool) is known for a skill even when
    the agent never invoked it itself: ``skills/<name>/SKILL.md`` and ``commands/<name>.md``
    under the Claude homes, ``skills/<name>/`` under the Codex homes and ``~/.agents``, and
    the same under each project's ``.claude``, ``.codex`` and ``.agents``."""
    homes: list[tuple[Path, tuple[str, ...]]] = []
    if config.get("sources"):
        homes += [(r, ("skills", "commands")) for r in claude_roots(config)]
        homes += [(r, ("skills",)) for r in codex_roots(config)]
    homes.append((Path.home() / ".agents", ("skills",)))
    for project in {p for p in projects if p}:
        base = Path(project)
        homes += [(base / ".claude", ("skills", "commands")), (base / ".codex", ("skills",)),
                  (base / ".agents", ("skills",))]  # fmt: skip
    names: set[str] = set()
    for root, kinds in homes:
        for kind in kinds:
            try:
                entries = list(os.scandir(root / kind))
            except OSError:
                continue
            for e in entries:
                if kind == "commands" and e.name.endswith(".md"):
                    names.add(e.name[:-3])
                elif kind == "skills" and os.path.exists(os.path.join(e.path, "SKILL.md")):
                    names.add(e.name)
    return frozenset(names)
