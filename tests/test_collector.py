"""daemon/collector.py: survivors leave the collector's walks; cycles are still freed."""

from __future__ import annotations

import gc
import time
import weakref

from tablesense.daemon.collector import Collector


class Node:
    def __init__(self) -> None:
        self.me: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A node referring to itself and nothing else: garbage only the collector finds."""
    n = Node()
    n.me = n
    return weakref.ref(n)


def test_ticks_freeze_survivors_and_a_reclaim_frees_their_cycles() -> None:
    c = Collector(reclaim_s=3600)
    c.start()
    try:
        assert gc.get_freeze_count() > 0
        kept = [Node() for _ in range(100)]  # made after start, alive
        dead = cycle()
        c.tick(time.monotonic())
        frozen = gc.get_freeze_count()
        assert frozen >= 100  # the tick froze them (and the dead cycle with them)
        gc.collect()
        assert dead() is not None  # frozen: the collector's passes do not see it
        assert c.reclaims == 0
        c.tick(time.monotonic() + 3601)  # the reclaim is due: one pass over everything
        assert dead() is None
        assert c.reclaims == 1 and c.reclaimed >= 1
        assert gc.get_freeze_count() > 0  # frozen again afterwards
        young = cycle()  # a cycle made after a tick and before the next: collected as ever
        gc.collect()
        assert young() is None
        assert len(kept) == 100
    finally:
        c.stop()
    assert gc.get_freeze_count() == 0


def test_a_collector_never_started_leaves_the_collector_alone() -> None:
    before = gc.get_freeze_count()
    c = Collector()
    c.tick(time.monotonic() + 10_000)
    c.stop()
    assert gc.get_freeze_count() == before and c.reclaims == 0
