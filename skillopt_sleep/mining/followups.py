"""What a user's next turn after an answer is: an acknowledgement, a correction of that
answer, or a new request.

A correction is evidence for the request it follows (its words become judges, the answer it
follows is one the user did not accept); it is never a request of its own, or the
corrections themselves would cluster into a "recurring task". It is recognised by form and
position, not by whether a rule can be compiled from it: a short turn right after an answer
that rejects something in it ("no …", "drop the …", "I said …", "you forgot …"), judges it
("too long", "shorter"), restates a rule about its form ("50-char subjects.", "plain text
please") or says what it should be ("the subject should …", "make it …"). Follow-ups that
ask for more work ("now do the changelog", "also add a test for X", "what about the export
endpoint?") stay requests, and a bare "thanks" is acceptance.
"""

from __future__ import annotations

import re

ACK = "ack"
CORRECTION = "correction"
REQUEST = "request"

# A correction is a short turn; anything longer carries a request of its own.
MAX_CORRECTION_CHARS = 400

_ACK_WORDS = {
    "thanks", "thank", "thx", "ty", "you", "perfect", "great", "ok", "okay", "lgtm", "nice",
    "good", "cool", "awesome", "yes", "yep", "yeah", "sure", "looks", "fine", "works", "done",
    "that", "that's", "it", "it's", "exactly", "what", "i", "needed", "brilliant", "cheers",
    "stuff", "sweet", "merged", "right", "now", "to", "me", "much", "so", "a", "lot",
    "excellent", "wonderful", "amazing", "correct", "well", "job", "all", "ship", "love",
    "this", "is", "was", "just", "wanted", "very", "many", "one",
}  # fmt: skip
# After an answer, "go ahead" / "keep going" accept it and let the agent go on.
_GO_ON_WORDS = {"go", "ahead", "do", "keep", "going", "continue", "proceed", "yes"}
_ACK_SYMBOLS = re.compile(r"^[\s👍🙏✅🎉👌💯!.]+$")

