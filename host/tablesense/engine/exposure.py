"""Cards shown outside the trick zones: one owner.

A card face up in a player's hand or detached from it (``held``), or put face up on
the table or the floor (``to_table``: it joins a table group, cards thrown together
within the window), may be an exposed card; what it costs is the law's
(``exposure``, ``thrown_hand``, ``claim_exposure``). This module says which cards
reach the law and how seen they were: not one a ruling already covers or one
played, not dummy's display once the play has begun, and on the table only cards
that show a face, unless a seat's whole hand lies there (``close``). It is handed
each deal's board and law code (``deal``), the view the law reads the table
through, the incidents and sensing filter, the engine's sets it reads (cards
played, the rulings' exposed cards, the players conceding the current trick) and
a way to close incident groups. It keeps no state of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from typing import TYPE_CHECKING

from tablesense.contract.cards import lho, partner
from tablesense.contract.events import Observe
from tablesense.engine.incidents import Group

if TYPE_CHECKING:
    from tablesense.engine.board import Board
    from tablesense.engine.code import Code
    from tablesense.engine.incidents import Incidents
    from tablesense.engine.sensing import SensingFilter
    from tablesense.engine.tracker import Position
    from tablesense.engine.view import TableView

ON_TABLE = ("table", "floor")


def visibility(o: Observe, holder: str) -> str:
    """Could the holder's partner possibly see this card's face: yes, no or unknown."""
    if o.face == "down":
        return "no"
    if o.seen_by is not None:
        return "yes" if partner(holder) in o.seen_by else "no"
    if o.face == "unknown" or o.level == "below" or o.zone == "floor":
        return "unknown"
    return "yes"


def combined(values: list[str]) -> str:
    if "yes" in values:
        return "yes"
    return "unknown" if "unknown" in values else "no"


class Exposures:
    """Which cards shown outside the trick zones the law hears of (one per engine)."""

    b: Board  # the board of the deal (``deal``)
    law: Code  # the law code in force for it

    def __init__(self, view: TableView, incidents: Incidents, sensing: SensingFilter, *,
                 played: Set[str], exposed: Mapping[str, str], conceding: Set[str],
                 close: Callable[[list[Group]], None]) -> None:
        self.view = view
        self.incidents = incidents
        self.sensing = sensing
        # the engine's, read here (cleared in place for each deal, never replaced)
        self.played = played
        self.exposed = exposed  # card -> the ruling that already covers it
        self.conceding = conceding  # seats conceding the current trick
        self._close = close  # close incident groups, in the order they began

    def deal(self, board: Board, law: Code) -> None:
        self.b = board
        self.law = law

    def display(self, seat: str) -> bool:
        """Dummy's cards face up once the opening lead is faced are the display."""
        b = self.b
        return b.phase in ("play", "claim") and seat == b.dummy

    def held(self, o: Observe, prev: Position | None) -> None:
        """``o`` shows a card face up in its player's hand or detached from it."""
        if prev and prev.zone == o.zone and prev.face == "up":
            return
        if o.card in self.exposed or o.card in self.played or self.display(o.seat):
            return
        self._close(self.incidents.take_all())
        how = "held" if o.zone == "hand" else "detached"
        self.law.exposure(self.view, o.seat, (o.card,), how, visibility(o, o.seat), o.t, [o])

    def to_table(self, o: Observe, prev: Position | None) -> None:
        """``o`` puts a card face up (or face unseen) on the table or the floor: it joins
        a table group, closed with the cards thrown with it."""
        if prev and prev.zone in ON_TABLE and prev.face == "up":
            return
        if o.card in self.exposed or o.card in self.played or self.display(o.seat):
            return
        self._close(self.incidents.take_holding(o.card))
        self.incidents.join("table", o)
        self.sensing.on_table(o, at_turn=o.seat == self._turn_now())

    def _turn_now(self) -> str | None:
        """Whose turn it is to play, counting the cards still in an open trick group."""
        for g in reversed(self.incidents.groups):
            if g.kind == "trick" and g.items:
                return lho(g.items[-1].seat)
        return self.b.next_to_play()

    def close(self, g: Group) -> None:
        """A table group's window is over: the law hears of the cards that stayed and
        show a face (a thrown hand, cards dropped, a claimer's or conceder's)."""
        assert g.seat is not None
        if self.display(g.seat):
            return  # dummy spread right after a lead that was still being closed
        g.items = [o for o in g.items if self.sensing.settled(o, ON_TABLE)]
        g.items = self._faces_shown(g.seat, g.items)
        if not g.items:
            return
        seat, cards = g.seat, g.cards
        vis = combined([visibility(o, seat) for o in g.items])
        t = g.items[-1].t
        b = self.b
        if b.phase == "claim" or seat in self.conceding:
            self.law.claim_exposure(self.view, seat, cards, vis, t)
        elif len(cards) >= 3 and b.phase in ("play",):
            self.law.thrown_hand(self.view, seat, cards, vis, t, g.items)
        else:
            how = "thrown" if len(cards) >= 3 else "dropped"
            self.law.exposure(self.view, seat, cards, how, vis, t, g.items)

    def _faces_shown(self, seat: str, items: list[Observe]) -> list[Observe]:
        """The cards of a table group that show a face. A face ``unknown`` (an RFID tag)
        shows none, and every code makes a card exposed only when its face was shown or
        could be seen (2017 Law 49; the old codes' "face upwards"): no ruling on it. But a
        seat's whole hand laid on the table at once is spread face up (nobody spreads a
        hand face down): then its faces are taken as shown, and who saw them stays
        unknown unless a camera said (docs/architecture.md, "Honest readers")."""
        if all(o.face != "unknown" for o in items):
            return items
        hand = self.b.hands.get(seat, ())
        cards = {o.card for o in items}
        if len(cards) >= 3 and all(c in cards for c in hand):
            return [o if o.face != "unknown" else Observe(
                o.t, o.seat, o.card, o.zone, "up", o.level, o.seen_by, o.conf, o.rt, o.source)
                for o in items]
        return [o for o in items if o.face != "unknown"]


__all__ = ["Exposures", "combined", "visibility"]
