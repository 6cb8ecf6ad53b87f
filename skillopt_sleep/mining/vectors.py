"""Request vectors whose overlap means "asks for the same thing", learnt from the corpus.

Plain TF-IDF lets any shared word make two requests alike; on real logs the shared words
are most often not the task: the user's own filler ("quick idea: …", "… in the admin
panel"), the names of their projects ("habit-tracker"), the feature a one-off is about,
or a generic verb. What those words have in common is that the rest of the requests they
appear in is unrelated: they are said around *every* kind of task. The words that name a
task ("changelog", "dockerfile", "release notes") come with requests that are alike.

So every unit (a content word, or a collocation such as ``release_notes``) gets an
*informativeness* in [0, 1]: the average similarity of the requests containing it once the
unit itself (and the words that always come with it) are taken out, compared with the
corpus' average similarity of two random requests. Vectors are (sublinear) term counts
scaled by the square root of it and divided by the *plain* count norm, so the dot product
of two rows is the share of their words that are shared *and* informative: two one-offs
that share only a project name and filler score near zero, however short they are.

There is no inverse document frequency: it weighs a word down for being common, and the
words a recurring task is asked in ("regression test", "commit message") are common
*because* the task recurs. With IDF, a kind asked in several phrasings that share only
those words ("add a regression test covering the crash in …" / "write a regression test
that reproduces issue …") was split into one cluster per phrasing; informativeness already
does what IDF was a proxy for (it sends filler and generic verbs to 0).

Typos are folded into the frequent word they are one edit from ("chnages" → "changes");
character n-grams are not used: they made "habit-tracker" meet "flight-tracker".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from skillopt_sleep.mining.words import content_words, stem, typo_map


@dataclass(frozen=True)
class VectorParams:
    min_df: int = 3  # requests a unit needs before its informativeness is measured
    prior: float = 0.5  # informativeness of a unit seen too rarely to measure
    # informativeness 1 when requests holding a unit are this much more alike among
    # themselves (average cosine of the rest of their words) than to the other requests
    full_lift: float = 0.25
    collocation_share: float = 0.6  # each word of a pair in this share of the other's uses
    rare_in_norm: float = 0.5  # share of a rarely seen unit's weight that counts in the norm
    rounds: int = 1  # re-measure with the first round's weights (filler inflates round 1)
    tool_evidence: float = 5.0  # requests at which a fingerprint unit's measure counts half


def _collocations(
    docs: Sequence[list[str]], share: float, min_df: int
) -> tuple[set[tuple[str, str]], dict[str, set[str]]]:
    """Adjacent word pairs that mostly occur together ("release notes", "admin panel"), and
    each word's phrase-mates: the neighbour it has in that share of its uses, even when
    that neighbour has other partners ("ical" -> "export", though "export" also follows
    "csv")."""
    uni: Counter[str] = Counter()
    bi: Counter[tuple[str, str]] = Counter()
    for words in docs:
        uni.update(set(words))
        bi.update(set(zip(words, words[1:], strict=False)))
    pairs: set[tuple[str, str]] = set()
    mates: dict[str, set[str]] = {}
    for (a, b), n in bi.items():
        if n < min_df or a == b:
            continue
        if n >= share * uni[a]:
            mates.setdefault(a, set()).add(b)
        if n >= share * uni[b]:
            mates.setdefault(b, set()).add(a)
        if n >= share * uni[a] and n >= share * uni[b]:
            pairs.add((a, b))
    return pairs, mates


def units(docs_words: Sequence[list[str]], pairs: set[tuple[str, str]]) -> list[list[str]]:
    """Each request's units: its words plus ``a_b`` for each collocation it contains."""
    out = []
    for words in docs_words:
        extra = [f"{a}_{b}" for a, b in zip(words, words[1:], strict=False) if (a, b) in pairs]
        out.append(words + extra)
    return out


