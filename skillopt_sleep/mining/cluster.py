"""Group the requests that ask for the same kind of task.

Vectors come from ``vectors``: their dot product is the *informative* overlap of two
requests (the user's filler, project names and generic verbs count for little), and, where
the logs show what the agent did, each request's fingerprint (``fingerprint``), weighted
the same way (``ls``, ``git status`` count for nothing).

Clustering is average-linkage agglomerative with a similarity threshold: average linkage
because single linkage chains unrelated one-off requests through shared filler words,
and a threshold rather than a cluster count because nobody knows how many task kinds a
user has. Average linkage needs all pairwise similarities, 10^10 numbers at 100,000
turns, so above ``block_size`` rows they are cut into blocks first (``linkage``). Stages:

1. *Tight* groups on the words at ``threshold``: one way of asking.
2. *Joins*: paraphrases of one task kind ("draft a commit msg" / "write the commit
   message for the staged diff") often fall below the tight threshold. Groups of at
   least ``min_core`` requests are joined by average linkage at the lower
   ``merge_threshold`` on what was said and done, and smaller groups attach to the
   joined cluster they resemble at ``attach_threshold``. Only steady groups take part in
   the low-threshold joins, which keeps one-off requests from chaining into a false
   "recurring" task.
3. *The work* (``procedure``): a cluster whose word groups followed different procedures
   is cut along them.
4. *Agreement* (``agree_on_action``): a cluster that agrees neither on what it asks nor,
   where its requests made the agent work, on that work is one-offs ("rewrite / shorten
   / translate the expense policy"); it is dissolved.
5. *Joins by the work* (``procedure``): groups that followed one procedure join by it,
   however differently they were asked, and other groups that worked attach to them.

Identical texts always end in one cluster; the skill a request invoked is used after
clustering (``skills``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from skillopt_sleep.mining import procedure
from skillopt_sleep.mining.linkage import best_match, prune, tight
from skillopt_sleep.mining.linkage import means as group_means
from skillopt_sleep.mining.vectors import build


@dataclass(frozen=True)
class ClusterParams:
    threshold: float = 0.45  # average informative overlap for a tight cluster (first pass)
    merge_threshold: float = 0.15  # average overlap joining paraphrase clusters of one kind
    attach_threshold: float = 0.25  # average overlap for a small group to join a kind
    min_core: int = 3  # requests a tight cluster needs before it may join others
    # A kind of 10+ requests is kept only when this share of them begin with the same
    # lead word (the action): one-offs about one object with different verbs are not a kind.
    action_share: float = 0.12
    block_size: int = 1500  # largest group clustered exactly in one pass
    seed: int = 0
    # Where the requests' work is known (``procedure``; coherence is the average pairwise
    # similarity of a group's work). A cluster that worked agrees on its work at
    # ``agree_work`` (with ``join_core`` working requests or more: three alike may be a
    # chance), or on its ask: one lead word starts ``lead_agree`` of it and its requests
    # are worded alike (average pairwise overlap ``words_agree``).
    agree_work: float = 0.5
    lead_agree: float = 0.6
    words_agree: float = 0.5
    # Groups of ``join_core``+ requests and coherence ``join_work`` join when the
    # directions of their work (``procedure``) are alike at ``work_merge``; other groups
    # that worked attach at ``work_attach`` (average similarity) to the joined group of
    # ``hub_core``+ requests their work points to. Word groups of ``min_core``+ requests and
    # coherence ``agree_work`` whose directions are not alike at ``work_merge`` split a
    # cluster. A kind done several ways is alike at about 0.4 within a group: the floor is
    # low, the direction decides.
    join_work: float = 0.2
    join_core: int = 4
    work_merge: float = 0.75
    work_attach: float = 0.3
    hub_core: int = 6


JOIN_BLOCK = 6000


def _consolidate(x: sp.csr_matrix, labels: np.ndarray, params: ClusterParams) -> np.ndarray:
    """Join tight clusters that are paraphrases of one task kind.

    Only clusters of at least ``min_core`` requests take part in joins among themselves:
    their means are steady, so a low threshold is safe, while joining small groups at
    that threshold would let stray one-off requests chain into a false "recurring" task.
    Small groups then attach to the joined core they resemble on average, if any.
    """
    k = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=k)
    cores = np.flatnonzero(sizes >= params.min_core)
    if len(cores) == 0:
        return labels
    means = prune(group_means(x, labels, k))
    # Joins are few and global: a larger exact block than the first pass, so one kind's
    # cores are not cut apart again by the blocking.
    wide = max(params.block_size, JOIN_BLOCK)
    core_group = tight(means[cores], params.merge_threshold, wide, params.seed)
    mapping = np.full(k, -1, dtype=np.int64)
    mapping[cores] = core_group
    n_groups = int(core_group.max()) + 1
    rest = np.flatnonzero(sizes < params.min_core)
    if len(rest):
        member_group = mapping[labels]
        in_core = member_group >= 0
        joined = prune(group_means(x[in_core], member_group[in_core], n_groups))
        best, score = best_match(means[rest], joined)
        ok = score >= params.attach_threshold
        mapping[rest[ok]] = best[ok]
        lone = rest[~ok]
        mapping[lone] = n_groups + np.arange(len(lone))
    return mapping[labels]


def cluster_vectors(x: sp.csr_matrix, params: ClusterParams) -> np.ndarray:
    """Cluster labels (0..k-1, dense) for the rows of ``x``: stages 1 and 2 on ``x``."""
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    labels = tight(x, params.threshold, params.block_size, params.seed)
    labels = _consolidate(x, labels, params)
    return np.unique(labels, return_inverse=True)[1]


def cluster_texts(
    texts: list[str],
    params: ClusterParams | None = None,
    prints: Sequence[Iterable[str]] | None = None,
) -> np.ndarray:
    """Cluster labels for normalized intents and, when given, each request's fingerprint
    units (``fingerprint``); identical texts always share a label.

    On one BLAS / OpenMP thread: on two cores shared with other work the second thread
    mostly waited (clustering at 20,000 sessions 5.7 -> 3.3 CPU seconds, labels the same),
    and the labels do not hang on how a machine's threads split the sums."""
    with threadpool_limits(limits=1):
        return _cluster_texts(texts, params or ClusterParams(), prints)


