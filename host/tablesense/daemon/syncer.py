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
import queue
import threading
from typing import Protocol

from tablesense.daemon.outbox import PendingAlert

log = logging.getLogger("tablesense.syncer")

WORKERS = 16


class Durable(Protocol):
    """What the syncer serves (a :class:`~tablesense.daemon.tables.TableRuntime`)."""

    def make_durable(self, alerts: list[PendingAlert]) -> None: ...


class Syncer:
    """A fixed pool that fsyncs journals and then releases the alerts waiting on them.

    Its own few lines rather than a ``ThreadPoolExecutor``: a room hands on
    hundreds of jobs a second (each table's interval fsync, each alert), so a
    job costs a queue put, not a future, a work item and a condition. A job here
    is the table itself, put on a queue that the workers take from; they are
    started as jobs need them, at most ``workers``.
    """

    def __init__(self, workers: int = WORKERS) -> None:
        self.workers = workers
        self._jobs: queue.SimpleQueue[Durable | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._waiting: dict[Durable, list[PendingAlert]] = {}
        self._busy: set[Durable] = set()
        self._idle = threading.Condition(self._lock)
        self._closed = False

    def submit(self, table: Durable, alerts: list[PendingAlert]) -> None:
        """Make ``table``'s journal durable as written so far, then store ``alerts``
        in the outbox. Never blocks (once
        closed: done in the caller's thread)."""
        with self._lock:
            if self._closed:
                run_here = True
            else:
                run_here = False
                self._waiting.setdefault(table, []).extend(alerts)
                if table in self._busy:
                    return  # the running job goes round once more for these
                self._busy.add(table)
                if len(self._threads) < min(self.workers, len(self._busy)):
                    t = threading.Thread(target=self._work, daemon=True,
                                         name=f"journal-sync_{len(self._threads)}")
                    self._threads.append(t)
                    t.start()
        if run_here:
            table.make_durable(alerts)
            return
        self._jobs.put(table)

    def busy(self, table: Durable) -> bool:
        """Is anything of ``table``'s waiting or being synced (its alerts must follow)?"""
        with self._lock:
            return table in self._busy

    def _work(self) -> None:
        while True:
            table = self._jobs.get()
            if table is None:
                return
            self._run(table)

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
        """Finish what was handed on (alerts reach the outbox), then stop the workers."""
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        for _ in threads:  # after every job queued so far
            self._jobs.put(None)
        for t in threads:
            t.join()
