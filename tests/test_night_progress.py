"""The night's call meter: phase, calls done of planned, the planner's ETA; off a tty the
first call and a line per tenth."""

from __future__ import annotations

from skillopt_sleep.night.progress import CallMeter, duration
from trainer import TrainSettings
from trainer.sizing import planned_calls


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_the_meter_says_the_first_call_then_a_line_per_tenth() -> None:
    lines: list[str] = []
    clock = Clock()
    meter = CallMeter(40, lines.append, planned_seconds=120.0, clock=clock)
    meter.phase = "training commit-message"
    for _ in range(40):
        clock.now += 3.0  # three seconds a call, as planned
        meter.tick()
    assert len(lines) == 11
    assert lines[0] == "training commit-message: 1 of about 40 calls, ETA 1m57s"
    assert lines[1] == "training commit-message: 4 of about 40 calls, ETA 1m48s"
    assert lines[-1].endswith("40 of about 40 calls, ETA 0s")


def test_the_eta_is_the_plan_s_not_the_first_call_s_and_never_past_the_deadline() -> None:
    lines: list[str] = []
    clock = Clock()
    # a 5-minute night planned at 4 s a call; its first call, a proposal, takes 80 s
    meter = CallMeter(60, lines.append, planned_seconds=240.0, deadline=500.0, clock=clock)
    clock.now += 80.0
    meter.tick()
    assert lines == ["model calls: 1 of about 60 calls, ETA 3m56s"]  # 59 x 4 s, not 59 x 80 s
    clock.now = 400.0
    assert meter.text().endswith("ETA 1m40s")  # the deadline comes first
    unknown = CallMeter(60, lines.append, clock=clock)  # no seconds per call measured yet
    assert unknown.text() == "model calls: 0 of about 60 calls, ETA unknown"


def test_a_night_that_settles_far_below_its_plan_still_says_it_began() -> None:
    lines: list[str] = []
    meter = CallMeter(306, lines.append, clock=Clock())  # the demo's plan; it may end after 14
    for _ in range(14):
        meter.tick()
    assert lines == ["model calls: 1 of about 306 calls, ETA unknown"]


def test_on_a_terminal_every_call_updates_the_status_line() -> None:
    class Terminal(list):
        def __call__(self, msg: str) -> None:
            raise AssertionError("a status update is not a new line")

        def status(self, text: str) -> None:
            self.append(text)

    shown = Terminal()
    meter = CallMeter(3, shown, clock=Clock())
    for _ in range(3):
        meter.tick()
    assert [s.split(":")[1].split(",")[0] for s in shown] == [
        " 1 of about 3 calls",
        " 2 of about 3 calls",
        " 3 of about 3 calls",
    ]


def test_the_planned_calls_of_a_run() -> None:
    s = TrainSettings(epochs=1, steps_per_epoch=2, minibatch=4, train_samples=1, samples=1,
                      max_samples=1, test_samples=1, screen=True)  # fmt: skip
    # per step: 4 train + 4 screen + 16 val of the candidate, 1 proposal + 3 example answers;
    # the incumbent's 16 val once; then 2 x 16 test
    plan = planned_calls(s, 8, 16, 16)
    assert (plan.target, plan.optimizer, plan.judge) == (2 * (4 + 4 + 16) + 16 + 32, 8, 0)
    # a rubric judge per task: a judge call per rollout and per checked example answer
    assert planned_calls(s, 8, 16, 16, judge_calls=1.0).judge == plan.target + 2 * 3
    assert duration(59) == "59s" and duration(61) == "1m01s" and duration(3720) == "1h02m"
