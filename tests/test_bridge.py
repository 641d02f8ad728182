"""Beyond one machine: one daemon per room, each room's mosquitto bridged to a central
mosquitto (README "Deployment: many rooms"; examples/mosquitto/bridge-room.conf).

Room A serves tables 1 and 2, room B table 3; each daemon publishes under its
room's base topic (``tablesense/room-a``, ``tablesense/room-b``) to its own
room broker. The bridges carry ``tablesense/#`` out (QoS 1, retained flags
kept) and the room's own ``+/cmd`` in, so the director on the central broker
sees every room's alerts and state and can send commands to any table.
Everything is on loopback, on free ports, and stopped at the end.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablesense.daemon.config import Config, parse_config
from tablesense.daemon.core import Daemon
from tablesense.onboard.wire import codec

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "journals"
HANDS = next(json.loads(x)["hands"] for x in
             (EXAMPLE / "minor-penalty-card.jsonl").read_text().splitlines()
             if '"dealt"' in x)
ROOMS = {"room-a": ("1", "2"), "room-b": ("3",)}
SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mosquitto" / "bridge-room.conf"


def bridge_lines(room: str, central_port: int) -> list[str]:
    """examples/mosquitto/bridge-room.conf for ``room``, on the test's central port,
    retrying a lost link after 1-2 s (instead of 2-30 s) so the outage test is quick."""
    out = []
    for line in SAMPLE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key = line.split()[0]
        if key == "address":
            line = f"address 127.0.0.1:{central_port}"
        elif key == "restart_timeout":
            line = "restart_timeout 1 2"
        out.append(line.replace("room-a", room))
    return out


def room_config(tmp_path: Path, room: str, port: int, readers: dict[str, str]) -> Config:
    d = tmp_path / room
    d.mkdir(exist_ok=True)
    return parse_config({
        "version": 1,
        "broker": {"port": port, "base": f"tablesense/{room}", "client_id": f"tablesense-{room}"},
        "journal": {"dir": "journal", "fsync": "event"},
        "readers": {"heartbeat_timeout_ms": 600, "backoff_initial_ms": 20,
                    "backoff_max_ms": 200, "resend_timeout_ms": 150},
        "tables": {t: {"code": "duplicate-2017", "readers": {"E": {"port": path}}}
                   for t, path in readers.items()},
        "state_interval_ms": 50,
    }, source=f"{room}.toml", base_dir=d)


class Director:
    """The director's dashboard on the central broker: a command, then its response."""

    def __init__(self, port: int, watcher: Any) -> None:
        self.watcher = watcher
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        self.n = 0
        self.lock = threading.Lock()

    def send(self, room: str, table: str, cmd: dict[str, Any],
             timeout: float = 5) -> dict[str, Any]:
        with self.lock:
            self.n += 1
            req = f"r{self.n}"
        topic = f"tablesense/{room}/{table}/cmd"
        self.client.publish(topic, json.dumps({**cmd, "req": req}), qos=1).wait_for_publish(
            timeout)

        def answered(m: list[tuple[str, bytes, int, bool]]) -> bool:
            return any(t == topic + "/response" and json.loads(p).get("req") == req
                       for t, p, _, _ in m)

        assert self.watcher.wait_for(answered, timeout), f"no response to {req} on {topic}"
        return next(json.loads(p) for p in self.watcher.on(topic + "/response")
                    if json.loads(p).get("req") == req)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def start_rooms(mosquitto: Any, pty_readers: Any, tmp_path: Path, central_port: int
                ) -> tuple[dict[str, Any], dict[str, Daemon], dict[str, Any]]:
    brokers = {room: mosquitto(extra=bridge_lines(room, central_port)) for room in ROOMS}
    readers = {t: pty_readers(reader=i, serial=f"R{t}")
               for i, t in enumerate(t for ts in ROOMS.values() for t in ts)}
    daemons = {room: Daemon(room_config(tmp_path, room, brokers[room].port,
                                        {t: readers[t].path for t in tables}))
               for room, tables in ROOMS.items()}
    for d in daemons.values():
        d.start()
    for r in readers.values():
        r.hello()
        r.start_heartbeats(0.1)
    return brokers, daemons, readers


