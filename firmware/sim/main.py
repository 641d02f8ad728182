"""Run the unmodified reader firmware in the MicroPython unix VM on simulated hardware.

    micropython firmware/sim/main.py --seat N --scenario s.jsonl [--kind rfid|camera]
        [--scan-ms 20] [--debounce-ms 40] [--reader-id 1] [--serial SIM-N] [--stats]
        [--noise profile.json --noise-seed 1] [--epoch-ms MS | --epoch-file PATH]
        [--antennas trick,table,floor] [--slots 1 --slot-ms 40] [--chip pn5180|mfrc522]
        [--chip-version 0x92]

``--noise``: a JSON object of poll-level noise rates (the host's
``tablesense.sim.noise.Profile.poll_level()``; sim/noise.py) applied under the
firmware: the world's tags, the camera and the wire. Cross-talk reads the
neighbouring seats' lines of the same scenario file. ``--stats`` prints the
scan count, the noise injected and the firmware's suppressions to stderr.
``--epoch-ms``: the wall-clock time (ms since the Unix epoch) of scenario
time 0, so that readers booted one after another play one timetable on one
clock (a robot's card and the next seat's stay in order however far apart
the VMs started); without it scenario times count from the VM's boot. The
frames still carry the reader's own clock. ``--epoch-file PATH``: the same
instant, read from PATH once the host writes it there (when every reader of
the table is up); until then nothing of the scenario happens, so a VM that
boots late on a busy machine never finds half the table's play already due.
``--key HEX``: the reader's signing
key (key.txt on a board). ``--flash 1``: booted by sim/flashboot.py from a
flash directory (the cwd): firmware updates are taken (update.py), and MAINT
reset and an installed update end the VM with status 75, a reboot.

Frames go to stdout and host frames are read from stdin: the launcher
(host/tablesense/sim/firmware.py) makes both the master side of a pty, whose
slave the host opens as a serial port. ``sys.path`` must hold firmware/ and
the directory the build step filled with the shared modules (tablesense.firmware.build).

``--antennas``: the zones of the seat's antennas; ``--chip``: the table build's
PN5180 (default: sim/pn5180_chip.py, one chip, its antennas behind the multiplexer,
ICODE SLIX2 tags) or the bench build's MFRC522s (sim/rc522.py, one per antenna on
one SimSPI, NTAG213 tags), sharing one virtual clock and one Air;
``--slots``/``--slot-ms``: the table's time slots (slots.py), on the shared epoch
clock when ``--epoch-ms`` is given; ``--chip-version``: what the MFRC522s' version
register reads (0x12: a clone).
"""

import asyncio
import json
import sys
import time

from camera import CameraScanner
from cards import CardMap
from mfrc522 import MFRC522SPI
from pollnoise import Noise
from reader import Reader
from zones import RfidScanner

from sim.bus import SimSPI
from sim.clock import Air, SimClock
from sim.noise import NoisyOut
from sim.rc522 import SimMFRC522
from sim.world import WDT, SimCamera, World, load, load_others

ZONES = ("trick", "table", "floor")
RESET_EXIT = 75  # the exit status that asks the launcher for a reboot (--flash 1)
RESET = [False]


CHIPS = ("pn5180", "mfrc522")


def rfid_hardware(zones, rng=None, version=0x92, chip="pn5180", clock=None, air=None):
    """A seat's simulated RFID hardware on one clock and one air: ``chip`` "pn5180" (the
    table build: one PN5180, its antennas behind the multiplexer, ICODE SLIX2 tags) or
    "mfrc522" (the bench build: an MFRC522 per antenna on one SPI bus, NTAG213 tags).
    Returns ({zone: simulated antenna}, [(zone, the driver's antenna)], clock, air)."""
    clock = clock if clock is not None else SimClock()
    air = air if air is not None else Air()
    spi = SimSPI()
    if chip == "pn5180":
        from pn5180 import PN5180, Mux, PN5180Port

        from sim.pn5180_chip import SimPN5180

        sim = SimPN5180(zones, clock, air, rng)
        drv = PN5180(spi, spi.attach(sim), sim.busy_pin, clock_us=clock.ticks_us,
                     sleep=clock.sleep_us)
        mux = Mux(sim.mux_pins)
        ports = {p.name: p for p in sim.ports}
        return ports, [(z, PN5180Port(drv, mux, k)) for k, z in enumerate(zones)], clock, air
    chips = {z: SimMFRC522(z, clock, air, rng, version) for z in zones}
    antennas = [(z, MFRC522SPI(spi, spi.attach(chips[z]), clock_us=clock.ticks_us,
                            sleep=clock.sleep_us))
                for z in zones]
    return chips, antennas, clock, air