def _counts(docs: Sequence[list[str]]) -> tuple[sp.csr_matrix, list[str]]:
    """Sublinear term counts (1 + log tf, not normalized) and the vocabulary."""
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, toks in enumerate(docs):
        for tok, c in Counter(toks).items():
            rows.append(i)
            cols.append(vocab.setdefault(tok, len(vocab)))
            vals.append(1.0 + math.log(c))
    x = sp.csr_matrix((np.asarray(vals, np.float32), (rows, cols)), shape=(len(docs), len(vocab)))
    return x, list(vocab)


def _row_normalize(x: sp.csr_matrix, norms: np.ndarray) -> sp.csr_matrix:
    return (sp.diags((1.0 / np.maximum(norms, 1e-12)).astype(np.float32)) @ x).tocsr()


def informativeness(
    x: sp.csr_matrix,
    b: sp.csr_matrix,
    counts: np.ndarray,
    partners: list[np.ndarray],
    params: VectorParams,
    only: range | None = None,
    held: sp.csr_matrix | None = None,
) -> np.ndarray:
    """Per unit: how much more alike the requests holding it are to each other than to the
    requests without it.

    ``x`` rows are request vectors (norm <= 1), ``b`` which units each request holds (0/1),
    ``counts`` how often each request occurs, ``held`` (when not all of a row's requests
    hold its units: a text's fingerprint) the share of them that do. ``only``: the units to
    measure (the others get ``prior``). For a unit
    w the requests D_w holding it are compared on everything *but* w and ``partners[w]``
    (its phrase-mates and collocations, or a collocation's own words), so a project name
    or a feature ("ical export") does not look coherent only because its words come
    together.
    """
    n_units = x.shape[1]
    units = np.arange(n_units) if only is None else np.asarray(only, dtype=np.int64)
    held = b if held is None else held
    w = sp.diags(counts.astype(np.float32))
    total = float(counts.sum())
    summed = np.asarray((w @ x).sum(axis=0)).ravel().astype(np.float64)
    sq_all = float((np.asarray(x.multiply(x).sum(axis=1)).ravel() * counts).sum())
    # requests that are nothing but the unit and its partners ("show tools" for "show"):
    # repeats of one request, alike by definition once the unit is taken out
    mine = [partners[u] for u in units]
    member = sp.csr_matrix(
        (
            np.ones(sum(len(p) for p in mine), dtype=np.float32),
            np.concatenate(mine) if mine else np.zeros(0, np.int32),
            np.cumsum([0] + [len(p) for p in mine]),
        ),
        shape=(len(units), b.shape[1]),
    )
    n_of = np.asarray(b.sum(axis=1)).ravel()
    bare = np.zeros(len(units))  # per unit: such requests, with repeats
    b_units = b[:, units].tocsr()
    for r0 in range(0, b.shape[0], BARE_ROWS):  # a common unit is a partner of many units
        rows = slice(r0, r0 + BARE_ROWS)
        inside = (b[rows] @ member.T).tocsr()  # request x unit: how many of its units are mates
        owner = np.repeat(np.arange(inside.shape[0]), np.diff(inside.indptr)) + r0
        inside.data = (inside.data >= n_of[owner]).astype(np.float32)
        inside = inside.multiply(b_units[rows]).tocsr()  # only units the request holds
        bare += np.asarray(inside.T @ counts[rows]).ravel()
    held = held[:, units] if only is not None else held
    df = np.asarray((w @ held).sum(axis=0)).ravel()  # requests (with repeats) holding a unit
    bt_all = (held.T @ w).tocsr()  # units x requests, weighted by repeats
    out = np.full(n_units, params.prior, dtype=np.float64)
    # Units in chunks of at most ``MEASURE_CHUNK`` requests held: the requests holding a
    # command every request runs cover the whole vocabulary; all units' sums at once would
    # hold it hundreds of times.
    held_by = np.diff(bt_all.indptr)
    start = 0
    while start < len(units):
        end = start + 1 + int(np.searchsorted(np.cumsum(held_by[start + 1 :]), MEASURE_CHUNK))
        bt = bt_all[start:end]
        s = (bt @ x).tocsr()  # unit -> sum of the vectors of the requests holding it
        q = (bt @ x.multiply(x)).tocsr()  # unit -> sum of squared entries of those vectors
        for i in range(start, end):
            _measure(i, units[i], s, q, start, partners, df, bare, params, out,
                     (total, summed, sq_all))  # fmt: skip
        start = end
    return out


