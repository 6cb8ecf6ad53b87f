"""Group normalized intents that ask for the same kind of task.

Vectors come from ``vectors``: their dot product is the *informative* overlap of two
requests (the user's filler, project names and generic verbs count for little).

Clustering is average-linkage agglomerative with a similarity threshold: average linkage
because single linkage chains unrelated one-off requests through shared filler words,
and a threshold rather than a cluster count because nobody knows how many task kinds a
user has. It runs in two stages:

1. *Tight* clusters at ``threshold``. Average linkage needs all pairwise similarities,
   10^10 numbers at 100,000 turns, so above ``block_size`` distinct intents the rows are
   first cut into blocks of similar intents (MiniBatchKMeans on a low-rank projection
   fitted on a sample) and clustered exactly inside each block.
2. *Joins*: paraphrases of one task kind ("draft a commit msg" / "write the commit
   message for the staged diff") often fall below the tight threshold. Tight clusters of
   at least ``min_core`` requests are joined by average linkage at the lower
   ``merge_threshold`` (the dot product of two groups' mean vectors is their average
   pairwise cosine, so this is exact average linkage between groups), and smaller groups
   attach to the joined cluster they resemble at ``attach_threshold``. Only steady cores
   take part in the low-threshold joins, which is what keeps one-off requests from
   chaining into a false "recurring" task.
3. *Agreement on the action*: a cluster whose requests begin with many different verbs
   ("cache the comment", "log the comment", "mock the comment") is one-offs about one
   object, not a task kind; it is dissolved (``agree_on_action``).

Everything is computed on the exact vectors; the projection only chooses blocks.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.cluster import MiniBatchKMeans
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize as l2_normalize

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


def _similarities(x: sp.csr_matrix) -> np.ndarray:
    """Dense cosine matrix of a block; dense columns when the block's vocabulary is small."""
    cols = np.unique(x.indices)
    if len(cols) * x.shape[0] <= 4_000_000:
        dense = x[:, cols].toarray()
        return dense @ dense.T
    return (x @ x.T).toarray()


def _agglomerate(x: sp.csr_matrix, threshold: float) -> np.ndarray:
    """Average-linkage labels (0..k-1) for one block of rows."""
    n = x.shape[0]
    if n == 1:
        return np.zeros(1, dtype=np.int64)
    dist = 1.0 - np.clip(_similarities(x), 0.0, 1.0)
    np.fill_diagonal(dist, 0.0)
    tree = linkage(squareform(dist, checks=False).astype(np.float64), method="average")
    return fcluster(tree, t=1.0 - threshold, criterion="distance").astype(np.int64) - 1


def _blocks(z: np.ndarray, block_size: int, seed: int) -> list[np.ndarray]:
    """Index sets of at most ``block_size`` rows each, grouping rows close in ``z``."""
    todo = [np.arange(z.shape[0])]
    done: list[np.ndarray] = []
    while todo:
        idx = todo.pop()
        if len(idx) <= block_size:
            done.append(idx)
            continue
        k = max(2, math.ceil(2 * len(idx) / block_size))
        # Centres from a sample: blocks only need to keep neighbours together, and fitting
        # on every row cost more than all the exact clustering inside the blocks.
        rng = np.random.default_rng(seed)
        sample = idx if len(idx) <= 20 * k else rng.choice(idx, size=20 * k, replace=False)
        km = MiniBatchKMeans(
            n_clusters=k, random_state=seed, n_init=1, batch_size=2048, max_iter=10
        ).fit(z[sample])
        labels = km.predict(z[idx])
        parts = [idx[labels == c] for c in range(k) if np.any(labels == c)]
        if len(parts) == 1:  # identical points: split arbitrarily rather than loop
            parts = np.array_split(idx, k)
        todo.extend(parts)
    return done


def _means(x: sp.csr_matrix, labels: np.ndarray, k: int) -> sp.csr_matrix:
    """Row ``c`` = mean of the rows labelled ``c``; dot products of means are average
    pairwise cosines, i.e. the average-linkage similarity of two groups."""
    onehot = sp.csr_matrix(
        (np.ones(len(labels), dtype=np.float32), (labels, np.arange(len(labels)))),
        shape=(k, len(labels)),
    )
    counts = np.asarray(onehot.sum(axis=1)).ravel()
    return (sp.diags(1.0 / counts).astype(np.float32) @ onehot @ x).tocsr()


PRUNE_KEEP = 1024


def _prune(m: sp.csr_matrix, keep: int = PRUNE_KEEP) -> sp.csr_matrix:
    """Keep each row's ``keep`` largest entries. A mean of many rows has thousands of tiny
    n-gram weights that cost far more in products than they change any similarity."""
    m = m.tocsr()
    rows, cols, vals = [], [], []
    for i in range(m.shape[0]):
        a, b = m.indptr[i], m.indptr[i + 1]
        data, idx = m.data[a:b], m.indices[a:b]
        if len(data) > keep:
            top = np.argpartition(-data, keep - 1)[:keep]
            data, idx = data[top], idx[top]
        rows.append(np.full(len(data), i))
        cols.append(idx)
        vals.append(data)
    if not rows:
        return m
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=m.shape
    )


