"""Shared fixtures: a real mosquitto broker on a free loopback port.

``mosquitto()`` (the fixture is a factory) writes a config into tmp_path,
starts the broker, waits until it accepts TCP connections and stops it at the
end of the test. ``broker.stop()`` / ``broker.start()`` restart it on the same
port, for outage tests; with ``persistence=True`` the broker keeps persistent
sessions (and their queued QoS 1 messages) across that restart. ``extra`` lines
are appended at the end of the config (e.g. a bridge: ``connection``, ``address``,
``topic`` ...), so they may start a bridge section.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tablesense.firmware.build import place_shared

# The firmware modules run under CPython in some tests; they import the modules they
# share with the host (``wire``, ``debounce``) flat, as on the board, from the
# directory the build step fills (tablesense.firmware.build).
SHARED_DIR = place_shared(Path(tempfile.mkdtemp(prefix="tablesense-shared-")))
FIRMWARE_DIR = Path(__file__).resolve().parents[1] / "firmware"
sys.path[:0] = [str(FIRMWARE_DIR), str(SHARED_DIR)]

def find_mosquitto() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


@dataclass
class Broker:
    """One mosquitto process and its config; restartable on the same ports."""

    dir: Path
    port: int
    ws_port: int | None = None
    users: dict[str, str] = field(default_factory=dict)
    acl: str | None = None
    persistence: bool = False
    extra: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None

    def write_config(self) -> Path:
        exe = find_mosquitto()
        assert exe
        lines = [
            f"listener {self.port} 127.0.0.1",
            "protocol mqtt",
        ]
        if self.ws_port is not None:
            lines += [f"listener {self.ws_port} 127.0.0.1", "protocol websockets"]
        lines.append("per_listener_settings false")
        # started as root mosquitto drops to user "mosquitto", who cannot read tmp_path
        lines.append(f"user {pwd.getpwuid(os.geteuid()).pw_name}")
        if self.users:
            pw = self.dir / "passwd"
            pw.write_text("")
            pw.chmod(0o600)
            passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
            for user, password in self.users.items():
                subprocess.run([passwd, "-b", str(pw), user, password], check=True,
                               capture_output=True, timeout=10)
            lines += ["allow_anonymous false", f"password_file {pw}"]
        else:
            lines.append("allow_anonymous true")
        if self.acl is not None:
            acl = self.dir / "acl"
            acl.write_text(self.acl)
            acl.chmod(0o600)
            lines.append(f"acl_file {acl}")
        if self.persistence:
            # Saved after every change (mosquitto's loop: persistence_changes >=
            # autosave_interval), not once a second: a SIGKILL between the broker's
            # PUBACK and a timed save lost alerts queued for an offline subscriber,
            # which no publisher can redeliver (test_faults' broker-kill test, 1 in 6).
            lines += ["persistence true", f"persistence_location {self.dir}/",
                      "autosave_on_changes true", "autosave_interval 1"]
        lines += [f"log_dest file {self.dir / 'mosquitto.log'}", "log_type all"]
        lines += self.extra  # last: bridge options belong to the connection above them
        conf = self.dir / "mosquitto.conf"
        conf.write_text("\n".join(lines) + "\n")
        return conf

    def start(self) -> None:
        exe = find_mosquitto()
        assert exe
        conf = self.write_config()
        self.proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        if not wait_port(self.port):
            self.stop()
            raise RuntimeError(f"mosquitto did not start: {self.log()[-2000:]}")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stderr:
            self.proc.stderr.close()
        self.proc = None

    def log(self) -> str:
        p = self.dir / "mosquitto.log"
        return p.read_text(errors="replace") if p.exists() else ""


BrokerFactory = Callable[..., Broker]


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[BrokerFactory]:
    """Factory: ``mosquitto(users={...}, acl="...", websockets=True, persistence=True,
    extra=["connection x", ...])``."""
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed (run scripts/services)")
    started: list[Broker] = []

    def make(*, users: dict[str, str] | None = None, acl: str | None = None,
             websockets: bool = False, persistence: bool = False,
             extra: list[str] | None = None) -> Broker:
        d = tmp_path / f"broker{len(started)}"
        d.mkdir()
        b = Broker(dir=d, port=free_port(), ws_port=free_port() if websockets else None,
                   users=users or {}, acl=acl, persistence=persistence,
                   extra=list(extra or []))
        started.append(b)
        b.start()
        return b

    yield make
    for b in started:
        b.stop()


class Watcher:
    """A paho subscriber that records (topic, payload, qos, retain) as it arrives."""

    def __init__(self, port: int, topics: list[str], *, client_id: str = "",
                 persistent: bool = False, username: str | None = None,
                 password: str | None = None) -> None:
        import threading

        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.messages: list[tuple[str, bytes, int, bool]] = []
        self._cond = threading.Condition()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  clean_session=not persistent, protocol=mqtt.MQTTv311)
        if username:
            self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(1, 1)

        def on_connect(c, u, f, rc, p):  # type: ignore[no-untyped-def]
            for t in topics:
                c.subscribe(t, qos=1)

        def on_subscribe(c, u, mid, rcs, p):  # type: ignore[no-untyped-def]
            self.subscribed.set()

        def on_message(c, u, msg):  # type: ignore[no-untyped-def]
            with self._cond:
                self.messages.append((msg.topic, bytes(msg.payload), msg.qos, bool(msg.retain)))
                self._cond.notify_all()

        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_message = on_message
        self.client.connect_async("127.0.0.1", port, keepalive=10)
        self.client.loop_start()
        assert self.subscribed.wait(5), "watcher did not subscribe"

    def wait_for(self, pred: Callable[[list[tuple[str, bytes, int, bool]]], bool],
                 timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not pred(self.messages):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
            return True

    def on(self, topic: str) -> list[bytes]:
        with self._cond:
            return [p for t, p, _, _ in self.messages if t == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def watchers() -> Iterator[Callable[..., Watcher]]:
    made: list[Watcher] = []

    def make(port: int, topics: list[str], **kw: object) -> Watcher:
        w = Watcher(port, topics, **kw)  # type: ignore[arg-type]
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


class PtyReader:
    """A simulated reader behind a real pty: frames made by ``tablesense.onboard.wire.codec``.

    ``path`` is what the host opens. It keeps every frame it sent (for
    RESEND), numbers them like firmware does (one seq per frame, wrapping),
    and decodes what the host writes back into ``received``. A frame is
    numbered and written under one lock, so frames reach the wire in seq order
    whichever thread sends them (the test's, or this reader's own ACK of a
    CONFIG: numbered in one order and written in the other, they made a gap).
    """

    def __init__(self, reader: int = 0, seq: int = 0, serial: str = "TS0001") -> None:
        import threading
        import tty

        from tablesense.onboard.wire import codec

        self.codec = codec
        self.reader = reader
        self.serial = serial
        self.seq = seq
        self.sent: dict[int, bytes] = {}
        self.received: list[object] = []
        self.auto_resend = True
        self.auto_ack_config = True
        self.lock = threading.RLock()
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self._decoder = codec.Decoder()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._rx = threading.Thread(target=self._read_loop, daemon=True)
        self._rx.start()

    def frame(self, mtype: int, fields: dict[str, object]) -> bytes:
        with self.lock:
            data = self.codec.encode(mtype, fields, reader=self.reader, seq=self.seq)
            if mtype != self.codec.HELLO:
                self.sent[self.seq] = data  # what a reader keeps for RESEND
            self.seq = (self.seq + 1) & 0xFFFF
            return data

    def write(self, data: bytes) -> None:
        with self.lock:
            if self.master >= 0:
                os.write(self.master, data)

    def send(self, mtype: int, fields: dict[str, object]) -> int:
        with self.lock:
            self.write(self.frame(mtype, fields))
            return self.seq - 1 & 0xFFFF

    def hello(self, kind: str = "rfid") -> int:
        return self.send(self.codec.HELLO, {"kind": kind, "firmware": "1.0.0",
                                            "serial": self.serial, "capabilities": ["face"]})

    def beat(self) -> int:
        return self.send(self.codec.HEARTBEAT, {"uptime": 1, "reads": 0, "errors": 0,
                                                "dropped": 0})

    def observe(self, card: str, zone: str = "trick", seat: str = "N", t: int = 0) -> int:
        return self.send(self.codec.OBSERVE, {"seat": seat, "card": card, "zone": zone,
                                              "face": "up", "level": "at", "t": t})

    def start_heartbeats(self, interval: float = 0.1) -> None:
        import threading

        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(interval):
                try:
                    self.beat()
                except OSError:
                    return

        self._beat = threading.Thread(target=loop, daemon=True)
        self._beat.start()

    def stop_heartbeats(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(2)

    def host_frames(self, mtype: int) -> list[object]:
        with self.lock:
            return [f for f in self.received if getattr(f, "mtype", None) == mtype]

    def _read_loop(self) -> None:
        import select

        while True:
            fd = self.master
            if fd < 0:
                return
            try:
                r, _, _ = select.select([fd], [], [], 0.05)
                if not r:
                    continue
                data = os.read(fd, 4096)
            except OSError:
                if self.master < 0:
                    return
                time.sleep(0.02)  # nobody has the slave open right now
                continue
            for f in self._decoder.feed(data):
                if isinstance(f, self.codec.Frame):
                    self.on_frame(f)

    def on_frame(self, f: Any) -> None:
        """A frame from the host: kept; a CONFIG acknowledged, a RESEND answered."""
        with self.lock:
            self.received.append(f)
        if f.mtype == self.codec.CONFIG and self.auto_ack_config:
            self.send(self.codec.ACK, {"ack_seq": f.seq})
        if f.mtype == self.codec.RESEND and self.auto_resend:
            start = f.fields["from_seq"]
            with self.lock:
                for s in sorted(self.sent, key=lambda s: (s - start) & 0xFFFF):
                    if (s - start) & 0xFFFF < 0x8000:
                        os.write(self.master, self.again(self.sent[s]))

    def again(self, frame: bytes) -> bytes:
        """A frame sent before, as it goes out again on a RESEND (called holding the lock)."""
        return frame

    def close(self) -> None:
        """Unplug: both ends of the pty go away."""
        self.stop_heartbeats()
        with self.lock:
            fds, self.master = (self.master, self.slave), -1
            self.slave = -1
        for fd in fds:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._rx.join(2)


@pytest.fixture
def pty_readers() -> Iterator[Callable[..., PtyReader]]:
    made: list[PtyReader] = []

    def make(**kw: object) -> PtyReader:
        r = PtyReader(**kw)  # type: ignore[arg-type]
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()
