"""The words a correction names: which are literals to check ("os.system", 'simply',
Globex, TODO), which are categories for the rubric ("client names"), and the checks they
make: forbidden and required words, identifiers shaped like the user's example, sections,
dates, time zones. Precision first, as in ``grammar``."""

from __future__ import annotations

import re

from skillopt_sleep.mining.phrases import (
    COUNT_PHRASE,
    FEATURE_RX,
    NEG,
    NEG_RX,
    PLAIN,
    PRONOUN_NEG,
    QUOTED,
    Check,
    clauses,
    example_pairs,
    pair_spans,
    rx,
    scope_for,
    sentences,
)
from skillopt_sleep.mining.pointers import (
    KEY_PREFIX,
    KIND_OF_REF,
    REMEDY_INSTEAD,
    WHEN,
    names_module,
)
from skillopt_sleep.mining.prefilter import Prefiltered
from skillopt_sleep.mining.shapes import OTHER_DATE, is_identifier
from skillopt_sleep.mining.zones import TIMEZONES, zone_check
from trainer.checks import identifier_pattern

STOP_WORDS = {
    "it", "that", "this", "them", "the", "a", "an", "one", "any", "these", "those", "me",
    "you", "anything", "everything", "something", "stuff", "things", "thing", "all", "so",
    "much", "more", "less", "way", "there", "here", "in", "on", "please", "again", "now",
    "too", "very", "just", "like", "same", "other", "else", "what", "my", "your", "its",
}  # fmt: skip


# Nouns that name where a literal sits, not the literal ("TODO comments", "print calls").
_CARRIERS = {
    "calls", "call", "statements", "statement", "comments", "comment", "markers", "marker",
    "lines", "line", "trailers", "trailer", "footer", "footers", "classes", "class",
    "imports", "import", "usage", "usages", "keyword", "keywords", "word", "words",
    "everywhere", "here", "anymore", "again", "please", "type", "stuff", "note", "notes",
    "tag", "tags", "prefix", "suffix", "declarations", "declaration", "flag", "option",
    "function", "functions", "method", "methods", "module", "package", "library", "command",
    "edits", "edit", "entries", "entry",
}  # fmt: skip
# Acronyms a user writes about their setup, not words to check ("our CI fails on TODOs").
SETUP_WORDS = {
    "CI", "CD", "PR", "PRs", "API", "UI", "UX", "URL", "CLI", "SDK", "IDE", "OK", "QA", "DB",
    "AWS", "JSON", "YAML", "SQL", "HTML", "CSS", "JS", "TS", "README", "I", "DCO", "SMS",
}  # fmt: skip


_CUT = re.compile(
    r"\s+(?:in|on|at|for|from|into|inside|within|when|because|since|unless|so|to|"
    r"anywhere|ever|it'?s|they|which|that|here|there|please|pls|plz|again|anymore|in the|"
    r"on the|back)\b.*$",
    re.IGNORECASE,
)


_DATE_TEMPLATE = re.compile(r"\b(?:YYYY|yyyy)[-/.](?:MM|mm)[-/.](?:DD|dd)\b")
_ISO_ASKED = re.compile(r"\biso\b.*\bdates?\b|\bdates?\b.*\biso\b", re.IGNORECASE)


_PRAGMA = re.compile(
    r"#?\s*\btype(?::\s*|-)ignore\b|#\s*noqa|#\s*pragma: no cover|//\s*eslint-disable[\w-]*|"
    r"@ts-ignore|@ts-expect-error|//\s*nolint",
    re.IGNORECASE,
)


_NOT_TERMS = {"ok", "okay", "allowed", "good", "fine", "right", "needed", "necessary", "required",
              "welcome", "needed here", "helpful", "useful", "need", "way", "bad"}  # fmt: skip


# Nouns that name a quality of the writing, not a word in it ("no passive voice").
_ABSTRACT = {
    "voice", "tone", "tense", "mood", "style", "language", "english", "spelling", "jargon",
    "fluff", "filler", "detail", "details", "wording", "formatting", "grammar", "case",
    "person", "length", "verbosity", "rambling", "repetition", "hedging", "caveats",
}  # fmt: skip


