"""Card positions: where each card was last sensed, by which seat's reader.

The tracker records what the sensing filter admits (``update``) and answers
``where`` a card is. It keeps, for each card reported ``gone``, where it was
before, so a short dropout can be recognised. Filtering readings is
:mod:`tablesense.engine.sensing`; grouping movements into incidents is
:mod:`tablesense.engine.incidents`.
"""

from __future__ import annotations

import msgspec

from tablesense.contract.events import Observe
from tablesense.contract.vocab import Face, Level, Zone


class Position(msgspec.Struct, frozen=True, gc=False):
    """Where a card was last sensed (a struct: one is made for nearly every observation,
    and a struct is made and read faster than a named tuple)."""

    seat: str
    zone: Zone
    face: Face
    level: Level
    seen_by: tuple[str, ...] | None
    t: int


class Tracker:
    def __init__(self) -> None:
        self.pos: dict[str, Position] = {}
        self.before_gone: dict[str, Position] = {}  # card -> where it was before `gone`

    def reset(self) -> None:
        self.pos.clear()
        self.before_gone.clear()

    def where(self, card: str) -> Position | None:
        return self.pos.get(card)

    def record(self, o: Observe) -> None:
        """Record ``o`` where the caller knows the card was not ``gone`` and is not going
        (the engine's fast paths: a card moved at the seat that holds it)."""
        self.pos[o.card] = Position(o.seat, o.zone, o.face, o.level, o.seen_by, o.t)

    def seed(self, hands: dict[str, tuple[str, ...]], t: int) -> dict[str, Position]:
        """Cards of a known deal that no reader has reported yet are in their hands
        (face down, level unknown): a reading of one at another seat is then a conflict.
        Returns each seat's one such position (frozen: shared by its cards)."""
        pos = self.pos
        seeded: dict[str, Position] = {}
        for seat, cards in hands.items():
            held = seeded[seat] = Position(seat, "hand", "down", "unknown", None, t)
            for card in cards:
                if card not in pos:
                    pos[card] = held
        return seeded

    def forget(self, card: str) -> None:
        """No position for ``card``: the next reading of it is taken as it comes."""
        self.pos.pop(card, None)

    def update(self, o: Observe) -> Position | None:
        """Record ``o``; return the card's previous position."""
        prev = self.pos.get(o.card)
        if o.zone == "gone" and prev is not None and prev.zone != "gone":
            self.before_gone[o.card] = prev
        self.pos[o.card] = Position(o.seat, o.zone, o.face, o.level, o.seen_by, o.t)
        return prev


__all__ = ["Position", "Tracker"]
