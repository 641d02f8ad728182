"""Incident grouping: movements that belong to one incident, grouped by time.

The contract's conventions: cards arriving in one seat's trick zone within
300 ms were played together; three or more cards of one seat arriving face up
on the table within 1 s are a thrown hand. A group stays open while later
movements may still join it; it closes when an event shows its window has
passed (no clock here), or when the engine closes it early because the card
moves on.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from tablesense.contract.events import Observe

TOGETHER_MS = 300
THROWN_MS = 1000

GroupKind = Literal["trick", "table"]


class Group(msgspec.Struct):
    """Movements that may be one incident, still open for more (a struct: one is made
    for every card played)."""

    kind: GroupKind  # "trick" (cards arriving in trick zones) or "table" (face up at rest)
    seat: str | None
    first_t: int
    window: int
    items: list[Observe] = msgspec.field(default_factory=list)

    def expired(self, t: int) -> bool:
        return t - self.first_t > self.window

    @property
    def cards(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for o in self.items:
            seen[o.card] = None
        return tuple(seen)


class Incidents:
    """The open groups of one table, oldest first."""

    def __init__(self) -> None:
        self.groups: list[Group] = []

    def reset(self) -> None:
        self.groups.clear()

    def join(self, kind: GroupKind, o: Observe) -> None:
        seat = None if kind == "trick" else o.seat
        window = TOGETHER_MS if kind == "trick" else THROWN_MS
        groups = self.groups
        if not groups:  # (nearly every card played: a group of its own)
            groups.append(Group(kind, seat, o.t, window, [o]))
            return
        for g in groups:
            if g.kind == kind and g.seat == seat and not g.expired(o.t):
                if kind == "trick" and all(x.seat != o.seat for x in g.items):
                    # cards played together are one player's, within 300 ms of his own
                    # first card (2017 Law 58B): a player's first card keeps the group open
                    # for his window, whoever's card opened it
                    g.window = max(g.window, o.t + TOGETHER_MS - g.first_t)
                g.items.append(o)
                return
        self.groups.append(Group(kind, seat, o.t, window, [o]))

    def holding(self, kind: GroupKind) -> set[str]:
        """The cards in the open groups of ``kind``."""
        return {x.card for g in self.groups if g.kind == kind for x in g.items}

    def drop(self, kind: GroupKind, card: str) -> bool:
        """Take ``card`` out of the open groups of ``kind``; True if it was in one."""
        found = False
        for g in self.groups:
            if g.kind == kind and any(x.card == card for x in g.items):
                g.items = [x for x in g.items if x.card != card]
                found = True
        self.groups = [g for g in self.groups if g.items]
        return found

    def widen_tricks(self, until: int) -> None:
        """Open trick groups stay open at least until ``until`` (a play is on its way)."""
        for g in self.groups:
            if g.kind == "trick":
                g.window = max(g.window, until - g.first_t)

    def narrow_tricks(self, now: int) -> None:
        """The play they waited for has arrived: back to the usual window."""
        for g in self.groups:
            if g.kind == "trick":
                g.window = min(g.window, max(TOGETHER_MS, now - g.first_t))

    def take_all(self, moving_since: int | None = None) -> list[Group]:
        """Close every open group; with ``moving_since``, a table group whose cards all
        came after it stays open (those cards may be on their way to the trick)."""
        if moving_since is None:
            done, self.groups = self.groups, []
        else:
            keep = [g for g in self.groups
                    if g.kind == "table" and all(x.t > moving_since for x in g.items)]
            done = [g for g in self.groups if g not in keep]
            self.groups = keep
        return sorted(done, key=lambda g: g.first_t)

    def take_holding(self, card: str) -> list[Group]:
        """Close the groups that hold ``card`` (it is moving on)."""
        done = [g for g in self.groups if any(x.card == card for x in g.items)]
        self.groups = [g for g in self.groups if g not in done]
        return done

    def take(self, g: Group) -> None:
        self.groups.remove(g)


__all__ = ["THROWN_MS", "TOGETHER_MS", "Group", "GroupKind", "Incidents"]
