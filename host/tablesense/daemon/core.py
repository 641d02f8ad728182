"""The composition root: reader links -> journal -> engine -> outbox -> MQTT.

Threads, a fixed few whatever the number of readers: the core (one event
loop, :mod:`.loop`, serving every reader link's port and, in the same thread,
the engines and journals), the journal syncer's small pool (:mod:`.syncer`:
fsyncs, then the alerts waiting on them), the MQTT client's network thread
(:mod:`.mqttnet`: epoll, any descriptor), the outbox pump, and the
dashboard's server. Each wake-up of the core is one batch: the frames every
readable port delivered (in each reader's sequence order) and the commands
queued by other threads (MQTT, :meth:`Daemon.command`) are journaled and
applied, then one group commit per table writes their lines and fsyncs as the
policy wants, and only then do ACKs go to the readers; an alert always waits
for the fsync covering the frame that caused it (``TableRuntime._alerts``),
which the syncer runs so that a slow disk does not stall the readers.

In-process use (the demo, the dashboard, tests)::

    daemon = Daemon(load_config("tablesense.toml"))
    daemon.start()            # replays journals, connects, opens readers
    daemon.command("3", b'{"type":"call","seat":"N","call":"1N","req":"a1"}')
    daemon.stop()
"""

from __future__ import annotations

import json
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablesense.daemon import claim
from tablesense.daemon.api import dashboard_routes
from tablesense.daemon.collector import RECLAIM_S, Collector
from tablesense.daemon.config import Config, LinkSettings, ReaderConfig
from tablesense.daemon.feeds import TableFeeds
from tablesense.daemon.journal_writer import JournalWriter, journal_path
from tablesense.daemon.link import ReaderLink
from tablesense.daemon.loop import LinkLoop
from tablesense.daemon.mqtt import Publisher, read_retained
from tablesense.daemon.outbox import Outbox
from tablesense.daemon.session import LinkMessage
from tablesense.daemon.syncer import Syncer
from tablesense.daemon.tables import TableRuntime, dumps
from tablesense.daemon.topics import Topics
from tablesense.daemon.usb import SerialNumberResolver
from tablesense.daemon.view import table_state
from tablesense.daemon.web import DashboardServer, dashboard_settings
from tablesense.onboard.wire import codec

log = logging.getLogger("tablesense.daemon")
# How often the core lets time close incidents (Engine.tick): a "dropped card"
# alert comes this long at most after its 1 s window ends.
TICK_S = 0.02
# How long the start-up claim check waits for the broker (a broker that is down is
# no reason not to start: the check is then skipped, and said so).
CLAIM_CHECK_S = 3.0


class _Frames:
    """The links' sink: filled and emptied in the core's own thread, no locking."""

    def __init__(self) -> None:
        self.items: list[LinkMessage] = []

    def put(self, item: LinkMessage, /) -> None:
        self.items.append(item)

    def take(self) -> list[LinkMessage]:
        items, self.items = self.items, []
        return items


@dataclass(frozen=True)
class CommandMessage:
    table: str
    payload: bytes
    reply: queue.Queue[dict[str, Any]] | None = None
    trusted: bool = False
    by: str | None = None  # the sender's broker login (topics.py), journaled as "by"


def observed_seat(m: LinkMessage) -> str | None:
    """Whose card an OBSERVE frame reports: the holder it names, if its reader covers it.

    A reader at one seat reports that seat's cards whatever its frame says
    (the config, not the reader's memory of its CONFIG, says where its
    antennas are; a mismatch is logged). A reader covering several seats (a
    camera over the table) names each card's holder; a holder it does not
    cover is refused (None).
    """
    assert m.frame is not None
    named = m.frame.fields.get("seat")
    seats = m.seats or (m.seat,)
    if len(seats) == 1:
        if named != seats[0]:
            log.warning("event=seat-mismatch table=%s seat=%s frame_seat=%s",
                        m.table, seats[0], named)
        return seats[0]
    return named if named in seats else None


