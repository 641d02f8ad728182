"""Readers covering several seats: a camera over the whole table on one link."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon.config import ConfigError, parse_config
from tablesense.daemon.core import Daemon, observed_seat
from tablesense.daemon.session import LinkMessage
from tablesense.onboard.wire import codec


def _cfg(readers: dict[str, Any], tmp_path: Path, port: int = 1883) -> Any:
    return parse_config({
        "version": 1,
        "broker": {"port": port, "base": "ts", "client_id": f"d-{tmp_path.name}"},
        "journal": {"dir": "journal"},
        "readers": {"heartbeat_timeout_ms": 600, "backoff_initial_ms": 20,
                    "backoff_max_ms": 200},
        "tables": {"1": {"readers": readers}},
        "state_interval_ms": 50,
    }, source="t.toml", base_dir=tmp_path)


def test_config_names_a_reader_and_the_seats_it_covers(tmp_path: Path) -> None:
    cfg = _cfg({"camera": {"port": "loop://", "seats": ["W", "N", "E", "S"]},
                "N": {"port": "socket://x:1"}}, tmp_path)
    cam, north = cfg.tables["1"].readers["camera"], cfg.tables["1"].readers["N"]
    assert cam.seats == ("N", "E", "S", "W")  # canonical order
    assert north.seats == ("N",)  # a seat-named reader covers its own seat


@pytest.mark.parametrize(("reader", "key", "problem"), [
    ({"port": "loop://"}, "tables.1.readers.camera", "not a seat"),
    ({"port": "loop://", "seats": []}, "tables.1.readers.camera.seats", "at least one"),
    ({"port": "loop://", "seats": ["N", "X"]}, "tables.1.readers.camera.seats", "'X'"),
    ({"port": "loop://", "seats": ["N", "N"]}, "tables.1.readers.camera.seats", "twice"),
    ({"port": "loop://", "seats": "NESW"}, "tables.1.readers.camera.seats", "a list"),
])
def test_bad_seats_name_the_key(tmp_path: Path, reader: dict[str, Any], key: str,
                                problem: str) -> None:
    with pytest.raises(ConfigError) as err:
        _cfg({"camera": reader}, tmp_path)
    assert err.value.key == key and problem in err.value.problem


def test_a_reader_name_must_be_a_topic_level(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        _cfg({"cam/1": {"port": "loop://", "seats": ["N"]}}, tmp_path)
    assert err.value.key == "tables.1.readers.cam/1"


def _msg(frame_seat: str, name: str, seats: tuple[str, ...]) -> LinkMessage:
    frames = codec.Decoder().feed(codec.encode(codec.OBSERVE, {
        "seat": frame_seat, "card": "SA", "zone": "trick", "face": "up", "level": "at",
        "t": 1}, reader=1, seq=0))
    f = frames[0]
    assert isinstance(f, codec.Frame)
    return LinkMessage("1", name, "frame", 5, frame=f, seats=seats)


def test_whose_card_a_frame_reports() -> None:
    # one seat: the config says where the antennas are, whatever the frame names
    assert observed_seat(_msg("E", "N", ("N",))) == "N"
    assert observed_seat(_msg("E", "N", ())) == "N"
    # several: the frame names the holder, if covered
    assert observed_seat(_msg("E", "camera", ("N", "E", "S", "W"))) == "E"
    assert observed_seat(_msg("W", "camera", ("N", "E"))) is None


def test_one_camera_reader_reports_every_seat(mosquitto, pty_readers, tmp_path: Path) -> None:
    broker = mosquitto()
    cam = pty_readers(reader=1, serial="CAM-1")
    daemon = Daemon(_cfg({"camera": {"port": cam.path, "seats": ["N", "E", "S"]}}, tmp_path,
                         broker.port))
    daemon.start()
    try:
        cam.start_heartbeats(0.1)
        deadline = time.monotonic() + 5
        while not cam.host_frames(codec.CONFIG) and time.monotonic() < deadline:
            cam.hello("camera")  # as a reader does, until a CONFIG comes (the link may not
            # be open yet)
            time.sleep(0.2)
        configs = cam.host_frames(codec.CONFIG)
        assert configs and configs[0].fields["seat"] == "N"  # type: ignore[attr-defined]
        resp = daemon.command("1", {"type": "board", "table": "1", "board": 1, "dealer": "N",
                                    "vul": "None"})
        assert resp["ok"], resp
        for seat, card in (("N", "SA"), ("E", "HK"), ("W", "D2"), ("S", "C3")):
            cam.observe(card, zone="hand", seat=seat)
        path = tmp_path / "journal" / "1.jsonl"

        def observed() -> list[dict[str, Any]]:
            if not path.exists():
                return []
            lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
            return [o for o in lines if o["type"] == "observe"]

        while len(observed()) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        got = observed()
        # W is not covered: refused, and the frames after it still arrive
        assert [(o["seat"], o["card"]) for o in got] == [("N", "SA"), ("E", "HK"), ("S", "C3")]
        assert {o["reader"] for o in got} == {"camera"}
        # the kind of reader its HELLO named, for the engine's fusion of tags and cameras
        assert {o["source"] for o in got} == {"camera"}
        assert daemon.tables["1"].counters["refused"] == 1
        assert daemon.links[0].health()["seats"] == ["N", "E", "S"]
    finally:
        daemon.stop()