MEASURE_CHUNK = 200_000  # requests held by the units measured together
BARE_ROWS = 8192  # requests checked together for being nothing but a unit and its mates


def _measure(
    i: int,
    u: int,
    s: sp.csr_matrix,
    q: sp.csr_matrix,
    start: int,
    partners: list[np.ndarray],
    df: np.ndarray,
    bare: np.ndarray,
    params: VectorParams,
    out: np.ndarray,
    corpus: tuple[float, np.ndarray, float],
) -> None:
    """Unit ``u`` (the ``i``-th measured; its sums are row ``i - start`` of ``s``, ``q``)."""
    total, summed, sq_all = corpus
    d = df[i]
    if d < params.min_df:
        return
    row = i - start
    sa, se = s.indptr[row], s.indptr[row + 1]
    cols, vals = s.indices[sa:se], s.data[sa:se].astype(np.float64)
    keep = ~np.isin(cols, partners[u])
    qa, qe = q.indptr[row], q.indptr[row + 1]
    qkeep = ~np.isin(q.indices[qa:qe], partners[u])
    self_terms = float(q.data[qa:qe][qkeep].sum())  # sum over D_w of |remainder|^2
    e = float(bare[i])
    if e >= d - 0.5 and e < 2:
        return  # nothing to compare
    r = vals[keep]
    pairs = e * (e - 1)
    if self_terms > 1e-6 * d and d - e >= 1:
        pairs += (float(r @ r) - self_terms) / (self_terms / (d - e))
    within = pairs / (d * (d - 1))
    rest = total - d
    between = 0.0
    if rest >= 1 and self_terms > 1e-6 * d:
        others = summed[cols[keep]] - r  # the other requests, on the same columns
        # the other requests' share of squares, over all columns
        sq_rest = max(sq_all - float(q.data[qa:qe].sum()), 1e-9)
        ne = max(d - e, 1.0)
        between = float(r @ others) / (d * rest) / math.sqrt(self_terms / ne * sq_rest / rest)
    lift = (within - max(between, 0.0)) / params.full_lift
    out[u] = float(np.clip(lift, 0.0, 1.0))


def filler_words(
    docs: Sequence[list[str]],
    min_count: int = 3,
    share: float = 0.25,
    longest: int = 3,
    diverse: float = 0.75,
    opens: set[str] | None = None,
) -> set[tuple[str, ...]]:
    """Phrases of up to ``longest`` words the user puts in front of requests that are
    complete without them ("btw", "quick idea"): at least ``share`` of the requests they
    begin are another request once the phrase is dropped, or (for phrases of two words or
    more) the word after them differs in ``diverse`` of their uses, as nothing but filler
    is followed by anything at all. A verb is seldom such a phrase: "cache the comment" is
    no request without "cache", and where a bare object name is a request ("left handed
    layout"), what is left begins with no open word (``open_words``) and does not count;
    one word is never filler by diversity alone ("add" is followed by anything too).
    ``opens``: ``open_words(docs)``, when the caller has it."""
    have = {" ".join(ws) for ws in docs}
    opens = open_words(docs) if opens is None else opens
    first: Counter[tuple[str, ...]] = Counter()
    removable: Counter[tuple[str, ...]] = Counter()
    after: dict[tuple[str, ...], set[str]] = {}
    for ws in docs:
        for k in range(1, min(longest, len(ws) - 1) + 1):
            first[tuple(ws[:k])] += 1
            removable[tuple(ws[:k])] += ws[k] in opens and " ".join(ws[k:]) in have
            after.setdefault(tuple(ws[:k]), set()).add(ws[k])
    return {
        p
        for p, n in first.items()
        if n >= min_count
        and (removable[p] >= share * n or (len(p) >= 2 and len(after[p]) >= diverse * n))
    }


