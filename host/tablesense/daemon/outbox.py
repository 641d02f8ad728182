"""The durable outbox: an alert is stored here before anyone tries to send it.

Why: an alert tells the director that a penalty card lies on a table. It must
reach him even if the broker is down for ten minutes or the daemon is killed
(SIGKILL, power cut) between the ruling and the PUBACK. So the ruling is
committed to SQLite first; the publisher reads pending rows in order and a
row is marked acknowledged only when the broker's PUBACK for it arrives.
Delivery is at-least-once: a row sent but not yet acknowledged when the
daemon dies is sent again after restart, with the same payload and therefore
the same alert ``id`` for the consumer to drop.

The database runs in WAL mode with ``synchronous=NORMAL``: a commit is
written to the WAL (it survives the daemon being killed) but not fsynced;
checkpoints are. A power cut may therefore lose the last rows, and that is
safe: every ruling's journal line was made durable before its row was added
(``TableRuntime._alerts`` syncs the journal first), and on restart the replay
enqueues every ruling whose id the outbox does not know, so a lost row comes
back, and a lost "acked" mark means one more delivery of the same id. What a
power cut can lose outright is one of the daemon's own alerts not yet
delivered (``reader-offline``, ``reader-spoofed``, ``journal-failed``: they
are not journaled); the readers' state is found again after the restart.
Not ``FULL``: no second fsync on an alert's path, which the journal's fsync
already makes safe.

Rows are keyed by the alert id (``key``, unique): enqueueing the same alert
twice is a no-op. That is what lets the daemon replay a journal on restart
and enqueue every ruling it produces; only the ones that never reached the
outbox (a crash between the journal line and the enqueue) are new.

>>> box = Outbox(":memory:")
>>> box.enqueue("1-1-1", "t/1/alert", b"{}")
True
>>> box.enqueue("1-1-1", "t/1/alert", b"{}")
False
>>> [m.key for m in box.pending()]
['1-1-1']
>>> box.ack(box.pending()[0].seq)
>>> box.pending(), box.counts()
([], {'pending': 0, 'acked': 1, 'refused': 0})
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    key      TEXT NOT NULL UNIQUE,
    topic    TEXT NOT NULL,
    payload  BLOB NOT NULL,
    qos      INTEGER NOT NULL DEFAULT 1,
    created  INTEGER NOT NULL,
    acked    INTEGER,
    status   TEXT NOT NULL DEFAULT 'pending'
);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (status, seq);
"""


@dataclass(frozen=True)
class Message:
    seq: int
    key: str
    topic: str
    payload: bytes
    qos: int


@dataclass(frozen=True, slots=True)
class PendingAlert:
    """An alert on its way into the outbox: a ruling's, or one the daemon raises itself.

    ``id`` is its stable id (the outbox's key), ``payload`` the JSON sent as it
    is; ``kind`` and ``severity`` are for the log line when it is stored."""

    id: str
    payload: bytes
    kind: str
    severity: str


class OutboxError(Exception):
    """The outbox could not be read or written (its disk full, the file damaged).

    The cause (SQLite's error) is ``__cause__``; callers need not import sqlite3."""


class Outbox:
    """A thread-safe SQLite outbox (one connection, one lock).

    Every method raises :class:`OutboxError` when the database fails."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._failing("open"):
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # see the module docstring
            self._db.executescript(_SCHEMA)

    @contextmanager
    def _failing(self, what: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise OutboxError(f"{self.path}: {what}: {exc}") from exc

    def close(self) -> None:
        with self._lock, self._failing("close"):
            self._db.close()

    def enqueue(self, key: str, topic: str, payload: bytes, qos: int = 1) -> bool:
        """Store an alert durably; False if one with this key was stored before."""
        with self._lock, self._failing(f"enqueue {key}"):
            cur = self._db.execute(
                "INSERT OR IGNORE INTO outbox (key, topic, payload, qos, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, topic, payload, qos, int(time.time() * 1000)),
            )
            return cur.rowcount == 1

    def known(self, key: str) -> bool:
        """Was an alert with this key ever enqueued (delivered or not)?"""
        with self._lock, self._failing(f"look up {key}"):
            row = self._db.execute("SELECT 1 FROM outbox WHERE key = ?", (key,)).fetchone()
            return row is not None

    def pending(self, after: int = 0, limit: int = 1000) -> list[Message]:
        """Unacknowledged alerts with ``seq > after``, oldest first."""
        with self._lock, self._failing("read pending"):
            rows = self._db.execute(
                "SELECT seq, key, topic, payload, qos FROM outbox "
                "WHERE status = 'pending' AND seq > ? ORDER BY seq LIMIT ?",
                (after, limit),
            ).fetchall()
        return [Message(int(r[0]), str(r[1]), str(r[2]), bytes(r[3]), int(r[4])) for r in rows]

    def ack(self, seq: int, status: str = "acked") -> None:
        """The broker took it (PUBACK): it leaves the pending set.

        ``status='refused'`` records a PUBACK with an error reason code (MQTT
        v5, e.g. not authorised): retrying would block every later alert, so
        it is kept for inspection instead.
        """
        with self._lock, self._failing(f"ack {seq}"):
            self._db.execute(
                "UPDATE outbox SET status = ?, acked = ? WHERE seq = ? AND status = 'pending'",
                (status, int(time.time() * 1000), seq),
            )

    def counts(self) -> dict[str, int]:
        with self._lock, self._failing("count"):
            rows = self._db.execute("SELECT status, COUNT(*) FROM outbox GROUP BY status")
            found = {str(s): int(n) for s, n in rows}
        return {k: found.get(k, 0) for k in ("pending", "acked", "refused")}

