"""Scripted model edges for trainer tests: a backend that answers from a function of the
prompt (the edge the project does not own), and the commit-message task set they run on."""

from __future__ import annotations

import threading

from trainer.backends.base import Completion
from trainer.tasks import Judge, Task


def tasks(judges: tuple[Judge, ...]) -> list[Task]:
    sizes = {"train": 4, "val": 12, "test": 12}
    return [
        Task(f"{split}-{i}", f"write the commit message for change {split}-{i}", split, judges)
        for split, n in sizes.items()
        for i in range(n)
    ]


class Scripted:
    """A model edge answering from a function of (system, user); counts its calls."""

    concurrency = 1

    def __init__(self, name: str, answer) -> None:
        self.identity, self.answer = f"scripted:{name}", answer
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        with self.lock:
            self.prompts.append(messages[-1]["content"])
        return Completion(self.answer(messages[0]["content"], messages[-1]["content"]))


class Repeating:
    """An optimizer edge that always answers the same text, recording what it was shown."""

    simulation = False
    concurrency = 1
    identity = "scripted"

    def __init__(self, text: str) -> None:
        self.text, self.seen = text, []

    def complete(self, messages, *, json_schema=None, max_tokens=None) -> Completion:
        self.seen.append(messages)
        return Completion(self.text, 10, 10)
