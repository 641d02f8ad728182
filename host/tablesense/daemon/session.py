"""One reader's session on the wire, with no I/O: bytes and time in, actions out.

What the host says to a reader and when (hardware/protocol.md sections 2a,
4-5), kept apart from the port as h11 keeps HTTP apart from sockets. The
port side (:class:`~tablesense.daemon.link.ReaderLink`) feeds a
:class:`ReaderSession` what happened (:meth:`~ReaderSession.opened`,
:meth:`~ReaderSession.receive` with the bytes read, :meth:`~ReaderSession.tick`
as time passes, :meth:`~ReaderSession.port_failed`) and carries out the
actions it returns, in order:

- :class:`LinkMessage`: for the daemon's core
  (a frame in sequence order, ``online``, ``offline``, ``health``,
  ``spoofed``);
- :class:`Transmit`: bytes for the reader (CONFIG, ACK, RESEND);
- :class:`Hangup`: close the port, open it again after the backoff.

The rules, all here:

* **Handshake.** A reader's ``HELLO`` is answered by ``CONFIG`` (its seat from
  the daemon's config), resent every ``CONFIG_RETRY_MS`` until the reader
  ACKs it. A signed session starts as soon as the port opens.
* **Order.** Frames go to the core in sequence order, exactly once; a gap
  asks for ``RESEND``, at once when a frame arrives damaged
  (:mod:`.sequence`). Delivered frames are ACKed cumulatively every
  ``ACK_EVERY_FRAMES`` frames or ``ACK_EVERY_MS``. After a daemon restart
  (:meth:`ReaderSession.resume_after`) a first frame a little ahead of the
  journal's last is a gap like any other.
* **Liveness.** A reader is ``online`` from its first valid frame until no
  valid frame has come for ``heartbeat_timeout_ms`` (readers beat at 1 Hz;
  the default 3.5 s is three missed beats). Then it is ``offline`` and the
  port is hung up (and reset, for a USB reader); a port opened on a silent
  reader is hung up after the same time. A port that fails while the reader
  was talking is ``offline`` too (``port-lost``).
* **Signing.** With the reader's ``key`` every signed frame's MAC and stamp
  are checked and what the host sends is signed; a table that requires
  signing drops unsigned frames. A bad MAC (``bad_signature``) or an unsigned
  frame where signing is required (``unsigned``) is something a reader
  holding its key never sends (line noise fails the CRC first): counted, and
  ``spoofed`` at most once per ``SPOOF_ALERT_INTERVAL_MS``. A good MAC on a
  stale stamp is a replay (``replayed``): dropped. The exception is
  ``HELLO``: a rebooted reader has lost its stamp, so a stale HELLO with a
  good MAC is answered (``stale_hello``), though it is no sign of life; the
  CONFIG that answers it carries the host's clock as its stamp, which the
  reader adopts. The replay window (:mod:`.stamps`) outlives the port, so unplugging a
  reader does not reopen it to old frames.
* **Trust.** An OBSERVE is taken at its reader's HELLO's word
  (:mod:`.trust`).

Times are host time in ms since the Unix epoch (a signed session's CONFIG
stamp is made from it); the session never reads a clock. Its one side effect
is log lines on the ``tablesense.link`` logger (a HELLO, a replay, a reader
online or offline), as h2 logs through a logger it is given: no port, no
file, no thread.

>>> from tablesense.onboard.wire import codec
>>> s = ReaderSession("1", "N", settings=LinkSettings(), now=0)
>>> s.opened(0)
[]
>>> hello = codec.encode(codec.HELLO, {"kind": "rfid", "firmware": "0.5.0", "serial": "R1",
...                      "capabilities": []}, reader=1, seq=0)
>>> [type(a).__name__ for a in s.receive(hello, 10)], s.state
(['Transmit', 'LinkMessage'], 'online')
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from tablesense.contract import vocab
from tablesense.daemon.config import LinkSettings
from tablesense.daemon.fastwire import FastDecoder
from tablesense.daemon.sequence import Sequencer
from tablesense.daemon.stamps import ReplayWindow, host_stamp
from tablesense.daemon.trust import trusted
from tablesense.onboard.wire import codec

log = logging.getLogger("tablesense.link")

CONFIG_RETRY_MS = 500
ACK_EVERY_FRAMES = 8
ACK_EVERY_MS = 250
SPOOF_ALERT_INTERVAL_MS = 60_000
# decode errors that are a frame damaged on the wire (not a forgery: that is a good CRC)
DAMAGED = frozenset({"bad_crc", "truncated", "oversize", "garbage_bytes"})
SIGNING_COUNTERS = ("unsigned", "bad_signature", "replayed", "stale_hello")


Kind = Literal["frame", "online", "offline", "health", "spoofed"]
NO_HEALTH: Mapping[str, Any] = MappingProxyType({})


class LinkMessage(NamedTuple):
    """What a link tells the core. ``t`` is host time (ms) of receipt.

    A named tuple: one is made for every frame, and it must cost less to make
    than a frozen dataclass (BENCHMARKS.md, the core at line rate).
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