class Daemon:
    """Wires the parts from a :class:`~tablesense.daemon.config.Config`."""

    def __init__(self, config: Config, take_over: bool = False) -> None:
        self.config = config
        self.topics = Topics(config.broker.base)
        self.inbox: queue.Queue[CommandMessage] = queue.Queue()  # from other threads
        self.frames = _Frames()  # what the links delivered this wake-up (core thread)
        self.outbox = Outbox(config.outbox)
        # this run's claim on the base (daemon/claim.py); take_over: replace another's
        self.claim = claim.Claim.ours()
        self.take_over = take_over
        self.taken_over_by: claim.Claim | None = None
        self.publisher = Publisher(config.broker, self.outbox, on_command=self._on_mqtt_command,
                                   on_claim=self._on_claim)
        self.publisher.set_retained(self.topics.bridge_daemon, claim.encode(self.claim))
        self.syncer = Syncer()
        self.tables: dict[str, TableRuntime] = {}
        for name, t in config.tables.items():
            journal = JournalWriter(journal_path(config.journal.dir, name),
                                    config.journal.fsync, config.journal.fsync_interval_ms)
            self.tables[name] = TableRuntime(name, t.code, journal, self.outbox, self.topics,
                                             kick=self.publisher.kick, tuning=config.tracker,
                                             hands=config.hands_of(name))
        # the scorers' results and the vugraph's play feed (daemon/feeds.py)
        self.feeds = {name: TableFeeds(name, config.feeds) for name in self.tables}
        for name, table in self.tables.items():
            table.watchers.append(self.feeds[name].after)
        settings = config.link
        self.links: list[ReaderLink] = []
        self.loop = LinkLoop(name="core", interval_s=TICK_S, on_wake=self._batch)
        for name, t in config.tables.items():
            for seat, rc in t.readers.items():
                link = self._make_link(name, seat, rc, settings, t.require_signed)
                self.links.append(link)
                self.loop.add(link)
        # the last state published per table (the core thread sets a table's entry to a
        # new dict, never changes one; the dashboard's threads only read them)
        self.states: dict[str, dict[str, Any]] = {}
        self._snaps: dict[str, dict[str, Any]] = {}  # the snapshot each state was made of
        self.web: DashboardServer | None = None
        if config.dashboard is not None:
            d = config.dashboard
            journals = {name: (journal_path(config.journal.dir, name), t.code)
                        for name, t in config.tables.items()}
            self.web = DashboardServer(
                dashboard_settings(config.broker.base, d.broker_url, list(config.tables),
                                   d.username, d.login), bind=d.bind, port=d.port,
                routes=dashboard_routes(d, config.broker.base, journals, self.states),
                source=config.source)
        self._stop = threading.Event()
        self._started = False
        self._last_tick = 0.0
        self._tick_no = 0
        self.collector: Collector | None = None  # see own_process

    def _make_link(self, table: str, seat: str, rc: ReaderConfig,
                   settings: LinkSettings, require_signed: bool = False) -> ReaderLink:
        if rc.port is not None:
            url = rc.port
            return ReaderLink(table, seat, lambda: url, self.frames, settings, key=rc.key,
                              require_signed=require_signed, seats=rc.seats)
        assert rc.serial is not None
        finder = SerialNumberResolver(rc.serial, self.config.link.usb_vid,
                                      self.config.link.usb_pid)
        return ReaderLink(table, seat, finder, self.frames, settings, reset=finder.reset,
                          key=rc.key, require_signed=require_signed, seats=rc.seats)

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> None:
        """Serve the dashboard, replay journals, connect to the broker, open the readers.

        First the base's claim (:class:`~tablesense.daemon.claim.BaseClaimed` when
        another daemon holds it); then the dashboard binds, so a port already taken
        fails (OSError) before anything else has started.
        """
        self._check_claim()
        if self.web is not None:
            self.web.start()
        for t in self.tables.values():
            t.replay()
            t.tick(int(time.time() * 1000))
            t.syncer = self.syncer  # from now on, fsyncs leave the core's thread
        for link in self.links:  # after a crash: ask the readers for what they sent meanwhile
            last = self.tables[link.table].last_reader_seqs().get(link.seat)
            if last is not None:
                link.resume_after(last)
        self.publisher.start()
        for t in self.tables.values():
            self._publish_state(t)
            self._publish_ledger(t)
        for link in self.links:
            self.publisher.set_retained(self.topics.reader(link.table, link.seat),
                                        dumps(link.health()))
        self.loop.start()
        self._started = True
        log.info("event=daemon-started tables=%d readers=%d broker=%s:%d",
                 len(self.tables), len(self.links), self.config.broker.host,
                 self.config.broker.port)

    def _check_claim(self) -> None:
        b = self.config.broker
        where = f"the broker at {b.host}:{b.port}, base {b.base!r}"
        try:
            got = read_retained(b, [self.topics.bridge_daemon, self.topics.bridge_state],
                                CLAIM_CHECK_S)
        except (TimeoutError, ConnectionError, OSError) as exc:
            log.warning("event=claim-unchecked error=%r (starting all the same: a daemon "
                        "taking this base over later is still seen)", str(exc))
            return
        try:
            verdict = claim.decide(self.claim, got.get(self.topics.bridge_daemon),
                                   got.get(self.topics.bridge_state), self.take_over, where)
        except claim.BaseClaimed:
            self.outbox.close()  # nothing else was started
            raise
        if verdict == "take-over":
            log.warning("event=base-take-over base=%s from=%r", b.base,
                        got.get(self.topics.bridge_daemon, b"").decode("utf-8", "replace"))

    def _on_claim(self, payload: bytes) -> None:
        """(The MQTT thread.) A claim on our base after ours: another daemon took over."""
        other = claim.taken_over(self.claim, payload)
        if other is None or self.taken_over_by is not None:
            return
        self.taken_over_by = other
        self.publisher.taken_over = True
        log.error("event=taken-over by=%s host=%s pid=%d (this daemon stops publishing and "
                  "exits)", other.daemon, other.host, other.pid)
        self.request_stop()

    def own_process(self, reclaim_s: float = RECLAIM_S) -> Collector:
        """The process is this daemon's alone (``tablesense run``); call once started.

        CPython's cyclic collector is kept off the alert path: the core freezes
        what survived at each tick and a full pass runs every ``reclaim_s``
        (daemon/collector.py); :meth:`stop` hands the collector back.
        """
        collector = Collector(reclaim_s)
        collector.start()
        self.collector = collector
        return collector

    def stop(self, timeout: float = 2.0) -> None:
        """Close readers, finish queued work, say offline; pending alerts stay stored."""
        if self.web is not None:
            self.web.stop(timeout)
        self._stop.set()
        self.loop.stop(timeout)  # closes the ports; queued commands are still applied
        self.syncer.close()  # alerts waiting for an fsync reach the outbox
        for link in self.links:  # nobody watches them now: say so, retained
            health = {**link.health(), "state": "offline", "reason": "daemon-stopped"}
            self.publisher.set_retained(self.topics.reader(link.table, link.seat), dumps(health))
        self.publisher.stop(timeout)
        for t in self.tables.values():
            t.journal.close()
        self.outbox.close()
        if self.collector is not None:
            self.collector.stop()
        log.info("event=daemon-stopped")

    @property
    def dashboard_url(self) -> str | None:
        """The dashboard's address once started (None without ``[dashboard]``)."""
        return self.web.url if self.web is not None else None

    def run_forever(self, started: Callable[[Daemon], None] | None = None) -> None:
        self.start()
        if started is not None:
            started(self)
        try:
            while not self._stop.wait(1.0):
                pass
        finally:
            self.stop()

    def request_stop(self) -> None:
        self._stop.set()

    # -- in-process API ----------------------------------------------------------
    def command(self, table: str, payload: bytes | dict[str, Any], timeout: float = 5.0,
                trusted: bool = False) -> dict[str, Any]:
        """Apply a command as if it came on ``<base>/<table>/cmd``; return the response.

        ``trusted=True`` also admits non-command events such as ``dealt`` (a
        dealing machine wired in-process); see :meth:`TableRuntime.command`.
        """
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        reply: queue.Queue[dict[str, Any]] = queue.Queue()
        self.inbox.put(CommandMessage(table, data, reply, trusted))
        self.loop.wake()
        return reply.get(timeout=timeout)

    def wait_delivered(self, timeout: float) -> bool:
        """Every alert so far acknowledged by the broker."""
        return self.publisher.wait_idle(timeout)

    # -- the core thread ---------------------------------------------------------
    def _on_mqtt_command(self, table: str, payload: bytes, by: str | None = None) -> None:
        self.inbox.put(CommandMessage(table, payload, by=by))
        self.loop.wake()

    def _batch(self) -> None:
        """One wake-up of the core: commands, frames, one group commit, time."""
        while True:
            try:
                command = self.inbox.get_nowait()
            except queue.Empty:
                break
            self._guard(self._on_command, command)
        frames = self.frames.take()
        for m in frames:
            self._guard(self._on_link, m)
        for name in {m.table for m in frames}:
            self.tables[name].commit()
            self._publish_ledger(self.tables[name])
        now = time.monotonic()
        if now - self._last_tick < TICK_S:
            return
        # Time closes incidents (a dropped card's 1 s window) every TICK_S,
        # so their alerts wait for the window, not for the state interval.
        self._last_tick = now
        # Each table's state (and its journal's interval fsync) is due once every
        # state_interval_ms, the tables taking turns tick by tick: never every table's
        # snapshot in one tick, which the readers would wait for.
        turns = max(1, math.ceil(self.config.state_interval_ms / 1000 / TICK_S))
        turn = self._tick_no % turns
        self._tick_no += 1
        t_ms = int(time.time() * 1000)
        for i, t in enumerate(self.tables.values()):
            due = i % turns == turn
            try:
                made = t.counters["rulings"]
                t.tick(t_ms)
                if due:
                    t.maybe_sync()
                # a ruling made by time alone (a closed incident) changes the state too
                if t.counters["rulings"] != made or (due and t.dirty):
                    self._publish_state(t)
                self._publish_ledger(t)
                feeds = self.feeds[t.name]
                lin = feeds.due(now)
                if lin is not None:  # the play feed's delay is over
                    self.publisher.set_retained(self.topics.lin(t.name),
                                                dumps(feeds.lin_message(lin)))
            except Exception:  # one bad table must not stop the others
                log.exception("event=core-error table=%s", t.name)
        if self.collector is not None:  # after the tick's work: nothing waits on it now
            self.collector.tick(now)

    @staticmethod
    def _guard(fn: Callable[[Any], None], item: Any) -> None:
        try:
            fn(item)
        except Exception:  # one bad item must not stop the tables
            log.exception("event=core-error item=%r", item)

    def _on_link(self, m: LinkMessage) -> None:
        table = self.tables[m.table]
        if m.kind in ("online", "offline", "health", "spoofed"):
            # The link's counters, and the glitches the engine's sensing filter suppressed.
            suppressed: dict[str, int] = {}
            for s in m.seats or (m.seat,):
                for kind, n in table.engine.noise.get(s, {}).items():
                    suppressed[kind] = suppressed.get(kind, 0) + n
            health = {**m.health, "suppressed": suppressed}
            self.publisher.set_retained(self.topics.reader(m.table, m.seat), dumps(health))
            if m.kind == "offline":
                table.reader_offline_alert(m.seat, m.reason, m.t, m.seats)
            elif m.kind == "spoofed":
                table.reader_spoofed_alert(m.seat, m.reason, m.t)
            elif m.kind == "online":
                table.ledger.close_reader(m.seat, m.t)
            self._publish_ledger(table)
            return
        f = m.frame
        assert f is not None
        if f.mtype == codec.OBSERVE:
            holder = observed_seat(m)
            if holder is None:
                table.counters["refused"] += 1
                log.warning("event=seat-not-covered table=%s reader=%s frame_seat=%s seats=%s",
                            m.table, m.seat, f.fields.get("seat"), ",".join(m.seats))
                return
            table.reader_observe(m.seat, holder, f.fields, m.t, seq=f.seq, source=m.source)
        elif f.mtype == codec.CALL:
            table.reader_event(m.seat, {"type": "call", "seat": f.fields["seat"],
                                        "call": f.fields["call"]}, m.t, seq=f.seq)
        elif f.mtype == codec.FAULT:
            name = codec.FAULT_NAMES.get(f.fields.get("code", 0), "other")
            log.warning("event=reader-fault table=%s seat=%s fault=%s fields=%s",
                        m.table, m.seat, name, json.dumps(f.fields))

    def _on_command(self, c: CommandMessage) -> None:
        table = self.tables.get(c.table)
        if table is None:
            response: dict[str, Any] = {"ok": False, "field": "(topic)",
                                        "error": f"no table {c.table!r} here"}
        else:
            response = table.command(c.payload, c.trusted, by=c.by)
            if table.dirty:
                self._publish_state(table)
            self._publish_ledger(table)
        if c.reply is not None:
            c.reply.put(response)
        self.publisher.send(self.topics.cmd_response(c.table), dumps(response))

    def _publish_ledger(self, t: TableRuntime) -> None:
        """The table's alerts of the session, retained (daemon/ledger.py), when changed."""
        if t.ledger.changed:
            t.ledger.changed = False
            self.publisher.set_retained(self.topics.alerts(t.name), dumps(t.ledger.payload()))
            self._publish_result(t, alerts_changed=True)

    def _publish_result(self, t: TableRuntime, alerts_changed: bool = False) -> None:
        msg = self.feeds[t.name].board_result(t.ledger, alerts_changed)
        if msg is not None:
            self.publisher.set_retained(self.topics.result(t.name), dumps(msg))

    def _publish_state(self, t: TableRuntime) -> None:
        t.dirty = False
        snap = t.engine.snapshot()  # fresh containers each time, never changed after
        answered = t.ledger.answered_ids()
        if answered:  # an option taken is answered, whatever the law closes (the record's view)
            ids = {r["id"] for r in snap.get("rulings", ())}
            snap["answered"] = sorted(set(snap.get("answered", ())) | (answered & ids))
        if snap == self._snaps.get(t.name):
            # the payload is table_state(snap), a pure function: the same bytes again.
            # Most events (a card moved about in a hand) change nothing the state shows,
            # and the view and its encoding are most of a state's cost: skip them.
            return
        self._snaps[t.name] = snap
        state = table_state(snap)
        self.states[t.name] = state
        self.publisher.set_retained(self.topics.table_state(t.name), dumps(state))
        self._publish_result(t)
        feeds = self.feeds[t.name]
        now = time.monotonic()
        feeds.play(now)
        lin = feeds.due(now)
        if lin is not None:
            self.publisher.set_retained(self.topics.lin(t.name), dumps(feeds.lin_message(lin)))
