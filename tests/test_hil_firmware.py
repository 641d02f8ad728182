"""The real reader firmware in the MicroPython VM, behind a pty, decoded by the host codec."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablesense import codec
from tablesense.sim.firmware import (
    SimReader,
    expected_observations,
    find_micropython,
    start_reader,
)

try:
    from tablesense.ports import open_port
except ImportError:  # pragma: no cover - before ports.py landed
    import serial

    def open_port(url: str) -> serial.Serial:  # type: ignore[misc]
        return serial.serial_for_url(url, timeout=0.1)


pytestmark = pytest.mark.hil
SCENARIO = Path(__file__).parent / "data" / "sim-north.jsonl"


def _have_vm() -> bool:
    try:
        return bool(shutil.which(find_micropython()))
    except RuntimeError:
        return False


if not _have_vm():  # pragma: no cover
    pytest.skip("no MicroPython unix VM", allow_module_level=True)


class Host:
    """The host end of one reader link: a pyserial port and the shared Decoder."""

    def __init__(self, reader: SimReader) -> None:
        self.reader = reader
        self.port = open_port(reader.port)
        self.dec = codec.Decoder()
        self.frames: list[codec.Frame] = []

    def pump(self, until: Callable[[list[codec.Frame]], bool], timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not until(self.frames):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; got {self.frames!r}\n{self.reader.log}")
            data = self.port.read(max(1, self.port.in_waiting))
            for item in self.dec.feed(data):
                assert isinstance(item, codec.Frame), item
                self.frames.append(item)

    def send(self, mtype: int, fields: dict[str, object], seq: int = 0, reader: int = 1) -> None:
        self.port.write(codec.encode(mtype, fields, reader=reader, seq=seq))

    def handshake(self, seat: str = "N", scan_ms: int = 20, debounce_ms: int = 40,
                  reader: int = 1) -> None:
        """HELLO -> CONFIG -> ACK (protocol.md section 4); scanning starts after it."""
        self.pump(lambda fs: bool(self.of(codec.HELLO)), 5.0)
        self.send(codec.CONFIG, {"seat": seat, "scan_ms": scan_ms, "debounce_ms": debounce_ms},
                  seq=0, reader=reader)
        self.pump(lambda fs: bool(self.of(codec.ACK)), 3.0)

    def of(self, mtype: int) -> list[codec.Frame]:
        return [f for f in self.frames if f.mtype == mtype]

    def close(self) -> None:
        self.port.close()


@pytest.fixture
def reader() -> Iterator[SimReader]:
    r = start_reader("N", SCENARIO, scan_ms=20, debounce_ms=40)
    try:
        yield r
    finally:
        r.stop()


def observed(frames: list[codec.Frame]) -> list[dict[str, object]]:
    out = []
    for f in frames:
        if f.mtype == codec.OBSERVE:
            d = dict(f.fields)
            d.pop("t")
            out.append(d)
    return out


def test_scenario_becomes_exact_observations(reader: SimReader) -> None:
    want = expected_observations(SCENARIO, "N")
    host = Host(reader)
    try:
        host.handshake()
        host.pump(lambda fs: len(observed(fs)) >= len(want) and bool(host.of(codec.FAULT)), 8.0)
        assert host.frames[0].mtype == codec.HELLO
        assert host.frames[0].fields["kind"] == "rfid"
        assert observed(host.frames) == want
        assert [f.seq for f in host.frames] == list(range(len(host.frames)))
        fault = host.of(codec.FAULT)[0].fields
        assert fault["code"] == 3 and fault["zone"] == "trick"
        host.pump(lambda fs: bool(host.of(codec.HEARTBEAT)), 2.0)
        hb = host.of(codec.HEARTBEAT)[0].fields
        assert hb["reads"] > 0 and hb["dropped"] == 0
        ts = [f.fields["t"] for f in host.of(codec.OBSERVE)]
        assert ts == sorted(ts)
    finally:
        host.close()


def test_resend_recovers_lost_frames(reader: SimReader) -> None:
    host = Host(reader)
    try:
        host.handshake()
        host.pump(lambda fs: len(observed(fs)) >= 7, 5.0)
        first = {f.seq: f for f in host.frames}
        lost_from = 2  # pretend frames 2.. never arrived
        n = len(host.frames)
        host.send(codec.RESEND, {"from_seq": lost_from})
        host.pump(lambda fs: sum(1 for f in fs[n:] if f.seq == lost_from) >= 1, 3.0)
        again = [f for f in host.frames[n:] if f.seq < n]
        assert again[0].seq == lost_from
        for f in again:
            assert f == first[f.seq]
        assert [f.seq for f in again] == list(range(lost_from, lost_from + len(again)))
    finally:
        host.close()


def test_restart_sends_hello_and_restarts_sequence() -> None:
    r1 = start_reader("N", SCENARIO)
    try:
        host = Host(r1)
        host.handshake()
        host.pump(lambda fs: len(fs) >= 3, 5.0)
        host.close()
    finally:
        r1.stop()
    assert not r1.alive()
    r2 = start_reader("N", SCENARIO)
    try:
        host = Host(r2)
        host.handshake()
        assert host.frames[0].mtype == codec.HELLO and host.frames[0].seq == 0
        assert host.frames[1].mtype == codec.ACK and host.frames[1].seq == 1
        host.close()
    finally:
        r2.stop()


def test_config_changes_seat_and_period(tmp_path: Path) -> None:
    scen = tmp_path / "s.jsonl"
    scen.write_text(
        '{"t": 0, "card": "SA", "zone": "hand", "face": "down"}\n'
        '{"t": 1200, "card": "SA", "zone": "trick", "face": "up"}\n'
    )
    r = start_reader("N", scen, scan_ms=20, debounce_ms=40)
    try:
        host = Host(r)
        host.handshake("N", 20, 40)
        host.pump(lambda fs: len(observed(fs)) >= 1, 4.0)
        assert observed(host.frames)[0]["seat"] == "N"
        host.send(codec.CONFIG, {"seat": "S", "scan_ms": 100, "debounce_ms": 0}, seq=5)
        host.pump(lambda fs: len(host.of(codec.ACK)) >= 2, 3.0)
        assert host.of(codec.ACK)[1].fields == {"ack_seq": 5}
        host.pump(lambda fs: len(observed(fs)) >= 2, 4.0)
        obs = observed(host.frames)[1]
        assert obs["seat"] == "S" and obs["zone"] == "trick"
        # period: heartbeats' uptime over scans is not on the wire; count HEARTBEAT reads
        host.pump(lambda fs: len(host.of(codec.HEARTBEAT)) >= 2, 3.0)
        hb = host.of(codec.HEARTBEAT)
        reads = hb[-1].fields["reads"] - hb[-2].fields["reads"]
        assert 5 <= reads <= 13  # one card, ~10 scans a second at 100 ms (50 at 20 ms)
        host.close()
    finally:
        r.stop()


def test_camera_reader_reports_face_seen_by_conf(tmp_path: Path) -> None:
    scen = tmp_path / "c.jsonl"
    scen.write_text(
        '{"t": 0, "seat": "W", "card": "DQ", "zone": "hand", "face": "down", "level": "above"}\n'
        '{"t": 300, "seat": "W", "card": "DQ", "zone": "floor", "face": "up", "level": "below",'
        ' "seen_by": ["N", "E"], "conf": 0.8}\n'
        '{"t": 600, "seat": "W", "card": "DQ", "zone": "detached", "face": "down",'
        ' "level": "above", "seen_by": []}\n'
    )
    want = expected_observations(scen, "W", kind="camera")
    r = start_reader("W", scen, kind="camera")
    try:
        host = Host(r)
        host.handshake("W", reader=4)
        host.pump(lambda fs: len(observed(fs)) >= len(want), 4.0)
        assert host.frames[0].fields["kind"] == "camera"
        assert observed(host.frames) == want
        host.close()
    finally:
        r.stop()
