"""What a night's result for one skill means: the one decision that promotion, the night's
summary, the report's advice and `status` all read (three places used to decide it, and a
report could say "promoted" and "so it was not written" about the same skill).

The gate decides on the val tasks (anytime-valid, its false-accept rate held per skill and
night). The test split never chooses an edit: it is the independent look, reported with a
95% interval, and it guards the write. Its lead figure is pass-all — the share of answers
that pass every rule judge, what the user would have accepted — where the test tasks have
rule judges, else the mean score.

| outcome | when | action |
|---|---|---|
| improved | an edit passed the gate; the lead lift's interval is above zero | promote |
| unconfirmed | an edit passed the gate; lift >= 0, its interval includes zero | promote |
| worse | an edit passed the gate; lead lift < 0, or the mean's interval below zero | keep |
| not_measured | an edit passed the gate; the test could not be measured | stage |
| not_enough_evidence | no edit decided yet: some wait for more val evidence | keep |
| unchanged | no edit passed the gate | keep |
| error | the model endpoint failed every call | keep |

"promote" writes the skill where the promotion policy allows (a skill you wrote is staged
for review unless you opted in); "stage" keeps it for your review; "keep" leaves your skill
as it is and stages nothing.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the verdict reads the trainer's result; importing it would load numpy
    from trainer.result import TestLift

ACTIONS = ("promote", "stage", "keep")
MIN_TEST_TASKS = 2  # fewer test tasks give no interval: a skill needs them to be trained


@dataclass(frozen=True)
class Verdict:
    outcome: str
    action: str  # promote | stage | keep
    reason: str  # one sentence an operator can act on ("" for improved)
    metric: str = ""  # the lead figure the outcome read: "pass-all" | "mean" | ""

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown action {self.action!r}")

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def _num(x: Any) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return ""
    return f", 95% CI {low:+.2f} to {high:+.2f}"


def decide(
    *,
    accepted: int,
    undecided: int,
    endpoint_failed: str,
    stop_reason: str,
    test: TestLift,
) -> Verdict:
    """The verdict for one skill's night. ``accepted``: edits the gate accepted;
    ``undecided``: candidates still pending with evidence; ``endpoint_failed``: why no call
    succeeded ("" when some did); ``test``: the held-out test (with its pass-all)."""
    if endpoint_failed:
        return Verdict("error", "keep", endpoint_failed)
    if accepted == 0:
        if undecided:
            return Verdict(
                "not_enough_evidence", "keep",
                f"{undecided} candidate edit(s) still pending: the val set has not decided "
                "them yet; the next night goes on gathering their evidence",
            )  # fmt: skip
        if stop_reason.startswith("budget"):
            return Verdict(
                "unchanged", "keep", f"training ended by {stop_reason} before an edit passed"
            )
        return Verdict("unchanged", "keep", "no edit passed the gate")
    if not test.measured:
        why = test.note or "no test task was scored on both sides"
        return Verdict(
            "not_measured", "stage",
            f"an edit passed the gate, but the held-out test was not measured ({why}): "
            "it waits for your review",
        )  # fmt: skip
    mean_lift = test.lift
    pass_all = test.pass_all
    if pass_all and pass_all.n_tasks and _num(pass_all.lift) is not None:
        metric, lift, n = "pass-all", pass_all.lift, pass_all.n_tasks
        low, high = _num(pass_all.ci_low), _num(pass_all.ci_high)
    else:
        metric, lift, n = "mean", mean_lift, test.n_tasks
        low, high = _num(test.ci_low), _num(test.ci_high)
    mean_high = _num(test.ci_high)
    what = "answers passing every rule" if metric == "pass-all" else "held-out score"
    if lift < 0 or (mean_high is not None and mean_high < 0):
        worse = lift if lift < 0 else mean_lift
        return Verdict(
            "worse", "keep",
            f"the {what if lift < 0 else 'held-out score'} went down on the test tasks "
            f"(lift {worse:+.2f}); the skill was left as it was",
            metric,
        )  # fmt: skip
    if low is not None and low > 0 and n >= MIN_TEST_TASKS:
        return Verdict("improved", "promote", "", metric)
    return Verdict(
        "unconfirmed", "promote",
        f"the gate accepted it on the val tasks and the test did not go down, but the "
        f"{what} on {n} test task(s) cannot confirm the gain on its own "
        f"(lift {lift:+.2f}{_interval(low, high)})",
        metric,
    )  # fmt: skip
