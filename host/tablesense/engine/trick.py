"""The trick as the table shows it: one owner.

The engine counts a card as played when the law says so; the table may show more
than the law counted. This module follows the table: a card lying in the trick zone
of the player whose turn it is is his play (``sweep``); a trick group's cards are
counted in the order the table shows them (``close``: cards played together, a lead
due and another player's card first, a later player's card while a choice is
awaited); a complete trick turned face down is quitted (``quit``), and an RFID tag's
turn waits in ``quitting`` until a second card or anything but its player's next one
comes (``came``); a card taken from its trick zone is the law's to explain
(``left``, ``withdraw`` once ``dropout_ms`` pass), or a correction; a trick turned
short is completed from the trick zones (``_reconcile``) or set aside once the next
trick begins; and the director hears once a trick (``out-of-step``) when the law did
not count what the table shows.

It is handed the board and the law code of each deal (``deal``), the view the law
reads the table through, the positions, incidents and sensing filter it reads, the
engine's sets of cards it shares (played, lying uncounted in trick zones, taken back
by a decision, waiting to count at a turn) and three ways back into the engine:
counting a card at its arrival, closing incident groups, and dropping what waited on
a card that left its trick zone. Its own fields (``quitting``, ``turned``, ``short``,
``free_lead`` and the two once-a-trick keys) only its methods write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tablesense.contract.cards import lho
from tablesense.contract.events import Observe
from tablesense.engine.incidents import TOGETHER_MS, Group

if TYPE_CHECKING:
    from tablesense.engine.board import Board
    from tablesense.engine.code import Code
    from tablesense.engine.incidents import Incidents
    from tablesense.engine.sensing import SensingFilter, Tuning
    from tablesense.engine.tracker import Position, Tracker
    from tablesense.engine.view import TableView

TRICK = ("trick",)
NOWHERE = (-1, -1)


class Trick:
    """The current trick as the table shows it, for one table (made once, by the engine)."""

    b: Board  # the board of the deal (``deal``)
    law: Code  # the law code in force for it

    def __init__(self, view: TableView, tracker: Tracker, incidents: Incidents,
                 sensing: SensingFilter, tuning: Tuning, *, played: set[str],
                 lying: set[str], taken_back: set[str], waiting_play: dict[str, str],
                 arrival: Callable[[str, Observe], None],
                 close: Callable[[list[Group]], None],
                 dropped: Callable[[Observe], None]) -> None:
        self.view = view
        self.tracker = tracker
        self.incidents = incidents
        self.sensing = sensing
        self.tuning = tuning
        # the engine's, shared (cleared in place for each deal, never replaced)
        self.played = played
        self.lying = lying  # last sensed in a trick zone, not yet played
        self.taken_back = taken_back  # taken back by a decision, still in a trick zone
        self.waiting_play = waiting_play  # seat -> card to count at his turn
        self._arrival = arrival  # count a card at its arrival (the law's, or a plain play)
        self._close = close  # close incident groups, in the order they began
        self._dropped = dropped  # a card left its trick zone: nothing waits on it
        # the first card of a complete trick sensed on the table with face `unknown`: the
        # trick's quit, unless its player puts another card in his trick zone first
        self.quitting: Observe | None = None
        self.turned: dict[str, str] = {}  # uncounted cards turned face down: card -> seat
        self.free_lead = False  # after a resync emptied the trick: the next lead stands
        self.short: tuple[int, int] = NOWHERE  # a trick quitted short, waiting for a card
        self.swept: tuple[object, ...] = ()  # the turn the sweep last looked at
        self.oos: tuple[int, int] = NOWHERE  # the trick of the last out-of-step ruling

    def deal(self, board: Board, law: Code) -> None:
        """A new deal (or a new round of its setup): nothing of the last one is open."""
        self.b = board
        self.law = law
        self.turned = {}
        self.short = NOWHERE
        self.quitting = None
        self.free_lead = False
        self.swept = ()

    def came(self, o: Observe, prev: Position | None) -> None:
        """``o`` brought a card to a trick zone while the trick waits in ``quitting``:
        its card back (no quit), its player's next card (a correction), or the quit."""
        q = self.quitting
        assert q is not None
        if o.card == q.card:
            self.quitting = None  # it went back: the trick was not being quitted
        elif o.seat == q.seat and o.card not in self.played and (
                q.seat != self.b.turn or self._lies(q)):
            # (the card that replaces it may come from his table, its face unseen; the
            # trick's winner leading while the others' cards still lie in their trick
            # zones is correcting, not leading: a quit turns them all)
            self._corrected(q, prev is not None and prev.zone == "table"
                            and prev.face == "unknown")
        else:
            self.quit()

    def quit(self, o: Observe | None = None) -> None:
        """The complete trick ``o`` (or the card waiting in ``_quitting``) was turned:
        quitted, and the play ends with the last one."""
        if o is None:
            o, self.quitting = self.quitting, None
            if o is None or not any(o.card == c for _, c in self.b.trick):
                return
        b = self.b
        if len(b.trick) == 4:  # (b.trick_complete())
            b.quit_trick()
            self.law.quitted(self.view, o.t)
        if len(b.tricks) == 13 and b.phase == "play":  # (b.all_played())
            self.law.end_of_play(self.view, o.t)
            b.move("last-trick")

    def _completes(self, o: Observe) -> bool:
        """Would the cards lying in the trick zones or turned uncounted complete the trick
        in rotation (as _reconcile counts them) with ``o``'s, counted or not?"""
        b = self.b
        counted = any(o.card == c for _, c in b.trick)
        if not counted and (o.card in self.played or o.card not in b.hands[o.seat]):
            return False
        seat: str | None = lho(b.trick[-1][0]) if b.trick else b.turn
        n, used = len(b.trick), counted
        while seat is not None and n < 4:
            cards = self._lying(seat) + [c for c, s in self.turned.items()
                                                   if s == seat and c not in self.played]
            if seat == o.seat and not counted:
                cards.append(o.card)
            if len(cards) != 1:
                return False
            used, n, seat = used or seat == o.seat, n + 1, lho(seat)
        return n == 4 and used

    def _lies(self, q: Observe) -> bool:
        """Do the complete trick's cards but ``q``'s still lie in their trick zones?"""
        pos = self.tracker.pos
        return self.b.trick_complete() and all(
            c in pos and pos[c].zone == "trick" for _, c in self.b.trick if c != q.card)

    def _corrected(self, q: Observe, unseen: bool) -> None:
        """``q``'s player put another card in his trick zone after the card ``q`` left it
        for the table: not the quit, a card taken back from the trick (a correction).
        ``unseen``: the new card lay on his table, its face unseen."""
        self.quitting = None
        self._close(self.incidents.take_all())
        self._taken_back_from(q, unseen)

    def withdraw(self, gone: Observe) -> None:
        """A card of the current trick stayed ``gone`` from its trick zone for
        ``dropout_ms``: taken back to the hand (an RFID reader senses no hand), as a
        reader that senses hands would have shown it (2017 Law 47, the old codes'
        corrections: the law says what the withdrawal means)."""
        pos = self.tracker.pos.get(gone.card)
        if pos is None or pos.zone != "gone" or self.b.phase not in ("lead", "play"):
            return
        self.left(Observe(gone.t, gone.seat, gone.card, "hand", "down", "unknown",
                                 source=gone.source), closing=False)

    def left(self, o: Observe, closing: bool = True) -> None:
        """``o`` left its trick zone. ``closing``: the incidents still open close first
        (not when time closes it: those began later, and wait)."""
        b = self.b
        # a card played before its turn is his play only while it lies in his trick zone
        # (2017 Law 57D, Portland L81, L86): taken back, his card at his turn is his play
        self._dropped(o)
        if self.quitting is not None and o.card != self.quitting.card:
            self.quit()  # a second card of the trick turned: it is quitted
        # Turned face down in front of its player: the trick is quitted. An RFID reader
        # cannot see faces: from a complete trick, `unknown` reads as turned too; from a
        # trick in progress, a card taken back from it (counted or not: one of cards
        # played together, a lead held back) is no quit.
        if o.face == "unknown" and b.trick and not b.trick_complete() and self.lying:
            # a card lying in the zone of the player to play is his play; one whose arrival
            # an older incident still holds back (a card on the table, face unseen) too
            self._close(self.incidents.take_all(o.t - self.tuning.transit_ms))
            self.sweep(o.t)
        if (o.face == "unknown" and o.zone == "table" and b.trick and b.phase == "play"
                and not b.trick_complete() and self._completes(o)):
            # Cards held back in their players' zones or turned (a lead out of turn that
            # the next hand accepted by playing) complete the trick with this one, turned
            # with it or put back on the table: counted as a reader that sees faces has
            # them when the trick is turned (_reconcile); the quit then waits as for any.
            if o.card not in self.played:
                self.turned[o.card] = o.seat
            self._reconcile(o)
        taken_back = o.face == "unknown" and not b.trick_complete() and (
            o.card not in self.played or any(o.card == c for _, c in b.trick))
        if o.zone == "table" and (o.face == "down" or (o.face == "unknown"
                                                      and not taken_back)):
            # A card just sensed face up on the table may be a play crossing the table
            # antenna, reported before its trick zone while this trick is quitted: the
            # quit leaves it to reach the trick (transit_ms).
            self._close(self.incidents.take_all(o.t - self.tuning.transit_ms))
            done = [c for plays, _ in b.tricks[-1:] for _, c in plays]
            if (o.card not in self.played and o.card in b.hands[o.seat]
                    and b.phase in ("lead", "play")):
                self.turned[o.card] = o.seat  # an uncounted card turned with the trick
                return
            if o.card in (c for _, c in b.trick) and not b.trick_complete():
                self._reconcile(o)
            if o.card in done or o.card in (c for _, c in b.trick):
                if b.trick_complete() and o.face == "unknown" and any(
                        o.card == c for _, c in b.trick):
                    # An RFID tag cannot tell a card turned (the quit) from one put back
                    # on the table (a correction): the trick is quitted when a second of
                    # its cards is turned, or anything but this player's next card comes
                    self.quitting = o
                    return
                self.quit(o)
            return
        if closing:
            self._close(self.incidents.take_all())
        self._taken_back_from(o)

    def _taken_back_from(self, o: Observe, unseen: bool = False) -> None:
        """``o``: a card taken back from its trick zone. The law says what that is.
        ``unseen``: a card of his lay on the table with a face no reader saw."""
        b = self.b
        self.law.withdrawn(self.view, o)
        # The table shows a played card taken back and no law explains it: follow the
        # table (the card is back in the hand) and tell the director once; unless a card
        # of his lies on the table whose face no reader saw: a penalty card, perhaps, and
        # the withdrawal then complies with its rectification (2017 Law 47A, 52B).
        if (o.seat, o.card) in b.trick and b.take_back(o.seat, o.card):
            self.played.discard(o.card)
            self.free_lead = not b.trick  # whoever leads now, the table shows the leader
            if unseen or self._unseen_on_table(o.seat, o.card):
                return
            self._out_of_step(
                f"{o.seat}'s {o.card}, counted as played to this trick, was taken back "
                "from the trick zone.", o.t)

    def _unseen_on_table(self, seat: str, but: str) -> bool:
        """Does a card of ``seat``'s hand (other than ``but``) lie on his table with a face
        no reader saw (an RFID tag: perhaps a penalty card)?"""
        hand = self.b.hands[seat]
        return any(p.seat == seat and p.zone == "table" and p.face == "unknown" and c != but
                   and c in hand for c, p in self.tracker.pos.items())

    # -- the trick follows the cards ------------------------------------------------
    def _lying(self, seat: str) -> list[str]:
        """``seat``'s cards face up in his trick zone that no play has counted yet."""
        b = self.b
        lying = [c for c in self.lying if c not in self.played]
        if not lying:
            return []
        grouped = self.incidents.holding("trick")
        pos = self.tracker.pos
        return [c for c in sorted(lying)
                if pos[c].seat == seat and pos[c].face != "down" and c in b.hands[seat]
                and c not in grouped and c not in self.taken_back
                and not (b.trick_complete() and self._ruled_since(c, pos[c].t))]

    def _ruled_since(self, card: str, t: int) -> bool:
        """Has a ruling covered ``card`` since ``t``, when it came to lie where it lies?
        (One of cards played together to the trick just completed, not designated: an
        exposed card the law has explained, not the lead of the next trick until it is
        put there again.)"""
        rid = self.view.exposed.get(card)
        r = self.view.ruling(rid) if rid else None
        return r is not None and r.t >= t

    def sweep(self, t: int) -> None:
        """A card lying in a player's trick zone when his turn comes is his play, unless
        the law holds it back (an answer it waits for)."""
        if not self.lying:
            return
        b = self.b
        if b.phase not in ("lead", "play"):
            return
        if self.incidents.groups and self.lying <= self.incidents.holding("trick"):
            return  # every such card is still being grouped: its arrival will count it
        key = (b.phase, len(b.tricks), len(b.trick), b.next_to_play())
        if key == self.swept:
            return
        self.swept = key
        for _ in range(4):
            seat = b.next_to_play()
            if seat is None or b.phase not in ("lead", "play"):
                return
            cards = [c for c in self._lying(seat)
                     if not self.law.holds_back(self.view, seat, c)]
            if len(cards) != 1:
                return
            self._arrival(seat, Observe(t, seat, cards[0], "trick", "up", "at"))
            if cards[0] not in self.played:
                return
        self.swept = (b.phase, len(b.tricks), len(b.trick), b.next_to_play())

    def _reconcile(self, o: Observe) -> None:
        """A trick the engine holds incomplete is being turned face down: the cards in
        the trick zones (or turned with it) complete it, in rotation. Cards the law does
        not count are counted all the same, and the director hears of it once."""
        b = self.b
        start = lho(b.trick[-1][0]) if b.trick else b.turn
        if start is None:
            return
        plan: list[tuple[str, str]] = []
        seat = start
        while len(b.trick) + len(plan) < 4:
            cards = self._lying(seat) + [c for c, s in self.turned.items()
                                                   if s == seat and c not in self.played]
            if len(cards) != 1:
                break
            plan.append((seat, cards[0]))
            seat = lho(seat)
        if len(b.trick) + len(plan) < 4:
            # A reader may report the missing card late: wait for it until the next
            # trick's first card shows that it is not coming (_close_trick).
            self.short = (b.number, len(b.tricks))
            return
        forced: list[tuple[str, str]] = []
        for seat, card in plan:
            if b.next_to_play() == seat and b.phase in ("lead", "play"):
                self.law.arrival(self.view, seat, Observe(o.t, seat, card, "trick", "up", "at"))
            if card not in self.played and not b.trick_complete():
                self._force(seat, card)
                forced.append((seat, card))
        self.turned.clear()
        if forced:
            listed = ", ".join(f"{s}'s {c}" for s, c in forced)
            self._out_of_step(
                f"The trick was turned face down with {listed} in the trick zone, which "
                "the engine had not counted as played there.", o.t)

    def _force(self, seat: str, card: str) -> None:
        """Count a card the table shows played, without the law's checks (resync)."""
        b = self.b
        if b.phase == "lead":
            b.face_opening_lead()
        b.add_play(seat, card)
        self.played.add(card)
        self.waiting_play.pop(seat, None)

    def _out_of_step(self, facts: str, t: int) -> None:
        """One ``out-of-step`` ruling a trick at most: then the engine follows the cards."""
        b = self.b
        if self.oos == (b.number, len(b.tricks)):
            return
        self.oos = (b.number, len(b.tricks))
        self.law.out_of_step(self.view, facts, t)
    def close(self, g: Group) -> None:
        b = self.b
        by_seat: dict[str, list[Observe]] = {}
        later: list[Observe] = []  # a player's cards after his own 300 ms: one at a time
        for o in g.items:
            if not self.sensing.settled(o, TRICK):
                continue
            mine = by_seat.get(o.seat)
            if mine is None:
                by_seat[o.seat] = [o]
            elif o.t - mine[0].t <= TOGETHER_MS:
                mine.append(o)
            else:
                later.append(o)
        for o in later:
            by_seat.setdefault(o.seat, [])  # (a seat of his own, after the others)
        order = list(by_seat)
        nxt = b.next_to_play()
        while order:
            seat = nxt if nxt in order else order[0]
            order.remove(seat)
            if not by_seat[seat]:
                for o in later:
                    if o.seat == seat:
                        self._arrival(seat, o)
                nxt = b.next_to_play()
                continue
            if (nxt is not None and seat != nxt and len(by_seat[seat]) == 1
                    and self._choosing(nxt)):
                # the player to play put cards together in his trick zone and his choice
                # is awaited: this card, of a later player, is his play at his turn (the
                # sweep), never a lead out of turn
                continue
            if self.free_lead and not b.trick and b.phase in ("lead", "play"):
                self.free_lead = False
                b.accept_lead(seat)
            if (self.short[0] == b.number and self.short[1] == len(b.tricks)
                    and not b.trick_complete() and any(s == seat for s, _ in b.trick)):
                # The trick was quitted short and its missing card never came: the next
                # trick has begun. Follow the table: that trick is set aside.
                self._out_of_step(
                    f"The trick was turned face down with {len(b.trick)} cards that the "
                    "engine can place, not four, and the next trick has begun.",
                    by_seat[seat][0].t)
                b.set_aside_trick()
                self.free_lead = False
                b.accept_lead(seat)
            obs = by_seat[seat]
            if len(obs) >= 2:
                self.law.played_together(self.view, seat, obs)
            else:
                self._arrival(seat, obs[0])
            nxt = b.next_to_play()

    def _choosing(self, seat: str) -> bool:
        """Do two or more uncounted cards lie in ``seat``'s trick zone that the law holds
        back (cards played together, his or declarer's choice awaited)?"""
        pos = self.tracker.pos
        return sum(1 for c in self.lying
                   if c in pos and pos[c].seat == seat and c not in self.played
                   and self.law.holds_back(self.view, seat, c)) >= 2


__all__ = ["TRICK", "Trick"]
