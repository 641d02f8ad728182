"""A table's session as a timetable: what the readers sense and what the host is told, when.

Pure (no I/O, no clock): the robots (tablesense.sim.robots) play whole boards as
journal events; this turns them into *steps* on the table's demo clock (ms
from the moment its readers started), of two kinds:

* ``reader`` steps: a card's new (zone, face, level, seen_by) at one seat.
  They become the readers' scenario (the VM's or the Python simulator's),
  so observations travel the whole path: sensor -> firmware -> frames ->
  link -> journal -> engine.
* ``host`` steps: ``board``, ``dealt`` (trusted, in-process: a dealing
  machine), ``call`` and ``decide`` (commands, as a bidding box or the
  dashboard would send them).

The robots' own times (1.5 s a card) are divided by ``speed``, then spread
where the path needs room, whatever the speed: a reader reports a change
one scan and a debounce after it happens (20 + 40 ms), four readers have
four clocks, and the engine groups arrivals by time (two cards in one
seat's trick zone within 300 ms were played together). So:

* a host step waits ``HOST_TO_READER_MS`` before the next reader step
  (the opening lead comes after the final pass has been applied), and a
  reader step ``READER_TO_HOST_MS`` before the next host step;
* two changes of one card are ``SAME_CARD_MS`` apart: the debounce would
  merge them, and a card turned where it lies (shown face up in the hand)
  is reported only after debounce plus hold time, 40 + 150 ms, and a scan
  or two (tablesense/onboard/debounce.py); one seat's trick arrivals
  ``SAME_SEAT_TRICK_MS`` apart; a card dropped face up on the table is
  played ``EXPOSED_TO_PLAY_MS`` later at the soonest (sooner, the tracker
  would take the drop for the card crossing the table on its way to the
  trick);
* dummy's cards go face up ``SPREAD_AFTER_LEAD_MS`` after the opening lead
  (once the lead is faced they are the display, not an exposure);
* a ``decide`` that answers a mishap waits for the ruling
  (``wait_ruling``) and at least ``DECIDE_AFTER_MS``.

Between boards every card a reader senses goes ``gone`` (the cards are
gathered), then the next board starts; its hands are sensed face down
before its ``dealt``.

>>> tl = table_timeline("1", boards=1, seed=7, speed=20)
>>> tl.steps[0].kind, tl.steps[0].event["type"], tl.boards
('host', 'board', 1)
>>> all(a.at <= b.at for a, b in zip(tl.steps, tl.steps[1:]))
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tablesense.contract import vocab
from tablesense.engine.sensing import Tuning
from tablesense.sim.robots import MISHAPS, Board

SEATS: tuple[str, ...] = vocab.SEATS
ROBOT_STEP_MS = 1500
START_MS = 1500
HOST_TO_HOST_MS = 25
HOST_TO_READER_MS = 400
READER_TO_HOST_MS = 300
READER_MIN_MS = 100
# a card face up on the table that reaches the trick within the tracker's transit time
# was a play crossing the table antenna: a robot's dropped card is played at least
# this long after it fell (with 300 ms for the readers' latency)
EXPOSED_TO_PLAY_MS = Tuning().transit_ms + 300
SAME_CARD_MS = 280  # > 40 + 150 ms debounce and hold, and 4 scans of 20 ms
SAME_SEAT_TRICK_MS = 450
SPREAD_AFTER_LEAD_MS = 500
DECIDE_AFTER_MS = 700
HANDS_TO_DEALT_MS = 500
BOARD_GAP_MS = 600
BURST_ROBOT_MS = 40  # robot events this close are one movement (a trick turned, dummy spread)


@dataclass(frozen=True)
class Step:
    """One thing that happens at ``at`` ms on the table's demo clock."""

    at: int
    kind: str  # "reader" or "host"
    board: int
    event: dict[str, Any]  # reader: a scenario line (seat, card, zone, ...); host: an event
    trusted: bool = False  # host: admitted in-process only (dealt)
    wait_ruling: bool = False  # host: send only once the engine has made a new ruling
    readers_before: int = 0  # host: reader steps that come before it (the barrier count)


@dataclass
class Timeline:
    table: str
    steps: list[Step] = field(default_factory=list)
    boards: int = 0
    mishaps: list[tuple[int, str]] = field(default_factory=list)  # (board, mishap)

    def scenario(self, seat: str) -> list[dict[str, Any]]:
        """The reader steps of ``seat`` as scenario lines (``t`` = ``at``)."""
        return [{"t": s.at, **s.event} for s in self.steps
                if s.kind == "reader" and s.event["seat"] == seat]

    @property
    def duration_ms(self) -> int:
        return self.steps[-1].at if self.steps else 0

    def board_ends(self) -> dict[int, int]:
        """Board number -> ``at`` of its last step."""
        out: dict[int, int] = {}
        for s in self.steps:
            out[s.board] = s.at
        return out


