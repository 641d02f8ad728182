"""Where each card physically is, from what the simulated world says about it.

The simulated world (a scenario line: seat, card, zone, face) says *what*
happens; this lays it out *where* a camera would see it, as people do:

* a hand is a spread of its cards in the hand plane, sorted by suit and rank,
  each card 18 mm right of the last and in front of it (from the holder's
  side); a card turned outwards keeps its place, face away from the holder; a
  detached card is pulled up 40 mm;
* the table zone holds two rows: face-up cards (dummy, penalty cards) behind,
  face-down cards (quitted tricks) in front; each card takes the leftmost free
  slot of its row, and a card lies on its left neighbour;
* the trick zone takes the card played (two side by side if two arrive);
* the floor beside the seat, below the table edge.

Cards lying on the table have their top towards the centre.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablesense.contract.vocab import Seat
from tablesense.vision import geometry as g
from tablesense.vision.deck import RANKS, SUITS

ROW_SLOTS = 22
TABLE_UP_TOP = g.TABLE_ZONE_W[1]  # top edge of the face-up row
TABLE_DOWN_TOP = g.TABLE_ZONE_W[0] + g.CARD_H  # top edge of the face-down row
TRICK_TOP = g.TRICK_ZONE_W[1] - 0.008
FLOOR_TOP = -0.40


def sort_key(card: str) -> tuple[int, int]:
    return ("SHCD".index(card[0]), RANKS.index(card[1]))


@dataclass(frozen=True)
class Placed:
    """One card where a camera would see it: ``u`` its left edge, ``w`` its top edge
    (metres in the region's plane, seen from the holder's side); ``facing`` +1 when its
    face looks along the plane's normal (the holder's side of a hand; up on the table)."""

    card: str
    seat: Seat
    region: str  # "table", "hand", "floor"
    u: float
    w: float
    facing: int
    layer: int  # drawing order within the region (higher: on top, from the facing side)


@dataclass
class _Truth:
    zone: str
    face: str
    order: int


class Scene:
    """The cards of one table and where they lie; :meth:`move` applies a scenario line."""

    def __init__(self) -> None:
        self.truth: dict[str, tuple[Seat, _Truth]] = {}
        self.slots: dict[str, tuple[str, int]] = {}  # card -> (row, slot) on the table/floor
        self._n = 0
        self.version = 0

    def move(self, seat: Seat, card: str, zone: str, face: str) -> None:
        """The card's new zone and face at ``seat`` (``gone``: taken away)."""
        card = card.upper()
        self.version += 1
        old = self.truth.pop(card, None)
        if old is not None and (old[0], old[1].zone, old[1].face) != (seat, zone, face):
            self.slots.pop(card, None)
        if zone == "gone":
            self.slots.pop(card, None)
            return
        self._n += 1
        order = old[1].order if old is not None and old[1].zone == zone else self._n
        self.truth[card] = (seat, _Truth(zone, face, order))
        row = self._row(zone, face)
        if row is not None and card not in self.slots:
            taken = {s for c, (r, s) in self.slots.items()
                     if r == row and self.truth.get(c, (None,))[0] == seat}
            self.slots[card] = (row, min(set(range(ROW_SLOTS)) - taken, default=ROW_SLOTS))

    @staticmethod
    def _row(zone: str, face: str) -> str | None:
        if zone == "table":
            return "table-up" if face == "up" else "table-down"
        if zone in ("trick", "floor"):
            return zone
        return None

    def placed(self) -> list[Placed]:
        out: list[Placed] = []
        hands: dict[Seat, list[str]] = {}
        for card, (seat, t) in self.truth.items():
            if t.zone in ("hand", "detached"):
                hands.setdefault(seat, []).append(card)
        for seat, cards in hands.items():
            cards.sort(key=sort_key)
            n = len(cards)
            left = -(g.CARD_W + (n - 1) * g.SPREAD_PITCH) / 2
            for k, card in enumerate(cards):
                t = self.truth[card][1]
                top = g.CARD_H + (g.DETACH_RAISE if t.zone == "detached" else 0.0)
                out.append(Placed(card, seat, "hand", left + k * g.SPREAD_PITCH, top,
                                  -1 if t.face == "up" else 1, k))
        for card, (row, slot) in self.slots.items():
            seat, t = self.truth[card]
            facing = 1 if t.face == "up" else -1
            if row == "trick":
                out.append(Placed(card, seat, "table", -0.045 + 0.032 * slot, TRICK_TOP,
                                  facing, 100 + slot))
            elif row == "floor":
                out.append(Placed(card, seat, "floor", -0.20 + 0.07 * slot, FLOOR_TOP, facing,
                                  slot))
            else:
                top = TABLE_UP_TOP if row == "table-up" else TABLE_DOWN_TOP
                left = -g.TABLE_U + 0.004 + slot * g.SPREAD_PITCH
                out.append(Placed(card, seat, "table", left, top, facing,
                                  slot if row == "table-up" else 50 + slot))
        return out


__all__ = ["SUITS", "Placed", "Scene", "sort_key"]
