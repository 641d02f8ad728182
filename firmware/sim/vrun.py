"""The reader firmware on the simulated hardware in virtual time: no pty, no asyncio, no waits.

The same objects as sim/main.py (the simulated SPI bus, chips and tags, the world
and its noise; the firmware's scanner, debouncer and Reader), stepped one scan at a
time by a virtual clock, so a whole board runs as fast as the Python can
simulate the RF: for benchmarks and tests, in CPython or in the VM::

    MICROPYPATH=firmware:DIR micropython firmware/sim/vrun.py \\
        --seat N --scenario s.jsonl [--kind rfid] [--noise n.json --noise-seed 1]

(DIR: the shared modules, placed by ``python -m tablesense.firmware.build DIR``.)

prints one JSON line per OBSERVE frame the reader sent: ``{"rt": reader ms,
...fields}`` (and a last line ``{"stats": ...}``). ``run()`` returns the same.
``--hold-ms`` and ``--gone-ms`` override the debouncer's defaults (sweeps);
``--rf-ms`` is ``scan_cost_ms``.
The reader's clock is the simulated hardware's virtual clock: a scan takes
the SPI and air time of its exchanges and the fields' settle times (sim/
clock.py), then the loop waits out the rest of ``scan_ms``; ``scan_cost_ms``
adds a fixed cost on top (an RF budget, for sweeps).
"""

import json
import sys

from camera import CameraScanner
from cards import CardMap
from pollnoise import Noise
from reader import Reader
from wire import codec
from zones import RfidScanner

from sim.main import ZONES, rfid_hardware, step
from sim.world import WDT, SimCamera, World


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
        others=None, tail_ms=2000, scan_cost_ms=0, settle_ms=5, chip="pn5180"):
    """Play ``events`` (this seat's scenario lines) through the firmware; return
    (observations, stats). ``noise``: a poll-level profile dict (or None);
    ``others``: the neighbouring seats' lines, for cross-talk."""
    chips, ants, clock, air = rfid_hardware(ZONES, chip=chip)
    nz = Noise(noise, seed) if noise else None
    world = World(seat, events, chips, nz, others)
    if kind == "camera":
        scanner = CameraScanner(SimCamera(world))
    else:
        scanner = RfidScanner(ants, CardMap(), settle_ms=settle_ms)
    out = Frames()
    reader = Reader(scanner, out, None, seat=seat, scan_ms=scan_ms, debounce_ms=debounce_ms,
                    wdt=WDT(), clock=clock.ticks_ms, autostart=True)
    world.clock = reader.now
    world.polls = lambda: reader.scans
    scanner.init()
    moved = {}
    end = (events[-1].get("t", 0) if events else 0) + tail_ms
    period = max(scan_ms, 1) + scan_cost_ms
    busy = []  # ms each scan took on the simulated hardware
    while True:
        step(world, reader, moved)
        now = clock.ticks_ms()
        if world.due() is None and now >= end:
            break
        if world.due() is not None and now > end + 600000:
            raise RuntimeError("the world never caught up")  # pragma: no cover
        t0 = clock.us
        reader.scan_sync(lambda ms: clock.advance(ms * 1000))
        took = (clock.us - t0) / 1000
        busy.append(took)
        clock.advance(max(0, period * 1000 - (clock.us - t0)))
    busy.sort()
    stats = {"scans": reader.scans, "suppressed": reader.debouncer.suppressed,
             "noise": nz.counts if nz is not None else {}, "errors": scanner.errors,
             "frames": reader.seq, "clashes": air.clashes,
             # exchanges the chips' timers ended (no tag answered): the driver's timeout path
             "timeouts": sum(c.timeouts for c in {getattr(c, "chip", c) for c in chips.values()}),
             "scan_ms_median": busy[len(busy) // 2] if busy else 0,
             "scan_ms_max": busy[-1] if busy else 0}
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
                     scan_cost_ms=extra.get("--rf-ms", 0), chip=opts["--chip"])
    for o in obs:
        print(json.dumps(o))
    print(json.dumps({"stats": stats}))


if __name__ == "__main__":
    main(sys.argv)
