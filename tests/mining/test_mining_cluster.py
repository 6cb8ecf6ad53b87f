"""Clustering: paraphrased recurring kinds are found; one-offs are not grouped."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
from sklearn.metrics.cluster import pair_confusion_matrix

from benchmarks.requests.tuning import corpus
from skillopt_sleep.mining.cluster import ClusterParams, agree_on_action, cluster_texts
from skillopt_sleep.mining.intents import intent


def _labels(texts: list[str], **kw: float) -> np.ndarray:
    return cluster_texts([intent(t)[1] for t in texts], ClusterParams(**kw))


def test_paraphrases_with_typos_meet_and_unrelated_do_not() -> None:
    texts = [
        "write a conventional commit message for the staged changes",
        "draft a commit msg for what I have staged",
        "can you write the commmit message for these staged chnages",
        "commit message for my staged work on utils.py",
        "what is the capital of mongolia",
        "draw an ascii diagram of the payment flow",
    ]
    lab = _labels(texts)
    assert len({lab[0], lab[1], lab[2], lab[3]}) == 1
    assert lab[4] != lab[0] and lab[5] != lab[0] and lab[4] != lab[5]


def test_synthetic_corpus_quality_small() -> None:
    reqs = corpus(1500, seed=3)
    lab = _labels([r.text for r in reqs])
    truth = [r.kind or f"one-{i}" for i, r in enumerate(reqs)]
    (_, fp), (fn, tp) = pair_confusion_matrix(truth, lab) // 2
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    # Neighbouring kinds of this corpus ("add type hints to the functions in X" / "add
    # docstrings to the functions in X") share their words; without IDF (which split a
    # kind asked in several phrasings, see vectors.py) some merge: P 0.81, R 0.84 here
    # (0.95 / 0.88 with IDF). benchmarks/mining.py holds the targets on harder corpora.
    assert precision > 0.75 and recall > 0.8 and 2 * precision * recall / (precision + recall) > 0.8
    sessions, days, kinds = defaultdict(set), defaultdict(set), defaultdict(Counter)
    for r, lab_ in zip(reqs, lab, strict=True):
        sessions[lab_].add(r.session_id)
        days[lab_].add(r.day)
        kinds[lab_][r.kind] += 1
    recurring = [c for c in sessions if len(sessions[c]) >= 3 and len(days[c]) >= 2]
    assert all(kinds[c].most_common(1)[0][0] is not None for c in recurring)
    found = {kinds[c].most_common(1)[0][0] for c in recurring}
    planted = {r.kind for r in reqs if r.kind}
    # known weakness: two related kinds ("add docstrings to the functions in X" / "add type
    # hints to the functions in X") may merge on a small corpus; at most one is lost
    assert found <= planted and len(found) >= len(planted) - 1


def test_blocked_path_matches_exact_path() -> None:
    """Above block_size the blocked algorithm finds the kinds about as well as the exact one."""
    reqs = corpus(1200, seed=5)
    texts = [r.text for r in reqs]
    truth = [r.kind or f"one-{i}" for i, r in enumerate(reqs)]
    f1 = {}
    for size in (300, 1500):
        (_, fp), (fn, tp) = pair_confusion_matrix(truth, _labels(texts, block_size=size)) // 2
        f1[size] = 2 * tp / (2 * tp + fp + fn)
    assert f1[1500] > 0.8 and f1[300] > f1[1500] - 0.05, f1


def test_empty_and_degenerate_inputs() -> None:
    assert len(cluster_texts([])) == 0
    assert list(cluster_texts(["fix"])) == [0]
    lab = cluster_texts(["same", "same", "same"])
    assert len(set(lab)) == 1
    lab = cluster_texts(["", "x", "y"])
    assert len(lab) == 3


def test_shared_filler_and_object_names_do_not_make_a_kind() -> None:
    """One-offs that share the user's filler and look-alike project names are not a task."""
    verbs = ["add", "remove", "explain", "restyle", "price", "audit", "hide", "benchmark",
             "localize", "animate", "document", "secure"]  # fmt: skip
    features = ["dark mode", "csv export", "password reset", "rate limiting", "push alerts",
                "search bar", "onboarding tour", "avatar upload", "audit log", "share links",
                "bulk delete", "offline mode"]  # fmt: skip
    objects = ["habit-tracker", "flight-tracker", "expense-tracker"]
    texts = [
        f"quick idea: {v} the {f} in the {objects[i % 3]} in the admin panel"
        for i, (v, f) in enumerate(zip(verbs, features, strict=True))
    ]
    kind = [f"write the release notes for version 2.{i}" for i in range(6)]
    labels = _labels(texts + kind)
    one_off_labels = labels[: len(texts)]
    assert len(set(labels[len(texts) :])) == 1  # the kind is found
    assert labels[-1] not in set(one_off_labels)
    # no three one-offs share a cluster (each asks for something different; "audit the
    # search bar" and "localize the audit log" may meet, but two is no recurring task)
    assert max(Counter(one_off_labels.tolist()).values()) < 3


