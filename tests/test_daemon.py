"""The whole daemon: pty readers and MQTT commands in, journal and alerts out."""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablesense.contract.events import parse_event
from tablesense.daemon.config import Config, parse_config
from tablesense.daemon.core import Daemon
from tablesense.engine import Engine
from tablesense.engine.sensing import NOISE_COUNTERS
from tablesense.laws import CODES
from tablesense.onboard.wire import codec

# the contract's worked example (docs/contract.md, "The example journal")
EXAMPLE = Path(__file__).parent / "contract" / "minor-penalty-card.jsonl"
REPO = Path(__file__).resolve().parent.parent


def config(tmp_path: Path, port: int, readers: dict[str, str], **extra: Any) -> Config:
    data: dict[str, Any] = {
        "version": 1,
        "broker": {"port": port, "base": "ts", "client_id": f"daemon-{tmp_path.name}"},
        "journal": {"dir": "journal", "fsync": "event"},
        "readers": {"heartbeat_timeout_ms": 600, "backoff_initial_ms": 20,
                    "backoff_max_ms": 200, "resend_timeout_ms": 150},
        "tables": {"1": {"code": "duplicate-2017",
                         "readers": {s: {"port": u} for s, u in readers.items()}}},
        "state_interval_ms": 50,
        **extra,
    }
    return parse_config(data, source="test.toml", base_dir=tmp_path)


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "journal" / "1.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def alerts_of_replay(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the engine makes of the daemon's own journal (replay skips rejected lines)."""
    eng = Engine(table="1", codes=CODES)
    out = []
    for obj in lines:
        if obj["type"] == "rejected":
            continue
        try:
            out += eng.apply(parse_event(obj))
        except Exception:
            continue
    out += eng.flush()
    return [r.to_json() for r in out if r.severity in ("penalty", "director")]


class Director:
    """The director's dashboard: sends commands, waits for each response."""

    def __init__(self, port: int, watcher: Any) -> None:
        self.watcher = watcher
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.n = 0

    def send(self, cmd: dict[str, Any] | bytes, timeout: float = 5) -> dict[str, Any]:
        self.n += 1
        req = f"r{self.n}"
        payload = cmd if isinstance(cmd, bytes) else json.dumps({**cmd, "req": req}).encode()
        before = len(self.watcher.on("ts/1/cmd/response"))
        self.client.publish("ts/1/cmd", payload, qos=1).wait_for_publish(timeout)
        assert self.watcher.wait_for(
            lambda m: len([1 for t, *_ in m if t == "ts/1/cmd/response"]) > before, timeout)
        return dict(json.loads(self.watcher.on("ts/1/cmd/response")[before]))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.mark.broker
