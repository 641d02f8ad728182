"""The play under the old codes: leads out of turn, false leads, cards played together
or before partner, renounces corrected in time, revokes, thrown hands, and the
non-offenders' answers (``decide``). The code classes set the ClassVars."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesense.contract.cards import SEATS, lho, partner, rank_value, side, suit, trick_winner
from tablesense.contract.events import Claim, Concede, Observe
from tablesense.contract.vocab import Option
from tablesense.engine.effects import (
    AcceptLead,
    Answered,
    OpeningLeadFaced,
    Play,
    PlayAtTurn,
    StopPlay,
    TakeBack,
)
from tablesense.laws.answers import Answers
from tablesense.laws.base import (
    cards_text,
    name,
    suit_name,
)
from tablesense.laws.calls import pre_role
from tablesense.laws.oldstate import Loot

if TYPE_CHECKING:
    from tablesense.engine.view import TableView

TOGETHER_MS = 300


class OldPlay(Answers):
    # options offered on an adversary's lead out of turn (after the first lead / opening)
    loot_options: ClassVar[tuple[Option, ...]] = ("call-suit", "call-card")
    opening_loot_options: ClassVar[tuple[Option, ...]] = ("call-suit", "call-card")
    premature_options: ClassVar[tuple[Option, ...]] = ("require-win", "require-not-win")
    renounce_options: ClassVar[tuple[Option, ...]] = ("call-card", "require-highest",
                                                   "require-lowest")
    dealer_renounce_penalty: ClassVar[bool] = True  # L95: highest or lowest from the dealer
    dummy_down_on_any_lead: ClassVar[bool] = True  # L62 "whether in or out of turn"
    simultaneous_lead_rule: ClassVar[bool] = False  # auction-1929 (8)
    hands_abandoned: ClassVar[bool] = True  # L77
    # L94: "any player or players who have played after him may withdraw their cards and
    # substitute others"
    either_side_after_revoke: ClassVar[bool] = True

    def is_dealer_side(self, tv: TableView, seat: str) -> bool:
        return pre_role(tv.b, seat) in ("declarer", "dummy")

    # -- cards arriving in a trick zone --------------------------------------------
    def arrival(self, tv: TableView, seat: str, o: Observe) -> None:
        b = tv.b
        card, t = o.card, o.t
        if b.phase == "auction":
            self.exposure(tv, seat, (card,), "led", "yes", t, [o])
            return
        if b.phase not in ("lead", "play") or o.face == "down":
            return
        st = self.state
        if st.set_aside is not None and self.false_lead_stood(tv, seat, card, t):
            return
        if st.loot is not None and self.follow_false_lead(tv, seat, card, t):
            return
        if b.phase == "lead":
            if seat == b.leader:
                self.in_turn(tv, seat, card, t)
                self.lead_faced(tv)
            else:
                self.lead_out_of_turn(tv, seat, card, t, opening=True)
            return
        nxt = b.next_to_play()
        if seat == nxt or (seat in b.withdrawn and not b.trick_complete()):
            self.in_turn(tv, seat, card, t)
        elif not b.trick or b.trick_complete():
            self.lead_out_of_turn(tv, seat, card, t, opening=False)
        else:
            self.play_out_of_turn(tv, seat, card, t)

    def lead_faced(self, tv: TableView) -> None:
        b = tv.b
        if b.phase == "lead":
            tv.do(OpeningLeadFaced(), tv.now)

    def in_turn(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        if not b.trick or b.trick_complete():
            self.state.lead_t = t
        tv.do(Play(seat, card), t)

    def before_play(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None:
        b = tv.b
        if leading:
            self.flush_late(tv, t)
        self.establish_revokes(tv, seat, t)
        if not leading and not b.is_legal(seat, card):
            self.state.revokes[seat] = (card, len(b.tricks))  # dummy's too: corrected, no penalty
        self.check_calls(tv, seat, card, leading, t)

    def after_play(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None:
        self.card_played(tv, seat, card)

    def quitted(self, tv: TableView, t: int) -> None:
        self.flush_late(tv, t)
        b = tv.b
        for rseat, (card, when) in list(self.state.revokes.items()):
            if len(b.tricks) > when:
                del self.state.revokes[rseat]
                self.revoke(tv, rseat, card, t)

    def end_of_play(self, tv: TableView, t: int) -> None:
        self.quitted(tv, t)

    # -- leads out of turn -------------------------------------------------------------
    def lead_out_of_turn(self, tv: TableView, seat: str, card: str, t: int,
                         opening: bool) -> None:
        b = tv.b
        if self.is_dealer_side(tv, seat):
            r = self.emit(tv, self.draft(
                "lead-out-of-turn", self.c("dealer-loot"),
                f"The declarer led the {card} out of turn from "
                f"{'dummy' if seat == b.dummy else 'his own hand'}: no penalty; he may take it "
                "back until the second hand has played to it.",
                severity="info", offender=b.controller(seat), cards=(card,)), t)
            self.state.loot = Loot(seat, card, r.id, dealer=True)
        else:
            options = self.opening_loot_options if opening else self.loot_options
            r = self.emit(tv, self.draft(
                "lead-out-of-turn", self.c("opening-loot" if opening else "loot"),
                f"{name(seat)} led the {card} out of turn: {self.loot_choice(options)}. If "
                "the other three follow it before then, the trick stands.",
                offender=seat, cards=(card,), options=options), t)
            self.state.loot = Loot(seat, card, r.id, dealer=False)
        if opening and self.dummy_down_on_any_lead:
            self.lead_faced(tv)

    def loot_choice(self, options: tuple[str, ...]) -> str:
        words = {"call-suit": "call a suit from him or his partner when either next leads",
                 "call-card": "call the card led in error",
                 "treat-as-exposed": "treat the card as exposed",
                 "require-lead-suit": "require the leader to lead a suit he names"}
        return "the declarer may " + " or ".join(words[o] for o in options)

    def designated_later(self, tv: TableView, seat: str, card: str, t: int) -> None:
        # Cards played together to a lead out of turn that the others are following: the
        # designated one follows it too, as a single card would have (a lead out of turn
        # followed by all three stands), rather than waiting for a turn the false lead
        # has put off.
        if self.state.loot is not None and self.follow_false_lead(tv, seat, card, t):
            return
        super().designated_later(tv, seat, card, t)

    def follow_false_lead(self, tv: TableView, seat: str, card: str, t: int) -> bool:
        loot = self.state.loot
        assert loot is not None
        expected = lho(loot.followers[-1][0] if loot.followers else loot.seat)
        # The others follow the false lead, one of them perhaps before his turn (the
        # table shows who played which card: the trick is still theirs).
        if (loot.dealer and seat == partner(loot.seat) and seat != expected
                and not loot.followers):
            if seat != tv.b.next_to_play():
                # The declarer's other hand played to his own false lead before the
                # second hand: a premature play by the dealer's side, never penalised; it
                # counts at its turn once the second hand's play makes the lead stand
                # (Law 81).
                self.play_out_of_turn(tv, seat, card, t)
                return True
            # That hand is the one to lead: his card is his proper lead, unless the
            # second hand plays to the false lead next (false_lead_stood).
            self.state.loot, self.state.set_aside = None, loot
            return False
        if seat == loot.seat or any(s == seat for s, _ in loot.followers) or (
                loot.dealer and seat != expected):
            self.state.loot = None  # the false lead was abandoned
            return False
        loot.followers.append((seat, card))
        loot.followers.sort(key=lambda f: (SEATS.index(f[0]) - SEATS.index(loot.seat)) % 4)
        if loot.dealer or len(loot.followers) == 3:
            self.state.loot = None
            if not loot.dealer:
                self.emit(tv, self.draft(
                    "no-rectification", self.c("false-lead"),
                    f"The other three followed {name(loot.seat)}'s lead out of turn: the "
                    "trick is complete and the error cannot be rectified.",
                    severity="info", offender=loot.seat, cards=(loot.card,),
                    supersedes=(loot.ruling,)), t)
            if not tv.b.tricks:
                self.opening_lead_made(tv)
            self.lead_faced(tv)
            tv.do(AcceptLead(loot.seat, loot.card), t)
            for fs, fc in loot.followers:
                tv.do(Play(fs, fc), t)
        return True

    def opening_lead_made(self, tv: TableView) -> None:
        """A false opening lead stood: what the declarer required of the initial leader's
        lead (answering an earlier lead out of turn, 1929 (6)) has no lead left to apply
        to."""
        rules = self.state.lead_rules
        rules[:] = [r for r in rules if r.option not in ("require-lead-suit", "forbid-lead-suit")
                    or (rr := tv.ruling(r.ruling)) is None or rr.phase != "lead"]

    def false_lead_stood(self, tv: TableView, seat: str, card: str, t: int) -> bool:
        """The declarer led out of turn from one hand and then played from the other, the
        one to lead, which was counted as that hand's lead; if the next card comes from
        the second hand to the false lead, whose card is still in its trick zone, the
        false lead stood (Law 81: not to be rectified once the second hand has played)
        and the other hand's card was played before its turn, never penalised."""
        st = self.state
        loot, st.set_aside = st.set_aside, None
        assert loot is not None
        b = tv.b
        other = partner(loot.seat)
        pos = tv.where(loot.card)
        if (seat != lho(loot.seat) or len(b.trick) != 1 or b.trick[0][0] != other
                or pos is None or pos.zone != "trick" or pos.seat != loot.seat
                or loot.card in tv.played):
            return False
        early = b.trick[0][1]
        if not tv.do(TakeBack(other, early, keep_place=False), t):
            return False
        tv.do(AcceptLead(loot.seat, loot.card), t)
        tv.do(Play(seat, card), t)
        self.play_out_of_turn(tv, other, early, t)
        return True

    # -- plays before one's turn -------------------------------------------------------
    def play_out_of_turn(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        played = [s for s, _ in b.trick]
        nxt = b.next_to_play()
        if self.is_dealer_side(tv, seat):
            self.emit(tv, self.draft(
                "premature-play", self.c("dealer-premature"),
                f"The declarer played the {card} before his turn: the dealer is never "
                "penalised; it counts when his turn comes.", severity="info",
                offender=b.controller(seat), cards=(card,)), t)
            tv.do(PlayAtTurn(seat, card), t)
            return
        if seat in played:
            self.winning_cards(tv, seat, card, t)
        elif (self.simultaneous_lead_rule and len(b.trick) == 1
              and b.trick[0][0] == partner(seat) and t - self.state.lead_t <= TOGETHER_MS):
            self.make_callable(tv, seat, (card,), self.c("simultaneous"), self.callable_text(
                seat, (card,), f"led at the same moment as {name(partner(seat))}'s lead"), t)
        elif nxt == partner(seat) and len(b.trick) == 1:
            pard = name(partner(seat))
            self.emit(tv, self.draft(
                "premature-play", self.c("fourth-before-third"),
                f"{name(seat)} played the {card} as fourth hand before {pard} (second hand) "
                "and the third hand had played: "
                f"the declarer may call on {pard} {self.premature_words()} the trick; the "
                f"{card} counts as {name(seat)}'s play.", offender=seat, cards=(card,),
                options=self.premature_options), t)
            tv.do(PlayAtTurn(seat, card), t)
        else:
            self.make_callable(tv, seat, (card,), self.c("played-in-error"),
                               self.callable_text(seat, (card,), "played out of turn"), t)

    def premature_words(self) -> str:
        hl = "to play his highest or lowest of the suit, or " if (
            "require-highest" in self.premature_options) else ""
        return f"{hl}to win or not to win"

    def winning_cards(self, tv: TableView, seat: str, card: str, t: int) -> None:
        pard = name(partner(seat))
        if not self.won_early(tv, seat):
            # L74 (1907: "should play on the table the best card, or lead one which is a
            # winning card"): after a losing card there is no call on partner to win; the
            # card played again is exposed, as any card played out of turn
            self.make_callable(tv, seat, (card,), self.c("played-in-error"), self.callable_text(
                seat, (card,), f"played again without waiting for {pard}, after a card that "
                "was not winning"), t)
            return
        self.emit(tv, self.draft(
            "premature-play", self.c("winning-cards"),
            f"{name(seat)} led the {card} again without waiting for {pard} to play: the "
            f"declarer may call on {pard} to win, if he can, the trick.", offender=seat,
            cards=(card,), options=("require-win",)), t)
        self.make_callable(tv, seat, (card,), self.c("winning-cards"), self.callable_text(
            seat, (card,), "played without waiting for partner"), t)

    @staticmethod
    def won_early(tv: TableView, seat: str) -> bool:
        """Is ``seat``'s card in the current trick, before his partner played, winning as
        against the declarer and dummy: the best card on the table, or a lead that neither
        of them, still to play, can beat (Portland L74, 1907 "Cards played in error")?"""
        b = tv.b
        trick = b.trick
        if not trick or trick_winner(list(trick), b.trumps) != seat:
            return False
        if len(trick) > 1:
            return True  # the best card on the table
        card = trick[0][1]
        trumps = b.trumps
        for other in (b.declarer, b.dummy):
            if other is None:
                continue
            held = b.hands[other]
            if any(suit(c) == suit(card) and rank_value(c) > rank_value(card) for c in held):
                return False
            if (trumps is not None and suit(card) != trumps and not b.holds_suit(other, suit(card))
                    and b.holds_suit(other, trumps)):
                return False
        return True

    # -- cards played together -----------------------------------------------------------
    def played_together(self, tv: TableView, seat: str, obs: list[Observe]) -> None:
        b = tv.b
        cards = tuple(o.card for o in obs)
        t = obs[-1].t
        if b.phase == "auction":
            self.exposure(tv, seat, cards, "led", "yes", t, obs)
            return
        if b.phase not in ("lead", "play"):
            return
        if self.is_dealer_side(tv, seat):
            self.emit(tv, self.draft(
                "cards-played-together", self.c("dealer-together"),
                f"The declarer played {cards_text(cards)} together: he plays the card he "
                "leaves in the trick; his cards are never liable to be called.",
                severity="info", offender=b.controller(seat), cards=cards), t)
            self.state.together[seat] = (cards, "")
            return
        r = self.emit(tv, self.draft(
            "cards-played-together", self.c("together"),
            f"{name(seat)} played {cards_text(cards)} at once: all are exposed cards; the "
            "declarer calls which one is played to this trick (without a call, the one left "
            "in the trick zone is), and the others stay face up, liable to be called.",
            offender=seat, cards=cards, options=("designate-card",)), t)
        self.state.together[seat] = (cards, r.id)
        if b.phase == "lead" and seat == b.leader:
            self.lead_faced(tv)  # a card is led: dummy goes down (L62)

    def withdrawn(self, tv: TableView, o: Observe) -> None:
        seat, card = o.seat, o.card
        st = self.state
        if self.correct_late(tv, seat, card):
            return
        if self.revoke_taken_back(tv, seat, card, o.t):
            self.renounce_corrected(tv, seat, card, o.t)
            return
        if self.took_back_after_revoke(tv, seat, card, o.t):
            return
        if st.loot is not None and st.loot.seat == seat and st.loot.card == card:
            st.loot = None
            return
        pend = st.together.get(seat)
        if pend is None or card not in pend[0]:
            return
        left = [c for c in pend[0] if (p := tv.where(c)) is not None
                and p.zone == "trick"]
        if len(left) > 1:
            return
        # No call: the card he leaves in the trick zone is his play; the others stay
        # exposed, liable to be called (an adversary's; the dealer's never are).
        del st.together[seat]
        if pend[1]:
            tv.do(Answered(pend[1]), o.t)
            others = tuple(c for c in pend[0] if c not in left)
            verb = (f"played together with the {left[0]}" if left else "played together")
            self.make_callable(tv, seat, others, self.c("together"),
                               self.callable_text(seat, others, verb), o.t)
        if left:
            self.arrival(tv, seat, Observe(o.t, seat, left[0], "trick", "up", "at"))

    def play_now(self, tv: TableView, seat: str, card: str, t: int) -> None:
        self.in_turn(tv, seat, card, t)
        self.lead_faced(tv)

    def renounce_corrected(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        if seat == b.dummy:
            self.emit(tv, self.draft(
                "no-rectification", self.c("dummy-revoke") or self.c("revoke"),
                f"Dummy's {card} played in error was taken back and replaced: dummy is not "
                "liable to the penalty for a revoke; no lead out of turn, no exposed card.",
                severity="info", offender=b.controller(seat), cards=(card,)), t)
            return
        if not self.is_dealer_side(tv, seat):
            self.adversary_renounce(tv, seat, card, t)
            return
        order = [s for s, _ in b.trick]
        both = all(s in order for s in (lho(b.declarer or seat), partner(lho(b.declarer
                                                                              or seat))))
        fourth = b.withdrawn.get(seat) == 3
        if self.dealer_renounce_penalty and both and not fourth and seat == b.declarer:
            self.emit(tv, self.draft(
                "revoke-corrected", self.c("dealer-renounce"),
                f"The declarer corrected his renounce (the {card}): the eldest hand may "
                "require him to play his highest or lowest card of the suit.",
                offender=seat, cards=(card,), options=("require-highest", "require-lowest")), t)
            return
        self.emit(tv, self.draft(
            "no-rectification", self.c("dealer-renounce"),
            f"The declarer corrected his renounce (the {card}) in time: no penalty here.",
            severity="info", offender=b.controller(seat), cards=(card,)), t)

    def adversary_renounce(self, tv: TableView, seat: str, card: str, t: int) -> None:
        self.make_callable(tv, seat, (card,), self.c("renounce"), (
            f"{name(seat)} corrected his renounce in time: the {card} played in error is an "
            "exposed card, liable to be called; or the declarer may require his highest or "
            "lowest card of the suit to this trick. Those who played after him may take back "
            "their cards, which are not exposed."), t, options=self.renounce_options)

    def revoke(self, tv: TableView, seat: str, card: str, t: int) -> None:
        b = tv.b
        if seat == b.dummy:
            return  # dummy is not liable to the penalty for a revoke (Portland L68)
        self.emit(tv, self.draft(
            "revoke", self.c("revoke"),
            f"{name(seat)} revoked with the {card} and the trick was turned and quitted (or his "
            "side played to the next trick): the revoke is established and its penalty is "
            "scored at the end of the hand.", offender=b.controller(seat), cards=(card,)), t)

    def on_claim(self, tv: TableView, e: Claim | Concede) -> None:
        super().on_claim(tv, e)
        self.state.claimed_by_dealer = isinstance(e, Claim) and e.seat == tv.b.declarer

    # -- thrown hands, claims --------------------------------------------------------------
    def thrown_hand(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str, t: int,
                    obs: list[Observe]) -> None:
        b = tv.b
        if seat == b.dummy:
            return
        if self.abandon(tv, seat, t):
            return
        if seat == b.declarer:
            self.state.thrown[seat] = ""
            self.emit(tv, self.draft(
                "no-rectification", self.c("dealer-shows"),
                f"The declarer faced {cards_text(cards)}: under this code only a claim is a "
                "claim, and his cards are never liable to be called.", severity="info",
                offender=seat, cards=cards), t)
            return
        self.state.thrown[seat] = self.make_callable(
            tv, seat, cards, self.c("thrown"), self.callable_text(
                seat, cards, "thrown face up on the table") + " His partner cannot be forced "
            "to abandon his own hand.", t)

    def abandon(self, tv: TableView, seat: str, t: int) -> bool:
        """All the players have thrown their cards face up: the hands are abandoned."""
        b = tv.b
        thrown = self.state.thrown
        need = {s for s in ("N", "E", "S", "W") if s != b.dummy}
        if not self.hands_abandoned or need - set(thrown) != {seat}:
            return False
        earlier = tuple(rid for rid in thrown.values() if rid)
        thrown[seat] = ""
        self.emit(tv, self.draft(
            "hands-abandoned", self.c("abandoned"),
            "All the players have thrown their cards face up: the hands are abandoned and the "
            "score stands as claimed and admitted; the hands may be examined only to establish "
            "a revoke.", severity="penalty", supersedes=earlier), t)
        for s in list(self.state.callable):
            self.pick_up(tv, s, tuple(self.state.callable[s]))
        if b.phase == "play":
            tv.do(StopPlay(), t)
        return True

    def claim_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str,
                       t: int) -> None:
        b = tv.b
        if side(seat) == side(b.declarer or seat) and seat == b.declarer:
            if self.abandon(tv, seat, t):
                return
            self.state.thrown[seat] = ""
            self.emit(tv, self.draft(
                "claim-exposure", self.c("dealer-claim"),
                f"The declarer showed {cards_text(cards)} with his claim: his cards are not "
                "liable to be called.", severity="info", offender=seat, cards=cards), t)
            return
        if seat == b.dummy:
            return
        self.adversary_claim_exposure(tv, seat, cards, vis, t)

    def adversary_claim_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...],
                                 vis: str, t: int) -> None:
        self.emit(tv, self.draft(
            "claim-exposure", self.c("claim"),
            f"{name(seat)} exposed {cards_text(cards)} after the declarer's claim: these cards "
            "are not liable to be called, even if the claim proves false (nor should the "
            "declarer profit by seeing them).", severity="info", offender=seat, cards=cards), t)


__all__ = ["OldPlay", "suit_name"]
