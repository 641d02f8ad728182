"""What a law code may change: typed effects that only the engine applies.

A law hook reads the table through a :class:`~tablesense.engine.view.TableView`
and asks for changes by handing one of these to ``TableView.do``; the engine
applies each in one place (``Engine.do``), so the board, the trick and the
card bookkeeping have a single owner. A code's own obligations (penalty cards,
restrictions, pending answers) are its own typed state, not effects.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Play:
    """``seat``'s card counts as played now, in turn: with every consequence (the
    code's checks before and after the play, the trick completing)."""

    seat: str
    card: str


@dataclass(frozen=True)
class PlayAtTurn:
    """``seat``'s card counts as his play when his turn comes (a legal premature
    play, a card designated among cards played together)."""

    seat: str
    card: str


@dataclass(frozen=True)
class LeadNextTrick:
    """``seat``'s card, led early to the next trick, stands as its lead once the
    current trick is complete (2017 Law 57C1)."""

    seat: str
    card: str


@dataclass(frozen=True)
class AcceptLead:
    """A lead out of turn stands: the trick starts with it, ``seat`` being its leader."""

    seat: str
    card: str


@dataclass(frozen=True)
class TakeBack:
    """``seat``'s card leaves the current trick (a complete one not yet quitted
    included) and goes back to his hand. With ``keep_place`` the card he plays
    next takes the withdrawn card's place in the trick."""

    seat: str
    card: str
    keep_place: bool = True


@dataclass(frozen=True)
class SwapDeclarer:
    """2017 Law 54A: declarer spread his hand; his partner becomes declarer."""


@dataclass(frozen=True)
class OpeningLeadFaced:
    """The opening lead is faced: the board moves from ``lead`` to ``play``."""


@dataclass(frozen=True)
class StopPlay:
    """An act treated as a claim or concession stops the play (phase ``claim``)."""


@dataclass(frozen=True)
class CloseRulings:
    """Rulings that bind no more (their cards played, or settled otherwise)."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class Answered:
    """A ruling whose question the non-offending side (or the play) has answered."""

    id: str


@dataclass(frozen=True)
class Covered:
    """Cards that ``ruling`` covers: seeing them again is no new exposure
    (``ruling`` empty: covered by no ruling, e.g. a card put back unseen)."""

    cards: tuple[str, ...]
    ruling: str
    replace: bool = True


@dataclass(frozen=True)
class Uncovered:
    """Cards no ruling covers any more (restored to a future declarer's hand)."""

    cards: tuple[str, ...]


Effect = (Play | PlayAtTurn | LeadNextTrick | AcceptLead | TakeBack | SwapDeclarer
          | OpeningLeadFaced | StopPlay | CloseRulings | Answered | Covered | Uncovered)

__all__ = [
    "AcceptLead", "Answered", "CloseRulings", "Covered", "Effect", "LeadNextTrick",
    "OpeningLeadFaced", "Play",
    "PlayAtTurn", "StopPlay", "SwapDeclarer", "TakeBack", "Uncovered",
]
