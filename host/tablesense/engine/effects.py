"""What a law code may change: typed effects that only the engine applies.

A law hook reads the table through a :class:`~tablesense.engine.view.TableView`
and asks for changes by handing one of these to ``TableView.do``; the engine
applies each in one place (``Engine.do``), so the board, the trick and the
card bookkeeping have a single owner. A code's own obligations (penalty cards,
restrictions, pending answers) are its own typed state, not effects. Effects are
frozen structs (one is made for every card played: a struct costs a seventh of a
frozen dataclass).
"""

from __future__ import annotations

import msgspec


class Play(msgspec.Struct, frozen=True, gc=False):
    """``seat``'s card counts as played now, in turn: with every consequence (the
    code's checks before and after the play, the trick completing)."""

    seat: str
    card: str


class PlayAtTurn(msgspec.Struct, frozen=True, gc=False):
    """``seat``'s card counts as his play when his turn comes (a legal premature
    play, a card designated among cards played together)."""

    seat: str
    card: str


class LeadNextTrick(msgspec.Struct, frozen=True, gc=False):
    """``seat``'s card, led early to the next trick, stands as its lead once the
    current trick is complete (2017 Law 57C1)."""

    seat: str
    card: str


class AcceptLead(msgspec.Struct, frozen=True, gc=False):
    """A lead out of turn stands: the trick starts with it, ``seat`` being its leader."""

    seat: str
    card: str


class TakeBack(msgspec.Struct, frozen=True, gc=False):
    """``seat``'s card leaves the current trick (a complete one not yet quitted
    included) and goes back to his hand. With ``keep_place`` the card he plays
    next takes the withdrawn card's place in the trick."""

    seat: str
    card: str
    keep_place: bool = True


class SwapDeclarer(msgspec.Struct, frozen=True, gc=False):
    """2017 Law 54A: declarer spread his hand; his partner becomes declarer."""


class OpeningLeadFaced(msgspec.Struct, frozen=True, gc=False):
    """The opening lead is faced: the board moves from ``lead`` to ``play``."""


class StopPlay(msgspec.Struct, frozen=True, gc=False):
    """An act treated as a claim or concession stops the play (phase ``claim``)."""


class CloseRulings(msgspec.Struct, frozen=True, gc=False):
    """Rulings that bind no more (their cards played, or settled otherwise)."""

    ids: tuple[str, ...]


class Answered(msgspec.Struct, frozen=True, gc=False):
    """A ruling whose question the non-offending side (or the play) has answered."""

    id: str


class Covered(msgspec.Struct, frozen=True, gc=False):
    """Cards that ``ruling`` covers: seeing them again is no new exposure
    (``ruling`` empty: covered by no ruling, e.g. a card put back unseen)."""

    cards: tuple[str, ...]
    ruling: str
    replace: bool = True


class Uncovered(msgspec.Struct, frozen=True, gc=False):
    """Cards no ruling covers any more (restored to a future declarer's hand)."""

    cards: tuple[str, ...]


Effect = (Play | PlayAtTurn | LeadNextTrick | AcceptLead | TakeBack | SwapDeclarer
          | OpeningLeadFaced | StopPlay | CloseRulings | Answered | Covered | Uncovered)

__all__ = [
    "AcceptLead", "Answered", "CloseRulings", "Covered", "Effect", "LeadNextTrick",
    "OpeningLeadFaced", "Play",
    "PlayAtTurn", "StopPlay", "SwapDeclarer", "TakeBack", "Uncovered",
]