def state(w: Any, topic: str) -> Any:
    got = w.on(topic)
    return json.loads(got[-1]) if got else None


def room_of(table: str) -> str:
    return next(room for room, ts in ROOMS.items() if table in ts)


def expose(director: Director, daemons: dict[str, Daemon], readers: dict[str, Any],
           table: str, board: int) -> None:
    """Board, deal, 1NT by North; East drops CK face up; East passes: Law 24B, West must
    pass (a penalty ruling, so an alert)."""
    room = room_of(table)
    assert director.send(room, table, {"type": "board", "board": board, "dealer": "N",
                                       "vul": "None"})["ok"]
    assert daemons[room].command(table, {"type": "dealt", "hands": HANDS}, trusted=True)["ok"]
    assert director.send(room, table, {"type": "call", "seat": "N", "call": "1N"})["ok"]
    readers[table].send(codec.OBSERVE, {"seat": "E", "card": "CK", "zone": "table",
                                        "face": "up", "level": "at", "t": 1})
    time.sleep(0.2)  # the observation reaches the core before the next command
    resp = director.send(room, table, {"type": "call", "seat": "E", "call": "P"})
    assert resp["ok"], resp
    assert resp["rulings"] == [f"{table}-{board}-1"]


@pytest.mark.broker
def test_rooms_bridged_to_a_central_broker(mosquitto, watchers, pty_readers,
                                           tmp_path: Path) -> None:
    central = mosquitto()
    w = watchers(central.port, ["tablesense/#", "$SYS/broker/connection/+/state"])
    brokers, daemons, readers = start_rooms(mosquitto, pty_readers, tmp_path, central.port)
    room_w = {room: watchers(b.port, ["tablesense/#"]) for room, b in brokers.items()}
    director = Director(central.port, w)
    try:
        # both bridges up, and through them the daemons' retained state and readers
        assert w.wait_for(lambda m: all(
            (f"$SYS/broker/connection/bridge-{room}/state", b"1") in [(t, p) for t, p, *_ in m]
            for room in ROOMS), 5), central.log()[-2000:]
        assert w.wait_for(lambda m: all(
            (state(w, f"tablesense/{room_of(t)}/{t}/readers/E") or {}).get("state") == "online"
            for r in ROOMS.values() for t in r), 5)
        for room in ROOMS:
            assert state(w, f"tablesense/{room}/bridge/state") == {"state": "online"}

        for n, table in enumerate(("1", "2", "3"), start=1):
            expose(director, daemons, readers, table, board=10 + n)
        topics = {t: f"tablesense/{room_of(t)}/{t}/alert" for t in ("1", "2", "3")}
        assert w.wait_for(lambda m: all(w.on(tp) for tp in topics.values()), 5)
        time.sleep(0.3)  # a duplicate would have arrived by now
        for table, topic in topics.items():
            [alert] = [json.loads(p) for p in w.on(topic)]
            assert (alert["id"], alert["table"], alert["kind"], alert["offender"],
                    alert["cards"]) == (f"{table}-{int(table) + 10}-1", table,
                                        "partner-must-pass", "E", ["CK"])
            # the same bytes as on the room broker, QoS 1, never retained
            assert w.on(topic) == room_w[room_of(table)].on(topic)
            assert all((q, r) == (1, False) for t, _, q, r in w.messages if t == topic)
        # each room broker carries its own room only
        assert not [t for t, *_ in room_w["room-a"].messages if t.startswith("tablesense/room-b")]
        assert not [t for t, *_ in room_w["room-b"].messages if t.startswith("tablesense/room-a")]
        # every command reached its daemon once: published once on the central broker
        # (not echoed back by a bridge), answered once, by the right room
        for table in ("1", "2", "3"):
            cmd = f"tablesense/{room_of(table)}/{table}/cmd"
            assert len(w.on(cmd)) == 3
            reqs = [json.loads(p)["req"] for p in w.on(cmd + "/response")]
            assert len([r for r in reqs if r]) == 3  # (req None: the in-process dealt)
            j = (tmp_path / room_of(table) / "journal" / f"{table}.jsonl").read_text()
            assert [json.loads(x)["type"] for x in j.splitlines()] == [
                "board", "dealt", "call", "observe", "call"]
        assert w.on("tablesense/room-b/1/cmd/response") == []
        for d in daemons.values():
            assert d.wait_delivered(5)
        # a late subscriber on the central broker: the rooms' retained topics, no alert
        late = watchers(central.port, ["tablesense/#"])
        states = {f"tablesense/{room_of(t)}/{t}/state" for t in ("1", "2", "3")}
        assert late.wait_for(lambda m: states <= {t for t, *_ in m}, 5)
        retained = {t: (json.loads(p), q, r) for t, p, q, r in late.messages}
        assert not [t for t in retained if t.endswith("/alert")]
        for table in ("1", "2", "3"):
            st, q, r = retained[f"tablesense/{room_of(table)}/{table}/state"]
            assert (st["board"], st["phase"], q, r) == (int(table) + 10, "auction", 1, True)
    finally:
        director.close()
        for d in daemons.values():
            d.stop()
    # the daemons said offline on their room brokers; the bridges carried it to the centre
    assert w.wait_for(lambda m: all(state(w, f"tablesense/{room}/bridge/state")
                                    == {"state": "offline"} for room in ROOMS), 5)
    # a room broker going away: the central broker says so on the notification topic
    brokers["room-b"].stop()
    assert w.wait_for(lambda m: ("$SYS/broker/connection/bridge-room-b/state", b"0")
                      in [(t, p) for t, p, *_ in m], 5)


