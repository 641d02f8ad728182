"""The 2017 Laws' state for one deal: penalty cards, Law 24 cards, answers the
non-offending side owes, lead options awaited. Only the 2017 modules read it
(laws/play2017.py, laws/duplicate2017.py); the old codes' callable cards are not
in it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from tablesense.engine.obligations import PenaltyCard
from tablesense.laws.state import CodeState

# what a pending irregularity waits for: an answer to a lead out of turn (``loot``), to a
# penalty card not played, to cards played together, or a lead made before declarer
# chose a Law 50D2 option (``early``)
PendingKind = Literal["loot", "pc-not-played", "together", "early"]


@dataclass
class Pending:
    """An irregularity waiting for the non-offending side's answer."""

    ruling: str
    kind: PendingKind
    seat: str
    cards: tuple[str, ...]
    opening: bool = False
    about: str = ""  # early: the penalty card ruling whose lead option was awaited


@dataclass
class State2017(CodeState):
    """What the 2017 Laws remember during one deal."""

    penalty: dict[str, dict[str, PenaltyCard]] = field(default_factory=dict)
    law24: dict[str, dict[str, str]] = field(default_factory=dict)  # seat -> card -> how
    law24_rulings: dict[str, list[str]] = field(default_factory=dict)
    pending: list[Pending] = field(default_factory=list)
    awaiting_option: dict[str, str] = field(default_factory=dict)  # partner seat -> ruling id
    # penalty card rulings whose lead option the declaring side waived by playing to a lead
    # made before it chose (2017 Law 11A): not awaited again
    waived: set[str] = field(default_factory=set)
    designated: dict[str, str] = field(default_factory=dict)  # seat -> designated PC
    # a lead out of turn being accepted: (its card, when it was led); penalty cards that
    # arose after that time were not due when it was led
    accepting: tuple[str, int] | None = None
    drawn_for_seats: dict[str, str] = field(default_factory=dict)  # seat -> card shown
    dummy_seen: bool = False  # L54C: presumed dummy's cards faced before the lead

    def penalty_cards(self) -> Mapping[str, Mapping[str, PenaltyCard]]:
        return self.penalty

    def law24_cards(self) -> Mapping[str, Mapping[str, str]]:
        return self.law24

    def pcs(self, seat: str) -> dict[str, PenaltyCard]:
        pcs = self.penalty.get(seat)  # (asked before every card played: no dict made)
        if pcs is None:
            pcs = self.penalty[seat] = {}
        return pcs

    def pc_rulings(self, seat: str) -> list[str]:
        seen: dict[str, None] = {}
        for pc in self.pcs(seat).values():
            seen[pc.ruling] = None
        return list(seen)