def open_words(
    docs: Sequence[list[str]],
    diverse: float = 0.75,
    min_endings: int = 1,
    counts: Mapping[str, tuple[int, int]] | None = None,
) -> set[str]:
    """Words followed by a different word in ``diverse`` of the distinct request endings
    they begin (at least ``min_endings`` of them): verbs are ("secure the login", "secure
    the upload"), the first word of an object's name is not ("left handed layout asap",
    "left handed layout in the admin panel"). A word that begins one ending only ("write
    the commit message", with or without the user's "btw") cannot be told apart: it is
    open at ``min_endings`` 1 and not at 2. ``counts``: ``ending_counts(docs)``, when the
    caller has it."""
    counts = ending_counts(docs) if counts is None else counts
    return {w for w, (n, k) in counts.items() if n >= min_endings and k >= diverse * n}


def ending_counts(docs: Sequence[list[str]]) -> dict[str, tuple[int, int]]:
    """Per word, the distinct request endings it begins and the different words that follow
    it in them: what ``open_words`` measures, counted once for its two uses (every ending
    of every request is a set of a hundred thousand tuples at 100,000 sessions)."""
    endings = {tuple(ws[i:]) for ws in docs for i in range(len(ws) - 1)}
    uses: Counter[str] = Counter(e[0] for e in endings)
    after: dict[str, set[str]] = {}
    for e in endings:
        after.setdefault(e[0], set()).add(e[1])
    return {w: (n, len(after[w])) for w, n in uses.items()}


def lead_words(
    docs: Sequence[list[str]], counts: Mapping[str, tuple[int, int]] | None = None
) -> list[str]:
    """What each request asks to be done, as far as one word tells: its first word after
    the user's filler phrases (usually the verb: "write", "summarize", "rename").

    A filler phrase is passed over only when an open word follows it: where bare object
    names are requests too, "revert left handed layout" is "left handed layout" without
    its verb, which makes the verb look like filler; the verb is what is asked.
    ``counts``: ``ending_counts(docs)``, when the caller has it."""
    # a filler phrase's beginning is filler too: "small thing backfill" is filler where
    # "left handed layout" is a request, and "small thing" is what "backfill" follows
    opens = open_words(docs, counts=counts)
    filler = {p[:j] for p in filler_words(docs, opens=opens) for j in range(1, len(p) + 1)}
    longest = max((len(p) for p in filler), default=0)
    out = []
    for ws in docs:
        i = 0
        while i < len(ws):
            k = next(
                (
                    k
                    for k in range(min(longest, len(ws) - i - 1), 0, -1)
                    if tuple(ws[i : i + k]) in filler and ws[i + k] in opens
                ),
                0,
            )
            if not k:
                break
            i += k
        out.append(ws[i] if i < len(ws) else "")
    return out


# A fingerprint row is divided by the square root of its informative mass, but never of
# less than this: a request that did only the commands every request of its area runs
# (each weighing 0.1-0.2) must not look as if it followed a procedure.
DONE_FLOOR = 1.0


