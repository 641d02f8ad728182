"""Writes the portland-1904 golden scenario journals (tests/scenarios/portland-1904/).

Run: python tests/scenarios/make_portland1904.py — then check each ruling by hand
against the law text and store ``tablesense replay`` output as NAME.rulings.jsonl.
The deal is script.DEAL; North deals and declares no trumps, East (eldest hand)
is content ("May I lead?"), so North plays both hands, South is dummy, East
leads and West is the leader's partner. Each scenario's docstring names the
clause of seed 001 or 004 it shows. The helpers are shared with the other
old codes' scripts (make_american1907.py ...).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from script import DEAL, Script, output_dir

CODE = "portland-1904"
SCENARIOS: dict[str, Callable[[str], Script]] = {}
DUMMY = [c for c in DEAL["S"] if c != "CA"]


def scenario(fn: Callable[[str], Script]) -> Callable[[str], Script]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


def declared(code: str) -> Script:
    """Whist era: North declares no trumps, East is content; auction codes: 3NT by North."""
    s = Script(code).dealt()
    if code in ("portland-1904", "american-1907"):
        return s.declare("N", "N").call("E", "P")
    return s.auction("1N P 3N P P P")


def after_two_tricks(code: str) -> Script:
    """East on lead at trick 3 (East won trick 2 with the SJ)."""
    s = declared(code).play("E:CK").spread("S", DEAL["S"])
    s.play("S:CA W:CJ N:C3").quit("E:CK S:CA W:CJ N:C3")
    return s.trick("S:S3 W:S4 N:ST E:SJ")


def north_on_lead(code: str) -> Script:
    """North (declarer) on lead at trick 4."""
    return after_two_tricks(code).trick("E:D6 S:DT W:D3 N:DA")


# -- seed 001: CARDS LIABLE TO BE CALLED -------------------------------------------
@scenario
def exposed_card_called(code: str) -> Script:
    """L72, L73 II: an adversary's card dropped face up is liable to be called."""
    s = after_two_tricks(code).drop("E", "C5").cmd("decide", option="call-card")
    return s.play("E:C5 S:CQ W:H5 N:C6")


@scenario
def snatched_up(code: str) -> Script:
    """L73 II: exposed even though snatched up so quickly that no one can name it."""
    s = after_two_tricks(code).obs("E", "DK", "table", gap=200)
    return s.obs("E", "DK", "hand", "down")


@scenario
def below_the_table(code: str) -> Script:
    """L72: a card dropped on the floor or below the table is not exposed."""
    return after_two_tricks(code).drop("E", "D6", zone="floor", level="below")


@scenario
def cards_played_together(code: str) -> Script:
    """L73 I: two cards played at once are exposed; the declarer calls one to the trick."""
    s = after_two_tricks(code).together("E", ["C9", "C4"])
    s.cmd("decide", option="designate-card", card="C4").obs("E", "C9", "table")
    return s.play("S:CQ W:H5 N:C6")


@scenario
def winning_cards_without_waiting(code: str) -> Script:
    """L74: East leads again without waiting for West: West may be called on to win."""
    s = after_two_tricks(code).play("E:SK S:S5").obs("E", "DK", "trick")
    s.cmd("decide", option="require-win").obs("E", "DK", "table")
    return s.play("W:SQ")


@scenario
def dealer_claims(code: str) -> Script:
    """L75: the dealer claims the rest and shows his cards: they are not liable to be called."""
    s = after_two_tricks(code).cmd("claim", seat="N")
    return s.spread("N", ["S2", "HA", "HQ", "H6"])


@scenario
def adversary_throws_hand(code: str) -> Script:
    """L76: an adversary's cards thrown face up are exposed and liable to be called."""
    return after_two_tricks(code).spread("W", ["SA", "SQ", "HK", "H9"])


@scenario
def hands_abandoned(code: str) -> Script:
    """L77: all the players throw their cards face up: the hands are abandoned."""
    s = after_two_tricks(code).spread("E", ["SK", "S6", "H7"])
    s.spread("W", ["SA", "SQ", "HK"])
    return s.spread("N", ["S2", "HA", "HQ", "H6"])


