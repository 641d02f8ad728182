"""WBF Laws of Duplicate Bridge 2017: exposed cards (Laws 6D, 16D, 24, 45C, 48-58, 68).

Seed text 002 ("And That's The Law!", Laws 50-52) and the WBF 2017 texts
quoted in docs/laws/duplicate-2017.md are the reference; that page maps each
clause to its scenario files. Exposures are decided here; play irregularities (leads out
of turn, premature plays, cards played together, revokes, penalty cards not
played) in :mod:`tablesense.laws.play2017`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesense.contract.cards import is_honour, partner, suit
from tablesense.contract.vocab import Option, Severity
from tablesense.engine.effects import Covered, Play, PlayAtTurn, Uncovered
from tablesense.engine.obligations import PenaltyCard
from tablesense.laws.base import cards_text, name, suit_name
from tablesense.laws.play2017 import Play2017

if TYPE_CHECKING:
    from tablesense.contract.events import Call, Named, Observe
    from tablesense.engine.tracker import Position
    from tablesense.engine.view import TableView

DESIGNATE: tuple[Option, ...] = ("designate-card",)
LEAD_OPTIONS: tuple[Option, ...] = ("require-lead-suit", "forbid-lead-suit", "pc-remains")
DELIBERATE = frozenset(("detached", "named", "led", "thrown", "played"))
MAY_FIND = "the director may find otherwise"


class Duplicate2017(Play2017):
    id: ClassVar[str] = "duplicate-2017"
    title: ClassVar[str] = "WBF Laws of Duplicate Bridge 2017"
    year: ClassVar[int] = 2017
    numbered_boards: ClassVar[bool] = True
    fouled_citation: ClassVar[str] = "Law 87"
    source: ClassVar[str] = (
        "World Bridge Federation, The Laws of Duplicate Bridge 2017 (Laws 6, 16, 24, 41, 45, "
        "48-58, 61-64, 68, 87); Laws 50-52 as summarised in R. Dixon, \"And That's The Law!\"")

    # -- before the auction ------------------------------------------------------
    def setup_exposure(self, tv: TableView, o: Observe, prev: Position | None) -> None:
        b = tv.b
        if b.step == "draw":
            # Each player showing one card is how a draw for seats is made: no incident.
            # A second card of the same seat is noted (the 2017 Laws have no drawing).
            if self.state.drawn_for_seats.setdefault(o.seat, o.card) != o.card:
                tv.emit(self.draft(
                    "not-exposed", "Law 6",
                    f"{o.card} was seen while {name(o.seat)} drew for seats a second time: "
                    "the 2017 Laws have no drawing, so this is no exposure.",
                    severity="info", offender=o.seat, cards=(o.card,)), o.t)
            return
        if self.state.redeal_ruled:
            return
        self.state.redeal_ruled = True
        # a card already in a player's hand (sensed face down at his seat: dealt to him) is
        # his; one seen as it is dealt, or faced in the pack, the dealer's
        held = o.zone == "hand" or (prev is not None and prev.seat == o.seat
                                    and prev.face == "down" and prev.zone in ("hand", "table"))
        offender = o.seat if held else b.dealer
        tv.emit(self.draft(
            "redeal", "Law 6D1",
            f"The {o.card} could be seen before the deal was complete: the board must be "
            "shuffled and dealt again.", offender=offender, cards=(o.card,)), o.t)

    # -- exposures ---------------------------------------------------------------
    def exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], how: str, vis: str,
                 t: int, obs: list[Observe]) -> None:
        b = tv.b
        if b.phase == "auction":
            if not b.calls:
                self._before_first_call(tv, seat, cards, t)
            else:
                self.law24(tv, seat, cards, how, vis, t)
            return
        if b.phase == "claim":
            self.claim_exposure(tv, seat, cards, vis, t)
            return
        role = b.role(seat)
        if role in ("declarer", "dummy"):
            self._declaring_side(tv, seat, cards, how, t)
            return
        if vis == "no":
            self._not_exposed(tv, seat, cards, t, "Law 49")
            return
        held = how in ("held", "detached") and len(cards) == 1
        if held and b.phase == "play" and self._yet_to_play(tv, seat):
            self._deemed_played(tv, seat, cards[0], vis, t)
            return
        after_playing = held and not b.trick_complete() and any(s == seat for s, _ in b.trick)
        cite = "Law 24E, 50B" if b.phase == "lead" else (
            "Law 45E, 49, 50B" if after_playing else "Law 49, 50B")
        self.penalty(tv, seat, cards, how in DELIBERATE, t, cite, vis=vis, how=how)

    def _before_first_call(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int) -> None:
        tv.emit(self.draft(
            "no-rectification", "Law 16D, 6D1",
            f"{name(seat)}'s {cards_text(cards)} was seen after the deal, before the first "
            "call: not a Law 24 card; the director decides on the extraneous information "
            "(if the board was played before, play and score normally).",
            severity="director", offender=seat, cards=cards), t)

    def _declaring_side(self, tv: TableView, seat: str, cards: tuple[str, ...], how: str,
                        t: int) -> None:
        b = tv.b
        who = b.role(seat)
        if b.phase == "lead":
            if how == "thrown" and seat == b.declarer and self.pending_opening_loot(tv):
                self.become_dummy(tv, t)
                return
            if seat == b.dummy:
                self.state.dummy_seen = True
                p = self.pending_opening_loot(tv)
                if p is not None:
                    self.dummy_seen_accepts(tv, p, cards, t)
                    return
            text = (f"{name(seat)}, the presumed {who}, exposed {cards_text(cards)} before the "
                    "opening lead: the cards go back to the hand without rectification.")
            tv.emit(self.draft("no-rectification", "Law 24D, 48A", text, severity="info",
                                offender=seat, cards=cards), t)
            return
        text = (f"{name(seat)}'s {cards_text(cards)}: a card of declarer's or dummy's hand is "
                "never a penalty card, and declarer need not play a card he dropped.")
        tv.emit(self.draft("no-rectification", "Law 48A", text, severity="info",
                            offender=b.controller(seat), cards=cards), t)

    def _not_exposed(self, tv: TableView, seat: str, cards: tuple[str, ...], t: int,
                     law: str) -> None:
        tv.emit(self.draft(
            "not-exposed", law,
            f"{name(seat)}'s {cards_text(cards)} could not be seen by {name(partner(seat))}: "
            "not a penalty card (information to opponents only).",
            severity="info", offender=seat, cards=cards), t)

    @staticmethod
    def _yet_to_play(tv: TableView, seat: str) -> bool:
        """Is a trick in progress (led, not complete) to which ``seat`` has not played?
        Between tricks no trick is current: a card held then is a penalty card (Law 49);
        the reading is in docs/laws/duplicate-2017.md."""
        b = tv.b
        return bool(b.trick) and not b.trick_complete() and all(s != seat for s, _ in b.trick)

    def _deemed_played(self, tv: TableView, seat: str, card: str, vis: str, t: int) -> None:
        b = tv.b
        severity: Severity = "director" if vis == "unknown" else "penalty"
        now = b.next_to_play() == seat
        when = "" if now else ", when his turn comes"
        r = tv.emit(self.draft(
            "deemed-played", "Law 45C1",
            f"{name(seat)} held the {card} so that {name(partner(seat))} could possibly see "
            f"its face before he had played to the current trick: it is played to it{when}; "
            f"it is not a penalty card ({MAY_FIND}).",
            severity=severity, offender=seat, cards=(card,)), t)
        tv.do(Covered((card,), r.id), t)
        tv.do(Play(seat, card) if now else PlayAtTurn(seat, card), t)

    def claim_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str,
                       t: int) -> None:
        tv.emit(self.draft(
            "claim-exposure", "Law 68",
            f"{name(seat)} showed {cards_text(cards)} in a claim or concession: these are not "
            "penalty cards.", severity="info", offender=seat, cards=cards), t)

    def named(self, tv: TableView, e: Named) -> None:
        b = tv.b
        if b.phase in ("setup", "end"):
            return
        self.exposure(tv, e.seat, (e.card,), "named", "yes", e.t, [])

    # -- penalty cards (Laws 50, 51) ------------------------------------------------
    def penalty(self, tv: TableView, seat: str, cards: tuple[str, ...], deliberate: bool, t: int,
                cite: str, *, vis: str = "yes", how: str = "dropped",
                supersedes: list[str] | None = None) -> str:
        """Make ``cards`` penalty cards of ``seat``: one ruling listing all his penalty cards."""
        pcs = self.state.pcs(seat)
        earlier = [rid for rid in self.state.pc_rulings(seat) if rid not in tv.closed]
        total = [*pcs, *(c for c in cards if c not in pcs)]
        major = deliberate or len(total) >= 2 or any(is_honour(c) for c in total)
        options: tuple[Option, ...] = ()
        if major:
            options = (DESIGNATE if len(total) >= 2 else ()) + LEAD_OPTIONS
        law = cite + ((", 51" if len(total) >= 2 else "") + ", 50D" if major else ", 50C")
        all_cards = tuple(total)
        text = self._pc_text(seat, all_cards, cards, major, how, vis)
        r = tv.emit(self.draft(
            "major-penalty-card" if major else "minor-penalty-card", law, text,
            severity="director" if vis == "unknown" else "penalty", offender=seat,
            cards=all_cards, options=options, until="played",
            supersedes=[*(supersedes or []), *earlier]), t)
        for c in all_cards:
            pcs[c] = PenaltyCard(c, major, r.id)
            tv.do(Covered((c,), r.id), t)
        if major:
            self.await_lead_option(tv, seat)
        return r.id

    def _pc_text(self, seat: str, all_cards: tuple[str, ...], new: tuple[str, ...], major: bool,
                 how: str, vis: str) -> str:
        who, pard = name(seat), name(partner(seat))
        verb = {"dropped": "dropped face up", "held": "held carelessly face up",
                "detached": "held out face up", "named": "named as in his hand",
                "led": "led prematurely", "thrown": "thrown face up",
                "played": "played in error"}.get(how, "exposed")
        seen = (f"where {pard} could see it" if vis == "yes"
                else f"where the sensors cannot tell whether {pard} could see it: the "
                "director must decide whether it is exposed")
        lead = f"{who}'s {cards_text(new)}, {verb} {seen},"
        if not major:
            s = suit(all_cards[0])
            return (f"{lead} is a minor penalty card: {who} may not play another "
                    f"{suit_name(s)[:-1]} below the ten until he has played it "
                    f"(the director may find the exposure deliberate, which would make it "
                    "major).")
        what = "a major penalty card" if len(all_cards) == 1 else (
            f"makes {cards_text(all_cards)} major penalty cards")
        verb2 = "is" if len(all_cards) == 1 else ""
        return (f"{lead} {verb2} {what}: it must be played at the first legal opportunity, "
                f"and when {pard} has the lead declarer may require or forbid the lead of its "
                f"suit or leave it a penalty card ({MAY_FIND}).").replace("  ", " ")

    # -- Law 24: exposure during the auction -----------------------------------------
    def law24(self, tv: TableView, seat: str, cards: tuple[str, ...], how: str, vis: str,
              t: int) -> None:
        if vis == "no":
            self._not_exposed(tv, seat, cards, t, "Law 24")
            return
        mine = self.state.law24.setdefault(seat, {})
        for c in cards:
            if mine.get(c, "named") == "named":  # a card named, then seen: how it was seen
                mine[c] = how
        earlier = [rid for rid in self.state.law24_rulings.get(seat, []) if rid not in tv.closed]
        all_cards = tuple(mine)
        severity: Severity = "director" if vis == "unknown" else "penalty"
        who, pard = name(seat), name(partner(seat))
        # 24A: one card below honour rank, not led early, even when its holder named it
        # first; 24B (partner must pass) is for an honour or a card led, 24C for two or more
        single_spot = (len(all_cards) == 1 and not is_honour(all_cards[0])
                       and mine[all_cards[0]] != "led")
        if single_spot:
            r = tv.emit(self.draft(
                "auction-exposure", "Law 24A",
                f"{who}'s {all_cards[0]} was exposed during the auction: it stays face up on "
                "the table until the auction ends; no further rectification now.",
                severity="director" if vis == "unknown" else "info", offender=seat,
                cards=all_cards), t)
        else:
            law = "Law 24C" if len(all_cards) >= 2 else "Law 24B"
            r = tv.emit(self.draft(
                "partner-must-pass", law + ", 72C",
                f"{who} exposed {cards_text(all_cards)} during the auction: the cards stay "
                f"face up until the auction ends and {pard} must pass at his next turn.",
                severity=severity, offender=seat, cards=all_cards, until="next-call",
                supersedes=earlier), t)
            self.state.must_pass[partner(seat)] = r.id
        self.state.law24_rulings.setdefault(seat, []).append(r.id)

    def before_call(self, tv: TableView, e: Call) -> None:
        rid = self.state.must_pass.pop(e.seat, None)
        if rid is not None and e.call != "P":
            tv.emit(self.draft(
                "call-not-complied", "Law 24, 72C",
                f"{name(e.seat)} called {e.call} when Law 24 required him to pass (alert "
                f"{rid}): the director must rule on the call.",
                severity="director", offender=e.seat), e.t)

    def auction_end(self, tv: TableView, t: int) -> None:
        """Law 24D/24E: exposed cards go back to a future declarer or dummy, or become
        penalty cards of a defender; one ruling per offender, superseding his Law 24 rulings."""
        b = tv.b
        for seat, cards in list(self.state.law24.items()):
            if not cards:
                continue
            earlier = [rid for rid in self.state.law24_rulings.get(seat, [])
                       if rid not in tv.closed]
            held = tuple(cards)
            if b.role(seat) in ("declarer", "dummy"):
                tv.emit(self.draft(
                    "no-rectification", "Law 24D",
                    f"{name(seat)} became {b.role(seat)}: the {cards_text(held)} exposed during "
                    "the auction go back to the hand without rectification.",
                    severity="info", offender=seat, cards=held, supersedes=earlier), t)
                for c in held:
                    tv.do(Uncovered((c,)), t)
            else:
                deliberate = any(h in DELIBERATE for h in cards.values())
                self.penalty(tv, seat, held, deliberate, t, "Law 24E, 50B",
                             how=next(iter(cards.values())), supersedes=earlier)
        self.state.law24.clear()
        self.state.must_pass.clear()
