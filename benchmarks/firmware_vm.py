"""MicroPython side of benchmarks/firmware.py: how fast the reader loop emits frames.

    MICROPYPATH=firmware:DIR micropython benchmarks/firmware_vm.py [frames]

(DIR: filled by the build step, ``python -m tablesense.firmware.build DIR``.)

Runs the firmware's own ``Reader.send`` (encode, keep for RESEND, write) into
a null stream, unsigned and signed (the key of ``key.txt``), and the
``finish_scan`` of a scan in which every card moved (a canned scanner whose
14 cards change zone each scan, debounce off): prints one JSON object.
Plain MicroPython, untyped, like firmware/sim/bench.py.
"""

import gc
import json
import sys
import time

from reader import Reader


class Null:
    def write(self, b):
        return len(b)


class Moving:
    """Canned scanner: 14 cards that all change zone at every scan."""

    kind = "rfid"
    capabilities = ()
    reads = errors = 0

    def __init__(self):
        self.cards = [s + r for s in "SH" for r in "AKQJT98"]
        self.n = 0

    def begin(self):
        return 0

    def scan(self):
        self.n += 1
        zone = "hand" if self.n % 2 else "table"
        face = "down" if self.n % 2 else "up"
        return {c: (zone, face, "at", None, None) for c in self.cards}

    def held(self):
        return ()

    def take_faults(self):
        return []


def frames_per_s(key, n):
    rd = Reader(Moving(), Null(), None, scan_ms=20, debounce_ms=0, key=key)
    fields = {"seat": "N", "card": "HQ", "zone": "trick", "face": "up", "level": "at", "t": 1}
    gc.collect()
    t0 = time.ticks_us()
    for i in range(n):
        fields["t"] = i
        rd.send(3, fields)
    dt = time.ticks_diff(time.ticks_us(), t0)
    return n * 1_000_000 / dt, dt / n


def moving_scans(key, n):
    rd = Reader(Moving(), Null(), None, scan_ms=20, debounce_ms=0, key=key)
    rd.finish_scan()
    s0 = rd.seq
    t0 = time.ticks_us()
    for _ in range(n):
        rd.finish_scan()
    dt = time.ticks_diff(time.ticks_us(), t0)
    return dt / n / 1000, (rd.seq - s0) / n


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    key = bytes(range(32))
    plain_fps, plain_us = frames_per_s(None, n)
    signed_fps, signed_us = frames_per_s(key, n)
    scan_ms, per_scan = moving_scans(None, max(10, n // 50))
    sscan_ms, _ = moving_scans(key, max(10, n // 50))
    gc.collect()
    print(json.dumps({
        "frames_per_s_unsigned": round(plain_fps), "us_per_frame_unsigned": round(plain_us, 1),
        "frames_per_s_signed": round(signed_fps), "us_per_frame_signed": round(signed_us, 1),
        "all_cards_moving_scan_ms": round(scan_ms, 3), "frames_per_scan": per_scan,
        "all_cards_moving_scan_ms_signed": round(sscan_ms, 3),
        "vm_heap_used": gc.mem_alloc(),
    }))


main()