@scenario
def claim_then_all_throw(code: str) -> Script:
    """L75, L77: after the dealer's claim the adversaries throw their cards too."""
    s = after_two_tricks(code).cmd("claim", seat="N").spread("N", ["S2", "HA", "HQ", "H6"])
    return s.spread("E", ["SK", "S6", "H7"]).spread("W", ["SA", "SQ", "HK"])


@scenario
def detached_card_called(code: str) -> Script:
    """L78: a card detached so as to be named is liable to be called."""
    s = after_two_tricks(code).obs("W", "SQ", "detached", seen_by=["N"])
    s.cmd("decide", option="call-card", card="SQ")
    return s.play("E:S6 S:S7 W:SQ N:S2")


@scenario
def dealer_misnames_card(code: str) -> Script:
    """L78: the dealer names a wrong card: a suit may be called when he or dummy leads."""
    s = after_two_tricks(code).obs("W", "SQ", "detached", seen_by=["N"])
    s.cmd("decide", option="call-card", card="SA").cmd("decide", option="call-suit", suit="H")
    s.trick("E:D6 S:DT W:D3 N:DA")
    return s.play("N:C7")


@scenario
def highest_called_not_played(code: str) -> Script:
    """L79, L94: a renounce corrected; the highest is called and not played: revoke penalty."""
    s = north_on_lead(code).play("N:C7 E:DJ").obs("E", "DJ", "hand", "down")
    s.cmd("decide", option="require-highest")
    return s.play("E:C4 S:C2 W:H5")


@scenario
def called_suit_not_led(code: str) -> Script:
    """L79, L80: a suit called from the offender's partner, who leads another."""
    s = after_two_tricks(code).play("W:H5").cmd("decide", option="call-suit", suit="D")
    return s.obs("W", "H5", "hand", "down").play("E:S6")


@scenario
def lead_out_of_turn_card_called(code: str) -> Script:
    """L80: the dealer calls the card led out of turn; West plays it at his turn."""
    s = after_two_tricks(code).play("W:H5").cmd("decide", option="call-card")
    s.obs("W", "H5", "table")
    return s.play("E:C9 S:CQ W:H5 N:C6")


@scenario
def dealer_leads_out_of_turn(code: str) -> Script:
    """L81: the dealer leads out of turn: no penalty; it stands once second hand plays."""
    return after_two_tricks(code).play("N:H3 E:H7 S:HJ W:H5")


@scenario
def false_lead_followed(code: str) -> Script:
    """L82: a lead out of turn followed by the other three: the trick stands."""
    return after_two_tricks(code).play("W:H5 N:H3 E:H7 S:HJ")


@scenario
def false_lead_partly_followed(code: str) -> Script:
    """L82: only the second hand followed: his card is taken back without penalty."""
    s = after_two_tricks(code).play("W:H5 N:H3").cmd("decide", option="call-suit", suit="C")
    s.obs("N", "H3", "hand", "down").obs("W", "H5", "hand", "down")
    return s.play("E:C9 S:CQ W:H5 N:C6")


@scenario
def call_never_forces_revoke(code: str) -> Script:
    """L83, L84: the called card would be a revoke; the call lapses and is repeated later."""
    s = north_on_lead(code).drop("E", "DK").cmd("decide", option="call-card")
    s.trick("N:C7 E:C4 S:C2 W:H5")
    s.cmd("decide", option="call-card").trick("N:D2 E:DK S:DQ W:D4")
    return s


@scenario
def called_suit_lacking(code: str) -> Script:
    """L85: called on to lead a suit he has none of: the penalty is paid."""
    s = north_on_lead(code).trick("N:H3 E:H7 S:H2 W:HK").play("E:C4")
    s.cmd("decide", option="call-suit", suit="C").obs("E", "C4", "hand", "down")
    return s.play("W:H5")