def test_a_kind_asked_in_several_phrasings_is_one_cluster() -> None:
    """Phrasings of one task that share only its words ("regression test") meet, though
    each has words of its own and the user's openers and tails vary (the corpus the night
    tests run on; IDF had split it into one cluster per phrasing)."""
    import random

    from benchmarks.corpus import KINDS, one_off, request_text

    rng = random.Random("phrasings")
    texts, kinds = [], []
    for _ in range(120):
        if rng.random() < 0.2:
            texts.append(one_off(rng))
            kinds.append(None)
        else:
            kind = rng.choices(KINDS, [k.weight for k in KINDS])[0]
            texts.append(request_text(kind, rng))
            kinds.append(kind.name)
    labels = _labels(texts)
    for name in ("regression-test", "commit-message", "ci-summary"):
        own = Counter(lab for lab, k in zip(labels, kinds, strict=True) if k == name)
        assert own.most_common(1)[0][1] >= 0.9 * sum(own.values()), (name, own)
    one_off_labels = {lab for lab, k in zip(labels, kinds, strict=True) if k is None}
    kind_labels = {lab for lab, k in zip(labels, kinds, strict=True) if k is not None}
    assert not one_off_labels & kind_labels


def test_one_object_asked_for_different_things_is_no_kind() -> None:
    """Where bare object names are requests too ("file preview"), a verb looks like filler
    ("revert file preview" is another request without it); requests about one object that
    ask different things of it are still no kind. A small kind asked without a verb
    ("French / Spanish … version of the onboarding copy") still is one."""
    verbs = ["revert", "benchmark", "price", "rename", "secure", "hide", "animate", "audit"]
    objects = ["file preview", "usage quota", "seat picker", "coupon code", "share link",
               "gift card", "price alert"]  # fmt: skip
    tails = ("", " asap", " in the admin panel")
    bare = [f"{o}{tail}" for o in objects for tail in tails]
    one_offs = [f"{v} {objects[(i + j) % len(objects)]}" for i, v in enumerate(verbs)
                for j in range(3)]  # fmt: skip
    about_one = [f"{v} left handed layout{tails[i % 3]}" for i, v in enumerate(verbs[:5])]
    verbless = [f"{lang} version of the onboarding copy"
                for lang in ("French", "Spanish", "German", "Korean")]  # fmt: skip
    kind = [f"write the release notes for version 2.{i}" for i in range(6)]
    labels = _labels(bare + one_offs + about_one + verbless + kind).tolist()
    start = len(bare) + len(one_offs)
    assert max(Counter(labels[start : start + len(about_one)]).values()) < 3
    start += len(about_one)
    assert len(set(labels[start : start + len(verbless)])) == 1
    assert len(set(labels[-len(kind) :])) == 1


def test_a_cluster_that_agrees_on_nothing_is_dissolved_into_its_rows_in_order() -> None:
    # label 0: twelve rows, each led by a different word (no lead word reaches
    # ``action_share``), interleaved with label 1, whose rows all lead with "rename"
    labels = np.array([0, 1] * 12, dtype=np.int64)
    leads = [f"verb{i}" if i % 2 == 0 else "rename" for i in range(24)]
    out = agree_on_action(labels, leads, [True] * 24, np.ones(24, dtype=np.int64),
                          ClusterParams(action_share=0.5))  # fmt: skip
    kept, gone = out[1::2], out[0::2]
    assert len(set(kept.tolist())) == 1  # the agreeing cluster stays whole
    assert len(set(gone.tolist())) == 12  # each row of the other on its own ...
    assert np.all(np.diff(gone) > 0) and gone.min() > kept.max()  # ... numbered in row order
