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

from skillopt_sleep.mining.phrases import QUOTED, respell
from skillopt_sleep.mining.prefilter import Prefiltered

ACK = "ack"
CORRECTION = "correction"
REQUEST = "request"

# A correction is a short turn; anything longer carries a request of its own.
MAX_CORRECTION_CHARS = 400

# An acknowledgement is made of approval and thanks (at least one) and the small words
# around them: "works for me", "that'll do", "merged, ty", "spot on", "ship it".
_APPROVAL = {
    "thanks", "thank", "thx", "thnx", "thanx", "ty", "tysm", "tyvm", "ta", "cheers", "perfect",
    "great", "ok", "okay", "k", "kk", "lgtm", "nice", "good", "cool", "awesome", "yes", "yep",
    "yup", "yeah", "yea", "sure", "fine", "works", "worked", "working", "done", "exactly",
    "brilliant", "sweet", "merged", "merging", "landed", "shipped", "approved", "right",
    "correct", "excellent", "wonderful", "amazing", "fantastic", "terrific", "superb", "lovely",
    "neat", "beautiful", "solid", "legend", "spot", "bingo", "nailed", "agreed",
    "better", "ship", "love", "sorted", "noted", "understood", "helps", "helped", "helpful",
    "appreciated", "appreciate", "sgtm", "gracias", "merci", "danke", "alright", "pushed",
    "deployed", "committed", "released", "green", "pass", "passes", "passing", "fixed",
    "enough", "👍", "🙏", "✅", "🎉", "👌", "💯", "🙌",
}  # fmt: skip
_ACK_FILLER = {
    "you", "that", "that's", "thats", "that'll", "it", "it's", "its", "it'll", "this", "is",
    "was", "looks", "look", "what", "i", "needed", "wanted", "stuff", "now", "to", "me", "much",
    "so", "a", "lot", "well", "job", "all", "just", "very", "many", "one", "on", "for", "by",
    "the", "do", "will", "does", "set", "go", "makes", "sense", "got", "really", "super",
    "pretty", "too", "as", "and", "we're", "were", "good", "indeed", "definitely", "absolutely",
    "totally", "there", "here", "again", "mate", "man", "dude", "haha", "lol", "hah", "yay",
    "wow", "oh", "ah", "alright", "thing", "one's", "ever", "need", "tests",
}  # fmt: skip
_ACK_WORDS = _APPROVAL | _ACK_FILLER
# After an answer, "go ahead" / "keep going" accept it and let the agent go on.
_GO_ON_WORDS = {"go", "ahead", "do", "keep", "going", "continue", "proceed", "yes"}
_ACK_SYMBOLS = re.compile(r"^[\s👍🙏✅🎉👌💯!.]+$|^\W*\+1\W*$")
_EMOJI_WORD = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")
_SKIN_TONE = re.compile("[\U0001f3fb-\U0001f3ff]")

