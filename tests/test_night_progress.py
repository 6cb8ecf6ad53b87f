"""The night's call meter: phase, calls done of planned, ETA; off a tty the first call and a
line per tenth."""

from __future__ import annotations

from skillopt_sleep.night.progress import CallMeter, duration
from trainer import TrainSettings


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_the_meter_says_the_first_call_then_a_line_per_tenth() -> None:
    lines: list[str] = []
    clock = Clock()
    meter = CallMeter(40, lines.append, clock)
    meter.phase = "training commit-message"
    for _ in range(40):
        clock.now += 3.0  # three seconds a call
        meter.tick()
    assert len(lines) == 11
    assert lines[0] == "training commit-message: 1 of at most 40 calls, ETA 1m57s"
    assert lines[1] == "training commit-message: 4 of at most 40 calls, ETA 1m48s"
    assert lines[-1].endswith("40 of at most 40 calls, ETA 0s")


def test_a_night_that_settles_far_below_its_plan_still_says_it_began() -> None:
    lines: list[str] = []
    meter = CallMeter(306, lines.append, Clock())  # the demo's plan; it may end after 14
    for _ in range(14):
        meter.tick()
    assert lines == ["model calls: 1 of at most 306 calls, ETA 0s"]


def test_on_a_terminal_every_call_updates_the_status_line() -> None:
    class Terminal(list):
        def __call__(self, msg: str) -> None:
            raise AssertionError("a status update is not a new line")

        def status(self, text: str) -> None:
            self.append(text)

    shown = Terminal()
    meter = CallMeter(3, shown, Clock())
    for _ in range(3):
        meter.tick()
    assert [s.split(":")[1].split(",")[0] for s in shown] == [
        " 1 of at most 3 calls",
        " 2 of at most 3 calls",
        " 3 of at most 3 calls",
    ]


def test_planned_calls_bound_a_run() -> None:
    s = TrainSettings(epochs=1, steps_per_epoch=2, minibatch=4, train_samples=1, samples=1,
                      max_samples=1, test_samples=1, screen=True)  # fmt: skip
    # per step: 4 train + 1 proposal + 4 screen + 2 x 16 val; then 2 x 16 test
    assert s.planned_calls(8, 16, 16) == 2 * (4 + 1 + 4 + 32) + 32
    assert s.planned_calls(8, 16, 16, judge_calls=1.0) == 2 * (8 + 1 + 8 + 64) + 64
    assert duration(59) == "59s" and duration(61) == "1m01s" and duration(3720) == "1h02m"
