"""What the table's state topic shows of a law code's state: penalty cards, lead
and play restrictions, compulsory passes, Law 24 cards.

Each law code keeps its own state for one deal, of its own type (laws/state.py
and the types built on it), makes it and is the only one to change it. The
engine reads it through ``Obligations`` for ``Engine.snapshot`` and nothing
else; the two records it shows, ``PenaltyCard`` and ``Restriction``, are here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass
class PenaltyCard:
    card: str
    major: bool
    ruling: str


@dataclass
class Restriction:
    """A restriction on one seat's next lead or play."""

    seat: str
    option: str  # require-lead-suit, forbid-lead-suit, require-highest, ...
    suit: str | None
    ruling: str
    lasting: bool = False  # forbid-lead-suit: while the seat retains the lead


class Obligations(Protocol):
    """A law code's state as the table's state topic shows it (read only)."""

    @property
    def lead_rules(self) -> Sequence[Restriction]: ...
    @property
    def play_rules(self) -> Sequence[Restriction]: ...
    @property
    def must_pass(self) -> Mapping[str, str]:
        """Seat -> the ruling that bars him from the auction."""

    def penalty_cards(self) -> Mapping[str, Mapping[str, PenaltyCard]]:
        """Seat -> card -> its penalty card."""

    def law24_cards(self) -> Mapping[str, Mapping[str, str]]:
        """Seat -> card -> how it was exposed in the auction (2017 Law 24)."""
