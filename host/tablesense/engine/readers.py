"""What the readers say about a card when they do not simply agree: one owner.

Two kinds of reader (RFID tags and cameras) place one card as one position
(``fused``, with ``engine/fusion.py``); a lasting disagreement between them is the
law's ``sensor-conflict`` (``disagree``). A card sensed at a second seat for
``conflict_ms`` (``conflict_due``, with ``engine/sensing.py``) is the same, unless
the table contradicts the deal it was given: then the law's ``fouled-board``
(``engine/fouling.py``), and the card is taken in where the table has it. ``owner``
is where the deal, or a fouling since, puts a card. It is handed each deal's board
and law code (``deal``), the view, the positions, sensing filter, fusion and
fouling it reads and asks, the engine's cards played and a way to take an
observation in (the engine's general path).
"""

from __future__ import annotations

from collections.abc import Callable, Set
from typing import TYPE_CHECKING

import msgspec

from tablesense.contract.events import Observe
from tablesense.engine.fusion import Reading

if TYPE_CHECKING:
    from tablesense.contract.vocab import Source
    from tablesense.engine.board import Board
    from tablesense.engine.code import Code
    from tablesense.engine.fouling import Fouling
    from tablesense.engine.fusion import CardFusion
    from tablesense.engine.sensing import SensingFilter, Tuning
    from tablesense.engine.tracker import Position, Tracker
    from tablesense.engine.view import TableView


class Readers:
    """One table's readers where they disagree with each other or with the deal."""

    b: Board  # the board of the deal (``deal``)
    law: Code  # the law code in force for it

    def __init__(self, view: TableView, tracker: Tracker, sensing: SensingFilter,
                 fusion: CardFusion, fouling: Fouling, tuning: Tuning, *,
                 played: Set[str],
                 take_in: Callable[[Observe, Position | None], None]) -> None:
        self.view = view
        self.tracker = tracker
        self.sensing = sensing
        self.fusion = fusion
        self.fouling = fouling
        self.tuning = tuning
        self.played = played  # the engine's (cleared in place for each deal)
        self._take_in = take_in  # an observation through the engine's general path
        self._owners: dict[str, str] = {}  # card -> the seat the deal gives it
        self._owners_of: object = None  # the deal ``_owners`` indexes

    def deal(self, board: Board, law: Code) -> None:
        self.b = board
        self.law = law

    def fused(self, o: Observe) -> Observe | None:
        """``o`` as both kinds of reader together place the card (engine/fusion.py), or
        None when that moves nothing. A card that one kind of reader alone senses is
        where its reading says: ``o`` as it stands."""
        source: Source = "camera" if o.source == "camera" else "rfid"
        f = self.fusion
        pos = f.observe(o.card, Reading(
            source, o.seat, o.zone, o.face, o.level,
            o.seen_by, 1.0 if o.conf is None else o.conf, o.t))
        if pos is None:
            return o
        both = f.cards[o.card]
        if (both.camera if source == "rfid" else both.rfid) is None:
            return o
        face, seen, conf = pos.face, pos.seen_by, None
        if "camera" in pos.sources:
            if pos.conf >= self.tuning.min_conf:
                conf = None if pos.conf == 1.0 else pos.conf
            else:  # a weak recognition where the tag is: the tag's word, no face on a guess
                face, seen = "unknown", None
        was = self.tracker.pos.get(o.card)
        if was is not None and (was.seat, was.zone, was.face, was.level, was.seen_by) == (
                pos.seat, pos.zone, face, pos.level, seen):
            return None  # the other kind of reader confirms what is known
        return Observe(o.t, pos.seat, o.card, pos.zone, face, pos.level, seen, conf, o.rt,
                       o.source)

    def conflict_due(self, first: Observe) -> None:
        """A card sensed at a second seat for ``conflict_ms``: the readers disagree (the
        law's ``sensor-conflict``), or the table contradicts the deal it was given: the
        law's ``fouled-board`` (engine/fouling.py), and the card is where the table has
        it from now on (its latest reading, taken in as of the moment it was due)."""
        card = first.card
        latest = self.sensing.latest(card) or first
        record = self.owner(card)  # the deal's seat, or where a fouling last put it
        b = self.b
        played = card in self.played or any(c == card for _, c in b.trick)
        pos, before = self.tracker.pos.get(card), self.tracker.before_gone.get(card)
        if not (self.fouling.contradicts(first, pos, before, record, played,
                                         self.tuning.min_conf)
                and self.fouling.contradicts(latest, pos, before, record, played,
                                             self.tuning.min_conf)):
            self.law.sensor_conflict(self.view, first)
            return
        assert record is not None
        known = self.fouling.cards.get(card)
        if known is None:  # one ruling a card, naming the record's seat
            self.law.fouled_board(self.view, card, record, latest.seat, first.t)
        self.fouling.moved(card, known[0] if known else record, latest.seat)
        b.refound(card, record, latest.seat)
        self.sensing.end_conflict(card)
        self.tracker.forget(card)
        # taken in as of the moment the conflict was due, whenever the engine sees that
        # (a daemon's tick, or the next event on replay): the same in both
        due = max(first.t + self.tuning.conflict_ms, latest.t)
        self._take_in(msgspec.structs.replace(latest, t=due), None)

    def disagree(self, card: str) -> None:
        """An RFID tag and a camera placed ``card`` apart for ``conflict_ms``: the law's
        ``sensor-conflict`` (never a penalty), with the camera's sighting."""
        c = self.fusion.conflict(card)
        if c is None or card in self.sensing.conflicts:
            return  # (the sensing filter holds the same disagreement between two seats)
        cam = c.camera
        self.law.sensor_conflict(self.view, Observe(
            c.since, cam.seat, card, cam.zone, cam.face, cam.level, cam.seen_by, cam.conf,
            source="camera"))

    def owner(self, card: str) -> str | None:
        if self.b.phase == "setup":
            return None
        if self._owners_of is not self.b.deal:  # the deal changed: index it again
            self._owners_of = self.b.deal
            self._owners = {c: seat for seat, cards in self.b.deal.items() for c in cards}
        if self.fouling.cards:
            moved = self.fouling.cards.get(card)
            if moved is not None:
                return moved[1]  # the table contradicted the deal: where the table has it
        return self._owners.get(card)


__all__ = ["Readers"]