def test_a_board_through_the_daemon(mosquitto, watchers, pty_readers, tmp_path: Path) -> None:
    broker = mosquitto()
    w = watchers(broker.port, ["ts/#"])
    readers = {s: pty_readers(reader=i, serial=f"R{s}") for i, s in enumerate("NESW")}
    daemon = Daemon(config(tmp_path, broker.port, {s: r.path for s, r in readers.items()}))
    daemon.start()
    director = Director(broker.port, w)
    try:
        assert w.wait_for(lambda m: ("ts/bridge/state", b'{"state":"online"}', 1, False) in m
                          or ("ts/bridge/state", b'{"state":"online"}', 1, True) in m)
        assert all(daemon_link_open(daemon) for _ in [0])
        for r in readers.values():
            r.hello()
            r.start_heartbeats(0.1)
        assert w.wait_for(lambda m: all(_state(w, f"ts/1/readers/{s}") == "online"
                                        for s in "NESW"), 5)
        lines = [json.loads(x) for x in EXAMPLE.read_text().splitlines() if x.strip()]
        prev_t, exposed_at = lines[0]["t"], None
        for obj in lines:
            delta = obj["t"] - prev_t
            prev_t = obj["t"]
            # keep the law's windows (300 ms played together, 1 s thrown hand) intact
            time.sleep(delta / 1000 if delta <= 300 else 1.1 if exposed_at else 0.12)
            exposed_at = None
            if obj["type"] == "observe":
                fields = {k: obj[k] for k in ("seat", "card", "zone", "face", "level", "seen_by")
                          if k in obj}
                readers[obj["seat"]].send(codec.OBSERVE, {**fields, "t": obj["t"]})
                if obj["zone"] == "table" and obj.get("face") == "up" and obj["seat"] != "S":
                    exposed_at = obj["t"]
            else:
                cmd = {k: v for k, v in obj.items() if k not in ("v", "t")}
                if obj["type"] == "dealt":  # not a command: a dealing machine, in-process
                    resp = daemon.command("1", cmd, trusted=True)
                else:
                    resp = director.send(cmd)
                    assert resp["req"] == f"r{director.n}"
                assert resp["ok"], resp
        time.sleep(0.5)
        got = [json.loads(p) for p in w.on("ts/1/alert")]
        want = alerts_of_replay(journal(tmp_path))
        assert [a["kind"] for a in want] == ["minor-penalty-card"]
        assert want[0]["cards"] == ["C5"] and want[0]["offender"] == "E"
        assert got == want
        assert all(q == 1 and not retain for t, _, q, retain in w.messages if t == "ts/1/alert")
        assert daemon.wait_delivered(5)
        # the journal: every event, observations with the reader's clock as rt, t monotonic
        j = journal(tmp_path)
        assert [o["type"] for o in j] == [o["type"] for o in lines]
        assert [o.get("card") for o in j] == [o.get("card") for o in lines]
        assert all(o["rt"] == src["t"] for o, src in zip(j, lines, strict=True)
                   if o["type"] == "observe")
        assert [o["t"] for o in j] == sorted(o["t"] for o in j)
        state = json.loads(w.on("ts/1/state")[-1])
        assert state["board"] == 1 and state["declarer"] == "N"
        health = json.loads(w.on("ts/1/readers/E")[-1])
        assert health["state"] == "online" and health["serial"] == "RE"
        assert health["counters"]["frames"] >= 10 and health["counters"]["bad_crc"] == 0
        assert health["suppressed"] == dict.fromkeys(NOISE_COUNTERS, 0)
    finally:
        director.close()
        daemon.stop()

    # a late subscriber gets the retained topics, QoS 1; never an alert
    late = watchers(broker.port, ["ts/#"])
    # bridge state and claim, the state, the alert ledger, four readers
    assert late.wait_for(lambda m: len({t for t, *_ in m}) >= 8, 5)
    retained = {t: (json.loads(p), q, r) for t, p, q, r in late.messages}
    assert retained["ts/bridge/state"] == ({"state": "offline"}, 1, True)
    assert retained["ts/1/state"][1:] == (1, True) and retained["ts/1/state"][0]["board"] == 1
    for s in "NESW":
        health, q, r = retained[f"ts/1/readers/{s}"]
        assert (health["state"], health["reason"], q, r) == ("offline", "daemon-stopped", 1, True)
    assert "ts/1/alert" not in retained

    # restart: the journal replays to the same state, nothing is alerted again
    w2 = watchers(broker.port, ["ts/1/alert", "ts/1/state"])
    again = Daemon(config(tmp_path, broker.port, {}))
    again.start()
    again.own_process()  # as `tablesense run` does: the collector kept off the alert path
    try:
        assert gc.get_freeze_count() > 0
        assert w2.wait_for(lambda m: any(t == "ts/1/state" for t, *_ in m), 5)
        time.sleep(0.5)
        assert w2.on("ts/1/alert") == []
        assert json.loads(w2.on("ts/1/state")[-1])["board"] == 1
        assert again.tables["1"].engine.snapshot()["phase"] == state["phase"]
    finally:
        again.stop()
    assert gc.get_freeze_count() == 0  # handed back


def daemon_link_open(daemon: Daemon) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if all(link.counters["opens"] >= 1 for link in daemon.links):
            time.sleep(0.05)
            return True
        time.sleep(0.01)
    return False


def _state(w: Any, topic: str) -> str | None:
    got = w.on(topic)
    return str(json.loads(got[-1])["state"]) if got else None


@pytest.mark.broker
def test_bad_commands_are_answered_and_journaled_as_rejected(mosquitto, watchers,
                                                             tmp_path: Path) -> None:
    broker = mosquitto()
    w = watchers(broker.port, ["ts/#"])
    daemon = Daemon(config(tmp_path, broker.port, {}))
    daemon.start()
    director = Director(broker.port, w)
    try:
        assert daemon.publisher.wait_listening(5), "the daemon never subscribed to commands"
        assert director.send(b"not json")["field"] == "(payload)"
        r = director.send({"type": "observe", "seat": "N", "card": "SA", "zone": "hand"})
        assert (r["ok"], r["field"], r["req"]) == (False, "type", "r2")
        r = director.send({"type": "call", "seat": "Q", "call": "1N"})
        assert (r["ok"], r["field"], r["req"]) == (False, "seat", "r3")
        assert "expected one of N, E, S, W" in r["error"]
        r = director.send({"type": "board", "table": "9", "board": 1, "dealer": "N"})
        assert (r["ok"], r["field"]) == (False, "table")
        # valid, but no board has started: journaled, refused by the engine
        r = director.send({"type": "call", "seat": "N", "call": "1N"})
        assert r["ok"] is False and r["journaled"] is True and "no board" in r["error"]
        r = director.send({"type": "board", "board": 4, "dealer": "W", "vul": "All"})
        assert r == {"ok": True, "req": "r6", "type": "board", "rulings": []}
        j = journal(tmp_path)
        assert [(o["type"], o.get("field")) for o in j] == [
            ("rejected", "(payload)"), ("rejected", "type"), ("rejected", "seat"),
            ("rejected", "table"), ("call", None), ("board", None)]
        assert j[0]["input"] == "not json" and j[2]["req"] == "r3"
        assert j[5]["table"] == "1"
        # the in-process API gives the same answers
        assert daemon.command("1", {"type": "setup", "step": "shuffle", "req": 9}) == \
            {"ok": True, "req": 9, "type": "setup", "rulings": []}
    finally:
        director.close()
        daemon.stop()
