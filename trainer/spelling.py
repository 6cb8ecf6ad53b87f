"""The two spellings of English a house style asks for: an American one ("color",
"organize") and a British one ("colour", "organise").

They are features of the check vocabulary (``trainer.features.FEATURES``): "British spelling"
forbids every American spelling, "US spelling" every British one. Each is written to miss
the words both spellings share ("size", "prize"; "promise", "exercise", "analyses", the
plural of "analysis"), so an answer in the house spelling passes whatever it talks about.
"""

from __future__ import annotations

import re

# American spellings a British house style changes: -or words, -er words, -ize/-yze verbs
# (not "size", "prize", "seize" and their compounds, which both spellings share).
_US_WORDS = {
    "color", "colors", "colored", "behavior", "behaviors", "favorite", "favorites", "honor",
    "labor", "neighbor", "flavor", "humor", "rumor", "harbor", "endeavor", "center", "centers",
    "centered", "theater", "fiber", "catalog", "catalogs", "gray", "canceled", "canceling",
    "traveled", "modeling", "modeled", "labeled", "labeling", "defense", "offense", "fulfill",
}  # fmt: skip
_US_SUFFIX = re.compile(r"(?:[a-z]{2,}(?:iz|yz)(?:e|es|ed|ing|ation|ations|er|ers))")
_SHARED_IZE = re.compile(r"(?:size|prize|seize|capsize|citize)[a-z]*")

# British spellings an American house style changes: the same classes the other way round.
_UK_WORDS = {
    "colour", "colours", "coloured", "behaviour", "behaviours", "favourite", "favourites",
    "honour", "labour", "neighbour", "flavour", "humour", "rumour", "harbour", "endeavour",
    "centre", "centres", "centred", "theatre", "fibre", "catalogue", "catalogues", "grey",
    "cancelled", "cancelling", "travelled", "modelling", "modelled", "labelled", "labelling",
    "defence", "offence", "fulfil", "licence", "programme", "programmes", "analyse",
    "analysed", "analysing", "paralyse", "catalyse",
}  # fmt: skip
_UK_SUFFIX = re.compile(r"(?:[a-z]{2,}is(?:e|es|ed|ing|ation|ations|er|ers))")
# Words ending in -ise that American English spells so too ("promise", "advertise",
# "sunrise", "otherwise", "crises", a name like "Denise"): no British spelling. Read from
# the word's start (after a prefix such as "dis" or "sun"), so "summarise" and "polarise",
# which hold "aris", are still British.
_SHARED_ISE = re.compile(
    r"(?:a|sun|up|fund|dis|en|disen|re|un|over|counter|pre|mis|self|super|sub)?"
    r"(?:advertis|advis|anis|apprais|appris|bruis|ceris|chastis|chemis|circumcis|compris|"
    r"compromis|concis|crises|cruis|demis|denis|despis|devis|elis|enterpris|excis|exercis|"
    r"expertis|franchis|guis|improvis|incis|louis|merchandis|mortis|nois|paradis|pois|"
    r"porpois|prais|precis|premis|promis|rais|repris|revis|ris|surmis|surpris|supervis|"
    r"televis|tortois|treatis|turquois|valis)"
)


def american(word: str) -> bool:
    """``word`` is spelled the American way and the British way differs ("color")."""
    low = word.lower()
    if low in _US_WORDS:
        return True
    return bool(_US_SUFFIX.fullmatch(low)) and not _SHARED_IZE.search(low)


def british(word: str) -> bool:
    """``word`` is spelled the British way and the American way differs ("colour")."""
    low = word.lower()
    if low in _UK_WORDS:
        return True
    if low.endswith(("wise", "wiser")):
        return False  # "otherwise", "likewise", "clockwise"
    return bool(_UK_SUFFIX.fullmatch(low)) and not _SHARED_ISE.match(low)


def has_american(text: str) -> bool:
    return any(american(w) for w in re.findall(r"[A-Za-z]+", text))


def has_british(text: str) -> bool:
    return any(british(w) for w in re.findall(r"[A-Za-z]+", text))
