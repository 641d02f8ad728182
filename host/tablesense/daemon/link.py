"""One reader link: owns one port, served by the links' loop; never gives up on a reader.

The link opens its port (``tablesense.daemon.ports.open_port``, so any pyserial URL),
decodes frames, answers the reader's ``HELLO`` with ``CONFIG`` (its seat
from the daemon's config, resent until the reader ACKs it), sends cumulative
``ACK`` for what it delivered (hardware/protocol.md sections 4-5), puts frames
back in sequence order (asking for ``RESEND`` on a gap, and at once when a
frame arrives damaged, see :mod:`.sequence`) and hands OBSERVE/CALL/FAULT
frames to the daemon core through one shared queue.

Liveness: a reader is ``online`` from its first valid frame until no valid
frame has come for ``heartbeat_timeout_ms`` (readers beat at 1 Hz; the
default 3.5 s is three missed beats). Then it is ``offline``: the core raises a
``reader-offline`` alert, and the link closes the port and reopens it with
capped exponential backoff, for as long as the daemon runs. A vanished port,
a pty closed mid-frame or any read error is the same case: never an exit.

Every link of the daemon is served by one thread (:mod:`.loop`: a selector
over all the ports), so threads do not grow with readers. A reader that
floods garbage gets one read (at most 4 KiB) per wake-up like every other,
and the core sees decoded frames, never bytes.

Signing (hardware/protocol.md section 2a): with the reader's ``key`` the link
checks every signed frame's MAC and stamp, signs what it sends, and, when the
table requires signing, drops unsigned frames. A frame whose MAC is wrong
(``bad_signature``) or that is unsigned where required (``unsigned``) is
something a reader holding its key never sends (line noise fails the CRC
first): it is counted and the core raises a ``reader-spoofed`` alert, at most
one per reader per ``SPOOF_ALERT_INTERVAL_MS``. A good MAC on a stale stamp is
a replay (``replayed``): dropped. The one exception is ``HELLO``: a reader that
rebooted has lost its stamp, so a stale HELLO with a good MAC is still
answered (``stale_hello``), though it does not count as a sign of life; the
CONFIG that answers it carries the host's clock as its stamp, which the reader
adopts (see :meth:`ReaderLink._start_session`). A signed link also starts a
session when it opens the port. The window outlives the port, so unplugging
a reader does not reopen it to old frames.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol

from tablesense.contract import vocab
from tablesense.daemon.fastwire import FastDecoder
from tablesense.daemon.ports import Port, PortError, open_port, port_fileno, read_ready
from tablesense.daemon.sequence import Sequencer
from tablesense.daemon.trust import trusted
from tablesense.onboard.wire import codec

if TYPE_CHECKING:
    from tablesense.daemon.loop import LinkLoop

log = logging.getLogger("tablesense.link")

Kind = Literal["frame", "online", "offline", "health", "spoofed"]
CONFIG_RETRY_MS = 500
ACK_EVERY_FRAMES = 8
ACK_EVERY_MS = 250
SPOOF_ALERT_INTERVAL_MS = 60_000
# Back-pressure: when more than this many messages wait in the sink (one with
# qsize(), such as a queue drained by another thread), the link stops reading
# its port until it is below half of it, so an overload fills the readers'
# buffers, not our memory. (The daemon's core runs in the links' own thread,
# so its backlog is never more than one wake-up's reads.)
MAX_BACKLOG = 2000
# Signature stamps of the host: MAVLink's clock, 10 us units since 2015-01-01 UTC.
STAMP_EPOCH = 1420070400
# decode errors that are a frame damaged on the wire (not a forgery: that is a good CRC)
DAMAGED = frozenset({"bad_crc", "truncated", "oversize", "garbage_bytes"})
SIGNING_COUNTERS = ("unsigned", "bad_signature", "replayed", "stale_hello")


def now_ms() -> int:
    return int(time.time() * 1000)


def host_stamp(unix_time: float | None = None) -> int:
    """The host's signature stamp for a moment (default now): 10 us since 2015."""
    t = time.time() if unix_time is None else unix_time
    return max(0, int((t - STAMP_EPOCH) * 100_000)) & codec.MAX_STAMP


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


