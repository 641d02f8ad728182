"""The outbox and publisher: alerts survive a broker outage, in order, bounded in flight."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tablesense.daemon.config import BrokerConfig
from tablesense.daemon.mqtt import Publisher
from tablesense.daemon.outbox import Outbox, OutboxError
from tablesense.daemon.topics import Topics


def test_outbox_is_idempotent_ordered_and_durable(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite"
    box = Outbox(path)
    for i in range(5):
        assert box.enqueue(f"1-1-{i}", "b/1/alert", json.dumps({"id": i}).encode())
    assert not box.enqueue("1-1-0", "b/1/alert", b"other")
    box.ack(box.pending()[1].seq)
    box.close()
    again = Outbox(path)
    assert [m.key for m in again.pending()] == ["1-1-0", "1-1-2", "1-1-3", "1-1-4"]
    assert again.known("1-1-1") and not again.known("1-1-9")
    assert again.counts() == {"pending": 4, "acked": 1, "refused": 0}
    first = again.pending()[0]
    assert [m.key for m in again.pending(after=first.seq, limit=2)] == ["1-1-2", "1-1-3"]
    again.close()


def test_a_failing_outbox_raises_its_own_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "o.sqlite"
    box = Outbox(path)
    box.close()
    with pytest.raises(OutboxError) as e:  # SQLite's error, not the caller's to import
        box.enqueue("1-1-1", "b/1/alert", b"{}")
    assert str(path) in str(e.value) and "enqueue 1-1-1" in str(e.value)
    assert e.value.__cause__ is not None


@pytest.mark.broker
def test_every_alert_arrives_across_a_broker_outage(mosquitto, watchers, tmp_path: Path) -> None:
    broker = mosquitto(persistence=True)
    topics = Topics("ts")
    watcher = watchers(broker.port, [topics.alert("+")], client_id="director", persistent=True)
    box = Outbox(tmp_path / "outbox.sqlite")
    pub = Publisher(BrokerConfig(port=broker.port, base="ts", client_id="daemon",
                                 max_inflight=5), box)
    pub.start()
    total = 120
    keys = [f"1-1-{i}" for i in range(1, total + 1)]

    def produce(lo: int, hi: int) -> None:
        for k in keys[lo:hi]:
            box.enqueue(k, topics.alert("1"), json.dumps({"id": k}).encode())
            pub.kick()
            time.sleep(0.002)

    try:
        produce(0, 20)
        assert pub.wait_idle(5)
        # the broker hangs: no PUBACKs; at most 5 alerts are handed on, the rest wait
        assert broker.proc is not None
        os.kill(broker.proc.pid, signal.SIGSTOP)
        produce(20, 40)
        time.sleep(0.3)
        assert pub.inflight() == 5 and box.counts()["pending"] == 20
        # ... and then it dies with those in flight
        os.kill(broker.proc.pid, signal.SIGCONT)
        broker.stop()
        t = threading.Thread(target=produce, args=(40, total))
        t.start()
        time.sleep(0.5)
        assert box.counts()["pending"] > 0
        t.join(10)
        assert pub.inflight() <= 5
        broker.start()
        assert pub.wait_idle(20), f"still pending: {box.counts()}"

        def all_in(msgs: list[tuple[str, bytes, int, bool]]) -> bool:
            return {json.loads(p)["id"] for _, p, _, _ in msgs} >= set(keys)

        assert watcher.wait_for(all_in, 15), broker.log()[-3000:]
        got = [json.loads(p)["id"] for p in watcher.on(topics.alert("1"))]
        first_seen: list[str] = []
        for k in got:
            if k not in first_seen:
                first_seen.append(k)
        assert first_seen == keys  # in order; a repeat is only ever an earlier id again
        print(f"delivered={len(set(got))} received={len(got)} duplicates={len(got) - len(set(got))}"
              f" inflight_peak={pub.inflight_peak} connects={pub.connects}")
        assert all(q == 1 and not r for _, _, q, r in watcher.messages)
        assert pub.inflight_peak <= 5
        assert box.counts() == {"pending": 0, "acked": total, "refused": 0}
    finally:
        pub.stop()
        box.close()


@pytest.mark.broker
def test_alerts_among_retained_updates_are_all_acknowledged(mosquitto, tmp_path: Path) -> None:
    broker = mosquitto()
    topics = Topics("ts")
    box = Outbox(tmp_path / "outbox.sqlite")
    pub = Publisher(BrokerConfig(port=broker.port, base="ts", client_id="daemon",
                                 max_inflight=3), box)
    pub.start()
    try:
        deadline = time.monotonic() + 10
        while not pub.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pub.connected
        for i in range(50):
            pub.set_retained(topics.table_state(str(i)), json.dumps({"i": i}).encode())
        keys = [f"1-1-{i}" for i in range(1, 31)]
        for n, k in enumerate(keys):  # alerts among retained updates, a window of 3
            box.enqueue(k, topics.alert("1"), json.dumps({"id": k}).encode())
            pub.kick()
            pub.set_retained(topics.table_state("1"), json.dumps({"n": n}).encode())
        assert pub.wait_idle(10), box.counts()
        assert box.counts() == {"pending": 0, "acked": len(keys), "refused": 0}
        assert pub.delivered == len(keys)
    finally:
        pub.stop()
        box.close()


def test_only_an_alerts_puback_is_recorded_for_the_pump(tmp_path: Path) -> None:
    """A PUBACK is kept for the pump when its message is an alert in flight, or when a
    row is being handed on (its id may not be recorded yet); retained state's and
    health's PUBACKs, hundreds a second in a full room, neither wake nor reach it."""
    box = Outbox(tmp_path / "outbox.sqlite")
    pub = Publisher(BrokerConfig(port=1, base="ts"), box)  # never started
    ok = ReasonCode(PacketTypes.PUBACK, "Success")
    try:
        pub._on_publish(pub.client, None, 7, ok, Properties(PacketTypes.PUBACK))
        assert pub._acks == [] and not pub._wake.is_set()
        pub._inflight[8] = 1  # an alert in flight
        pub._on_publish(pub.client, None, 8, ok, Properties(PacketTypes.PUBACK))
        assert pub._acks == [(8, False)] and pub._wake.is_set()
        pub._wake.clear()
        with pub._hand_lock:  # a row being handed on: mid 9 may be its, not yet recorded
            pub._on_publish(pub.client, None, 9, ok, Properties(PacketTypes.PUBACK))
        assert pub._acks == [(8, False), (9, False)] and pub._wake.is_set()
    finally:
        box.close()