def args(argv):
    opts = {"--seat": "N", "--scenario": "", "--kind": "rfid", "--scan-ms": "20",
            "--debounce-ms": "40", "--reader-id": "", "--serial": "", "--settle-ms": "0",
            "--autostart": "0", "--noise": "", "--noise-seed": "1", "--epoch-ms": "",
            "--epoch-file": "",
            "--antennas": ",".join(ZONES), "--slots": "1", "--slot-ms": "40",
            "--chip-version": "0x92", "--chip": "pn5180", "--flash": "0", "--key": ""}
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
    zones = tuple(z for z in opts["--antennas"].split(",") if z)
    if opts["--chip"] not in CHIPS:
        raise SystemExit("--chip: pn5180 or mfrc522")
    chips, antennas, _, _ = rfid_hardware(zones, None, int(opts["--chip-version"], 16),
                                          opts["--chip"])
    for chip in chips.values():  # in real time behind a pty, host CPU matters more than
        getattr(chip, "chip", chip).irq_wait = True  # the poll loop's virtual granularity
    noise = None
    others = []
    if opts.get("--noise"):
        with open(opts["--noise"]) as f:
            noise = Noise(json.load(f), int(opts.get("--noise-seed") or 1))
        if opts["--scenario"]:
            others = load_others(opts["--scenario"], seat)
    world = World(seat, events, chips, noise, others)
    if opts["--kind"] == "camera":
        scanner = CameraScanner(SimCamera(world))
    else:
        scanner = RfidScanner(antennas, CardMap(), settle_ms=int(opts["--settle-ms"]))
    rid = int(opts["--reader-id"]) if opts["--reader-id"] else None
    out = sys.stdout.buffer
    if world.noise is not None and (world.noise.jitter_ms or world.noise.reorder):
        out = NoisyOut(out, world.noise, None)
    reader = Reader(
        scanner, out, sys.stdin.buffer, seat=seat, reader_id=rid,
        scan_ms=int(opts["--scan-ms"]), debounce_ms=int(opts["--debounce-ms"]),
        serial=opts["--serial"] or "SIM-" + seat, wdt=WDT(2000),
        autostart=opts["--autostart"] == "1",
        slots=int(opts["--slots"]), slot_ms=int(opts["--slot-ms"]),
        key=bytes.fromhex(opts["--key"]) if opts["--key"] else None,
    )
    if opts["--flash"] == "1":  # booted from a flash directory (sim/flashboot.py)
        from reader import FIRMWARE
        from update import Updater

        def reboot(_action=None):  # the VM process ends; the launcher boots it again
            RESET[0] = True
            reader.running = False

        reader.on_maint = reboot
        reader.updater = Updater(reader.send, reader.key, FIRMWARE, reboot)
    world.clock = reader.now
    world.epoch_file = opts.get("--epoch-file") or None
    if opts.get("--epoch-ms"):
        on_epoch(world, reader, int(opts["--epoch-ms"]))
    elif world.epoch_file:
        world.clock = lambda: -1  # before scenario time 0: nothing is due yet
    world.polls = lambda: reader.scans
    if isinstance(out, NoisyOut):
        out.clock = reader.now
    return world, reader