# A command named in plain words ("never run npm publish") is a literal, not prose.
COMMANDS = {
    "npm", "pip", "pip3", "git", "yarn", "pnpm", "npx", "docker", "kubectl", "cargo", "go",
    "make", "brew", "apt", "apt-get", "poetry", "uv", "sudo", "curl", "wget", "rm", "terraform",
    "helm", "gradle", "mvn", "grep", "rg", "sed", "awk", "find", "chmod", "chown", "ssh", "scp",
    "rsync", "python", "python3", "node", "bash", "sh", "kill", "killall", "pkill", "systemctl",
}  # fmt: skip
# Commands whose next word picks what they do ("npm ci" is not "npm install").
SUBCOMMANDS = {
    "npm", "pip", "pip3", "git", "yarn", "pnpm", "docker", "kubectl", "cargo", "go", "brew",
    "apt", "apt-get", "poetry", "uv", "helm", "terraform", "systemctl",
}  # fmt: skip


def literal(
    raw: str, plain_ok: bool, corrected: str = "", swapped: bool = False, wording: bool = False
) -> str | None:
    """The word or phrase a user named, or None when it is not a literal to check: quoted
    text, a suppression pragma, a name in parentheses, a code-like or capitalised term, or
    (where ``plain_ok``) up to three plain words that are not a plural category; "the X"
    only where X is ``swapped`` for something else ("replace the prints with logging"), and
    a plain plural only where the user talks about ``wording`` ("we say customers, not
    users"; "tabs, not spaces" names no word to avoid)."""
    quoted = [next(g for g in m.groups() if g).strip() for m in QUOTED.finditer(raw)]
    if len(quoted) == 1 and quoted[0].rstrip(".… "):
        if re.fullmatch(r"\W", quoted[0]):
            return None  # '*', '!', ';': a mark of a form (a bullet, a tone), read as one
        # "'Sure! Here's...'": the dots say "and so on"; "`git add .`" keeps its own dot
        return re.sub(r"(?:\s*(?:\.{2,}|…))+\s*$|(?<=\w)\.$", "", quoted[0]).strip()
    pragma = _PRAGMA.search(raw)
    if pragma:
        return re.sub(r"^#?\s*type[-:\s]+ignore$", "type: ignore", pragma.group(0).strip())
    paren = re.search(r"\(([^()\s]{2,30})\)", raw)
    if paren and re.search(r"[A-Z._-]", paren.group(1)):
        return paren.group(1)
    text = _CUT.sub("", raw.strip()).strip(" .,;:!?()[]")
    lead = re.compile(
        r"^(?:the|a|an|any|all|every|those|these|that|this|your|my|our|some|"
        r"more|word|term|phrase|mention of|mentions of|name)\s+",
        re.IGNORECASE,
    )
    while lead.match(text):
        text = lead.sub("", text, count=1).strip()
    words = text.split()
    carried = False  # "the unittest class" names unittest, "the summary" a part
    while len(words) > 1 and words[-1].lower() in _CARRIERS:
        words.pop()
        carried = True
    if not words or len(words) > 3:
        return None
    marked = [i for i, w in enumerate(words) if _marked(w)]
    if marked and all(not _marked(w) and w.islower() for w in words[: marked[0]]):
        words = words[marked[0] :]  # "the customer name Acme" names Acme
    text = " ".join(words)
    if text.endswith("()"):
        text = text[:-2]
    if all(w.lower() in STOP_WORDS for w in words) or text.lower() in _NOT_TERMS:
        return None
    if COUNT_PHRASE.search(text) or words[-1].lower() in _ABSTRACT:
        return None
    if re.fullmatch(r"\d+\s+[a-z]+", text):
        return None  # "3 paragraphs": a count of something the vocabulary does not count
    if re.fullmatch(r"[\d.,:]+", text):
        return None  # a bare number names nothing to check
    if re.fullmatch(r"\W", text):
        return None  # '*', '!', ';': a mark of a form (a bullet, a tone), read as one
    if any(_marked(w) for w in words):
        if re.fullmatch(r"[A-Z]{2,}s", text):  # TODOs -> TODO
            text = text[:-1]
        return text
    if not plain_ok or any(w.lower() in STOP_WORDS for w in words):
        return None
    if re.match(r"\W*(?:the|a|an|any|those|these|that|this)\s", raw, re.IGNORECASE) and not (
        swapped or carried or words[0].lower() in COMMANDS or "word" in raw.lower()
    ):
        return None  # "skip the code", "drop the summary": a part of the answer, not a word
    if len(words) > 1 and words[0].lower() not in COMMANDS:
        return None  # a plain phrase is prose ("commit directly"), not a literal
    last = words[-1]
    if last.endswith("s") and not last.endswith("ss") and len(last) > 3 and not wording:
        if len(words) == 1 and names_module(text, corrected):
            return text  # "we're dropping axios": a package, not a plural
        stem = _singular(text, corrected)
        return stem if stem != text else None  # "client names", "mocks": a category
    return text


