"""The example broker ACL: the director may command, a viewer may only read."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from tablesense.daemon.config import parse_config
from tablesense.daemon.core import Daemon

REPO = Path(__file__).resolve().parent.parent
USERS = {"daemon": "pw-daemon", "director": "pw-director", "viewer": "pw-viewer"}


class V5Client:
    """An MQTT v5 client that records the PUBACK reason code of each publish."""

    def __init__(self, port: int, user: str, transport: str = "tcp") -> None:
        self.acks: dict[int, ReasonCode] = {}
        self.messages: list[tuple[str, bytes, bool]] = []
        self.got = threading.Condition()
        self.connected = threading.Event()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                             transport=transport)  # type: ignore[arg-type]
        self.c.username_pw_set(user, USERS[user])
        self.c.on_connect = lambda c, u, f, rc, p: self.connected.set()
        self.c.on_publish = self._on_publish
        self.c.on_message = self._on_message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self.connected.wait(30)

    def _on_publish(self, c: Any, u: Any, mid: int, rc: ReasonCode, p: Any) -> None:
        with self.got:
            self.acks[mid] = rc
            self.got.notify_all()

    def _on_message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.got:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self.got.notify_all()

    def publish(self, topic: str, payload: bytes) -> ReasonCode:
        info = self.c.publish(topic, payload, qos=1)
        with self.got:
            assert self.got.wait_for(lambda: info.mid in self.acks, 30)
            return self.acks[info.mid]

    def wait(self, pred: Any, timeout: float = 30) -> bool:
        with self.got:
            return bool(self.got.wait_for(lambda: pred(self.messages), timeout))

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@pytest.mark.broker
def test_viewer_command_refused_director_command_applied(mosquitto, tmp_path: Path) -> None:
    acl = (REPO / "examples" / "mosquitto" / "acl").read_text()
    broker = mosquitto(users=USERS, acl=acl, websockets=True)
    cfg = parse_config({
        "version": 1,
        "broker": {"port": broker.port, "username": "daemon", "password": USERS["daemon"]},
        "tables": {"1": {"code": "duplicate-2017"}},
        "journal": {"fsync": "never"},
    }, source="acl.toml", base_dir=tmp_path)
    daemon = Daemon(cfg)
    daemon.start()
    clients: list[V5Client] = []
    try:
        # The daemon connects in the background. Until it has, a client subscribed
        # already gets its bridge state as a live message (retain flag clear, so the
        # wait below for the retained one never ends) and the director's command
        # reaches nobody: both failed this test on a loaded machine.
        assert daemon.publisher.wait_listening(30), "the daemon never subscribed to commands"
        director = V5Client(broker.port, "director")
        viewer = V5Client(broker.port, "viewer")
        clients += [director, viewer]
        director.c.subscribe("tablesense/#", qos=1)
        viewer.c.subscribe("tablesense/#", qos=1)
        assert viewer.wait(lambda m: ("tablesense/bridge/state", b'{"state":"online"}', True)
                           in m)

        rc = viewer.publish("tablesense/1/cmd", b'{"type":"board","board":1,"req":"v"}')
        assert rc.is_failure and rc.value == 0x87 and str(rc) == "Not authorized"
        rc = director.publish("tablesense/1/cmd", b'{"type":"board","board":2,"req":"d"}')
        assert not rc.is_failure
        assert director.wait(lambda m: any(t == "tablesense/1/cmd/response" for t, _, _ in m))
        resp = json.loads(next(p for t, p, _ in director.messages
                               if t == "tablesense/1/cmd/response"))
        assert resp["ok"] and resp["req"] == "d"
        journal = [json.loads(x) for x in
                   (tmp_path / "journal" / "1.jsonl").read_text().splitlines()]
        assert [(o["type"], o["board"]) for o in journal] == [("board", 2)]
        # the viewer reads state, but no command and no response reaches it from its own try
        assert viewer.wait(lambda m: any(t == "tablesense/1/state" and json.loads(p).get("board")
                                         == 2 for t, p, _ in m))
        assert not any(t == "tablesense/1/cmd" for t, _, _ in viewer.messages)
        # a viewer may not forge alerts either
        assert viewer.publish("tablesense/1/alert", b"{}").value == 0x87

        # the dashboard's path: MQTT over WebSockets, same users and ACL
        assert broker.ws_port is not None
        web = V5Client(broker.ws_port, "viewer", transport="websockets")
        clients.append(web)
        web.c.subscribe("tablesense/bridge/state", qos=1)
        assert web.wait(lambda m: ("tablesense/bridge/state", b'{"state":"online"}', True) in m)
        assert web.publish("tablesense/1/cmd", b'{"type":"board","board":3}').value == 0x87
    finally:
        for c in clients:
            c.close()
        daemon.stop()
