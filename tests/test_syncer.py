"""daemon/syncer.py: one job per table at a time, later alerts share the next fsync,
a fixed number of threads, and close() finishes what was handed on."""

from __future__ import annotations

import threading

from tablesense.daemon.outbox import PendingAlert
from tablesense.daemon.syncer import Syncer

Alert = PendingAlert


def alert(n: int) -> Alert:
    return PendingAlert(f"1-1-{n}", b"{}", "k", "penalty")


class Table:
    """Records each make_durable; the first one waits until ``release`` is set."""

    def __init__(self, hold: bool = False) -> None:
        self.calls: list[list[Alert]] = []
        self.started = threading.Event()
        self.release = threading.Event()
        if not hold:
            self.release.set()

    def make_durable(self, alerts: list[Alert]) -> None:
        self.started.set()
        assert self.release.wait(10)
        self.calls.append(list(alerts))


def test_alerts_handed_on_while_a_table_syncs_share_its_next_fsync_in_order() -> None:
    s = Syncer(workers=2)
    held = Table(hold=True)
    try:
        s.submit(held, [alert(1)])
        assert held.started.wait(10)
        for n in (2, 3, 4):  # while the first fsync runs
            s.submit(held, [alert(n)])
        assert s.busy(held)
        others = [Table() for _ in range(5)]
        for i, t in enumerate(others):
            s.submit(t, [alert(10 + i)])
        held.release.set()
        assert s.wait_idle(10)
        assert held.calls == [[alert(1)], [alert(2), alert(3), alert(4)]]
        assert all(t.calls == [[alert(10 + i)]] for i, t in enumerate(others))
        assert not s.busy(held)
        names = {t.name for t in threading.enumerate() if t.name.startswith("journal-sync")}
        assert len(names) <= 2
    finally:
        s.close()
    assert s._threads and not any(t.is_alive() for t in s._threads)


def test_close_finishes_what_was_handed_on_then_syncs_in_the_callers_thread() -> None:
    s = Syncer(workers=1)
    tables = [Table() for _ in range(20)]
    for i, t in enumerate(tables):
        s.submit(t, [alert(i)])
    s.close()
    assert all(t.calls == [[alert(i)]] for i, t in enumerate(tables))
    late = Table()
    s.submit(late, [alert(99)])  # after close: done at once, here
    assert late.calls == [[alert(99)]]
