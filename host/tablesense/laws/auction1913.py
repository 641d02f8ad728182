"""Whist Club (New York) Laws of Auction, c.1913, Laws 65-79 (codes.md section 6; no seed).

The American bridge code carried over to auction: exposures are the American
three plus a card named as held by an adversary (L68); one shown to an
adversary only is not exposed (L69). A card exposed during the auction is
subject to call and silences the offender's partner for the rest of the
auction (L65); the leader's partner's card before the lead may be called *and*
its suit forbidden (L66).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesense.contract.cards import partner
from tablesense.contract.vocab import Kind, Option
from tablesense.laws.american1907 import American1907
from tablesense.laws.base import cards_text, name

if TYPE_CHECKING:
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.view import TableView

WC = "Whist Club Laws of Auction"


class Auction1913(American1907):
    """Auction, 1913: an exposure in the bidding silences partner; named cards are exposed."""

    id: ClassVar[str] = "auction-1913"
    title: ClassVar[str] = "Whist Club (New York) Laws of Auction (c.1913)"
    year: ClassVar[int] = 1913
    source: ClassVar[str] = (
        "The Laws of Auction, as adopted by the Whist Club of New York (c. 1913), Laws 65-79, "
        "as quoted in M. C. Work, Auction of To-day (1913)")
    whist: ClassVar[bool] = False
    named_exposes: ClassVar[bool] = True
    # L37 (c): any card exposed during the deal, on, above or below the table: a new deal
    setup_kinds: ClassVar[dict[str, Kind]] = {**American1907.setup_kinds, "deal": "redeal"}
    deal_below: ClassVar[str] = "exposed"
    # Law 37 (c) names no exposer: the receiver of a card dealt to him, as Portland L40 reads
    dealt_card_exposer: ClassVar[str] = "receiver"
    leader_pre_lead_callable: ClassVar[bool] = True
    pre_lead_options: ClassVar[dict[str, tuple[Option, ...]]] = {
        "leader": ("call-card",), "leaders-partner": ("call-card", "forbid-lead-suit")}
    loot_options: ClassVar[tuple[Option, ...]] = ("treat-as-exposed", "call-suit")
    opening_loot_options: ClassVar[tuple[Option, ...]] = ("treat-as-exposed", "call-suit")
    cite: ClassVar[dict[str, str]] = {
        **American1907.cite,
        "bidding": f"{WC}, Law 65", "deal": f"{WC}, Law 37 (c)", "leaders-partner": f"{WC}, Law 66",
        "leader": f"{WC}, Law 66", "exposed": f"{WC}, Law 67, 68", "held": f"{WC}, Law 68, 69",
        "detached": f"{WC}, Law 68, 69", "named": f"{WC}, Law 68", "below": f"{WC}, Law 69",
        "together": f"{WC}, Law 70", "winning-cards": f"{WC}, Law 71",
        "thrown": f"{WC}, Law 72", "claim": f"{WC}, Law 72", "own-claim": f"{WC}, Law 72",
        "dealer-claim": f"{WC}, Law 72",
        "dealer": f"{WC}, Law 72", "dealer-shows": f"{WC}, Law 72", "loot": f"{WC}, Law 76",
        "opening-loot": f"{WC}, Law 76", "treated": f"{WC}, Law 76",
        "dealer-loot": f"{WC}, Law 77", "false-lead": f"{WC}, Law 78",
        "played-in-error": f"{WC}, Law 67, 68",
        "comply": "as American 1907, Cards exposed during play (last ¶) (assumed)",
        "revoke": "as American 1907, The revoke (assumed)", "dummy-revoke": "Law 63",
        "renounce": "as American 1907, The revoke (assumed)"}
    rules: ClassVar[dict[str, str]] = {
        **American1907.rules,
        "what is exposed": "two or more cards played at once; a card dropped face up on the "
        "table; one held so partner sees any part of it; a card named as held (L68)",
        "named as in the hand": "exposed (L68)",
        "card below the table": "not exposed (L69)",
        "cards played together": "declarer calls any one to the trick (without a call, the "
        "one left in the trick zone); the others are exposed (L70)",
        "winning cards led without waiting": "partner may be made to win the first or any of "
        "those tricks (L71)",
        "adversary throws his hand": "exposed (L72)",
        "adversaries expose after a claim": "after the declarer's \"I have the rest\": not "
        "liable to be called (L72)",
        "named, then shown face up": "exposed (L68) from the naming",
        "defender's own claim or concession, cards shown": "exposed (L72): only the "
        "declarer's claim spares them",
        "dealer's (declarer's) exposed card": "not liable to be called (L72)",
        "dealer leads out of turn": "no penalty; not after second hand has played (L77)",
        "card exposed in the deal": "there must be a new deal (L37 c)",
        "card below the table in the deal": "a new deal: \"on, above or below the table\" "
        "(L37 c)",
        "false lead followed by all three": "the trick stands (L78)",
        "drawing: more than one card shown": "not in the Laws 65-79 seen: as American 1907",
        "call not complied with": "not in the Laws 65-79 seen: as American 1907 (revoke "
        "penalty unless corrected before the trick is quitted)",
        "shown to an adversary only": "not exposed (L69)",
        "exposed before the trump declaration": "no declaration (auction code)",
        "exposed during the bidding": "partner may make no further bid or double; the card "
        "is subject to call; if partner leads first, declarer may forbid its suit (L65)",
        "exposed before the opening lead": "leader's partner: call it and forbid the suit; "
        "the leader's card: subject to call (L66)",
        "adversary leads out of turn": "treat as exposed, or call a suit when either next "
        "leads (L76)",
    }

    def auction_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int) -> None:
        st = self.state
        pard = partner(seat)
        r = self.emit(tv, self.draft(
            "partner-must-pass", self.c("bidding"),
            f"{name(seat)} exposed {cards_text(cards)} before the final declaration: "
            f"{name(pard)} may make no further bid or double.", offender=seat, cards=cards,
            until="hand"), t)
        st.must_pass[pard] = r.id
        rid = self.make_callable(tv, seat, cards, self.c("bidding"), self.callable_text(
            seat, cards, "exposed during the auction") + f" If {name(pard)} is to lead first, "
            "the declarer may also forbid that suit.", t,
            options=("call-card", "forbid-lead-suit"))
        st.auction_cards.setdefault(seat, []).append(rid)

    def closes(self, r: Ruling, option: str) -> bool:
        if r.kind == "exposed-card" and option == "forbid-lead-suit":
            return False  # the card may still be called (L65, L66)
        return super().closes(r, option)

    def pre_lead_words(self, role: str) -> str:
        if role != "leaders-partner":
            return ""
        return " The declarer may call it and also forbid the leader to lead its suit."

    def lead_option_picks_up(self, r: Ruling) -> bool:
        return False  # L65, L66: call the card *and* forbid the suit

    def auction_end(self, tv: TableView, t: int) -> None:
        super().auction_end(tv, t)
        b = tv.b
        st = self.state
        st.must_pass.clear()
        for seat, rids in st.auction_cards.items():
            if b.role(seat) not in ("declarer", "dummy"):
                continue
            cards = tuple(st.callable.get(seat, {}))
            self.pick_up(tv, seat, cards)
            self.emit(tv, self.draft(
                "no-rectification", self.c("dealer"),
                f"{name(seat)} became {b.role(seat)}: cards exposed by the declaring side are "
                f"not liable to be called; {cards_text(cards)} go back to the hand.",
                severity="info", offender=seat, cards=cards, supersedes=tuple(rids)), t)
