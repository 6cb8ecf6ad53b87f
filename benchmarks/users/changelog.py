"""GitHub's generated release notes the user pastes, and the changelog entries for them.

Every release has a few merged pull requests, at least one of them work on "Kestrel", the
team's internal codename for the new ledger engine, whose titles carry a ``kestrel:``
prefix. The entry the user accepts has one bullet per PR ending in ``(#N)``, never says
Kestrel and credits nobody by @handle; ``entry`` breaks exactly the house rules it is given.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

PR_REF, NO_CODENAME, NO_HANDLES = (
    "changelog-pr-ref-suffix",
    "changelog-no-codename",
    "changelog-no-handles",
)
AUTHORS = ("dmitri-k", "ana-w", "tobi-o", "priyanka-s", "j-lindqvist", "mara-l")
SECTIONS = ("Added", "Changed", "Fixed")


@dataclass(frozen=True)
class PR:
    title: str  # as merged
    text: str  # as a user-facing changelog line
    section: str
    kestrel: bool


def _catalogue() -> list[PR]:
    out = []
    for table in ("ledger entry", "payout", "refund", "fee"):
        out.append(
            PR(
                f"kestrel: batch {table} writes",
                f"Faster imports: {table} writes are now batched",
                "Changed",
                True,
            )
        )
    for q in ("balance", "statement", "export", "dispute"):
        out.append(
            PR(
                f"kestrel: serve {q} queries from read replicas",
                f"{q.capitalize()} queries are served from read replicas",
                "Changed",
                True,
            )
        )
    for x in ("payout", "refund", "chargeback"):
        out.append(
            PR(
                f"kestrel: backfill {x} history into the new ledger",
                f"{x.capitalize()} history loads faster",
                "Changed",
                True,
            )
        )
    for thing in ("refund", "fee", "payout"):
        for cur in ("JPY", "KWD", "HUF", "CLP", "ISK"):
            out.append(
                PR(
                    f"Fix {thing} rounding for {cur}",
                    f"Fixed {thing} rounding for {cur} amounts",
                    "Fixed",
                    False,
                )
            )
    for fmt in ("CSV", "XLSX"):
        for what in ("payouts", "disputes", "statements", "fees"):
            out.append(
                PR(f"Add {fmt} export for {what}", f"Added {fmt} export for {what}", "Added", False)
            )
    for bank in ("Kontor Bank", "Pennyworth", "Sterling Trust", "Fjord Bank", "Alder Savings"):
        out.append(PR(f"Support {bank} payouts", f"Added {bank} as a payout bank", "Added", False))
    for what in ("payout", "refund", "dispute"):
        out.append(
            PR(
                f"Use account timezone for {what} timestamps in exports",
                f"Fixed {what} timestamps in exports to use the account time zone",
                "Fixed",
                False,
            )
        )
    for field, page in (("the IBAN", "payout"), ("fees", "refund"), ("the due date", "dispute")):
        out.append(
            PR(
                f"Show {field} on the {page} details page",
                f"The {page} details page shows {field}",
                "Added",
                False,
            )
        )
    for filt in ("status", "currency", "date range"):
        for lst in ("payouts", "refunds", "disputes"):
            out.append(
                PR(
                    f"Add {filt} filter to the {lst} list",
                    f"The {lst} list can be filtered by {filt}",
                    "Added",
                    False,
                )
            )
    for page, cond in (
        ("statement", "the account has no entries"),
        ("payout", "the bank is unknown"),
        ("refund", "the payment was deleted"),
        ("dispute", "evidence is missing"),
        ("merchant", "the logo fails to load"),
        ("fees", "a fee has no currency"),
    ):
        out.append(
            PR(
                f"Fix {page} page crash when {cond}",
                f"Fixed a crash on the {page} page when {cond}",
                "Fixed",
                False,
            )
        )
    for code in ("429", "502", "503", "504"):
        out.append(
            PR(
                f"Retry webhook deliveries on {code}",
                f"Webhook deliveries are retried after a {code} response",
                "Changed",
                False,
            )
        )
    return out


@dataclass(frozen=True)
class Release:
    version: str
    previous: str
    day: date
    prs: tuple[tuple[int, str, PR], ...]  # (number, author, pr)

    def draft(self) -> str:
        """The "What's Changed" text GitHub generates, as the user pastes it."""
        lines = ["## What's Changed"]
        for n, author, pr in self.prs:
            lines.append(
                f"* {pr.title} by @{author} in https://github.com/ledgerline/ledgerline/pull/{n}"
            )
        lines += [
            "",
            f"**Full Changelog**: https://github.com/ledgerline/ledgerline/compare/"
            f"v{self.previous}...v{self.version}",
        ]
        return "\n".join(lines)


def releases(rng: random.Random, days: list[date]) -> list[Release]:
    """One release per day given (in order), each with 3 to 5 PRs, one of them a Kestrel PR."""
    kestrel: list[PR] = []
    other: list[PR] = []
    out, number, minor, patch = [], 412, 14, 0
    for day in days:
        size = rng.randint(3, 5)
        if not kestrel:
            kestrel = _shuffled(rng, True)
        if len(other) < size:
            other = _shuffled(rng, False)
        picked = [kestrel.pop()] + [other.pop() for _ in range(size - 1)]
        rng.shuffle(picked)
        prs = []
        for pr in picked:
            number += rng.randint(1, 4)
            prs.append((number, rng.choice(AUTHORS), pr))
        previous = f"1.{minor}.{patch}"
        if rng.random() < 0.4:
            patch += 1
        else:
            minor, patch = minor + 1, 0
        out.append(Release(f"1.{minor}.{patch}", previous, day, tuple(prs)))
    return out


def _shuffled(rng: random.Random, kestrel: bool) -> list[PR]:
    prs = [p for p in _catalogue() if p.kestrel == kestrel]
    rng.shuffle(prs)
    return prs


def entry(release: Release, broken: frozenset[str], rng: random.Random) -> str:
    """The agent's changelog entry breaking exactly ``broken``."""
    lines = [f"## {release.version} - {release.day.isoformat()}"]
    for section in SECTIONS:
        items = [(n, pr) for n, _a, pr in release.prs if pr.section == section]
        if not items:
            continue
        lines += ["", f"### {section}"]
        for n, pr in items:
            text = pr.text
            if NO_CODENAME in broken and pr.kestrel:
                text = rng.choice(
                    [f"Kestrel: {text[0].lower()}{text[1:]}", f"{text} (Kestrel ledger engine)"]
                )
            lines.append(f"- {text}" if PR_REF in broken else f"- {text} (#{n})")
    if NO_HANDLES in broken:
        handles = sorted({f"@{a}" for _n, a, _pr in release.prs})
        who = ", ".join(handles[:-1]) + f" and {handles[-1]}" if len(handles) > 1 else handles[0]
        lines += ["", f"Thanks to {who} for the contributions."]
    return "\n".join(lines)
