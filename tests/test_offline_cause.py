"""A reader that stays offline says why: no such port, port busy, bytes but no valid frame,
never answered, not plugged in (the link's port side; daemon/ports.py CAUSES)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon.link import LinkMessage, LinkSettings, ReaderLink
from tablesense.daemon.ports import CAUSES, open_port

FAST = LinkSettings(heartbeat_timeout_ms=400, backoff_initial_ms=20, backoff_max_ms=100,
                    resend_timeout_ms=150, health_interval_ms=100)


class Pty:
    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def pty() -> Iterator[Pty]:
    p = Pty()
    yield p
    p.close()


def offline_reason(resolve: Callable[[], str | None],
                   feed: Callable[[], None] = lambda: None, timeout: float = 10.0) -> str:
    """The reason of the link's first ``offline``; ``feed`` runs while waiting for it."""
    q: queue.Queue[LinkMessage] = queue.Queue()
    link = ReaderLink("1", "N", resolve, q, FAST)
    link.start()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            feed()
            with contextlib.suppress(queue.Empty):
                m = q.get(timeout=0.05)
                if m.kind == "offline":
                    return m.reason
        raise AssertionError("the link never went offline")
    finally:
        link.stop()


def test_no_such_port() -> None:
    assert offline_reason(lambda: "/dev/nonexistent-reader") == "no-such-port"


def test_not_plugged_in() -> None:
    assert offline_reason(lambda: None) == "not-plugged-in"


def test_port_busy(pty: Pty) -> None:
    holder = open_port(pty.path)  # another program has it (mpremote, a terminal)
    try:
        assert offline_reason(lambda: pty.path) == "port-busy"
    finally:
        holder.close()


def test_bytes_but_no_valid_frame(pty: Pty) -> None:
    # what a reader at another baud rate, or another device, sends: bytes, never a frame
    noise = bytes(range(1, 200)) + b"\x00"
    assert offline_reason(lambda: pty.path, lambda: os.write(pty.master, noise)) == (
        "no-valid-frame")


def test_not_a_serial_port() -> None:
    assert offline_reason(lambda: "/dev/null") == "not-a-serial-port"


def test_never_answered(pty: Pty) -> None:
    assert offline_reason(lambda: pty.path) == "never-answered"


def test_every_cause_has_words_for_the_alert() -> None:
    for cause in ("no-such-port", "not-plugged-in", "port-busy", "no-valid-frame",
                  "never-answered", "heartbeat-timeout", "port-lost"):
        assert CAUSES[cause]
    assert "wrong device or baud rate?" in CAUSES["no-valid-frame"]


@pytest.mark.broker
def test_the_daemon_s_alert_says_why_in_words(mosquitto: Any, watchers: Any,
                                               tmp_path: Path) -> None:
    """Through the whole daemon: the reader-offline alert of a seat whose port does not
    exist carries the cause as its reason and says it in its text."""
    from tablesense.daemon.config import parse_config
    from tablesense.daemon.core import Daemon

    broker = mosquitto()
    w = watchers(broker.port, ["ts/1/alert"])
    cfg = parse_config({
        "version": 1,
        "broker": {"port": broker.port, "base": "ts", "client_id": "why", "keepalive": 5},
        "journal": {"dir": str(tmp_path / "journal"), "fsync": "never"},
        "outbox": {"path": str(tmp_path / "outbox.sqlite")},
        "readers": {"heartbeat_timeout_ms": 400, "backoff_initial_ms": 20,
                    "backoff_max_ms": 100},
        "tables": {"1": {"readers": {"E": {"port": "/dev/nonexistent-reader"}}}},
    }, source="why.toml", base_dir=tmp_path)
    daemon = Daemon(cfg)
    daemon.start()
    try:
        def offline() -> list[dict[str, Any]]:
            return [a for a in (json.loads(p) for p in w.on("ts/1/alert"))
                    if a["kind"] == "reader-offline"]

        assert w.wait_for(lambda m: bool(offline()), 10)
    finally:
        daemon.stop()
    (alert,) = offline()
    assert alert["reader"] == "E" and alert["reason"] == "no-such-port"
    assert CAUSES["no-such-port"] in alert["text"]
