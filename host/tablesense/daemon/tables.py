"""One table in the daemon: journal first, then the engine; rulings to the outbox.

Everything here runs on the core thread only (the engine is not thread-safe
and need not be). The order of each step is the point:

1. stamp the event with host time (monotonic within the journal);
2. validate it (``parse_event``); a command that fails is journaled as
   ``rejected`` and answered with an error; a reader frame that fails is
   logged and counted (it cannot be answered);
3. append it to the journal (written to the OS; fsync per policy);
4. apply it to the engine; an ``EngineError`` leaves the state unchanged and
   is answered (commands) or logged (observations);
5. for each ruling of severity ``penalty``/``director``: make the journal
   durable, then store the alert in the outbox, keyed by its id. ``info``
   rulings are in the engine's record (and replay) but are not alerted.

**A full disk** (or any write error) must not silence the table. If the
journal cannot be written, the event is applied all the same and its alert
goes out: the line stays in the file's buffer and reaches the disk, in
order, as soon as there is room again, so the journal catches up and still
replays to the same state. Meanwhile the daemon says so loudly: an ERROR log
line per failure (``event=journal-write-failed``) and a ``journal-failed``
alert (severity ``director``, at most one a minute, text naming the file and
the error); ``event=journal-recovered`` when a write succeeds again.

**One door into the outbox.** Every alert, a ruling's or one the daemon
raises itself (``reader-offline``, ``reader-spoofed``, ``journal-failed``),
is a :class:`~tablesense.daemon.outbox.PendingAlert` stored by ``_store``:
one lock (the core and the syncer's threads both store), and one fallback:
an alert the outbox cannot store (its disk full too) is kept in memory, and
the alerts kept are stored, in order and before any later one, at the next
tick that succeeds.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from tablesense.contract.cards import ALL_CARDS, SEATS
from tablesense.contract.events import (
    COMMAND_TYPES,
    DIRECTOR_COMMAND_TYPES,
    EVENT_TYPES,
    FACES,
    LEVELS,
    ZONES,
    BoardStart,
    Dealt,
    Decide,
    Event,
    EventError,
    Observe,
    Reopen,
    Resolve,
    parse_event,
)
from tablesense.contract.handrecords import HandRecords
from tablesense.contract.journal import JournalError, read_journal
from tablesense.contract.vocab import Kind, Severity
from tablesense.daemon.dealing import Dealing
from tablesense.daemon.journal_writer import JournalWriter
from tablesense.daemon.ledger import AlertLedger, logins_by_line, refusal_text
from tablesense.daemon.outbox import Outbox, OutboxError, PendingAlert
from tablesense.daemon.ports import CAUSES
from tablesense.daemon.syncer import Syncer
from tablesense.daemon.topics import Topics
from tablesense.engine import Engine, EngineError, Ruling
from tablesense.engine.board import Board
from tablesense.engine.sensing import Tuning
from tablesense.laws import CODES

log = logging.getLogger("tablesense.table")

ALERT_SEVERITIES: tuple[Severity, ...] = ("penalty", "director")
# Alerts the daemon raises that are not rulings (docs/contract.md, "Alerts of the daemon").
DaemonKind = Literal["journal-failed", "reader-spoofed"]
JOURNAL_ALERT_INTERVAL_MS = 60_000
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
_SEATS, _CARDS = frozenset(SEATS), frozenset(ALL_CARDS)
_ZONES, _FACES, _LEVELS = frozenset(ZONES), frozenset(FACES), frozenset(LEVELS)


def _in_seat_order(seats: list[Any]) -> list[Any]:
    return sorted(set(seats), key=lambda s: SEATS.index(s) if s in SEATS else 9)


_encode = msgspec.json.Encoder().encode


def dumps(obj: Any) -> bytes:
    """Compact JSON, UTF-8 (as ``json.dumps(obj, separators=(",", ":"),
    ensure_ascii=False)``, at msgspec's speed: state and health go out by the
    thousand a second in a full room)."""
    return _encode(obj)


class TableRuntime:
    """A table's engine, journal and alert topic, fed by the core."""

    def __init__(self, name: str, code: str | None, journal: JournalWriter, outbox: Outbox,
                 topics: Topics, kick: Callable[[], None] = lambda: None,
                 tuning: Tuning | None = None, hands: HandRecords | None = None) -> None:
        self.name = name
        self.engine = Engine(table=name, code=code, tuning=tuning, codes=CODES)
        # its code and hand records: what each board is played under (daemon/dealing.py)
        self.dealing = Dealing(name, code, hands)
        self.journal = journal
        self.outbox = outbox
        self.topics = topics
        self.kick = kick
        self.dirty = True
        self.counters = {"events": 0, "rejected": 0, "refused": 0, "rulings": 0, "alerts": 0}
        self._unsaved: list[PendingAlert] = []  # alerts the outbox could not store yet
        self._alert_lock = threading.Lock()
        # The daemon's syncer (fsyncs off the core's thread); None: fsync here, at once.
        self.syncer: Syncer | None = None
        self._sync_errors: list[OSError] = []  # fsyncs that failed in the syncer
        # every alert of the session, who answered it and when (retained on
        # <base>/<table>/alerts by the core); rebuilt by replay
        self.ledger = AlertLedger(name)
        # called with every event the engine took, and the board after it (the feeds)
        self.watchers: list[Callable[[Event, Board | None], None]] = []
        self._closed_seen: tuple[int, int] = (0, 0)  # (id, len) of engine.closed last synced

    # -- restart -------------------------------------------------------------
    def replay(self) -> int:
        """Rebuild state from the journal; enqueue only alerts the outbox never had."""
        path = self.journal.path
        if not path.exists():
            return 0
        replayed = recovered = 0
        with open(path, "rb") as f:  # who sent each command: replay's events drop "by"
            logins = logins_by_line(f)
        for n, item in read_journal(str(path)):  # skips "rejected" lines
            if isinstance(item, JournalError):
                log.warning("event=journal-bad-line table=%s %s", self.name, item)
                continue
            target = self._decide_target(item)
            try:
                rulings = self.engine.apply(item)
            except EngineError as exc:
                log.info("event=journal-line-refused table=%s line=%d error=%r",
                         self.name, n, str(exc))
                continue
            replayed += 1
            self.journal.last_t = max(self.journal.last_t, item.t)
            recovered += self._alerts(rulings, replaying=True)
            line = item.to_json()
            if n in logins:
                line["by"] = logins[n]
            self._to_ledger(item, line, target)
        log.info("event=journal-replayed table=%s events=%d alerts_recovered=%d",
                 self.name, replayed, recovered)
        return replayed

    def last_reader_seqs(self, tail_bytes: int = 256 * 1024) -> dict[str, int]:
        """Per reader seat, the seq of the last frame journaled (from the journal's tail).

        Only the tail is read: a reader whose last frame lies further back has
        long since had its kept frames acknowledged, so there is nothing to ask
        it for again.
        """
        path = self.journal.path
        try:
            with open(path, "rb") as f:
                f.seek(0, 2)
                size = f.tell()
                f.seek(max(0, size - tail_bytes))
                data = f.read()
        except OSError:
            return {}
        out: dict[str, int] = {}
        for raw in data.splitlines():
            if b'"seq"' not in raw:
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            seq, seat = obj.get("seq"), obj.get("reader")
            if isinstance(seat, str) and isinstance(seq, int) and 0 <= seq <= 0xFFFF:
                out[seat] = seq
        return out

    # -- input -----------------------------------------------------------------
    def reader_event(self, seat: str, obj: dict[str, Any], t: int,
                     seq: int | None = None) -> list[Ruling]:
        """An OBSERVE or CALL from a reader, as a journal object without ``t``.

        ``seq`` (the frame's sequence number) is journaled with the seat of the
        reader that sent it (``"seq"``, ``"reader"``): after a crash the link
        resumes from it and asks the reader again for what it sent meanwhile
        (:meth:`last_reader_seqs`).
        """
        obj = {"v": 1, "t": self.journal.stamp(t), **obj}
        try:
            event = parse_event(obj)
        except EventError as exc:
            self.counters["refused"] += 1
            log.warning("event=reader-event-invalid table=%s seat=%s error=%r",
                        self.name, seat, str(exc))
            return []
        extra = {"seq": seq, "reader": seat} if seq is not None else None
        return self._apply(event, extra=extra, defer=True) or []

    def reader_observe(self, reader: str, holder: str, fields: dict[str, Any], t: int,
                       seq: int | None = None, source: str | None = None) -> list[Ruling]:
        """An OBSERVE frame's fields (as the codec decoded them) from ``reader``,
        about a card of ``holder`` (the seat the core decided it reports).

        The same as :meth:`reader_event` with the observation's journal object,
        without building and re-validating it: the codec's values are the
        contract's already (its tables are the vocabulary, cards canonical,
        ``seen_by`` in seat order). Anything else takes :meth:`reader_event`.
        ``source`` is the reader's kind from its HELLO (``rfid``, ``camera``),
        journaled with the observation for the engine's fusion of the two.
        """
        card, zone, face, level = fields.get("card"), fields.get("zone"), fields.get("face"), \
            fields.get("level")
        rt, seen, conf = fields.get("t"), fields.get("seen_by"), fields.get("conf")
        if not (holder in _SEATS and card in _CARDS and zone in _ZONES and face in _FACES
                and level in _LEVELS and type(rt) is int and rt >= 0
                and (seen is None or (type(seen) is list and seen == _in_seat_order(seen)))
                and (conf is None or (type(conf) is float and 0 <= conf <= 1))):
            obj = {"type": "observe", "seat": holder, "rt": rt,
                   **{k: v for k, v in fields.items() if k not in ("t", "seat")}}
            if source is not None:
                obj["source"] = source
            return self.reader_event(reader, obj, t, seq)
        event = Observe(self.journal.stamp(t), holder, card, zone, face, level,
                        None if seen is None else tuple(seen), conf, rt, source)
        extra = {"seq": seq, "reader": reader} if seq is not None else None
        return self._apply(event, extra=extra, defer=True) or []

    def commit(self) -> None:
        """Group commit (the core, once per wake-up): write the frames' lines
        appended since, fsync as the policy wants; never raises."""
        try:
            due = self.journal.commit(background=self.syncer is not None)
        except OSError as exc:
            self._journal_failed(exc)
            return
        if due and self.syncer is not None:
            self.syncer.submit(self, [])  # the interval's fsync, off the core's thread
        if self._journal_failing:
            self._journal_failing = False
            log.error("event=journal-recovered table=%s path=%s", self.name, self.journal.path)

    def command(self, payload: bytes, trusted: bool = False,
                by: str | None = None) -> dict[str, Any]:
        """A command from ``<base>/<table>/cmd``; returns the response object.

        ``trusted`` (in-process sources only: a dealing machine's adapter, the
        demo) also admits the event types that docs/contract.md does not list as
        commands, such as ``dealt``; never observations, which come from readers.
        ``by`` is the sender's broker login (``.../cmd/by/<user>``, topics.py),
        journaled with the command (and with a rejected one) as ``"by"``; a
        ``by`` inside the payload is dropped, never believed.
        """
        req: Any = None
        try:
            obj = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            return self._reject(payload.decode("utf-8", "replace"), None, "(payload)",
                                f"not JSON: {exc}", by)
        if not isinstance(obj, dict):
            return self._reject(obj, None, "(payload)", "expected a JSON object", by)
        req = obj.pop("req", None)
        obj.pop("by", None)
        kind = obj.get("type")
        if kind == "whoami":  # who the daemon takes the sender for; nothing journaled
            return {"ok": True, "req": req, "type": "whoami", "by": by, "table": self.name}
        allowed = (set(EVENT_TYPES) - {"observe"}) if trusted else COMMAND_TYPES
        if kind in DIRECTOR_COMMAND_TYPES and not trusted:
            if by is None:
                return self._reject(obj, req, "type",
                                    f"{kind} is taken from a director's login only: send it "
                                    f"on {self.topics.cmd_by(self.name, '<login>')}", by)
            allowed = {*allowed, kind}
        if kind not in allowed:
            return self._reject(obj, req, "type",
                                f"expected one of {', '.join(sorted(allowed))}, got {kind!r}",
                                by)
        if kind == "board" and "table" in obj and str(obj["table"]) != self.name:
            return self._reject(obj, req, "table",
                                f"this is table {self.name!r}, got {obj['table']!r}", by)
        try:
            if kind == "board":
                obj.setdefault("table", self.name)
                self.dealing.code_of(obj)  # the journal names the code played
            obj = {**obj, "v": 1, "t": self.journal.stamp()}
            event = parse_event(obj)
            if isinstance(event, BoardStart):
                event = self.dealing.board(event)
            elif isinstance(event, Dealt) and not trusted:
                b = self.engine.board
                self.dealing.check_dealt(b.number if b is not None else None,
                                         b.phase if b is not None else None)
        except EventError as exc:
            return self._reject(obj, req, exc.field, exc.message, by)
        if isinstance(event, Decide):
            standing = self.ledger.standing(event.option, event.alert)
            if standing is not None:  # one answer an alert (daemon/ledger.py)
                rid, answer = standing
                return self._reject(obj, req, "alert", refusal_text(rid, answer), by,
                                    answered={"alert": rid, **answer})
        if isinstance(event, Resolve) and self.ledger.daemon_alert(event.alert):
            # the daemon's own alerts are not the engine's: dismissed in the ledger
            self.ledger.resolved(event.alert, {**obj, "by": by})
            return {"ok": True, "req": req, "type": kind, "rulings": []}
        rulings = self._apply(event, by)
        if rulings is None:
            return {"ok": False, "req": req, "type": kind, "error": self._last_error,
                    "journaled": True}
        out: dict[str, Any] = {"ok": True, "req": req, "type": kind,
                               "rulings": [r.id for r in rulings]}
        made = self.dealing.dealt(event, self.journal.stamp()) if isinstance(
            event, BoardStart) else None
        if made is not None:  # the board's deal from its hand record
            dealt = self._apply(made[0], extra=made[1])
            out["rulings"] += [r.id for r in dealt or []]
            out["dealt"] = "record"
        return out

    def tick(self, now: int) -> None:
        """Let time close incidents (cards played together, thrown hands)."""
        while self._sync_errors:
            self._journal_failed(self._sync_errors.pop(0))
        if self._unsaved:
            self._store_unsaved()
        if self._journal_failing:
            self._journal_write(None)
        if self.engine.board is not None and now > self.engine.now:
            # A tick is a moment on the journal's clock: events applied after it are
            # stamped no earlier, so a replay (which has no ticks, only the next
            # event's t) cannot put before a time-made ruling a frame that was
            # received just before the tick but applied just after it (queued, or
            # held for a RESEND). (The engine also takes time in the same order in
            # apply() as in tick(): tests/test_faults.py, ticks between events.)
            self.journal.last_t = max(self.journal.last_t, now)
            before = self._shape()
            self._alerts(self.engine.tick(now))
            if self._shape() != before:  # time alone played a card (its dwell is over)
                self.dirty = True

    def _shape(self) -> tuple[object, ...]:
        """What time can change in the published state without an event: the play."""
        b = self.engine.board
        if b is None:
            return ()
        return (b.phase, len(b.trick), len(b.tricks), len(self.engine.rulings), b.turn)

    def maybe_sync(self) -> None:
        """The journal's interval fsync (core thread, each state interval); never raises."""
        if self.syncer is not None:
            if self.journal.sync_due():
                self.syncer.submit(self, [])
            return
        try:
            self.journal.maybe_sync()
        except OSError as exc:
            self._journal_failed(exc)

    # -- the steps ---------------------------------------------------------------
    _last_error = ""

    def _apply(self, event: Event, by: str | None = None,
               extra: dict[str, Any] | None = None, defer: bool = False) -> list[Ruling] | None:
        """``defer``: the line is buffered until :meth:`commit` (or an alert's sync)."""
        line = event.to_json()
        if extra:
            line.update(extra)
        if by is not None:
            line["by"] = by
        self._journal_write(line, defer)
        self.counters["events"] += 1
        target = self._decide_target(event)
        try:
            rulings = self.engine.apply(event)
        except EngineError as exc:
            self.counters["refused"] += 1
            self._last_error = str(exc)
            log.warning("event=engine-refused table=%s type=%s error=%r",
                        self.name, event.type, str(exc))
            return None
        self.dirty = True
        self._alerts(rulings)
        self._to_ledger(event, line, target)
        return rulings

    def _decide_target(self, event: Event) -> str | None:
        """The alert a ``decide`` answers, asked before the engine applies it (the
        rulings it makes are not candidates)."""
        if not isinstance(event, Decide):
            return None
        return self.ledger.target(event.option, event.alert)

    def _position(self) -> tuple[int, int, int]:
        """Where the board stands: its number, calls made, cards counted."""
        b = self.engine.board
        if b is None:
            return (0, 0, 0)
        return (b.number, len(b.calls), sum(len(p) for p, _ in b.tricks) + len(b.trick))

    def _to_ledger(self, event: Event, line: dict[str, Any], target: str | None) -> None:
        """An event the engine took: the answers it gives, the rulings it closed."""
        at = self._position()
        if isinstance(event, Decide) and target is not None:
            self.ledger.decided(target, line, at, target in self.engine.answered)
        else:
            self.ledger.moved(at)
            if isinstance(event, Resolve):
                self.ledger.resolved(event.alert, line)
            elif isinstance(event, Reopen):
                self.ledger.reopened(event.alert, line)
        for watch in self.watchers:
            watch(event, self.engine.board)
        closed = self.engine.closed
        seen = (id(closed), len(closed))
        if seen != self._closed_seen:
            self._closed_seen = seen
            self.ledger.sync_closed(closed)

    def _alerts(self, rulings: list[Ruling], replaying: bool = False) -> int:
        waiting: list[PendingAlert] = []
        for r in rulings:
            self.counters["rulings"] += 1
            if r.severity not in ALERT_SEVERITIES:
                continue
            alert = r.to_json()
            self.ledger.add(alert)
            if replaying and self.outbox.known(r.id):
                continue
            waiting.append(PendingAlert(r.id, dumps(alert), r.kind, r.severity))
        if not waiting:
            return 0
        if self.syncer is not None and not replaying and (
                not self.journal.fast_sync or self.syncer.busy(self)):
            # written to the OS here, made durable and stored by the syncer, in order
            # (a journal whose fsyncs are quick is synced here, no thread hop, unless
            # alerts of this table still wait in the syncer: they go first)
            try:
                self.journal.flush()
            except OSError as exc:
                self._journal_failed(exc)
            self.syncer.submit(self, waiting)
            return len(waiting)
        return self._durable_then_store(waiting)

    def make_durable(self, alerts: list[PendingAlert]) -> None:
        """(The syncer's thread.) fsync the journal, then store ``alerts``; never raises.

        A failed fsync is reported by the core's next tick (the failure alert reads
        the engine, which only the core touches); the alerts go out all the same.
        """
        try:
            self.journal.sync()
        except OSError as exc:
            self._sync_errors.append(exc)
        self._store(alerts)

    def _durable_then_store(self, alerts: list[PendingAlert]) -> int:
        try:
            self.journal.sync()
        except OSError as exc:
            self._journal_failed(exc)
        return self._store(alerts)

    def _store(self, alerts: list[PendingAlert]) -> int:
        """The one door into the outbox, for rulings' alerts and the daemon's own."""
        new = 0
        for a in alerts:
            if self._enqueue(a):
                new += 1
                log.info("event=alert table=%s id=%s kind=%s severity=%s",
                         self.name, a.id, a.kind, a.severity)
        if new:
            self.kick()
        return new

    # -- when the disk fails -----------------------------------------------------
    _journal_failing = False
    _journal_alerted: int | None = None

    def _journal_write(self, line: dict[str, Any] | None, defer: bool = False) -> None:
        """Append ``line`` (None: only retry what is buffered); never raise."""
        try:
            if line is not None:
                self.journal.append(line, defer)
                if defer:
                    return  # written by commit(), which reports failures
            elif self._journal_failing:
                self.journal.flush()
        except OSError as exc:
            self._journal_failed(exc)
            return
        if self._journal_failing:
            self._journal_failing = False
            log.error("event=journal-recovered table=%s path=%s", self.name, self.journal.path)

    def _journal_failed(self, exc: OSError) -> None:
        self.counters["journal_errors"] = self.counters.get("journal_errors", 0) + 1
        self._journal_failing = True
        log.error("event=journal-write-failed table=%s path=%s error=%r (events are still "
                  "applied and alerted; the journal catches up when it can be written)",
                  self.name, self.journal.path, str(exc))
        t = int(time.time() * 1000)
        if self._journal_alerted is not None and t - self._journal_alerted < \
                JOURNAL_ALERT_INTERVAL_MS:
            return
        self._journal_alerted = t
        self._store([self._director_alert(
            f"{self.name}-journal-failed-{t}", "journal-failed", t,
            f"The journal of table {self.name} cannot be written ({self.journal.path}: "
            f"{exc.strerror or exc}). Rulings go on, but a restart now would lose them: "
            "free the disk.", reason=exc.strerror or str(exc))])

    def _enqueue(self, alert: PendingAlert) -> bool:
        """Store an alert in the outbox; if the outbox cannot (disk full), keep it for later.

        Called from the core and from the syncer's threads: one lock for the
        alerts kept in memory and their count. Alerts kept earlier go first, so
        a table's alerts reach the outbox in the order they were raised."""
        with self._alert_lock:
            if self._unsaved:
                self._unsaved.append(alert)
                return False
            try:
                stored = self.outbox.enqueue(alert.id, self.topics.alert(self.name),
                                             alert.payload)
            except OutboxError as exc:
                log.error("event=outbox-write-failed table=%s id=%s error=%r (kept in memory, "
                          "stored when the outbox can be written)", self.name, alert.id,
                          str(exc))
                self._unsaved.append(alert)
                return False
            if stored:
                self.counters["alerts"] += 1
            return stored

    def _store_unsaved(self) -> None:
        stored = False
        with self._alert_lock:
            pending, self._unsaved = self._unsaved, []
            for i, a in enumerate(pending):
                try:
                    if self.outbox.enqueue(a.id, self.topics.alert(self.name), a.payload):
                        self.counters["alerts"] += 1
                        stored = True
                        log.info("event=alert table=%s id=%s kind=%s severity=%s (stored late)",
                                 self.name, a.id, a.kind, a.severity)
                except OutboxError:
                    self._unsaved = pending[i:]
                    break
        if stored:
            self.kick()

    def _reject(self, given: Any, req: Any, field: str, error: str,
                by: str | None = None, **extra: Any) -> dict[str, Any]:
        self.counters["rejected"] += 1
        line: dict[str, Any] = {"v": 1, "t": self.journal.stamp(), "type": "rejected",
                                "source": "cmd", "field": field, "error": error, "input": given}
        if req is not None:
            line["req"] = req
        if by is not None:
            line["by"] = by
        self.journal.append(line)
        log.warning("event=command-rejected table=%s field=%s error=%r", self.name, field, error)
        return {"ok": False, "req": req, "field": field, "error": error, **extra}

    def _director_alert(self, ident: str, kind: Kind | DaemonKind, t: int, text: str,
                        **extra: Any) -> PendingAlert:
        """An alert the daemon raises itself (severity director; docs/contract.md, "Alerts
        of the daemon"), ready for :meth:`_store`: ``ident`` is its stable id, ``extra``
        its ``reader``/``reason`` (and ``seats``)."""
        snap = self.engine.snapshot()
        severity: Severity = "director"
        alert: dict[str, Any] = {
            "v": 1, "id": ident, "table": self.name, "board": snap.get("board"),
            "code": snap.get("code"), "phase": snap.get("phase"), "cards": [], "kind": kind,
            "options": [], "citation": "", "severity": severity, **extra, "text": text, "t": t,
        }
        alert = {k: v for k, v in alert.items() if v is not None}
        self.ledger.add(alert)
        return PendingAlert(ident, dumps(alert), kind, severity)

    def reader_offline_alert(self, seat: str, reason: str, t: int,
                             seats: tuple[str, ...] = ()) -> None:
        """The daemon's own ``reader-offline`` alert (severity director), stable id.

        ``seat`` is the reader's name; ``seats`` the seats a reader covering several
        covers (a camera over the table), named in the text and the alert."""
        why = CAUSES.get(reason, reason)  # the port side's cause, said in words
        if seats and seats != (seat,):
            text = (f"The {seat} reader at table {self.name} "
                    f"({', '.join(SEAT_NAMES.get(s, s) for s in seats)}) stopped answering "
                    f"({why}); the cards of those seats are not being sensed by it until "
                    "it is back.")
            extra: dict[str, Any] = {"seats": list(seats)}
        else:
            text = (f"{SEAT_NAMES.get(seat, seat)}'s reader at table {self.name} stopped "
                    f"answering ({why}); its cards are not being sensed until it is back.")
            extra = {}
        self._store([self._director_alert(
            f"{self.name}-reader-{seat}-{t}", "reader-offline", t, text,
            reader=seat, reason=reason, **extra)])

    def reader_spoofed_alert(self, seat: str, reason: str, t: int) -> None:
        """``reader-spoofed`` (severity director): frames on a reader's line that its
        key did not sign (``reason``: ``bad_signature`` or ``unsigned``). The link
        dropped them, and asks for this at most once a minute per reader."""
        what = "Frames with a forged signature" if reason == "bad_signature" else "Unsigned frames"
        self._store([self._director_alert(
            f"{self.name}-reader-{seat}-spoofed-{t}", "reader-spoofed", t,
            f"{what} arrived on {SEAT_NAMES.get(seat, seat)}'s reader line at table "
            f"{self.name} and were dropped: a reader without its key, or a device spoofing "
            "it. Check the reader and its cable.", reader=seat, reason=reason)])

