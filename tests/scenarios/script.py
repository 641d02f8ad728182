"""A small script language for writing scenario journals by hand.

Golden scenarios are journals (``NAME.jsonl``) plus the rulings they must
replay to (``NAME.rulings.jsonl``). Writing 50 observations a board by hand
is error-prone, so the journals are produced by short scripts in
``make_*.py``; the journals themselves are committed and are what the tests
read. Time advances by itself: 1.5 s between actions, 40 ms between the
cards of one gesture (a dummy being spread, a hand thrown).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DEAL = {
    "N": ["ST", "S2", "HA", "HQ", "H6", "H4", "H3", "DA", "D5", "D2", "C7", "C6", "C3"],
    "E": ["SK", "SJ", "S6", "H7", "DK", "DJ", "D6", "CK", "CT", "C9", "C8", "C5", "C4"],
    "S": ["S9", "S8", "S7", "S5", "S3", "HJ", "HT", "H2", "DQ", "DT", "CA", "CQ", "C2"],
    "W": ["SA", "SQ", "S4", "HK", "H9", "H8", "H5", "D9", "D8", "D7", "D4", "D3", "CJ"],
}


def output_dir(code: str) -> Path:
    """Where a generator writes ``code``'s journals: ``tests/scenarios/<code>/``, or
    ``DIR/<code>/`` with ``--out DIR`` (tests/test_scenario_generators.py re-runs them)."""
    root = Path(__file__).parent
    if "--out" in sys.argv[1:]:
        root = Path(sys.argv[sys.argv.index("--out") + 1])
    return root / code


class Script:
    def __init__(self, code: str, table: str = "1", board: int = 1, dealer: str | None = "N",
                 vul: str = "None", t0: int = 1000) -> None:
        self.lines: list[dict[str, Any]] = []
        self.t = t0
        self.code = code
        ev: dict[str, Any] = {"type": "board", "table": table, "board": board}
        if dealer is not None:
            ev["dealer"] = dealer
        ev["vul"] = vul
        ev["code"] = code
        self.event(ev)

    def event(self, ev: dict[str, Any], gap: int = 1500) -> Script:
        obj = {"v": 1, "t": self.t}
        obj.update(ev)
        self.lines.append(obj)
        self.t += gap
        return self

    def wait(self, ms: int) -> Script:
        self.t += ms
        return self

    def obs(self, seat: str, card: str, zone: str, face: str = "up", level: str = "at",
            seen_by: list[str] | None = None, gap: int = 1500, **extra: Any) -> Script:
        ev: dict[str, Any] = {"type": "observe", "seat": seat, "card": card, "zone": zone,
                              "face": face, "level": level}
        if seen_by is not None:
            ev["seen_by"] = seen_by
        ev.update(extra)
        return self.event(ev, gap)

    # -- board steps ------------------------------------------------------------
    def setup(self, step: str) -> Script:
        return self.event({"type": "setup", "step": step})

    def dealt(self, hands: dict[str, list[str]] | None = None, **extra: Any) -> Script:
        ev: dict[str, Any] = {"type": "dealt", "hands": hands or DEAL}
        ev.update(extra)
        return self.event(ev)

    def auction(self, calls: str, first: str = "N") -> Script:
        order = "NESW"
        seat = first
        for call in calls.split():
            self.event({"type": "call", "seat": seat, "call": call}, 2000)
            seat = order[(order.index(seat) + 1) % 4]
        return self

    def declare(self, seat: str, strain: str) -> Script:
        return self.event({"type": "declare", "seat": seat, "strain": strain})

    def call(self, seat: str, call: str) -> Script:
        return self.event({"type": "call", "seat": seat, "call": call}, 2000)

    def play(self, plays: str) -> Script:
        """``"E:CK S:CA W:CJ N:C3"``: cards arriving face up in trick zones."""
        for p in plays.split():
            seat, card = p.split(":")
            self.obs(seat, card, "trick")
        return self

    def quit(self, plays: str) -> Script:
        """Turn the four cards of a trick face down in front of their players."""
        for p in plays.split():
            seat, card = p.split(":")
            self.obs(seat, card, "table", "down", gap=40)
        self.t += 1460
        return self

    def trick(self, plays: str) -> Script:
        return self.play(plays).wait(-300).quit(plays)

    def spread(self, seat: str, cards: list[str]) -> Script:
        for c in cards:
            self.obs(seat, c, "table", gap=40)
        self.t += 1460
        return self

    def drop(self, seat: str, card: str, zone: str = "table", **kw: Any) -> Script:
        return self.obs(seat, card, zone, **kw)

    def together(self, seat: str, cards: list[str], faces: list[str] | None = None,
                 seen: list[list[str] | None] | None = None) -> Script:
        for i, c in enumerate(cards):
            face = faces[i] if faces else "up"
            sb = seen[i] if seen else None
            self.obs(seat, c, "trick", face, seen_by=sb, gap=50)
        self.t += 1450
        return self

    def cmd(self, kind: str, **fields: Any) -> Script:
        ev: dict[str, Any] = {"type": kind}
        ev.update(fields)
        return self.event(ev)

    def write(self, path: Path) -> None:
        path.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in self.lines))


def remaining(hands: dict[str, list[str]], played: list[str]) -> dict[str, list[str]]:
    return {s: [c for c in cs if c not in played] for s, cs in hands.items()}