@dataclass
class Vectors:
    matrix: sp.csr_matrix  # rows of norm <= 1; dot products are informative overlap
    vocab: list[str]
    weight: np.ndarray  # informativeness per unit
    leads: list[str]  # per row: its lead word (``lead_words``)
    acts: list[bool]  # per row: its lead is open in two endings or more: an action
    n_words: int = 0  # units before this index are words, the rest the fingerprint's
    # With fingerprints: what was said and done, words and units together under one norm
    # (a unit counts in it by its informativeness, so ``git status`` dilutes nothing).
    both: sp.csr_matrix | None = None

    def done(self, prints: Sequence[Iterable[str]]) -> sp.csr_matrix:
        """One row per fingerprint (a request's units): what it did, each unit scaled by
        the square root of its informativeness, divided by the square root of the row's
        informative mass but at least ``DONE_FLOOR``, so the dot product of two rows is
        the share of their work they have in common. Rows are per request, not per text:
        one text asked ten times may have made the agent do ten different things."""
        index = {u: i - self.n_words for i, u in enumerate(self.vocab) if i >= self.n_words}
        scale = np.sqrt(self.weight[self.n_words :]).astype(np.float32)
        rows, cols = [], []
        for r, fp in enumerate(prints):
            for u in set(fp):
                j = index.get(u)
                if j is not None and scale[j] > 0:
                    rows.append(r)
                    cols.append(j)
        x = sp.csr_matrix(
            (scale[cols], (rows, cols)), shape=(len(prints), len(scale)), dtype=np.float32
        )
        mass = np.asarray(x.multiply(x).sum(axis=1)).ravel()
        return _row_normalize(x, np.sqrt(np.maximum(mass, DONE_FLOOR)))


def _fingerprint_columns(
    prints: Sequence[Mapping[str, float]], cnt: np.ndarray, share: float
) -> tuple[sp.csr_matrix, list[str], list[set[int]]]:
    """Per row the share of its requests that did each fingerprint unit, the units, and each
    unit's mates: the units present in ``share`` of its requests (``$ git diff`` for ``$ git
    diff --staged``, ``@ src/`` for ``@ billing.py``), which it implies and so is not judged
    by, as a word is not judged by its phrase-mates."""
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, fp in enumerate(prints):
        for unit, v in fp.items():
            rows.append(i)
            cols.append(vocab.setdefault(unit, len(vocab)))
            vals.append(v)
    x = sp.csr_matrix((np.asarray(vals, np.float32), (rows, cols)), shape=(len(prints), len(vocab)))
    holds = x.copy()
    holds.data[:] = 1.0
    co = (holds.T @ sp.diags(cnt.astype(np.float32)) @ holds).tocoo()
    df = co.diagonal() if co.shape[0] else np.zeros(0)
    mates: list[set[int]] = [{u} for u in range(len(vocab))]
    for a, b, n in zip(co.row, co.col, co.data, strict=True):
        if a != b and n >= share * df[a]:
            mates[a].add(int(b))
    return x.tocsr(), list(vocab), mates


