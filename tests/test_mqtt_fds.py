"""The publisher connects, and reconnects, on descriptors above 1024.

A room's daemon holds thousands of descriptors (512 readers: about 2,700), so
the broker connection made after the ports are open gets one above 1024,
where ``select()`` (paho's own loop) cannot wait. Here every descriptor
below 1100 is taken first, as the ports would; the publisher must connect,
deliver an alert, lose the broker, reconnect on a high descriptor again and
deliver the next one.
"""

from __future__ import annotations

import os
import resource
import select
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tablesense.daemon.config import BrokerConfig
from tablesense.daemon.mqtt import Publisher
from tablesense.daemon.outbox import Outbox

HIGH = 1100


def wait_for(cond: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def take_low(held: list[int]) -> None:
    """Take every free descriptor below HIGH (and one above it)."""
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
        if held[-1] >= HIGH:
            return


@pytest.mark.broker
def test_connect_and_reconnect_with_every_low_descriptor_taken(mosquitto, tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < HIGH + 200:
        pytest.skip(f"the hard limit on open files ({hard}) is too low for this test")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, HIGH + 200), hard))
    broker = mosquitto()
    held: list[int] = []
    pub: Publisher | None = None
    try:
        take_low(held)
        box = Outbox(tmp_path / "outbox.sqlite")
        pub = Publisher(BrokerConfig(port=broker.port, base="ts", client_id="fds-daemon"), box)
        pub.start()
        assert pub.wait_listening(30), "never connected"
        sock = pub.client.socket()
        assert sock is not None and sock.fileno() >= 1024
        with pytest.raises(ValueError):  # what paho's own loop would have hit
            select.select([sock.fileno()], [], [], 0)
        box.enqueue("1-1-1", "ts/1/alert", b'{"id":"1-1-1"}')
        pub.kick()
        assert pub.wait_idle(30) and box.counts()["acked"] == 1

        broker.stop()
        assert wait_for(lambda: not pub.connected), "the lost broker went unnoticed"
        take_low(held)  # those the old connection and the broker's pipes left free too
        box.enqueue("1-1-2", "ts/1/alert", b'{"id":"1-1-2"}')  # stored while it is down
        pub.kick()
        broker.start()
        assert pub.wait_listening(30), "never reconnected"
        assert pub.connects == 2
        sock = pub.client.socket()
        assert sock is not None and sock.fileno() >= 1024
        assert pub.wait_idle(30) and box.counts() == {"pending": 0, "acked": 2, "refused": 0}
    finally:
        if pub is not None:
            pub.stop()
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