def _marked(word: str) -> bool:
    """Code-like or capitalised: a word the user names, not one they use."""
    return bool(re.search(r"[._():#/@$<>=\[\]{}-]|\d", word)) or any(c.isupper() for c in word)


def _singular(term: str, corrected: str) -> str:
    """ "the prints" names ``print``, "instead of printing" too: the form the corrected
    answer used."""
    if term.endswith("ing") and term.isalpha() and len(term) > 6 and corrected:
        for stem in (term[:-3], term[:-3] + "e", term[:-4]):  # printing, closing, logging
            if rx(rf"\b{re.escape(stem)}\b").search(corrected) and not rx(
                rf"\b{re.escape(term)}\b"
            ).search(corrected):
                return stem
    if term.endswith("s") and term[:-1].isalpha() and len(term) > 4 and corrected:
        stem = term[:-1]
        if rx(rf"\b{re.escape(stem)}\b").search(corrected) and not rx(
            rf"\b{re.escape(term)}\b"
        ).search(corrected):
            return stem
    return term


def word_scope(term: str, corrected: str) -> str:
    """``code`` when the corrected answer had the word only inside code blocks."""
    from trainer.checks import passes

    if not corrected or "```" not in corrected:
        return "answer"
    in_code = not passes("not_contains", term, "code", corrected)
    in_prose = not passes("not_contains", term, "prose", corrected)
    return "code" if in_code and not in_prose else "answer"


_FORBID_VERBS = (
    r"(?:\bno\b|\bnot\b|\bnever(?: (?:use|write|say|add|include|put|run|call|mention|type))?|"
    r"\bwithout\b|\bavoid(?: using)?\b|"
    r"(?:don'?t|do not|doesn'?t)(?: \w+){0,2}?\s+(?:use|add|include|mention|say|write|put|leave|"
    r"want(?: any)?|need|name|call|credit \w+ with|paste|quote)\b|\bstop (?:\w+ing|with)\b|"
    r"\bquit \w+ing\b|\blose\b|\bdrop\b|\bremove\b|\bdelete\b|\bcut(?: every| all| out)?\b|"
    r"\bstrip(?: out)?\b|\bskip\b|\bditch\b|\bget rid of\b|\btake out\b|\bleave out\b|"
    r"\bmoved off\b|\bmove off\b|"
    # "we're dropping lodash", "we removed moment last quarter": what the team gave up
    r"\bwe(?:'re| are|'ve| have)? (?:dropping|dropped|removing|removed|ripped out|phasing out|"
    r"phased out|moving off|moving away from|moved away from|getting rid of|got rid of)\b)"
)


_FORBID = Prefiltered(_FORBID_VERBS + r"\s+(.{1,60}?)\s*(?=$|[,;.!?]\s|[,;!?]$|\.$| and | or )",
                     re.IGNORECASE)  # fmt: skip