def build(
    norms: Sequence[str],
    counts: Sequence[int] | np.ndarray | None = None,
    params: VectorParams | None = None,
    prints: Sequence[Mapping[str, float]] | None = None,
) -> Vectors:
    """Vectors for distinct normalized intents (``counts``: how often each occurs) and, when
    given, their fingerprints (``fingerprint``: unit -> share of the row's requests that did
    it). A fingerprint unit's informativeness is learnt as a word's is, on the rest of the
    words *and* units (so a word said with one procedure counts even when the kind is worded
    four ways); one too rare to measure counts for nothing (two requests sharing a grep
    pattern share no task). ``matrix`` holds what was said, ``done`` what was done."""
    params = params or VectorParams()
    cnt = np.asarray(counts if counts is not None else [1] * len(norms), dtype=np.float64)
    raw = [content_words(n) or ["zempty"] for n in norms]
    df: Counter[str] = Counter()
    for ws, c in zip(raw, cnt, strict=True):
        for w in set(ws):
            df[w] += int(c)
    fold = typo_map(df)
    words = [[stem(fold.get(w, w)) for w in ws] for ws in raw]
    pairs, mates = _collocations(words, params.collocation_share, params.min_df)
    x, vocab = _counts(units(words, pairs))
    n_words = len(vocab)
    tool_mates: list[set[int]] = []
    if prints is not None:
        fx, fvocab, tool_mates = _fingerprint_columns(prints, cnt, params.collocation_share)
        x = sp.hstack([x, fx]).tocsr()
        vocab += fvocab
    index = {t: i for i, t in enumerate(vocab)}
    linked: dict[int, set[int]] = {i: {i} for i in range(len(vocab))}
    for word, near in mates.items():
        if word in index:
            linked[index[word]] |= {index[m] for m in near if m in index}
    for a, b in pairs:
        ia, ib, iab = index.get(a), index.get(b), index.get(f"{a}_{b}")
        group = {i for i in (ia, ib, iab) if i is not None}
        for i in group:
            linked[i] |= group
    for u, implied in enumerate(tool_mates):
        linked[n_words + u] |= {n_words + m for m in implied}
    partners = [np.fromiter(sorted(linked[i]), dtype=np.int32) for i in range(len(vocab))]
    holds = x.copy()
    holds.data[:] = 1.0
    # Words are measured on all a request said and did: a word said with one procedure is
    # told apart even where its kind is worded four ways.
    plain = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    weight = np.full(len(vocab), 1.0)
    words_only = range(n_words) if prints is not None else None
    for _ in range(params.rounds):
        scaled = _row_normalize(x @ sp.diags(np.sqrt(weight).astype(np.float32)), plain)
        weight = informativeness(scaled, holds, cnt, partners, params, words_only)
    if n_words < len(vocab):
        # A fingerprint unit is judged by what the requests that did it *asked*: a kind's
        # command comes with alike requests; a module's file with requests of every kind
        # about that module (judged by the other units, the project's own folders and
        # tools would make it look coherent).
        said = np.where(np.arange(len(vocab)) < n_words, np.sqrt(weight), 0.0)
        said_x = x[:, :n_words]
        plain_said = np.sqrt(np.asarray(said_x.multiply(said_x).sum(axis=1)).ravel())
        scaled = _row_normalize(x @ sp.diags(said.astype(np.float32)), plain_said)
        scaled.eliminate_zeros()  # the units' own columns: not compared on, not kept
        shares = sp.hstack([holds[:, :n_words], x[:, n_words:]]).tocsr()
        measured = informativeness(
            scaled, holds, cnt, partners, params, range(n_words, len(vocab)), shares
        )
        # ... and believed as far as it was seen: a unit of a few requests (one module's
        # file) may look coherent by chance; one of a kind's every run has been seen often.
        seen = np.asarray(x[:, n_words:].T @ cnt).ravel()
        weight[n_words:] = measured[n_words:] * seen / (seen + params.tool_evidence)
    # A unit too rare to measure counts at ``rare_in_norm`` of its weight in the norm: the
    # one-time details of a request of a kind ("the leap year date bug") must not drown
    # what it shares with the kind; units measured uninformative count in full, so two
    # one-offs sharing a word but not their verb or project stay apart.
    seen = np.asarray(holds.T @ cnt).ravel()
    seen[n_words:] = np.asarray(x[:, n_words:].T @ cnt).ravel()  # a text's share that did it
    measured = seen >= params.min_df
    weight[n_words:][~measured[n_words:]] = 0.0
    in_norm = np.where(measured, 1.0, params.rare_in_norm)[:n_words]
    scaled = (x @ sp.diags(np.sqrt(weight).astype(np.float32))).tocsr()
    said = scaled[:, :n_words]
    norm = np.sqrt(np.asarray(x[:, :n_words].multiply(x[:, :n_words]) @ in_norm).ravel())
    matrix = _row_normalize(said, norm)
    matrix.eliminate_zeros()
    both = None
    if prints is not None:
        tools = x[:, n_words:]
        tnorm = np.asarray(tools.multiply(tools) @ weight[n_words:]).ravel()
        both = _row_normalize(scaled, np.sqrt(norm**2 + tnorm))
        both.eliminate_zeros()
        both = both.astype(np.float32)
    endings = ending_counts(words)
    leads = lead_words(words, endings)
    verbs = open_words(words, min_endings=2, counts=endings)
    acts = [lead in verbs for lead in leads]
    return Vectors(matrix.astype(np.float32), vocab, weight, leads, acts, n_words, both)
