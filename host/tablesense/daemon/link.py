"""One reader link: owns one port, served by the links' loop; never gives up on a reader.

The link opens its port (``tablesense.daemon.ports.open_port``, so any pyserial URL),
reads what arrives and writes what its :class:`~.session.ReaderSession` asks
for. Everything the protocol decides (HELLO and CONFIG, ACK, RESEND at a gap,
signing and the replay window, liveness, the messages for the core) is the
session's, which does no I/O; this module keeps the port: opening it,
reopening it with capped exponential backoff for as long as the daemon runs
(a vanished port, a pty closed mid-frame or any read error is never an
exit), resetting a USB reader that stopped answering, writing without ever
waiting, and back-pressure.

Every link of the daemon is served by one thread (:mod:`.loop`: a selector
over all the ports), so threads do not grow with readers. A reader that
floods garbage gets one read (at most 4 KiB) per wake-up like every other,
and the core sees decoded frames, never bytes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tablesense.daemon.config import LinkSettings
from tablesense.daemon.ports import (
    Port,
    PortError,
    open_failure,
    open_port,
    port_fileno,
    read_ready,
)
from tablesense.daemon.sequence import Sequencer
from tablesense.daemon.session import Action, Hangup, LinkMessage, ReaderSession, Transmit

if TYPE_CHECKING:
    from tablesense.daemon.loop import LinkLoop

log = logging.getLogger("tablesense.link")

# Back-pressure: when more than this many messages wait in the sink (one with
# qsize(), such as a queue drained by another thread), the link stops reading
# its port until it is below half of it, so an overload fills the readers'
# buffers, not our memory. (The daemon's core runs in the links' own thread,
# so its backlog is never more than one wake-up's reads.)
MAX_BACKLOG = 2000


def now_ms() -> int:
    return int(time.time() * 1000)


def write_now(port: Port, data: bytes) -> int:
    """Write what the port takes now; never wait. Returns the bytes written.

    pyserial's ``write`` on a POSIX port selects for writability after every
    write, and without a write timeout waits for ever on a reader that has
    stopped draining its input (a hung USB device), which would hang this
    link. So a port with a file descriptor (a tty, a pty) gets one
    non-blocking ``os.write``; a frame cut short arrives as a bad CRC, and
    everything the host sends (CONFIG, ACK, RESEND) is sent again anyway.
    Other ports (``socket://``, ``loop://``) use pyserial's ``write``.
    """
    fd = getattr(port, "fd", None)
    if isinstance(fd, int) and fd >= 0:
        try:
            return os.write(fd, data)
        except BlockingIOError:
            return 0
    n = port.write(data)
    return len(data) if n is None else int(n)


class Sink(Protocol):
    """Where a link puts its messages (a ``queue.Queue`` shared with the core)."""

    def put(self, item: LinkMessage, /) -> None: ...


class ReaderLink:
    """Keeps one reader's port open and its session fed.

    ``seat``, ``seats``, ``key`` and ``require_signed``: see
    :class:`~.session.ReaderSession`. ``resolve`` returns the port URL to
    open now (for a reader found by USB serial number the URL changes when it
    is replugged) or None when it is not plugged in. ``reset`` (optional) is
    tried when a reader that was found stops answering (a USB reset, best
    effort).
    """

    def __init__(self, table: str, seat: str, resolve: Callable[[], str | None],
                 out: Sink, settings: LinkSettings | None = None,
                 reset: Callable[[], bool] | None = None, key: bytes | None = None,
                 require_signed: bool = False, seats: tuple[str, ...] = ()) -> None:
        self.table = table
        self.seat = seat
        self.resolve = resolve
        self.out = out
        self.s = settings or LinkSettings()
        self.reset_device = reset
        self.session = ReaderSession(table, seat, seats, self.s, key, require_signed,
                                     now=now_ms())
        self.seats = self.session.seats
        self.loop: LinkLoop | None = None
        self._own_loop: LinkLoop | None = None
        self.port: Port | None = None
        self._fd: int | None = None
        self._paused_at: int | None = None
        self._backoff = self.s.backoff_initial_ms
        self._next_open = self._first_try = 0
        self._cause = ""  # why the port last failed to open (ports.CAUSES), "" once open
        self._bytes_at_open = 0  # the session's byte count when the port last opened

    # -- the session's, read here ---------------------------------------------------
    @property
    def state(self) -> str:
        """``starting``, ``online`` or ``offline``."""
        return self.session.state

    @property
    def counters(self) -> dict[str, int]:
        return self.session.counters

    @property
    def seq(self) -> Sequencer:
        return self.session.seq

    @property
    def identity(self) -> dict[str, Any]:
        """kind, firmware and serial, from the reader's HELLO."""
        return self.session.identity

    @property
    def url(self) -> str | None:
        return self.session.url

    def health(self) -> dict[str, Any]:
        return self.session.health()

    def all_counters(self) -> dict[str, int]:
        return self.session.all_counters()

    def resume_after(self, seq: int) -> None:
        """See :meth:`.session.ReaderSession.resume_after` (the daemon restarted)."""
        self.session.resume_after(seq)

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> None:
        """Serve this link alone, in a loop of its own (tests, tools). The daemon
        instead adds every link to one :class:`~tablesense.daemon.loop.LinkLoop`."""
        from tablesense.daemon.loop import LinkLoop

        own = LinkLoop(name=f"link-{self.table}-{self.seat}")
        own.add(self)
        self._own_loop = own
        own.start()

    def stop(self, timeout: float = 2.0) -> None:
        if self._own_loop is not None:
            self._own_loop.stop(timeout)
            self._own_loop = None

    # -- on the loop ------------------------------------------------------------------
    def attach(self, loop: LinkLoop) -> None:
        self.loop = loop
        self._next_open = now_ms()
        self._first_try = self._next_open

    def shutdown(self) -> None:
        """The loop stops: close the port (no offline message: the daemon says so)."""
        self._close_port()

    def on_readable(self, t: int) -> None:
        """Input is waiting on the port: read it, hand it to the session."""
        port = self.port
        if port is None or self._paused_at is not None:
            return
        try:
            data = read_ready(port)
        except (PortError, OSError) as exc:
            log.warning("event=port-lost table=%s seat=%s url=%s error=%r",
                        self.table, self.seat, self.url, str(exc))
            self._act(self.session.port_failed(t), t)
            return
        if data:
            self._act(self.session.receive(data, t), t)

    def service(self, t: int) -> None:
        """Timers: open a closed port when due; the session's (resends, CONFIG, ACKs,
        liveness), unless back-pressure holds the port."""
        if self.port is None:
            if t >= self._next_open:
                self._open(t)
            return
        if self._paused_at is not None or self._congested():
            self._pause(t)
            if self._paused_at is not None:
                return
        self._act(self.session.tick(t), t)

    def _act(self, actions: list[Action], t: int) -> None:
        """Carry out what the session asked for, in order."""
        for a in actions:
            if type(a) is LinkMessage:
                self.out.put(a)
            elif type(a) is Transmit:
                self._write(a.data)
            elif type(a) is Hangup:
                if a.reset and self.reset_device is not None and self.reset_device():
                    log.info("event=usb-reset table=%s seat=%s", self.table, self.seat)
                self._end_session(a.worked, t)
                return  # the port is closed: nothing after a hang-up is for it

    def _open(self, t: int) -> None:
        url = self.resolve()
        if url is None:
            self._cause = "not-plugged-in"
            self._act(self.session.open_failed(now_ms()), t)
            self._end_session(False, t)
            return
        self.session.url = url
        try:
            port = open_port(url, baudrate=self.s.baudrate, timeout=0)
        except (PortError, OSError) as exc:
            self._cause = exc.cause if isinstance(exc, PortError) else open_failure(exc)
            log.debug("event=open-failed table=%s seat=%s url=%s cause=%s error=%r",
                      self.table, self.seat, url, self._cause, str(exc))
            self._act(self.session.open_failed(now_ms()), t)
            self._end_session(False, t)
            return
        self.counters["opens"] += 1
        self._cause = ""
        self._bytes_at_open = self.counters["bytes"]
        log.info("event=port-open table=%s seat=%s url=%s", self.table, self.seat, url)
        self.port = port
        self._fd = port_fileno(port)
        assert self.loop is not None
        if self._fd is not None:
            self.loop.watch(self._fd, self)
        else:
            self.loop.poll(self, True)
        self._act(self.session.opened(now_ms()), t)

    def _close_port(self) -> None:
        port, self.port = self.port, None
        if self.loop is not None:
            if self._fd is not None:
                self.loop.unwatch(self._fd)
            self.loop.poll(self, False)
        self._fd = None
        self._paused_at = None
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()

    def _end_session(self, worked: bool, t: int) -> None:
        """Close the port; reopen after the backoff (reset if the reader spoke)."""
        self._close_port()
        if worked:
            self._backoff = self.s.backoff_initial_ms
        elif t - self._first_try >= self.s.heartbeat_timeout_ms:
            self._act(self.session.unreachable(t, self._silence()), t)
        self._next_open = t + self._backoff
        if not worked:
            self._backoff = min(self._backoff * 2, self.s.backoff_max_ms)

    def _silence(self) -> str:
        """Why a reader never heard says nothing (ports.CAUSES): its port would not open
        (no such port, busy, ...), bytes came but no valid frame, or nothing came."""
        if self._cause:
            return self._cause
        if self.counters["bytes"] > self._bytes_at_open:
            return "no-valid-frame"
        return "never-answered"

    def _write(self, data: bytes) -> None:
        port = self.port
        if port is None:
            return
        try:
            n = write_now(port, data)
            if n < len(data):
                self.counters["tx_short"] = self.counters.get("tx_short", 0) + 1
        except Exception as exc:  # the read side notices a dead port next
            log.debug("event=write-failed table=%s seat=%s error=%r",
                      self.table, self.seat, str(exc))

    # -- back-pressure -------------------------------------------------------------------
    def _congested(self, limit: int = MAX_BACKLOG) -> bool:
        qsize = getattr(self.out, "qsize", None)
        return qsize is not None and int(qsize()) > limit

    def _pause(self, t: int) -> None:
        """While the sink is behind, leave the bytes in the port (the kernel's and the
        reader's buffers fill); the pause does not count against the reader's heartbeat."""
        if self._paused_at is None:
            self._paused_at = t
            if self._fd is not None and self.loop is not None:
                self.loop.unwatch(self._fd)
            return
        if self._congested(MAX_BACKLOG // 2):
            return
        paused, self._paused_at = t - self._paused_at, None
        self.session.paused(paused)
        if self._fd is not None and self.loop is not None:
            self.loop.watch(self._fd, self)