# An acknowledgement or filler the user may put before a new request ("great, next …").
_LEAD_IN = r"^\W*(?:(?:ok(?:ay)?|great|cool|nice|perfect|thanks|thank you|good|awesome|sweet|"
_LEAD_IN += r"alright|right|yes|yep|lgtm|actually|oh|hey|also)\b[\s,.!:;-]*)*"
# Verbs of work on something other than the answer's text (not "add", "put", "move": "could
# you add the trailer" corrects the answer).
_WORK_VERBS = (
    r"(?:write|create|implement|build|generate|run|set up|review|explain|investigate|debug|"
    r"look (?:at|into)|open|list|show|tell|find|search|deploy|push|merge|rebase|pull|upgrade|"
    r"migrate|draft|tag|bump|ping|close)\b(?! (?:it|this|that|them)\b)"
)
# Words that start a new piece of work, not a fix of the answer just given.
_NEW_WORK = re.compile(
    _LEAD_IN + r"(?:now\b|next\b|then\b|and now\b|one more\b|let'?s\b|moving on\b|"
    r"(?:can|could|would) you (?:also|now|next)\b|please also\b|also\b(?!,? (?:no|don'?t|"
    r"never|drop|remove|lose|keep|make|use|mention|include|add (?:a|the) (?:signed|"
    r"breaking|footer|trailer|line|period|note|reference|link|ticket|sign)))|"
    r"do the same\b|same (?:thing )?for\b|use the same\b|what about\b|how about\b|"
    r"how would\b|how do(?:es)?\b|what does\b|what is\b|what's\b|why (?:is|does|do)\b(?! there)|"
    r"never ?mind\b|no (?:rush|worries|problem|prob)\b|instead of that\b|"
    r"don'?t forget to also\b|not now\b|on another note\b|unrelated\b|"
    r"again,? (?:please,? )?(?:for|on|in|against)\b|"
    r"(?:can|could|would)(?:n'?t)? you (?:not )?just " + _WORK_VERBS + r"|"
    r"don'?t forget to " + _WORK_VERBS + r")",
    re.IGNORECASE,
)
# "deployed, no errors": a status that all went well, not a rejection.
_NO_TROUBLE = r"(?:errors?|issues|problems|complaints|failures|alerts)"
# Rejecting something in the answer, or judging it.
_REJECT = re.compile(
    r"^\W*(?:no\b(?! " + _NO_TROUBLE + r"\s*(?:[.,;!]|$))|nope\b|not\b|nah\b|don'?t\b|"
    r"do not\b|never\b|avoid\b|without\b|"
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
_POINTED = Prefiltered(
    r"\b(?:i said|i told you|i asked(?: for| you)?|as i said|like i said|i wanted|"
    r"you forgot|you missed|you left (?:out|off)|you didn'?t|you still|you used|you added|"
    r"you put|you wrote|forgot\b|(?:is|are|'s|still) missing|missing (?:the|a|an|my)\b|"
    r"^\W*missing\b|\bmissing\W*$|where'?s the|where is the|did you forget|"
    r"not what i|still (?:fail\w*|broken|not|wrong|the same|doesn'?t|does not)|"
    r"(?:did|does|do)(?:n'?t| not) work|that broke|you forget|i'?d rather|"
    r"do we (?:really )?need (?:the|all|that|those|these|a|an)|is there a reason (?:for|to))\b|"
    r"^\W*nits?\s*:|^\W*s/[^/\n]+/[^/\n]*/|\byou use\b",
    re.IGNORECASE,
)
# Saying, at the start of a clause, how the answer should be.
_SHOULD_START = re.compile(
    r"^\W*(?:make it|keep (?:it|the|every|each)\b|should\b|just (?:the|give)\b|"
    r"name (?:it|them|the \w+) after\b|"
    r"annotate\b|write (?:it|the [\w ]{1,20}?) as\b|"
    r"(?:put|pop|stick) (?:it|them|the [\w ()#-]{1,30}?|commands?) (?:in|on|at)\b|fit it\b|"
    r"break (?:it|that|this) into\b|format (?:it|this|that|the [\w ]{1,20}?) as\b|"
    r"change [\w' ]{1,30}? to\b|tighten\b|condense\b|reference\b|cite\b|"
    r"(?:it|this|that) (?:expects|needs|requires|wants)\b|break (?:it|that|this) "
    r"into\b|wrap\b|fence\b|hard-wrap\b|lower-?case\b|upper-?case\b|capitali[sz]e\b|shorten\b|"
    r"cap (?:it|at)\b|limit\b|prefix\b|(?:start|begin|open|end|finish|close) (?:it |them |"
    r"(?:the|each|every) [\w ]{1,20}? )?(?:with|by|w/)(?!\w)|sign (?:it|off)\b|swap\b|replace\b|"
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
    r"list form|(?:on|in|for) (?:each|every) (?:line|bullet|entry|item)|isn'?t on|"
    r"goes (?:in|at|on|into|first)|in front|at the (?:front|start|end)|"
    r"(?:can'?t|cannot|shouldn'?t|must not|mustn'?t|should not) (?:appear|be mentioned)|"
    r"(?:un)?typed|type hints|annotations?|en-gb|snake_?case|camel_?case|quotes|"
    r"numbered|unnumbered|numbering|(?:don'?t|doesn'?t|do not|does not) need|"
    r"\d+[- ]?(?:char|word|line|sentence|bullet|column|col|item)\w*|"
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
    r"\b[\w-]*[a-z][\w-]*/[\w./-]+|\b\w+\.(?:py|js|ts|tsx|go|rs|rb|java|md|ya?ml|json|toml|cfg|sh)\b|"
    r"\bissue #?\d+|#\d{2,}|\bbug #?\d+|\b(?:for|in|on|about) (?:the |my |our )?[\w. -]{1,30}? "
    r"(?:bug|fix|change|problem|crash|issue|feature|release|service|module|branch|diff)\b",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"\?\s*$")
_WORK_QUESTION = re.compile(r"^\W*(?:why|how|what|which|when|who|is|are|do|does)\b", re.I)
_BLOB = re.compile(r"```[^\n`]*\n")
# A request for more work starts with a verb of work on something other than the answer.
_WORK_START = re.compile(
    r"^\W*(?:tell me (?:which|what|how|why|where|whether|if|about)|"
    r"write|add|create|implement|build|generate|run|make (?:a|an|the|some)|set up|fix|"
    r"update|refactor|rename|move|review|explain|summari[sz]e|translate|deploy|push|commit|"
    r"merge|rebase|install|configure|test|check|look|investigate|debug|profile|benchmark|"
    r"draft|document|port|convert|open|close|show|list|find|search|read|bump|upgrade|"
    r"downgrade|migrate|scaffold|reproduce|triage|analy[sz]e|audit|optimi[sz]e|clean up)\b"
    r"(?! (?:it|this|that|them|form|msgs?|messages?|subjects?|titles?|lines?)\b)",
    re.IGNORECASE,
)
# A later sentence or clause that moves on: "… now write the PR description", "let's look at
# the failing test", "… can you list the files you touched?".
_LATER_WORK = re.compile(
    r"^\W*(?:(?:now|next|let'?s)\s+(?:\w+\s+)?" + _WORK_VERBS + r"|let'?s (?:move on|do)\b|"
    r"anyway\b|"
    r"(?:and |but )?(?:can|could|would) you (?:please |also |now |then )*" + _WORK_VERBS + ")",
    re.IGNORECASE,
)
# A lead-in that says how, before the work itself: "without changing anything, tell me …".
_MANNER_LEAD = re.compile(r"^\W*(?:without|instead of|rather than)\s+[^,]{1,40},\s*", re.I)
_BOUND = re.compile(r"\b(?:at least|at most|no more than|no fewer than)\s+\w+", re.I)
_INSTEAD = re.compile(r"\b(?:instead of|rather than|not\s+['\"`]|i said|you forgot)\b", re.I)


# More work named anywhere in the turn: "release notes next please", "next: a regex for …",
# "the rollback steps as well", a file the answer never named ("under Unreleased in
# CHANGELOG.md"), or something new made of the answer ("turn that into a bash script").
_NEXT = re.compile(
    r"\bnext\b(?!\s+(?:time|to|steps?)\b)|\bas well\b|\bthe other \w+|\bthe rest of\b"
    r"(?! (?:the |our )?\w+ (?:uses?|does|is|are|has|follows?|reads?)\b)|\bsame as this one\b|"
    r"\bthat reminds me\b|\bwhile you'?re (?:here|at it)\b|\bthis time for\b",
    re.I,
)
_FILE = re.compile(r"\b[\w./-]*\w\.(?:py|js|ts|tsx|go|rs|rb|java|md|ya?ml|json|toml|cfg|sh|txt)\b")
_MAKE_INTO = re.compile(
    r"\b(?:turn|convert|make|rewrite|wrap|package)\s+(?:it|this|that|them)\s+(?:into|to|as)\s+"
    r"(?:a |an |the )?([\w -]{2,30})",
    re.IGNORECASE,
)
_SELF = re.compile(
    r"\bi (?:said|told you|asked)(?: (?:earlier|before|yesterday|last \w+|this morning))?"
    r"(?: that)? (?:i|i'?d|i'?ll|we|we'?d|we'?ll)\b",
    re.I,
)
# Work put aside, pointed at another thing, or a past decision recalled, before the work to
# do now: "don't touch the tests yet, first refactor …", "no, the v2 endpoint. same fix
# there", "I said last week we'd drop 3.9. update the CI matrix". They steer the work, not
# the answer's text, when a later clause goes on to the work.
_ASIDE = re.compile(
    r"\b(?:don'?t|do not|no need to) (?:worry|bother)\b|\bstop (?:worrying|here)\b|"
    r"\bleave (?:\w+ ){0,3}alone\b|\b(?:don'?t|do not)\s+(?:\w+\s+){1,4}?(?:yet|for now)\b|"
    r"^\W*no \w+(?: \w+){0,4} yet\b|"
    r"^\W*no\b[,.]?\s+(?:i meant |i mean |leave )?(?:the|that|this)\b|"
    r"\bi said (?:earlier|before|yesterday|last \w+|this morning)\b",
    re.I,
)
_ONWARD = re.compile(
    r"^\W*(?:(?:and |but )?(?:can|could|would) you\b|first\b|now\b|just (?!the\b|give\b)\w+|same\b|"
    r"anyway\b|switch to\b|where(?:'s| is| are| do)\b|what(?:'s| is| are| do)\b|"
    r"which\b|how\b|\w+ (?:that|this|the other) one\b)",
    re.I,
)


# "ok and how do I …": an acknowledgement and a new question.
_LEAD_AND = re.compile(_LEAD_IN + r"(?:and|so)\s+", re.I)


def _steers_work(text: str) -> bool:
    """Work put aside or pointed elsewhere, then the work to do now (not a word on the
    answer's form: "no, the subject. 50 chars max" corrects it)."""
    if not _ASIDE.search(text):
        return False
    later = [p for p in re.split(r"[.,;:!?]+\s+|\s+but\s+", text) if p.strip()][1:]
    return any(
        (_ONWARD.search(p) or _WORK_START.match(p))
        and not (_FORM.search(p) or _ANSWER_PART.search(p))
        for p in later
    )


def _about_the_answer(clause: str) -> bool:
    """The clause names a part or a measure of the answer ("how does that fit in 50 chars?")."""
    return bool(_ANSWER_PART.search(clause) or _COUNTED.search(clause))


_COUNTED = re.compile(r"\d+[- ]?(?:chars?|characters|words|lines|sentences|bullets)\b", re.I)
# The parts of an answer a clause that fixes it names ("but can you make the subject shorter").
_ANSWER_PART = re.compile(
    r"\b(?:subject|title|first line|body|summary|reply|answer|wording|tone|bullets?|lines?|"
    r"shorter|longer|simpler|clearer)\b",
    re.I,
)


def _new_thing(text: str, answer: str) -> bool:
    """More work named anywhere in the turn, not only at its start."""
    if _NEXT.search(text) or _SELF.search(text):
        return True
    for m in _FILE.finditer(text):
        if m.group(0) not in answer:
            return True
    made = _MAKE_INTO.search(text)
    return bool(made and not _FORM.search(made.group(1)) and not re.search(
        r"\b(?:list|table|paragraph|sentences?|line|bullets?|block|steps|prose|text)\b",
        made.group(1), re.I))  # fmt: skip


def _breaks_stated_rule(text: str, answer: str, asks: bool = True) -> bool:
    """The turn states a rule the answer just given breaks: it forbids something the
    answer has or (with ``asks``) asks for something it lacks ("number the steps please",
    "code only.", "keep Brightwater out of it")."""
    from skillopt_sleep.mining.breaks import broken_by_respelt

    return bool(answer) and broken_by_respelt(text, answer, asks)  # ``classify`` respelt it


_ACK_PHRASE = re.compile(
    r"^\W*(?:(?:that'?s|that is|this is) (?:it|the one)|no (?:notes|changes|further notes)|"
    r"nothing (?:else|to add))\W*$",
    re.IGNORECASE,
)


def is_ack(text: str, after_answer: bool = False) -> bool:
    """A bare acknowledgement ("thanks, perfect", "👍"): acceptance, not a request. After
    an answer, "go ahead" and "keep going" accept it too."""
    text = _SKIN_TONE.sub("", text).strip()
    text = re.sub(rf"(?i)\bno {_NO_TROUBLE}(?=\s*(?:[.,;!]|$))", "fine", text)
    if text and (_ACK_SYMBOLS.match(text) or _ACK_PHRASE.match(text)):
        return True
    words = re.findall(r"[a-z']+|[\U0001F000-\U0001FAFF\u2600-\u27BF]", text.lower())
    known = _ACK_WORDS | _GO_ON_WORDS if after_answer else _ACK_WORDS
    approving = any(w in _APPROVAL for w in words) or (
        after_answer and any(w in _GO_ON_WORDS for w in words)
    )
    return (
        0 < len(words) <= 10
        and approving
        and all(w in known or _EMOJI_WORD.fullmatch(w) for w in words)
    )


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
    if _SHOULD_START.match(head) or _REJECT.match(head) or _BOUND.search(head):
        return False  # "list at least 3 alternatives": a count the answer missed
    unquoted = QUOTED.sub(" ", head)  # "remember the 'Closes #512' line": an example
    unquoted = re.sub(r"\([^()]*\)", " ", unquoted)  # "(#1203) style": an example too
    unquoted = re.sub(r"\b(?:e\.g\.?|like|such as|for example)\s*:?\s*\S+", " ", unquoted)
    return bool(_WORK_START.match(head) or _NEW_TOPIC.search(unquoted))


def _takes_out(clause: str, answer: str) -> bool:
    """ "drop the headers", "remove the TODO comments": a correction when what is taken
    out is a form word or something the answer has (not "delete the old branch")."""
    m = _TAKE_OUT.match(clause)
    if not m:
        return False
    if re.match(r"\W*(?:leave (?:out|off)|lose|skip|cut|trim|strip)\b", clause, re.IGNORECASE):
        return True  # verbs that edit text: "leave out the stack trace"
    what = re.sub(r"\s+(?:out|off|away)\b.*$", "", m.group(1))
    if re.fullmatch(r"(?:it|them|those|these|that|this)\W*", what, re.IGNORECASE):
        return True  # "remove them": what the answer has, named before
    if _FORM.search(what) or re.search(r"\W", what.replace(" ", "").replace("-", "")):
        return True  # "the ## titles", "the +/- lines", "the trailing dot"
    if _PARTS.search(what):
        return True  # "drop the hype words", "strip the comments": parts of the text
    words = [w for w in re.findall(r"[\w.]+", what.lower()) if len(w) > 2 and w not in _SMALL]
    low = answer.lower()
    return any(re.search(rf"\b{re.escape(w.rstrip('s'))}", low) for w in words)


# Parts of an answer's text a user takes out; small words that name nothing in it.
_PARTS = re.compile(
    r"\b(?:words|phrases|wording|jargon|fluff|filler|comments?|prompts?|narration|line numbers|"
    r"traceback|stack ?trace)\b",
    re.IGNORECASE,
)
_SMALL = {"the", "and", "all", "any", "for", "from", "too", "with", "that", "this", "those",
          "these", "out", "off", "away", "its", "our", "your", "their", "one", "ones"}  # fmt: skip


_HOW_QUESTION = re.compile(
    r"^\W*(?:how (?:does|do|is|are|would|should|much|many)|what (?:version|needs|should|would)|"
    r"where (?:is|are|do|does)|(?:and |so )?how do i)\b.*\?\s*$",
    re.I,
)
# A question marked as only a question: "…? just asking", "just curious".
_ONLY_ASKING = re.compile(r"\?\s*(?:just (?:asking|curious|wondering))\W*$", re.I)
_SHOWN = re.compile(r"^\W*(?:should (?:be|read|look like)|like this|more like|i meant)\W*\n", re.I)


def _moves_on(text: str) -> bool:
    """A later sentence moves on to new work ("no, that's all. now write the PR
    description"), or the work follows a word of manner ("without changing anything,
    tell me …")."""
    if _INSTEAD.search(text) and not _MANNER_LEAD.match(text):
        return False
    parts = [p for p in re.split(r"(?<=[.!?;:,])\s+", text) if p.strip()]
    if any(_LATER_WORK.match(p) for p in parts[1:]):
        return True
    if re.search(r"\s(?:and|then)\s+(?:then\s+)?" + _WORK_VERBS, text, re.IGNORECASE):
        return True  # "drop the old PR and open a new one"
    if any(_HOW_QUESTION.match(p) and not _about_the_answer(p) for p in parts[1:]):
        return True  # "hmm, interesting. how does the backoff work?"
    rest = _MANNER_LEAD.sub("", text, count=1)
    if rest == text:
        return False
    return bool(_WORK_START.match(_POLITE.sub("", rest)) or _LATER_WORK.match(rest))


def classify(text: str, answer: str = "") -> str:
    """``ack``, ``correction`` or ``request`` for a human turn that follows ``answer``."""
    text = text.strip()
    if not text:
        return REQUEST
    if is_ack(text, after_answer=True):
        return ACK
    shown = _SHOWN.match(text)  # "should be ```…``` one per line": the answer as it should be
    if shown:
        text = re.sub(r"```.*?(?:```|$)", " ", text, flags=re.DOTALL).strip()
    if len(text) > MAX_CORRECTION_CHARS or text.count("\n") > 3 or _BLOB.search(text):
        return REQUEST
    text = respell(text, answer)  # "use rg insted of grep"
    if is_new_work(text) or _steers_work(text):
        return REQUEST
    if _ONLY_ASKING.search(text) or _HOW_QUESTION.match(_LEAD_AND.sub("", text)):
        return REQUEST
    if _moves_on(text):
        return REQUEST
    # work named or asked for ("write a commit message …, subject under 50 chars") is new
    # work, unless it states a rule the answer just given breaks ("list the columns, no
    # select *", "pin actions to full commit SHAs")
    if _new_thing(text, answer):
        return CORRECTION if _breaks_stated_rule(text, answer, asks=False) else REQUEST
    if _POINTED.search(text):
        return CORRECTION
    clauses = _clauses(text) or [text]
    if _is_new_request(clauses[0]) and not _INSTEAD.search(text):
        return CORRECTION if _breaks_stated_rule(text, answer, asks=False) else REQUEST
    if any(_REJECT.match(c) or _SHOULD_START.match(c) or _takes_out(c, answer) for c in clauses):
        return CORRECTION
    first = re.split(r"(?<=[.!?;])\s", text, maxsplit=1)[0]
    # "why is the cache needed here?": a question about the work, unless it states a rule
    # the answer breaks; the grammar's reading (the dearest test) is made only where it decides
    question = _QUESTION.search(first) and _WORK_QUESTION.match(first)
    if not question and _FORM.search(text):
        return CORRECTION
    return CORRECTION if _breaks_stated_rule(text, answer) else REQUEST
