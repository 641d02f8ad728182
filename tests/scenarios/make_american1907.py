"""Writes the american-1907 golden scenarios (tests/scenarios/american-1907/), seed 003.

Same deal and declaration as make_portland1904.py (North deals and declares, East
leads, South is dummy); scenarios whose law is the same in both codes are the
Portland ones replayed under this code, the others are written here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import make_portland1904 as p
from script import Script

CODE = "american-1907"
SHARED = ("exposed-card-called", "snatched-up", "below-the-table", "cards-played-together",
          "winning-cards-without-waiting", "adversary-throws-hand", "held-so-partner-sees",
          "lead-out-of-turn-card-called", "dealer-leads-out-of-turn", "false-lead-followed",
          "call-never-forces-revoke", "dealer-exposes-before-declaration", "forfeit-double",
          "leaders-partner-suit-forbidden", "leader-exposes-before-lead", "draw-two-cards",
          "card-exposed-in-cut", "card-faced-in-pack", "renounce-corrected-card-called",
          "revoke-established", "dealer-drops-card", "named-card", "named-then-shown",
          "named-then-shown-before-declaration",
          "together-none-called", "together-at-opening-lead", "together-at-opening-lead-called",
          "dealt-card-exposed-by-receiver", "redeal-starts-clean", "redeal-then-exposed-in-deal",
          "dummy-revoke-corrected", "played-out-of-turn-counted", "card-below-table-in-deal",
          "fourth-before-partner-taken-back", "dealer-premature-taken-back",
          "losing-card-then-led-again")
SCENARIOS = {name: p.SCENARIOS[name] for name in SHARED}


def scenario(fn: Callable[[str], Script]) -> Callable[[str], Script]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


@scenario
def held_adversary_only(code: str) -> Script:
    """3d: a card only an adversary could see is not exposed."""
    return p.after_two_tricks(code).obs("W", "HK", "hand", seen_by=["N"])


@scenario
def claim_then_adversaries_expose(code: str) -> Script:
    """"I have the rest": the adversaries' cards exposed after it are not liable to be called."""
    s = p.after_two_tricks(code).cmd("claim", seat="N").spread("N", ["S2", "HA", "HQ", "H6"])
    return s.spread("E", ["SK", "S6", "H7"]).spread("W", ["SA", "SQ", "HK"])


@scenario
def one_adversary_keeps_hand(code: str) -> Script:
    """Either adversary may throw his cards; the other cannot be forced to abandon his hand."""
    s = p.after_two_tricks(code).spread("W", ["SA", "SQ", "HK", "H9"])
    return s.cmd("decide", option="call-card", card="HK").trick("E:H7 S:H2 W:HK N:HA")


@scenario
def highest_called_not_played(code: str) -> Script:
    """Last ¶: highest called, not played, trick quitted: the penalty for revoke."""
    s = p.north_on_lead(code).play("N:C7 E:DJ").obs("E", "DJ", "hand", "down")
    s.cmd("decide", option="require-highest")
    return s.play("E:C4 S:C2 W:H5").wait(-300).quit("N:C7 E:C4 S:C2 W:H5")


@scenario
def call_corrected_before_quitted(code: str) -> Script:
    """Last ¶: the wrong card is corrected before the trick is turned and quitted."""
    s = p.north_on_lead(code).play("N:C7 E:DJ").obs("E", "DJ", "hand", "down")
    s.cmd("decide", option="require-highest").play("E:C4")
    s.obs("E", "C4", "hand", "down").play("E:CT S:C2 W:H5")
    return s.wait(-300).quit("N:C7 E:CT S:C2 W:H5")


@scenario
def called_suit_not_led(code: str) -> Script:
    """Last ¶: called on to lead one suit, he leads another holding it."""
    s = p.after_two_tricks(code).play("W:H5").cmd("decide", option="call-suit", suit="D")
    return s.obs("W", "H5", "hand", "down").trick("E:S6 S:S7 W:SQ N:S2")


@scenario
def fourth_before_partner(code: str) -> Script:
    """Cards played in error: the partner may be called on for his highest or lowest."""
    s = p.north_on_lead(code).play("N:H3 W:HK").cmd("decide", option="require-highest")
    return s.play("E:H7 S:H2")


@scenario
def card_seen_in_shuffle(code: str) -> Script:
    """Shuffling: a card seen during the dealer's shuffle: he must re-shuffle."""
    return p.SCENARIOS["card-seen-in-shuffle"](code)


@scenario
def dealer_side_exposes_in_deal(code: str) -> Script:
    """A new deal (may) a: the dealer's partner exposes a card: the eldest hand may claim."""
    s = Script(code).setup("deal").obs("S", "CA", "hand", "down").obs("S", "CA", "hand")
    return s.cmd("decide", option="demand-new-deal", seat="E").setup("deal").dealt()


@scenario
def defender_claims_cards_callable(code: str) -> Script:
    """"If the dealer should say 'I have the rest'": only his claim spares the adversaries'
    cards; East's own claim does not, and the cards he shows are exposed (issue 14)."""
    return p.after_two_tricks(code).cmd("claim", seat="E").spread("E", ["SK", "S6", "H7"])


@scenario
def defender_concedes_cards_callable(code: str) -> Script:
    """West concedes and shows his cards: they are exposed, liable to be called (issue 14)."""
    s = p.after_two_tricks(code).cmd("concede", seat="W").spread("W", ["SA", "SQ", "HK"])
    return s.cmd("decide", option="call-card", card="HK")


if __name__ == "__main__":
    p.main(CODE, SCENARIOS)