class Transmit(NamedTuple):
    """Bytes for the reader: write what the port takes now (all of it is sent again
    anyway if lost: an unacknowledged CONFIG, a later ACK, a RESEND asked again)."""

    data: bytes


class Hangup(NamedTuple):
    """Close the port; open it again after the backoff.

    ``worked``: the reader spoke on this port (the backoff starts over);
    ``reset``: it stopped answering, so try resetting the device (USB)."""

    worked: bool
    reset: bool = False


Action = LinkMessage | Transmit | Hangup


class ReaderSession:
    """The host's side of one reader's protocol (see the module doc).

    ``seat`` names the reader (its seat, or a name for a reader covering
    several seats: a camera board over the table); ``seats`` are the holders
    it covers (default: ``seat``). A multi-seat reader is configured with its
    first seat (CONFIG has one) and names each card's holder itself. ``now``:
    when the session was made (its ``since`` until the reader is heard).
    """

    def __init__(self, table: str, seat: str, seats: tuple[str, ...] = (),
                 settings: LinkSettings | None = None, key: bytes | None = None,
                 require_signed: bool = False, now: int = 0) -> None:
        self.table = table
        self.seat = seat
        self.seats = seats or (seat,)
        self.s = settings or LinkSettings()
        self.state: Literal["starting", "online", "offline"] = "starting"
        self.since = now
        self.url: str | None = None  # the port, for the health payload (the link sets it)
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
        self.seq = Sequencer(self.s.resend_timeout_ms)
        self.spoke = False  # a valid frame came since the port was opened
        self._decoder = FastDecoder(self.key, require=self.require_signed)
        self._tx_stamp = 0
        self._tx_seq = 0
        self._spoof_alerted: int | None = None
        self._resume: int | None = None  # seq expected after a daemon restart
        # until the reader tells its own
        self._reader_id = (vocab.SEATS.index(self.seats[0]) + 1
                           if self.seats[0] in vocab.SEATS else 1)
        self._config_seq: int | None = None  # a CONFIG waiting for the reader's ACK
        self._config_at = 0
        self._delivered: int | None = None  # seq of the last frame delivered in order
        self._unacked = 0
        self._acked_at = 0
        self._opened = self._last_valid = 0
        self._last_health = 0
        self._health_sent: dict[str, int] = {}

    # -- what the port side reports ------------------------------------------------
    def opened(self, t: int) -> list[Action]:
        """The port is open. The sequence count survives a reopen (frames lost while
        the port was gone show up as a gap and are asked for again); only a HELLO
        resets it. A signed session starts now, whatever the reader was doing: its
        stamps go on from our clock once it takes this CONFIG."""
        self._decoder = FastDecoder(self.key, require=self.require_signed)
        self.spoke = False
        self._opened = self._last_valid = t
        out: list[Action] = []
        if self.key is not None:
            self._start_session(out, t)
        return out

    def receive(self, data: bytes, t: int) -> list[Action]:
        """Bytes read from the port at ``t``."""
        out: list[Action] = []
        self.counters["bytes"] += len(data)
        for item in self._decoder.feed(data):
            if isinstance(item, codec.RemoteProtocolError):
                self._count_error(out, item, t)
                if item.kind in DAMAGED:
                    self.seq.damaged(t)  # a frame lost for certain: ask now
                continue
            if item.stamp is not None and not self._fresh(item):
                self._reader_id = item.reader  # authentic, if old: CONFIG goes there
                if item.mtype == codec.HELLO:  # answered, but no sign of life
                    self._on_frame(out, item, t)
                continue
            self._last_valid = t
            self.spoke = True
            self._on_frame(out, item, t)
            if self.state != "online":
                self._go_online(out, t)
        return out

    def tick(self, t: int) -> list[Action]:
        """Time passes: resends, CONFIG retries, ACKs, liveness, health."""
        out: list[Action] = []
        for f, rt in self.seq.tick(t):
            self._deliver(out, f, rt)
        from_seq = self.seq.take_resend()
        if from_seq is not None:
            out.append(self._send(codec.RESEND, {"from_seq": from_seq}, t))
        self._keep_session(out, t)
        if t - self._last_valid > self.s.heartbeat_timeout_ms:
            self.counters["timeouts"] += 1
            if self.spoke or self.state == "online":
                self._go_offline(out, "heartbeat-timeout", t)
                out.append(Hangup(worked=True, reset=True))
                return out
            if t - self._opened > self.s.heartbeat_timeout_ms:
                out.append(Hangup(worked=False))
                return out
        self._emit_health(out, t)
        return out

    def port_failed(self, t: int) -> list[Action]:
        """Reading the port failed (unplugged, a pty closed): the same as a silence."""
        self.counters["errors"] += 1
        out: list[Action] = []
        if self.spoke:
            self._go_offline(out, "port-lost", t)
        out.append(Hangup(worked=self.spoke))
        return out

    def unreachable(self, t: int, why: str = "never-answered") -> list[Action]:
        """The port could not be opened, or stayed silent, for a whole heartbeat
        timeout since the link began: a reader never heard is ``offline`` too, for
        the reason the port side gives (``why``: ports.CAUSES)."""
        out: list[Action] = []
        if self.state == "starting":
            self._go_offline(out, why, t)
        return out

    def open_failed(self, t: int) -> list[Action]:
        """The port could not be opened (not plugged in, refused): counted."""
        self.counters["open_failures"] += 1
        out: list[Action] = []
        self._emit_health(out, t)
        return out

    def paused(self, ms: int) -> None:
        """The port was left unread for ``ms`` (back-pressure): not the reader's silence."""
        self.counters["paused_ms"] = self.counters.get("paused_ms", 0) + ms
        self._last_valid += ms

    def resume_after(self, seq: int) -> None:
        """The journal's last frame from this reader had ``seq`` (the daemon restarted).

        If the reader's first frame now is a little ahead of it, the frames in
        between (sent while the daemon was down, or flushed when the port was
        reopened) are a gap like any other: RESEND asks for them. A HELLO, or
        a frame that is not a little ahead (the reader rebooted meanwhile),
        starts afresh as before.
        """
        self._resume = codec.seq_next(seq)

    # -- what the daemon reads ----------------------------------------------------
    def health(self) -> dict[str, Any]:
        """The retained ``<base>/<table>/readers/<seat>`` payload (``<seat>``: the
        reader's name, with ``seats`` when it covers several)."""
        seats = {} if self.seats == (self.seat,) else {"seats": list(self.seats)}
        return {"state": self.state if self.state != "starting" else "offline",
                "table": self.table, "seat": self.seat, **seats, "port": self.url,
                "since": self.since, **self.identity, "counters": self.all_counters()}

    def all_counters(self) -> dict[str, int]:
        """frames, bad_crc, resyncs, gaps, resends, duplicates, lost, bytes, ..."""
        return {**self.counters, **self.seq.counters}

    # -- frames in ------------------------------------------------------------------
    def _count_error(self, out: list[Action], err: codec.RemoteProtocolError, t: int) -> None:
        if err.kind == "bad_crc":
            self.counters["bad_crc"] += 1
        elif err.kind == "garbage_bytes":
            self.counters["resyncs"] += 1
        elif err.kind in ("unsigned", "bad_signature"):
            self.counters[err.kind] += 1
            self._suspect(out, err.kind, t)
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

    def _suspect(self, out: list[Action], reason: str, t: int) -> None:
        """A frame the reader with its key would never send: say so, not too often."""
        log.warning("event=reader-suspect table=%s seat=%s reason=%s",
                    self.table, self.seat, reason)
        if self._spoof_alerted is not None and t - self._spoof_alerted < SPOOF_ALERT_INTERVAL_MS:
            return
        self._spoof_alerted = t
        out.append(LinkMessage(self.table, self.seat, "spoofed", t, health=self.health(),
                               reason=reason, seats=self.seats))

    def _on_frame(self, out: list[Action], frame: codec.Frame, t: int) -> None:
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
            self._start_session(out, t)
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
            self._deliver(out, f, rt)

    def _deliver(self, out: list[Action], frame: codec.Frame, received: int) -> None:
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
            out.append(LinkMessage(self.table, self.seat, "frame", received, frame=frame,
                                   seats=self.seats, source=self.source))

    # -- frames out -------------------------------------------------------------------
    def _start_session(self, out: list[Action], t: int) -> None:
        """CONFIG with our clock as its stamp (the reader adopts it); close the window.

        Every stamp up to the newest seen becomes stale, so frames someone held
        back from the last session cannot be slipped into this one; frames the
        reader sends meanwhile are newer and still count. With nothing seen yet
        (the daemon just started) the floor is the CONFIG's own stamp: frames
        the reader signed before it took the CONFIG are refused, and those it
        keeps come again, re-signed, when RESEND asks (a heartbeat in flight
        may count as lost).
        """
        out.append(self._send_config(t, session=True))
        if self.key is not None:
            self.window.raise_floor(self.window.newest if self.window.newest >= 0
                                    else self._tx_stamp)

    def _send_config(self, t: int, session: bool = False) -> Transmit:
        """CONFIG; ``session``: it answers a HELLO, so it carries the host's clock."""
        self._config_seq = self._tx_seq
        self._config_at = t
        return self._send(codec.CONFIG, {"seat": self.seats[0], "scan_ms": self.s.scan_ms,
                                         "debounce_ms": self.s.debounce_ms}, t, clock=session)

    def _keep_session(self, out: list[Action], t: int) -> None:
        """Resend an unacknowledged CONFIG after 500 ms; ACK what was delivered.

        The ACK is cumulative (everything up to ``ack_seq`` arrived) and frees
        the reader's resend buffer, so it goes out after a few frames or a
        quarter of a second, not only once a second (protocol.md section 5).
        """
        if self._config_seq is not None and t - self._config_at >= CONFIG_RETRY_MS:
            self.counters["config_retries"] += 1
            out.append(self._send_config(t))
        if self._delivered is not None and self._unacked and (
                self._unacked >= ACK_EVERY_FRAMES or t - self._acked_at >= ACK_EVERY_MS):
            out.append(self._send(codec.ACK, {"ack_seq": self._delivered}, t))
            self._unacked = 0
            self._acked_at = t

    def _send(self, mtype: int, fields: dict[str, Any], t: int,
              clock: bool = False) -> Transmit:
        """One frame for the reader, signed when the session has a key.

        Stamps count up by one; ``clock`` lifts them to the host's clock first
        (a session's CONFIG), so they never repeat across host restarts and the
        reader's later resends stay within the replay window.
        """
        stamp = 0
        if self.key is not None:
            stamp = self._tx_stamp + 1
            if clock:
                stamp = max(stamp, host_stamp(t / 1000))
            self._tx_stamp = stamp = min(stamp, codec.MAX_STAMP)
        frame = codec.encode(mtype, fields, reader=self._reader_id, seq=self._tx_seq,
                             key=self.key, stamp=stamp, sender="host")
        self._tx_seq = codec.seq_next(self._tx_seq)
        return Transmit(frame)

    # -- state ------------------------------------------------------------------------
    def _go_online(self, out: list[Action], t: int) -> None:
        self.state = "online"
        self.since = t
        log.info("event=reader-online table=%s seat=%s url=%s", self.table, self.seat, self.url)
        out.append(LinkMessage(self.table, self.seat, "online", t, health=self.health(),
                               seats=self.seats))
        self._mark_health_sent(t)

    def _go_offline(self, out: list[Action], reason: str, t: int) -> None:
        if self.state == "offline":
            return
        self.state = "offline"
        self.since = t
        log.warning("event=reader-offline table=%s seat=%s reason=%s",
                    self.table, self.seat, reason)
        out.append(LinkMessage(self.table, self.seat, "offline", t, health=self.health(),
                               reason=reason, seats=self.seats))
        self._mark_health_sent(t)

    def _mark_health_sent(self, t: int) -> None:
        self._last_health = t
        self._health_sent = self.all_counters()

    def _emit_health(self, out: list[Action], t: int) -> None:
        if t - self._last_health < self.s.health_interval_ms:
            return
        if self._health_sent == self.all_counters():
            return
        out.append(LinkMessage(self.table, self.seat, "health", t, health=self.health(),
                               seats=self.seats))
        self._mark_health_sent(t)

