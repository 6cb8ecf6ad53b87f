"""The words users call the features of an answer by (``trainer.features.FEATURES``): a cue
per feature, read loosely ("smileys", "the ___ divider", "thousands separators"), compiled
once. ``topics`` reads a correction's features with them."""

from __future__ import annotations

import re

# Words that name a feature of an answer (``trainer.features.FEATURES``), loosely. A cue
# marked "~" names the feature's opposite ("imperative" is no past tense, "a paragraph" no
# list): asked for, it forbids the feature; rejected ("not a paragraph"), it asks for it.
# "mark:" cues name a mark of a form: the final period, a bullet's dash.
FEATURE_CUES: list[tuple[str, str]] = [
    (
        "emoji",
        r"emojis?|emoticons?|smileys?|icons|[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF]",
    ),
    ("heading", r"(?:section )?head(?:ing|er)s?|##+\s?\w*|hashes|titles"),
    ("code_fence", r"code ?blocks?|code fences?|fences?|fenced(?: blocks?)?|triple backticks|```"),
    ("inline_code", r"backticks?|inline code|`?code`? format(?:ting|ted)?"),
    (
        "~untagged_fence",
        r"(?:the |a |with (?:the |a )?)?(?:language|lang)(?: tag)?|"
        r"tag(?:ged)?(?= (?:the|it|them|each|every)\b)",
    ),
    ("untagged_fence", r"(?:bare|untagged|naked) (?:```|fences?|code ?blocks?)"),
    ("bullet", r"bullet(?:ed)?(?: points?| lists?)?"),
    ("list", r"lists?|list form|slide ?deck"),
    ("~list", r"paragraphs?|prose|flowing text|(?:normal|full|complete|plain) sentences"),
    (
        "numbered_list",
        r"numbered(?: lists?| steps?)?|numbering|number (?:the|them|each|every)|"
        r"numbers",
    ),
    ("table", r"tables?"),
    ("link", r"links?|urls?|hyperlinks?"),
    ("bold", r"bold(?:ing|ed)?|\*\*\w*\*\*"),
    ("italic", r"italics?|italici[sz]\w*|emphasis"),
    ("hashtag", r"hashtags?"),
    ("at_mention", r"@-?mentions?|at-mentions?|tagging people|pinging people"),
    ("markdown", r"markdown|markup|(?<!code )(?<!code` )formatting"),  # not inline code's
    ("~markdown", r"plain text|plain-text"),
    ("exclamation", r"exclamation(?: marks?| points?)?|bangs?|!{2,3}s?"),
    ("apology", r"apolog\w*|sorry|sorrys|sorries|my bads?"),
    ("hedging", r"hedg\w*|maybes|guess(?:es|ing|work)?|speculat\w*|wishy-washy|weasel words"),
    (
        "flattery",
        r"flattery|flatter\w*|sycophan\w*|compliments?|butter(?:ing)? (?:me )?up|"
        r"tell(?:ing)? me (?:I'?m|I am) right",
    ),
    (
        "nested_list",
        r"nested (?:lists?|bullets?|items?)|sub-?(?:bullets?|points?|items?|lists?)|"
        r"indented (?:sub[- ]?)?(?:bullets?|points?|items?)",
    ),
    ("~nested_list", r"flat (?:lists?|bullets?)|(?:one|single) level|flatten(?: it| them)?"),
    ("recap", r"recaps?|(?:closing |final )?summary at the end|wrap-?ups?|summing up"),
    (
        "hype",
        r"hype(?: words)?|hyperbole|buzzwords?|marketing (?:speak|language|fluff)|"
        r"superlatives?|salesy",
    ),
    ("preamble", r"intro|introduction|preamble|pleasantries|opener|opening line"),
    ("closing_offer", r"sign-?off(?: line)?|closing (?:offer|line)|outro|offer to help"),
    ("contraction", r"contractions?"),
    ("~contraction", r"spell (?:it |them |those |these )?out|expand them"),
    ("past_tense", r"past[- ]tense"),
    ("~past_tense", r"imperative(?: mood)?|as a command|present tense"),
    ("first_person", r"first person"),
    ("first_person_any", r"first person(?! singular)"),
    ("question", r"(?:a |with a |in a )?questions?"),
    ("diff_lines", r"diff lines|the diff|hunks|\+/- lines"),
    # the words, the mark alone ("no —") or named with its kind ("all the — dashes")
    ("em_dash", r"em[- ]?dash(?:es)?|(?<=no )—|— ?dash(?:es)?"),
    ("checkbox", r"check ?box(?:es)?(?:[- ]lists?)?|task[- ]lists?|todo boxes"),
    (
        "top_heading",
        r"h1s?|(?:top[- ]level|level[- ]one|big|large) [`'\"]?#?[`'\"]? ?(?:headings?|headers?|"
        r"titles?)",
    ),
    ("shell_prompt", r"dollar(?:[- ]signs?| prompts?)?|\$ prompts?|shell prompts?"),
    ("code_comment", r"(?:code |inline )?comments?"),
    (
        "bare_except",
        r"(?:bare|naked|blanket|empty) [`'\"]?except\b:?[`'\"]?|`except:`|catch-?alls?",
    ),
    (
        "~untyped_def",
        r"(?:return )?type (?:hints?|annotations?)|return (?:types?|annotations?)|"
        r"annotat\w*|(?:type-?)?hints",
    ),
    ("untyped_def", r"untyped (?:defs?|functions?)"),
    ("~camelcase_def", r"snake[_ -]?case"),
    ("camelcase_def", r"camel[_ -]?case"),
    ("~single_quoted", r"double[- ]quot\w*|double quotes"),
    ("single_quoted", r"single[- ]quot\w*|single quotes"),
    (
        "~american_spelling",
        r"british(?: english| spellings?)?|uk (?:english|spellings?)|en[-_]gb|-is(?:e|ation)",
    ),
    (
        "~british_spelling",
        r"american(?: english| spellings?)?|us (?:english|spellings?)|"
        r"en[-_]us|-iz(?:e|ation)",
    ),
    ("~glued_body", r"(?:blank|empty) line"),
    ("~unsorted", r"alphabetic\w*|a-z(?!\])|sort(?:ed)?(?: them| it)? (?:alphabetically|a-z)"),
    # classes of text (``trainer.text_classes``): what users call them
    (
        "curly_quote",
        r"(?:smart|curly|fancy|typographic(?:al)?) (?:quotes?|quotation marks|apostrophes?|ones)|"
        r"curly(?! (?:braces?|brackets?))",
    ),
    ("~curly_quote", r"straight (?:quotes?|quotation marks|apostrophes?)"),
    ("ellipsis", r"ellips[ie]s|ellipsis(?: char\w*)?|\.\.\.|\u2026"),
    (
        "horizontal_rule",
        r"horizontal (?:rules?|lines?|bars?)|(?:divider|separator|rule) lines?|dividers?|"
        r"(?:---|\*\*\*|___)(?: separators?| dividers?| lines?)?",
    ),
    ("blockquote", r"block-?quot\w*|quote blocks?|>\s?quotes?"),
    ("bare_url", r"(?:raw|bare|naked|plain|full) (?:urls?|links?)"),
    ("~bare_url", r"markdown links?|\[text\]\(url\)|proper links?|named links?"),
    ("~number_word", r"numerals?|digits|as numbers"),
    (
        "number_word",
        r"spell(?:ed|ing)? (?:the |them |those )?numbers? out|numbers? spelled out|number words|"
        r"(?:written|spelled)[- ]out numbers?",
    ),
    # the remedy named ("thousands separators", "a space before the unit") forbids the class
    (
        "~long_number",
        r"thousands?[- ](?:separators?|commas?)|digit grouping|(?:commas|separators) (?:in|for) "
        r"(?:the )?(?:big |large |long )?numbers|(?:big|large) numbers",
    ),
    (
        "~glued_unit",
        r"(?:a )?space (?:before|between) (?:the )?(?:number and (?:the )?)?units?|"
        r"units?(?! tests?)(?= with a space)|(?:number|value) and (?:the |its )?unit",
    ),
    ("~currency_symbol", r"(?:iso )?currency codes?|iso codes?"),
    (
        "currency_symbol",
        r"currency (?:symbols?|signs?)|(?:dollar|euro|pound|yen) (?:signs?|symbols?)|"
        r"[\u20ac\u00a3\u00a5]",
    ),
    ("~short_flag", r"long (?:flags?|options?|forms?)"),
    ("short_flag", r"short (?:flags?|options?)"),
    ("file_name", r"file ?names?|file ?paths?|the files?"),
    # "end with a point": the full stop as many non-native writers name it
    ("mark:.", r"periods?|full stops?|dots?|(?:trailing )?punctuation|(?<=with )(?:a )?point"),
    ("mark:-", r"dashes|hyphens"),
    ("mark:;", r"semi-?colons?"),
]
FEATURE_TOPIC_RX = [
    # "task-list": a compound names its own feature, not the list its second half says
    (re.compile(rf"(?<![\w#`-])(?:{p})(?![\w])", re.IGNORECASE), f)
    for f, p in FEATURE_CUES
]
ANY_CUE = re.compile(  # one of them matches, in one pass (``phrases.ANY_FEATURE``)
    r"(?<![\w#`-])(?:" + "|".join(f"(?:{p})" for _, p in FEATURE_CUES) + r")(?![\w])", re.I
)

