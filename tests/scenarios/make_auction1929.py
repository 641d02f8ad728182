"""Writes the auction-1929 golden scenarios (tests/scenarios/auction-1929/), seed 000.

Manning Foster's article, clause by clause. Deal as in make_portland1904.py; the
auction is 1NT by North raised to 3NT, so North is declarer, South dummy, East the
initial leader and West his partner.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import make_american1907 as a
import make_portland1904 as p
from script import DEAL, Script

CODE = "auction-1929"
SHARED = ("below-the-table", "exposed-card-called", "call-never-forces-revoke",
          "draw-two-cards", "card-seen-in-shuffle", "card-exposed-in-cut", "card-faced-in-pack",
          "dummy-exposes-before-lead", "cards-played-together", "dealer-drops-card",
          "lead-out-of-turn-card-called", "named-then-shown",
          "together-none-called", "together-at-opening-lead", "together-at-opening-lead-called",
          "dealt-card-exposed-by-receiver", "redeal-starts-clean", "redeal-then-exposed-in-deal",
          "dummy-revoke-corrected", "played-out-of-turn-counted", "card-below-table-in-deal")
SCENARIOS = {name: p.SCENARIOS[name] for name in SHARED if name != "lead-out-of-turn-card-called"}

FROM_1907 = ("defender-claims-cards-callable", "defender-concedes-cards-callable")
SCENARIOS.update({name: a.SCENARIOS[name] for name in FROM_1907})


def scenario(fn: Callable[[str], Script]) -> Callable[[str], Script]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


@scenario
def partner_sees_card(code: str) -> Script:
    """General: a card is exposed when the partner of its owner sees its face."""
    return p.after_two_tricks(code).obs("W", "HK", "hand", seen_by=["E"])


@scenario
def shown_to_adversary_only(code: str) -> Script:
    """General: a card shown to an adversary only carries no penalty."""
    return p.after_two_tricks(code).drop("E", "C4", seen_by=["S"])


@scenario
def declarer_throws_hand(code: str) -> Script:
    """General: the declarer may throw his hand face up and play it from there."""
    s = p.after_two_tricks(code).spread("N", ["S2", "HA", "HQ", "H6"])
    return s.play("E:H7 S:H2 W:H5 N:HA")


@scenario
def declarer_picks_up_exposed_card(code: str) -> Script:
    """General: he cannot pick the cards up but must play them from the table."""
    return p.after_two_tricks(code).drop("N", "H3").obs("N", "H3", "hand", "down")


@scenario
def card_exposed_in_deal(code: str) -> Script:
    """(2): a card exposed in dealing: a fresh deal."""
    s = Script(code).setup("deal").obs("E", "SK", "hand", "down").obs("E", "SK", "hand")
    return s.setup("shuffle").setup("deal").dealt()


@scenario
def bidding_exposure_new_deal(code: str) -> Script:
    """(3): during the bidding: the player on the offender's left demands a new deal."""
    s = Script(code).dealt().call("N", "1N").drop("E", "SK")
    s.cmd("decide", option="demand-new-deal", seat="S")
    return s.setup("shuffle").setup("deal").dealt().auction("1N P 3N P P P")


@scenario
def bidding_exposure_taken_up(code: str) -> Script:
    """(3): no new deal demanded: the card is taken up and cannot be called."""
    s = Script(code).dealt().call("N", "1N").drop("E", "SK").obs("E", "SK", "hand", "down")
    return s.auction("P 3N P P P", first="E").play("E:SK")


@scenario
def leader_exposes_suit_forbidden(code: str) -> Script:
    """(4): the initial leader exposes a card: declarer forbids the initial lead of its suit."""
    s = p.declared(code).drop("E", "DK").cmd("decide", option="forbid-lead-suit")
    return s.obs("E", "DK", "hand", "down").play("E:DJ")


@scenario
def leader_exposes_suit_named(code: str) -> Script:
    """(4): or declarer names a suit to be led; the card is taken back."""
    s = p.declared(code).drop("E", "DK").cmd("decide", option="require-lead-suit", suit="C")
    return s.obs("E", "DK", "hand", "down").play("E:CK").spread("S", DEAL["S"])


