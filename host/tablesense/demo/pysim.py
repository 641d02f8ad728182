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
  (zone, face, level, seen_by) at the next scan after the scenario says so;
* the last 64 OBSERVE frames kept for ``RESEND``; a host ``ACK`` frees them.

The scenario is the one the VM reads (firmware/sim/world.py): JSON lines
``{"t": ms, "seat": .., "card": .., "zone": .., "face": .., "level": ..,
"seen_by": [..]}`` with ``t`` counted from ``zero`` (a ``time.monotonic()``
value; the demo gives the four readers of a table the same one). Times
before the CONFIG show up at the first scan after it, as on the VM.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections import OrderedDict
from typing import Any

from tablesense import codec

SEATS = ("N", "E", "S", "W")
CAPABILITIES = ["face", "level", "seen_by", "conf", "floor", "detached", "resend"]
SCAN_MS = 20
HEARTBEAT_MS = 1000
RING = 64


class PySimReader:
    """One simulated reader behind a pty; ``port`` is what the host opens."""

    def __init__(self, seat: str, scenario: list[dict[str, Any]], *, zero: float | None = None,
                 serial: str | None = None, reader_id: int | None = None) -> None:
        if seat not in SEATS:
            raise ValueError(f"seat {seat!r}: expected one of N E S W")
        self.seat = seat
        self.events = sorted((e for e in scenario if e.get("seat", seat) == seat),
                             key=lambda e: int(e.get("t", 0)))
        self.zero = time.monotonic() if zero is None else zero
        self.serial = serial or f"PYSIM-{seat}"
        self.reader_id = SEATS.index(seat) + 1 if reader_id is None else reader_id
        self.seq = 0
        self.configured = False
        self.frames_sent = 0
        self.resent = 0
        self._ring: OrderedDict[int, bytes] = OrderedDict()
        self._truth: dict[str, tuple[Any, ...]] = {}
        self._reported: dict[str, tuple[Any, ...]] = {}
        self._next = 0
        self._decoder = codec.Decoder()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        self._thread = threading.Thread(target=self._run, name=f"pysim-{seat}", daemon=True)
        self._thread.start()

    # -- the SimReader interface ----------------------------------------------
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 2.0) -> int | None:
        self._stop.set()
        self._thread.join(timeout)
        with self._lock:
            fds, self.master, self._slave = (self.master, self._slave), -1, -1
        for fd in fds:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        return 0

    def now(self) -> int:
        return int((time.monotonic() - self.zero) * 1000) & 0xFFFFFFFF

    # -- the loop ---------------------------------------------------------------
    def _run(self) -> None:
        next_hello = next_beat = 0.0
        while not self._stop.is_set():
            mono = time.monotonic()
            if not self.configured and mono >= next_hello:
                self._send(codec.HELLO, {"kind": "camera", "firmware": "0.1.0",
                                         "capabilities": CAPABILITIES, "serial": self.serial})
                next_hello = mono + HEARTBEAT_MS / 1000
            if mono >= next_beat:
                self._send(codec.HEARTBEAT, {"uptime": self.now(), "reads": self.frames_sent,
                                             "errors": 0, "dropped": 0})
                next_beat = mono + HEARTBEAT_MS / 1000
            self._advance(self.now())
            if self.configured:
                self._scan()
            self._receive(SCAN_MS / 1000)

    def _advance(self, now: int) -> None:
        while self._next < len(self.events) and int(self.events[self._next].get("t", 0)) <= now:
            e = self.events[self._next]
            self._next += 1
            card = str(e["card"]).upper()
            if e.get("zone", "gone") == "gone":
                self._truth.pop(card, None)
            else:
                seen = e.get("seen_by")
                others = None if seen is None else tuple(
                    s for s in SEATS if s in seen and s != self.seat)
                self._truth[card] = (e["zone"], e.get("face", "unknown"),
                                     e.get("level", "unknown"), others, e.get("conf"))

    def _scan(self) -> None:
        changed = [c for c in set(self._truth) | set(self._reported)
                   if self._truth.get(c) != self._reported.get(c)]
        for card in sorted(changed, key=codec.card_index):
            obs = self._truth.get(card)
            fields: dict[str, Any] = {"seat": self.seat, "card": card, "t": self.now()}
            if obs is None:
                fields.update(zone="gone", face="unknown", level="unknown")
                self._reported.pop(card, None)
            else:
                fields.update(zone=obs[0], face=obs[1], level=obs[2])
                if obs[3] is not None:
                    fields["seen_by"] = list(obs[3])
                if obs[4] is not None and obs[4] < 1:
                    fields["conf"] = obs[4]
                self._reported[card] = obs
            self._send(codec.OBSERVE, fields)

    def _send(self, mtype: int, fields: dict[str, Any]) -> None:
        with self._lock:
            frame = codec.encode(mtype, fields, reader=self.reader_id, seq=self.seq)
            if mtype in (codec.OBSERVE, codec.CALL, codec.FAULT):
                self._ring[self.seq] = frame
                while len(self._ring) > RING:
                    self._ring.popitem(last=False)
            self.seq = codec.seq_next(self.seq)
            self.frames_sent += 1
            self._write(frame)

    def _write(self, data: bytes) -> None:
        if self.master < 0:
            return
        with contextlib.suppress(OSError):  # nobody has the port open (yet): the bytes wait
            os.write(self.master, data)

    def _receive(self, timeout: float) -> None:
        fd = self.master
        if fd < 0:
            return
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return
            data = os.read(fd, 4096)
        except OSError:
            time.sleep(timeout)  # the host has not opened its end yet
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