def _tight(x: sp.csr_matrix, threshold: float, params: ClusterParams) -> np.ndarray:
    """Average-linkage labels at ``threshold``: exact below ``block_size`` rows, per block
    of neighbouring rows above it."""
    n = x.shape[0]
    if n <= params.block_size:
        return _agglomerate(x, threshold)
    # The projection only decides which rows share a block, so it is fitted on a sample:
    # a full randomized SVD of 100,000 rows costs more than all the exact work after it.
    comps = min(48, x.shape[1] - 1, n - 1)
    rng = np.random.default_rng(params.seed)
    sample = x[rng.choice(n, size=min(n, 12_000), replace=False)]
    svd = TruncatedSVD(n_components=comps, n_iter=3, random_state=params.seed).fit(sample)
    z = l2_normalize(svd.transform(x)).astype(np.float32)
    labels = np.empty(n, dtype=np.int64)
    offset = 0
    for idx in _blocks(z, params.block_size, params.seed):
        local = _agglomerate(x[idx], threshold)
        labels[idx] = local + offset
        offset += int(local.max()) + 1
    return labels


def _best_match(a: sp.csr_matrix, b: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``a``: index of the row of ``b`` with the largest dot product, and it."""
    best = np.zeros(a.shape[0], dtype=np.int64)
    score = np.zeros(a.shape[0], dtype=np.float32)
    bt = b.T.tocsc()
    for start in range(0, a.shape[0], 4096):
        sims = (a[start : start + 4096] @ bt).toarray()
        best[start : start + 4096] = sims.argmax(axis=1)
        score[start : start + 4096] = sims.max(axis=1)
    return best, score


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
    means = _prune(_means(x, labels, k))
    # Joins are few and global: a larger exact block than the first pass, so one kind's
    # cores are not cut apart again by the blocking.
    wide = ClusterParams(**{**params.__dict__, "block_size": max(params.block_size, 6000)})
    core_group = _tight(means[cores], params.merge_threshold, wide)
    mapping = np.full(k, -1, dtype=np.int64)
    mapping[cores] = core_group
    n_groups = int(core_group.max()) + 1
    rest = np.flatnonzero(sizes < params.min_core)
    if len(rest):
        member_group = mapping[labels]
        in_core = member_group >= 0
        group_means = _prune(_means(x[in_core], member_group[in_core], n_groups))
        best, score = _best_match(means[rest], group_means)
        ok = score >= params.attach_threshold
        mapping[rest[ok]] = best[ok]
        lone = rest[~ok]
        mapping[lone] = n_groups + np.arange(len(lone))
    return mapping[labels]


def cluster_vectors(x: sp.csr_matrix, params: ClusterParams) -> np.ndarray:
    """Cluster labels (0..k-1, dense) for the rows of ``x``."""
    if x.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    labels = _consolidate(x, _tight(x, params.threshold, params), params)
    return np.unique(labels, return_inverse=True)[1]


def cluster_texts(texts: list[str], params: ClusterParams | None = None) -> np.ndarray:
    """Cluster labels for normalized intents; identical texts always share a label."""
    params = params or ClusterParams()
    if not texts:
        return np.zeros(0, dtype=np.int64)
    uniq, inverse, counts = np.unique(
        np.asarray(texts, dtype=object), return_inverse=True, return_counts=True
    )
    vec = build(list(uniq), counts)
    labels = cluster_vectors(vec.matrix, params)
    labels = agree_on_action(labels, vec.leads, vec.acts, counts, params)
    return labels[inverse]


AGREE_MIN_SIZE = 10  # smaller clusters carry too few requests to judge agreement by share
AGREE_SMALL = 3  # a smaller one with this many different actions and none shared is one-offs
SMALL_ACTS = 0.75  # ... when at least this share of its requests lead with an action


def agree_on_action(
    labels: np.ndarray,
    leads: list[str],
    acts: list[bool],
    counts: np.ndarray,
    params: ClusterParams,
) -> np.ndarray:
    """Dissolve clusters whose requests do not agree on what is to be done, as singletons:
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
    for lab, lead, act, c in zip(labels, leads, acts, counts, strict=True):
        per[lab][lead] += int(c)
        if act:
            actions[lab][lead] += int(c)
    out = labels.copy()
    nxt = k
    for lab in range(k):
        total = sum(per[lab].values())
        asks = actions[lab]
        dissolve = False
        if total >= AGREE_MIN_SIZE:
            dissolve = max(per[lab].values()) < params.action_share * total
        elif params.action_share > 0:
            acting = sum(asks.values())
            dissolve = acting >= max(AGREE_SMALL, SMALL_ACTS * total) and max(asks.values()) < 2
        if dissolve:
            idx = np.flatnonzero(labels == lab)
            out[idx] = nxt + np.arange(len(idx))
            nxt += len(idx)
    return np.unique(out, return_inverse=True)[1]
