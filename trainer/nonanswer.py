"""Non-answers: an attempt that did not answer at all fails its task, whatever its judges say.

Judges check what the user asked for; most of them are silent about whether anything was
answered ("no emoji", "at most 50 characters" and "don't mention the customer" all pass
an empty answer). So before any judge, an answer is checked for being one of three
non-answers, each of which the user would have rejected:

* **empty**: nothing but whitespace and punctuation. In an agent harness an attempt that
  ran a command or changed a file did work even with no final words; only an attempt
  that did nothing at all is empty there.
* **the request echoed back**: the answer is the request (or its first 80% or more),
  possibly with a few words around it ("Sure: <request>"; at most five, and at most a
  third of the request's). A short answer that quotes part of the request is not an echo.
* **a refusal**: a short answer (at most two sentences and 40 words) that opens with a
  refusal ("I can't help with that", "I'm sorry, but I cannot assist …", "As an AI …")
  and offers nothing after it (no "here is", no colon followed by text, no code). An
  answer that opens with a caveat and then does the work is judged by its judges.
"""

from __future__ import annotations

import re

from trainer.rollout import Outcome

EMPTY = "the answer was empty"
ECHO = "the answer repeated the request instead of answering it"
REFUSAL = "the answer refused the task"

# The request's own words, not the context line mining appends ("(Context: project x)").
_CONTEXT = re.compile(r"\n\n\(Context: [^\n]*\)\s*\Z")
_WORD = re.compile(r"\w+")
_REFUSAL = re.compile(
    r"^\W*(?:(?:i'?m |i am )?(?:so |very )?sorry,? (?:but )?)?"
    r"(?:(?:i (?:can ?not|can'?t|won'?t|will not|am unable to|am not able to)"
    r"|i'?m (?:unable|not able) to) (?:help|assist|comply|fulfil|fulfill|do (?:that|this)|"
    r"complete (?:that|this)|answer (?:that|this))"
    r"|as an ai\b|as a (?:large )?language model\b)",
    re.IGNORECASE,
)
# A short answer that opens with a refusal but goes on to give something is an answer.
_OFFERS = re.compile(r"\bhere(?:'s| is| are)\b|:\s*\S|```", re.IGNORECASE)
ECHO_SHARE = 0.8  # an answer that is this much of the request, verbatim, is an echo
# Words an echo may add around the request ("Sure, here it is:"): at most a third of the
# request's, so "commit message: fix the parser" is an answer to "commit message".
ECHO_EXTRA_WORDS = 5
REFUSAL_MAX_WORDS = 40
REFUSAL_MAX_SENTENCES = 2


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _request(prompt: str) -> str:
    return _CONTEXT.sub("", prompt)


def _is_echo(answer: list[str], request: list[str]) -> bool:
    if not request or not answer:
        return False
    if f" {' '.join(request)} " in f" {' '.join(answer)} ":  # a few words around it
        return len(answer) - len(request) <= min(ECHO_EXTRA_WORDS, len(request) // 3)
    # most of the request, verbatim from its start: a truncated echo
    return len(answer) >= ECHO_SHARE * len(request) and request[: len(answer)] == answer


def _is_refusal(text: str) -> bool:
    text = text.replace("\u2019", "'").strip()  # typographic apostrophes, as models write them
    if not _REFUSAL.match(text) or _OFFERS.search(text):
        return False
    sentences = [s for s in re.split(r"[.!?]+(?:\s|$)", text) if s.strip()]
    return len(_words(text)) <= REFUSAL_MAX_WORDS and len(sentences) <= REFUSAL_MAX_SENTENCES


def non_answer(outcome: Outcome, prompt: str) -> str | None:
    """Why `outcome` is no answer to `prompt` (words for the optimizer), or None."""
    words = _words(outcome.answer)
    if not words:
        did_work = outcome.harness and (outcome.tool_calls or outcome.files_changed)
        return None if did_work else EMPTY
    if _is_echo(words, _words(_request(prompt))):
        return ECHO
    if _is_refusal(outcome.answer):
        return REFUSAL
    return None
