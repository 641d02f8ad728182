"""Cards liable to be called, and the calls the old codes allow (1904-1929).

Under the whist-era and early auction codes an adversary's exposed card is not
a penalty card that must be played: it lies face up and the declarer (the
"dealer" of the bridge codes) *may call it* whenever its owner is to play,
the call "may be repeated until such card has been played", and "in no case
can a player be compelled to play a card which would oblige him to revoke".
Besides a card, the non-offenders may call a suit, the highest or lowest of
the suit led, or require the offender's partner to win or not to win a trick.
Failing to comply costs the penalty of a revoke.

This module keeps those obligations (in the old codes' ``OldState``) and
checks every play against them; :mod:`tablesense.laws.oldplay` and the code
classes decide when they arise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from tablesense.contract.cards import lho, partner, rank_value, side, suit
from tablesense.contract.vocab import Option, Severity
from tablesense.engine.effects import CloseRulings, Covered, TakeBack
from tablesense.engine.obligations import Restriction
from tablesense.laws.base import LawCode, cards_text, name, suit_name
from tablesense.laws.oldstate import Late, OldState

if TYPE_CHECKING:
    from tablesense.engine.ruling import Draft, Ruling
    from tablesense.engine.view import BoardView as Board
    from tablesense.engine.view import TableView


def pre_role(b: Board, seat: str) -> str | None:
    """The role, known before the declaration in the whist-era codes (dealer = declarer)."""
    if b.declarer is not None:
        return b.role(seat)
    if b.whist and b.dealer is not None:
        d = b.dealer
        return {d: "declarer", partner(d): "dummy", lho(d): "leader",
                partner(lho(d)): "leaders-partner"}[seat]
    return None


def beats(card: str, best: str, led: str, trumps: str | None) -> bool:
    def strength(c: str) -> int:
        if trumps is not None and suit(c) == trumps:
            return 100 + rank_value(c)
        return rank_value(c) if suit(c) == led else 0
    return strength(card) > strength(best)


class CallableCards(LawCode[OldState]):
    """Callable exposed cards and the calls of the old codes; enforcement of every call."""

    def new_state(self) -> OldState:
        return OldState()

    def holds_back(self, tv: TableView, seat: str, card: str) -> bool:
        st = self.state
        return (st.loot is not None and st.loot.card == card) or any(
            card in cards for cards, _ in st.together.values())

    # Revoke penalty unless corrected before the trick is turned and quitted (american-1907).
    correct_before_quit: ClassVar[bool] = False
    cite: ClassVar[dict[str, str]] = {}

    def c(self, key: str) -> str:
        return self.cite.get(key, "")

    def emit(self, tv: TableView, d: Draft, t: int) -> Ruling:
        """Make a ruling. Until the doubling is over (the end of the auction) nobody has a
        role yet, though the whist-era codes know the dealer from the start (issue 14)."""
        if tv.b.phase in ("setup", "auction") and not d.role_given:
            d = replace(d, role=None, role_given=True)
        return tv.emit(d, t)

    # -- callable cards ------------------------------------------------------------
    def make_callable(self, tv: TableView, seat: str, cards: tuple[str, ...], cite: str,
                      text: str, t: int, *, options: tuple[Option, ...] = ("call-card",),
                      severity: Severity = "penalty", supersedes: tuple[str, ...] = ()) -> str:
        r = self.emit(tv, self.draft("exposed-card", cite, text, severity=severity, offender=seat,
                                cards=cards, options=options, until="played",
                                supersedes=supersedes), t)
        mine = self.state.callable.setdefault(seat, {})
        for card in cards:
            mine[card] = r.id
            tv.do(Covered((card,), r.id), t)
        return r.id

    def pick_up(self, tv: TableView, seat: str, cards: tuple[str, ...]) -> None:
        mine = self.state.callable.get(seat, {})
        for card in cards:
            mine.pop(card, None)
        called = self.state.called.get(seat)
        if called and called[0] in cards:
            del self.state.called[seat]

    def call_card(self, tv: TableView, seat: str, card: str, rid: str) -> None:
        self.state.called[seat] = (card, rid)

    def add_rule(self, tv: TableView, seats: tuple[str, ...], option: str, s: str | None,
                 rid: str, lead: bool) -> None:
        rules = self.state.lead_rules if lead else self.state.play_rules
        if lead and option == "call-suit":
            # A second lead out of turn answered by a new call before the first was led
            # to: the declarer's latest call governs those seats' next lead; holding them
            # to both could make any lead a failure to comply with one of them.
            rules[:] = [r for r in rules if not (r.option == "call-suit" and r.seat in seats)]
        for seat in seats:
            rules.append(Restriction(seat, option, s, rid))

    # -- checking each play --------------------------------------------------------
    def check_calls(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None:
        b = tv.b
        st = self.state
        called = st.called.pop(seat, None)
        if called is not None and called[0] != card:
            ccard = called[0]
            if ccard in b.hands[seat] and b.is_legal(seat, ccard):
                self.not_complied(tv, seat, card, f"the called {ccard}", called[1], t,
                                  called=called)
            # otherwise the call would force a revoke: it lapses for this trick (L83)
        rules = self.state.lead_rules if leading else self.state.play_rules
        for rule in [r for r in rules if r.seat == seat]:
            if rule not in rules:
                continue
            for sibling in [r for r in rules if r.ruling == rule.ruling and r.option ==
                            rule.option]:
                rules.remove(sibling)
            if not self.complies(b, rule, seat, card):
                self.not_complied(tv, seat, card, self.rule_text(rule), rule.ruling, t,
                                  rule=rule)

    def rule_text(self, rule: Restriction) -> str:
        s = suit_name(rule.suit) if rule.suit else "the suit led"
        return {"call-suit": f"the call of {s}", "require-lead-suit": f"the call of {s}",
                "forbid-lead-suit": f"the bar on leading {s}",
                "require-highest": "the call of his highest card",
                "require-lowest": "the call of his lowest card",
                "require-win": "the call to win the trick",
                "require-not-win": "the call not to win the trick"}.get(rule.option, rule.option)

    def complies(self, b: Board, rule: Restriction, seat: str, card: str) -> bool:
        hand = b.hands[seat]
        s = rule.suit
        if rule.option in ("call-suit", "require-lead-suit"):
            return suit(card) == s or not any(suit(c) == s for c in hand)
        if rule.option == "forbid-lead-suit":
            return suit(card) != s or all(suit(c) == s for c in hand)
        led = b.led_suit() if not b.trick_complete() else None
        if rule.option in ("require-highest", "require-lowest"):
            s = s or led
            same = [rank_value(c) for c in hand if suit(c) == s]
            if not same:
                return True
            if suit(card) != s:
                return False
            want = max(same) if rule.option == "require-highest" else min(same)
            return rank_value(card) == want
        if led is None or not b.trick:
            return True
        best = b.trick[0][1]
        for _, c in b.trick[1:]:
            if beats(c, best, led, b.trumps):
                best = c
        legal = [c for c in hand if b.is_legal(seat, c)]
        wins = beats(card, best, led, b.trumps)
        if rule.option == "require-win":
            return wins or not any(beats(c, best, led, b.trumps) for c in legal)
        return not wins or all(beats(c, best, led, b.trumps) for c in legal)

    def not_complied(self, tv: TableView, seat: str, card: str, what: str, rid: str, t: int, *,
                     rule: Restriction | None = None,
                     called: tuple[str, str] | None = None) -> None:
        late = Late(seat, card, what, rid, rule, called)
        if self.correct_before_quit:
            self.state.late.append(late)
        else:
            self.emit_not_complied(tv, late, t)

    def emit_not_complied(self, tv: TableView, late: Late, t: int) -> None:
        saving = (" (it was not corrected before the trick was turned and quitted)"
                  if self.correct_before_quit else "")
        self.emit(tv, self.draft(
            "call-not-complied", self.c("comply"),
            f"{name(late.seat)} played the {late.card} against {late.what} (alert "
            f"{late.ruling}), though able to comply{saving}: he incurs the penalty of a revoke.",
            offender=late.seat, cards=(late.card,)), t)

    def flush_late(self, tv: TableView, t: int) -> None:
        st = self.state
        late, st.late = st.late, []
        for item in late:
            self.emit_not_complied(tv, item, t)

    def correct_late(self, tv: TableView, seat: str, card: str) -> bool:
        """The offender took back a card that broke a call before the trick was quitted."""
        st = self.state
        item = next((x for x in st.late if x.seat == seat and x.card == card), None)
        if item is None or not tv.do(TakeBack(seat, card), tv.now):
            return False
        st.late.remove(item)
        if item.called is not None:
            st.called[seat] = item.called
        if item.rule is not None:
            lead = item.rule.option in ("call-suit", "require-lead-suit", "forbid-lead-suit")
            (self.state.lead_rules if lead else self.state.play_rules).append(item.rule)
        return True

    def card_played(self, tv: TableView, seat: str, card: str) -> None:
        """A callable card was played: its ruling binds no more once all its cards are."""
        st = self.state
        for s, mine in st.callable.items():
            rid = mine.pop(card, None)
            if rid is not None and rid not in {r for d in st.callable.values()
                                               for r in d.values()}:
                tv.do(CloseRulings((rid,)), tv.now)
            if st.called.get(s, ("", ""))[0] == card:
                del st.called[s]
        if tv.b.trick_complete():
            self.state.play_rules.clear()

    def callable_text(self, seat: str, cards: tuple[str, ...], verb: str) -> str:
        return (f"{name(seat)}'s {cards_text(cards)}, {verb}, "
                f"{'is an exposed card' if len(cards) == 1 else 'are exposed cards'}: "
                "left face up on the table and liable to be called by the declarer whenever "
                f"{name(seat)} is to play, until played; a call never forces a revoke.")

    def same_side(self, a: str, b: str) -> bool:
        return side(a) == side(b)