# An acknowledgement or filler the user may put before a new request ("great, next …").
_LEAD_IN = r"^\W*(?:(?:ok(?:ay)?|great|cool|nice|perfect|thanks|thank you|good|awesome|sweet|"
_LEAD_IN += r"alright|right|yes|yep|lgtm|actually|oh|hey|also)\b[\s,.!:;-]*)*"
# Words that start a new piece of work, not a fix of the answer just given.
_NEW_WORK = re.compile(
    _LEAD_IN + r"(?:now\b|next\b|then\b|and now\b|one more\b|let'?s\b|moving on\b|"
    r"(?:can|could|would) you (?:also|now|next)\b|please also\b|also\b(?!,? (?:no|don'?t|"
    r"never|drop|remove|lose|keep|make|use|mention|include|add (?:a|the) (?:signed|"
    r"breaking|footer|trailer|line|period|note|reference|link|ticket|sign)))|"
    r"do the same\b|same (?:thing )?for\b|use the same\b|what about\b|how about\b|"
    r"how would\b|how do(?:es)?\b|what does\b|what is\b|what's\b|why (?:is|does|do)\b|"
    r"never ?mind\b|no (?:rush|worries|problem|prob)\b|instead of that\b|"
    r"don'?t forget to also\b)",
    re.IGNORECASE,
)
# Rejecting something in the answer, or judging it.
_REJECT = re.compile(
    r"^\W*(?:no\b|nope\b|not\b|nah\b|don'?t\b|do not\b|never\b|avoid\b|without\b|"
    r"stop (?:\w+ing|with)\b|quit \w+ing\b|wrong\b|incorrect\b|that'?s (?:wrong|not)\b|less\b|"
    r"fewer\b|tone (?:it )?down\b|shorter\b|longer\b|too\b|way too\b|hmm\b|ugh\b|again\b)",
    re.IGNORECASE,
)
# Taking something out: a correction when it is something the answer has (or a form).
_TAKE_OUT = re.compile(
    r"^\W*(?:lose|drop|remove|delete|cut|strip(?: out)?|skip|trim|ditch|get rid of|"
    r"take(?: out| away)?|leave(?: out| off)?)\s+(?:the |all |every |any |that |those |"
    r"these |my |your )?(\S+(?: \S+){0,3})",
    re.IGNORECASE,
)
# The user pointing back at what they said or at what the answer did.
_POINTED = re.compile(
    r"\b(?:i said|i told you|i asked(?: for| you)?|as i said|like i said|i wanted|"
    r"you forgot|you missed|you left (?:out|off)|you didn'?t|you still|you used|you added|"
    r"you put|you wrote|forgot\b|(?:is|are|'s|still) missing|missing (?:the|a|an|my)\b|"
    r"^\W*missing\b|\bmissing\W*$|where'?s the|where is the|did you forget|"
    r"not what i|still (?:fail\w*|broken|not|wrong|the same|doesn'?t|does not)|"
    r"(?:did|does|do)(?:n'?t| not) work|that broke)\b",
    re.IGNORECASE,
)
# Saying, at the start of a clause, how the answer should be.
_SHOULD_START = re.compile(
    r"^\W*(?:make it|keep (?:it|the|every|each)\b|write (?:it|the [\w ]{1,20}?) as\b|"
    r"put (?:it|them|the [\w ()#-]{1,30}?|commands?) (?:in|on|at)\b|fit it\b|"
    r"break (?:it|that|this) into\b|format (?:it|this|that|the [\w ]{1,20}?) as\b|"
    r"change [\w' ]{1,30}? to\b|tighten\b|condense\b|reference\b|cite\b|"
    r"(?:it|this|that) (?:expects|needs|requires|wants)\b|break (?:it|that|this) "
    r"into\b|wrap\b|fence\b|hard-wrap\b|lower-?case\b|upper-?case\b|capitali[sz]e\b|shorten\b|"
    r"cap (?:it|at)\b|limit\b|prefix\b|(?:start|begin|open|end|finish|close) (?:it |them |"
    r"(?:the|each|every) [\w ]{1,20}? )?(?:with|by)\b|sign (?:it|off)\b|swap\b|replace\b|"
    r"switch\b|turn (?:the|it|that)\b|rewrite\b|reword\b|rephrase\b|simplify\b|use\b|say\b|"
    r"always\b|(?:it |this |that )?needs?\b|give (?:the )?(?:times|dates|me (?:\d|at least|at most|"
    r"only))|write (?:the date|dates|times)|add (?:a |an |the )?['\"`]|add (?:a |an |the )?"
    r"(?:[\w-]+ )?(?:signed|breaking|footer|trailer|line|period|note|reference|link|ticket|"
    r"issue|sign-?off|signature|subject)|mention\b|include\b|link the\b|log it\b|"
    r"(?:we|i) (?:don'?t|do not|never|always|use|write|prefer|only)\b|"
    r"we'?(?:re|ve)\b|(?:each|every) (?:commit|bullet|line|message|item)\b|"
    r"(?:the )?(?:subject|title|first line|summary line|body|message|description|reply|"
    r"answer|command|bullets?|lines?|dates?|times?|tone|wording)\b)",
    re.IGNORECASE,
)
# Words about an answer's form that a short follow-up uses to restate a rule.
_FORM = re.compile(
    r"(?:->|→)|\blike [A-Z]{2,}-\d+|\b(?:one line|single line|plain|prose|paragraph|imperative|"
    r"present tense|lower case|upper case|period|pleasantries|preamble|intro|small talk|"
    r"fluff|filler|technical terms|"
    r"past tense|bullet|bulleted|emojis?|markdown|headings?|headers|code block|fences?|"
    r"backticks|semicolons?|full stop|trailing (?:period|dot|full stop|punctuation|whitespace|"
    r"comma)|exclamation|capital|lower-?case|upper-?case|"
    r"utc|iso|tables?|links?|urls?|format|style|spelling|american|british|us english|jargon|"
    r"list form|"
    r"numbered|unnumbered|numbering|(?:don'?t|doesn'?t|do not|does not) need|"
    r"\d+[- ]?(?:char|word|line|sentence|bullet|column|item)\w*|"
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|fifty) "
    r"(?:char|word|line|sentence|bullet|item)\w*|"
    r"should|must|needs? to|has to|have to|(?:is|are|isn'?t|aren'?t) (?:banned|off-limits|"
    r"not ok|legacy|allowed|not allowed|forbidden)|has to go|instead of|rather than|"
    r"at most|at least|or fewer|or less|or more|tops|max|maximum|minimum|"
    r"too (?:long|short|wordy|verbose|formal|casual|many|much))\b",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[,;:.!?—]+\s+|\s+-\s+|\s+(?:but|so|and then)\s+", re.IGNORECASE)
