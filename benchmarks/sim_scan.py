"""Scan time on the simulated RFID hardware (virtual clock), for BENCHMARKS.md.

    .venv/bin/python benchmarks/sim_scan.py [--chip pn5180|mfrc522]

A steady scan of the firmware's RfidScanner over the sim's chips (trick,
table, floor; one field at a time), in CPython: the virtual ms each scan
takes, with the SPI overhead and the settle time as modelled, and with each
set to 0 (what remains is air time: for the PN5180 also the BUSY and GPIO
costs set to 0 and the driver's IRQ polls ending exactly when the chip
raises the IRQ). ``--chip``: the table build's PN5180 (ISO/IEC 15693,
ICODE SLIX2; the default) or the bench build's MFRC522s (ISO/IEC 14443A).
Then a whole table (firmware/sim/table.py: four boards on one air, in their
time slots): from a card landing on a trick antenna to its OBSERVE, 16 plays.
Deterministic: the same every run. These are simulated figures, not
measurements of a board.
"""

from __future__ import annotations

import statistics
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


def table_latency(slot_ms: int, table_cards: int) -> tuple[float, int, int]:
    """(median, max) ms from a card landing on a trick antenna to its OBSERVE, and the
    clashes, for four seats in ``slot_ms`` slots with ``table_cards`` on each table loop."""
    from sim.table import run

    deck = [s + r for s in "SHDC" for r in "AKQJT98765432"]
    lines: list[dict[str, Any]] = []
    landed: dict[str, int] = {}
    for k, seat in enumerate("NESW"):
        for c in deck[13 * k + 7: 13 * k + 7 + table_cards]:
            lines.append({"t": 0, "seat": seat, "card": c, "zone": "table"})
        for j in range(4):
            card, t = deck[13 * k + j], 500 + 1000 * j + 130 * k
            lines.append({"t": t, "seat": seat, "card": card, "zone": "trick"})
            landed[card] = t
    obs, stats = run(lines, slot_ms=slot_ms, until_ms=6000, chip=CHIP)
    lat = [o["rt"] - landed[o["card"]] for s in "NESW" for o in obs[s] if o["zone"] == "trick"]
    return float(statistics.median(lat)), max(lat), int(stats["clashes"])


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
        print(f"{name}: {ms:.1f} ms (simulated)")
    slots = ((100, 0), (100, 6), (70, 0), (70, 6)) if CHIP == "pn5180" else \
        ((40, 0), (70, 0), (70, 6))
    for slot_ms, cards in slots:
        med, worst, clashes = table_latency(slot_ms, cards)
        print(f"table, 4 slots of {slot_ms} ms, {cards} cards on each table loop: landing to "
              f"OBSERVE median {med:.0f} ms, max {worst} ms, {clashes} clashes (simulated)")


if __name__ == "__main__":
    main()
