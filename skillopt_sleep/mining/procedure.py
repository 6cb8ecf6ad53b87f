"""Clusters by what was done: cut where the work differs, join where it is the same.

What the agent did for each request (``fingerprint``, as rows of ``Vectors.done``) works
on the groups the words made (``cluster``), never on single requests on its own:

* A group's *coherence* is the average pairwise similarity of its requests' work, among
  the requests that did informative work (its *coverage*). A kind of work is one
  procedure however it is asked: "write the commit message for the staged changes" and
  "sum up my pending edits so I can record them" both ran ``git diff --staged`` and
  ``git commit -m``. One-offs in one area of work use that area's tools (``terraform
  plan``, the docs folder) now and then, not one procedure: their coherence is low.
* ``split``: a cluster whose word groups follow different procedures ("pin down the fix
  with a failing case" ran pytest, "X fails mypy, fix it" ran mypy) is cut along them.
* ``join``: groups of ``core`` requests or more that follow one procedure join by average
  linkage on the *direction* of what they did (``_direction``), at ``merge``; any other
  group that worked attaches to the joined group its work points to, if it resembles
  that group's work on average at ``attach`` and the group holds ``hub`` requests or more
  (a group of three that looks coherent may be a chance; it gathers nothing).

Directions, not average similarities, say whether two groups' procedures are one: a kind
whose procedure has variants (the same test run thirty times by a loop, a repeat flag or
a seed option) is only about 0.4 alike within any way of asking it, which the average
similarity cannot tell from one-offs sharing an area's tools; relative to each group's
own coherence, its ways of asking are one (direction 0.95-1.0) and another kind with the
same tools is not (0.6-0.7).

Only groups take part, so one-offs never chain into a kind through the commands everybody
runs.
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


def _steady(prof: Profile, coherent: float, core: int) -> np.ndarray:
    """Which groups follow one procedure: ``core`` requests, most of them worked, alike."""
    return (prof.coverage >= WORKED) & (prof.requests >= core) & (prof.coherence >= coherent)


def _mean_done(prof: Profile) -> sp.csr_matrix:
    """Per group, the average of its working requests' rows: the dot product of two is the
    average similarity of the groups' work."""
    return (sp.diags(1.0 / np.maximum(prof.working, 1)) @ prof.sums).tocsr()


def _direction(prof: Profile) -> sp.csr_matrix:
    """Per group, the direction of its work (its mean row at length 1): the dot product of
    two is how alike the groups' work is *as each group's own requests are alike*. A kind
    whose procedure has variants ("run the test thirty times" as a loop, a repeat flag or
    a seed option) is as alike to itself as to another way of asking it (0.37 both), and
    less alike to another kind with the same tools (0.25): relative to the groups' own
    coherence, the two read 1.0 and 0.65 where the average similarity reads 0.37 and 0.25.
    A small group's own row weighs in its mean, so its direction is nearer none: cautious."""
    sums = prof.sums.tocsr()
    norms = np.sqrt(np.asarray(sums.multiply(sums).sum(axis=1)).ravel())
    return (sp.diags(1.0 / np.maximum(norms, 1e-12)) @ sums).tocsr()


def join(
    done: sp.csr_matrix,
    labels: np.ndarray,
    *,
    coherent: float,
    core: int,
    merge: float,
    attach: float,
    hub: int,
    block_size: int,
    seed: int = 0,
) -> np.ndarray:
    """``labels`` (one per request, a row of ``done``) with the groups that follow one
    procedure joined, and the other groups that worked attached to them (see the module's
    docstring)."""
    prof = profile(done, labels)
    steady = np.flatnonzero(_steady(prof, coherent, core))
    if len(steady) == 0:
        return labels
    mean_done = _mean_done(prof)
    joined = tight(_direction(prof)[steady], merge, block_size, seed)
    mapping = np.arange(len(prof.requests), dtype=np.int64) + len(steady)  # others: their own
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
        centres = centres[hubs]
        size = np.sqrt(np.asarray(centres.multiply(centres).sum(axis=1)).ravel()) + 1e-12
        # the hub its work points to (a varied kind's centre is short, not far), if it
        # resembles that hub's work on average at ``attach``
        best, toward = best_match(mean_done[small], sp.diags(1.0 / size) @ centres)
        ok = toward * size[best] >= attach
        mapping[small[ok]] = hubs[best[ok]]
    return np.unique(mapping[labels], return_inverse=True)[1]


def split(
    done: sp.csr_matrix,
    labels: np.ndarray,
    parts: np.ndarray,
    *,
    coherent: float,
    core: int,
    merge: float,
    block_size: int,
    seed: int = 0,
) -> np.ndarray:
    """``labels`` with each cluster whose parts (``parts``: groups nested in the clusters,
    the words' tight groups) follow different procedures cut along them: "pin down the fix
    with a failing case" and "X fails mypy, fix it" share their words, not their work. A
    part that did no procedure of its own goes with the procedure its work is closest to."""
    prof = profile(done, parts)
    steady = _steady(prof, coherent, core)
    owner = np.zeros(len(prof.requests), dtype=np.int64)
    owner[parts] = labels
    mean_done, direction = _mean_done(prof), _direction(prof)
    out = labels.copy()
    fresh = int(labels.max()) + 1 if len(labels) else 0
    for cluster in np.unique(owner[steady]):
        members = np.flatnonzero(owner == cluster)
        ways = members[steady[members]]
        if len(ways) < 2:
            continue
        way = tight(direction[ways], merge, block_size, seed)
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
