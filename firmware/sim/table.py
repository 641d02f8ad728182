"""A whole table's RFID readers in virtual time: four boards, one air, their time slots.

    MICROPYPATH=firmware:DIR micropython firmware/sim/table.py \\
        --scenario table.jsonl [--slots 2] [--slot-ms 18] [--chip pn5180|mfrc522]

(DIR: the shared modules, placed by ``python -m tablesense.firmware.build DIR``.)

Each seat's firmware (RfidScanner, Reader with its Slots and its scan
schedule) runs on its own simulated hardware and its own virtual clock, all
from one epoch, and every seat's chips share one ``Air``: a field switched
on while a coupled field of another seat is on makes the exchange fail
(sim/clock.py; which fields couple: sim/layout.py, from the field model).
The boards are stepped one antenna at a time, always the one whose clock is
earliest, so their fields interleave in time as four independent boards'
would. With the table's two floor slots (``--slots 2``) no coupled fields
overlap; with ``--slots 1`` (each board free-running) the floor mats do.
Prints each seat's OBSERVE lines and a last line ``{"stats": {"clashes": ...,
...}}``. ``run()`` returns the same.
"""

import json
import sys

from cards import CardMap
from reader import Reader
from schedule import Scan
from zones import RfidScanner

from sim.clock import Air, SimClock
from sim.layout import COUPLED
from sim.main import step
from sim.vrun import Frames
from sim.world import WDT, World, load

SEATS = "NESW"
ZONES = ("trick", "table", "floor")


def seat_hardware(air, clock, zones=ZONES, chip="pn5180"):
    from sim.main import rfid_hardware

    chips, ants, _, _ = rfid_hardware(zones, chip=chip, clock=clock, air=air)
    return chips, ants


class Board:
    """One seat's reader, stepped one antenna (or one wait) at a time."""

    def __init__(self, seat, events, air, slots, slot_ms, scan_ms, debounce_ms, offset_us,
                 chip="pn5180"):
        self.seat = seat
        self.clock = SimClock(offset_us)  # boards power up at slightly different times
        chips, ants = seat_hardware(air, self.clock, chip=chip)
        for c in chips.values():
            getattr(c, "chip", c).seat = seat  # where its fields are, for the air's coupling
        self.world = World(seat, events, chips)
        self.scanner = RfidScanner(ants, CardMap(), settle_ms=5)
        self.out = Frames()
        self.reader = Reader(self.scanner, self.out, None, seat=seat, scan_ms=scan_ms,
                             debounce_ms=debounce_ms, wdt=WDT(), clock=self.clock.ticks_ms,
                             autostart=True, slots=slots, slot_ms=slot_ms)
        self.reader.t0 = 0  # the reader's clock is the table's epoch
        self.world.clock = self.reader.now
        self.world.polls = lambda: self.reader.scans
        self.scanner.init()
        self.moved = {}
        self.scan = None  # the scan in progress (schedule.py)
        self.scan_start = self.clock.us

    def step(self):
        """One step of a scan (an antenna read, or the wait for this seat's slot); after
        its last step, the scan's end (the debouncer) and the wait to the next scan."""
        r, sc = self.reader, self.scanner
        if self.scan is None:
            step(self.world, r, self.moved)
            self.scan = Scan(sc, r.slots, r.clock, r.scan_ms)
        nxt = self.scan.next()
        if nxt is not None:
            i, wait = nxt
            if wait > 0:
                self.clock.advance(wait * 1000)
                return
            settle = sc.begin(i)
            if settle >= 0:
                self.clock.advance(settle * 1000)
                sc.read(i, self.scan.stop)
            return
        self.scan = None
        r.finish_scan()
        left = r.scan_ms * 1000 - (self.clock.us - self.scan_start)
        self.clock.advance(max(0, left))
        self.scan_start = self.clock.us


def run(lines, slots=2, slot_ms=18, scan_ms=20, debounce_ms=40, until_ms=None, chip="pn5180",
        coupled=COUPLED):
    """Four boards on one air; ``coupled``: the antenna pairs whose fields clash (the field
    model's, sim/layout.py; None: every two fields, the old conservative air)."""
    air = Air(coupled)
    boards = []
    for k, seat in enumerate(SEATS):
        events = [e for e in lines if e.get("seat", seat) == seat]
        boards.append(Board(seat, events, air, slots, slot_ms, scan_ms, debounce_ms,
                            1000 * 7 * k, chip))
    end = until_ms if until_ms is not None else max(
        [e.get("t", 0) for e in lines] + [0]) + 2000
    while True:
        b = min(boards, key=lambda x: x.clock.us)
        if b.clock.us >= end * 1000:
            break
        b.step()
    obs = {b.seat: b.out.obs for b in boards}
    stats = {"clashes": air.clashes, "scans": {b.seat: b.reader.scans for b in boards},
             "overruns": {b.seat: b.scanner.overruns for b in boards},
             "errors": {b.seat: b.scanner.errors for b in boards}}
    return obs, stats


def main(argv):
    opts = {"--scenario": "", "--slots": "2", "--slot-ms": "18", "--chip": "pn5180"}
    for i in range(1, len(argv) - 1, 2):
        opts[argv[i]] = argv[i + 1]
    lines = []
    for s in SEATS:
        lines.extend(load(opts["--scenario"], s))
    lines.sort(key=lambda e: e.get("t", 0))
    obs, stats = run(lines, int(opts["--slots"]), int(opts["--slot-ms"]), chip=opts["--chip"])
    for seat in SEATS:
        for o in obs[seat]:
            print(json.dumps(o))
    print(json.dumps({"stats": stats}))


if __name__ == "__main__":
    main(sys.argv)