def _cluster_texts(
    texts: list[str], params: ClusterParams, prints: Sequence[Iterable[str]] | None
) -> np.ndarray:
    if not texts:
        return np.zeros(0, dtype=np.int64)
    uniq, inverse, counts = np.unique(
        np.asarray(texts, dtype=object), return_inverse=True, return_counts=True
    )
    if prints is None:
        vec = build(list(uniq), counts)
        labels = cluster_vectors(vec.matrix, params)
        return agree_on_action(labels, vec.leads, vec.acts, counts, params)[inverse]
    shares: list[Counter[str]] = [Counter() for _ in range(len(uniq))]
    for row, fp in zip(inverse, prints, strict=True):
        shares[row].update(set(fp))
    did_share = [{u: n / c for u, n in d.items()} for d, c in zip(shares, counts, strict=True)]
    vec = build(list(uniq), counts, prints=did_share)
    assert vec.both is not None  # built with prints
    done = vec.done(prints)  # one row per request: the same text may have had other work
    wide = max(params.block_size, JOIN_BLOCK)
    parts = tight(vec.matrix, params.threshold, params.block_size, params.seed)
    labels = _consolidate(vec.both, parts, params)
    labels = procedure.split(
        done, labels[inverse], parts[inverse], coherent=params.agree_work,
        core=params.min_core, merge=params.work_merge, block_size=wide, seed=params.seed,
    )[np.unique(inverse, return_index=True)[1]]  # fmt: skip
    labels = np.unique(labels, return_inverse=True)[1]
    did = procedure.profile(done, labels[inverse])
    said = procedure.profile(vec.matrix[inverse], labels[inverse])
    labels = agree_on_action(
        labels, vec.leads, vec.acts, counts, params, did.coverage >= procedure.WORKED,
        (did.coherence >= params.agree_work) & (did.working >= params.join_core),
        said.coherence >= params.words_agree,
    )  # fmt: skip
    joined = procedure.join(
        done, labels[inverse], coherent=params.join_work, core=params.join_core,
        merge=params.work_merge, attach=params.work_attach, hub=params.hub_core,
        block_size=wide, seed=params.seed,
    )  # fmt: skip
    labels[inverse] = joined  # groups move whole, so a text keeps one label
    return np.unique(labels, return_inverse=True)[1][inverse]


