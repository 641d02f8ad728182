"""A simulated camera reader in Python: the firmware's wire behaviour, no VM.

The demo runs the real firmware in the MicroPython VM (tablesense.sim) when
it can; for bigger clubs, or where ``micropython`` is missing, it runs this
instead. It speaks the same protocol over a pty (hardware/protocol.md
sections 4-5), built with the same codec, so the daemon's link, journal and
engine see exactly what they would see from a reader board:

* ``HELLO`` (kind ``camera``, capabilities face, level, seen_by, conf,
  detached, floor, resend) at start and once a second until a ``CONFIG``
  for its id arrives; the CONFIG is answered with ``ACK``, and only then
  does it report;
* ``HEARTBEAT`` every second; ``OBSERVE`` for each change of a card's
  (zone, face, level, seen_by), debounced by the firmware's own debouncer
  (:mod:`tablesense.onboard.debounce`, the very module the board runs; the camera's 0.6
  confidence floor as firmware/camera.py);
* the last 64 frames but HELLOs kept for ``RESEND`` (as the firmware keeps
  them); a host ``ACK`` frees them.

With a noise ``profile`` (tablesense.sim.noise) the camera sees the scenario
through :class:`tablesense.onboard.pollnoise.Noise` (the firmware simulator's own
model), poll by poll (missed reads,
boundary flicker, hands being sorted, misrecognised cards, the neighbours'
cards at the edge of the picture), and the wire delays frames (``jitter_ms``)
and corrupts some (``reorder``: the host asks for them again, so they arrive
after newer frames). :class:`PySimCore` is that reader's logic on a virtual
clock, without the pty: the readers benchmark runs boards through it.

The scenario is the one the VM reads (firmware/sim/world.py): JSON lines
``{"t": ms, "seat": .., "card": .., "zone": .., "face": .., "level": ..,
"seen_by": [..]}`` with ``t`` counted from ``zero`` (a ``time.monotonic()``
value; the demo gives the four readers of a table the same one). Times
before the CONFIG show up at the first scan after it, as on the VM.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import threading
import time
import tty
from collections import OrderedDict
from typing import Any, Protocol

from tablesense.contract import vocab
from tablesense.onboard.debounce import Debouncer
from tablesense.onboard.pollnoise import NEAR_ZONES, Noise, neighbours
from tablesense.onboard.wire import codec
from tablesense.sim.noise import Profile

SEATS: tuple[str, ...] = vocab.SEATS
CAPABILITIES = ["face", "level", "seen_by", "conf", "floor", "detached", "resend"]
FIRMWARE = "0.7.0"  # the firmware's version (firmware/reader.py), whose debouncer it runs
SCAN_MS = 20
DEBOUNCE_MS = 40  # the sim firmware's default (firmware/sim/main.py)
MIN_CONF = 0.6  # firmware/camera.py
HEARTBEAT_MS = 1000
RING = 64


class PySimCore:
    """One camera reader's logic on a given clock: scenario -> sensing -> debounce -> OBSERVE.

    ``scenario`` may hold every seat's lines: this seat's are its truth, its
    neighbours' (table and trick zones) are what cross-talk can show it.
    ``scan(now)`` senses once and returns the OBSERVE fields to send.
    """

    def __init__(self, seat: str, scenario: list[dict[str, Any]],
                 profile: Profile | None = None, seed: int = 1,
                 debounce_ms: int = DEBOUNCE_MS) -> None:
        self.seat = seat
        self.events = sorted((e for e in scenario if e.get("seat", seat) == seat),
                             key=lambda e: int(e.get("t", 0)))
        near = neighbours(seat)
        self.others = sorted((e for e in scenario if e.get("seat") in near and "card" in e),
                             key=lambda e: int(e.get("t", 0)))
        self.noise: Noise | None = None
        if profile is not None:
            n = Noise(profile.poll_level(), seed)
            self.noise = n if n.active() else None
        self.debouncer = Debouncer(debounce_ms)
        self.truth: dict[str, dict[str, Any]] = {}
        self.near: dict[str, dict[str, Any]] = {}
        self._next = 0
        self._onext = 0
        self.reads = 0

    def advance(self, now: int) -> None:
        """The scenario's lines up to ``now`` become the truth."""
        while self._next < len(self.events) and int(self.events[self._next].get("t", 0)) <= now:
            e = self.events[self._next]
            self._next += 1
            card = str(e["card"]).upper()
            old = self.truth.get(card)
            gone = e.get("zone", "gone") == "gone"
            if self.noise is not None:
                self.noise.moved(card, old, None if gone else e, now, self.truth)
            if gone:
                self.truth.pop(card, None)
            else:
                self.truth[card] = e
        while self._onext < len(self.others) and int(self.others[self._onext].get("t", 0)) <= now:
            e = self.others[self._onext]
            self._onext += 1
            card = str(e["card"]).upper()
            if e.get("zone") in NEAR_ZONES:
                self.near[card] = e
            else:
                self.near.pop(card, None)

    def detections(self, now: int) -> list[tuple[str, dict[str, Any], float | None]]:
        """What the camera recognises this poll: (card, event shown, conf)."""
        n = self.noise
        if n is None:
            return [(c, e, e.get("conf")) for c, e in self.truth.items()]
        return n.camera(self.truth, self.near, now)

    def scan(self, now: int) -> list[dict[str, Any]]:
        """One scan at ``now``: the OBSERVE fields of the changes it commits."""
        self.advance(now)
        seen: dict[str, tuple[Any, ...]] = {}
        for card, e, conf in self.detections(now):
            c = 1.0 if conf is None else conf
            if c < MIN_CONF:
                continue
            old = seen.get(card)
            if old is not None and (1.0 if old[4] is None else old[4]) >= c:
                continue
            sb = e.get("seen_by")
            seen[card] = (e.get("zone"), e.get("face", "unknown"), e.get("level", "unknown"),
                          None if sb is None else tuple(s for s in SEATS if s in sb), conf)
            self.reads += 1
        out: list[dict[str, Any]] = []
        for card, obs in self.debouncer.update(now, seen):
            f: dict[str, Any] = {"seat": self.seat, "card": card, "t": now & 0xFFFFFFFF}
            if obs is None:
                f.update(zone="gone", face="unknown", level="unknown")
            else:
                f.update(zone=obs[0], face=obs[1], level=obs[2])
                if obs[3] is not None:
                    f["seen_by"] = [s for s in obs[3] if s != self.seat]
                if obs[4] is not None and obs[4] < 1:
                    f["conf"] = obs[4]
            out.append(f)
        return out


