"""Appending a table's journal: every event, before the engine sees it.

One file per table, ``<journal dir>/<table>.jsonl``, one JSON object a line
in the contract's format (docs/contract.md) (``{"v":1,"t":..,"type":..,...}``). ``t`` never goes
backwards: the writer keeps it monotonic even if the wall clock steps back.

Besides events, the daemon writes one kind of line the engine never sees:

``{"v":1,"t":..,"type":"rejected","source":"cmd","field":..,"error":..,"input":..,"req":..}``
    a command from MQTT that did not parse (bad JSON, unknown or
    non-command type, a bad field). ``input`` is what arrived (the object, or
    the raw text if it was not JSON); ``req`` echoes the client's request id.
    It is there for the record (who sent what, when); replay skips it.

A command that parses but that the engine refuses in the board's state is an
event like any other: it is journaled before the engine sees it, and replay
reports it the same way the daemon did.

**fsync policy** (``[journal] fsync``), the trade-off between disk wear and
what a power cut may take; a crash of the daemon process alone never loses a
line, since each one is written to the OS before the engine acts on it:

* ``always``: fsync after every line. Safest, one disk flush per
  observation (readers can send dozens a second per table).
* ``event`` (default): fsync at once after game events and rejected
  commands (rare, and rulings hang on them), and observations at most every
  ``fsync_interval_ms``. A power cut may lose up to that much of the
  observation stream.
* ``interval``: every line at most every ``fsync_interval_ms``.
* ``never``: leave it to the OS (tests, throwaway runs).

Whatever the policy, :meth:`sync` is called before a ruling is handed to
the outbox, so an alert never reaches the director for an observation the
journal could still lose.

**Group commit.** The daemon's core appends a whole wake-up's frames with
``defer=True`` (buffered here, not yet written) and then calls
:meth:`commit` once: one write of all the lines and, where the policy wants
it (``always``, or ``event`` after a game event, or the interval is due), one
fsync covering every one of them. Nothing leaves the daemon for those frames
before that (their ACKs to the readers, state, alerts: an alert's
:meth:`sync` writes and fsyncs what is buffered first), so a crash between
append and commit loses only frames the readers still keep and resend.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import msgspec

_encode = msgspec.json.Encoder().encode
# An fsync quicker than this (moving average) is done in the caller's thread.
FAST_SYNC_MS = 0.5


def journal_path(directory: Path, table: str) -> Path:
    return directory / f"{table}.jsonl"


def _ends_mid_line(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                return False
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except FileNotFoundError:
        return False


class JournalWriter:
    """Appends JSON lines to one table's journal with a chosen fsync policy."""

    def __init__(self, path: Path, fsync: str = "event", interval_ms: int = 200) -> None:
        if fsync not in ("always", "event", "interval", "never"):
            raise ValueError(f"unknown fsync policy {fsync!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.policy = fsync
        self.interval_ms = interval_ms
        self.last_t = 0
        self.lines = 0
        self.fsyncs = 0
        self.sync_ms: float | None = None  # a moving average of fsync times
        self._lock = threading.Lock()
        torn = _ends_mid_line(path)
        # Unbuffered appends of whole lines: a write that fails (disk full) leaves
        # its bytes in _pending, and they go out first, in order, with the next
        # write that succeeds (a file object's buffer would drop them once full).
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._pending = bytearray()
        self._closed = False
        if torn:  # a power cut mid-line: end it, so the next line stands alone
            self._pending += b"\n"
            self._drain()
        self._dirty = False
        self._urgent = False  # a line the policy wants durable at once is waiting
        self._synced_at = time.monotonic()

    def stamp(self, t: int | None = None) -> int:
        """A host time for a new line: now (or ``t``), never before the last line's."""
        now = int(time.time() * 1000) if t is None else t
        return max(now, self.last_t)

    def append(self, obj: dict[str, Any], defer: bool = False) -> None:
        """Write one line (with ``v`` and a monotonic ``t``) and flush it to the OS.

        ``defer``: keep it buffered until :meth:`commit` (or :meth:`sync`,
        :meth:`flush`), which writes the lines together, in order.
        """
        line = _encode(obj)
        with self._lock:
            self._pending += line
            self._pending += b"\n"
            self.lines += 1
            self._dirty = True
            t = obj.get("t")
            if isinstance(t, int):
                self.last_t = max(self.last_t, t)
            if self.policy == "always" or (self.policy == "event"
                                           and obj.get("type") != "observe"):
                self._urgent = True
            if not defer:
                self._commit_locked()

    def commit(self, background: bool = False) -> bool:
        """Write what is buffered, and fsync if the policy wants it now (one fsync
        for every line so far). OSError (disk full): the lines stay buffered.

        ``background``: an fsync that is only due by the interval is not done
        here but returned True, for the caller to have :meth:`sync` run off its
        thread (the daemon's core does: a disk's fsync must not stall the
        readers); one the policy wants at once (``always``, a game event under
        ``event``) is done here all the same.
        """
        with self._lock:
            return self._commit_locked(background)

    def _commit_locked(self, background: bool = False) -> bool:
        self._drain()  # OSError (disk full): the lines wait in _pending
        if not self._dirty or self.policy == "never":
            return False
        now = time.monotonic()
        due = (now - self._synced_at) * 1000 >= self.interval_ms
        if self._urgent or (due and self.policy in ("event", "interval") and not background):
            self._sync_locked(now)
            return False
        return due and self.policy in ("event", "interval")

    @property
    def pending(self) -> int:
        """Bytes of lines not yet written (a write failed: disk full)."""
        return len(self._pending)

    def flush(self) -> None:
        """Hand the OS what is still pending (lines whose write failed, e.g. disk full).

        A failed ``append`` keeps its line; it goes out, in order, with the next
        write that succeeds, or with this call. OSError if it still cannot.
        """
        with self._lock:
            self._drain()

    def _drain(self) -> None:
        while self._pending:
            n = os.write(self._fd, self._pending)
            del self._pending[:n]

    def sync_due(self) -> bool:
        """Has a quiet stream waited its interval for an fsync (see :meth:`maybe_sync`)?"""
        with self._lock:
            return (self._dirty and self.policy in ("event", "interval")
                    and (time.monotonic() - self._synced_at) * 1000 >= self.interval_ms)

    def maybe_sync(self) -> None:
        """Called from time to time: honour the interval for a quiet stream."""
        if self.sync_due():
            self.sync()

    def sync(self) -> None:
        """Make everything written so far durable now (before a ruling leaves).

        Thread-safe, and the fsync runs outside the writer's lock: lines can be
        appended meanwhile (they are not covered; the next sync covers them).
        """
        with self._lock:
            self._drain()  # lines still pending (a full disk) first: OSError if it cannot
            if not self._dirty or self.policy == "never":
                return
            self._dirty = self._urgent = False
            self._synced_at = time.monotonic()
            fd = self._fd
        started = time.perf_counter()
        try:
            os.fsync(fd)
        except OSError:
            with self._lock:
                self._dirty = True
            raise
        took = (time.perf_counter() - started) * 1000
        with self._lock:
            self.fsyncs += 1
            self._note_sync_ms(took)

    def _note_sync_ms(self, took: float) -> None:
        prev = self.sync_ms
        self.sync_ms = took if prev is None else 0.8 * prev + 0.2 * took

    @property
    def fast_sync(self) -> bool:
        """Have this journal's fsyncs lately been quick (tmpfs, a disk with a
        power-loss-protected cache)? Then waiting for one costs less than a hand-over
        to another thread (see ``TableRuntime._alerts``)."""
        ms = self.sync_ms
        return ms is not None and ms < FAST_SYNC_MS

    def _sync_locked(self, now: float) -> None:
        started = time.perf_counter()
        os.fsync(self._fd)
        self._note_sync_ms((time.perf_counter() - started) * 1000)
        self.fsyncs += 1
        self._dirty = False
        self._urgent = False
        self._synced_at = now

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._drain()
                if self._dirty and self.policy != "never":
                    os.fsync(self._fd)
            finally:
                os.close(self._fd)