@scenario
def fourth_before_partner(code: str) -> Script:
    """L86: the fourth hand plays before his partner: the partner may be called on to win."""
    s = north_on_lead(code).play("N:H3 W:HK").cmd("decide", option="require-not-win")
    return s.play("E:H7 S:H2")


@scenario
def renounce_corrected_card_called(code: str) -> Script:
    """L94: an adversary's renounce corrected in time: the card is liable to be called."""
    s = north_on_lead(code).play("N:C7 E:DJ S:C2").obs("E", "DJ", "hand", "down")
    s.obs("S", "C2", "hand", "down").play("E:C4 S:C2 W:H5")
    s.quit("N:C7 E:C4 S:C2 W:H5")
    return s.cmd("decide", option="call-card").play("N:D2 E:DJ")


@scenario
def renounce_corrected_followers_substitute(code: str) -> Script:
    """L94: a renounce corrected after the trick was complete: the player who played
    after him "may withdraw [his card] and substitute" another, and it takes its place."""
    s = north_on_lead(code).play("N:C7 E:DJ S:C2 W:H5").obs("E", "DJ", "hand", "down")
    s.obs("S", "C2", "hand", "down").play("E:C4 S:CQ")
    s.quit("N:C7 E:C4 S:CQ W:H5")
    return s.cmd("decide", option="call-card").play("S:DQ W:D7 N:D2 E:DJ")


@scenario
def dealer_renounce_corrected(code: str) -> Script:
    """L95: the dealer corrects a renounce after both adversaries have played."""
    s = north_on_lead(code).trick("N:H3 E:H7 S:H2 W:HK")
    s.play("W:D4 N:H4 E:DJ").obs("N", "H4", "hand", "down")
    return s.cmd("decide", option="require-lowest").play("N:D5 S:DQ")


@scenario
def dealer_fourth_renounce_corrected(code: str) -> Script:
    """L95: no penalty when the dealer is fourth in hand."""
    s = after_two_tricks(code).play("E:C9 S:CQ W:H5 N:H3").obs("N", "H3", "hand", "down")
    return s.play("N:C6")


@scenario
def revoke_established(code: str) -> Script:
    """L89-91: a revoke is established when the trick is turned and quitted."""
    return after_two_tricks(code).trick("E:D6 S:DT W:H5 N:DA")


@scenario
def dummy_revokes(code: str) -> Script:
    """L68 (seed 004): dummy is not liable to any penalty for a revoke."""
    return north_on_lead(code).trick("N:C7 E:C4 S:H2 W:H5")


@scenario
def dealer_drops_card(code: str) -> Script:
    """L72: only the adversaries' cards are liable to be called."""
    return after_two_tricks(code).drop("N", "H3")


@scenario
def held_so_partner_sees(code: str) -> Script:
    """L73: the code does not list a card held so that partner can see it."""
    return after_two_tricks(code).obs("W", "HK", "hand", seen_by=["E"])


@scenario
def named_card(code: str) -> Script:
    """L73: naming a card as in one's hand is not among the exposed cards."""
    return after_two_tricks(code).cmd("named", seat="E", card="DK")


# -- issue 14: rulings the text gives -----------------------------------------------------
@scenario
def named_then_shown(code: str) -> Script:
    """L73 II: a card named (not exposed), then dropped face up: exposed, liable to be called."""
    s = after_two_tricks(code).cmd("named", seat="E", card="DK").drop("E", "DK")
    return s.cmd("decide", option="call-card").play("E:DK S:DT W:D3 N:D2")


@scenario
def named_then_shown_before_declaration(code: str) -> Script:
    """L70, L71, L73 II: dummy names a card, then exposes it before the declaration."""
    s = Script(code).dealt().cmd("named", seat="S", card="DT").drop("S", "DT")
    return s.declare("N", "S").call("E", "X").call("N", "P")


