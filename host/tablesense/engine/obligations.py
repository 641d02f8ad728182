"""Obligations that live on after a ruling: penalty cards, Law 24 cards,
compulsory passes, lead and play restrictions, pending choices.

``Obligations`` is a law code's own state for one deal: the code makes it
(``new_state``; the old codes extend it) and is the only one to change it. The
engine reads the penalty cards for the table's state topic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# what a pending irregularity waits for: an answer to a lead out of turn (``loot``), to a
# penalty card not played, to cards played together, or a lead made before declarer
# chose a Law 50D2 option (``early``)
PendingKind = Literal["loot", "pc-not-played", "together", "early"]


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
class Obligations:
    penalty: dict[str, dict[str, PenaltyCard]] = field(default_factory=dict)
    law24: dict[str, dict[str, str]] = field(default_factory=dict)  # seat -> card -> how
    law24_rulings: dict[str, list[str]] = field(default_factory=dict)
    must_pass: dict[str, str] = field(default_factory=dict)  # seat -> ruling id
    lead_rules: list[Restriction] = field(default_factory=list)
    play_rules: list[Restriction] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    awaiting_option: dict[str, str] = field(default_factory=dict)  # partner seat -> ruling id
    # penalty card rulings whose lead option the declaring side waived by playing to a lead
    # made before it chose (2017 Law 11A): not awaited again
    waived: set[str] = field(default_factory=set)
    revokes: dict[str, tuple[str, int]] = field(default_factory=dict)  # seat -> (card, trick no)
    designated: dict[str, str] = field(default_factory=dict)  # seat -> designated PC
    # a revoke corrected in the current trick: (trick number, the seats that may still
    # take back the card they played after it: 2017 Law 62C1, the old codes' Law 94)
    after_revoke: tuple[int, set[str]] | None = None
    # a lead out of turn being accepted: (its card, when it was led); penalty cards that
    # arose after that time were not due when it was led
    accepting: tuple[str, int] | None = None
    drawn_for_seats: dict[str, str] = field(default_factory=dict)  # seat -> card shown
    dummy_seen: bool = False  # 2017 L54C: presumed dummy's cards faced before the lead
    redeal_ruled: bool = False  # a redeal was ruled in this setup: one ruling is enough
    new_deal_demanded: bool = False

    def pcs(self, seat: str) -> dict[str, PenaltyCard]:
        pcs = self.penalty.get(seat)  # (asked before every card played: no dict made)
        if pcs is None:
            pcs = self.penalty[seat] = {}
        return pcs

    def all_pc_cards(self) -> set[str]:
        return {c for d in self.penalty.values() for c in d}

    def pc_rulings(self, seat: str) -> list[str]:
        seen: dict[str, None] = {}
        for pc in self.pcs(seat).values():
            seen[pc.ruling] = None
        return list(seen)
