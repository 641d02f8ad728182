"""The table as a law code sees it: read-only, with one door for changes.

Law hooks get a :class:`TableView`. They read the board (through the
read-only :class:`BoardView`), where each card lies, the rulings made so far
and their code's own obligations; they make rulings with ``emit`` and ask for
every other change with ``do(effect)``, which the engine applies. Nothing here
lets a code assign an engine or board attribute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from operator import attrgetter
from typing import TYPE_CHECKING, Protocol

from tablesense.contract.vocab import Phase, Role
from tablesense.engine.effects import Effect
from tablesense.engine.ruling import Draft, Ruling
from tablesense.engine.tracker import Position

Trick = Sequence[tuple[str, str]]


class BoardView(Protocol):
    """What a law code may read of the board (every member read-only)."""

    @property
    def table(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def dealer(self) -> str | None: ...
    @property
    def vul(self) -> str | None: ...
    @property
    def whist(self) -> bool: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def step(self) -> str | None: ...
    @property
    def dealt(self) -> bool: ...
    @property
    def hands(self) -> Mapping[str, Set[str]]: ...
    @property
    def deal(self) -> Mapping[str, tuple[str, ...]]: ...
    @property
    def calls(self) -> Sequence[tuple[str, str]]: ...
    @property
    def turn(self) -> str | None: ...
    @property
    def declarer(self) -> str | None: ...
    @property
    def strain(self) -> str | None: ...
    @property
    def contract(self) -> str | None: ...
    @property
    def doubled(self) -> int: ...
    @property
    def whist_declared(self) -> bool: ...
    @property
    def trick(self) -> Trick: ...
    @property
    def trick_leader(self) -> str | None: ...
    @property
    def tricks(self) -> Sequence[tuple[tuple[tuple[str, str], ...], str]]: ...
    @property
    def quitted(self) -> bool: ...
    @property
    def won(self) -> Mapping[str, int]: ...
    @property
    def opening_lead_faced(self) -> bool: ...
    @property
    def withdrawn(self) -> Mapping[str, int]: ...
    @property
    def dummy(self) -> str | None: ...
    @property
    def leader(self) -> str | None: ...
    @property
    def trumps(self) -> str | None: ...

    def role(self, seat: str) -> Role | None: ...
    def is_defender(self, seat: str) -> bool: ...
    def controller(self, seat: str) -> str: ...
    def led_suit(self) -> str | None: ...
    def trick_complete(self) -> bool: ...
    def next_to_play(self) -> str | None: ...
    def holds_suit(self, seat: str, s: str) -> bool: ...
    def is_legal(self, seat: str, card: str) -> bool: ...
    def all_played(self) -> bool: ...


class Positions(Protocol):
    def where(self, card: str) -> Position | None: ...


class Table(Protocol):
    """What the view reads and asks of the table it shows (the engine): a protocol, so
    that the view, and the law codes typed against it, need not import the engine."""

    @property
    def board(self) -> BoardView | None: ...
    @property
    def tracker(self) -> Positions: ...
    @property
    def closed(self) -> Set[str]: ...
    @property
    def answered(self) -> Set[str]: ...
    @property
    def exposed(self) -> Mapping[str, str]: ...
    @property
    def played(self) -> Set[str]: ...
    @property
    def now(self) -> int: ...
    @property
    def rulings(self) -> Sequence[Ruling]: ...

    def ruling(self, rid: str) -> Ruling | None: ...
    def emit(self, d: Draft, t: int) -> Ruling: ...
    def do(self, e: Effect, t: int) -> bool: ...


class TableView:
    """One table through a law code's eyes (made by the engine, one per engine)."""

    def __init__(self, engine: Table) -> None:
        self._eng = engine

    # -- reading ---------------------------------------------------------------
    # The member law hooks read most (a few times each play), a property made of
    # attrgetter: read-only all the same, without a Python call each time.
    if TYPE_CHECKING:
        @property
        def b(self) -> BoardView:
            """The board (law hooks run only while a board is in play)."""
    else:
        b = property(attrgetter("_eng.board"), doc="The board (law hooks run only while "
                     "a board is in play).")

    def where(self, card: str) -> Position | None:
        return self._eng.tracker.where(card)

    @property
    def closed(self) -> Set[str]:
        return self._eng.closed

    @property
    def answered(self) -> Set[str]:
        return self._eng.answered

    @property
    def exposed(self) -> Mapping[str, str]:
        """Cards some ruling already covers: card -> ruling id ('' when none)."""
        return self._eng.exposed

    @property
    def played(self) -> Set[str]:
        return self._eng.played

    @property
    def now(self) -> int:
        """The time of the event being applied."""
        return self._eng.now

    @property
    def rulings(self) -> Sequence[Ruling]:
        return self._eng.rulings

    def ruling(self, rid: str) -> Ruling | None:
        return self._eng.ruling(rid)

    # -- acting ----------------------------------------------------------------
    def emit(self, d: Draft, t: int) -> Ruling:
        """Make a ruling (the engine gives it its id, phase, role and time)."""
        return self._eng.emit(d, t)

    def do(self, effect: Effect, t: int) -> bool:
        """Ask the engine to apply ``effect``; False when the table does not allow it."""
        return self._eng.do(effect, t)


__all__ = ["BoardView", "Positions", "Table", "TableView"]
