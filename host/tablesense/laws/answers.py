"""The non-offenders' answers under the old codes (``decide``): calling a card or a
suit, naming or forbidding the opening lead, highest/lowest, win/not win, choosing
among cards played together, treating a card as exposed, claiming a new deal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablesense.contract.cards import lho, partner, suit
from tablesense.engine.effects import Play, PlayAtTurn
from tablesense.engine.errors import InvalidEvent
from tablesense.laws.base import name
from tablesense.laws.calls import CallableCards

if TYPE_CHECKING:
    from tablesense.contract.events import Decide
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.view import TableView


class Answers(CallableCards):
    # -- the non-offenders' answers ---------------------------------------------------------
    def closes(self, r: Ruling, option: str) -> bool:
        if r.kind == "exposed-card":
            return option != "call-card"
        return r.kind != "new-deal" or option == "demand-new-deal"

    def decide(self, tv: TableView, r: Ruling, d: Decide) -> None:
        b = tv.b
        opt = d.option
        seat = r.offender
        if seat is None:
            raise InvalidEvent(b.phase, "decide", f"alert {r.id} names no offender")
        if opt == "demand-new-deal":
            claimants = self.state.claims.get(r.id, [])
            if d.seat is not None and d.seat not in claimants:
                raise InvalidEvent(b.phase, "decide", f"{d.seat} may not claim a new deal")
            self.state.new_deal_demanded = True
            return
        if opt in ("call-suit", "require-lead-suit") and d.suit is None:
            raise InvalidEvent(b.phase, "decide", f"option {opt} needs a suit")
        if r.kind == "lead-out-of-turn":
            self.state.loot = None
        if opt == "call-card":
            self.decide_call(tv, r, d, seat)
        elif opt == "designate-card":
            self.designate(tv, r, d, seat)
        elif opt == "treat-as-exposed":
            self.make_callable(tv, seat, r.cards, self.c("treated"), self.callable_text(
                seat, r.cards, "treated as exposed at the declarer's choice"), d.t)
        elif opt == "call-suit":
            seats = (b.declarer or seat, b.dummy or seat) if r.kind == "misnamed-card" else (
                seat, partner(seat))
            self.add_rule(tv, seats, opt, d.suit, r.id, lead=True)
        elif opt in ("require-lead-suit", "forbid-lead-suit"):
            leader = b.leader or (lho(b.dealer) if b.whist and b.dealer else partner(seat))
            if b.opening_lead_faced:
                leader = partner(seat)
            self.add_rule(tv, (leader,), opt, d.suit or suit(r.cards[0]), r.id, lead=True)
            if self.lead_option_picks_up(r):
                self.pick_up(tv, seat, r.cards)
        elif opt in ("require-highest", "require-lowest", "require-win", "require-not-win"):
            target = seat if r.kind in ("exposed-card", "revoke-corrected") else partner(seat)
            led = b.led_suit() if opt in ("require-highest", "require-lowest") else None
            self.add_rule(tv, (target,), opt, led, r.id, lead=False)
            if r.kind == "exposed-card":
                self.pick_up(tv, seat, r.cards)

    def play_now(self, tv: TableView, seat: str, card: str, t: int) -> None:
        """``seat``'s card counts as played now, in turn (a card called to the trick)."""
        tv.do(Play(seat, card), t)

    def lead_option_picks_up(self, r: Ruling) -> bool:
        return True

    def decide_call(self, tv: TableView, r: Ruling, d: Decide, seat: str) -> None:
        b = tv.b
        mine = self.state.callable.get(seat, {})
        if r.kind == "lead-out-of-turn":
            rid = self.make_callable(tv, seat, r.cards, self.c("loot"), self.callable_text(
                seat, r.cards, "led out of turn and called"), d.t)
            self.call_card(tv, seat, r.cards[0], rid)
            return
        card = d.card or next((c for c in r.cards if c in mine), None)
        if card is None or card not in mine:
            if card is not None and self.misnaming(tv, r, card, d.t):
                return
            raise InvalidEvent(b.phase, "decide", f"{card or 'no card'} is not one of "
                               f"{name(seat)}'s exposed cards")
        self.call_card(tv, seat, card, mine[card])

    def designated_later(self, tv: TableView, seat: str, card: str, t: int) -> None:
        """The card designated from cards ``seat`` played together before his turn: it is
        played when his turn comes."""
        tv.do(PlayAtTurn(seat, card), t)

    def misnaming(self, tv: TableView, r: Ruling, card: str, t: int) -> bool:
        return False

    def designate(self, tv: TableView, r: Ruling, d: Decide, seat: str) -> None:
        b = tv.b
        pend = self.state.together.pop(seat, None)
        if pend is None or d.card not in pend[0]:
            raise InvalidEvent(b.phase, "decide", "designate-card needs one of the cards "
                               "played together in field card")
        card = d.card
        assert card is not None
        others = tuple(c for c in pend[0] if c != card)
        if b.next_to_play() == seat:
            self.play_now(tv, seat, card, d.t)
        else:
            self.designated_later(tv, seat, card, d.t)
        self.make_callable(tv, seat, others, self.c("together"), self.callable_text(
            seat, others, f"played together with the {card}"), d.t)