@scenario
def together_none_called(code: str) -> Script:
    """L73 I: two cards played at once, no call: the one left in the trick zone is played;
    the other stays exposed and is called at the next trick."""
    s = after_two_tricks(code).together("E", ["C9", "C4"]).obs("E", "C9", "table")
    s.play("S:CQ W:H5 N:C6").wait(-300).quit("E:C4 S:CQ W:H5 N:C6")
    return s.play("S:C2").cmd("decide", option="call-card", card="C9").play("W:H9 N:C7 E:C9")


@scenario
def together_at_opening_lead(code: str) -> Script:
    """L62, L73 I: the leader plays two cards at once to the opening lead: a card is led and
    dummy goes down; the card he leaves in the trick zone is the lead."""
    s = declared(code).together("E", ["CK", "C4"]).obs("E", "C4", "table")
    s.spread("S", DEAL["S"]).play("S:CA W:CJ N:C3")
    return s.wait(-300).quit("E:CK S:CA W:CJ N:C3")


@scenario
def together_at_opening_lead_called(code: str) -> Script:
    """L62, L73 I: the dealer calls one of the two cards to the opening lead."""
    s = declared(code).together("E", ["CK", "C4"])
    s.cmd("decide", option="designate-card", card="CK").obs("E", "C4", "table")
    s.spread("S", DEAL["S"]).play("S:CA W:CJ N:C3")
    return s.wait(-300).quit("E:CK S:CA W:CJ N:C3")


# -- seed 004: DUMMY, EXPOSED CARDS ---------------------------------------------------
@scenario
def dummy_down_after_false_lead(code: str) -> Script:
    """L62: dummy goes down as soon as a card is led, in or out of turn."""
    s = declared(code).play("W:D3").spread("S", DEAL["S"])
    s.cmd("decide", option="call-suit", suit="C").obs("W", "D3", "hand", "down")
    return s.play("E:CK S:CA W:CJ N:C3")


@scenario
def dummy_exposes_before_lead(code: str) -> Script:
    """L69: dummy may expose some or all of his cards without penalty."""
    return declared(code).drop("S", "DT").play("E:CK")


@scenario
def dealer_exposes_before_declaration(code: str) -> Script:
    """L70, L71: the eldest hand may claim a new deal; dummy forfeits his redouble."""
    s = Script(code).dealt().drop("N", "HA").cmd("decide", option="demand-new-deal", seat="E")
    return s.setup("shuffle").setup("deal").dealt().declare("N", "N").call("E", "P")


@scenario
def dummy_exposes_no_claim(code: str) -> Script:
    """L70, L71: no new deal claimed; the eldest hand doubles instead."""
    s = Script(code).dealt().drop("S", "DT").declare("N", "S").call("E", "X")
    return s.call("N", "P")


@scenario
def forfeit_double(code: str) -> Script:
    """L71: West exposes before a card is led: East may not double."""
    s = Script(code).dealt().declare("N", "N").drop("W", "D9")
    return s.call("E", "X").call("N", "P")


@scenario
def leaders_partner_suit_forbidden(code: str) -> Script:
    """L71: instead of calling the card, the dealer forbids the leader its suit."""
    s = declared(code).drop("W", "SQ").cmd("decide", option="forbid-lead-suit")
    return s.obs("W", "SQ", "hand", "down").play("E:SK")


@scenario
def leader_exposes_before_lead(code: str) -> Script:
    """L71, L72: the leader's own card exposed before the lead."""
    return declared(code).drop("E", "DK").play("E:CK")


# -- before the deal is complete (L16, L27-41) ---------------------------------------------
@scenario
def draw_two_cards(code: str) -> Script:
    """L16: a player exposes more than one card in drawing: he draws again."""
    s = Script(code, dealer=None).setup("draw").obs("N", "S4", "table")
    s.obs("E", "HK", "table").obs("E", "D2", "table")
    return s.setup("draw").setup("shuffle").setup("deal").dealt(dealer="N")


@scenario
def card_seen_in_shuffle(code: str) -> Script:
    """L27, L33: the face of a card seen in the shuffle: a fresh shuffle."""
    s = Script(code).setup("shuffle").obs("N", "C3", "table")
    return s.setup("shuffle").setup("cut").setup("deal").dealt()


