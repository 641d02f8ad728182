"""The reader firmware on the simulated hardware in virtual time: no pty, no asyncio, no waits.

The same objects as sim/main.py (SimSPI, SimMFRC522, NTAG213, the world and its
noise; the firmware's scanner, debouncer and Reader), stepped one scan at a
time by a virtual clock, so a whole board runs as fast as the Python can
simulate the RF: for benchmarks and tests, in CPython or in the VM::

    MICROPYPATH=firmware:<dir with codec.py> micropython firmware/sim/vrun.py \\
        --seat N --scenario s.jsonl [--kind rfid] [--noise n.json --noise-seed 1]

prints one JSON line per OBSERVE frame the reader sent: ``{"rt": reader ms,
...fields}`` (and a last line ``{"stats": ...}``). ``run()`` returns the same.
``--hold-ms`` and ``--gone-ms`` override the debouncer's defaults (sweeps);
``--rf-ms`` is ``scan_cost_ms``.
``scan_cost_ms`` adds to each scan period the time a real board's RF takes
(hardware/README.md: ~60-140 ms), so debouncing is measured at board timings.
"""

import json
import sys

import codec
from camera import CameraScanner
from cards import CardMap
from level import AdcLevel
from mfrc522 import MFRC522SPI
from reader import Reader
from zones import RfidScanner

from sim.bus import SimSPI
from sim.main import step
from sim.noise import Noise
from sim.rc522 import SimMFRC522
from sim.world import WDT, SimADC, SimCamera, World

ZONES = ("hand", "table", "trick")


class Frames:
    """The reader's output: decoded OBSERVE frames."""

    def __init__(self):
        self.dec = codec.Decoder()
        self.obs = []

    def write(self, data):
        for f in self.dec.feed(data):
            if isinstance(f, codec.Frame) and f.mtype == codec.OBSERVE:
                d = dict(f.fields)
                d["rt"] = d.pop("t")
                self.obs.append(d)
        return len(data)


def run(seat, events, kind="rfid", scan_ms=20, debounce_ms=40, noise=None, seed=1,
        others=None, tail_ms=2000, scan_cost_ms=0):
    """Play ``events`` (this seat's scenario lines) through the firmware; return
    (observations, stats). ``noise``: a poll-level profile dict (or None);
    ``others``: the neighbouring seats' lines, for cross-talk."""
    clock = [0]
    spi = SimSPI()
    chips = {z: SimMFRC522(z) for z in ZONES}
    nz = Noise(noise, seed) if noise else None
    world = World(seat, events, chips, nz, others)
    if kind == "camera":
        scanner = CameraScanner(SimCamera(world))
    else:
        ants = [(z, MFRC522SPI(spi, spi.attach(chips[z]))) for z in ZONES]
        scanner = RfidScanner(ants, CardMap(), AdcLevel(SimADC(world)), settle_ms=0)
    out = Frames()
    reader = Reader(scanner, out, None, seat=seat, scan_ms=scan_ms, debounce_ms=debounce_ms,
                    wdt=WDT(), clock=lambda: clock[0], autostart=True)
    world.clock = reader.now
    world.polls = lambda: reader.scans
    scanner.init()
    moved = {}
    end = (events[-1].get("t", 0) if events else 0) + tail_ms
    period = max(scan_ms, 1) + scan_cost_ms
    while True:
        step(world, reader, moved)
        if world.due() is None and clock[0] >= end:
            break
        if world.due() is not None and clock[0] > end + 600000:
            raise RuntimeError("the world never caught up")  # pragma: no cover
        scanner.begin()
        reader.finish_scan()
        clock[0] += period
    stats = {"scans": reader.scans, "suppressed": reader.debouncer.suppressed,
             "noise": nz.counts if nz is not None else {}, "errors": scanner.errors,
             "frames": reader.seq}
    return out.obs, stats


def main(argv):
    import debounce

    from sim.main import args
    from sim.world import load, load_others

    argv = list(argv)
    extra = {}
    for name in ("--hold-ms", "--gone-ms", "--rf-ms"):
        if name in argv:
            i = argv.index(name)
            extra[name] = int(argv[i + 1])
            del argv[i: i + 2]
    if "--hold-ms" in extra:  # the debouncer's defaults, for sweeps
        debounce.HOLD_MS = extra["--hold-ms"]
    if "--gone-ms" in extra:
        debounce.GONE_MS = extra["--gone-ms"]
    opts = args(argv)
    kind = opts["--kind"]
    seat = opts["--seat"]
    noise = None
    others = None
    if opts["--noise"]:
        with open(opts["--noise"]) as f:
            noise = json.load(f)
        others = load_others(opts["--scenario"], seat)
    obs, stats = run(seat, load(opts["--scenario"], seat), kind, int(opts["--scan-ms"]),
                     int(opts["--debounce-ms"]), noise, int(opts["--noise-seed"]), others,
                     scan_cost_ms=extra.get("--rf-ms", 0))
    for o in obs:
        print(json.dumps(o))
    print(json.dumps({"stats": stats}))


if __name__ == "__main__":
    main(sys.argv)
