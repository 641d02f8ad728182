"""The sensing filter: what the engine does with raw readings before any law sees them.

Readers glitch the way real sensors do. The filter decides, reading by
reading, what is a movement and what is noise, and counts what it suppresses
(per seat, for the reader's health topic):

- *low confidence*: a camera reading below ``min_conf`` counts only when a
  second one of the same card, seat, zone and face agrees;
- *conflicts*: a card sensed at a second seat while the first still holds it
  (or away from the seat it was dealt to) is ruled on only when it lasts
  ``conflict_ms``; shorter ones are noise;
- *dropouts*: a card reported gone that comes back where it was within
  ``dropout_ms`` never moved;
- *dwell*: a card must stay in a trick zone, or at rest face up on the table,
  ``min_dwell_ms`` to count (shorter is a zone-boundary flicker);
- *transit*: a play crossing the table antenna on its way to the trick zone is
  no exposure.

It never rules: the engine asks it, then groups incidents and asks the law.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablesense.contract.events import Observe
from tablesense.contract.vocab import SEATS
from tablesense.engine.incidents import Incidents
from tablesense.engine.tracker import Position, Tracker

NOISE_COUNTERS = ("flicker", "conflict", "low_conf", "transit", "dropout")


@dataclass(frozen=True)
class Tuning:
    """The noise thresholds of the sensing filter (BENCHMARKS.md says how they were chosen).

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


