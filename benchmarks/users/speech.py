"""What the generated user types: requests per kind, corrections per house rule,
acknowledgements, and typos.

Written for this user alone: none of these phrasings is copied from the held-out
correction corpus (``tests/fixtures/corrections/heldout.jsonl``) or from issue 36.
Corrections name their rule the way people do, sometimes quoting the session's own ticket
key, PR number or emoji (``{key}``, ``{n}``, ``{emoji}``).
"""

from __future__ import annotations

import random
import re

ASKS = {
    "commit-message": (
        "commit message for this please, {key}\n\n```diff\n{diff}\n```",
        "can you write the commit msg? ticket is {key}\n```diff\n{diff}\n```",
        "{key}: need a commit message for the staged diff\n\n```\n{diff}\n```",
        "write me a commit message for this ({key})\n\n{diff}",
        "msg for this one pls, it's {key}\n```diff\n{diff}\n```",
        "here's the staged diff for {key}, commit message?\n```diff\n{diff}\n```",
        "commit message. {key}.\n```\n{diff}\n```",
        "gimme a commit msg for {key}:\n```diff\n{diff}\n```",
        "staged this for {key}, what should the commit say?\n\n```diff\n{diff}\n```",
        "commit message for the change below ({key})\n```diff\n{diff}\n```",
    ),
    "ci-summary": (
        "summarise this failing run for #ledger-ci:\n```\n{log}\n```",
        "CI is red, what happened?\n```\n{log}\n```",
        "short summary of this failure for the channel pls\n\n```\n{log}\n```",
        "can you summarize why this job failed?\n```\n{log}\n```",
        "what broke here? need a summary for slack\n```\n{log}\n```",
        "run failed again, summary please\n{log}",
        "pasting the failed log, summarise it for #ledger-ci\n```\n{log}\n```",
        "explain this failure in a few lines for the team\n```\n{log}\n```",
    ),
    "changelog-entry": (
        "changelog entry for {version} from the release draft:\n```\n{draft}\n```",
        "can you turn this into our CHANGELOG.md section for {version}?\n\n```\n{draft}\n```",
        "write the {version} changelog, here's what github generated\n```\n{draft}\n```",
        "CHANGELOG for {version} please\n\n{draft}",
        "need the changelog section for v{version}:\n```md\n{draft}\n```",
        "release {version} goes out today, write the changelog entry from this\n```\n{draft}\n```",
    ),
}

CORRECTIONS = {
    "commit-ticket-brackets": (
        "wrong format, it's `[{key}] Subject`, brackets first",
        "the jira key goes first in square brackets: [{key}]",
        "pls start with [{key}], that's how our release tool finds tickets",
        "missing the [{key}] prefix",
        "we write the key as [{key}] at the very start of the subject",
        "use our format: [{key}] Subject",
        "where's the ticket? the subject should begin with [{key}]",
        "key in square brackets at the front, e.g. [{key}]",
        "[{key}] goes at the front of the subject, every time",
        "can you put [{key}] in front? our changelog script needs it",
    ),
    "commit-subject-max-60": (
        "first line's too long, 60 chars max",
        "subject is over 60 characters, shorten it",
        "trim the summary line, we cap it at 60",
        "that subject won't fit in the PR list, keep it under 60 chars",
        "shorter subject pls (≤60)",
        "the headline is way too long, max sixty characters",
        "subject line needs to be 60 characters or less",
        "too wordy up top, cut the subject to under 60",
        "can you tighten the subject? 60 char limit",
        "subject is too long, same limit as always: 60",
    ),
    "commit-body-wrap-72": (
        "wrap the body at 72 pls",
        "body isn't wrapped, 72 cols",
        "hard wrap the description at 72 characters",
        "that body is one giant line, break it at 72",
        "rewrap the body, 72 chars per line",
        "lines in the body need to be ≤72 chars",
        "please wrap the explanation to 72 columns, git log looks awful otherwise",
        "72-column wrap on the body, as usual",
        "body lines too long; max 72",
        "wrap it at 72, not one long line",
    ),
    "commit-no-ai-trailer": (
        "no co-authored-by line please",
        "remove the AI trailer at the bottom",
        "drop the co-author footer",
        "please don't add Co-authored-by to my commits",
        "take out the trailer lines at the end",
        "no attribution footer, just the message",
        "lose the trailer at the end",
        "I don't want the Co-Authored-By thing in our history",
        "no robot footers in commits pls",
        "delete the co-author trailer",
    ),
    "ci-max-60-words": (
        "too long, 60 words max",
        "shorter pls, under 60 words, it goes in slack",
        "keep these summaries to 60 words",
        "cut it to 60 words or less",
        "tl;dr version please, ≤ 60 words",
        "that's an essay. sixty words tops",
        "way too much text, I need it under 60 words",
        "trim it down to 60 words",
    ),
    "ci-no-emoji": (
        "no emoji",
        "drop the {emoji}",
        "please no emojis in CI summaries",
        "lose the {emoji}, plain text",
        "emoji-free please",
        "no emoji, the channel bot mangles them",
        "remove the emoji",
        "can you stop with the emojis",
    ),
    "ci-no-headings": (
        "no headings",
        "skip the ## header, it's a slack message",
        "no markdown titles please",
        "remove the header line",
        "it's a few lines, no section headings",
        "lose the '#' heading",
        "headings off, just the text",
        "don't put titles on CI summaries",
    ),
    "changelog-pr-ref-suffix": (
        "each bullet needs its PR number at the end, like (#{n})",
        "you dropped the PR refs, add (#123)-style numbers after every line",
        "put the PR number in parens at the end of each entry",
        "where are the PR numbers? (#{n}) at the end of each bullet",
        "PR numbers go at the end of every item: ... (#{n})",
        "missing the (#{n}) refs on the bullets",
        "add the pull request number to every bullet, at the end",
        "need the (#PR) suffix on each line",
    ),
    "changelog-no-codename": (
        "Kestrel is internal, don't put it in the changelog",
        "customers don't know what Kestrel is, take it out",
        "no codenames in public notes (Kestrel)",
        "scrub 'Kestrel' from that",
        "remove Kestrel, describe what the user gets",
        "Kestrel is our internal name, never in release notes",
        "please don't mention kestrel",
        "take the kestrel bits out of the entries",
    ),
    "changelog-no-handles": (
        "no @mentions in the changelog",
        "remove the @handles",
        "don't credit people by handle here",
        "drop the thanks line with the @s",
        "no github usernames in the changelog please",
        "take out the @names",
        "we don't @ people in CHANGELOG.md",
        "lose the contributor handles",
    ),
}