_FORBID_AFTER = Prefiltered(
    r"^\W*(?:the\s+)?(.{1,40}?)\s+(?:is|are|isn'?t|aren'?t)\s+(?:banned|off-limits|not ok|"
    r"not allowed|allowed|forbidden|legacy|not welcome)|^\W*(?:the\s+)?(.{1,40}?)\s+"
    r"(?:has|have) to go\b|^\W*take\s+(\S+(?: \S+)?)\s+out\b|\b(?:leave|keep)\s+(.{1,40}?)\s+"
    r"out\b|^\W*why (?:is|are) (.{1,40}?) (?:back|still (?:here|there|in)\b)|"
    r"^\W*who(?: is|'s) (.{1,40}?)\?|"
    r"^\W*i (?:really )?(?:hate|can'?t stand|dislike) (.{1,40}?)(?:$|[.!?])",
    re.IGNORECASE,
)


_REQUIRE = Prefiltered(
    r"(?:\byou forgot|\byou missed|\byou left out|\binclude|\badd|\bmention|\bneeds?|"
    r"\bmissing|\balways (?:say|include|add|put|write|use)|\bevery \w+ has|\bwhere'?s)"
    r"\s+(?:the\s+|a\s+|an\s+|my\s+)?(.{1,50}?)\s*(?=$|[,;.!?]\s|[,;!?]$|\.$| at | so | to )",
    re.IGNORECASE,
)


_EXAMPLE = re.compile(
    r"(?:\blike|\be\.g\.?|\bsuch as|\bfor example|\bformat|\bsay)\s*:?\s+(" + r"\S+" + r")|"
    r"\(([^)\s]{2,30})\)|,\s*(#\d+|[A-Z]+-\d+)\b|\s(#\d+)\b",
    re.IGNORECASE,
)


def _forbids(sentence: str, example: str) -> bool:
    """Whether the clause giving ``example`` forbids its kind ("never mention hostnames
    like db-1") rather than asking for it ("you forgot the key, e.g. SEC-412"; "don't
    forget the ticket like OPS-3")."""
    for clause in clauses(sentence):
        at = clause.find(example)
        if at < 0:
            continue
        before = re.sub(r"\b(?:didn'?t|did not|don'?t forget|do not forget|forgot|missing)\b.*",
                        "", clause[:at], flags=re.IGNORECASE)  # fmt: skip
        return NEG_RX.search(before) is not None
    return NEG_RX.search(sentence) is not None


# A linter's rule code (E501, D400, SC2086) names the rule, not an identifier to write.
_LINT_CODE = re.compile(r"[A-Z]{1,3}\d{3,4}")


def _identifier_check(example: str, sentence: str, corrected: str) -> Check:
    """An identifier shaped like the example, where it is asked for: "in the subject", "on
    each line" (each item when the answer is a list), at the end of each, else anywhere."""
    at = sentence.find(example)  # where the words before the example and its own clause say
    upto = sentence if at < 0 else sentence[: at + len(example)]
    scope = scope_for(upto)
    if scope == "lines" and re.search(r"(?m)^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S", corrected):
        scope = "bullets"
    if scope not in ("first_line", "lines", "bullets"):
        return Check("identifier_like", example, "answer")
    if re.search(r"\bend(?:s|ing)? (?:\w+ )?with\b", sentence, re.IGNORECASE):
        return Check("regex", identifier_pattern(example) + r"\W*\Z", scope)
    return Check("identifier_like", example, scope)


_WORDING = re.compile(r"\b(?:say|says|write|spell|call|word|term|wording)\b", re.I)