class SensingFilter:
    """One table's filter over its readers' observations."""

    def __init__(self, tuning: Tuning, tracker: Tracker, incidents: Incidents) -> None:
        self.tuning = tuning
        self.tracker = tracker
        self.incidents = incidents
        self.noise: dict[str, dict[str, int]] = {
            seat: dict.fromkeys(NOISE_COUNTERS, 0) for seat in SEATS}
        self.conflicts: dict[str, str] = {}  # card -> the other seat that claims it
        self._first: dict[str, Observe] = {}  # card -> first reading at the second seat
        self._last: dict[str, Observe] = {}  # card -> latest reading at the second seat
        self._low: dict[str, Observe] = {}  # card -> an uncorroborated low-confidence reading
        # when a card last arrived in a trick zone (the engine's fast path sets it too)
        self.last_trick_t = -1 << 62
        self._on_turn: set[str] = set()  # cards sensed face up on the table at their turn

    def reset(self) -> None:
        """A new deal: nothing carries over but the noise counts."""
        self.conflicts.clear()
        self._first.clear()
        self._last.clear()
        self._low.clear()
        self.last_trick_t = -1 << 62
        self._on_turn.clear()

    # -- readings ------------------------------------------------------------------
    def admit(self, o: Observe) -> bool:
        """Low-confidence camera readings count only when a second one agrees."""
        if o.conf is None or o.conf >= self.tuning.min_conf:
            self._low.pop(o.card, None)
            return True
        prev = self._low.pop(o.card, None)
        if prev is not None and (prev.seat, prev.zone, prev.face) == (o.seat, o.zone, o.face):
            return True
        self._low[o.card] = o
        self.noise[o.seat]["low_conf"] += 1
        return False

    def quiet(self, o: Observe) -> bool:
        """Would ``o`` pass the filter with nothing to remember or to rule on: confident
        enough, and no conflict waiting to be ruled (the engine's fast path asks)? Then
        it is admitted, as ``admit`` would."""
        if self._first or (o.conf is not None and o.conf < self.tuning.min_conf):
            return False
        if self._low:
            self._low.pop(o.card, None)
        return True

    def lost_elsewhere(self, o: Observe, prev: Position | None) -> bool:
        """A reader losing a card another reader holds: nothing moved (``prev``: where the
        tracker has the card)."""
        if o.zone != "gone" or o.card in self.conflicts:
            return False
        return prev is not None and prev.seat != o.seat and prev.zone != "gone"

    def conflicting(self, o: Observe, prev: Position | None, owner: str | None) -> bool:
        """Is ``o`` the card at a second seat while another seat still senses it, or at a
        seat other than its ``owner`` (when the deal is known)? The position stays with
        the first seat while the conflict lasts; it ends when the second seat stops
        sensing the card."""
        if o.zone == "gone":
            if self.conflicts.get(o.card) == o.seat:
                del self.conflicts[o.card]
                return True
            return False
        holder = prev.seat if prev is not None and prev.zone != "gone" else owner
        if holder is not None and holder != o.seat:
            if self.conflicts.get(o.card) != o.seat:
                self._first[o.card] = o
            self.conflicts[o.card] = o.seat
            self._last[o.card] = o
            return True
        return False

    def latest(self, card: str) -> Observe | None:
        """The latest reading of ``card`` at the second seat of its conflict."""
        return self._last.get(card)

    def end_conflict(self, card: str) -> None:
        """The conflict over ``card`` is settled (the second seat has it: a fouled board)."""
        self.conflicts.pop(card, None)
        self._first.pop(card, None)
        self._last.pop(card, None)

    def due_conflicts(self, now: int) -> list[Observe]:
        """Conflicts that lasted ``conflict_ms`` (to be ruled on); shorter ones that
        ended are counted as noise."""
        due: list[Observe] = []
        if not self._first:
            return due
        for card, first in list(self._first.items()):
            if card not in self.conflicts:
                del self._first[card]
                self.noise[first.seat]["conflict"] += 1
            elif now - first.t >= self.tuning.conflict_ms:
                del self._first[card]
                due.append(first)
        return due

    def oldest_conflict(self) -> Observe | None:
        """The open conflict that began first (for closing incidents in order)."""
        if not self._first:
            return None
        live = [o for c, o in self._first.items() if c in self.conflicts]
        return min(live, key=lambda o: o.t) if live else None

    def take_conflict(self, card: str) -> Observe:
        return self._first.pop(card)

    def dropout(self, o: Observe, prev: Position | None) -> bool:
        """Is ``o`` a card back where it was before a short ``gone``? (It is recorded.)"""
        if prev is None or prev.zone != "gone":
            return False
        last = self.tracker.before_gone.get(o.card)
        back = (prev is not None and prev.zone == "gone" and last is not None
                and o.t - prev.t <= self.tuning.dropout_ms
                and (last.seat, last.zone, last.face) == (o.seat, o.zone, o.face))
        if back:
            self.noise[o.seat]["dropout"] += 1
            self.tracker.update(o)
        return back

    # -- dwell -----------------------------------------------------------------------
    def flicker(self, o: Observe, prev: Position, played: bool) -> bool:
        """Did the card leave a trick zone before ``min_dwell_ms``, still unplayed?

        Turned face down on the table it did not flicker: it was played and its trick
        quitted at once (a reader's late report brings both close together)."""
        if o.t - prev.t >= self.tuning.min_dwell_ms or played or (
                o.zone == "table" and o.face == "down"):
            return False
        if self.incidents.drop("trick", o.card):
            self.noise[prev.seat]["flicker"] += 1
            return True
        return False

    def settled(self, o: Observe, zones: tuple[str, ...]) -> bool:
        """Did the card stay where ``o`` put it at least ``min_dwell_ms``?"""
        pos = self.tracker.where(o.card)
        if pos is None or (pos.seat == o.seat and pos.zone in zones and pos.face == o.face):
            return True
        if pos.t - o.t >= self.tuning.min_dwell_ms:
            return True
        if zones == ("trick",) and pos.seat == o.seat and pos.zone == "table" and (
                pos.face == "down"):
            return True  # played, and its trick quitted at once (a late report)
        self.noise[o.seat]["flicker"] += 1
        return False

    # -- transit -----------------------------------------------------------------------
    def arrived_in_trick(self, o: Observe) -> bool:
        """A card reached a trick zone. Was it sensed on the table on its way (soon
        before, and at its player's turn or with no other card played meanwhile)? Then
        that was no exposure: it leaves the table group (True)."""
        if not self.incidents.groups:  # (nearly every card played: nothing it crossed)
            self.last_trick_t = o.t
            return False
        transit = False
        for g in self.incidents.groups:
            if g.kind == "table" and any(
                    x.card == o.card and o.t - x.t <= self.tuning.transit_ms
                    and (x.t >= self.last_trick_t or x.card in self._on_turn) for x in g.items):
                transit = True
        if transit:
            self.incidents.drop("table", o.card)
            self.noise[o.seat]["transit"] += 1
        self.last_trick_t = o.t
        return transit

    def on_table(self, o: Observe, at_turn: bool) -> None:
        """A card came to rest face up on the table; at its player's turn it may be a play
        crossing the table: the open trick waits ``transit_ms`` for it."""
        if at_turn:
            self._on_turn.add(o.card)
            self.incidents.widen_tricks(o.t + self.tuning.transit_ms)
        else:
            self._on_turn.discard(o.card)


__all__ = ["NOISE_COUNTERS", "SensingFilter", "Tuning"]