AGREE_MIN_SIZE = 10  # smaller clusters carry too few requests to judge agreement by share
AGREE_SMALL = 3  # a smaller one with this many different actions and none shared is one-offs
SMALL_ACTS = 0.75  # ... when at least this share of its requests lead with an action


def agree_on_action(
    labels: np.ndarray,
    leads: list[str],
    acts: list[bool],
    counts: np.ndarray,
    params: ClusterParams,
    worked: np.ndarray | None = None,
    follows: np.ndarray | None = None,
    alike: np.ndarray | None = None,
) -> np.ndarray:
    """Dissolve clusters whose requests do not agree on what is to be done, as singletons.

    Where most of a cluster's requests made the agent work (``worked``, per label), it must
    agree on that work (``follows``: what they did is alike, see ``procedure``) or, short of
    that, on what is asked: its most common lead word starts ``lead_agree`` of its requests
    and they are worded alike (``alike``). "Rewrite / shorten / translate the expense
    policy" names one object but neither asks one thing nor makes the agent do one thing;
    "hide the pager / the tooltips / the price tags" asks one thing of different objects
    with different work: one-offs.

    Otherwise, by the words alone:
    one of ``AGREE_MIN_SIZE`` requests or more whose most common lead word starts fewer
    than ``action_share`` of them, and a smaller one in which ``AGREE_SMALL`` or more
    requests, and ``SMALL_ACTS`` of all, lead with an action and no two with the same
    ("revert / benchmark / price left handed layout": one object, different asks). A small
    kind asked without a verb ("French / Spanish version of the onboarding copy") leads
    with no action, and stays; so does one whose verb the corpus cannot tell from filler
    ("hey, make X faster" / "small thing: make Y faster"). ``action_share`` 0: no check."""
    k = int(labels.max()) + 1 if len(labels) else 0
    per: list[Counter[str]] = [Counter() for _ in range(k)]
    actions: list[Counter[str]] = [Counter() for _ in range(k)]
    # over Python lists: a loop over numpy scalars cost most of this at 100,000 sessions
    rows = zip(labels.tolist(), leads, acts, np.asarray(counts).tolist(), strict=True)
    for lab, lead, act, c in rows:
        per[lab][lead] += int(c)
        if act:
            actions[lab][lead] += int(c)
    out = labels.copy()
    nxt = k
    worked_of = [False] * k if worked is None else worked.tolist()
    follows_of = None if follows is None else follows.tolist()
    alike_of = None if alike is None else alike.tolist()
    # each label's rows, in order: one pass, not a scan of every row per dissolved label
    rows_of = np.split(
        np.argsort(labels, kind="stable"), np.cumsum(np.bincount(labels, minlength=k))[:-1]
    )
    for lab in range(k):
        total = sum(per[lab].values())
        asks = actions[lab]
        dissolve = False
        if worked_of[lab] and follows_of is not None and alike_of is not None:
            asked = max(per[lab].values()) >= params.lead_agree * total and alike_of[lab]
            dissolve = not (follows_of[lab] or asked)
        elif total >= AGREE_MIN_SIZE:
            dissolve = max(per[lab].values()) < params.action_share * total
        elif params.action_share > 0:
            acting = sum(asks.values())
            dissolve = acting >= max(AGREE_SMALL, SMALL_ACTS * total) and max(asks.values()) < 2
        if dissolve:
            idx = rows_of[lab]
            out[idx] = nxt + np.arange(len(idx))
            nxt += len(idx)
    return np.unique(out, return_inverse=True)[1]
