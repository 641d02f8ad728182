"""MQTT security: TLS with a CA the test makes, passwords, and who sent each command.

TLS: a CA and a server certificate made with the ``openssl`` CLI, a
mosquitto TLS listener; the daemon connects with the CA file and a password,
a client that does not trust the CA is refused, and a client without a
password is refused too. Identity: a director's command sent on
``<base>/<table>/cmd/by/<login>`` is journaled with ``"by": <login>``, and the
broker's ACL (the example file) refuses a command under someone else's name.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.reasoncodes import ReasonCode

from conftest import free_port, wait_port
from tablesense.daemon.config import parse_config
from tablesense.daemon.core import Daemon

REPO = Path(__file__).resolve().parent.parent
USERS = {"daemon": "pw-daemon", "director": "pw-director", "viewer": "pw-viewer"}

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl CLI")


class Client:
    """An MQTT v5 client that records PUBACK reason codes and messages."""

    def __init__(self, port: int, user: str | None, password: str | None = None,
                 tls: dict[str, Any] | None = None, wait: bool = True) -> None:
        self.acks: dict[int, ReasonCode] = {}
        self.messages: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.connected = threading.Event()
        self.refused: list[str] = []
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if user is not None:
            self.c.username_pw_set(user, password if password is not None else USERS[user])
        if tls is not None:
            self.c.tls_set(**tls)

        def on_connect(c: Any, u: Any, f: Any, rc: ReasonCode, p: Any) -> None:
            if rc.is_failure:
                self.refused.append(str(rc))
            else:
                self.connected.set()

        self.c.on_connect = on_connect
        self.c.on_publish = self._on_publish
        self.c.on_message = self._on_message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        if wait:
            assert self.connected.wait(5), self.refused

    def _on_publish(self, c: Any, u: Any, mid: int, rc: ReasonCode, p: Any) -> None:
        with self.cond:
            self.acks[mid] = rc
            self.cond.notify_all()

    def _on_message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def publish(self, topic: str, payload: bytes) -> ReasonCode:
        info = self.c.publish(topic, payload, qos=1)
        with self.cond:
            assert self.cond.wait_for(lambda: info.mid in self.acks, 5)
            return self.acks[info.mid]

    def wait(self, pred: Any, timeout: float = 5) -> bool:
        with self.cond:
            return bool(self.cond.wait_for(lambda: pred(self.messages), timeout))

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def journal(tmp_path: Path) -> list[dict[str, Any]]:
    p = tmp_path / "journal" / "1.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def until(pred: Any, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return bool(pred())


# -- who sent a command -----------------------------------------------------------------


@pytest.mark.broker
def test_commands_carry_the_senders_login_into_the_journal(mosquitto, tmp_path: Path) -> None:
    acl = (REPO / "examples" / "mosquitto" / "acl").read_text()
    broker = mosquitto(users=USERS, acl=acl)
    cfg = parse_config({
        "version": 1,
        "broker": {"port": broker.port, "username": "daemon", "password": USERS["daemon"]},
        "tables": {"1": {"code": "duplicate-2017"}},
        "journal": {"fsync": "never"},
    }, source="id.toml", base_dir=tmp_path)
    daemon = Daemon(cfg)
    daemon.start()
    clients: list[Client] = []
    try:
        director = Client(broker.port, "director")
        viewer = Client(broker.port, "viewer")
        clients += [director, viewer]
        director.c.subscribe("tablesense/1/cmd/response", qos=1)
        assert until(lambda: daemon.publisher.connected)
        time.sleep(0.2)  # the daemon's subscriptions are in place

        def sent(topic: str, cmd: dict[str, Any]) -> ReasonCode:
            return director.publish(topic, json.dumps(cmd).encode())

        # under his own login: journaled with it, whatever the payload claims
        rc = sent("tablesense/1/cmd/by/director",
                  {"type": "board", "board": 1, "dealer": "N", "by": "viewer", "req": "a"})
        assert not rc.is_failure
        assert until(lambda: len(journal(tmp_path)) == 1)
        # the plain topic: no identity
        assert not sent("tablesense/1/cmd", {"type": "setup", "step": "shuffle"}).is_failure
        # a bad command under his login: rejected, and still on record as his
        assert not sent("tablesense/1/cmd/by/director", {"type": "call", "seat": "Q",
                                                          "call": "1N"}).is_failure
        assert until(lambda: len(journal(tmp_path)) == 3)
        # under another name, or a viewer under his own: the broker refuses
        assert sent("tablesense/1/cmd/by/alice", {"type": "setup", "step": "cut"}).value == 0x87
        rc = viewer.publish("tablesense/1/cmd/by/viewer", b'{"type":"setup","step":"cut"}')
        assert rc.value == 0x87
        time.sleep(0.3)
        j = journal(tmp_path)
        assert [(o["type"], o.get("by")) for o in j] == [
            ("board", "director"), ("setup", None), ("rejected", "director")]
        assert j[2]["field"] == "seat"
        assert director.wait(lambda m: sum(t == "tablesense/1/cmd/response" for t, _ in m) >= 3)
        # replay reads the journal with its "by" fields as any other
        from tablesense.contract.journal import read_journal

        items = list(read_journal(str(tmp_path / "journal" / "1.jsonl")))
        assert [type(e).__name__ for _, e in items] == ["BoardStart", "Setup"]
    finally:
        for c in clients:
            c.close()
        daemon.stop()


# -- TLS ---------------------------------------------------------------------------------


def make_pki(d: Path) -> dict[str, Path]:
    """A CA, a server certificate for 127.0.0.1 signed by it, and an unrelated CA."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60, cwd=d)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
        "-keyout", "ca.key", "-out", "ca.crt")
    (d / "san.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "server.key", "-out", "server.csr")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", "server.crt")
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=other CA",
        "-keyout", "other.key", "-out", "other.crt")
    for name in ("ca.key", "server.key", "other.key"):
        (d / name).chmod(0o600)
    return {"ca": d / "ca.crt", "cert": d / "server.crt", "key": d / "server.key",
            "other": d / "other.crt"}