@scenario
def card_exposed_in_cut(code: str) -> Script:
    """L35: a card exposed in cutting: a fresh cut."""
    s = Script(code).setup("shuffle").setup("cut").obs("W", "H8", "table")
    return s.setup("cut").setup("deal").dealt()


@scenario
def card_faced_in_pack(code: str) -> Script:
    """L39 II: a card faced in the pack: there must be a new deal."""
    s = Script(code).setup("shuffle").setup("cut").setup("deal").obs("E", "HA", "table")
    return s.setup("shuffle").setup("cut").setup("deal").dealt()


@scenario
def card_exposed_in_deal_claimed(code: str) -> Script:
    """L40: a card exposed in dealing by an adversary: the dealer may claim a new deal."""
    s = Script(code).setup("deal").obs("E", "SK", "hand", "down").obs("E", "SK", "hand")
    s.cmd("decide", option="demand-new-deal", seat="N")
    return s.setup("shuffle").setup("deal").dealt()


@scenario
def deal_claim_lost_by_looking(code: str) -> Script:
    """L40: the claim may not be made by a player who has looked at any of his cards."""
    s = Script(code).setup("deal").obs("N", "HA", "table", "down").obs("N", "HA", "table")
    s.obs("E", "SK", "hand", "down").obs("W", "SA", "hand", "down")
    return s.dealt().declare("N", "N").call("E", "P")


@scenario
def last_card_exposed(code: str) -> Script:
    """L41: one of the last cards exposed: the privilege is not lost by completing the deal."""
    s = Script(code).setup("deal").obs("S", "CA", "table", "down", gap=200)
    s.obs("S", "CA", "table", gap=300).dealt()
    s.cmd("decide", option="demand-new-deal", seat="E")
    return s.setup("shuffle").setup("deal").dealt()


@scenario
def dummy_revoke_corrected(code: str) -> Script:
    """L68: dummy, fourth hand, renounces; the card goes back to the display and a diamond is
    played: no penalty, no lead out of turn, the trick stands with the diamond."""
    s = after_two_tricks(code).trick("E:H7 S:H2 W:HK N:H3").play("W:D9 N:D2 E:DJ S:HT")
    s.obs("S", "HT", "table").play("S:DQ").wait(-300).quit("W:D9 N:D2 E:DJ S:DQ")
    return s.play("S:C2")


@scenario
def detached_face_down_called(code: str) -> Script:
    """L78: West holds the SQ apart from his hand, face down, so as to name it: it is liable
    to be called, and the call is obeyed."""
    s = after_two_tricks(code).obs("W", "SQ", "detached", "down")
    s.cmd("decide", option="call-card", card="SQ")
    return s.play("E:S6 S:S7 W:SQ N:S2")


@scenario
def detached_misnamed_suit_not_led(code: str) -> Script:
    """L78, L79: the dealer names a wrong card; hearts are called at his next lead, and he
    leads a club holding hearts: the penalty of a revoke."""
    s = after_two_tricks(code).obs("W", "SQ", "detached", "down")
    s.cmd("decide", option="call-card", card="SA").cmd("decide", option="call-suit", suit="H")
    return s.trick("E:D6 S:DT W:D3 N:DA").play("N:C7 E:C4 S:C2 W:H5")


@scenario
def played_out_of_turn_counted(code: str) -> Script:
    """L72, L73 II: West plays before dummy: his card is exposed; still in his trick zone when
    his turn comes, it is his play, and the trick goes on without false revokes or leads."""
    s = after_two_tricks(code).play("E:C9 W:H5 S:CQ N:C6").wait(-300)
    s.quit("E:C9 S:CQ W:H5 N:C6")
    return s.trick("S:C2 W:H9 N:C7 E:C4")


# -- issue 14: the deal ---------------------------------------------------------------------
WHIST = ("portland-1904", "american-1907")