_POLITE = re.compile(
    r"^\W*(?:(?:please|pls|just|so|and|but|also|then|(?:can|could|would) (?:you|we))\b\s*)+",
    re.IGNORECASE,
)
# What a user says before the request itself ("quick one: …", "when you have a sec, …").
_FILLER_LEAD = re.compile(
    r"^\W*(?:(?:when you have a (?:sec|second|minute|moment)|quick one|quick question|"
    r"one more thing|hey|hi|btw|so)\b[\s,.:;!-]*)+",
    re.IGNORECASE,
)
# A request about a new thing: a file, an issue, "the X bug/fix" — not the answer's form.
_NEW_TOPIC = re.compile(
    r"\b[\w-]+/[\w./-]+|\b\w+\.(?:py|js|ts|tsx|go|rs|rb|java|md|ya?ml|json|toml|cfg|sh)\b|"
    r"\bissue #?\d+|#\d{2,}|\bbug #?\d+|\b(?:for|in|on|about) (?:the |my |our )?[\w -]{1,30}? "
    r"(?:bug|fix|change|problem|crash|issue|feature|release|service|module|branch|diff)\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"\?\s*$")
_WORK_QUESTION = re.compile(r"^\W*(?:why|how|what|which|when|who|is|are|do|does)\b", re.I)
_BLOB = re.compile(r"```[^\n`]*\n")
# A request for more work starts with a verb of work on something other than the answer.
_WORK_START = re.compile(
    r"^\W*(?:write|add|create|implement|build|generate|run|make (?:a|an|the|some)|set up|fix|"
    r"update|refactor|rename|move|review|explain|summari[sz]e|translate|deploy|push|commit|"
    r"merge|rebase|install|configure|test|check|look|investigate|debug|profile|benchmark|"
    r"draft|document|port|convert|open|close|show|list|find|search|read|bump|upgrade|"
    r"downgrade|migrate|scaffold|reproduce|triage|analy[sz]e|audit|optimi[sz]e|clean up)\b"
    r"(?! (?:it|this|that|them|form|msgs?|messages?|subjects?|titles?|lines?)\b)",
    re.IGNORECASE,
)
_INSTEAD = re.compile(r"\b(?:instead of|rather than|not\s+['\"`]|i said|you forgot)\b", re.I)


def is_ack(text: str, after_answer: bool = False) -> bool:
    """A bare acknowledgement ("thanks, perfect", "👍"): acceptance, not a request. After
    an answer, "go ahead" and "keep going" accept it too."""
    text = text.strip()
    if text and _ACK_SYMBOLS.match(text):
        return True
    words = re.findall(r"[a-z']+", text.lower())
    known = _ACK_WORDS | _GO_ON_WORDS if after_answer else _ACK_WORDS
    return 0 < len(words) <= 8 and all(w in known for w in words)


def is_new_work(text: str) -> bool:
    """The follow-up asks for more work ("now …", "also add a test …", "what about …")."""
    return _NEW_WORK.match(text.strip()) is not None


def _clauses(text: str) -> list[str]:
    text = _FILLER_LEAD.sub("", text)
    return [_POLITE.sub("", c).strip() for c in _CLAUSE.split(text) if c.strip()]


def _is_new_request(head: str) -> bool:
    """The follow-up's first clause asks for new work: a verb of work ("write a test
    that …"), or a request about a new thing ("regression test for the overflow bug in
    auth/session.py"), not a word about the answer."""
    if _SHOULD_START.match(head) or _REJECT.match(head):
        return False
    return bool(_WORK_START.match(head) or _NEW_TOPIC.search(head))


def _takes_out(clause: str, answer: str) -> bool:
    """ "drop the headers", "remove the TODO comments": a correction when what is taken
    out is a form word or something the answer has (not "delete the old branch")."""
    m = _TAKE_OUT.match(clause)
    if not m:
        return False
    what = re.sub(r"\s+(?:out|off|away)\b.*$", "", m.group(1))
    if re.fullmatch(r"(?:it|them|those|these|that|this)\W*", what, re.IGNORECASE):
        return True  # "remove them": what the answer has, named before
    if _FORM.search(what) or re.search(r"\W", what.replace(" ", "").replace("-", "")):
        return True  # "the ## titles", "the +/- lines", "the trailing dot"
    words = [w for w in re.findall(r"[\w.]+", what.lower()) if len(w) > 2]
    low = answer.lower()
    return any(w.rstrip("s") in low for w in words)


def classify(text: str, answer: str = "") -> str:
    """``ack``, ``correction`` or ``request`` for a human turn that follows ``answer``."""
    text = text.strip()
    if not text:
        return REQUEST
    if is_ack(text, after_answer=True):
        return ACK
    if len(text) > MAX_CORRECTION_CHARS or text.count("\n") > 3 or _BLOB.search(text):
        return REQUEST
    if is_new_work(text):
        return REQUEST
    if _POINTED.search(text):
        return CORRECTION
    clauses = _clauses(text) or [text]
    if _is_new_request(clauses[0]) and not _INSTEAD.search(text):
        return REQUEST  # "write a commit message …, subject under 50 chars": new work
    if any(_REJECT.match(c) or _SHOULD_START.match(c) or _takes_out(c, answer) for c in clauses):
        return CORRECTION
    first = re.split(r"(?<=[.!?;])\s", text, maxsplit=1)[0]
    if _QUESTION.search(first) and _WORK_QUESTION.match(first):
        return REQUEST  # "why is the cache needed here?": a question about the work
    return CORRECTION if _FORM.search(text) else REQUEST