class ReaderCore(Protocol):
    """A reader's logic, behind :class:`PySimReader`'s wire: ``scan`` once configured."""

    @property
    def reads(self) -> int:
        """Card reads so far (the heartbeat's count)."""
        ...

    def advance(self, now: int) -> None: ...

    def scan(self, now: int) -> list[dict[str, Any]]: ...


class Wire(Protocol):
    """What a reader's frames travel on: ``port`` is what the host opens."""

    port: str

    def write(self, data: bytes) -> None: ...

    def read(self, timeout: float) -> bytes:
        """What arrived within ``timeout`` seconds (b"": nothing)."""
        ...

    def close(self) -> None: ...


class PtyWire:
    """A pty: the reader holds the master, the host opens ``port`` (the slave's path)."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)

    def write(self, data: bytes) -> None:
        if self.master < 0:
            return
        with contextlib.suppress(OSError):  # nobody has the port open (yet): the bytes wait
            os.write(self.master, data)

    def read(self, timeout: float) -> bytes:
        fd = self.master
        if fd < 0:
            return b""
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
            return os.read(fd, 4096) if ready else b""
        except OSError:
            time.sleep(timeout)  # the host has not opened its end yet
            return b""

    def close(self) -> None:
        fds, self.master, self._slave = (self.master, self._slave), -1, -1
        for fd in fds:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)


class PySimReader:
    """One simulated reader behind a pty; ``port`` is what the host opens."""

    def __init__(self, seat: str, scenario: list[dict[str, Any]], *, zero: float | None = None,
                 serial: str | None = None, reader_id: int | None = None,
                 profile: Profile | None = None, seed: int = 1,
                 core: ReaderCore | None = None, beat_thread: bool = False,
                 wire: Wire | None = None) -> None:
        if seat not in SEATS:
            raise ValueError(f"seat {seat!r}: expected one of N E S W")
        self.seat = seat
        # ``core``: another reader's logic on this wire (the camera board, tablesense.vision)
        self.core: ReaderCore = core or PySimCore(seat, scenario, profile, seed)
        self.zero = time.monotonic() if zero is None else zero
        self.serial = serial or f"PYSIM-{seat}"
        self.reader_id = SEATS.index(seat) + 1 if reader_id is None else reader_id
        self.seq = 0
        self.configured = False
        self.resent = 0
        self._ring: OrderedDict[int, bytes] = OrderedDict()
        self._wire: list[tuple[int, bytes]] = []  # (due ms, frame): the noisy wire's queue
        self._wire_rng = random.Random(f"{seed}/wire/{seat}")
        self._jitter = profile.jitter_ms if profile is not None else 0
        self._lose = profile.reorder if profile is not None else 0.0
        self.lost = 0
        self._decoder = codec.Decoder()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        # ``wire``: a real board's port (tablesense.vision.wires); by default a pty
        self.wire: Wire = wire or PtyWire()
        self.port = self.wire.port
        # ``beat_thread``: heartbeats from a timer of their own, as a board whose scans
        # take long (a camera pipeline) must still beat once a second
        self._beats = beat_thread
        self._thread = threading.Thread(target=self._run, name=f"pysim-{seat}", daemon=True)
        self._thread.start()
        if beat_thread:
            threading.Thread(target=self._beat, name=f"pysim-beat-{seat}", daemon=True).start()

    # -- the SimReader interface ----------------------------------------------
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 2.0) -> int | None:
        self._stop.set()
        self._thread.join(timeout)
        with self._lock:
            self.wire.close()
        return 0

    def now(self) -> int:
        return int((time.monotonic() - self.zero) * 1000) & 0xFFFFFFFF

    # -- the loop ---------------------------------------------------------------
    def _run(self) -> None:
        next_hello = next_beat = 0.0
        while not self._stop.is_set():
            mono = time.monotonic()
            if not self.configured and mono >= next_hello:
                self._send(codec.HELLO, {"kind": "camera", "firmware": FIRMWARE,
                                         "capabilities": CAPABILITIES, "serial": self.serial})
                next_hello = mono + HEARTBEAT_MS / 1000
            if mono >= next_beat and not self._beats:
                self._send(codec.HEARTBEAT, {"uptime": self.now(), "reads": self.core.reads,
                                             "errors": 0, "dropped": 0})
                next_beat = mono + HEARTBEAT_MS / 1000
            now = self.now()
            if self.configured:
                for fields in self.core.scan(now):
                    self._send(codec.OBSERVE, fields)
            else:
                self.core.advance(now)
            self._flush_wire(self.now())
            self._receive(SCAN_MS / 1000)

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_MS / 1000):
            self._send(codec.HEARTBEAT, {"uptime": self.now(), "reads": self.core.reads,
                                         "errors": 0, "dropped": 0})
            self._flush_wire(self.now())

    def _send(self, mtype: int, fields: dict[str, Any]) -> None:
        with self._lock:
            frame = codec.encode(mtype, fields, reader=self.reader_id, seq=self.seq)
            if mtype != codec.HELLO:
                self._ring[self.seq] = frame
                while len(self._ring) > RING:
                    self._ring.popitem(last=False)
            self.seq = codec.seq_next(self.seq)
            if self._lose and self._wire_rng.random() < self._lose:
                b = bytearray(frame)  # a bit flipped on the wire: the host's CRC drops it
                i = len(b) // 2
                b[i] = b[i] ^ 0x01 if b[i] != 0x01 else 0x02
                frame = bytes(b)
                self.lost += 1
            if not self._jitter:
                self._write(frame)
                return
            due = self.now() + self._wire_rng.randrange(self._jitter + 1)
            if self._wire and due < self._wire[-1][0]:
                due = self._wire[-1][0]  # a reader's frames stay in order
            self._wire.append((due, frame))

    def _flush_wire(self, now: int) -> None:
        with self._lock:
            while self._wire and self._wire[0][0] <= now:
                self._write(self._wire.pop(0)[1])

    def _write(self, data: bytes) -> None:
        self.wire.write(data)

    def _receive(self, timeout: float) -> None:
        data = self.wire.read(timeout)
        if not data:
            return
        for f in self._decoder.feed(data):
            if isinstance(f, codec.Frame) and f.reader == self.reader_id:
                self._on_host_frame(f)

    def _on_host_frame(self, f: codec.Frame) -> None:
        if f.mtype == codec.CONFIG:
            self.configured = True
            self._send(codec.ACK, {"ack_seq": f.seq})
        elif f.mtype == codec.ACK:
            acked = int(f.fields["ack_seq"])
            with self._lock:
                for s in [s for s in self._ring if codec.seq_delta(s, acked) <= 0]:
                    del self._ring[s]
        elif f.mtype == codec.RESEND:
            start = int(f.fields["from_seq"])
            with self._lock:
                again = [fr for s, fr in self._ring.items() if codec.seq_delta(s, start) >= 0]
                self.resent += len(again)
                for fr in again:
                    self._write(fr)
