"""A fouled board (2017 Law 87): the table contradicts the hand record.

With a deal given whole (a ``dealt`` with ``hands``: the event's hand record,
a dealing machine, the director), the engine seeds every card no reader has
reported in the hand the record gives it. A reader then sensing one of them at
another seat is a conflict for the sensing filter like any other, ruled on
only when it lasts ``conflict_ms`` (a neighbour's tag read for a scan or two is
noise). When it lasts, whose conflict it is decides the ruling:

- a reader still senses the card at the first seat: the readers disagree, a
  ``sensor-conflict`` as before;
- no reader senses it anywhere else and none ever sensed it where the record
  puts it (it was never reported but by the record, or it is ``gone`` from
  another seat), the card is not one played to a trick, and
  the reading is a confident one (a camera's guess below ``min_conf`` never
  counts): the record is what the table contradicts. One ``fouled-board``
  ruling (severity ``director``) names the card, the seat the record gives it
  and the seat where it was sensed.

Never a penalty on the strength of a record the table contradicts: from then
on the card belongs to the seat that has it (``Engine._owner`` asks here
first; the board's ``deal`` stays the record, for the documents), and the
board's holdings are no longer taken from the record (``Board.fouled``: no
revoke is established on a holding the record alone claims). The director
decides what Law 87 makes of the board; the engine follows the play as the
table shows it.

This module holds the state and the test; ``Engine`` (its ``_conflict_due``)
asks it and makes the change.
"""

from __future__ import annotations

from tablesense.contract.events import Observe
from tablesense.engine.tracker import Position


class Fouling:
    """One deal's record and the cards the table has shown elsewhere."""

    def __init__(self) -> None:
        self.recorded = False  # the deal came whole (a dealt with hands)
        self._seeded: dict[str, Position] = {}  # seat -> its unreported cards' position
        self.cards: dict[str, tuple[str, str]] = {}  # card -> (record's seat, table's seat)

    def reset(self) -> None:
        """A new deal (a board, a redeal)."""
        self.recorded = False
        self._seeded.clear()
        self.cards.clear()

    def given(self, whole: bool) -> None:
        """Whether the deal came whole (a ``dealt`` with hands): the record to hold the
        table to."""
        self.recorded = whole

    def seed(self, seat: str, held: Position) -> None:
        """``held`` is where the record puts ``seat``'s cards no reader has reported."""
        self._seeded[seat] = held

    def contradicts(self, o: Observe, pos: Position | None, before: Position | None,
                    record: str | None, played: bool, min_conf: float) -> bool:
        """Is ``o`` (a reading at a seat other than ``pos``'s, that lasted) the table
        contradicting the record, which gives the card to ``record``?

        ``pos``: where the tracker has the card; ``before``: where it was before it
        was last reported ``gone``; ``played``: it was played to a trick (then the
        readers disagree about a played card, not the deal). A card a reader has
        sensed where the record puts it bore the record out: a reading elsewhere
        once it is gone from there is the readers' conflict (a neighbour's antenna
        reading it while its own misses it), not the record's.
        """
        if not self.recorded or record is None or record == o.seat or played:
            return False
        if o.conf is not None and o.conf < min_conf:
            return False
        if pos is None or pos is self._seeded.get(pos.seat):
            return True  # never reported but by the record
        return pos.zone == "gone" and (before is None or before.seat != record)

    def moved(self, card: str, record: str, seat: str) -> None:
        """The table has ``card`` at ``seat``; the record gave it to ``record``."""
        self.cards[card] = (record, seat)


__all__ = ["Fouling"]
