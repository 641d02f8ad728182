"""Shared parts of the daemon benchmarks: a broker, the daemon as a child process,
simulated readers behind ptys, an MQTT subscriber, and /proc sampling.

Everything is loopback and temporary: the broker listens on a free port of
127.0.0.1, journals and outboxes go to a temporary directory (or one given),
and every process started here is stopped by the ``close()`` of what started
it. Times are ``time.perf_counter()`` of the benchmark process, which takes
both ends of a measurement: the moment the last byte of a frame was written
into a pty, and the moment the subscriber's callback saw the message.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablesense.onboard.wire import codec

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
SEATS = ("N", "E", "S", "W")
DECK = [s + r for s in "SHDC" for r in "AKQJT98765432"]
HANDS = {seat: DECK[i::4] for i, seat in enumerate(SEATS)}  # a fixed deal


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


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(p / 100 * len(s) + 0.5) - 1))
    return s[k]


def summary_ms(values: list[float]) -> dict[str, float]:
    """p50, p90, p99, max and mean of seconds, in ms (3 decimals)."""
    if not values:
        return {}
    return {"n": len(values), "p50_ms": round(percentile(values, 50) * 1000, 3),
            "p90_ms": round(percentile(values, 90) * 1000, 3),
            "p99_ms": round(percentile(values, 99) * 1000, 3),
            "max_ms": round(max(values) * 1000, 3),
            "mean_ms": round(statistics.fmean(values) * 1000, 3)}


# -- the broker ---------------------------------------------------------------------


class Broker:
    """mosquitto on a free loopback port, anonymous, logging only errors."""

    def __init__(self, workdir: Path) -> None:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        import pwd

        conf = workdir / "mosquitto.conf"
        conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
                        f"user {pwd.getpwuid(os.geteuid()).pw_name}\n"
                        "max_queued_messages 100000\nlog_dest stderr\nlog_type error\n")
        self.proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if not wait_port(self.port):
            self.close()
            raise RuntimeError("mosquitto did not start")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Subscriber:
    """A paho client that stamps every message with perf_counter() on arrival."""

    def __init__(self, port: int, topics: Iterable[str]) -> None:
        self.messages: list[tuple[str, bytes, float]] = []
        self.alerts: dict[str, float] = {}  # alert id -> first arrival
        self.cond = threading.Condition()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        topics = list(topics)

        def on_connect(c, u, f, rc, p):  # type: ignore[no-untyped-def]
            for t in topics:
                c.subscribe(t, qos=1)

        def on_subscribe(c, u, mid, rcs, p):  # type: ignore[no-untyped-def]
            self._subscribed.set()

        def on_message(c, u, msg):  # type: ignore[no-untyped-def]
            now = time.perf_counter()
            payload = bytes(msg.payload)
            with self.cond:
                self.messages.append((msg.topic, payload, now))
                if msg.topic.endswith("/alert"):
                    self.alerts.setdefault(json.loads(payload)["id"], now)
                self.cond.notify_all()

        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_message = on_message
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        if not self._subscribed.wait(5):
            raise RuntimeError("subscriber did not subscribe")

    def wait(self, pred: Callable[[list[tuple[str, bytes, float]]], Any],
             timeout: float) -> Any:
        """Wait until ``pred(messages)`` is truthy; return its value (None on timeout)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                got = pred(self.messages)
                if got:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 0.5))

    def alert_time(self, alert_id: str, timeout: float) -> float | None:
        """When the alert with this id first arrived (waiting for it), or None."""
        got: float | None = self.wait(lambda m: self.alerts.get(alert_id), timeout)
        return got

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class SubscriberChild:
    """``benchmarks/subscriber_child.py``: alerts' arrival times stamped in a process of
    their own (the benchmark's simulated readers never delay the stamp)."""

    def __init__(self, port: int, topics: Iterable[str]) -> None:
        self.proc = subprocess.Popen([PYTHON, str(HERE / "subscriber_child.py"), str(port),
                                      *topics], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdout is not None
        if not json.loads(self.proc.stdout.readline() or b"{}").get("ready"):
            self.close()
            raise RuntimeError("subscriber did not subscribe")

    @property
    def alerts(self) -> dict[str, float]:
        """Alert id -> first arrival (``time.perf_counter()``), so far."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"?\n")
        self.proc.stdin.flush()
        return {str(k): float(v) for k, v in json.loads(self.proc.stdout.readline()).items()}

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


# -- the daemon as a child ---------------------------------------------------------------


def write_config(path: Path, broker_port: int, tables: dict[str, dict[str, str]],
                 data_dir: Path, fsync: str = "event", state_interval_ms: int = 250,
                 keys: dict[tuple[str, str], bytes] | None = None,
                 heartbeat_timeout_ms: int = 3500) -> Path:
    lines = ["version = 1", f"state_interval_ms = {state_interval_ms}", "[broker]",
             # a client id of its own per daemon: two daemons of one run share the broker
             f"port = {broker_port}", 'base = "ts"',
             f'client_id = "bench-{os.getpid()}-{abs(hash(str(data_dir)))}"',
             "max_inflight = 100", "[journal]", f'dir = "{data_dir / "journal"}"',
             f'fsync = "{fsync}"', "[outbox]", f'path = "{data_dir / "outbox.sqlite"}"',
             "[readers]", f"heartbeat_timeout_ms = {heartbeat_timeout_ms}",
             "backoff_initial_ms = 50", "backoff_max_ms = 500"]
    for name, readers in tables.items():
        lines.append(f'[tables."{name}"]')
        lines.append('code = "duplicate-2017"')
        for seat, url in readers.items():
            key = (keys or {}).get((name, seat))
            extra = f', key = "{key.hex()}"' if key else ""
            lines.append(f'readers.{seat} = {{ port = "{url}"{extra} }}')
    path.write_text("\n".join(lines) + "\n")
    return path


class DaemonChild:
    """``benchmarks/daemon_child.py CONFIG``: the real Daemon in its own process,
    taking JSON requests on stdin (commands, trusted events, stats)."""

    def __init__(self, config: Path, log: Path, host: Path | None = None) -> None:
        """``host``: run the ``tablesense`` package found there instead of the
        installed one (a baseline: an export of an older commit's ``host/``)."""
        self.log = log.open("ab")
        env = None
        if host is not None:
            env = {**os.environ, "PYTHONPATH": str(host)}
        self.proc = subprocess.Popen([PYTHON, str(HERE / "daemon_child.py"), str(config)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env)
        self.lock = threading.Lock()
        ready = self._read()
        if not ready.get("ready"):
            raise RuntimeError(f"daemon child did not start: {ready}")
        self.pid = self.proc.pid

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("daemon child exited")
        return dict(json.loads(line))

    def request(self, req: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write(json.dumps(req).encode() + b"\n")
            self.proc.stdin.flush()
            return self._read()

    def command(self, table: str, cmd: dict[str, Any], trusted: bool = False) -> dict[str, Any]:
        resp = self.request({"op": "cmd", "table": table, "cmd": cmd, "trusted": trusted})
        if not resp.get("ok"):
            raise RuntimeError(f"command {cmd} refused: {resp}")
        return resp

    def stats(self) -> dict[str, Any]:
        return self.request({"op": "stats"})

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.request({"op": "stop"})
                self.proc.wait(10)
            except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError):
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


def start_board(daemon: DaemonChild, table: str, board: int) -> None:
    """board, dealt (the fixed deal), 1N by North and three passes: East leads."""
    daemon.command(table, {"type": "board", "board": board, "dealer": "N", "vul": "None"})
    daemon.command(table, {"type": "dealt", "hands": HANDS}, trusted=True)
    for seat, call in zip(SEATS, ("1N", "P", "P", "P"), strict=True):
        daemon.command(table, {"type": "call", "seat": seat, "call": call})


# -- /proc --------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads) so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def thread_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


# -- simulated readers ---------------------------------------------------------------------


class SimReader:
    """One reader behind a pty: numbers its frames, keeps them for RESEND, ACKs CONFIG.

    ``path`` is what the daemon opens. Frames go out through :meth:`write`;
    host frames are handled by :class:`ReaderPool`'s service thread.
    """

    def __init__(self, table: str, seat: str, key: bytes | None = None) -> None:
        self.table = table
        self.seat = seat
        self.reader_id = SEATS.index(seat) + 1
        self.key = codec.as_key(key) if key else None
        self.stamp = 0
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        os.set_blocking(self.master, True)
        self.seq = 0
        self.kept: dict[int, bytes] = {}
        self.lock = threading.RLock()
        self.decoder = codec.Decoder(self.key, sender="host") if self.key else codec.Decoder()
        self.configured = threading.Event()
        self.written = 0
        self.resent = 0

    def frame(self, mtype: int, fields: dict[str, Any]) -> bytes:
        with self.lock:
            if self.key is not None:
                self.stamp += 1
            data = codec.encode(mtype, fields, self.reader_id, self.seq, key=self.key,
                                stamp=self.stamp)
            if mtype in (codec.OBSERVE, codec.CALL, codec.FAULT):
                self.kept[self.seq] = data
                self.kept.pop((self.seq - 256) & 0xFFFF, None)
            self.seq = (self.seq + 1) & 0xFFFF
            return data

    def send(self, mtype: int, fields: dict[str, Any]) -> float:
        """Number and write one frame at once (so frames never go out of seq order)."""
        with self.lock:
            return self.write(self.frame(mtype, fields))

    def write(self, data: bytes) -> float:
        """Write all of ``data``; return perf_counter() after the last byte went in."""
        with self.lock:
            view = memoryview(data)
            while view:
                n = os.write(self.master, view)
                view = view[n:]
            self.written += len(data)
            return time.perf_counter()

    def observe(self, card: str, zone: str, face: str, level: str = "at", t: int = 0) -> float:
        """Send one OBSERVE; return when its last byte was written."""
        return self.send(codec.OBSERVE, {"seat": self.seat, "card": card, "zone": zone,
                                         "face": face, "level": level, "t": t & 0xFFFFFFFF})

    def hello(self) -> None:
        self.send(codec.HELLO, {"kind": "rfid", "firmware": "9.9.9",
                                "serial": f"B-{self.table}-{self.seat}",
                                "capabilities": ["face", "level", "resend"]})

    def beat(self) -> None:
        self.send(codec.HEARTBEAT, {"uptime": 0, "reads": 0, "errors": 0, "dropped": 0})

    def on_host_bytes(self, data: bytes) -> None:
        for f in self.decoder.feed(data):
            if not isinstance(f, codec.Frame):
                continue
            if f.mtype == codec.CONFIG:
                if f.stamp is not None and f.stamp > self.stamp:
                    with self.lock:
                        self.stamp = f.stamp
                self.send(codec.ACK, {"ack_seq": f.seq})
                self.configured.set()
            elif f.mtype == codec.RESEND:
                start = f.fields["from_seq"]
                with self.lock:
                    seqs = [s for s in sorted(self.kept, key=lambda s: (s - start) & 0xFFFF)
                            if (s - start) & 0xFFFF < 0x8000]
                    frames = []
                    for s in seqs:
                        data = self.kept[s]
                        if self.key is not None:
                            self.stamp += 1
                            data = codec.resign(data, self.key, self.stamp)
                        frames.append(data)
                for data in frames:
                    self.resent += 1
                    self.write(data)
            elif f.mtype == codec.ACK:
                ack = f.fields["ack_seq"]
                with self.lock:
                    for s in [s for s in self.kept if (ack - s) & 0xFFFF < 0x8000]:
                        del self.kept[s]

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class ReaderPool:
    """Readers and one service thread: answers host frames, sends 1 Hz heartbeats.

    ``spread``: each reader beats on its own clock, the readers' phases spread
    evenly over the second (readers in a room boot at different moments);
    otherwise all of them beat at the same moment, every second (the worst
    case: a burst of one frame per reader at once).
    """

    def __init__(self, readers: list[SimReader], heartbeat_s: float = 1.0,
                 spread: bool = False) -> None:
        self.readers = readers
        self.by_fd = {r.master: r for r in readers}
        self.heartbeat_s = heartbeat_s
        self.spread = spread
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="readers", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        poller = select.poll()
        for fd in self.by_fd:
            poller.register(fd, select.POLLIN)
        n = max(1, len(self.readers))
        start = time.monotonic()
        # (when, index): the next beat of each reader (spread) or of them all
        due = [(start + (i / n if self.spread else 1.0) * self.heartbeat_s, i)
               for i in range(len(self.readers))]
        heapq.heapify(due)
        while not self._stop.is_set():
            wait_ms = 50
            if due:  # beats go out in 10 ms steps at most (a poll of every port each time)
                wait_ms = max(10, min(50, int((due[0][0] - time.monotonic()) * 1000) + 1))
            for fd, ev in poller.poll(wait_ms):
                if ev & select.POLLIN:
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        continue
                    self.by_fd[fd].on_host_bytes(data)
            now = time.monotonic()
            while due and due[0][0] <= now:
                at, i = heapq.heappop(due)
                with contextlib.suppress(OSError):
                    self.readers[i].beat()
                # the reader's own clock (a late beat does not move its phase)
                heapq.heappush(due, (max(at + self.heartbeat_s, now), i))

    def start_sessions(self, timeout: float = 20.0) -> None:
        """HELLO from every reader (repeated) until each got its CONFIG."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            waiting = [r for r in self.readers if not r.configured.is_set()]
            if not waiting:
                return
            for r in waiting:
                r.hello()
            time.sleep(0.3)
        missing = [(r.table, r.seat) for r in self.readers if not r.configured.is_set()]
        raise RuntimeError(f"readers never configured: {missing[:5]} ({len(missing)})")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        for r in self.readers:
            r.close()
