#!/usr/bin/env python3
"""Writes examples/capture.bin: one table's reader links as today's firmware fills them.

    .venv/bin/python scripts/make_capture.py [OUT]

The four seat readers (ids 1-4 at N E S W) are the firmware itself: reader.py,
zones.py and the PN5180 driver of ``firmware/``, on the simulated table build
(one PN5180, its trick, table and floor antennas behind the multiplexer,
ICODE SLIX2 tags) in virtual time (firmware/sim/vrun.py's pieces), so every
frame a reader sends here is one the firmware sends: its HELLO claims what an
RFID reader senses (``level``, ``resend`` and its antennas' zones: no
``face``, no ``hand``), its OBSERVEs say face ``unknown`` and the level its
antenna implies, and a card in a hand is not seen at all. The host's frames
are the daemon's: a CONFIG for each HELLO (scan 20 ms, the reader's own
debounce), an ACK to each reader once a second, and a RESEND when a frame
arrives damaged.

The capture holds the four USB links' traffic, both ways, merged in time
order (one stream, as ``tablesense decode`` reads a port): power-up line noise,
the handshake, 1 Hz heartbeats, the first trick (East leads, each card lands
on its player's trick antenna), the four cards turned face down in front of
their players (table antennas), and the lead to the second trick. South's
first OBSERVE is hit by a bit error (bad CRC); the host asks for it again
and South's reader resends it with its original sequence number. A noise
burst with a stray 0x00 in it shows up as a truncated frame. Deterministic:
virtual time, no randomness. Prints the counts ``tablesense decode`` reports.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from tablesense.firmware.build import firmware_dir, place_shared
from tablesense.onboard.wire import codec as c

OUT = Path(__file__).resolve().parent.parent / "examples" / "capture.bin"
SEATS = "NESW"
BOOT_MS = {"N": 0, "E": 35, "S": 61, "W": 90}  # table time of each reader's power-up
SERIALS = {"N": "TS-E6614103E7452D2F", "E": "TS-E6614103E7452D30",
           "S": "TS-E6614103E7452D31", "W": "TS-E6614103E7452D32"}
# (table ms, seat, card, zone): the first trick, turned, and the next lead
PLAY = [(3000, "E", "HK", "trick"), (4800, "S", "H4", "trick"), (6600, "W", "HA", "trick"),
        (8400, "N", "H7", "trick"),
        (11000, "E", "HK", "table"), (11120, "S", "H4", "table"), (11240, "W", "HA", "table"),
        (11360, "N", "H7", "table"),
        (13000, "W", "SQ", "trick")]
END_MS = 15000
CONFIG = {"scan_ms": 20, "debounce_ms": 0}
DAMAGED_SEAT = "S"  # South's first OBSERVE arrives with a bit error


class Tap:
    """A reader's output stream: each frame with the table time it went on the bus."""

    def __init__(self, boot_ms: int, clock: Any) -> None:
        self.boot_ms = boot_ms
        self.clock = clock
        self.frames: list[tuple[int, bytes]] = []

    def write(self, data: bytes) -> int:
        self.frames.append((self.boot_ms + self.clock.ticks_ms(), bytes(data)))
        return len(data)


def flip_bit(frame: bytes) -> bytes:
    """A single bit error in the payload, as a noisy line makes it."""
    raw = bytearray(c.cobs_decode(frame[:-1]))
    raw[8] ^= 0x04
    return c.cobs_encode(bytes(raw)) + b"\x00"