class ReplayWindow:
    """Which stamps of one sender are fresh: the newest plus a sliding bitmap.

    As IPsec's anti-replay window (RFC 4303 section 3.4.3): a stamp newer than
    any seen is fresh; one at most ``size - 1`` behind the newest is fresh
    once (a resent or reordered frame that never arrived); anything else is a
    replay. :meth:`raise_floor` makes every stamp up to a value stale (the
    start of a session).

    >>> w = ReplayWindow(4)
    >>> [w.accept(s) for s in (5, 5, 3, 7, 3, 1)]
    [True, False, True, True, False, False]
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.newest = -1
        self._bits = 0  # bit i: stamp newest - i was seen
        self._mask = (1 << size) - 1

    def fresh(self, stamp: int) -> bool:
        if stamp > self.newest:
            return True
        d = self.newest - stamp
        return d < self.size and not (self._bits >> d) & 1

    def accept(self, stamp: int) -> bool:
        """Is ``stamp`` fresh? If so, remember it as seen."""
        if stamp > self.newest:
            shift = stamp - self.newest
            self._bits = ((self._bits << shift) | 1) & self._mask if shift < self.size else 1
            self.newest = stamp
            return True
        d = self.newest - stamp
        if d >= self.size or (self._bits >> d) & 1:
            return False
        self._bits |= 1 << d
        return True

    def raise_floor(self, stamp: int) -> None:
        """From now on every stamp up to ``stamp`` is stale."""
        if stamp > self.newest:
            self.newest = stamp
            self._bits = self._mask


@dataclass(frozen=True)
class LinkSettings:
    baudrate: int = 115200
    heartbeat_timeout_ms: int = 3500
    backoff_initial_ms: int = 200
    backoff_max_ms: int = 5000
    resend_timeout_ms: int = 500
    scan_ms: int = 20
    debounce_ms: int = 0
    health_interval_ms: int = 1000


NO_HEALTH: Mapping[str, Any] = MappingProxyType({})


class LinkMessage(NamedTuple):
    """What a link tells the core. ``t`` is host time (ms) of receipt.

    Immutable, and a named tuple rather than a frozen dataclass: one is made
    for every frame, and a frozen dataclass's ``__init__`` (a guarded
    ``setattr`` a field) was a seventh of the core's time at line rate.
    """

    table: str
    seat: str  # the reader's name: its seat, or a name for a reader covering several
    kind: Kind
    t: int
    frame: codec.Frame | None = None
    health: Mapping[str, Any] = NO_HEALTH
    reason: str = ""
    seats: tuple[str, ...] = ()  # the holders the reader covers (empty: its own seat)
    source: str | None = None  # the reader's kind from its HELLO (rfid, camera), if one of these


class Sink(Protocol):
    """Where a link puts its messages (a ``queue.Queue`` shared with the core)."""

    def put(self, item: LinkMessage, /) -> None: ...


class ReaderLink:
    """The thread that keeps one reader connected.

    ``seat`` names the reader (its seat, or any name for a reader covering
    several seats: a camera board over the whole table); ``seats`` are the
    holders it covers (default: ``seat``). A multi-seat reader is configured
    with its first seat (CONFIG has one) and names each card's holder itself.

    ``resolve`` returns the port URL to open now (for a reader found by USB
    serial number the URL changes when it is replugged) or None when it is not
    plugged in. ``reset`` (optional) is tried when a reader that was found
    stops answering (a USB reset, best effort).
    """

    def __init__(self, table: str, seat: str, resolve: Callable[[], str | None],
                 out: Sink, settings: LinkSettings | None = None,
                 reset: Callable[[], bool] | None = None, key: bytes | None = None,
                 require_signed: bool = False, seats: tuple[str, ...] = ()) -> None:
        self.table = table
        self.seat = seat
        self.seats = seats or (seat,)
        self.resolve = resolve
        self.out = out
        self.s = settings or LinkSettings()
        self.reset_device = reset
        self.state: Literal["starting", "online", "offline"] = "starting"
        self.url: str | None = None
        self.identity: dict[str, Any] = {}
        self.capabilities: tuple[str, ...] = ()  # from the HELLO: what the reader senses
        self._caps: frozenset[str] = frozenset()
        self.source: str | None = None  # from the HELLO: the kind of reader (engine fusion)
        self.counters: dict[str, int] = {
            "frames": 0, "bad_crc": 0, "resyncs": 0, "bytes": 0, "errors": 0, "opens": 0,
            "open_failures": 0, "timeouts": 0, "config_retries": 0,
        }
        self.key = codec.as_key(key)
        self.require_signed = require_signed
        if self.key is not None or require_signed:
            self.counters.update({name: 0 for name in SIGNING_COUNTERS})
        self.window = ReplayWindow()  # the reader's stamps; survives reopening the port
        self._tx_stamp = 0
        self._spoof_alerted: int | None = None
        self._resume: int | None = None  # seq expected after a daemon restart
        self.seq = Sequencer(self.s.resend_timeout_ms)
        self._tx_seq = 0
        # until the reader tells its own
        self._reader_id = (vocab.SEATS.index(self.seats[0]) + 1
                           if self.seats[0] in vocab.SEATS else 1)
        self._config_seq: int | None = None  # a CONFIG waiting for the reader's ACK
        self._config_at = 0
        self._delivered: int | None = None  # seq of the last frame delivered in order
        self._unacked = 0
        self._acked_at = 0
        self.loop: LinkLoop | None = None
        self._own_loop: LinkLoop | None = None
        self.port: Port | None = None
        self._fd: int | None = None
        self._decoder = FastDecoder(self.key, require=self.require_signed)
        self._spoke = False
        self._opened = self._last_valid = 0
        self._paused_at: int | None = None
        self._backoff = self.s.backoff_initial_ms
        self._next_open = self._first_try = 0
        self._since = now_ms()
        self._last_health = 0
        self._health_sent: dict[str, int] = {}

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

    def health(self) -> dict[str, Any]:
        """The retained ``<base>/<table>/readers/<seat>`` payload (``<seat>``: the
        reader's name, with ``seats`` when it covers several)."""
        seats = {} if self.seats == (self.seat,) else {"seats": list(self.seats)}
        return {"state": self.state if self.state != "starting" else "offline",
                "table": self.table, "seat": self.seat, **seats, "port": self.url,
                "since": self._since, **self.identity, "counters": self.all_counters()}

    def resume_after(self, seq: int) -> None:
        """The journal's last frame from this reader had ``seq`` (the daemon restarted).

        If the reader's first frame now is a little ahead of it, the frames in
        between (sent while the daemon was down, or flushed when the port was
        reopened) are a gap like any other: RESEND asks for them. A HELLO, or
        a frame that is not a little ahead (the reader rebooted meanwhile),
        starts afresh as before.
        """
        self._resume = codec.seq_next(seq)

    def all_counters(self) -> dict[str, int]:
        """frames, bad_crc, resyncs, gaps, resends, duplicates, lost, bytes, ..."""
        return {**self.counters, **self.seq.counters}

    # -- on the loop ------------------------------------------------------------------
    def attach(self, loop: LinkLoop) -> None:
        self.loop = loop
        self._next_open = now_ms()
        self._first_try = self._next_open

    def shutdown(self) -> None:
        """The loop stops: close the port (no offline message: the daemon says so)."""
        self._close_port()

    def on_readable(self, t: int) -> None:
        """Input is waiting on the port: read it, decode it, deliver in order."""
        port = self.port
        if port is None or self._paused_at is not None:
            return
        try:
            data = read_ready(port)
        except (PortError, OSError) as exc:
            self.counters["errors"] += 1
            log.warning("event=port-lost table=%s seat=%s url=%s error=%r",
                        self.table, self.seat, self.url, str(exc))
            if self._spoke:
                self._go_offline("port-lost")
            self._end_session(self._spoke, t)
            return
        if data:
            self._feed(port, data, t)

    def service(self, t: int) -> None:
        """Timers: open a closed port when due; resends, CONFIG, ACKs, liveness."""
        port = self.port
        if port is None:
            if t >= self._next_open:
                self._open(t)
            return
        if self._paused_at is not None or self._congested():
            self._pause(t)
            if self._paused_at is not None:
                return
        for f, rt in self.seq.tick(t):
            self._deliver(f, rt)
        self._send_resend(port)
        self._keep_session(port, t)
        if t - self._last_valid > self.s.heartbeat_timeout_ms:
            self.counters["timeouts"] += 1
            if self._spoke or self.state == "online":
                self._go_offline("heartbeat-timeout")
                if self.reset_device is not None and self.reset_device():
                    log.info("event=usb-reset table=%s seat=%s", self.table, self.seat)
                self._end_session(True, t)
                return
            if t - self._opened > self.s.heartbeat_timeout_ms:
                self._end_session(False, t)
                return
        self._emit_health(t)

    def _open(self, t: int) -> None:
        url = self.resolve()
        if url is None:
            self.counters["open_failures"] += 1
            self._emit_health()
            self._end_session(False, t)
            return
        self.url = url
        try:
            port = open_port(url, baudrate=self.s.baudrate, timeout=0)
        except (PortError, OSError) as exc:
            self.counters["open_failures"] += 1
            log.debug("event=open-failed table=%s seat=%s url=%s error=%r",
                      self.table, self.seat, url, str(exc))
            self._emit_health()
            self._end_session(False, t)
            return
        self.counters["opens"] += 1
        log.info("event=port-open table=%s seat=%s url=%s", self.table, self.seat, url)
        self.port = port
        # The sequence count survives a reopen: frames lost while the port was
        # gone show up as a gap and are asked for again. Only a HELLO resets it.
        self._decoder = FastDecoder(self.key, require=self.require_signed)
        self._spoke = False
        self._opened = self._last_valid = now_ms()
        self._fd = port_fileno(port)
        assert self.loop is not None
        if self._fd is not None:
            self.loop.watch(self._fd, self)
        else:
            self.loop.poll(self, True)
        if self.key is not None:
            # A signed session starts now, whatever the reader was doing: its
            # stamps go on from our clock once it takes this CONFIG.
            self._start_session(port, self._opened)

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
        elif self.state == "starting" and t - self._first_try >= self.s.heartbeat_timeout_ms:
            self._go_offline("never-answered")
        self._next_open = t + self._backoff
        if not worked:
            self._backoff = min(self._backoff * 2, self.s.backoff_max_ms)

    def _feed(self, port: Port, data: bytes, t: int) -> None:
        self.counters["bytes"] += len(data)
        for item in self._decoder.feed(data):
            if isinstance(item, codec.RemoteProtocolError):
                self._count_error(item)
                if item.kind in DAMAGED:
                    self.seq.damaged(t)  # a frame lost for certain: ask now
                continue
            if item.stamp is not None and not self._fresh(item):
                self._reader_id = item.reader  # authentic, if old: CONFIG goes there
                if item.mtype == codec.HELLO:  # answered, but no sign of life
                    self._on_frame(port, item, t)
                continue
            self._last_valid = t
            self._spoke = True
            self._on_frame(port, item, t)
            if self.state != "online":
                self._go_online(t)

    def _pause(self, t: int) -> None:
        """Back-pressure: while the sink is behind, leave the bytes in the port (the
        kernel's and the reader's buffers fill) and do not count the pause against
        the reader's heartbeat."""
        if self._paused_at is None:
            self._paused_at = t
            if self._fd is not None and self.loop is not None:
                self.loop.unwatch(self._fd)
            return
        if self._congested(MAX_BACKLOG // 2):
            return
        paused, self._paused_at = t - self._paused_at, None
        self.counters["paused_ms"] = self.counters.get("paused_ms", 0) + paused
        self._last_valid += paused
        if self._fd is not None and self.loop is not None:
            self.loop.watch(self._fd, self)

    # -- frames ------------------------------------------------------------------
    def _congested(self, limit: int = MAX_BACKLOG) -> bool:
        qsize = getattr(self.out, "qsize", None)
        return qsize is not None and int(qsize()) > limit

    def _count_error(self, err: codec.RemoteProtocolError) -> None:
        if err.kind == "bad_crc":
            self.counters["bad_crc"] += 1
        elif err.kind == "garbage_bytes":
            self.counters["resyncs"] += 1
        elif err.kind in ("unsigned", "bad_signature"):
            self.counters[err.kind] += 1
            self._suspect(err.kind)
        else:
            self.counters["errors"] += 1
        log.debug("event=bad-frame table=%s seat=%s kind=%s", self.table, self.seat, err.kind)

    def _fresh(self, frame: codec.Frame) -> bool:
        """Is a signed frame's stamp fresh (and now seen)? Counts the stale ones."""
        assert frame.stamp is not None
        if self.window.accept(frame.stamp):
            return True
        if frame.mtype == codec.HELLO:
            self.counters["stale_hello"] += 1
        else:
            self.counters["replayed"] += 1
            log.info("event=replayed-frame table=%s seat=%s seq=%d stamp=%d",
                     self.table, self.seat, frame.seq, frame.stamp)
        return False

    def _suspect(self, reason: str) -> None:
        """A frame the reader with its key would never send: say so, not too often."""
        t = now_ms()
        log.warning("event=reader-suspect table=%s seat=%s reason=%s",
                    self.table, self.seat, reason)
        if self._spoof_alerted is not None and t - self._spoof_alerted < SPOOF_ALERT_INTERVAL_MS:
            return
        self._spoof_alerted = t
        self.out.put(LinkMessage(self.table, self.seat, "spoofed", t, health=self.health(),
                                 reason=reason, seats=self.seats))

    def _on_frame(self, port: Port, frame: codec.Frame, t: int) -> None:
        self.counters["frames"] += 1
        self._reader_id = frame.reader  # host frames carry the id of the reader they are for
        if frame.mtype == codec.HELLO:
            self.identity = {k: frame.fields.get(k) for k in ("kind", "firmware", "serial")}
            self.capabilities = tuple(frame.fields.get("capabilities", ()))
            self._caps = frozenset(self.capabilities)
            kind = self.identity.get("kind")
            self.source = kind if kind in vocab.SOURCES else None
            log.info("event=hello table=%s seat=%s serial=%s firmware=%s", self.table,
                     self.seat, self.identity.get("serial"), self.identity.get("firmware"))
            self._start_session(port, t)
        elif (frame.mtype == codec.ACK and self._config_seq is not None
              and frame.fields.get("ack_seq") == self._config_seq):
            self._config_seq = None
            log.info("event=configured table=%s seat=%s", self.table, self.seat)
        if self._resume is not None:
            if frame.mtype != codec.HELLO and self.seq.expected is None:
                d = codec.seq_delta(frame.seq, self._resume)
                if 0 <= d <= self.seq.window:
                    self.seq.expected = self._resume
                    self.counters["resumed"] = self.counters.get("resumed", 0) + 1
            self._resume = None
        for f, rt in self.seq.accept(frame, t):
            self._deliver(f, rt)

    def _deliver(self, frame: codec.Frame, received: int) -> None:
        """In sequence order now; ``received`` is when its bytes arrived."""
        self._delivered = frame.seq
        self._unacked += 1
        if frame.mtype == codec.OBSERVE:
            fields, why = trusted(frame.fields, self._caps)
            for reason in why:  # an observation the reader's HELLO does not back
                self.counters[reason] = self.counters.get(reason, 0) + 1
            if why:
                log.info("event=untrusted-observe table=%s seat=%s reasons=%s fields=%s",
                         self.table, self.seat, ",".join(why), frame.fields)
            if fields is None:
                return
            if fields is not frame.fields:
                frame = codec.Frame(frame.mtype, fields, frame.reader, frame.seq, frame.flags,
                                    frame.version, frame.stamp)
        if frame.mtype in (codec.OBSERVE, codec.CALL, codec.FAULT):
            self.out.put(LinkMessage(self.table, self.seat, "frame", received, frame=frame,
                                     seats=self.seats, source=self.source))

    def _start_session(self, port: Port, t: int) -> None:
        """CONFIG with our clock as its stamp (the reader adopts it); close the window.

        Every stamp up to the newest seen becomes stale, so frames someone held
        back from the last session cannot be slipped into this one; frames the
        reader sends meanwhile are newer and still count. With nothing seen yet
        (the daemon just started) the floor is the CONFIG's own stamp: frames
        the reader signed before it took the CONFIG are refused, and those it
        keeps come again, re-signed, when RESEND asks (a heartbeat in flight
        may count as lost).
        """
        stamp = self._send_config(port, t, session=True)
        if stamp is not None:
            self.window.raise_floor(self.window.newest if self.window.newest >= 0 else stamp)

    def _send_config(self, port: Port, t: int, session: bool = False) -> int | None:
        """Send CONFIG; ``session``: it answers a HELLO, so it carries the host's clock."""
        self._config_seq = self._tx_seq
        self._config_at = t
        return self._send(port, codec.CONFIG, {"seat": self.seats[0], "scan_ms": self.s.scan_ms,
                                               "debounce_ms": self.s.debounce_ms},
                          clock=session)

    def _keep_session(self, port: Port, t: int) -> None:
        """Resend an unacknowledged CONFIG after 500 ms; ACK what was delivered.

        The ACK is cumulative (everything up to ``ack_seq`` arrived) and frees
        the reader's resend buffer, so it goes out after a few frames or a
        quarter of a second, not only once a second (protocol.md section 5).
        """
        if self._config_seq is not None and t - self._config_at >= CONFIG_RETRY_MS:
            self.counters["config_retries"] += 1
            self._send_config(port, t)
        if self._delivered is not None and self._unacked and (
                self._unacked >= ACK_EVERY_FRAMES or t - self._acked_at >= ACK_EVERY_MS):
            self._send(port, codec.ACK, {"ack_seq": self._delivered})
            self._unacked = 0
            self._acked_at = t

    def _send_resend(self, port: Port) -> None:
        from_seq = self.seq.take_resend()
        if from_seq is not None:
            self._send(port, codec.RESEND, {"from_seq": from_seq})

    def _send(self, port: Port, mtype: int, fields: dict[str, Any],
              clock: bool = False) -> int | None:
        """Write one frame; return its signature stamp (None when unsigned).

        Stamps count up by one; ``clock`` lifts them to the host's clock first
        (a session's CONFIG), so they never repeat across host restarts and the
        reader's later resends stay within the replay window.
        """
        stamp = None
        if self.key is not None:
            stamp = self._tx_stamp + 1
            if clock:
                stamp = max(stamp, host_stamp())
            self._tx_stamp = stamp = min(stamp, codec.MAX_STAMP)
        frame = codec.encode(mtype, fields, reader=self._reader_id, seq=self._tx_seq,
                             key=self.key, stamp=stamp or 0, sender="host")
        self._tx_seq = codec.seq_next(self._tx_seq)
        try:
            n = write_now(port, frame)
            if n < len(frame):
                self.counters["tx_short"] = self.counters.get("tx_short", 0) + 1
        except Exception as exc:  # the read side notices a dead port next
            log.debug("event=write-failed table=%s seat=%s error=%r",
                      self.table, self.seat, str(exc))
        return stamp

    # -- state -------------------------------------------------------------------
    def _go_online(self, t: int) -> None:
        self.state = "online"
        self._since = t
        log.info("event=reader-online table=%s seat=%s url=%s", self.table, self.seat, self.url)
        self.out.put(LinkMessage(self.table, self.seat, "online", t, health=self.health(),
                                 seats=self.seats))
        self._mark_health_sent(t)

    def _go_offline(self, reason: str) -> None:
        if self.state == "offline":
            return
        t = now_ms()
        self.state = "offline"
        self._since = t
        log.warning("event=reader-offline table=%s seat=%s reason=%s",
                    self.table, self.seat, reason)
        self.out.put(LinkMessage(self.table, self.seat, "offline", t, health=self.health(),
                                 reason=reason, seats=self.seats))
        self._mark_health_sent(t)

    def _mark_health_sent(self, t: int) -> None:
        self._last_health = t
        self._health_sent = self.all_counters()

    def _emit_health(self, t: int | None = None) -> None:
        t = now_ms() if t is None else t
        if t - self._last_health < self.s.health_interval_ms:
            return
        if self._health_sent == self.all_counters():
            return
        self.out.put(LinkMessage(self.table, self.seat, "health", t, health=self.health(),
                                 seats=self.seats))
        self._mark_health_sent(t)
