"""One daemon a base: a second is refused at start, or takes over when told to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon import claim
from tablesense.daemon.claim import BaseClaimed, Claim, decide, encode
from tablesense.daemon.core import Daemon
from test_daemon import config

ONLINE, OFFLINE = b'{"state":"online"}', b'{"state":"offline"}'


def test_who_may_start() -> None:
    me = Claim("pc-10-a", "pc", 10, 0)
    other = encode(Claim("pc-20-b", "pc", 20, 0))
    remote = encode(Claim("hall-20-b", "hall", 20, 0))
    assert decide(me, None, ONLINE, False) == "free"
    assert decide(me, encode(me), ONLINE, False) == "free"  # our own claim
    assert decide(me, other, OFFLINE, False) == "free"  # stopped, or its will
    assert decide(me, other, ONLINE, False, alive=lambda pid: False) == "free"  # killed here
    assert decide(me, b"not json", ONLINE, False) == "free"
    assert decide(me, remote, ONLINE, True) == "take-over"
    with pytest.raises(BaseClaimed, match=r"hall-20-b \(host hall, pid 20.*--take-over"):
        decide(me, remote, ONLINE, False, alive=lambda pid: False)  # another host's pid
    assert claim.taken_over(me, encode(me)) is None
    assert claim.taken_over(me, remote) == Claim("hall-20-b", "hall", 20, 0)


def _bridge(w: Any) -> dict[str, Any]:
    return dict(json.loads(w.on("ts/bridge/state")[-1]))


@pytest.mark.broker
def test_a_second_daemon_is_refused_unless_it_takes_over(mosquitto, watchers,
                                                         tmp_path: Path) -> None:
    broker = mosquitto()
    w = watchers(broker.port, ["ts/bridge/#"])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Daemon(config(tmp_path / "a", broker.port, {}))
    first.start()
    stopped = False
    try:
        assert first.publisher.wait_listening(5)
        assert w.wait_for(lambda m: any(t == "ts/bridge/daemon" for t, *_ in m), 5)
        assert json.loads(w.on("ts/bridge/daemon")[-1])["daemon"] == first.claim.daemon
        # the claimant is this very process, alive: only the bridge state can free it
        second = Daemon(config(tmp_path / "b", broker.port, {}))
        with pytest.raises(BaseClaimed, match=rf"{first.claim.daemon}.*127.0.0.1:{broker.port}"):
            second.start()
        assert first.taken_over_by is None and _bridge(w)["state"] == "online"

        third = Daemon(config(tmp_path / "b", broker.port, {}), take_over=True)
        third.start()
        try:
            assert w.wait_for(lambda m: first.taken_over_by is not None, 5)
            assert first.taken_over_by == third.claim
            first.stop()  # says nothing: the base is the third's now
            stopped = True
            assert _bridge(w)["state"] == "online"
            assert json.loads(w.on("ts/bridge/daemon")[-1])["daemon"] == third.claim.daemon
            assert third.command("1", {"type": "board", "board": 1})["ok"]
        finally:
            third.stop()
        assert _bridge(w)["state"] == "offline"
        # stopped: the base is free again, no --take-over needed
        fourth = Daemon(config(tmp_path / "b", broker.port, {}))
        fourth.start()
        fourth.stop()
    finally:
        if not stopped:
            first.stop()
