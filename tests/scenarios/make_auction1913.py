"""Writes the auction-1913 golden scenarios (tests/scenarios/auction-1913/).

Whist Club (New York) Laws of Auction, Laws 65-78 as summarised in codes.md
section 6 (no seed text). Deal and auction as in make_auction1929.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import make_american1907 as a
import make_portland1904 as p
from script import DEAL, Script

CODE = "auction-1913"
SHARED = ("exposed-card-called", "snatched-up", "below-the-table", "cards-played-together",
          "winning-cards-without-waiting", "adversary-throws-hand", "held-so-partner-sees",
          "dealer-leads-out-of-turn", "false-lead-followed", "dealer-drops-card",
          "together-none-called", "together-at-opening-lead", "together-at-opening-lead-called",
          "dealt-card-exposed-by-receiver", "redeal-starts-clean", "redeal-then-exposed-in-deal",
          "dummy-revoke-corrected", "played-out-of-turn-counted", "card-below-table-in-deal")
SCENARIOS = {name: p.SCENARIOS[name] for name in SHARED}

FROM_1907 = ("defender-claims-cards-callable", "defender-concedes-cards-callable")
SCENARIOS.update({name: a.SCENARIOS[name] for name in FROM_1907})


def scenario(fn: Callable[[str], Script]) -> Callable[[str], Script]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


@scenario
def held_adversary_only(code: str) -> Script:
    """L69: held so that an adversary but not the partner sees it: not exposed."""
    return p.after_two_tricks(code).obs("W", "HK", "hand", seen_by=["N"])


@scenario
def bidding_exposure_partner_silenced(code: str) -> Script:
    """L65: partner may make no further bid or double; the card is subject to call."""
    s = Script(code).dealt().call("N", "1N").drop("E", "SK").call("E", "P").call("S", "3N")
    s.call("W", "X").auction("P P P", first="N")
    return s.cmd("decide", option="call-card").play("E:SK")


@scenario
def bidding_exposure_suit_forbidden(code: str) -> Script:
    """L65: the offender's partner is the original leader: declarer prohibits the suit."""
    s = Script(code).dealt().call("N", "1N").drop("W", "D9")
    s.auction("P 3N P P P", first="E").cmd("decide", option="forbid-lead-suit")
    s.play("E:DK").spread("S", DEAL["S"]).play("S:DQ W:D3 N:D2")
    return s.wait(-300).quit("E:DK S:DQ W:D3 N:D2")


@scenario
def bidding_exposure_by_future_dummy(code: str) -> Script:
    """L65, L72: the offender becomes dummy: the declaring side's cards are not callable."""
    s = Script(code).dealt().call("N", "1N").call("E", "P").drop("S", "DT")
    return s.auction("3N P P P", first="S")


@scenario
def leaders_partner_call_and_forbid(code: str) -> Script:
    """L66: the leader's partner's card may be called and its suit forbidden."""
    s = p.declared(code).drop("W", "SQ").cmd("decide", option="forbid-lead-suit")
    s.play("E:CK").spread("S", DEAL["S"]).play("S:CA W:CJ N:C3")
    s.quit("E:CK S:CA W:CJ N:C3").cmd("decide", option="call-card")
    return s.play("S:C2 W:SQ")


@scenario
def leader_exposes_before_lead(code: str) -> Script:
    """L66: the rightful leader's exposed card is subject to call."""
    s = p.declared(code).drop("E", "DK").cmd("decide", option="call-card")
    return s.play("E:DK")


@scenario
def named_card_called(code: str) -> Script:
    """L68: a card mentioned as held by an adversary is exposed, and may be called."""
    s = p.after_two_tricks(code).cmd("named", seat="E", card="DK")
    return s.cmd("decide", option="call-card").play("E:D6")


@scenario
def claim_then_adversaries_expose(code: str) -> Script:
    """L72: after "I have the rest" the adversaries' exposed cards are not callable."""
    s = p.after_two_tricks(code).cmd("claim", seat="N").spread("N", ["S2", "HA", "HQ", "H6"])
    return s.spread("E", ["SK", "S6", "H7"])


@scenario
def lead_out_of_turn_treated_as_exposed(code: str) -> Script:
    """L76: an adversary leads out of turn: the card is treated as exposed."""
    s = p.after_two_tricks(code).play("W:H5").cmd("decide", option="treat-as-exposed")
    return s.obs("W", "H5", "table").play("E:C9")


@scenario
def lead_out_of_turn_suit_called(code: str) -> Script:
    """L76: or a suit is called when either adversary next leads."""
    s = p.after_two_tricks(code).play("W:H5").cmd("decide", option="call-suit", suit="D")
    return s.obs("W", "H5", "hand", "down").play("E:DK")


@scenario
def card_exposed_in_deal(code: str) -> Script:
    """L37 (c): a card exposed during the deal, here in the receiver's hand: a new deal."""
    s = Script(code).setup("deal").obs("E", "SK", "hand", "down").obs("E", "SK", "hand")
    return s.setup("shuffle").setup("deal").dealt()


if __name__ == "__main__":
    p.main(CODE, SCENARIOS)