def seat_bus(seat: str) -> list[tuple[int, str, bytes]]:
    """One reader's run: (table ms, "R" or "H" for who sent it, the frame's bytes)."""
    from cards import CardMap
    from reader import HEARTBEAT_MS, Reader
    from sim.main import ZONES, rfid_hardware, step
    from sim.world import WDT, World
    from zones import RfidScanner

    boot = BOOT_MS[seat]
    rid = SEATS.index(seat) + 1
    events = [{"t": t - boot, "seat": s, "card": card, "zone": zone}
              for t, s, card, zone in PLAY if s == seat]
    chips, ants, clock, _air = rfid_hardware(ZONES)
    world = World(seat, events, chips, None, [])
    tap = Tap(boot, clock)
    reader = Reader(RfidScanner(ants, CardMap(), settle_ms=5), tap, None, seat=seat,
                    scan_ms=50, debounce_ms=100, serial=SERIALS[seat], wdt=WDT(),
                    clock=clock.ticks_ms)
    world.clock = reader.now
    world.polls = lambda: reader.scans
    bus: list[tuple[int, str, bytes]] = []
    host_seq = [0]  # the host numbers its frames per link (protocol.md section 5)

    def host(mtype: int, fields: dict[str, Any]) -> None:
        frame = c.encode(mtype, fields, rid, host_seq[0])
        host_seq[0] = c.seq_next(host_seq[0])
        bus.append((boot + clock.ticks_ms(), "H", frame))
        reader.feed(frame)

    reader.scanner.init()
    reader.hello()
    clock.advance(10_000)
    host(c.CONFIG, {"seat": seat, **CONFIG})
    moved: dict[str, Any] = {}
    next_beat = HEARTBEAT_MS
    next_ack = HEARTBEAT_MS + 20
    damaged: int | None = None  # the seq of the OBSERVE the line damaged
    resend_at: int | None = None
    seen = 0
    while boot + clock.ticks_ms() < END_MS:
        step(world, reader, moved)
        t0 = clock.us
        reader.scan_sync(lambda ms: clock.advance(ms * 1000))
        clock.advance(max(0, reader.scan_ms * 1000 - (clock.us - t0)))
        for at, frame in tap.frames[seen:]:
            f = c.Decoder().feed(frame)[0]
            assert isinstance(f, c.Frame)
            if seat == DAMAGED_SEAT and f.mtype == c.OBSERVE and damaged is None:
                damaged = f.seq
                frame = flip_bit(frame)
                resend_at = clock.ticks_ms() + 15  # the host asks at once (protocol.md 5a)
            bus.append((at, "R", frame))
        seen = len(tap.frames)
        if damaged is not None and resend_at is not None and clock.ticks_ms() >= resend_at:
            resend_at = None
            host(c.RESEND, {"from_seq": damaged})  # the reader resends it, same seq
        if clock.ticks_ms() >= next_beat:
            reader.heartbeat()
            next_beat += HEARTBEAT_MS
        if clock.ticks_ms() >= next_ack:
            host(c.ACK, {"ack_seq": (reader.seq - 1) & 0xFFFF})
            next_ack += HEARTBEAT_MS
    for at, frame in tap.frames[seen:]:
        bus.append((at, "R", frame))
    return bus


def build() -> bytes:
    with tempfile.TemporaryDirectory(prefix="tablesense-capture-") as shared:
        sys.path[:0] = [str(firmware_dir()), str(place_shared(Path(shared)))]
        bus = [item for seat in SEATS for item in seat_bus(seat)]
    bus.sort(key=lambda item: item[0])  # stable: a reader's frames stay in its order
    data = bytearray(b"\x00\x3c\xc3\xf0")  # power-up noise, then the first HELLO right behind
    burst_done = False
    for at, _who, frame in bus:
        if not burst_done and at >= 6000:
            data += b"\x55\x00"  # a noise burst with a stray delimiter in it
            burst_done = True
        data += frame
    return bytes(data)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    data = build()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    dec = c.Decoder()
    items = dec.feed(data) + dec.feed_eof()
    errors = [i.kind for i in items if isinstance(i, c.RemoteProtocolError)]
    kinds: dict[str, int] = {}
    for i in items:
        if isinstance(i, c.Frame):
            kinds[i.name] = kinds.get(i.name, 0) + 1
    print(f"wrote {out}: {len(data)} bytes, {dec.counters['frames']} frames {kinds}, "
          f"errors {errors}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
