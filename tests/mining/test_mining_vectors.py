"""Vectors: what the corpus shows to be filler or detail counts for little; typos fold."""

from __future__ import annotations

from collections import Counter

from benchmarks.requests.tuning import HABIT_PREFIXES, HABIT_SUFFIXES, corpus
from skillopt_sleep.mining.intents import intent
from skillopt_sleep.mining.vectors import build, filler_words, lead_words, open_words
from skillopt_sleep.mining.words import content_words, stem, typo_map


def _weights(n: int) -> dict[str, float]:
    norms = [intent(r.text)[1] for r in corpus(n, habit_rate=0.3, zipf=True, hard=True)]
    counts = Counter(norms)
    v = build(list(counts), list(counts.values()))
    return dict(zip(v.vocab, v.weight.tolist(), strict=True))


def test_the_users_filler_is_learnt_and_task_words_kept() -> None:
    w = _weights(1500)
    filler = {stem(x) for p in HABIT_PREFIXES + HABIT_SUFFIXES for x in content_words(p)}
    measured = [x for x in filler if x in w]
    assert len(measured) >= 5
    assert all(w[x] < 0.3 for x in measured), {x: w[x] for x in measured}
    top_filler = max(w[x] for x in measured)
    for task_word in ("changelog", "docstr", "migr", "commit", "flaky"):
        assert w[task_word] > max(0.6, 2 * top_filler), (task_word, w[task_word])


def test_typos_fold_into_the_common_word_and_real_words_stay() -> None:
    df = Counter({"changes": 40, "chnages": 1, "staged": 30, "stagde": 2, "tests": 50,
                  "texts": 9})  # fmt: skip
    fold = typo_map(df)
    assert fold == {"chnages": "changes", "stagde": "staged"}  # "texts" is seen too often


def test_filler_is_what_requests_are_complete_without() -> None:
    docs = [["btw", "write", "commit", "message"], ["write", "commit", "message"],
            ["btw", "summarize", "log"], ["summarize", "log"], ["btw", "rename", "x"],
            ["cache", "comment"], ["cache", "router"], ["cache", "widget"]]  # fmt: skip
    # "cache the comment" is no request without "cache"
    assert filler_words(docs) == {("btw",)}
    leads = lead_words(docs)
    assert (leads[0], leads[2], leads[5]) == ("write", "summarize", "cache")


def test_a_phrase_followed_by_anything_is_filler_but_a_verb_is_not() -> None:
    docs = [["quick", "idea", v, "dark", "mode"] for v in ("add", "hide", "price", "audit")]
    docs += [["add", x, "test"] for x in ("unit", "smoke", "load", "fuzz")]
    assert filler_words(docs) == {("quick", "idea")}
    assert lead_words(docs)[:4] == ["add", "hide", "price", "audit"]


def test_a_verb_before_a_bare_object_name_is_what_is_asked() -> None:
    """Where object names alone are requests ("left handed layout asap"), dropping a verb
    leaves a request, but not one that begins with an open word: the verb is no filler."""
    objects = [["left", "hand", "layout"], ["file", "preview"], ["gift", "card"]]
    tails = [[], ["asap"], ["admin", "panel"]]
    docs = [o + t for o in objects for t in tails]
    docs += [[v, *o] for v in ("revert", "price", "renam") for o in objects]
    docs += [["hey", "price", "gift", "card"], ["hey", "renam", "file", "preview"],
             ["hey", "revert", "left", "hand", "layout"]]  # fmt: skip
    assert open_words(docs) >= {"revert", "price", "renam", "hey"}
    assert not open_words(docs) & {"left", "file", "gift"}
    assert ("revert",) not in filler_words(docs) and ("price",) not in filler_words(docs)
    assert lead_words(docs)[-3:] == ["price", "renam", "revert"]
