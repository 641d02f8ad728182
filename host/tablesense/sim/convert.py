"""A journal becomes a simulated table: per-seat reader scenarios plus the commands.

A journal (docs/contract.md) records what the host made of a board: ``observe``
events from the four readers, and the events that come from elsewhere
(``board``, ``dealt``, ``call``, ``claim``, ``decide`` ...). To run that board
through the real firmware (``tablesense.sim.firmware``), the observations
become *scenario lines* that move the cards' tags between the antennas of the
seat's simulated reader, and everything else becomes *commands* that the
test (or the table builder, or the demo) gives the daemon at the same moment::

    plan = plan_from_journal("board.jsonl", max_gap_ms=500)
    plan.write("table.jsonl")          # one file: the sim takes its seat's lines
    for seat in SEATS:
        start_reader(seat, "table.jsonl", kind=plan.kinds[seat])
    for t, cmd in plan.commands:       # t: ms after the readers booted
        ...

Conventions the conversion keeps (docs/contract.md, hardware/README.md):

* **The deal.** A journal whose ``dealt`` names the hands need not observe
  them; the readers do see them, so each seat's 13 cards are put in its
  ``hand`` (face down, above) when the players pick them up: shortly before
  the first call, play or claim after ``dealt`` (not before a ``decide``:
  under some codes a player who has looked at his cards may no longer claim
  a new deal; a deal abandoned for a new one is never picked up), except the cards the
  journal observed since the deal began (they stay where it says), and a
  card dealt to another seat than the reader that had it leaves that reader
  (``gone``). A ``board`` or ``setup`` event collects the cards the readers
  still sense (``gone``: back to the pack). Otherwise the journal's
  observations are taken as they are: a
  card that two readers sense at once is a sensor conflict in the sim too.
* **Reader kinds.** An RFID reader cannot see a face: it reports ``hand`` as
  face down, ``trick`` as face up and ``table``/``floor`` as face
  ``unknown``, never ``seen_by``, and it cannot tell ``detached`` from
  ``hand``. Seats get a camera reader where the board would otherwise rule
  differently (:func:`choose_kinds`: the modelled readers are replayed
  through the engine); give ``kinds`` to choose. What the engine then sees
  from an RFID seat is explicit in :meth:`TablePlan.expected_journal`: the
  dummy's spread is ``table``/``unknown`` (still the display once the
  opening lead is faced); a quitted card is ``table``/``unknown``, which
  the engine takes as the card leaving the trick zone (no ruling; the next
  lead quits the trick); and a card dropped face up on the table is
  ``unknown``: no face shown, so nothing is ruled on it (a camera's
  question, docs/architecture.md "Honest readers").
* **Time.** Scenario times count from the readers' boot: the first event
  comes at ``lead_in_ms`` (time for the VMs to boot and the host to
  configure them). Gaps up to ``short_ms`` (the 40 ms between the cards of
  one gesture) are kept; longer pauses are shortened to ``max_gap_ms`` (no
  compression when None) but never so much that the engine's windows change
  what happened: two arrivals in trick zones that were more than 300 ms
  apart stay more than 300 ms + ``margin_ms`` apart, face-up arrivals on one
  seat's table more than 1 s apart stay more than 1 s + ``margin_ms`` apart,
  a card's own moves stay on the same side of each of the tracker's
  per-card windows (:func:`card_windows`, or ``windows``) with ``margin_ms``
  to spare, and at least ``card_ms`` apart (the firmware debounces each
  card: moves closer than that are reported as the last).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablesense.engine.incidents import THROWN_MS, TOGETHER_MS
from tablesense.engine.sensing import Tuning
from tablesense.sim.firmware import SEATS, expected_timeline

KINDS = ("rfid", "camera")


def card_windows() -> tuple[int, ...]:
    """The host tracker's windows on one card's own moves (ms), smallest first.

    A move that comes within such a window of the card's previous one means
    something else than a later one (a flicker across a zone boundary, a card
    passing over the table on its way to the trick, a dropout), so the time
    compression keeps each card's gaps on the same side of every window.
    """
    found: set[int] = set()
    defaults = vars(Tuning())
    for name, value in defaults.items():
        if name.endswith("_ms") and isinstance(value, int) and value > 0:
            found.add(value)
    return tuple(sorted(found))


OBSERVE_FIELDS = ("seat", "card", "zone", "face", "level", "seen_by", "conf")
HAND = {"zone": "hand", "face": "down", "level": "above"}
# events that do not need the players to have picked up their cards
NOT_PLAY = frozenset(("dealt", "decide", "resolve", "named", "object"))


@dataclass
class TablePlan:
    """One board for four simulated readers.

    ``lines`` are journal-format dicts in scenario time (ms after the readers
    boot), in order: ``observe`` lines for the readers (each reader takes its
    own seat's) and the other events, which are commands for the daemon.
    ``source_t`` maps each line's index to the journal time it came from
    (None for the synthesised hand).
    """

    lines: list[dict[str, Any]]
    kinds: dict[str, str]
    source_t: list[int | None] = field(default_factory=list)

    @property
    def commands(self) -> list[tuple[int, dict[str, Any]]]:
        """``(scenario ms, event without v and t)`` for everything that is not an observation."""
        return [(int(e["t"]), {k: v for k, v in e.items() if k not in ("v", "t")})
                for e in self.lines if e["type"] != "observe"]

    def seat_lines(self, seat: str) -> list[dict[str, Any]]:
        """The scenario lines of one seat's reader."""
        return [e for e in self.lines if e["type"] == "observe" and e["seat"] == seat]

    @property
    def duration_ms(self) -> int:
        return int(self.lines[-1]["t"]) if self.lines else 0

    def write(self, path: str | os.PathLike[str]) -> Path:
        """The whole table as one scenario file (the sim skips lines not of its seat)."""
        p = Path(path)
        kinds = " ".join(f"{s}={self.kinds[s]}" for s in SEATS)
        text = [f"# tablesense sim scenario (t: ms after the readers boot); readers {kinds}"]
        text += [json.dumps(e, separators=(",", ":")) for e in self.lines]
        p.write_text("\n".join(text) + "\n")
        return p

    def expected_timeline(self, seat: str) -> list[tuple[int, dict[str, Any]]]:
        """What the seat's reader reports, and when (scenario ms), by its kind."""
        return expected_timeline(self.seat_lines(seat), seat, self.kinds[seat])

    def observations_before(self) -> list[int]:
        """For each of :attr:`commands`, how many observations the host has before it.

        (Counted in :meth:`expected_journal`: a feeder can wait for them so that
        a command never overtakes the observations it follows.)
        """
        out: list[int] = []
        n = 0
        for e in self.expected_journal():
            if e["type"] == "observe":
                n += 1
            else:
                out.append(n)
        return out

    def expected_journal(self, latency_ms: int = 100) -> list[dict[str, Any]]:
        """The journal the host should end up with, observations as the readers report them.

        Observations are placed ``latency_ms`` after their scenario time (a
        scan, the debounce and the link); commands at theirs. Replaying it is
        what the board should come to through the real firmware.
        """
        timed: list[tuple[int, int, int, dict[str, Any]]] = []
        for n, e in enumerate(self.lines):
            if e["type"] != "observe":
                timed.append((int(e["t"]), 0, n, {k: v for k, v in e.items() if k != "t"}))
        for seat in SEATS:
            for t, obs in self.expected_timeline(seat):
                timed.append((t + latency_ms, 1, len(timed),
                              {"v": 1, "type": "observe", **obs}))
        timed.sort(key=lambda x: (x[0], x[1], x[2]))
        return [{"v": 1, "t": t, **{k: v for k, v in ev.items() if k != "v"}}
                for t, _, _, ev in timed]


def read_journal_lines(source: str | os.PathLike[str] | Iterable[Mapping[str, Any]]
                       ) -> list[dict[str, Any]]:
    """Journal objects from a file (blank, ``#`` and ``rejected`` lines skipped) or dicts."""
    if isinstance(source, str | os.PathLike):
        out: list[dict[str, Any]] = []
        for n, line in enumerate(Path(source).read_text().splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{source}:{n}: not JSON: {err}") from err
            if not isinstance(obj, dict) or "type" not in obj:
                raise ValueError(f"{source}:{n}: not a journal event")
            out.append(obj)
    else:
        out = [dict(e) for e in source]
    return [e for e in out if e.get("type") != "rejected"]


def needs_camera(observations: Iterable[Mapping[str, Any]]) -> bool:
    """Do these observations say what an RFID reader cannot sense at all?

    (``seen_by``, ``conf``, ``detached``, a card turned face up in the hand.)
    Faces elsewhere an RFID reader reports by its zone (``hand`` down,
    ``trick`` up, else ``unknown``); whether that changes a ruling is for
    :func:`choose_kinds` to find out.
    """
    for o in observations:
        if o.get("seen_by") is not None or o.get("conf") is not None:
            return True
        if o.get("zone") == "detached":
            return True
        if o.get("zone") == "hand" and o.get("face") == "up":
            return True
    return False


RULING_KEYS = ("kind", "offender", "cards", "options", "until", "severity")


def _rulings(lines: Iterable[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
    from tablesense.documents.replay import replay_lines  # the engine, only when asked

    out = replay_lines(json.dumps({"v": 1, **e}) for e in lines)
    return [tuple(json.dumps(r.to_json().get(k)) for k in RULING_KEYS)
            for r in out if not isinstance(r, str)]


def choose_kinds(plan: TablePlan, fixed: Mapping[str, str] | None = None) -> dict[str, str]:
    """The fewest camera readers with which the board rules as its journal does.

    Starts from cameras where :func:`needs_camera`, RFID elsewhere, and while
    the modelled readers (:meth:`TablePlan.expected_journal`) give other
    rulings (kind, offender, cards, options, until, severity) than the plan's
    own lines, turns the RFID seat whose camera mends most of the difference
    into a camera. An RFID table loses what only a face tells: a card dropped
    face up (no face shown, no ruling), a face-down
    lead, a trick turned face down (the engine then quits it at the next lead,
    so the last trick's quit and what hangs on it are not seen). ``fixed``
    seats keep the kind given.
    """
    truth = _rulings(plan.lines)
    fixed = dict(fixed or {})
    kinds = {s: fixed.get(s) or ("camera" if needs_camera(plan.seat_lines(s)) else "rfid")
             for s in SEATS}

    def miss(k: dict[str, str]) -> int:
        got = _rulings(TablePlan(plan.lines, k).expected_journal())
        same = sum(1 for a, b in zip(got, truth, strict=False) if a == b)
        return max(len(got), len(truth)) - same

    now = miss(kinds)
    while now:
        rfid = [s for s in SEATS if kinds[s] == "rfid" and s not in fixed]
        if not rfid:
            break
        tried = {s: miss({**kinds, s: "camera"}) for s in rfid}
        best = min(rfid, key=lambda s: tried[s])
        kinds[best] = "camera"
        now = tried[best]
    return kinds


def _observe_line(t: int, src: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"t": t, "type": "observe"}
    for k in OBSERVE_FIELDS:
        if k in src and src[k] is not None:
            out[k] = list(src[k]) if k == "seen_by" else src[k]
    out["card"] = str(out["card"]).upper()
    return out


def plan_from_journal(
    source: str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    *,
    kinds: Mapping[str, str] | None = None,
    lead_in_ms: int = 1000,
    max_gap_ms: int | None = None,
    short_ms: int = TOGETHER_MS,
    margin_ms: int = 200,
    card_ms: int = 250,
    windows: tuple[int, ...] | None = None,
    hand_ms: int = 750,
) -> TablePlan:
    """Convert a journal (file or dicts) into a :class:`TablePlan` (see the module doc).

    ``kinds`` maps seats to ``rfid``/``camera``; seats it leaves out are
    chosen by :func:`choose_kinds` (RFID wherever the board still rules the
    same). ``hand_ms``: how long before the first
    call or play after ``dealt`` (journal time, at most half the pause
    before it) the dealt hands are picked up.
    """
    events = read_journal_lines(source)
    events.sort(key=lambda e: int(e.get("t", 0)))  # stable: journals never go backwards
    if max_gap_ms is not None and max_gap_ms < short_ms + margin_ms:
        raise ValueError(f"max_gap_ms must be at least short_ms + margin_ms "
                         f"({short_ms + margin_ms})")
    for s, k in (kinds or {}).items():
        if s not in SEATS or k not in KINDS:
            raise ValueError(f"kinds: {s}={k}: expected a seat N E S W and rfid or camera")

    # 1. the journal's events plus the synthesised pick-up of the dealt hands, in journal time
    timeline: list[tuple[int, dict[str, Any]]] = []
    synthesised: set[int] = set()
    prev_t: int | None = None
    where: dict[str, tuple[str, str]] = {}  # card -> (seat, zone) as the readers have it
    seen_this_deal: set[str] = set()  # cards the journal observed since board/setup
    dealt: dict[str, list[str]] | None = None  # hands not picked up yet

    def pick_up(t: int) -> None:
        assert dealt is not None and prev_t is not None
        at = t - min(hand_ms, (t - prev_t) // 2)
        for seat in SEATS:
            for card in dealt.get(seat, []):
                card = str(card).upper()
                if card in seen_this_deal or where.get(card) == (seat, "hand"):
                    continue
                old = where.get(card)
                if old is not None and old[0] != seat:  # it was dealt away from there
                    synthesised.add(len(timeline))
                    timeline.append((at, {"type": "observe", "seat": old[0], "card": card,
                                          "zone": "gone"}))
                synthesised.add(len(timeline))
                timeline.append((at, {"type": "observe", "seat": seat, "card": card, **HAND}))
                where[card] = (seat, "hand")

    for e in events:
        t = int(e.get("t", 0))
        kind = e.get("type")
        if kind in ("board", "setup"):
            # the cards go back to the pack (a new board, a new shuffle or deal)
            for card, (seat, _) in sorted(where.items()):
                synthesised.add(len(timeline))
                timeline.append((t, {"type": "observe", "seat": seat, "card": card,
                                     "zone": "gone"}))
            where.clear()
            seen_this_deal.clear()
            dealt = None  # a deal abandoned before anyone looked at the cards
        elif dealt is not None and kind not in NOT_PLAY:
            pick_up(t)
            dealt = None
        if kind == "dealt" and isinstance(e.get("hands"), dict):
            dealt = e["hands"]
        if kind == "observe":
            card = str(e["card"]).upper()
            seen_this_deal.add(card)
            zone = str(e.get("zone", "gone"))
            if zone != "gone":
                where[card] = (str(e["seat"]), zone)
            elif where.get(card, ("", ""))[0] == e["seat"]:
                del where[card]
        timeline.append((t, e))
        prev_t = t
    timeline.sort(key=lambda x: x[0])  # stable

    # 2. journal time -> scenario time, keeping what the engine's windows see
    card_wins = card_windows() if windows is None else windows
    lines: list[dict[str, Any]] = []
    source_t: list[int | None] = []
    last_card: dict[str, tuple[int, int]] = {}  # card -> (journal t, scenario t)
    tricks: list[tuple[int, int]] = []  # trick arrivals (journal t, scenario t)
    tables: dict[str, list[tuple[int, int]]] = {}  # seat -> face-up table arrivals
    t_prev_j: int | None = None
    t_prev_s = lead_in_ms
    for i, (tj, e) in enumerate(timeline):
        if t_prev_j is None:
            ts = lead_in_ms
        else:
            d = tj - t_prev_j
            if d <= short_ms or max_gap_ms is None:
                g = d
            else:
                g = max(short_ms + margin_ms, min(d, max_gap_ms))
            ts = t_prev_s + g
        if e.get("type") == "observe":
            card = str(e["card"]).upper()
            zone = e.get("zone", "gone")
            if card in last_card:
                pj, ps = last_card[card]
                ts = max(ts, ps + min(tj - pj, card_ms))
                below = [w for w in card_wins if tj - pj > w]
                if below:
                    ts = max(ts, ps + max(below) + margin_ms)
            if zone == "trick" and e.get("face") != "down":
                for pj, ps in tricks:
                    if tj - pj > TOGETHER_MS:
                        ts = max(ts, ps + TOGETHER_MS + margin_ms)
            if zone in ("table", "floor") and e.get("face") == "up":
                for pj, ps in tables.get(str(e["seat"]), []):
                    if tj - pj > THROWN_MS:
                        ts = max(ts, ps + THROWN_MS + margin_ms)
        t_prev_j, t_prev_s = tj, ts
        if e.get("type") != "observe":
            lines.append({"v": 1, "t": ts, **{k: v for k, v in e.items() if k not in ("v", "t")}})
            source_t.append(tj)
            continue
        seat = str(e["seat"])
        line = _observe_line(ts, e)
        card = line["card"]
        lines.append(line)
        source_t.append(None if i in synthesised else tj)
        last_card[card] = (tj, ts)
        if line["zone"] == "trick" and line.get("face") != "down":
            tricks = [x for x in tricks if ts - x[1] <= TOGETHER_MS + margin_ms] + [(tj, ts)]
        if line["zone"] in ("table", "floor") and line.get("face") == "up":
            recent = [x for x in tables.get(seat, []) if ts - x[1] <= THROWN_MS + margin_ms]
            tables[seat] = [*recent, (tj, ts)]

    # 3. reader kinds
    plan = TablePlan(lines, dict.fromkeys(SEATS, "rfid"), source_t)
    given = dict(kinds or {})
    plan.kinds = ({s: given[s] for s in SEATS} if all(s in given for s in SEATS)
                  else choose_kinds(plan, given))
    return plan


__all__ = ["TablePlan", "choose_kinds", "needs_camera", "plan_from_journal",
           "read_journal_lines"]
