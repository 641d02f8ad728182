"""Run the unmodified reader firmware in the MicroPython unix VM on simulated hardware.

    micropython firmware/sim/main.py --seat N --scenario s.jsonl [--kind rfid|camera]
        [--scan-ms 20] [--debounce-ms 40] [--reader-id 1] [--serial SIM-N] [--stats]

Frames go to stdout and host frames are read from stdin: the launcher
(host/tablesense/sim/firmware.py) makes both the master side of a pty, whose
slave the host opens as a serial port. ``sys.path`` must hold firmware/ and
the directory of the shared codec.py.
"""

import asyncio
import sys

from camera import CameraScanner
from cards import CardMap
from level import AdcLevel
from mfrc522 import MFRC522SPI
from reader import Reader
from zones import RfidScanner

from sim.bus import SimSPI
from sim.rc522 import SimMFRC522
from sim.world import WDT, SimADC, SimCamera, World, load

ZONES = ("hand", "table", "trick")


def args(argv):
    opts = {"--seat": "N", "--scenario": "", "--kind": "rfid", "--scan-ms": "20",
            "--debounce-ms": "40", "--reader-id": "", "--serial": "", "--settle-ms": "0",
            "--autostart": "0"}
    i = 1
    while i < len(argv):
        if argv[i] == "--stats":
            opts["--stats"] = "1"
            i += 1
            continue
        if argv[i] not in opts or i + 1 >= len(argv):
            raise SystemExit("usage: main.py --seat N --scenario FILE [options]; bad " + argv[i])
        opts[argv[i]] = argv[i + 1]
        i += 2
    return opts


def build(opts):
    seat = opts["--seat"]
    events = load(opts["--scenario"], seat) if opts["--scenario"] else []
    spi = SimSPI()
    chips = {z: SimMFRC522(z) for z in ZONES}
    world = World(seat, events, chips)
    if opts["--kind"] == "camera":
        scanner = CameraScanner(SimCamera(world))
    else:
        antennas = [(z, MFRC522SPI(spi, spi.attach(chips[z]))) for z in ZONES]
        scanner = RfidScanner(antennas, CardMap(), AdcLevel(SimADC(world)),
                              settle_ms=int(opts["--settle-ms"]))
    rid = int(opts["--reader-id"]) if opts["--reader-id"] else None
    reader = Reader(
        scanner, sys.stdout.buffer, sys.stdin.buffer, seat=seat, reader_id=rid,
        scan_ms=int(opts["--scan-ms"]), debounce_ms=int(opts["--debounce-ms"]),
        serial=opts["--serial"] or "SIM-" + seat, wdt=WDT(2000),
        autostart=opts["--autostart"] == "1",
    )
    return world, reader


def hold_scans(reader):
    """Scans a card's state must stand before the world moves that card again.

    The debouncer commits a state after 2 scans spanning debounce_ms and a
    departure after 3 scans spanning twice that; a scenario spaces a card's
    moves wider than that in time, but a machine under load can stall the VM
    for longer. Counting the reader's own scans keeps every state observable
    whatever the load: the world waits instead of racing ahead of the reader.
    """
    period = max(1, reader.scan_ms)
    return (2 * reader.debounce_ms + period - 1) // period + 3


def step(world, reader, moved):
    """Apply the events due now; True when one waits for scans (``hold_scans``).

    ``moved`` maps each card to ``reader.scans`` when its last event was applied.
    """
    now = reader.now()
    while world.next < len(world.events):
        e = world.events[world.next]
        if e.get("t", 0) > now:
            return False
        card = e.get("card")
        if card is not None:
            card = card.upper()
            if card in moved and reader.scans - moved[card] < hold_scans(reader):
                return True
            moved[card] = reader.scans
        world.apply(e)
        world.next += 1
    return False


async def drive(world, reader, moved=None):
    """Apply scenario events on time (between scans: asyncio is cooperative).

    An event for a card whose previous move the reader has not yet scanned
    ``hold_scans`` times waits for those scans, and so do the events after it
    (the world keeps its order). Unloaded, a scenario whose moves of one card
    are spaced wider than the debounce runs exactly on time. ``moved``: see
    ``step`` (cards placed before, e.g. by ``world.advance(0)``, are not held).
    """
    if moved is None:
        moved = {}
    while True:
        held = step(world, reader, moved)
        due = world.due()
        if due is None:
            return
        wait = max(1, reader.scan_ms) if held else due - reader.now()
        await asyncio.sleep_ms(max(1, wait))


async def amain(opts):
    world, reader = build(opts)
    moved = {}
    step(world, reader, moved)  # what lies on the antennas at boot
    tasks = [asyncio.create_task(drive(world, reader, moved))]
    if "--stats" in opts:
        tasks.append(asyncio.create_task(stats(reader)))
    await reader.run()


async def stats(reader):
    while True:
        await asyncio.sleep_ms(1000)
        sys.stderr.write(f"scans={reader.scans} seq={reader.seq}\n")


def main():
    asyncio.run(amain(args(sys.argv)))


if __name__ == "__main__":
    main()
