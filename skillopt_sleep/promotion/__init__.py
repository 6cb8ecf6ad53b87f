"""Promotion: stage or write validated skills into the agents' skill directories, with
versions, review (adopt / reject / diff / history) and rollback.

``promote`` decides and writes (``promote.py``); review commands work from the store
alone (``review.py``); skill roots, path confinement and atomic writes are ``dirs.py``;
versions, the decisions, their event history and the skills skillopt-sleep created are
``versions.py``; what a night may never write without review is ``content.py`` (the
content policy) and ``spec.py`` (the Agent Skills rules).
"""

from skillopt_sleep.promotion.dirs import (
    SkillPathError,
    SkillWriteError,
    check_name,
    skill_targets,
    targets,
    unusable_name,
)
from skillopt_sleep.promotion.promote import (
    Facts,
    PromotionOutcome,
    TargetOutcome,
    current_text,
    policy,
    promote,
    snapshot,
)
from skillopt_sleep.promotion.review import adopt, diff, reject, rollback
from skillopt_sleep.promotion.versions import (
    History,
    HistoryEvent,
    PromotionError,
    history,
    is_managed,
    pending,
)

__all__ = [
    "Facts",
    "History",
    "HistoryEvent",
    "PromotionError",
    "PromotionOutcome",
    "SkillPathError",
    "SkillWriteError",
    "TargetOutcome",
    "adopt",
    "check_name",
    "current_text",
    "diff",
    "history",
    "is_managed",
    "pending",
    "policy",
    "promote",
    "reject",
    "rollback",
    "skill_targets",
    "snapshot",
    "targets",
    "unusable_name",
]
