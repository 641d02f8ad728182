"""Honest readers for one table, on one timetable: benchmarks/dashboard_latency.py's rig.

Four RFID seat readers are the reader firmware in the MicroPython VM on the
simulated PN5180 (``tablesense.sim.firmware.start_reader``: air time, the
scan schedule, the table's debounce), each behind a pty; the camera board
is the vision pipeline on rendered frames (``tablesense.vision.reader``),
covering the four seats. All play one timetable on the wall clock: scenario
time 0 is ``epoch_ms`` (ms since the Unix epoch), so a card "lands" at a
known instant and everything after it is measured from there.

Per board ``b`` (0-based), at ``board_at(b)``: East's opening lead lands
face up on East's trick antenna; ``PENALTY_AFTER_MS`` later West drops an
honour face up on the table in front of him (RFID senses it on the table
loop, the camera sees its face); ``CLEAR_AFTER_MS`` after the lead both are
picked up (gone), before the next board's deal.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tablesense.contract.vocab import SEATS

BOARD_MS = 7000
FIRST_MS = 20000  # the first lead: VMs booted, the daemon up, Chromium on the page
PENALTY_AFTER_MS = 1500
CLEAR_AFTER_MS = 4000
TABLE_DEBOUNCE_MS = 20  # the table's profile (firmware/main.py DEBOUNCE_MS)
SETUP_MS = 2500  # a board is set up (commands, the page) this long before its lead lands


def board_at(b: int) -> int:
    return FIRST_MS + b * BOARD_MS


def honour(hand: list[str]) -> str:
    return next((c for c in hand if c[1] in "AKQJ"), hand[0])


def timetable(deals: list[dict[str, list[str]]]) -> list[dict[str, Any]]:
    """The scenario lines of the boards dealt ``deals`` (seat, card, zone, face, t)."""
    lines: list[dict[str, Any]] = []
    for b, hands in enumerate(deals):
        t = board_at(b)
        lead, drop = hands["E"][0], honour(hands["W"])
        lines.append({"t": t, "seat": "E", "card": lead, "zone": "trick", "face": "up",
                      "level": "at"})
        lines.append({"t": t + PENALTY_AFTER_MS, "seat": "W", "card": drop, "zone": "table",
                      "face": "up", "level": "at"})
        for seat, card in (("E", lead), ("W", drop)):
            lines.append({"t": t + CLEAR_AFTER_MS, "seat": seat, "card": card, "zone": "gone"})
    lines.sort(key=lambda e: int(e["t"]))
    return lines


class HonestReaders:
    """The five readers of ``lines``; ``config()`` is the daemon's ``readers`` table."""

    def __init__(self, lines: list[dict[str, Any]], work: Path) -> None:
        from tablesense.sim.firmware import start_reader
        from tablesense.vision.reader import vision_core, vision_reader

        core = vision_core(lines)  # calibrates its cameras first (about a second)
        self.epoch_ms = int(time.time() * 1000)
        zero = time.monotonic() - (time.time() - self.epoch_ms / 1000)
        self.rfid = {}
        for s in SEATS:
            path = work / f"rfid-{s}.jsonl"
            path.write_text("".join(json.dumps(e) + "\n" for e in lines))
            self.rfid[s] = start_reader(s, path, debounce_ms=TABLE_DEBOUNCE_MS,
                                        epoch_ms=self.epoch_ms, serial=f"SIM-{s}")
        self.camera = vision_reader(core, zero=zero, serial="CAM-1")

    def config(self) -> dict[str, Any]:
        out: dict[str, Any] = {s: {"port": r.port} for s, r in self.rfid.items()}
        out["camera"] = {"port": self.camera.port, "seats": list(SEATS)}
        return out

    def wall_ms(self, t: int) -> int:
        """Scenario time ``t`` on the wall clock (ms since the Unix epoch)."""
        return self.epoch_ms + t

    def close(self) -> None:
        for r in self.rfid.values():
            r.stop()
        self.camera.stop()


def host_arrivals(journal_dir: Path) -> dict[tuple[str, str, str], list[int]]:
    """(card, zone, face) -> the host's receive times (ms, the journal's ``t``) of the
    observations of it, in order, over the daemon's journals (face ``any``: whatever
    the face)."""
    out: dict[tuple[str, str, str], list[int]] = {}
    for path in sorted(journal_dir.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") != "observe":
                continue
            for face in (e.get("face", "unknown"), "any"):
                out.setdefault((e["card"], e.get("zone", ""), face), []).append(int(e["t"]))
    for v in out.values():
        v.sort()
    return out


def first_after(times: list[int] | None, t_ms: float) -> int | None:
    """The first of ``times`` (ms) at or after ``t_ms``, or None."""
    return next((t for t in times or () if t >= t_ms), None)
