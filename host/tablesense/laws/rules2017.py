"""What duplicate-2017 rules in each situation of the cross-code table.

Kept beside the registry (laws/__init__.py attaches it as ``Duplicate2017.rules``)
so that ``tablesense explain`` and docs/laws/compare.md cover all five codes.
"""

from __future__ import annotations

RULES_2017: dict[str, str] = {
    "what is exposed": "a defender's card where partner could possibly see its face, or "
    "named as in his hand (L49)",
    "card below the table": "no table-level rule: could partner see it? (L49)",
    "held so partner can see": "penalty card (L49); if it is his turn, deemed played (L45C1)",
    "shown to an adversary only": "not a penalty card (L49)",
    "card detached so as to be named": "as held: penalty card or deemed played",
    "named as in the hand": "major penalty card (L49)",
    "drawing: more than one card shown": "no drawing in duplicate",
    "card seen in shuffle or cut": "new shuffle and deal (L6D1)",
    "card faced in the pack": "new shuffle and deal (L6D1)",
    "card exposed in the deal": "new shuffle and deal (L6D1)",
    "exposed before the trump declaration": "no declaration (auction code)",
    "exposed during the bidding": "Law 24: spot card stays face up; honour or several "
    "cards: partner must pass once; penalty cards if a defender",
    "exposed before the opening lead": "defender: penalty card (L24E, L50)",
    "adversary's exposed card in play": "minor or major penalty card (L50, L51)",
    "dealer's (declarer's) exposed card": "no rectification (L48A)",
    "dummy's exposed card": "no rectification (L48A)",
    "cards played together": "one visible: played; more: offender chooses, others penalty "
    "cards (L58B)",
    "winning cards led without waiting": "premature lead: major penalty card (L57A)",
    "adversary throws his hand": "penalty cards (L49, L50)",
    "adversaries expose after a claim": "not penalty cards (L68)",
    "all four hands thrown": "a claim or concession (L68)",
    "call not complied with": "Law 52 / 59: director",
    "adversary leads out of turn": "accept, or major penalty card with lead options "
    "(L53-56)",
    "dealer leads out of turn": "defenders accept or require retraction (L55)",
    "false lead followed by all three": "accepted by playing to it (L53)",
    "fourth hand plays before third": "premature play: partner's highest/lowest or a suit "
    "(L57A)",
    "renounce corrected by an adversary": "major penalty card (L62B1)",
    "renounce corrected by the dealer": "no rectification (L62B, L48A)",
    "simultaneous leads": "the later one is premature (L58A)",
    "card named by the dealer is not the exposed one": "not applicable",
}
