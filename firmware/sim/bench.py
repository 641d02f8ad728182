"""Cost of one scan of the reader loop in the VM: 13 cards on the table (dummy), 1 on the trick.

    MICROPYPATH=firmware:DIR:.frozen micropython firmware/sim/bench.py [scans]

(DIR: the shared modules, placed by ``python -m tablesense.firmware.build DIR``.)

Prints ``scan_ms=<ms a scan> frames=<RF frames a scan> spi=<SPI transfers a scan>``:
what the sim's Python costs per scan on this machine, and the RF/SPI work a
real board would do for the same scan (the latency budget in hardware/README.md),
and ``sim_ms=<ms a scan takes on the simulated hardware>`` (``sim_ms_max``: the
longest): SPI, air time and the 5 ms settle of each field switched on, on the
virtual clock, as the scan schedule (schedule.py) spreads the antennas over scans.
"""

import gc
import sys
import time

from cards import CardMap
from reader import Reader
from zones import RfidScanner

from sim.main import ZONES, rfid_hardware
from sim.world import WDT, World


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
    dummy = [s + r for s in "SH" for r in "AKQJT98"][:13]
    events = [{"t": 0, "card": c, "zone": "table"} for c in dummy]
    events.append({"t": 0, "card": "C2", "zone": "trick"})
    chips, ants, clock, _ = rfid_hardware(ZONES)
    drv = ants[0][1]
    spi = getattr(drv, "chip", drv)._spi  # the PN5180 port's chip, or the MFRC522
    world = World("N", events, chips)
    world.advance(0)
    sc = RfidScanner(ants, CardMap(), settle_ms=5)
    rd = Reader(sc, Null(), None, scan_ms=20, debounce_ms=0, wdt=WDT(), clock=clock.ticks_ms)
    sc.init()

    def settle(ms):
        clock.advance(ms * 1000)

    rd.scan_sync(settle)  # first scan learns the tags (NTAG READ); steady state after
    sims = {getattr(c, "chip", c) for c in chips.values()}  # one PN5180, or an MFRC522 each
    f0 = sum(c.frames for c in sims)
    s0 = spi.transfers
    v0 = clock.us
    t0 = time.ticks_us()
    worst = 0
    for _ in range(n):
        v = clock.us
        rd.scan_sync(settle)
        worst = max(worst, clock.us - v)
    dt = time.ticks_diff(time.ticks_us(), t0)
    sim_ms = (clock.us - v0) / n / 1000
    frames = (sum(c.frames for c in sims) - f0) / n
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
          f" loop_ms={loop / n / 1000:.3f} frames={frames:.1f} spi={spis:.1f} cards={cards}"
          f" sim_ms={sim_ms:.1f} sim_ms_max={worst / 1000:.1f}")


main()
