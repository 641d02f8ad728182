"""The daemon's one event loop: threads do not grow with readers, and group commit
writes a wake-up's frames together, durable before any alert they cause."""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablesense.daemon.config import parse_config
from tablesense.daemon.core import Daemon
from tablesense.daemon.journal_writer import JournalWriter
from tablesense.daemon.outbox import Outbox
from tablesense.daemon.syncer import Syncer
from tablesense.daemon.tables import TableRuntime
from tablesense.daemon.topics import Topics
from tablesense.onboard.wire import codec

DECK = [s + r for s in "SHDC" for r in "AKQJT98765432"]
HANDS = {seat: DECK[i::4] for i, seat in enumerate("NESW")}


def until(pred: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


@pytest.fixture
def ptys() -> Iterator[Callable[[int], list[tuple[int, str]]]]:
    opened: list[int] = []

    def make(n: int) -> list[tuple[int, str]]:
        out = []
        for _ in range(n):
            master, slave = os.openpty()
            tty.setraw(slave)
            opened.extend((master, slave))
            out.append((master, os.ttyname(slave)))
        return out

    yield make
    for fd in opened:
        with contextlib.suppress(OSError):
            os.close(fd)


def daemon_for(tmp_path: Path, paths: list[str]) -> Daemon:
    tables = {str(i // 4 + 1): {} for i in range(len(paths))}
    for i, path in enumerate(paths):
        tables[str(i // 4 + 1)].setdefault("readers", {})["NESW"[i % 4]] = {"port": path}
    return Daemon(parse_config({
        "version": 1, "broker": {"port": 9}, "tables": tables,  # no broker: paho retries
        "journal": {"dir": str(tmp_path / "j"), "fsync": "never"},
        "outbox": {"path": str(tmp_path / "outbox.sqlite")},
    }, source="t.toml", base_dir=tmp_path))


def test_threads_do_not_grow_with_readers(tmp_path: Path, ptys) -> None:
    counts = []
    for n in (4, 32):
        before = threading.active_count()
        daemon = daemon_for(tmp_path / str(n), [p for _, p in ptys(n)])
        daemon.start()
        try:
            assert until(lambda d=daemon: all(x.counters["opens"] >= 1 for x in d.links))
            counts.append(threading.active_count() - before)
        finally:
            daemon.stop()
    assert counts[0] == counts[1], counts  # 4 readers or 32: the same threads


def test_frames_of_many_readers_reach_the_journals_in_order(tmp_path: Path, ptys) -> None:
    readers = ptys(16)
    daemon = daemon_for(tmp_path, [p for _, p in readers])
    daemon.start()
    try:
        assert until(lambda: all(x.counters["opens"] >= 1 for x in daemon.links))
        time.sleep(0.05)  # opening a tty flushes its input
        for table in ("1", "2", "3", "4"):
            daemon.command(table, {"type": "board", "board": 1, "dealer": "N"})
        for i in range(13):  # every reader a frame a round, all written before any is read
            for n, (master, _) in enumerate(readers):
                seat = "NESW"[n % 4]
                os.write(master, codec.encode(codec.OBSERVE, {
                    "seat": seat, "card": HANDS[seat][i], "zone": "hand", "face": "down",
                    "level": "at", "t": i}, n % 4 + 1, i))
        # each table: its board, and 13 frames of each of its four readers
        assert until(lambda: all(t.journal.lines == 53 for t in daemon.tables.values()))
    finally:
        daemon.stop()
    for table in ("1", "2", "3", "4"):
        lines = (tmp_path / "j" / f"{table}.jsonl").read_text().splitlines()[1:]
        for seat in "NESW":
            mine = [x for x in lines if f'"reader":"{seat}"' in x]
            assert [f'"card":"{c}"' in x for x, c in zip(mine, HANDS[seat], strict=True)] \
                == [True] * 13


def test_group_commit_one_write_and_one_fsync_for_a_batch(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "1.jsonl", "always")
    for t in range(100):
        j.append({"v": 1, "t": t, "type": "observe", "seat": "N", "card": "SA",
                  "zone": "hand", "face": "down"}, defer=True)
    assert j.pending > 0 and j.fsyncs == 0 and (tmp_path / "1.jsonl").read_bytes() == b""
    j.commit()
    assert j.pending == 0 and j.fsyncs == 1
    assert len((tmp_path / "1.jsonl").read_bytes().splitlines()) == 100
    j.commit()  # nothing new: no fsync
    assert j.fsyncs == 1
    j.close()


@pytest.mark.parametrize("syncer", [False, True])
def test_an_alert_waits_for_the_fsync_covering_its_frame(tmp_path: Path, syncer: bool) -> None:
    """Frames of one wake-up are buffered; the alert one of them causes is stored in
    the outbox only once every line so far is written and fsynced (by the core
    itself, or by the syncer's thread, as in the daemon)."""
    journal = JournalWriter(tmp_path / "1.jsonl", "event", interval_ms=60_000)
    seen: list[tuple[int, int, bytes]] = []

    class Box(Outbox):
        def enqueue(self, key: str, topic: str, payload: bytes, qos: int = 1) -> bool:
            seen.append((journal.fsyncs, journal.pending, (tmp_path / "1.jsonl").read_bytes()))
            return super().enqueue(key, topic, payload, qos)

    rt = TableRuntime("1", None, journal, Box(":memory:"), Topics("ts"))
    import json

    if syncer:
        rt.syncer = Syncer()
    rt.command(json.dumps({"type": "board", "board": 1, "dealer": "N"}).encode())
    rt.command(json.dumps({"type": "dealt", "hands": HANDS}).encode(), trusted=True)
    for seat, call in zip("NESW", ("1N", "P", "P", "P"), strict=True):
        rt.command(json.dumps({"type": "call", "seat": seat, "call": call}).encode())
    rt.reader_observe("E", "E", {"card": HANDS["E"][0], "zone": "trick", "face": "up",
                                 "level": "at", "t": 1}, 0, seq=1)
    before = journal.fsyncs
    rt.reader_observe("N", "N", {"card": HANDS["N"][1], "zone": "hand", "face": "down",
                                 "level": "at", "t": 2}, 0, seq=2)  # nothing to rule on
    assert journal.pending > 0 and journal.fsyncs == before  # buffered, not yet written
    # West's card face up in his hand: a ruling at once, with the two frames still buffered
    rulings = rt.reader_observe("W", "W", {"card": HANDS["W"][1], "zone": "hand",
                                           "face": "up", "level": "above", "t": 3}, 0, seq=3)
    assert any(r.severity == "penalty" for r in rulings)
    if rt.syncer is not None:
        assert rt.syncer.wait_idle(10)
        rt.syncer.close()
    fsyncs, pending, written = seen[-1]
    assert fsyncs == before + 1 and pending == 0  # one fsync covering every line so far
    assert written.count(b'"seq":') == 3 and HANDS["W"][1].encode() in written
    rt.commit()
    journal.close()
