"""Writes the duplicate-2017 golden scenario journals (tests/scenarios/duplicate-2017/).

Run: python tests/scenarios/make_duplicate2017.py — then review the rulings
with ``tablesense replay`` and store them as NAME.rulings.jsonl (see
tests/scenarios/README.md). Deal and auction are the contract's example:
3NT by North, East leads, South is dummy, West is the leader's partner.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from script import DEAL, Script, output_dir

CODE = "duplicate-2017"
SCENARIOS: dict[str, Callable[[], Script]] = {}
DUMMY = [c for c in DEAL["S"] if c != "CA"]


def scenario(fn: Callable[[], Script]) -> Callable[[], Script]:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


def auction_done() -> Script:
    return Script(CODE).dealt().auction("1N P 3N P P P")


def after_two_tricks() -> Script:
    """East on lead at trick 3 (East won trick 2)."""
    s = auction_done().play("E:CK")
    s.spread("S", DEAL["S"])
    s.play("S:CA W:CJ N:C3").quit("E:CK S:CA W:CJ N:C3")
    return s.trick("S:S3 W:S4 N:ST E:SJ")


@scenario
def minor_penalty_card() -> Script:
    s = after_two_tricks().drop("E", "C5", seen_by=["N", "S", "W"])
    s.trick("E:C5 S:CQ W:H5 N:C6")
    return s.cmd("claim", seat="N")


@scenario
def major_honour_dropped() -> Script:
    s = after_two_tricks().drop("W", "HK").cmd("decide", option="pc-remains")
    return s.trick("E:C9 S:CQ W:HK N:C6")


@scenario
def minor_becomes_major() -> Script:
    s = after_two_tricks().drop("E", "C5").drop("E", "C4")
    return s


@scenario
def held_towards_partner() -> Script:
    # Not West's turn (East is on lead): a card held out face up that East can see.
    return after_two_tricks().obs("W", "SQ", "detached", seen_by=["E", "N"])


@scenario
def deemed_played() -> Script:
    s = after_two_tricks().play("E:C9 S:CQ")
    return s.obs("W", "H9", "detached", seen_by=["E", "N"]).play("N:C6")


@scenario
def named_card() -> Script:
    return after_two_tricks().cmd("named", seat="E", card="DK")


@scenario
def shown_to_opponent_only() -> Script:
    return after_two_tricks().drop("E", "C4", seen_by=["S"])


@scenario
def floor_cannot_tell() -> Script:
    return after_two_tricks().drop("E", "D6", zone="floor", level="below")


@scenario
def declarer_drops_card() -> Script:
    return after_two_tricks().drop("N", "H3")


@scenario
def declarer_faces_hand_claim() -> Script:
    s = after_two_tricks().play("E:C9 S:CQ W:H5 N:C6").quit("E:C9 S:CQ W:H5 N:C6")
    return s.spread("N", ["S2", "HA", "HQ", "H6", "H4", "H3", "DA", "D5", "D2", "C7"])


@scenario
def declarer_spreads_as_dummy() -> Script:
    s = auction_done().play("E:CK")
    return s.spread("N", DEAL["N"])


@scenario
def auction_spot_card_defender() -> Script:
    s = Script(CODE).dealt().call("N", "1N").drop("E", "C4", seen_by=["W", "N", "S"])
    return s.auction("P 3N P P P", first="E")


@scenario
def auction_honour_partner_must_pass() -> Script:
    s = Script(CODE).dealt().call("N", "1N").drop("E", "SK")
    return s.auction("P 3N P P P", first="E")


@scenario
def auction_two_cards() -> Script:
    s = Script(CODE).dealt().call("N", "1N").drop("E", "C4").call("E", "P")
    s.drop("E", "C5").auction("3N P P P", first="S")
    return s


@scenario
def auction_future_dummy_restored() -> Script:
    s = Script(CODE).dealt().call("N", "1N").call("E", "P").drop("S", "DT")
    return s.auction("3N P P P", first="S")


@scenario
def auction_compulsory_pass_broken() -> Script:
    s = Script(CODE).dealt().call("N", "1N").drop("E", "DK").call("E", "P").call("S", "3N")
    return s.auction("X P P P", first="W")


@scenario
def auction_premature_lead() -> Script:
    s = Script(CODE).dealt().call("N", "1N").obs("E", "CK", "trick")
    return s.auction("P 3N P P P", first="E")


@scenario
def before_first_call() -> Script:
    return Script(CODE).dealt().drop("E", "C4").auction("1N P 3N P P P")


@scenario
def exposed_during_deal() -> Script:
    s = Script(CODE).setup("shuffle").setup("deal").obs("E", "HA", "table")
    s.obs("E", "S2", "table")
    return s.setup("shuffle").setup("deal").dealt().auction("1N P 3N P P P")


@scenario
def opening_lead_out_of_turn_accepted() -> Script:
    s = auction_done().play("W:D3").cmd("decide", option="accept-lead")
    s.play("N:D2 E:D6").spread("S", DEAL["S"])
    return s.play("S:DQ")


@scenario
def opening_lead_out_of_turn_refused() -> Script:
    s = auction_done().play("W:D3").cmd("decide", option="refuse-lead")
    s.obs("W", "D3", "table")
    s.cmd("decide", option="require-lead-suit")
    return s.play("E:D6").spread("S", DEAL["S"]).play("S:DT W:D3 N:D2")


@scenario
def opening_lead_out_of_turn_become_dummy() -> Script:
    s = auction_done().play("W:D3").cmd("decide", option="become-dummy")
    s.spread("N", DEAL["N"])
    return s.play("N:D2 E:D6 S:DQ")


@scenario
def declarer_spreads_after_lead_out_of_turn() -> Script:
    s = auction_done().play("W:D3")
    return s.spread("N", DEAL["N"]).play("N:D2 E:D6 S:DQ")


@scenario
def lead_out_of_turn_in_play_refused() -> Script:
    s = after_two_tricks().play("W:H5").cmd("decide", option="refuse-lead")
    return s.obs("W", "H5", "table").cmd("decide", option="pc-remains").play("E:C9")


@scenario
def lead_out_of_turn_accepted_by_play() -> Script:
    s = after_two_tricks().play("W:H5")
    return s.play("N:H3 E:H7 S:HJ")


@scenario
def declarer_leads_from_wrong_hand() -> Script:
    # Dummy won trick 1; declarer leads from his own hand instead.
    s = auction_done().play("E:CK").spread("S", DEAL["S"])
    s.trick("S:CA W:CJ N:C3").play("N:H3")
    return s.cmd("decide", option="refuse-lead").obs("N", "H3", "hand", "down").play("S:S3")


@scenario
def premature_play_before_partner() -> Script:
    s = after_two_tricks().trick("E:D6 S:DT W:D3 N:DA")
    s.play("N:H3 W:H5")  # West plays before East (second hand) has played
    s.cmd("decide", option="require-lowest").obs("W", "H5", "table")
    return s.play("E:H7 S:HJ W:H5")


@scenario
def play_before_rho_legal() -> Script:
    s = after_two_tricks().play("E:D6 W:D3")  # West plays before dummy
    return s.play("S:DT N:DA")


@scenario
def cards_played_together_one_visible() -> Script:
    s = after_two_tricks()
    return s.together("E", ["C9", "C8"], faces=["up", "down"]).play("S:CQ")


@scenario
def cards_played_together_both_visible() -> Script:
    s = after_two_tricks().together("E", ["C9", "C4"])
    return s.obs("E", "C4", "table").play("S:CQ W:H5 N:C6")


@scenario
def penalty_card_not_played_refused() -> Script:
    s = after_two_tricks().trick("E:D6 S:DT W:D3 N:DA")
    s.drop("E", "DK").play("N:D2 E:DJ").cmd("decide", option="refuse-play")
    return s.obs("E", "DJ", "table").play("E:DK")


@scenario
def minor_penalty_card_small_card_played() -> Script:
    s = after_two_tricks().drop("E", "C5")
    return s.play("E:C4")


@scenario
def minor_penalty_card_honour_played() -> Script:
    s = after_two_tricks().drop("E", "C5")
    return s.play("E:CT S:CQ W:H5 N:C6")


@scenario
def lead_options_each_time() -> Script:
    # West's SQ stays a penalty card while West must follow in diamonds; declarer
    # chooses again each time East is on lead.
    s = after_two_tricks().drop("W", "SQ").cmd("decide", option="pc-remains")
    s.trick("E:DK S:DT W:D3 N:D2").cmd("decide", option="pc-remains")
    return s.trick("E:DJ S:DQ W:D4 N:DA")


@scenario
def penalty_card_led_by_its_holder() -> Script:
    s = after_two_tricks().drop("W", "SQ").cmd("decide", option="pc-remains")
    s.trick("E:D6 S:DT W:D3 N:DA").trick("N:H3 E:H7 S:H2 W:HK")
    return s.play("W:SQ")


@scenario
def partner_leads_before_option() -> Script:
    s = after_two_tricks().drop("W", "SQ")
    return s.play("E:C9")


@scenario
def lead_restriction_forbid_suit() -> Script:
    s = after_two_tricks().drop("W", "HK").drop("W", "D9")
    s.cmd("decide", option="forbid-lead-suit", suit="H")
    return s.play("E:H7")


@scenario
def revoke_established() -> Script:
    s = after_two_tricks().trick("E:D6 S:DT W:H5 N:DA")  # West holds diamonds
    return s.play("N:H3 E:H7")


@scenario
def revoke_corrected() -> Script:
    s = after_two_tricks().trick("E:D6 S:DT W:D3 N:DA").play("N:C7 E:DJ")
    return s.obs("E", "DJ", "hand", "down").play("E:C4 S:C2 W:H5")


@scenario
def revoke_corrected_follower_substitutes() -> Script:
    # L62B1, 62C1: East's revoke corrected after all four played: the DJ is a major penalty
    # card, and dummy, of the non-offending side, takes back the C2 he played after it and
    # plays the CQ in its place.
    s = after_two_tricks().trick("E:D6 S:DT W:D3 N:DA").play("N:C7 E:DJ S:C2 W:H5")
    s.obs("E", "DJ", "table").play("E:C4").obs("S", "C2", "table").play("S:CQ")
    return s.quit("N:C7 E:C4 S:CQ W:H5").play("S:DQ W:D7 N:D2 E:DJ")


@scenario
def claim_then_defenders_show() -> Script:
    s = after_two_tricks().cmd("claim", seat="N")
    s.spread("E", ["SK", "S6", "H7"])
    return s.spread("W", ["SA", "SQ", "HK"])


@scenario
def concession_partner_objects() -> Script:
    s = after_two_tricks().cmd("concede", seat="E")
    s.spread("E", ["SK", "S6", "H7"]).cmd("object", seat="W")
    return s.obs("E", "SK", "hand", "down").play("E:C9 S:CQ")


@scenario
def concede_current_trick() -> Script:
    s = after_two_tricks().play("E:C9 S:CQ").cmd("concede", seat="W", current=True)
    return s.drop("W", "H5")


@scenario
def sensor_conflict() -> Script:
    s = after_two_tricks().obs("E", "CT", "hand", "down").obs("W", "CT", "hand", "down")
    return s.obs("W", "CT", "hand", "down").obs("W", "CT", "gone").play("E:CT")


@scenario
def defender_throws_hand() -> Script:
    return after_two_tricks().spread("W", ["SA", "SQ", "HK", "H9"])


@scenario
def before_opening_lead_defender() -> Script:
    return auction_done().drop("W", "D9").play("E:D6")


@scenario
def before_opening_lead_dummy() -> Script:
    return auction_done().drop("S", "DT").play("E:CK")


@scenario
def face_down_opening_lead() -> Script:
    s = auction_done().obs("E", "CK", "trick", "down").obs("E", "CK", "trick", "up")
    return s.spread("S", DEAL["S"]).play("S:CA")


# -- issue 17: an RFID tag and a camera sighting of one card (engine/fusion.py) ----------
@scenario
def camera_and_tag_agree() -> Script:
    """East drops the C5: his RFID table antenna senses the tag (face unknown), the camera a
    scan later its face, seen by the three others: one position with the camera's face, one
    minor penalty card. He leads it at his turn, seen by both readers in his trick zone."""
    s = after_two_tricks().obs("E", "C5", "table", "unknown", source="rfid", gap=60)
    s.obs("E", "C5", "table", "up", seen_by=["N", "S", "W"], conf=0.93, source="camera")
    s.obs("E", "C5", "trick", "up", seen_by=["N", "S", "W"], conf=0.95, source="camera",
          gap=60)
    s.obs("E", "C5", "trick", "unknown", source="rfid")
    return s.play("S:CQ W:H5 N:C6").cmd("claim", seat="N")


@scenario
def camera_against_tag() -> Script:
    """East's C5 lies on his table antenna (the tag, face unknown) while the camera sees a
    face-up C5 on West's side: the readers disagree about where it is for longer than
    conflict_ms: one sensor-conflict, and no face from either, so no penalty card."""
    s = after_two_tricks().obs("E", "C5", "table", "unknown", source="rfid", gap=100)
    s.obs("W", "C5", "table", "up", seen_by=["N", "E", "S"], conf=0.9, source="camera")
    s.obs("E", "C5", "trick", "unknown", source="rfid", gap=60)
    s.obs("E", "C5", "trick", "up", seen_by=["N", "S", "W"], conf=0.95, source="camera")
    return s.play("S:CQ W:H5 N:C6").cmd("claim", seat="N")


@scenario
def tag_alone_face_unknown() -> Script:
    """An RFID-only table: East's C5 comes to rest on his table antenna, face unknown; he
    leads the C4 and picks the C5 up again. No reader saw its face, and every code makes a
    card exposed only when its face could be seen: nothing is ruled (no penalty card, so
    no penalty-card-not-played either); with a camera it would be (minor-penalty-card)."""
    s = after_two_tricks().obs("E", "C5", "table", "unknown", source="rfid")
    s.obs("E", "C4", "trick", "unknown", source="rfid")
    s.obs("E", "C5", "gone", "unknown", "unknown", source="rfid")
    return s.play("S:CQ W:H5 N:C6").cmd("claim", seat="N")


# -- issue 13, section 3: the 2017 Laws as the texts give them ---------------------------
def trick_four_led_by_south() -> Script:
    """South (dummy) won trick 3 and leads trick 4: West, North, East follow."""
    return after_two_tricks().trick("E:C9 S:CQ W:H5 N:C6")


@scenario
def held_before_his_turn_deemed_played() -> Script:
    # L45C1: West has not yet played to the trick East led: his card held so that East
    # could see it is played to it (at his turn), not a penalty card.
    s = after_two_tricks().play("E:C9")
    s.obs("W", "H9", "detached", seen_by=["E", "N"])
    s.play("S:CQ").obs("W", "H9", "trick").play("N:C6").quit("E:C9 S:CQ W:H9 N:C6")
    return s.play("S:C2 W:H8 N:C7 E:CT")


@scenario
def held_after_playing_penalty_card() -> Script:
    # L45C1 does not apply once he has played to the trick (45E): a penalty card (L49).
    s = after_two_tricks().play("E:C9 S:CQ W:H5")
    return s.obs("W", "H9", "detached", seen_by=["E", "N"]).play("N:C6")


@scenario
def opening_lead_out_of_turn_dummy_seen() -> Script:
    # L54C: dummy spread his cards after the faced lead out of turn: declarer must accept
    # it; refusing it afterwards changes nothing (reported on stderr).
    s = auction_done().play("W:D3").spread("S", DEAL["S"])
    s.cmd("decide", option="refuse-lead")
    return s.play("N:D2 E:D6 S:DT").quit("W:D3 N:D2 E:D6 S:DT").play("S:DQ")


@scenario
def early_lead_after_declarer_played_both_hands() -> Script:
    # L57C1: West leads to the next trick before East has played to this one, but declarer
    # has played from both hands: no rectification, the D3 stands as the next lead.
    s = trick_four_led_by_south().play("S:C2 W:H8 N:C7").play("W:D3").play("E:CT")
    s.quit("S:C2 W:H8 N:C7 E:CT")
    return s.play("N:D2 E:D6 S:DT").quit("W:D3 N:D2 E:D6 S:DT")


@scenario
def declarer_premature_play_counts() -> Script:
    # L57C3: declarer plays from his hand before West: the card is played.
    s = after_two_tricks().play("E:C9 N:C6 S:CQ W:H5").quit("E:C9 S:CQ W:H5 N:C6")
    return s.play("S:C2 W:H8 N:C7 E:CT")


@scenario
def premature_play_illegal_card() -> Script:
    # L57D: West plays before dummy (his right-hand opponent) a card he could not legally
    # play: premature-play and a major penalty card, two rulings.
    s = after_two_tricks().play("E:D6 W:H5 S:DT")
    return s.obs("W", "H5", "table").play("W:D3 N:DA").quit("E:D6 S:DT W:D3 N:DA")


@scenario
def premature_play_counts_at_his_turn() -> Script:
    # L57A: West plays before his partner; his card stays in his trick zone and is his play
    # when his turn comes.
    s = after_two_tricks().trick("E:D6 S:DT W:D3 N:DA")
    s.play("N:H3 W:H5 E:H7 S:H2").quit("N:H3 E:H7 S:H2 W:H5")
    return s.play("E:C9 S:CQ W:H8 N:C6")


@scenario
def penalty_card_substituted_fourth_hand() -> Script:
    # L52: East, fourth hand, plays DJ instead of his penalty card DK; declarer refuses the
    # play: the DK substituted is East's play to this trick, not a lead.
    s = trick_four_led_by_south().drop("E", "DK")
    s.play("S:DT W:D3 N:DA E:DJ").cmd("decide", option="refuse-play")
    s.obs("E", "DJ", "table").play("E:DK").quit("S:DT W:D3 N:DA E:DK")
    return s.play("N:D2 E:DJ S:DQ W:D4")


@scenario
def partner_leads_before_option_then_followed() -> Script:
    # L50D2: East leads before declarer chose a lead option for West's penalty card: the
    # lead is a penalty card (L49); declarer plays to it, and it stands as the lead.
    s = after_two_tricks().drop("W", "SQ").play("E:C9 S:CQ W:SQ N:C6")
    return s.quit("E:C9 S:CQ W:SQ N:C6").play("S:C2 W:H8 N:C7 E:CT")


@scenario
def revoke_corrected_by_fourth_hand() -> Script:
    # L62A, 63A1: East, fourth hand, revokes and corrects before the trick is quitted: the
    # C4 is a major penalty card (62B1) and the D6 his play.
    s = trick_four_led_by_south().play("S:DT W:D3 N:DA E:C4")
    s.obs("E", "C4", "table").play("E:D6").quit("S:DT W:D3 N:DA E:D6")
    return s.play("N:D2 E:DJ S:DQ W:D4")


@scenario
def dummy_revoke_corrected() -> Script:
    # L62B2: dummy's revoke corrected in time: no rectification.
    s = after_two_tricks().play("E:H7 S:C2").obs("S", "C2", "hand", "down")
    return s.play("S:H2 W:H5 N:HA").quit("E:H7 S:H2 W:H5 N:HA")


@scenario
def dummy_revoke_established() -> Script:
    # L64B3: dummy's revoke established: no trick transfer; the director may adjust (64C).
    s = after_two_tricks().trick("E:H7 S:C2 W:H5 N:HA")
    return s.play("N:H3 E:SK S:H2 W:H8")


@scenario
def lead_option_suit_without_penalty_card() -> Script:
    # L50D2(a), 51: declarer may require or forbid only a suit in which the offender holds
    # a penalty card: a decision naming another suit changes nothing.
    s = after_two_tricks().trick("E:D6 S:DT W:D3 N:DA").drop("W", "SQ")
    s.play("N:H3 E:H7 S:H2 W:H5").quit("N:H3 E:H7 S:H2 W:H5")
    s.cmd("decide", option="require-lead-suit", suit="C")
    return s.cmd("decide", option="require-lead-suit", suit="S").play("E:S6")


@scenario
def draw_for_seats_no_incident() -> Script:
    s = Script(CODE, dealer=None).setup("draw")
    for seat, card in (("N", "SA"), ("E", "H4"), ("S", "D9"), ("W", "C2")):
        s.obs(seat, card, "table")
    return s


# -- issue 25: six rules of law and two readings ------------------------------------------
@scenario
def minor_penalty_card_revoke_in_its_suit() -> Script:
    # L44C, 61: East, with a minor penalty card in clubs, plays the C4 to a heart lead while
    # he holds the H7: following suit comes first, so he has revoked; Law 52 does not apply.
    s = after_two_tricks().drop("E", "C5").trick("E:S6 S:S5 W:SA N:S2")
    s.trick("W:H5 N:H3 E:C4 S:H2")
    return s.play("W:D3 N:D2 E:D6")


@scenario
def auction_spot_card_named_first() -> Script:
    # L24A, 24B: East names his C4 and then lets it be seen during the auction: a single card
    # below honour rank, not prematurely led, has no further rectification; West is not
    # barred (24B is for an honour, a card led early, or more than one card): his double
    # stands.
    s = Script(CODE).dealt().call("N", "1N").cmd("named", seat="E", card="C4")
    s.drop("E", "C4", seen_by=["W", "N", "S"]).call("E", "P").call("S", "3N")
    return s.auction("X P P P", first="W")


@scenario
def dealt_card_exposed_by_its_holder() -> Script:
    # L6D1: a card dealt to East face down, then seen face up in front of him before the deal
    # is complete: a card already in a player's hand is his (the dealer's only while it is
    # being dealt); the board is dealt again.
    s = Script(CODE).setup("deal").obs("E", "SK", "table", "down", gap=200)
    s.obs("E", "SK", "table")
    return s.setup("shuffle").setup("deal").dealt().auction("1N P 3N P P P")


@scenario
def premature_play_taken_back() -> Script:
    # L57D: West plays the D3 before dummy, his right-hand opponent, then takes it back into
    # his hand: it is his play only while it lies in his trick zone; the D4 he plays at his
    # turn is his play, and the play goes on with no lead out of turn and no revoke.
    s = after_two_tricks().play("E:D6 W:D3").obs("W", "D3", "hand", "down")
    s.play("S:DT W:D4 N:DA").quit("E:D6 S:DT W:D4 N:DA")
    return s.trick("N:H3 E:H7 S:H2 W:H5").play("E:DJ S:DQ W:D3 N:D2")


@scenario
def premature_play_laid_on_table() -> Script:
    # L57D: the same card laid face down on West's table instead of taken into his hand: the
    # card he puts in his trick zone at his turn is his play.
    s = after_two_tricks().play("E:D6 W:D3").obs("W", "D3", "table", "down")
    s.play("S:DT W:D4 N:DA").quit("E:D6 S:DT W:D4 N:DA")
    return s.trick("N:H3 E:H7 S:H2 W:H5").play("E:DJ S:DQ W:D3 N:D2")


@scenario
def cards_played_together_next_player_between() -> Script:
    # L58B2: East leads the C9 and the C8 250 ms apart, and dummy's CQ arrives between them:
    # the group is East's cards alone; the CQ is dummy's play at his turn, once East has
    # chosen (no lead out of turn); the C8 he takes back is a penalty card.
    s = after_two_tricks().obs("E", "C9", "trick", gap=200).obs("S", "CQ", "trick", gap=50)
    s.obs("E", "C8", "trick").obs("E", "C8", "table")
    return s.play("W:H5 N:C6").quit("E:C9 S:CQ W:H5 N:C6")


@scenario
def cards_played_together_own_window() -> Script:
    # L58B: the 300 ms run from the player's own first card: West's H5 and H8, 200 ms apart,
    # were played together though dummy's CQ, 250 ms before the H5, opened the group.
    s = after_two_tricks().play("E:C9").obs("S", "CQ", "trick", gap=250)
    return s.obs("W", "H5", "trick", gap=200).obs("W", "H8", "trick")



@scenario
def defender_lays_hand_down() -> Script:
    # L68A, 68B1: West lays his whole hand face up in the play, with no claim event: a claim
    # or concession (unless he demonstrably did not intend one), for the director; one
    # ruling, not eleven major penalty cards.
    return after_two_tricks().spread("W", [c for c in DEAL["W"] if c not in ("CJ", "S4")])


@scenario
def partner_leads_before_option_then_defenders_lead_on() -> Script:
    # L50D2, 49, 11A: East leads before declarer chose an option for West's penalty card;
    # dummy plays to it: the right to rectify is forfeited (one no-rectification ruling
    # superseding the penalty card); the defenders lead on with no chain of penalty cards.
    s = after_two_tricks().drop("W", "SQ").trick("E:D6 S:DT W:D3 N:DA")
    s.trick("N:H3 E:H7 S:H2 W:H5")
    return s.trick("E:DK S:DQ W:D4 N:D2").play("E:DJ S:HJ W:D7")



def main() -> None:
    out = output_dir(CODE)
    out.mkdir(parents=True, exist_ok=True)
    for name, make in SCENARIOS.items():
        make().write(out / f"{name}.jsonl")
    print(f"wrote {len(SCENARIOS)} journals to {out}")


if __name__ == "__main__":
    main()
