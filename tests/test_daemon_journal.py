"""The daemon's journal side: fsync policy, torn lines, and replay that recovers lost alerts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tablesense.daemon.journal_writer import JournalWriter
from tablesense.daemon.outbox import Outbox
from tablesense.daemon.tables import TableRuntime
from tablesense.daemon.topics import Topics

# the contract's worked example (docs/contract.md, "The example journal")
EXAMPLE = Path(__file__).parent / "contract" / "minor-penalty-card.jsonl"


def obs(t: int) -> dict[str, object]:
    return {"v": 1, "t": t, "type": "observe", "seat": "N", "card": "SA", "zone": "hand",
            "face": "down"}


@pytest.mark.parametrize(("policy", "fsyncs"), [
    ("always", 4), ("event", 1), ("interval", 0), ("never", 0)])
def test_fsync_policy(tmp_path: Path, policy: str, fsyncs: int) -> None:
    j = JournalWriter(tmp_path / "1.jsonl", policy, interval_ms=60_000)
    for t in (1, 2, 3):
        j.append(obs(t))  # observations: only "always" syncs each
    j.append({"v": 1, "t": 4, "type": "call", "seat": "N", "call": "P"})  # a game event
    assert j.fsyncs == fsyncs
    j.sync()  # before a ruling leaves: durable whatever the policy (but never)
    assert j.fsyncs == fsyncs + (0 if policy in ("never", "always", "event") else 1)
    j.close()
    assert len((tmp_path / "1.jsonl").read_text().splitlines()) == 4


def test_time_never_goes_backwards_and_a_torn_line_is_ended(tmp_path: Path) -> None:
    p = tmp_path / "1.jsonl"
    p.write_text('{"v":1,"t":5,"type":"setup","step":"deal"}\n{"v":1,"t":9,"ty')  # power cut
    j = JournalWriter(p, "never")
    j.last_t = 500
    assert j.stamp(400) == 500 and j.stamp(600) == 600
    j.append({"v": 1, "t": j.stamp(400), "type": "setup", "step": "cut"})
    j.close()
    lines = p.read_text().splitlines()
    assert lines[1] == '{"v":1,"t":9,"ty'  # left for replay to report
    assert json.loads(lines[2]) == {"v": 1, "t": 500, "type": "setup", "step": "cut"}


@pytest.mark.skipif(not EXAMPLE.exists(), reason="shared example journal not present")
def test_replay_enqueues_only_alerts_the_outbox_never_had(tmp_path: Path) -> None:
    """A crash between the journal line and the outbox: the alert is made again on restart."""
    journal = tmp_path / "journal" / "1.jsonl"
    journal.parent.mkdir()
    shutil.copy(EXAMPLE, journal)
    with journal.open("a") as f:
        f.write('{"v":1,"t":50000,"type":"rejected","source":"cmd","field":"seat",'
                '"error":"x","input":{"type":"call","seat":"Q"}}\n')
    box = Outbox(tmp_path / "outbox.sqlite")
    topics = Topics("ts")

    def runtime() -> TableRuntime:
        return TableRuntime("1", None, JournalWriter(journal, "never"), box, topics)

    first = runtime()
    assert first.replay() == len(EXAMPLE.read_text().splitlines())
    assert [m.key for m in box.pending()] == ["1-1-1"]
    alert = json.loads(box.pending()[0].payload)
    assert (alert["kind"], alert["cards"], alert["severity"]) == (
        "minor-penalty-card", ["C5"], "penalty")
    box.ack(box.pending()[0].seq)
    second = runtime()  # a later restart: already delivered, not sent again
    second.replay()
    assert box.pending() == [] and box.counts()["acked"] == 1
    assert second.engine.snapshot() == first.engine.snapshot()
    assert second.journal.last_t == 40140  # new lines continue after the journal's time
    box.close()