def on_epoch(world, reader, epoch_ms):
    """Scenario time 0 is ``epoch_ms`` (wall-clock ms since the Unix epoch) from now on."""
    shift = time.time_ns() // 1000000 - epoch_ms - reader.now()
    world.clock = lambda: reader.now() + shift
    reader.slots.clock = world.clock  # the table's slots on the shared epoch


def read_epoch(path):
    """The epoch the host wrote to ``path`` (it renames the file into place whole), or
    None while it has not."""
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def hold_scans(reader, old=None, new=None):
    """Scans a card's state must stand before the world moves that card again.

    The debouncer commits a state after 2 scans spanning debounce_ms, once
    its zone is live (a second read), and then lets the card settle for its
    hold time; a departure (gone) takes the hold time (the last zone stays
    live through missed reads) and gone_ms. ``old`` and
    ``new``: the card's scenario lines before and after its last move (None:
    not placed; both None: the longest case).
    A scenario spaces a card's moves wider than that in time, but a machine
    under load can stall the VM for longer. Counting the reader's own scans
    keeps every state observable whatever the load: the world waits instead
    of racing ahead of the reader.
    """
    period = max(1, reader.scan_ms)
    d = reader.debouncer
    oz = old.get("zone", "gone") if old else "gone"
    nz = new.get("zone", "gone") if new else "gone"
    if nz == "gone" or (old is None and new is None):
        ms = d.hold_ms + d.gone_ms
    elif oz != "gone" and d.hold_ms > 0:
        # live at its second read; and a card just reported in a new zone may be
        # settling for hold_ms, so its next move shows only after that
        ms = d.ms + period + d.hold_ms
    else:
        ms = d.ms
    return (ms + period - 1) // period + 3


def step(world, reader, moved):
    """Apply the events due now; True when one waits for scans (``hold_scans``).

    ``moved`` maps each card to (``reader.scans`` when its last event was
    applied, the scans that event's state needs to be reported).
    """
    now = world.now()
    while world.next < len(world.events):
        e = world.events[world.next]
        if e.get("t", 0) > now:
            return False
        card = e.get("card")
        if card is not None:
            card = card.upper()
            m = moved.get(card)
            if m is not None and reader.scans - m[0] < m[1]:
                return True
            moved[card] = (reader.scans, hold_scans(reader, world.cards.get(card), e))
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
    while getattr(world, "epoch_file", None):
        # the host names scenario time 0 once every reader of the table is up
        epoch = read_epoch(world.epoch_file)
        if epoch is None:
            await asyncio.sleep_ms(max(1, reader.scan_ms))
            continue
        on_epoch(world, reader, epoch)
        world.epoch_file = None
    while True:
        held = step(world, reader, moved)
        due = world.due()
        if due is None:
            return
        wait = max(1, reader.scan_ms) if held else due - world.now()
        await asyncio.sleep_ms(max(1, wait))


async def amain(opts):
    world, reader = build(opts)
    moved = {}
    step(world, reader, moved)  # what lies on the antennas at boot
    tasks = [asyncio.create_task(drive(world, reader, moved))]
    if isinstance(reader.out, NoisyOut):
        tasks.append(asyncio.create_task(wire(reader)))
    if "--stats" in opts:
        tasks.append(asyncio.create_task(stats(reader, world)))
    await reader.run()


async def wire(reader):
    """Frames held by the noisy wire go out when due."""
    while True:
        left = reader.out.due(reader.now())
        await asyncio.sleep_ms(max(1, min(left if left is not None else 20, 20)))


async def stats(reader, world=None):
    while True:
        await asyncio.sleep_ms(1000)
        extra = ""
        if world is not None and world.noise is not None:
            extra = f" noise={json.dumps(world.noise.counts)}"
        extra += f" suppressed={json.dumps(reader.debouncer.suppressed)}"
        sys.stderr.write(f"scans={reader.scans} seq={reader.seq}{extra}\n")


def main():
    asyncio.run(amain(args(sys.argv)))
    if RESET[0]:
        sys.exit(RESET_EXIT)


if __name__ == "__main__":
    main()
