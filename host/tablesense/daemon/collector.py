"""CPython's cyclic garbage collector, kept off the alert path of a long-running daemon.

Objects are freed by reference counting as soon as nothing refers to them;
the cyclic collector only finds groups of objects that refer to each other
and nothing else. It runs when allocations outnumber frees by 700, and each
pass walks every object of the generations it collects, holding the core
while alerts wait. The tables' engines keep thousands of objects alive
(readings, rulings, penalty cards) and the daemon makes no cyclic garbage as
it runs, so no automatic pass may walk the long-lived objects: it would find
nothing (what the passes cost: BENCHMARKS.md, issue 18's third pass).

So :class:`Collector`, ticked by the core between batches, moves whatever
has survived so far out of the collector's way (``gc.freeze()``: the
objects stay where they are and are still freed by reference counting; the
collector just stops walking them), so that its automatic passes only ever
see what was made since the last tick. What freezing gives up is finding
cycles among frozen objects; every ``reclaim_s`` the tick therefore gives the
collector the whole heap once (``unfreeze``, a full pass, ``freeze``), so a
cycle that does form is freed within that time. Whoever owns the process
(``tablesense run``) starts it; a daemon embedded in another program (tests,
the demo) leaves the collector alone.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger("tablesense.collector")

RECLAIM_S = 600.0


class Collector:
    """Freezes survivors each tick; a full pass over everything every ``reclaim_s``."""

    def __init__(self, reclaim_s: float = RECLAIM_S) -> None:
        self.reclaim_s = reclaim_s
        self.reclaims = 0
        self.reclaimed = 0  # objects the full passes found unreachable
        self.reclaim_ms = 0.0  # the last full pass
        self._next_reclaim = 0.0
        self._started = False

    def start(self) -> None:
        """Collect once and freeze what start-up made (modules, tables, replayed engines)."""
        gc.collect()
        gc.freeze()
        self._next_reclaim = time.monotonic() + self.reclaim_s
        self._started = True

    def tick(self, now: float | None = None) -> None:
        """Between batches: freeze what survived since the last tick (cheap: the
        collector's lists are joined, no object is visited); when due, a full pass."""
        if not self._started:
            return
        now = time.monotonic() if now is None else now
        if now >= self._next_reclaim:
            self._next_reclaim = now + self.reclaim_s
            started = time.perf_counter()
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
            self.reclaims += 1
            self.reclaimed += found
            self.reclaim_ms = (time.perf_counter() - started) * 1000
            log.info("event=gc-reclaim found=%d took_ms=%.1f frozen=%d",
                     found, self.reclaim_ms, gc.get_freeze_count())
            return
        gc.freeze()

    def stop(self) -> None:
        """Give the collector everything back (the process goes on without the ticks)."""
        if self._started:
            self._started = False
            gc.unfreeze()