@scenario
def leaders_partner_exposes(code: str) -> Script:
    """(4), (6): the leader's partner's card: subject to call, or a suit named to the leader."""
    s = p.declared(code).drop("W", "SQ").cmd("decide", option="call-card")
    return s.play("E:SK").spread("S", DEAL["S"]).play("S:S3 W:SQ N:S2")


@scenario
def played_in_error(code: str) -> Script:
    """(6): a card played in error (out of turn) is an exposed card."""
    return p.after_two_tricks(code).play("E:C9 W:H5")


@scenario
def leaders_partner_leads_first(code: str) -> Script:
    """(6): the leader's partner leads before the initial lead: a suit named to the leader."""
    s = p.declared(code).play("W:D3").cmd("decide", option="require-lead-suit", suit="S")
    return s.obs("W", "D3", "hand", "down").play("E:SK")


@scenario
def lead_out_of_turn_suit_called(code: str) -> Script:
    """(7): after the first lead an opponent leads out of turn: a suit called."""
    s = p.after_two_tricks(code).play("W:H5").cmd("decide", option="call-suit", suit="D")
    return s.obs("W", "H5", "hand", "down").play("E:DK")


@scenario
def lead_out_of_turn_treated_as_exposed(code: str) -> Script:
    """(7): or the card led in error is treated as exposed."""
    s = p.after_two_tricks(code).play("W:H5").cmd("decide", option="treat-as-exposed")
    return s.obs("W", "H5", "table").play("E:C9 S:CQ W:H5 N:C6")


@scenario
def simultaneous_leads(code: str) -> Script:
    """(8): both opponents lead at once: the card led in error by the partner is exposed."""
    s = p.after_two_tricks(code).obs("E", "C9", "trick", gap=100).obs("W", "H5", "trick")
    return s.obs("W", "H5", "table").play("S:CQ W:H9 N:C6")


@scenario
def renounce_corrected_lowest(code: str) -> Script:
    """(10): the card played in mistake withdrawn: declarer requires the lowest of the suit."""
    s = p.north_on_lead(code).play("N:C7 E:DJ").obs("E", "DJ", "hand", "down")
    s.cmd("decide", option="require-lowest")
    return s.play("E:C4 S:C2 W:H5")


@scenario
def renounce_corrected_treated_as_exposed(code: str) -> Script:
    """(6), (10): no highest or lowest required: the card played in error stays exposed, and
    is called at East's next turn."""
    s = p.north_on_lead(code).play("N:C7 E:DJ").obs("E", "DJ", "table")
    s.play("E:C5 S:C2 W:H5").wait(-300).quit("N:C7 E:C5 S:C2 W:H5")
    return s.play("N:D2").cmd("decide", option="call-card").play("E:DJ")


@scenario
def claim_then_opponents_expose(code: str) -> Script:
    """(11): after the declarer's claim the opponents' exposed cards may not be called."""
    s = p.after_two_tricks(code).cmd("claim", seat="N").spread("N", ["S2", "HA", "HQ", "H6"])
    return s.spread("E", ["SK", "S6", "H7"]).spread("W", ["SA", "SQ", "HK"])


@scenario
def named_then_shown_in_bidding(code: str) -> Script:
    """General, (3): a card named (not exposed), then shown during the bidding: the player on
    the offender's left may demand a new deal (issue 14)."""
    s = Script(code).dealt().call("N", "1N").cmd("named", seat="E", card="SK").drop("E", "SK")
    return s.auction("P 3N P P P", first="E")


@scenario
def hand_shown_to_adversary_only(code: str) -> Script:
    """General: "A player can expose a card, or all his hand, if he wishes, to an adversary
    without penalty so long as his partner does not see them" (issue 14)."""
    s = p.after_two_tricks(code)
    for card in ("SA", "SQ", "HK", "H9"):
        s.obs("W", card, "table", seen_by=["N", "S"], gap=40)
    return s.wait(1460).play("E:C9 S:CQ W:H5 N:C6")


if __name__ == "__main__":
    p.main(CODE, SCENARIOS)
