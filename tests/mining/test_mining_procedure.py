"""Clustering with what was done: paraphrases that did the same join, one-offs do not."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from benchmarks.requests.tuning import one_off
from skillopt_sleep.mining.cluster import ClusterParams, cluster_texts
from skillopt_sleep.mining.fingerprint import units
from skillopt_sleep.mining.intents import intent

PROJECT = "/home/dev/src/shop"
COMMON = [("Bash", "ls"), ("Bash", "git status"), ("Read", f"{PROJECT}/README.md"),
          ("Grep", PROJECT), ("Bash", "pytest -q")]  # fmt: skip
COMMIT = [("Bash", "git diff --staged"), ("Bash", 'git commit -m "x"'),
          ("Bash", "git log --oneline -n 10")]  # fmt: skip
MIGRATION = [("Read", f"{PROJECT}/src/shop/models.py"), ("Bash", "alembic upgrade head"),
             ("Bash", 'alembic revision --autogenerate -m "x"')]  # fmt: skip
COMMIT_WAYS = [  # share no content word with each other
    ["write the commit message for the staged changes", "commit message for what is staged"],
    ["sum up my pending edits so I can record them", "record my pending edits briefly"],
    ["describe this work for the history", "one line for the history about this work"],
]
MIGRATION_WAYS = [["{t} needs a {c} field", "give {t} a {c} field"],
                  ["schema change: {c} on {t}", "schema change for {t} with {c}"]]  # fmt: skip


def _work(rng: random.Random, own: list[tuple[str, str]], share: float) -> list[str]:
    calls = [c for c in own if rng.random() < share] + rng.sample(COMMON, rng.randint(0, 3))
    return units(calls, PROJECT)


def _corpus(seed: int) -> tuple[list[str], list[list[str]], list[str]]:
    """(texts, fingerprints, truth): two kinds asked several ways, and one-offs that run
    the commands every request runs."""
    rng = random.Random(seed)
    texts, prints, truth = [], [], []
    for _ in range(24):
        texts.append(rng.choice(rng.choice(COMMIT_WAYS)))
        prints.append(_work(rng, COMMIT, 0.85))
        truth.append("commit")
    for _ in range(16):
        way = rng.choice(rng.choice(MIGRATION_WAYS))
        texts.append(way.format(t=rng.choice(["users", "orders", "carts"]),
                                c=rng.choice(["currency", "deleted_at", "notes"])))  # fmt: skip
        prints.append(_work(rng, MIGRATION, 0.85))
        truth.append("migration")
    used: set[tuple[str, str]] = set()
    for i in range(60):
        texts.append(one_off(rng, used))
        prints.append(_work(rng, [], 0.0))
        truth.append(f"one-off-{i}")
    return [intent(t)[1] for t in texts], prints, truth


@pytest.mark.parametrize("seed", range(3))
def test_ways_of_asking_that_did_the_same_work_are_one_kind(seed: int) -> None:
    texts, prints, truth = _corpus(seed)
    labels = cluster_texts(texts, ClusterParams(), prints)
    by_kind: dict[str, Counter] = {}
    for lab, kind in zip(labels, truth, strict=True):
        by_kind.setdefault(kind, Counter())[lab] += 1
    commit, migration = by_kind["commit"], by_kind["migration"]
    assert commit.most_common(1)[0][1] >= 22  # of 24, three ways sharing no word
    assert migration.most_common(1)[0][1] >= 14  # of 16
    assert commit.most_common(1)[0][0] != migration.most_common(1)[0][0]
    # without the work, the words alone leave the ways apart
    alone = cluster_texts(texts, ClusterParams())
    assert Counter(alone[:24]).most_common(1)[0][1] < 22
    # one-offs that ran ls, git status or read the README are no kind
    kinds_labels = {commit.most_common(1)[0][0], migration.most_common(1)[0][0]}
    one_off_labels = Counter(lab for lab, k in zip(labels, truth, strict=True)
                             if k.startswith("one-off"))  # fmt: skip
    assert not set(one_off_labels) & kinds_labels
    assert max(one_off_labels.values()) <= 2


def test_one_object_asked_different_things_with_different_work_is_no_kind() -> None:
    """Eight asks about one document, each said twice: their lead words agree just enough
    for the words alone to keep them (2 of 16 > ``action_share``); their work does not."""
    rng = random.Random(0)
    verbs = ["rewrite", "shorten", "translate", "proofread", "illustrate", "archive",
             "restructure", "summarize"]  # fmt: skip
    docs = [("Read", f"{PROJECT}/docs/policy.md"), ("Bash", "mkdocs build"),
            ("Edit", f"{PROJECT}/mkdocs.yml"), ("Write", f"{PROJECT}/docs/faq.md"),
            ("Edit", f"{PROJECT}/README.md")]  # fmt: skip
    texts, prints = [], []
    for verb in verbs:
        for said in (f"{verb} the expense policy", f"{verb} the expense policy for contractors"):
            texts.append(intent(said)[1])
            prints.append(units(rng.sample(docs, rng.randint(1, 3)), PROJECT))
    base_texts, base_prints, _ = _corpus(1)  # a corpus to learn what words and units say
    words_alone = cluster_texts(texts + base_texts, ClusterParams())
    assert max(Counter(words_alone[: len(texts)]).values()) == len(texts)
    labels = cluster_texts(texts + base_texts, ClusterParams(), prints + base_prints)
    assert max(Counter(labels[: len(texts)]).values()) <= 2


def test_one_wording_over_two_procedures_is_cut_along_them() -> None:
    """'pin down the fix with a failing case' and 'X fails mypy, fix it' share words
    (fix, fail), not work: pytest and a new test file, or mypy."""
    rng = random.Random(2)
    test_work = [("Bash", "pytest tests/test_cart.py -k totals"),
                 ("Write", f"{PROJECT}/tests/test_cart_regression.py")]  # fmt: skip
    type_work = [("Bash", "mypy src/shop/cart.py"), ("Edit", f"{PROJECT}/src/shop/cart.py")]
    texts, prints, truth = [], [], []
    for _ in range(14):
        texts.append(intent("pin down the fix with a failing case first")[1])
        prints.append(_work(rng, test_work, 0.9))
        truth.append("regression")
        texts.append(intent(f"src/shop/{rng.choice(['cart', 'tax'])}.py fails mypy, fix it")[1])
        prints.append(_work(rng, type_work, 0.9))
        truth.append("types")
    base_texts, base_prints, base_truth = _corpus(0)
    labels = cluster_texts(texts + base_texts, ClusterParams(), prints + base_prints)
    per = {k: Counter(lab for lab, t in zip(labels, truth, strict=False) if t == k)
           for k in ("regression", "types")}  # fmt: skip
    assert per["regression"].most_common(1)[0][0] != per["types"].most_common(1)[0][0]
    assert per["regression"].most_common(1)[0][1] >= 12
    assert per["types"].most_common(1)[0][1] >= 12
