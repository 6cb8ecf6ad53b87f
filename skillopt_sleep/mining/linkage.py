"""Average linkage at scale: the machinery ``cluster`` and ``procedure`` group rows with.

Average linkage needs all pairwise similarities, 10^10 numbers at 100,000 rows, so above
``block_size`` rows the rows are first cut into blocks of similar rows (MiniBatchKMeans on
a low-rank projection fitted on a sample) and clustered exactly inside each block. The
projection only chooses blocks; every similarity is computed on the exact vectors.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.cluster import MiniBatchKMeans
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import normalize as l2_normalize


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


def means(x: sp.csr_matrix, labels: np.ndarray, k: int) -> sp.csr_matrix:
    """Row ``c`` = mean of the rows labelled ``c``; dot products of means are average
    pairwise cosines, i.e. the average-linkage similarity of two groups."""
    onehot = sp.csr_matrix(
        (np.ones(len(labels), dtype=np.float32), (labels, np.arange(len(labels)))),
        shape=(k, len(labels)),
    )
    counts = np.asarray(onehot.sum(axis=1)).ravel()
    return (sp.diags(1.0 / counts).astype(np.float32) @ onehot @ x).tocsr()


PRUNE_KEEP = 1024


def prune(m: sp.csr_matrix, keep: int = PRUNE_KEEP) -> sp.csr_matrix:
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


def tight(x: sp.csr_matrix, threshold: float, block_size: int, seed: int = 0) -> np.ndarray:
    """Average-linkage labels at ``threshold``: exact below ``block_size`` rows, per block
    of neighbouring rows above it."""
    n = x.shape[0]
    if n <= block_size:
        return _agglomerate(x, threshold)
    # The projection only decides which rows share a block, so it is fitted on a sample:
    # a full randomized SVD of 100,000 rows costs more than all the exact work after it.
    comps = min(48, x.shape[1] - 1, n - 1)
    rng = np.random.default_rng(seed)
    sample = x[rng.choice(n, size=min(n, 12_000), replace=False)]
    svd = TruncatedSVD(n_components=comps, n_iter=3, random_state=seed).fit(sample)
    z = l2_normalize(svd.transform(x)).astype(np.float32)
    labels = np.empty(n, dtype=np.int64)
    offset = 0
    for idx in _blocks(z, block_size, seed):
        local = _agglomerate(x[idx], threshold)
        labels[idx] = local + offset
        offset += int(local.max()) + 1
    return labels


def best_match(a: sp.csr_matrix, b: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``a``: index of the row of ``b`` with the largest dot product, and it."""
    best = np.zeros(a.shape[0], dtype=np.int64)
    score = np.zeros(a.shape[0], dtype=np.float32)
    bt = b.T.tocsc()
    for start in range(0, a.shape[0], 4096):
        sims = (a[start : start + 4096] @ bt).toarray()
        best[start : start + 4096] = sims.argmax(axis=1)
        score[start : start + 4096] = sims.max(axis=1)
    return best, score
