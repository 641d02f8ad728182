"""Card tracking: fuse the readers' observations into each card's position.

The tracker knows where every card was last seen and turns a stream of
``observe`` events into *movements* (a card arriving in a trick zone, a card
coming to rest face up on the table, a card turned face up in the hand …).
Movements that belong to one incident are grouped by time, as domain.md's
conventions say: cards arriving in one seat's trick zone within 300 ms were
played together; three or more cards of one seat arriving face up on the
table within 1 s are a thrown hand. It has no clock: windows close when an
event arrives later than the window, or on ``flush``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tablesense.events import Observe

TOGETHER_MS = 300
THROWN_MS = 1000


@dataclass(frozen=True)
class Tuning:
    """The noise thresholds of the host tracker (BENCHMARKS.md says how they were chosen).

    - ``min_dwell_ms``: a card must stay in a trick zone, or face up at rest on
      the table, at least this long to count; shorter is a zone-boundary flicker.
    - ``conflict_ms``: a card sensed at two seats is a ``sensor-conflict`` only
      when both readers still claim it this long after it began.
    - ``min_conf``: a camera reading below this confidence is acted on only when
      a second reading of the same card, seat, zone and face corroborates it.
    - ``transit_ms``: a card sensed face up on the table that reaches the trick
      zone within this time, sensed on the table at its player's turn or no
      other card reaching a trick zone meanwhile, only passed over the table
      antenna on its way. A trick quitted meanwhile does not end its journey.
    - ``dropout_ms``: a card reported gone that comes back to the same place
      within this time never moved (a hand being sorted, a run of missed reads).
    """

    min_dwell_ms: int = 100
    conflict_ms: int = 500
    min_conf: float = 0.6
    transit_ms: int = 500
    dropout_ms: int = 1000

    def __post_init__(self) -> None:
        if min(self.min_dwell_ms, self.conflict_ms, self.transit_ms, self.dropout_ms) < 0 or (
                not 0 <= self.min_conf <= 1):
            raise ValueError(f"invalid tuning {self}")


NOISE_COUNTERS = ("flicker", "conflict", "low_conf", "transit", "dropout")


@dataclass(frozen=True)
class Position:
    seat: str
    zone: str
    face: str
    level: str
    seen_by: tuple[str, ...] | None
    t: int


@dataclass
class Group:
    """Movements that may be one incident, still open for more."""

    kind: str  # "trick" (cards arriving in trick zones) or "table" (face up at rest)
    seat: str | None
    first_t: int
    window: int
    items: list[Observe] = field(default_factory=list)

    def expired(self, t: int) -> bool:
        return t - self.first_t > self.window

    @property
    def cards(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for o in self.items:
            seen[o.card] = None
        return tuple(seen)


class Tracker:
    def __init__(self) -> None:
        self.pos: dict[str, Position] = {}
        self.groups: list[Group] = []
        self.conflicts: dict[str, str] = {}  # card -> the other seat that claims it
        self.before_gone: dict[str, Position] = {}  # card -> where it was before `gone`

    def reset(self) -> None:
        self.pos.clear()
        self.before_gone.clear()
        self.groups.clear()
        self.conflicts.clear()

    def where(self, card: str) -> Position | None:
        return self.pos.get(card)

    def update(self, o: Observe) -> Position | None:
        """Record ``o``; return the card's previous position."""
        prev = self.pos.get(o.card)
        if o.zone == "gone" and prev is not None and prev.zone != "gone":
            self.before_gone[o.card] = prev
        self.pos[o.card] = Position(o.seat, o.zone, o.face, o.level, o.seen_by, o.t)
        return prev

    def came_back(self, o: Observe, within: int) -> bool:
        """Is ``o`` a card back where it was before a short ``gone``?"""
        prev = self.pos.get(o.card)
        last = self.before_gone.get(o.card)
        return (prev is not None and prev.zone == "gone" and last is not None
                and o.t - prev.t <= within
                and (last.seat, last.zone, last.face) == (o.seat, o.zone, o.face))

    def conflict(self, o: Observe, owner: str | None = None) -> str | None:
        """Is ``o`` the card at a second seat while another seat still senses it,
        or at a seat other than its ``owner`` (when the deal is known)?

        Returns ``"new"`` for a conflict not yet reported, ``"again"`` for one
        already reported, ``None`` when there is none. The position stays with
        the first seat while the conflict lasts; it ends when the second seat
        stops sensing the card.
        """
        prev = self.pos.get(o.card)
        if o.zone == "gone":
            if self.conflicts.get(o.card) == o.seat:
                del self.conflicts[o.card]
                return "again"
            return None
        holder = prev.seat if prev is not None and prev.zone != "gone" else owner
        if holder is not None and holder != o.seat:
            state = "again" if self.conflicts.get(o.card) == o.seat else "new"
            self.conflicts[o.card] = o.seat
            return state
        return None

    # -- grouping ------------------------------------------------------------
    def join(self, kind: str, o: Observe) -> None:
        seat = None if kind == "trick" else o.seat
        window = TOGETHER_MS if kind == "trick" else THROWN_MS
        for g in self.groups:
            if g.kind == kind and g.seat == seat and not g.expired(o.t):
                g.items.append(o)
                return
        self.groups.append(Group(kind, seat, o.t, window, [o]))

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
        done = [g for g in self.groups if card in g.cards]
        self.groups = [g for g in self.groups if g not in done]
        return done
