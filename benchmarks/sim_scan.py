"""Scan time on the simulated RFID hardware (virtual clock), for BENCHMARKS.md.

    .venv/bin/python benchmarks/sim_scan.py [--chip pn5180|mfrc522]

A steady scan of the firmware's RfidScanner over the sim's chips (trick,
table, floor; one field at a time), in CPython: the virtual ms each scan
takes, with the SPI overhead and the settle time as modelled, and with each
set to 0 (what remains is air time: for the PN5180 also the BUSY and GPIO
costs set to 0 and the driver's IRQ polls ending exactly when the chip
raises the IRQ). ``--chip``: the table build's PN5180 (ISO/IEC 15693,
ICODE SLIX2; the default) or the bench build's MFRC522s (ISO/IEC 14443A).
Then a whole board on a table (firmware/sim/table.py: four boards' firmware on
one air whose fields couple as the field model says, the floor mats in their
two slots): from each of the 52 cards landing on a trick antenna to its
OBSERVE, with dummy's 13 cards spread and each trick heaped on the leader's
trick antenna. The last line is one JSON object: ``landing_to_observe_ms``
(p50, p95, p99, max), ``clashes``, ``missed`` (cards never reported on the
trick). Deterministic: the same every run. These are simulated figures, not
measurements of a board.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tablesense.firmware.build import place_shared

ROOT = Path(__file__).resolve().parents[1]
# the firmware imports its shared modules flat, as on the board (tablesense.firmware.build)
sys.path[:0] = [str(ROOT / "firmware"),
                str(place_shared(Path(tempfile.mkdtemp(prefix="ts-shared-"))))]

import sim.pn5180_chip as pc  # noqa: E402
import sim.rc522 as rc  # noqa: E402
from cards import CardMap  # noqa: E402
from reader import Reader  # noqa: E402
from sim.main import ZONES, rfid_hardware  # noqa: E402
from sim.world import WDT, World  # noqa: E402
from zones import RfidScanner  # noqa: E402

# the table's profile, as the board runs it (firmware/main.py)
SLOTS, SLOT_MS, DEBOUNCE_MS = 2, 18, 20


class Null:
    def write(self, b: bytes) -> int:
        return len(b)


CHIP = "pn5180"


def scan_ms(table_cards: int, spi_call_us: float = 20, settle_ms: int = 5) -> float:
    saved = (rc.SPI_CALL_US, pc.SPI_CALL_US, pc.SPI_BYTE_US, pc.BUSY_US, pc.PIN_US,
             pc.RF_SWITCH_US)
    rc.SPI_CALL_US = pc.SPI_CALL_US = spi_call_us
    if not spi_call_us:  # the host interface costs nothing: air time (and settle) only
        pc.SPI_BYTE_US = pc.BUSY_US = pc.PIN_US = pc.RF_SWITCH_US = 0
    try:
        dummy = [s + r for s in "SH" for r in "AKQJT98"][:table_cards]
        events: list[dict[str, Any]] = [{"t": 0, "card": c, "zone": "table"} for c in dummy]
        events.append({"t": 0, "card": "C2", "zone": "trick"})
        chips, ants, clock, _ = rfid_hardware(ZONES, chip=CHIP)
        if not spi_call_us:
            for c in chips.values():
                getattr(c, "chip", c).irq_wait = True  # polls end at the IRQ
        world = World("N", events, chips)
        world.advance(0)
        sc = RfidScanner(ants, CardMap(), settle_ms=settle_ms)
        rd = Reader(sc, Null(), None, scan_ms=20, debounce_ms=0, wdt=WDT(),
                    clock=clock.ticks_ms)
        sc.init()

        def settle(ms: int) -> None:
            clock.advance(ms * 1000)

        rd.scan_sync(settle)  # the first scan reads tag memory; steady state after
        t0 = clock.us
        rd.scan_sync(settle)
        return float(clock.us - t0) / 1000
    finally:
        (rc.SPI_CALL_US, pc.SPI_CALL_US, pc.SPI_BYTE_US, pc.BUSY_US, pc.PIN_US,
         pc.RF_SWITCH_US) = saved


def board_lines(pace_ms: int = 800) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """A board on the simulated table: dummy (North) spreads 13 cards on its table loop,
    then 13 tricks, each trick's four cards landing in turn ``pace_ms`` apart on the
    leader's trick antenna (a heap of up to four; dummy's from its table loop), gathered
    ``pace_ms`` after the fourth.
    Returns the scenario lines and, per card, the ms it landed on a trick antenna."""
    deck = [s + r for s in "SHDC" for r in "AKQJT98765432"]
    hands = {seat: deck[13 * k: 13 * k + 13] for k, seat in enumerate("NESW")}
    lines: list[dict[str, Any]] = [{"t": 0, "seat": "N", "card": c, "zone": "table"}
                                   for c in hands["N"]]
    landed: dict[str, int] = {}
    t = 2000
    for trick in range(13):
        leader = "NESW"[trick % 4]
        heap = []
        for k in range(4):
            player = "NESW"[("NESW".index(leader) + k) % 4]
            card = hands[player][trick]
            lines.append({"t": t, "seat": leader, "card": card, "zone": "trick"})
            landed[card] = t
            heap.append(card)
            t += pace_ms
        for card in heap:
            lines.append({"t": t, "seat": leader, "card": card, "zone": "gone"})
        t += pace_ms
    lines.sort(key=lambda e: e["t"])
    return lines, landed


def percentiles(values: list[float]) -> dict[str, float]:
    v = sorted(values)

    def q(p: float) -> float:
        return float(v[min(len(v) - 1, int(p * len(v)))])

    return {"p50": q(0.5), "p95": q(0.95), "p99": q(0.99), "max": float(v[-1]), "n": len(v)}


def board_latency(coupled: Any = "model") -> dict[str, Any]:
    """The board of ``board_lines`` through four boards' firmware on one air, with the
    table's profile (firmware/main.py: scan_ms 20, debounce_ms DEBOUNCE_MS, two floor
    slots of SLOT_MS): landing to OBSERVE per card, clashes, cards never reported."""
    from sim.layout import COUPLED
    from sim.table import run

    lines, landed = board_lines()
    obs, stats = run(lines, slots=SLOTS, slot_ms=SLOT_MS, debounce_ms=DEBOUNCE_MS,
                     chip=CHIP, coupled=COUPLED if coupled == "model" else coupled)
    first: dict[str, int] = {}
    for seat in "NESW":
        for o in obs[seat]:
            if o["zone"] == "trick" and o["card"] in landed:
                first.setdefault(o["card"], o["rt"] - landed[o["card"]])
    lat = [float(v) for v in first.values()]
    return {"landing_to_observe_ms": percentiles(lat), "clashes": int(stats["clashes"]),
            "missed": len(set(landed) - set(first)), "landings": len(landed),
            "overruns": stats["overruns"]}


def main() -> None:
    global CHIP
    if "--chip" in sys.argv:
        CHIP = sys.argv[sys.argv.index("--chip") + 1]
    print(f"chip: {CHIP}")
    rows = [
        ("13 cards on the table, 1 on the trick", scan_ms(13)),
        ("the same, SPI overhead 0", scan_ms(13, 0)),
        ("the same, SPI overhead 0 and no settle: air time alone", scan_ms(13, 0, 0)),
        ("5 cards on the table, 1 on the trick", scan_ms(5)),
        ("no card on the table, 1 on the trick", scan_ms(0)),
    ]
    for name, ms in rows:
        print(f"one scheduled scan (the trick, then the next antenna's turn), {name}: "
              f"{ms:.1f} ms (simulated)")
    result = board_latency()
    print(f"a board (dummy's 13 cards spread, tricks heaped on the leader's trick antenna), "
          f"two floor slots of {SLOT_MS} ms, debounce {DEBOUNCE_MS} ms (simulated):")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