# Words that show the user named a feature, read loosely: a judge model's feature without
# one is invented, and a feature the pair alone shows is kept only with one (``contrast``).
GROUNDS: dict[str, str] = {
    "emoji": r"emoji|emoticon|icon|smiley",
    "heading": r"head|title|##|section",
    "code_fence": r"fence|block|backtick|```",
    "bullet": r"bullet|list|dash|point|prose|paragraph|item",
    "list": r"bullet|list|dash|point|prose|paragraph|item|number|step",
    "numbered_list": r"number",
    "table": r"table|column",
    "link": r"link|url|http",
    "bold": r"bold|asterisk|\*\*|format|markdown",
    "markdown": r"markdown|markup|format|plain|asterisk|hash",
    "exclamation": r"exclam|!|bang|tone",
    "trailing_punctuation": r"punctuat|period|dot|full stop",
    "question": r"question|ask",
    "apology": r"sorry|apolog",
    "preamble": r"intro|preamble|sure|certainly|here'?s|straight|pleasantr|fluff|open",
    "past_tense": r"tense|imperative|past|mood|command",
    "lowercase_start": r"lower|capital|case",
    "capital_start": r"capital|upper|case",
    "diff_lines": r"diff|hunk|\+/-|patch|change|quote",
    "first_person": r"first person|\bi\b|\bme\b|\bmy\b|\bwe\b",
    "contraction": r"contraction|spell|expand|formal",
    "closing_offer": r"let me know|hope|sign-?off|closing|offer|end",
    "untagged_fence": r"language|lang|tag|highlight",
    "inline_code": r"backtick|inline|code",
    "imperative": r"imperative|command|tense|mood",
    "italic": r"italic|emphasis",
    "hashtag": r"hashtag",
    "at_mention": r"mention|@|tag",
    "em_dash": r"em[- ]?dash",
    "checkbox": r"check ?box|task[- ]list",
    "top_heading": r"h1|top[- ]level|level[- ]one|#",
    "shell_prompt": r"dollar|\$|prompt",
    "code_comment": r"comment",
    "bare_except": r"except|catch",
    "untyped_def": r"annotat|hint|return type|typed",
    "camelcase_def": r"camel|snake",
    "single_quoted": r"quot",
    # the spelling asked for touches only the other one: "British" never forbids British
    "american_spelling": r"british|en-gb|\buk\b|-ise",
    "british_spelling": r"american|en-us|\bus\b|-ize",
    "glued_body": r"blank line|empty line",
    "unsorted": r"alphabetic|\ba-z\b|sorted",
    "hedging": r"hedg|maybe|probabl|guess|speculat|perhaps|might",
    "hype": r"hype|buzz|marketing|superlative|salesy|thrilled|excit|seamless",
    "flattery": r"flatter|sycophan|compliment|\bcatch\b|great question|\bright\b",
    "recap": r"recap|summar|conclusion|wrap-?up",
    "nested_list": r"nest|sub-?(?:bullet|point|item|list)|flat|level|indent",
    "curly_quote": r"smart|curly|straight|typographic",
    "first_person_any": r"first person|\bwe\b|\bour\b|\bus\b",
    "ellipsis": r"ellips|\.\.\.|\u2026|dots",
    "horizontal_rule": r"horizontal|divider|separator|rule|---|\*\*\*|___",
    "blockquote": r"quot|>",
    "bare_url": r"url|link",
    "number_word": r"numeral|digit|spell|number",
    "long_number": r"thousand|separator|comma|big number|large number",
    "glued_unit": r"unit",
    "currency_symbol": r"currenc|symbol|sign|dollar|euro|pound|[\u20ac\u00a3\u00a5$]",
    "short_flag": r"flag|option",
    "file_name": r"file|path",
}
