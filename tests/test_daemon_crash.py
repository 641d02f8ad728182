"""The daemon as a process: SIGKILL with alerts pending loses none; the will says offline."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import free_port


def write_config(tmp_path: Path, broker_port: int, reader_urls: dict[str, str]) -> Path:
    readers = "\n".join(f'readers.{s} = {{ port = "{u}" }}' for s, u in reader_urls.items())
    p = tmp_path / "daemon.toml"
    p.write_text(f"""version = 1
[broker]
port = {broker_port}
base = "ts"
client_id = "crashy"
keepalive = 5
[journal]
dir = "journal"
[readers]
heartbeat_timeout_ms = 300
backoff_initial_ms = 50
backoff_max_ms = 200
[tables.1]
code = "duplicate-2017"
{readers}
""")
    return p


def start_daemon(conf: Path, log: Path) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).parent / "tablesense"
    return subprocess.Popen([str(exe), "run", "--config", str(conf), "--log-level", "debug"],
                            stdout=subprocess.DEVNULL, stderr=log.open("ab"))


def pending(db: Path) -> list[str]:
    if not db.exists():
        return []
    con = sqlite3.connect(db, timeout=2)
    try:
        rows = con.execute("SELECT key FROM outbox WHERE status = 'pending' ORDER BY seq")
        return [r[0] for r in rows]
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def wait(pred, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return bool(pred())


def kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(5)


@pytest.mark.broker
def test_sigkill_with_alerts_pending_delivers_them_after_restart(
        mosquitto, watchers, tmp_path: Path) -> None:
    broker = mosquitto()
    broker.stop()  # the broker is down for the whole first life of the daemon
    dead = {s: f"socket://127.0.0.1:{free_port()}" for s in "NESW"}  # nobody listens
    conf = write_config(tmp_path, broker.port, dead)
    db = tmp_path / "journal" / "outbox.sqlite"
    log = tmp_path / "daemon.log"
    first = start_daemon(conf, log)
    try:
        # four readers that never answer: four reader-offline alerts, stuck in the outbox
        assert wait(lambda: len(pending(db)) == 4, 10), log.read_text()[-3000:]
        stuck = pending(db)
        os.kill(first.pid, signal.SIGKILL)
    finally:
        kill(first)
    assert first.returncode == -signal.SIGKILL
    assert pending(db) == stuck

    broker.start()
    w = watchers(broker.port, ["ts/1/alert", "ts/bridge/state"])
    second = start_daemon(conf, log)
    try:
        def all_in(m: list[tuple[str, bytes, int, bool]]) -> bool:
            return {json.loads(p)["id"] for t, p, _, _ in m if t == "ts/1/alert"} >= set(stuck)

        assert w.wait_for(all_in, 10), log.read_text()[-3000:]
        got = [json.loads(p) for p in w.on("ts/1/alert")]
        first_seen = list(dict.fromkeys(a["id"] for a in got if a["id"] in stuck))
        assert first_seen == stuck  # in the order they were made
        a = next(a for a in got if a["id"] == stuck[0])
        assert a["kind"] == "reader-offline" and a["severity"] == "director"
        assert a["table"] == "1" and a["reader"] in "NESW"
        assert wait(lambda: not set(stuck) & set(pending(db)), 5)
        assert w.on("ts/bridge/state")[-1] == b'{"state":"online"}'
        # graceful stop: offline is said, retained
        second.send_signal(signal.SIGTERM)
        assert second.wait(10) == 0
        assert w.wait_for(lambda m: m[-1][:2] == ("ts/bridge/state", b'{"state":"offline"}'), 5)
    finally:
        kill(second)


@pytest.mark.broker
def test_the_will_says_offline_when_the_daemon_dies(mosquitto, watchers, tmp_path: Path) -> None:
    broker = mosquitto()
    conf = write_config(tmp_path, broker.port, {})
    proc = start_daemon(conf, tmp_path / "daemon.log")
    try:
        w = watchers(broker.port, ["ts/bridge/state"])
        assert w.wait_for(lambda m: (b'{"state":"online"}' in [p for _, p, _, _ in m]), 10)
        proc.kill()
        assert w.wait_for(lambda m: m[-1][1] == b'{"state":"offline"}', 10)
    finally:
        kill(proc)
    # a newcomer gets the retained offline state, QoS 1
    late = watchers(broker.port, ["ts/bridge/state"])
    assert late.wait_for(lambda m: bool(m), 5)
    assert late.messages[-1] == ("ts/bridge/state", b'{"state":"offline"}', 1, True)
