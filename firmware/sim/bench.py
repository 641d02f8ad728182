"""Cost of one scan of the reader loop in the VM: 13 cards in the hand, 1 on the table.

    MICROPYPATH=firmware:<dir with codec.py>:.frozen micropython firmware/sim/bench.py [scans]

Prints ``scan_ms=<ms a scan> frames=<RF frames a scan> spi=<SPI transfers a scan>``:
what the sim's Python costs per scan on this machine, and the RF/SPI work a
real board would do for the same scan (the latency budget in hardware/README.md).
"""

import gc
import sys
import time

from cards import CardMap
from level import AdcLevel
from mfrc522 import MFRC522SPI
from reader import Reader
from zones import RfidScanner

from sim.bus import SimSPI
from sim.rc522 import SimMFRC522
from sim.world import WDT, SimADC, World


class Null:
    def write(self, b):
        return len(b)


class Canned:
    kind = "rfid"
    capabilities = ()
    reads = errors = 0

    def __init__(self, seen):
        self.seen = seen

    def begin(self):
        return 0

    def scan(self):
        return self.seen

    def held(self):
        return ()

    def take_faults(self):
        return []


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    hand = [s + r for s in "SH" for r in "AKQJT98"][:13]
    events = [{"t": 0, "card": c, "zone": "hand"} for c in hand]
    events.append({"t": 0, "card": "C2", "zone": "table"})
    spi = SimSPI()
    chips = {z: SimMFRC522(z) for z in ("hand", "table", "trick")}
    world = World("N", events, chips)
    world.advance(0)
    ants = [(z, MFRC522SPI(spi, spi.attach(chips[z]))) for z in ("hand", "table", "trick")]
    sc = RfidScanner(ants, CardMap(), AdcLevel(SimADC(world)), settle_ms=0)
    rd = Reader(sc, Null(), None, scan_ms=20, debounce_ms=0, wdt=WDT())
    sc.init()
    sc.begin()
    rd.finish_scan()  # first scan learns the tags (NTAG READ); steady state after
    f0 = sum(c.frames for c in chips.values())
    s0 = spi.transfers
    t0 = time.ticks_us()
    for _ in range(n):
        sc.begin()
        rd.finish_scan()
    dt = time.ticks_diff(time.ticks_us(), t0)
    frames = (sum(c.frames for c in chips.values()) - f0) / n
    spis = (spi.transfers - s0) / n
    cards = len(rd.debouncer.state)
    # the loop alone: a canned scanner hands the same 14 cards to debounce + framing
    canned = Canned({c: (s[0], s[1], s[2], None, None)
                     for c, s in rd.debouncer.state.items()})
    rd2 = Reader(canned, Null(), None, scan_ms=20, debounce_ms=0, wdt=WDT())
    t0 = time.ticks_us()
    for _ in range(n):
        canned.begin()
        rd2.finish_scan()
    loop = time.ticks_diff(time.ticks_us(), t0)
    gc.collect()
    print(f"heap_used={gc.mem_alloc()} scan_ms={dt / n / 1000:.2f}"
          f" loop_ms={loop / n / 1000:.3f} frames={frames:.1f} spi={spis:.1f} cards={cards}")


main()