@pytest.mark.broker
def test_central_outage_alerts_queued_by_the_room_broker(mosquitto, watchers, pty_readers,
                                                         tmp_path: Path) -> None:
    """The central broker goes away: the room daemon's alert is acknowledged by its
    room broker, which queues it for the bridge (cleansession false) and delivers it
    when the central broker is back; the director's persistent session gets it once."""
    central = mosquitto(persistence=True)
    w = watchers(central.port, ["tablesense/+/+/alert", "tablesense/+/+/cmd/response"],
                 client_id="director", persistent=True)
    brokers, daemons, readers = start_rooms(mosquitto, pty_readers, tmp_path, central.port)
    director = Director(central.port, w)
    try:
        assert director.send("room-b", "3", {"type": "board", "board": 7, "dealer": "N",
                                             "vul": "All"})["ok"]
        central.stop()
        d = daemons["room-b"]
        assert d.command("3", {"type": "dealt", "hands": HANDS}, trusted=True)["ok"]
        assert d.command("3", {"type": "call", "seat": "N", "call": "1N"})["ok"]
        readers["3"].send(codec.OBSERVE, {"seat": "E", "card": "CK", "zone": "table",
                                          "face": "up", "level": "at", "t": 1})
        time.sleep(0.2)
        assert d.command("3", {"type": "call", "seat": "E", "call": "P"})["rulings"] == ["3-7-1"]
        assert d.wait_delivered(5)  # the room broker has it: the daemon's part is done
        assert w.on("tablesense/room-b/3/alert") == []
        central.start()
        assert w.wait_for(lambda m: bool(w.on("tablesense/room-b/3/alert")), 10), \
            brokers["room-b"].log()[-2000:]
        time.sleep(0.3)
        [alert] = [json.loads(p) for p in w.on("tablesense/room-b/3/alert")]
        assert (alert["id"], alert["kind"]) == ("3-7-1", "partner-must-pass")
    finally:
        director.close()
        for dd in daemons.values():
            dd.stop()
