"""2017 Laws during the play: Laws 50D-58 and the penalty-card obligations.

Leads out of turn (53-56), premature plays (57), simultaneous plays and cards
played together (58), revokes corrected or established (61-64), penalty cards
not played (52), and the lead options of 50D2 and 51.
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING

from tablesense.contract.cards import is_honour, lho, partner, rank_value, suit
from tablesense.contract.events import Observe
from tablesense.contract.vocab import Option
from tablesense.engine.effects import (
    AcceptLead,
    Answered,
    Covered,
    LeadNextTrick,
    OpeningLeadFaced,
    Play,
    PlayAtTurn,
    StopPlay,
    SwapDeclarer,
    TakeBack,
)
from tablesense.engine.errors import InvalidEvent
from tablesense.engine.obligations import Restriction
from tablesense.laws.base import (
    LawCode,
    cards_text,
    name,
    suit_name,
)
from tablesense.laws.state2017 import Pending, State2017

if TYPE_CHECKING:
    from tablesense.contract.events import Decide
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.view import TableView

PLAY_OPTIONS: tuple[Option, ...] = (
    "require-highest", "require-lowest", "require-other-suit", "forbid-other-suit")


class Play2017(LawCode[State2017]):
    """Play irregularities under the 2017 Laws (mixed into Duplicate2017)."""

    def new_state(self) -> State2017:
        return State2017()

    def penalty(self, tv: TableView, seat: str, cards: tuple[str, ...], deliberate: bool, t: int,
                cite: str, *, vis: str = "yes", how: str = "dropped",
                supersedes: list[str] | None = None) -> str:
        """Make ``cards`` penalty cards of ``seat`` (Duplicate2017); returns the ruling id."""
        raise NotImplementedError

    # -- helpers -------------------------------------------------------------------
    def pending(self, tv: TableView, kind: str, seat: str | None = None) -> Pending | None:
        return next((p for p in self.state.pending
                     if p.kind == kind and (seat is None or p.seat == seat)), None)

    def holds_back(self, tv: TableView, seat: str, card: str) -> bool:
        return any(card in p.cards for p in self.state.pending)

    def pending_opening_loot(self, tv: TableView) -> Pending | None:
        return next((p for p in self.state.pending if p.kind == "loot" and p.opening), None)

    def await_lead_option(self, tv: TableView, seat: str) -> None:
        """Declarer chooses a lead option before ``seat``'s partner leads (50D2)."""
        b = tv.b
        pard = partner(seat)
        on_lead = (b.phase == "lead" and pard == b.leader) or (
            b.phase == "play" and b.next_to_play() == pard
            and (not b.trick or b.trick_complete()))
        majors = [pc for pc in self.state.pcs(seat).values() if pc.major]
        if on_lead and majors and majors[-1].ruling not in self.state.waived:
            self.state.awaiting_option[pard] = majors[-1].ruling

    def become_dummy(self, tv: TableView, t: int) -> None:
        """Law 54A: declarer spreads his hand; his partner becomes declarer."""
        b = tv.b
        p = self.pending_opening_loot(tv)
        assert b.declarer is not None
        tv.do(SwapDeclarer(), t)
        if p is not None:
            self.accept(tv, p, t)

    def dummy_seen_accepts(self, tv: TableView, p: Pending, cards: tuple[str, ...],
                           t: int) -> None:
        """Law 54C: declarer could have seen dummy's cards: he must accept the lead."""
        tv.emit(self.draft(
            "no-rectification", "Law 54C, 48A",
            f"{name(tv.b.dummy)} faced {cards_text(cards)} after the opening lead out of turn "
            f"(alert {p.ruling}): declarer could have seen dummy's cards, so he must accept the "
            "lead; dummy's cards are no penalty cards.", severity="info",
            offender=tv.b.dummy, cards=cards, supersedes=(p.ruling,)), t)
        self.accept(tv, p, t)

    def accept(self, tv: TableView, p: Pending, t: int) -> None:
        b = tv.b
        if p in self.state.pending:
            self.state.pending.remove(p)
        tv.do(Answered(p.ruling), t)
        # Cards counted meanwhile as the start of another trick (the proper leader led
        # too) follow the accepted lead: each is played at its seat's turn.
        before = [] if b.trick_complete() else list(b.trick)
        for seat, card in before:
            tv.do(TakeBack(seat, card, keep_place=False), t)
        led = tv.ruling(p.ruling)
        self.state.accepting = (p.cards[0], led.t if led is not None else t)
        try:
            tv.do(AcceptLead(p.seat, p.cards[0]), t)
        finally:
            self.state.accepting = None
        if p.opening and b.phase == "lead":
            tv.do(OpeningLeadFaced(), t)
        for seat, card in before:
            tv.do(PlayAtTurn(seat, card), t)

    def early_lead_stands(self, tv: TableView, p: Pending, t: int) -> None:
        """Law 11A: the non-offending side played to the lead made before declarer chose
        a Law 50D2 option: the right to rectify it is forfeited; the lead stands and is no
        penalty card (one ruling superseding it)."""
        tv.emit(self.draft(
            "no-rectification", "Law 11A, 50D2",
            f"{name(p.seat)} led the {cards_text(p.cards)} before declarer chose a lead option "
            f"(alert {p.ruling}), and the declaring side played to it: the right to rectify "
            "is forfeited; the lead stands and is no penalty card.", severity="info",
            offender=p.seat, cards=p.cards, supersedes=(p.ruling,)), t)
        self.state.waived.add(p.about)

    # -- cards arriving in a trick zone ------------------------------------------------
    def arrival(self, tv: TableView, seat: str, o: Observe) -> None:
        b = tv.b
        card = o.card
        if b.phase == "auction":
            self.exposure(tv, seat, (card,), "led", "yes", o.t, [o])
            return
        if b.phase == "claim":
            return
        if b.phase == "lead":
            if o.face == "down":
                return  # a face-down opening lead is not exposed (Law 41A)
            if seat == b.leader:
                self._in_turn(tv, seat, card, o.t)
                if b.phase == "lead":
                    tv.do(OpeningLeadFaced(), o.t)
            elif b.role(seat) == "leaders-partner":
                self.opening_lead_out_of_turn(tv, seat, card, o.t)
            else:
                self.exposure(tv, seat, (card,), "led", "yes", o.t, [o])
            return
        loot = self.pending(tv, "loot") or self.pending(tv, "early")
        if loot is not None and seat == lho(loot.seat) and (
                seat != b.next_to_play() or (loot.kind == "loot" and not b.trick)):
            if loot.kind == "early":
                self.early_lead_stands(tv, loot, o.t)
            self.accept(tv, loot, o.t)  # Law 53A: the next hand played to it
        nxt = b.next_to_play()
        if seat == nxt or (seat in b.withdrawn and not b.trick_complete()):
            self._in_turn(tv, seat, card, o.t)
        elif not b.trick or b.trick_complete():
            self.lead_out_of_turn(tv, seat, card, o.t)
        elif o.face == "unknown" and b.controller(seat) == b.declarer:
            # Declarer's card early (57C3) counts at its turn without rectification; an
            # RFID tag cannot tell whether the player before him played unseen (a card
            # held where partner could see it is played, 45C1): no record on a guess.
            tv.do(PlayAtTurn(seat, card), o.t)
        else:
            self.play_out_of_turn(tv, seat, card, o.t)

    def plain_play(self, tv: TableView, seat: str, card: str) -> bool:
        # Nothing pending (53A's acceptance by playing), no lead option awaited (50D2),
        # no revoke to establish, a legal card (no revoke to record), no restriction or
        # designated card, no penalty card anywhere (52; none to clear after the play).
        ob = self.state
        return (not ob.pending and not ob.revokes and not ob.awaiting_option
                and not ob.lead_rules and not ob.play_rules and not ob.designated
                and tv.b.is_legal(seat, card) and not any(ob.penalty.values()))

    def _in_turn(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        leading = not b.trick or b.trick_complete()
        if leading and seat in self.state.awaiting_option and b.is_defender(seat):
            rid = self.state.awaiting_option.pop(seat)
            # Seed 002: partner may not lead before declarer has chosen; such a lead
            # also becomes a penalty card.
            r = self.penalty(tv, seat, (card,), True, t,
                             f"Law 50D2 (alert {rid} pending), 49", how="led")
            # Declarer playing to it accepts it as the lead (as Law 53A for a lead out of turn).
            self.state.pending.append(Pending(r, "early", seat, (card,), about=rid))
            return
        tv.do(Play(seat, card), t)

    def before_play(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None:
        b = tv.b
        self.establish_revokes(tv, seat, t)
        if not leading and not b.is_legal(seat, card):
            self.state.revokes[seat] = (card, len(b.tricks))  # dummy too (Law 61A)
            # Law 44C: following suit comes before every other requirement, so a card
            # that fails to follow is a revoke (Law 61), never a penalty card unplayed
            # (Law 52): no accept/refuse choice for it
            self._check_restrictions(tv, seat, card, leading, t)
            return
        self._check_restrictions(tv, seat, card, leading, t)
        pcs = self.state.pcs(seat)
        if not pcs or card in pcs:
            return
        if self.state.accepting is not None and self.state.accepting[0] == card:
            # a lead out of turn accepted now: only the penalty cards he had when he led it
            when = self.state.accepting[1]
            pcs = {c: pc for c, pc in pcs.items()
                   if (r := tv.ruling(pc.ruling)) is None or r.t <= when}
            if not pcs:
                return
        due = [c for c, pc in pcs.items() if pc.major and b.is_legal(seat, c)]
        follows = not leading and suit(card) == b.led_suit() and all(
            suit(c) != b.led_suit() for c in due)
        minor_broken = [c for c, pc in pcs.items() if not pc.major and suit(c) == suit(card)
                        and not is_honour(card)]
        if (due and not follows) or minor_broken:
            owed = tuple(due or minor_broken)
            self.state.pending.append(Pending("", "pc-not-played", seat, (card,)))
            r = tv.emit(self.draft(
                "penalty-card-not-played", "Law 52, 50D1" if due else "Law 52, 50C",
                f"{name(seat)} played the {card} when his penalty card {cards_text(owed)} "
                "was due: declarer may accept that play or make him play the penalty card, the "
                "card played then becoming a major penalty card.",
                offender=seat, cards=(*owed, card), options=("accept-play", "refuse-play")), t)
            self.state.pending[-1].ruling = r.id

    def _check_restrictions(self, tv: TableView, seat: str, card: str, leading: bool,
                            t: int) -> None:
        b = tv.b
        hand = b.hands[seat]
        for rule in list(self.state.lead_rules if leading else self.state.play_rules):
            if rule.seat != seat:
                continue
            ok = self._complies(rule, card, hand, b.led_suit() if not leading else None)
            if not rule.lasting:
                (self.state.lead_rules if leading else self.state.play_rules).remove(rule)
            if not ok:
                tv.emit(self.draft(
                    "call-not-complied", "Law 50D2, 57A, 59",
                    f"{name(seat)} played the {card} against the restriction chosen in alert "
                    f"{rule.ruling} ({rule.option}): the director must rule.",
                    severity="director", offender=seat, cards=(card,)), t)

    def _complies(self, rule: Restriction, card: str, hand: Set[str], led: str | None) -> bool:
        s = rule.suit
        if rule.option == "require-lead-suit" or rule.option == "require-other-suit":
            return suit(card) == s or not any(suit(c) == s for c in hand)
        if rule.option == "forbid-lead-suit" or rule.option == "forbid-other-suit":
            return suit(card) != s or all(suit(c) == s for c in hand)
        same = [c for c in hand if led is not None and suit(c) == led] or list(hand)
        if not same:
            return True
        values = [rank_value(c) for c in same if suit(c) == suit(card)] or [0]
        if rule.option == "require-highest":
            return rank_value(card) >= max(values)
        return rank_value(card) <= min(values)

    def after_play(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None:
        b = tv.b
        for pcs in self.state.penalty.values():
            pcs.pop(card, None)
        self.state.designated.pop(seat, None)
        if b.trick_complete():
            self.state.play_rules.clear()
            winner = b.turn
            assert winner is not None
            self.state.lead_rules = [r for r in self.state.lead_rules if r.seat == winner]
            if b.is_defender(winner) and any(pc.major for pc in self.state.pcs(partner(winner))
                                             .values()):
                self.await_lead_option(tv, partner(winner))

    # -- leads and plays out of turn ---------------------------------------------------
    def opening_lead_out_of_turn(self, tv: TableView, seat: str, card: str, t: int) -> None:
        if self.state.dummy_seen:
            r = tv.emit(self.draft(
                "lead-out-of-turn", "Law 54C",
                f"{name(seat)} faced the opening lead ({card}) out of turn after declarer could "
                "have seen dummy's cards: declarer must accept the lead.", offender=seat,
                cards=(card,)), t)
            self.accept(tv, Pending(r.id, "loot", seat, (card,), opening=True), t)
            return
        r = tv.emit(self.draft(
            "lead-out-of-turn", "Law 54",
            f"{name(seat)} faced the opening lead ({card}) out of turn: declarer may accept it, "
            "accept it and become dummy by spreading his hand, or refuse it, when it becomes a "
            "major penalty card.", offender=seat, cards=(card,),
            options=("accept-lead", "become-dummy", "refuse-lead")), t)
        self.state.pending.append(Pending(r.id, "loot", seat, (card,), opening=True))

    def lead_out_of_turn(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        ctl = b.controller(seat)
        if ctl == b.declarer:
            hand = "dummy" if seat == b.dummy else "his own hand"
            text = (f"Declarer led the {card} from {hand} out of turn: either defender may "
                    "accept the lead or require it to be taken back, without further "
                    "rectification.")
            law = "Law 55"
        else:
            text = (f"{name(seat)} led the {card} out of turn: declarer may accept the lead, "
                    "or refuse it, when it becomes a major penalty card.")
            law = "Law 53, 56"
        r = tv.emit(self.draft("lead-out-of-turn", law, text, offender=ctl, cards=(card,),
                                options=("accept-lead", "refuse-lead")), t)
        self.state.pending.append(Pending(r.id, "loot", seat, (card,)))

    def play_out_of_turn(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        ctl = b.controller(seat)
        assert b.trick_leader is not None
        order = [b.trick_leader]
        while len(order) < 4:
            order.append(lho(order[-1]))
        done = len(b.trick)
        if ctl == b.declarer:
            hand = "dummy" if seat == b.dummy else "his own hand"
            tv.emit(self.draft(
                "premature-play", "Law 57C3",
                f"Declarer played the {card} from {hand} before his turn: it is a played card "
                "and counts at its turn, without rectification.",
                severity="info", offender=ctl, cards=(card,)), t)
            tv.do(PlayAtTurn(seat, card), t)
            return
        waiting = order[done:]
        before_me = waiting[:waiting.index(seat)] if seat in waiting else waiting
        if seat not in waiting and b.declarer in order[:done] and b.dummy in order[:done]:
            tv.emit(self.draft(
                "premature-play", "Law 57C1",
                f"{name(seat)} led the {card} to the next trick before {name(partner(seat))} "
                "had played to this one, but declarer had played from both hands: no "
                "rectification; it stands as the lead of the next trick.",
                severity="info", offender=seat, cards=(card,)), t)
            tv.do(LeadNextTrick(seat, card), t)
            return
        if partner(seat) in before_me:
            self._premature(tv, seat, card, t, order[:done])
        elif b.is_legal(seat, card):
            tv.emit(self.draft(
                "premature-play", "Law 57D",
                f"{name(seat)} played the {card} before his right-hand opponent: it is a legal "
                "card and is played at his proper turn, without rectification.",
                severity="info", offender=seat, cards=(card,)), t)
            tv.do(PlayAtTurn(seat, card), t)
        else:
            tv.emit(self.draft(
                "premature-play", "Law 57D",
                f"{name(seat)} played the {card} before his right-hand opponent, a card he "
                "could not legally play at his turn: it becomes a major penalty card.",
                offender=seat, cards=(card,)), t)
            self.penalty(tv, seat, (card,), True, t, "Law 57D", how="played")

    def _premature(self, tv: TableView, seat: str, card: str, t: int, played: list[str]) -> None:
        b = tv.b
        pard = name(partner(seat))
        if b.declarer in played and b.dummy in played:
            tv.emit(self.draft(
                "premature-play", "Law 57C1",
                f"{name(seat)} played the {card} before {pard}, but declarer had played from "
                "both hands: no rectification.", severity="info", offender=seat, cards=(card,)),
                t)
            tv.do(PlayAtTurn(seat, card), t)
            return
        tv.emit(self.draft(
            "premature-play", "Law 57A",
            f"{name(seat)} played the {card} before {pard} had played: declarer may require "
            f"{pard} to play the highest or lowest card of the suit led, or a card of another "
            "suit he names, or forbid him that suit.",
            offender=seat, cards=(card,), options=PLAY_OPTIONS), t)
        self.penalty(tv, seat, (card,), True, t, "Law 57A", how="led")

    # -- cards played together, withdrawn cards ---------------------------------------------
    def played_together(self, tv: TableView, seat: str, obs: list[Observe]) -> None:
        b = tv.b
        cards = tuple(o.card for o in obs)
        if b.phase == "auction":
            self.exposure(tv, seat, cards, "led", "yes", obs[-1].t, obs)
            return
        if b.phase not in ("lead", "play"):
            return
        t = obs[-1].t
        visible = [o for o in obs if o.face != "down" and (o.seen_by is None or o.seen_by)]
        if b.controller(seat) == b.declarer and b.phase == "play":
            tv.emit(self.draft(
                "cards-played-together", "Law 58B, 48A",
                f"Declarer played {cards_text(cards)} together: he plays the card he leaves in "
                "the trick; the other goes back without rectification.",
                severity="info", offender=b.declarer, cards=cards), t)
            self.state.pending.append(Pending("", "together", seat, cards))
            return
        if all(o.face == "unknown" for o in obs):
            # No reader saw a face (RFID tags): 58B1 (one visible: it is played, the
            # others go back) or 58B2 (more: he chooses, the others are penalty cards)
            # is for the director. No penalty on a guess: the first to arrive counts
            # meanwhile, the others lie uncounted and owe nothing.
            first = obs[0]
            tv.emit(self.draft(
                "cards-played-together", "Law 58B",
                f"{name(seat)} played {cards_text(cards)} together, and the readers cannot "
                "see faces: if only one could be seen it is played and the others go back "
                "(58B1); if more, he chooses and the others are penalty cards (58B2). The "
                f"director decides; the {first.card} counts as played meanwhile.",
                severity="director", offender=seat, cards=cards), t)
            for c in cards:
                tv.do(Covered((c,), "", replace=False), t)
            self.arrival(tv, seat, first)
            return
        if len(visible) <= 1:
            shown = (visible or obs)[0]
            tv.emit(self.draft(
                "cards-played-together", "Law 58B1",
                f"{name(seat)} played {cards_text(cards)} together but only the {shown.card} "
                "could be seen: it is played, the others go back without rectification.",
                severity="info", offender=seat, cards=cards), t)
            for c in cards:
                tv.do(Covered((c,), "", replace=False), t)
            self.arrival(tv, seat, shown)
            return
        r = tv.emit(self.draft(
            "cards-played-together", "Law 58B2",
            f"{name(seat)} played {cards_text(cards)} together, faces visible: he chooses the "
            "card he plays and each other card becomes a penalty card; an opponent who played "
            "after him may take back his card.",
            offender=seat, cards=cards, options=("withdraw-substitute",)), t)
        self.state.pending.append(Pending(r.id, "together", seat, cards))

    def withdrawn(self, tv: TableView, o: Observe) -> None:
        b = tv.b
        seat, card = o.seat, o.card
        # Law 62C1: "each member of the non-offending side may withdraw any card he
        # played after the revoke but before attention was drawn to it"
        if self.revoke_taken_back(tv, seat, card, o.t):
            self.revoke_corrected(tv, seat, card, o.t)
            return
        if self.took_back_after_revoke(tv, seat, card, o.t):
            return
        p = next((p for p in self.state.pending if p.kind == "together" and p.seat == seat
                  and card in p.cards), None)
        if p is None:
            return
        left = [c for c in p.cards
                if (pos := tv.where(c)) is not None and pos.zone == "trick"]
        if len(left) != 1:
            return
        self.state.pending.remove(p)
        others = tuple(c for c in p.cards if c != left[0])
        self.arrival(tv, seat, Observe(o.t, seat, left[0], "trick", "up", "at"))
        if p.ruling and b.controller(seat) != b.declarer:
            self.penalty(tv, seat, others, False, o.t, "Law 58B2, 50B", how="played")

    def revoke_corrected(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        if b.controller(seat) == b.declarer:
            whose = "dummy's" if seat == b.dummy else "his"
            tv.emit(self.draft(
                "no-rectification", "Law 62B2",
                f"Declarer corrected {whose} revoke in time: the {card} goes back to the hand and "
                "a card of the suit led replaces it, without rectification.", severity="info",
                offender=b.declarer, cards=(card,)), t)
            return
        self.penalty(tv, seat, (card,), True, t, "Law 62B1, 50B", how="played")

    def revoke(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        if seat == b.dummy:
            tv.emit(self.draft(
                "revoke", "Law 61A, 64B3, 64C",
                f"Dummy revoked with the {card} and the revoke is established: there is no trick "
                "transfer for a revoke by dummy; the director restores equity if the "
                "defenders were damaged.", severity="director", offender=b.controller(seat),
                cards=(card,)), t)
            return
        tv.emit(self.draft(
            "revoke", "Law 61, 63A, 64",
            f"{name(seat)} revoked with the {card} and the revoke is established: the director "
            "transfers tricks at the end of play.", offender=b.controller(seat), cards=(card,)),
            t)

    # -- declarer's hand faced ---------------------------------------------------------
    def thrown_hand(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str, t: int,
                    obs: list[Observe]) -> None:
        b = tv.b
        if seat != b.declarer:
            if seat == b.dummy:
                return
            if b.hands[seat] and all(c in cards for c in b.hands[seat]):
                self.defender_faces_hand(tv, seat, cards, t)
                return
            self.exposure(tv, seat, cards, "thrown", vis, t, obs)
            return
        if not b.tricks and len(b.trick) == 1:
            tv.emit(self.draft(
                "no-rectification", "Law 48B2",
                "Declarer spread his hand as if he were dummy right after the opening lead: "
                "clearly not a claim; no rectification.", severity="info", offender=seat,
                cards=cards), t)
            return
        tv.emit(self.draft(
            "claim", "Law 48B2, 68",
            f"Declarer faced {cards_text(cards)}: treated as a claim; play stops and the "
            "claim is settled under Law 68.", severity="info", offender=seat, cards=cards), t)
        self.establish_revokes(tv, None, t)
        tv.do(StopPlay(), t)

    def defender_faces_hand(self, tv: TableView, seat: str, cards: tuple[str, ...],
                            t: int) -> None:
        """Law 68A, 68B1: a defender who lays his whole hand face up in the play, with no
        claim event, has claimed or conceded, unless he demonstrably did not intend to:
        the director settles it (one ruling, no penalty cards); play stops (68D)."""
        tv.emit(self.draft(
            "claim", "Law 68A, 68B1",
            f"{name(seat)} laid his whole hand face up ({cards_text(cards)}) during the play: "
            "a claim or concession of tricks (Law 68A, 68B1) unless he demonstrably did not "
            "intend one; play stops and the director settles it. His cards are not penalty "
            "cards.", severity="director", offender=seat, cards=cards), t)
        self.establish_revokes(tv, None, t)
        tv.do(StopPlay(), t)

    # -- the non-offending side's choices ---------------------------------------------------
    def decide(self, tv: TableView, r: Ruling, d: Decide) -> None:
        b = tv.b
        opt = d.option
        p = next((p for p in self.state.pending if p.ruling == r.id), None)
        if r.kind == "lead-out-of-turn":
            if p is None:
                raise InvalidEvent(b.phase, "decide", f"alert {r.id} was already answered")
            if opt == "accept-lead":
                self.accept(tv, p, d.t)
            elif opt == "become-dummy":
                self.become_dummy(tv, d.t)
            else:
                self.state.pending.remove(p)
                if b.controller(p.seat) != b.declarer:
                    self.penalty(tv, p.seat, p.cards, True, d.t,
                                 "Law 54D, 56" if p.opening else "Law 56", how="led")
        elif r.kind in ("major-penalty-card", "minor-penalty-card"):
            self._pc_option(tv, r, d)
        elif r.kind == "penalty-card-not-played":
            if p is not None:
                self.state.pending.remove(p)
            if opt == "refuse-play" and r.offender is not None:
                card = r.cards[-1]
                tv.do(TakeBack(r.offender, card), d.t)
                self.penalty(tv, r.offender, (card,), True, d.t, "Law 52B", how="played")
        elif r.kind == "premature-play" and r.offender is not None:
            if opt in ("require-other-suit", "forbid-other-suit") and d.suit is None:
                raise InvalidEvent(b.phase, "decide", f"option {opt} needs a suit")
            self.state.play_rules.append(Restriction(partner(r.offender), opt, d.suit, r.id))

    def _pc_option(self, tv: TableView, r: Ruling, d: Decide) -> None:
        b = tv.b
        assert r.offender is not None
        seat = r.offender
        pcs = self.state.pcs(seat)
        if d.option == "designate-card":
            if d.card is None or d.card not in pcs:
                raise InvalidEvent(b.phase, "decide", "designate-card needs one of "
                                   f"{name(seat)}'s penalty cards in field card")
            self.state.designated[seat] = d.card
            return
        s = None
        if d.option != "pc-remains":
            s = d.suit or next((suit(c) for c in r.cards if c in pcs), None)
            if s is None:
                raise InvalidEvent(b.phase, "decide", "no penalty card left to name a suit from")
            if all(suit(c) != s for c in pcs):
                raise InvalidEvent(b.phase, "decide", f"{name(seat)} holds no penalty card in "
                                   f"{suit_name(s)}: declarer may require or forbid only the "
                                   "suit of a penalty card (Law 50D2, 51)")
        self.state.awaiting_option.pop(partner(seat), None)
        if s is None:
            return
        for c in [c for c in pcs if suit(c) == s]:
            del pcs[c]
        self.state.lead_rules.append(Restriction(partner(seat), d.option, s, r.id,
                                             lasting=d.option == "forbid-lead-suit"))


__all__ = ["PLAY_OPTIONS", "Play2017", "suit_name"]
