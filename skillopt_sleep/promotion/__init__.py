"""Promotion: stage or write validated skills into the agents' skill directories, with
versions, review (adopt / reject / diff / history) and rollback.

``promote`` decides and writes (``promote.py``); review commands work from the store
alone (``review.py``); skill roots, path confinement and atomic writes are ``dirs.py``;
versions and the promotions table are ``versions.py``.
"""

from skillopt_sleep.promotion.dirs import SkillPathError, SkillWriteError, check_name, targets
from skillopt_sleep.promotion.promote import (
    PromotionOutcome,
    TargetOutcome,
    current_text,
    policy,
    promote,
    snapshot,
)
from skillopt_sleep.promotion.review import adopt, diff, reject, rollback
from skillopt_sleep.promotion.versions import PromotionError, history, pending

__all__ = [
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
    "pending",
    "policy",
    "promote",
    "reject",
    "rollback",
    "snapshot",
    "targets",
]