@needs_openssl
@pytest.mark.broker
def test_daemon_over_tls_with_password_and_untrusted_clients_refused(
        mosquitto, tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    tls_port = free_port()
    broker = mosquitto(users=USERS, extra=[
        f"listener {tls_port} 127.0.0.1", "protocol mqtt",
        f"cafile {pki['ca']}", f"certfile {pki['cert']}", f"keyfile {pki['key']}",
        "tls_version tlsv1.2"])
    assert wait_port(tls_port), broker.log()[-2000:]
    cfg = parse_config({
        "version": 1,
        "broker": {"port": tls_port, "username": "daemon", "password": USERS["daemon"],
                   "base": "ts", "tls": {"ca": str(pki["ca"])}},
        "tables": {"1": {"code": "duplicate-2017"}},
        "journal": {"fsync": "never"},
    }, source="tls.toml", base_dir=tmp_path)
    daemon = Daemon(cfg)
    daemon.start()
    clients: list[Client] = []
    try:
        assert until(lambda: daemon.publisher.connected, 10), broker.log()[-2000:]
        good = Client(tls_port, "director", tls={"ca_certs": str(pki["ca"])})
        clients.append(good)
        good.c.subscribe("ts/bridge/state", qos=1)
        assert good.wait(lambda m: ("ts/bridge/state", b'{"state":"online"}') in m)
        assert daemon.command("1", {"type": "board", "board": 1})["ok"]

        # a client that trusts another CA: the handshake fails, nothing connects
        bad = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        bad.username_pw_set("director", USERS["director"])
        bad.tls_set(ca_certs=str(pki["other"]))
        with pytest.raises(ssl.SSLCertVerificationError):
            bad.connect("127.0.0.1", tls_port)
        # plain TCP to the TLS listener: no MQTT session either
        plain = Client(tls_port, "director", wait=False)
        clients.append(plain)
        time.sleep(1.0)
        assert not plain.connected.is_set()
        # the right CA but a wrong password: refused by the broker
        wrong = Client(tls_port, "director", password="nope",
                       tls={"ca_certs": str(pki["ca"])}, wait=False)
        clients.append(wrong)
        assert until(lambda: bool(wrong.refused), 5) and not wrong.connected.is_set()
        assert "Not authorized" in wrong.refused[0] or "password" in wrong.refused[0].lower()
        # and the broker saw the daemon's TLS session
        assert "daemon" in broker.log() or daemon.publisher.connects >= 1
    finally:
        for c in clients:
            c.close()
        daemon.stop()
