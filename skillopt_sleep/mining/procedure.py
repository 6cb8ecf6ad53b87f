"""Clusters by what was done: groups that followed one procedure join, others must agree.

The words group requests first (``cluster``); what the agent did (``fingerprint``, as the
unit-length rows ``Vectors.done``) then works on those groups, never on single requests:

* A group *follows a procedure* when most of its requests did informative work
  (``coverage``) and what they did is alike: the average pairwise similarity of their
  fingerprints (``coherence``) is at least ``procedure``. A kind of work asked four ways
  ("write the commit message for the staged changes" / "sum up my pending edits so I can
  record them") is four such groups that did the same: ``git diff --staged``, then
  ``git commit -m``. One-offs in one area of work use that area's tools (``terraform
  plan``, the docs folder) but not one procedure; a group of them is not coherent.
* Groups that follow a procedure join by average linkage on what they did, at
  ``tool_merge``; a small group (fewer than ``min_core`` requests, so its fingerprint
  says little about a procedure) attaches to the joined group whose work it resembles
  on average, at ``tool_attach``.

Only groups join, so one-offs never chain into a kind through the commands everybody
runs: a one-off joins a kind only when its work is close to what the kind's requests
did on average.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from skillopt_sleep.mining.linkage import best_match, tight

WORKED = 0.5  # a group worked when this share of its requests did informative work


@dataclass(frozen=True)
class Profile:
    """Per group: the sum of its requests' fingerprint rows (repeats counted), how many of
    its requests did informative work, how many it holds, and the average pairwise
    similarity of what they did."""

    sums: sp.csr_matrix
    working: np.ndarray
    requests: np.ndarray
    coherence: np.ndarray

    @property
    def coverage(self) -> np.ndarray:
        return self.working / np.maximum(self.requests, 1)


def profile(done: sp.csr_matrix, labels: np.ndarray) -> Profile:
    """The ``Profile`` of each label of ``labels`` (one per row of ``done``: a request)."""
    k = int(labels.max()) + 1 if len(labels) else 0
    c = np.ones(len(labels))
    onehot = sp.csr_matrix((c, (labels, np.arange(len(labels)))), shape=(k, len(labels)))
    sums = (onehot @ done).tocsr()
    norms = np.asarray(done.multiply(done).sum(axis=1)).ravel()
    working = onehot @ (norms > 0).astype(np.float64)
    requests = np.asarray(onehot.sum(axis=1)).ravel()
    squared = np.asarray(sums.multiply(sums).sum(axis=1)).ravel()
    pairs = working * (working - 1)
    # sum over ordered pairs of different requests: |sum|^2 less each request with itself
    coherence = np.where(pairs > 0, (squared - onehot @ norms) / np.maximum(pairs, 1), 0.0)
    return Profile(sums, working, requests, np.clip(coherence, 0.0, 1.0))


def join(
    done: sp.csr_matrix,
    labels: np.ndarray,
    *,
    procedure: float,
    tool_merge: float,
    tool_attach: float,
    min_core: int,
    hub: int,
    block_size: int,
    seed: int = 0,
) -> np.ndarray:
    """``labels`` (one per request, a row of ``done``) with the groups that follow one
    procedure joined, and the other groups that worked attached to them (see the module's
    docstring)."""
    prof = profile(done, labels)
    big = prof.requests >= min_core
    steady = np.flatnonzero((prof.coverage >= WORKED) & big & (prof.coherence >= procedure))
    if len(steady) == 0:
        return labels
    mean_done = sp.diags(1.0 / np.maximum(prof.working, 1)) @ prof.sums
    joined = tight(mean_done[steady].tocsr(), tool_merge, block_size, seed)
    mapping = np.arange(len(big), dtype=np.int64) + len(steady)  # the others keep their own
    mapping[steady] = joined
    small = np.setdiff1d(np.flatnonzero(prof.working > 0), steady)
    n_joined = int(joined.max()) + 1
    members = sp.csr_matrix(
        (prof.working[steady], (joined, np.arange(len(steady)))), shape=(n_joined, len(steady))
    )
    totals = np.asarray(members.sum(axis=1)).ravel()
    hubs = np.flatnonzero(totals >= hub)  # enough requests to show a procedure, not a chance
    if len(small) and len(hubs):
        centres = (sp.diags(1.0 / np.maximum(totals, 1)) @ members @ mean_done[steady]).tocsr()
        best, score = best_match(mean_done[small].tocsr(), centres[hubs])
        ok = score >= tool_attach
        mapping[small[ok]] = hubs[best[ok]]
    return np.unique(mapping[labels], return_inverse=True)[1]


def split(
    done: sp.csr_matrix,
    labels: np.ndarray,
    parts: np.ndarray,
    *,
    procedure: float,
    tool_merge: float,
    min_core: int,
    block_size: int,
    seed: int = 0,
) -> np.ndarray:
    """``labels`` with each cluster whose parts (``parts``: groups nested in the clusters,
    the words' tight groups) follow different procedures cut along them: "pin down the fix
    with a failing case" and "X fails mypy, fix it" share their words, not their work. A
    part that did no procedure of its own goes with the procedure its work is closest to."""
    prof = profile(done, parts)
    steady = (prof.coverage >= WORKED) & (prof.requests >= min_core) & (prof.coherence >= procedure)
    owner = np.zeros(len(prof.requests), dtype=np.int64)
    owner[parts] = labels
    mean_done = (sp.diags(1.0 / np.maximum(prof.working, 1)) @ prof.sums).tocsr()
    out = labels.copy()
    fresh = int(labels.max()) + 1 if len(labels) else 0
    for cluster in np.unique(owner[steady]):
        members = np.flatnonzero(owner == cluster)
        ways = members[steady[members]]
        if len(ways) < 2:
            continue
        way = tight(mean_done[ways], tool_merge, block_size, seed)
        if way.max() == 0:
            continue
        centres = np.vstack(
            [np.asarray(mean_done[ways[way == w]].mean(axis=0)).ravel() for w in np.unique(way)]
        )
        best, _ = best_match(mean_done[members], sp.csr_matrix(centres))
        best[np.isin(members, ways)] = way  # a procedure's own parts stay with it
        for w in range(1, int(way.max()) + 1):
            out[np.isin(parts, members[best == w])] = fresh
            fresh += 1
    return out
