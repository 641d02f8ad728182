"""Journal fsyncs off the core's thread; an alert waits for the one covering its frame.

The core serves every reader from one thread (:mod:`.loop`). An fsync on a
disk takes from a fraction of a millisecond to tens of milliseconds, and a
room of 128 tables asks for one per alert and per table every
``fsync_interval_ms``: done in the core they would stall every reader behind
each one. So the core only writes the lines (to the OS) and hands the table
here, with the alerts waiting on it; a small fixed pool of threads (fsync
releases the interpreter lock) makes that table's journal durable and only
then stores the alerts in the outbox, in order. Per table one job at a time:
what is handed on while one runs is served by one more fsync after it, which
covers all of it (group commit). Threads: ``workers``, whatever the number of
tables.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

log = logging.getLogger("tablesense.syncer")

WORKERS = 16


class Durable(Protocol):
    """What the syncer serves (a :class:`~tablesense.daemon.tables.TableRuntime`)."""

    def make_durable(self, alerts: list[tuple[str, bytes, str, str]]) -> None: ...


class Syncer:
    """A fixed pool that fsyncs journals and then releases the alerts waiting on them."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="journal-sync")
        self._lock = threading.Lock()
        self._waiting: dict[Durable, list[tuple[str, bytes, str, str]]] = {}
        self._busy: set[Durable] = set()
        self._idle = threading.Condition(self._lock)

    def submit(self, table: Durable, alerts: list[tuple[str, bytes, str, str]]) -> None:
        """Make ``table``'s journal durable as written so far, then store ``alerts``
        ((id, payload, kind, severity) each) in the outbox. Never blocks."""
        with self._lock:
            self._waiting.setdefault(table, []).extend(alerts)
            if table in self._busy:
                return  # the running job goes round once more for these
            self._busy.add(table)
        self._pool.submit(self._run, table)

    def busy(self, table: Durable) -> bool:
        """Is anything of ``table``'s waiting or being synced (its alerts must follow)?"""
        with self._lock:
            return table in self._busy

    def _run(self, table: Durable) -> None:
        while True:
            with self._lock:
                alerts = self._waiting.pop(table, None)
                if alerts is None:
                    self._busy.discard(table)
                    self._idle.notify_all()
                    return
            try:
                table.make_durable(alerts)
            except Exception:  # make_durable reports its own errors; never lose the loop
                log.exception("event=journal-sync-error")

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing waits for an fsync (tests, shutdown)."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._busy and not self._waiting, timeout)

    def close(self) -> None:
        """Finish what was handed on (alerts reach the outbox), then stop the pool."""
        self._pool.shutdown(wait=True)