def word_checks(text: str, corrected: str) -> list[Check]:
    """``contains`` / ``not_contains`` / ``identifier_like`` from named words."""
    out: list[Check] = []
    examples = example_pairs(text)
    feature_words = [rx for rx, _ in FEATURE_RX]
    for sentence in sentences(text):
        ids = []
        for m in _EXAMPLE.finditer(sentence):
            ex = next(g for g in m.groups() if g).strip(" .,;:()'\"`")
            if is_identifier(ex) and not _DATE_TEMPLATE.search(ex):
                ids.append(ex)
        for q in QUOTED.finditer(sentence):
            ex = next(g for g in q.groups() if g)
            if is_identifier(ex):
                ids.append(ex)
        ids += [
            m.group(0) for m in re.finditer(r"[A-Z]{2,}-\d+|#\d+|\b\d{4}-\d{2}-\d{2}\b", sentence)
        ]
        if any(re.fullmatch(r"\d{4}-\d{2}-\d{2}", x) for x in ids) or _DATE_TEMPLATE.search(text):
            ids = [x for x in ids if not re.fullmatch(r"\d{1,2}/\d{1,2}(?:/\d{2,4})?", x)]
            if _ISO_ASKED.search(sentence):  # the date is an example of every date's form
                ids = [x for x in ids if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", x)]
        ids = [x for x in ids if not _LINT_CODE.fullmatch(x)]
        for ex in dict.fromkeys(ids):
            if not _forbids(sentence, ex):
                out.append(_identifier_check(ex, sentence, corrected))
        wording = _WORDING.search(sentence)
        for n_clause, clause in enumerate(clauses(sentence)):
            pairs = pair_spans(clause)
            # "we say customers, not users": the rejected half of a pair split at the comma
            contrast = n_clause > 0 and re.match(r"\W*(?:not|never|rather than)\s", clause, re.I)
            for s, e, role in pairs:
                if role != "no":
                    continue
                for part in re.split(r"\s+(?:or|and|nor)\s+|/(?=\w)", clause[s:e]):
                    term = literal(part, True, corrected, swapped=True, wording=bool(wording))
                    if term and term not in examples and not is_form(part, feature_words):
                        term = _singular(term, corrected)
                        out.append(Check("not_contains", term, word_scope(term, corrected)))
            if pairs:
                continue
            masked, quotes = _mask_quotes(clause)
            for m in _FORBID.finditer(masked):
                for part in re.split(r"\s+(?:or|and|nor)\s+", m.group(1)):
                    part = WHEN.sub("", _unmask(part, quotes))
                    keys = KEY_PREFIX.search(part)
                    if keys:  # "strip the PAY- ticket ids", "drop the INC number": every key
                        pattern = rf"(?<![\w-]){keys.group(1)}-?\d+(?![\w-])"
                        out.append(Check("not_regex", pattern, "answer"))
                        continue
                    if is_form(part, feature_words):
                        continue
                    term = literal(
                        part, True, corrected, bool(contrast), bool(contrast and wording)
                    )
                    tokens = code_tokens(part)
                    if term is None and len(tokens) == 1:
                        term = tokens[0]  # "never suggest a plain --force push"
                    if term and term not in examples and not is_identifier(term):
                        term = _singular(term, corrected)
                        out.append(Check("not_contains", term, word_scope(term, corrected)))
            after = _FORBID_AFTER.search(clause)
            if after:
                part = next(g for g in after.groups() if g)
                if not is_form(part, feature_words):
                    tokens = code_tokens(part)
                    term = literal(part, True, corrected) or (
                        tokens[0] if len(tokens) == 1 else None
                    )
                    if term:
                        term = _singular(term, corrected)
                        out.append(Check("not_contains", term, word_scope(term, corrected)))
            if not NEG_RX.search(clause):  # masked above: "`git add -A`" asks for no "-A"
                for m in _REQUIRE.finditer(masked):
                    part = _unmask(m.group(1), quotes)
                    if "\x00" in masked[max(0, m.start() - 1) : m.start() + 1]:
                        continue
                    if is_form(part, feature_words) or is_identifier(part.split()[-1]):
                        continue
                    if re.search(r"sign-?off|signature|\b(?:section|heading|header)\b", part, re.I):
                        continue  # the sign-off's words are an ends_with
                    if KIND_OF_REF.search(part):
                        continue  # "needs the PR number": a reference of that kind, not words
                    term = literal(part, plain_ok=False)
                    if term and re.fullmatch(r"[a-z]+(?:\([\w-]+\))?!?:", term):
                        continue  # "add the feat: prefix": a start, read by the grammar
                    if term and not is_identifier(term) and not ids:
                        out.append(required(term))
        if PRONOUN_NEG.search(sentence) and not any(c.kind == "not_contains" for c in out):
            named = list(dict.fromkeys(_named(sentence)))
            if len(named) == 1 and not REMEDY_INSTEAD.match(
                sentence.replace(named[0], "\x00", 1)
            ):  # "os.system is flagged by our linter, can you replace it?"
                out.append(Check("not_contains", named[0], word_scope(named[0], corrected)))
        for zone in TIMEZONES:
            if (
                zone in sentence
                and re.search(rf"(?<![.=])(?<!\w\()\b{zone}\b", sentence)  # not now(UTC)
                and not re.search(rf"(?:{NEG})[^,;.]*\b{zone}\b", sentence, re.IGNORECASE)
            ):
                out.append(zone_check(zone, sentence))
        if _DATE_TEMPLATE.search(sentence) or _ISO_ASKED.search(sentence):
            out.append(Check("not_regex", OTHER_DATE, "answer"))
    return out


# "Signed-off-by: Tomás Ruiz <…>": a trailer's label is the rule, its value an example.
LABELLED = re.compile(r"^([A-Z][\w-]*(?: [A-Z][\w-]*)?):(?:\s+\S.*)?$")


def required(term: str) -> Check:
    """A word or phrase the user asked for; a labelled line asks for its label at the start
    of a line ("Signed-off-by: …", "BREAKING CHANGE:"), not for the example's value."""
    label = LABELLED.match(term)
    if label:
        return Check("regex", rf"(?m)^\s*{re.escape(label.group(1))}:", "answer")
    return Check("contains", term, "answer")


_LINE_WORDS = re.compile(r"\b(?:trailers?|footers?|lines?)\b", re.IGNORECASE)


def labelled_line(value: str, said: str) -> list[Check]:
    """A line opening with the label of ``value`` (emphasis aside), when ``value`` is a
    labelled line with its value ("`Refs: PLAT-1020` on its own line") or a label said to
    be a line ("a `Refs:` trailer"); a label alone is often a section of a kind (a
    docstring's ``Args:``), which an answer may not need."""
    label = LABELLED.match(value)
    with_value = not value.rstrip().endswith(":")
    if label is None or not (with_value or _LINE_WORDS.search(said)):
        return []
    return [Check("regex", rf"(?m)^[ \t>*_]*{re.escape(label.group(1))}:", "answer")]


def is_form(part: str, feature_words: list[re.Pattern[str]]) -> bool:
    return (
        any(rx.search(part) for rx in feature_words)
        or bool(PLAIN.search(part))
        or bool(
            re.search(
                r"\b(?:period|full stop|dot|capital|lowercase|tense|imperative|question|"
                r"semicolons?|;s?)\b|;",
                part,
                re.IGNORECASE,
            )  # fmt: skip
        )
    )


def _mask_quotes(clause: str) -> tuple[str, list[str]]:
    """The clause with each quoted span as a placeholder (its "!" or "." ends nothing)."""
    quotes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        quotes.append(m.group(0))
        return f"\x00{len(quotes) - 1}\x00"

    return QUOTED.sub(keep, clause), quotes


def _unmask(text: str, quotes: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: quotes[int(m.group(1))], text)


def code_tokens(text: str) -> list[str]:
    """Code-like tokens: dotted or called names, paths, flags (``os.system``, ``--force``)."""
    return [
        t.rstrip(".,;:!?")
        for t in re.findall(
            r"(?<![\w-])(?:--?[a-z][\w-]*|[\w.:/-]*[._/][\w.:/-]*\w(?:\(\))?)", text
        )
        if not t.isdigit() and not re.fullmatch(r"[\d.]+", t)
    ]


def _named(sentence: str) -> list[str]:
    """What a sentence names for a pronoun to point back at: quoted text, pragmas, code
    tokens, capitalised identifiers (TODO) that are not words about the user's setup."""
    out = [next(g for g in m.groups() if g).strip() for m in QUOTED.finditer(sentence)]
    out += [m.group(0).strip() for m in _PRAGMA.finditer(sentence)]
    bare = QUOTED.sub(" ", _PRAGMA.sub(" ", sentence))
    out += code_tokens(bare)
    out += [w for w in re.findall(r"\b[A-Z]{2,}\b", bare) if w not in SETUP_WORDS]
    return [t for t in out if t and not is_identifier(t)]
