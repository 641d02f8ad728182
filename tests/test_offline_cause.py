"""A reader that stays offline says why: no such port, port busy, bytes but no valid frame,
never answered, not plugged in (the link's port side; daemon/ports.py CAUSES)."""

from __future__ import annotations

import contextlib
import os
import queue
import time
import tty
from collections.abc import Callable, Iterator

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
