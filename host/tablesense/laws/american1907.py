"""American "Club Code" of Bridge laws, as printed by J. B. Elwell, Revised 1907 (seed 003).

The Portland code with a few predicates changed: a card held so that partner can
see any portion of its face is exposed (so one only an adversary sees is not);
the eldest hand alone claims a new deal, "without consulting with his partner";
a failure to comply with a call is forgiven if corrected before the trick is
turned and quitted; the adversaries' cards shown after "I have the rest" are
not liable to be called. The 1907 laws carry no numbers: citations name the
section heading.
"""

from __future__ import annotations

from typing import ClassVar

from tablesense.contract.vocab import Option
from tablesense.laws.portland1904 import Portland1904

EXPOSED_DURING_PLAY = "Cards exposed during play"


class American1907(Portland1904):
    """Elwell's Club Code: partner-can-see exposures; calls may be corrected in time."""

    id: ClassVar[str] = "american-1907"
    title: ClassVar[str] = "American Club Code of Bridge laws (Elwell, Revised 1907)"
    year: ClassVar[int] = 1907
    source: ClassVar[str] = (
        "The Laws of Bridge, Revised 1907 (the American Club Code), in J. B. Elwell, Bridge "
        "Axioms and Laws (Dutton, 1907)")
    partner_sees_rule: ClassVar[bool] = True
    deal_claimants_of_dealer_side: ClassVar[str] = "eldest"
    leader_pre_lead_callable: ClassVar[bool] = False
    correct_before_quit: ClassVar[bool] = True
    premature_options: ClassVar[tuple[Option, ...]] = (
        "require-highest", "require-lowest", "require-win", "require-not-win")
    dummy_down_on_any_lead: ClassVar[bool] = False  # "As soon as the eldest hand has led"
    hands_abandoned: ClassVar[bool] = False  # no "hands abandoned" law in the 1907 text
    misnamed_rule: ClassVar[bool] = False
    claim_exempts_adversaries: ClassVar[bool] = True
    # "If the dealer or his partner expose a card" in the deal: a dealt card that falls
    # face up or to the floor in the dealing is exposed by the dealer, not the receiver
    dealt_card_exposer: ClassVar[str] = "dealer"
    cite: ClassVar[dict[str, str]] = {
        **Portland1904.cite,
        "draw": "Cutting", "shuffle": "Shuffling", "cut": "The deal", "pack": "A new deal (c)",
        "deal": "There may be a new deal (a, b, d)",
        "deal-below": "There may be a new deal (a, b); " + EXPOSED_DURING_PLAY, "pre-declaration":
        "Cards exposed before play ¶1", "forfeit": "Cards exposed before play ¶2",
        "leaders-partner": "Cards exposed before play ¶2", "leader":
        "Cards exposed before play ¶2", "below": EXPOSED_DURING_PLAY,
        "exposed": EXPOSED_DURING_PLAY + " (2d)", "held": EXPOSED_DURING_PLAY + " (3d)",
        "detached": EXPOSED_DURING_PLAY + " (3d)", "named": EXPOSED_DURING_PLAY,
        "together": EXPOSED_DURING_PLAY + " (1st)", "winning-cards": EXPOSED_DURING_PLAY,
        "dealer-claim": EXPOSED_DURING_PLAY, "thrown": EXPOSED_DURING_PLAY,
        "claim": EXPOSED_DURING_PLAY + " (\"I have the rest\")",
        "own-claim": EXPOSED_DURING_PLAY + " (throw his or their cards)",
        "comply": EXPOSED_DURING_PLAY + " (last ¶)", "loot": "Leads out of turn",
        "opening-loot": "Leads out of turn", "dealer-loot": "Leads out of turn ¶2",
        "false-lead": "Leads out of turn ¶3", "fourth-before-third": "Cards played in error",
        "played-in-error": EXPOSED_DURING_PLAY + " (2d)", "renounce": "The revoke",
        "treated": "Leads out of turn", "dealer-renounce": "The revoke",
        "revoke": "The revoke", "dealer": EXPOSED_DURING_PLAY + " (dealer)",
        "dummy": "Dummy", "dealer-premature": "Leads out of turn ¶2",
        "dummy-revoke": "Dummy (\"not liable to the penalty for a revoke\")",
        "dealer-together": EXPOSED_DURING_PLAY, "dealer-shows": EXPOSED_DURING_PLAY,
        "simultaneous": EXPOSED_DURING_PLAY + " (2d)"}
    rules: ClassVar[dict[str, str]] = {
        **Portland1904.rules,
        "what is exposed": "two or more cards played at once (1st); a card dropped face up or "
        "in any way exposed on or above the table (2d); a card held so that partner can see "
        "any portion of its face (3d)",
        "card below the table": "not exposed (Cards exposed during play)",
        "drawing: more than one card shown": "cut again (Cutting)",
        "card faced in the pack": "a new deal is required (A new deal, c)",
        "adversary's exposed card in play": "liable to be called, left face up; the call may "
        "be repeated at every trick until played; never forces a revoke",
        "cards played together": "the dealer calls which one he pleases to the current trick "
        "(without a call, the one left in the trick zone); the others stay face up and may be "
        "called at any time (1st)",
        "winning cards led without waiting": "partner may be made to win, if he can; the "
        "others are exposed",
        "adversary throws his hand": "exposed, liable to be called; the other cannot be forced "
        "to abandon his hand",
        "adversary leads out of turn": "call the card, or call a suit when either adversary "
        "next leads (Leads out of turn)",
        "dealer leads out of turn": "no penalty; cannot be rectified after second hand plays",
        "false lead followed by all three": "the trick stands",
        "renounce corrected by an adversary": "the card is exposed and may be called, or "
        "highest/lowest to that trick (The revoke)",
        "renounce corrected by the dealer": "highest or lowest, if both adversaries have "
        "played and he is not fourth; never from dummy (The revoke)",
        "simultaneous leads": "the card led out of turn is exposed (2d)",
        "held so partner can see": "exposed (3d); held so only an adversary sees it: not",
        "shown to an adversary only": "held cards: not exposed; dropped face up: exposed",
        "card detached so as to be named": "exposed if partner can see it (3d)",
        "card seen in shuffle or cut": "re-shuffle; fresh cut",
        "card below the table in the deal": "the deal law is silent: read with \"Cards exposed "
        "during play\", not exposed and no claim; the director decides",
        "card exposed in the deal": "by the player who exposed it (a card dealt to him face "
        "down, then face up before him, is his): the other side (the eldest hand for the "
        "dealer's side) may claim a new deal before the deal is complete and before looking at "
        "his cards (There may be a new deal a, b)",
        "exposed before the trump declaration": "by the dealer or dummy: the eldest hand may, "
        "without consulting his partner, claim a new deal; partner forfeits double/redouble",
        "exposed before the opening lead": "partner forfeits double/redouble; leader's "
        "partner's card: call it or forbid the leader its suit; the leader's own card: not "
        "said (director)",
        "dummy's exposed card": "no dummy penalty in the 1907 text (Dummy)",
        "adversaries expose after a claim": "after the dealer's \"I have the rest\": not "
        "liable to be called",
        "named, then shown face up": "exposed (2d): the naming does not cover it",
        "defender's own claim or concession, cards shown": "exposed, liable to be called: only "
        "the dealer's claim spares them",
        "all four hands thrown": "no such law in the 1907 text: each adversary's cards are "
        "exposed",
        "call not complied with": "penalty of a revoke unless corrected before the trick is "
        "turned and quitted",
        "fourth hand plays before third": "second hand may be called on for highest or "
        "lowest, or to win or lose the trick",
        "card named by the dealer is not the exposed one": "an invalid call (no rule)",
    }

    def classify(self, how: str, vis: str) -> str:
        if how in ("held", "detached"):
            return {"yes": "exposed", "no": "not"}.get(vis, "director")
        return super().classify(how, vis)

    def deal_below_words(self) -> str:
        return ("\"There may be a new deal\" does not say whether such a card is exposed; read "
                "with \"A card dropped on the floor or elsewhere below the table is not an "
                "exposed card\" it is not, and no new deal may be claimed: the director decides.")

    def consult_words(self) -> str:
        return ", without consulting with his partner"

    def pre_lead_words(self, role: str) -> str:
        if role != "leaders-partner":
            return ""
        return " The declarer may either call it or require the leader not to lead its suit."