JOINS = ("{a}. also {b}", "{a}, and {b}", "{a}\n{b}", "two things: {a}; {b}", "{a} + {b}")

ACKS = (
    "thanks",
    "perfect",
    "ty",
    "👍",
    "great, thanks",
    "that's it",
    "cheers",
    "nice, ta",
    "good",
    "yep",
    "thx!",
    "spot on",
    "lovely",
    "works for me",
    "brilliant",
    "ok great",
)
ACKS_AFTER_FIX = ("better, thanks", "that's the one", "yes, like that", "much better")
ACK_REPLIES = ("Glad it helps.", "You're welcome.", "👍", "Anytime.", "Great.")


def typo(text: str, rng: random.Random, rate: float) -> str:
    """Drop, double or swap a letter in some plain words, as hurried typing does."""
    words = text.split(" ")
    for i, w in enumerate(words):
        if len(w) > 4 and w.isalpha() and w.islower() and rng.random() < rate:
            j = rng.randrange(1, len(w) - 1)
            op = rng.randrange(3)
            if op == 0:
                w = w[:j] + w[j + 1 :]
            elif op == 1:
                w = w[:j] + w[j] + w[j:]
            else:
                w = w[: j - 1] + w[j] + w[j - 1] + w[j + 1 :]
            words[i] = w
    return " ".join(words)


class Voice:
    """Draws phrasings without repeats until a pool is used up (then reshuffles it)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.decks: dict[str, list[str]] = {}

    def draw(self, name: str, pool: tuple[str, ...]) -> str:
        deck = self.decks.get(name)
        if not deck:
            deck = self.decks[name] = list(pool)
            self.rng.shuffle(deck)
        return deck.pop()

    def ask(self, kind: str, **slots: str) -> str:
        template = self.draw(f"ask:{kind}", ASKS[kind])
        head, sep, rest = template.partition("\n")
        if self.rng.random() < 0.25:
            head = typo(head, self.rng, 0.3)
        return (head + sep + rest).format(**slots)

    def correction(self, rules: list[str], **slots: str) -> str:
        parts = [self.draw(f"fix:{r}", CORRECTIONS[r]).format(**slots) for r in rules]
        if self.rng.random() < 0.2:
            parts = [typo(p, self.rng, 0.25) for p in parts]
        if len(parts) == 1:
            return parts[0]
        a, b = parts[0].rstrip("."), parts[1]
        join = self.rng.choice(JOINS)
        if join != "{a}\n{b}" and re.match(r"[A-Z][a-z]", b):
            b = b[0].lower() + b[1:]
        return join.format(a=a, b=b)

    def ack(self, after_fix: bool) -> str:
        pool = ACKS + ACKS_AFTER_FIX if after_fix else ACKS
        return self.rng.choice(pool)