class _Builder:
    def __init__(self, table: str, speed: float) -> None:
        self.tl = Timeline(table)
        self.speed = speed
        self.at = START_MS
        self.last_kind = ""
        self.last_robot_t: int | None = None
        self.card_at: dict[str, int] = {}
        self.trick_at: dict[str, int] = {}
        self.state: dict[tuple[str, str], tuple[Any, ...]] = {}  # (seat, card) -> sensed state
        self.readers = 0
        self.last_lead_at = -10**9
        self.first_lead_done = False

    def _place(self, kind: str, robot_t: int | None, minimum: int) -> int:
        natural = 0
        if robot_t is not None and self.last_robot_t is not None:
            natural = int(max(0, robot_t - self.last_robot_t) / self.speed)
            if robot_t - self.last_robot_t <= BURST_ROBOT_MS and kind == self.last_kind == "reader":
                natural = 0
        gap = max(natural, minimum)
        if robot_t is not None:
            self.last_robot_t = robot_t
        self.at += gap
        self.last_kind = kind
        return self.at

    def host(self, board: int, event: dict[str, Any], robot_t: int | None = None,
             trusted: bool = False, wait_ruling: bool = False, minimum: int = 0) -> None:
        floor = {"host": HOST_TO_HOST_MS, "reader": READER_TO_HOST_MS}.get(self.last_kind, 0)
        at = self._place("host", robot_t, max(floor, minimum))
        self.tl.steps.append(Step(at, "host", board, event, trusted, wait_ruling, self.readers))

    def reader(self, board: int, line: dict[str, Any], robot_t: int | None = None,
               minimum: int = 0, burst: bool = False) -> None:
        seat, card = line["seat"], line["card"]
        key = (seat, card)
        sensed = (line["zone"], line.get("face"), line.get("level"),
                  tuple(line["seen_by"]) if "seen_by" in line else None)
        if self.state.get(key) == sensed:
            return  # no change: a reader reports nothing
        floor = minimum
        if self.last_kind == "host":
            floor = max(floor, HOST_TO_READER_MS)
        elif self.last_kind == "reader" and not burst:
            floor = max(floor, READER_MIN_MS)
        at = self._place("reader", robot_t, floor)
        # spread where one card, or one seat's trick zone, needs room
        at = max(at, self.card_at.get(card, -10**9) + SAME_CARD_MS)
        was = self.state.get(key)
        if line["zone"] == "trick" and was is not None and was[0] == "table" and was[1] == "up":
            at = max(at, self.card_at[card] + EXPOSED_TO_PLAY_MS)
        if line["zone"] == "trick":
            at = max(at, self.trick_at.get(seat, -10**9) + SAME_SEAT_TRICK_MS)
            self.trick_at[seat] = at
        self.at = at
        self.card_at[card] = at
        if line["zone"] == "gone":
            self.state.pop(key, None)
        else:
            self.state[key] = sensed
        self.readers += 1
        self.tl.steps.append(Step(at, "reader", board, line))

    def gather(self, board: int) -> None:
        """Every card a reader senses goes away: the board is over."""
        first = True
        for (seat, card) in sorted(self.state):
            self.reader(board, {"seat": seat, "card": card, "zone": "gone"},
                        minimum=BOARD_GAP_MS if first else 0, burst=not first)
            first = False


def _sensed(ev: dict[str, Any]) -> dict[str, Any]:
    line = {"seat": ev["seat"], "card": ev["card"], "zone": ev["zone"],
            "face": ev.get("face", "unknown"), "level": ev.get("level", "unknown")}
    if "seen_by" in ev:
        line["seen_by"] = list(ev["seen_by"])
    return line


def table_timeline(table: str, boards: int, seed: int, speed: float = 1.0,
                   mishap_rate: float = 0.5, code: str | None = None) -> Timeline:
    """``boards`` robot boards at ``table``, as a timeline (the same for the same arguments)."""
    if speed <= 0:
        raise ValueError("speed must be positive")
    rng = random.Random(f"{seed}/{table}")
    b = _Builder(table, speed)
    for n in range(1, boards + 1):
        mishap = rng.choice(MISHAPS) if rng.random() < mishap_rate else None
        if mishap:
            b.tl.mishaps.append((n, mishap))
        robot = Board(table, n, random.Random(rng.random()), step=ROBOT_STEP_MS, code=code,
                      mishap=mishap)
        b.last_robot_t = None
        b.first_lead_done = False
        for ev in robot.events():
            kind, rt = ev["type"], int(ev["t"])
            body = {k: v for k, v in ev.items() if k not in ("v", "t")}
            if kind == "board":
                b.host(n, body, rt, minimum=BOARD_GAP_MS if n > 1 else 0)
            elif kind == "dealt":
                hands = ev["hands"]
                first = True
                for seat in SEATS:
                    for card in hands[seat]:
                        b.reader(n, {"seat": seat, "card": card, "zone": "hand", "face": "down",
                                     "level": "above"}, burst=not first)
                        first = False
                b.host(n, body, trusted=True, minimum=HANDS_TO_DEALT_MS)
            elif kind == "observe":
                line = _sensed(ev)
                minimum = 0
                spread = (line["zone"] == "table" and line["face"] == "up"
                          and b.first_lead_done and b.at - b.last_lead_at < SPREAD_AFTER_LEAD_MS)
                if spread:
                    minimum = SPREAD_AFTER_LEAD_MS - (b.at - b.last_lead_at)
                burst = b.last_kind == "reader" and b.last_robot_t is not None \
                    and rt - b.last_robot_t <= BURST_ROBOT_MS and not spread
                b.reader(n, line, rt, minimum=minimum, burst=burst)
                if line["zone"] == "trick" and not b.first_lead_done:
                    b.first_lead_done = True
                    b.last_lead_at = b.at
            elif kind == "decide":
                answers_mishap = body.get("option") == "accept-lead"
                b.host(n, body, rt, wait_ruling=answers_mishap,
                       minimum=DECIDE_AFTER_MS if answers_mishap else 0)
            else:
                b.host(n, body, rt)
        b.gather(n)
        b.tl.boards = n
    return b.tl