@scenario
def dealt_card_exposed_by_receiver(code: str) -> Script:
    """L40: East's card, dealt to him face down, is seen face up in front of him: exposed by
    an adversary, so the dealer (or his partner) may claim a new deal. American 1907: a card
    exposed in the dealing is the dealer's, so the eldest hand (East) may claim."""
    s = Script(code).setup("deal").obs("E", "SK", "table", "down", gap=200)
    s.obs("E", "SK", "table")
    if code in WHIST:
        s.cmd("decide", option="demand-new-deal", seat="E" if code == "american-1907" else "N")
    return s.setup("shuffle").setup("deal").dealt()


@scenario
def card_below_table_in_deal(code: str) -> Script:
    """L40 is silent on a card below the table during the deal; L72 says such a card is not
    exposed: the ruling says so for the director (auction codes: their own rule)."""
    s = Script(code).setup("deal").obs("E", "SK", "hand", "down")
    s.obs("E", "SK", "floor", level="below")
    return s.obs("E", "SK", "hand", "down").dealt()


@scenario
def redeal_starts_clean(code: str) -> Script:
    """L39 II, then a new deal: the HA faced in the old pack is exposed again in the new deal
    (before the declaration, or in the bidding), and ruled afresh."""
    s = Script(code).setup("shuffle").setup("cut").setup("deal").obs("N", "HA", "table")
    s.setup("shuffle").setup("cut").setup("deal").dealt().obs("N", "HA", "hand", "down")
    if code in WHIST:
        return s.drop("N", "HA").declare("N", "N").call("E", "P")
    return s.call("N", "1N").drop("N", "HA").auction("P 3N P P P", first="E")


@scenario
def redeal_then_exposed_in_deal(code: str) -> Script:
    """L39 II, L40: after a redeal a card exposed in the new deal is a new incident."""
    s = Script(code).setup("shuffle").setup("cut").setup("deal").obs("E", "HA", "table")
    s.setup("shuffle").setup("cut").setup("deal").obs("W", "SA", "hand", "down")
    s.obs("W", "SA", "hand")
    if code in WHIST:
        s.cmd("decide", option="demand-new-deal", seat="N")
    return s.setup("shuffle").setup("deal").dealt()


# -- issue 25: a card played before its turn counts only while it lies in the trick zone ---
@scenario
def fourth_before_partner_taken_back(code: str) -> Script:
    """L86: West, fourth hand, plays the HK before his partner, then takes it back into his
    hand: his play only while it lay in his trick zone; the H5 at his turn is his play."""
    s = north_on_lead(code).play("N:H3 W:HK").obs("W", "HK", "hand", "down")
    s.play("E:H7 S:H2 W:H5").quit("N:H3 E:H7 S:H2 W:H5")
    return s.trick("E:DJ S:DQ W:D4 N:D2").play("S:HJ")


@scenario
def dealer_premature_taken_back(code: str) -> Script:
    """L81: the dealer plays the C6 before dummy, then takes it back into his hand: the C7 he
    plays at his turn is his play, with no revoke and no lead out of turn after it."""
    s = after_two_tricks(code).play("E:C9 N:C6").obs("N", "C6", "hand", "down")
    s.play("S:CQ W:H5 N:C7").quit("E:C9 S:CQ W:H5 N:C7")
    return s.trick("S:C2 W:H9 N:C6 E:C4")


@scenario
def losing_card_then_led_again(code: str) -> Script:
    """L74: East leads the S6, dummy covers with the S9, and East leads the DK again without
    waiting for West: the S6 was not the best card on the table, so there is no call on
    West to win; the DK is only exposed."""
    s = after_two_tricks(code).play("E:S6 S:S9").obs("E", "DK", "trick")
    return s.obs("E", "DK", "table").play("W:SQ")



def main(code: str = CODE, scenarios: dict[str, Callable[[str], Script]] | None = None) -> None:
    out = output_dir(code)
    out.mkdir(parents=True, exist_ok=True)
    todo = SCENARIOS if scenarios is None else scenarios
    for name, make in todo.items():
        make(code).write(out / f"{name}.jsonl")
    print(f"wrote {len(todo)} journals to {out}")


if __name__ == "__main__":
    main()
