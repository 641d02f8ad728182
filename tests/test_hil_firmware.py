"""The real reader firmware in the MicroPython VM, behind a pty, decoded by the host codec."""

from __future__ import annotations

import shutil
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tablesense.onboard.wire import codec
from tablesense.sim.firmware import (
    SimReader,
    expected_observations,
    find_micropython,
    start_reader,
)

try:
    from tablesense.daemon.ports import open_port
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
def reader(request: pytest.FixtureRequest) -> Iterator[SimReader]:
    """The table build (a simulated PN5180) unless a test asks for ``mfrc522`` too."""
    chip = getattr(request, "param", "pn5180")
    r = start_reader("N", SCENARIO, scan_ms=20, debounce_ms=40, chip=chip)
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


BUILDS = pytest.mark.parametrize("reader", ["pn5180", "mfrc522"], indirect=True)


@BUILDS
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
        host.pump(lambda fs: bool(host.of(codec.HEARTBEAT)), 3.0)
        hb = host.of(codec.HEARTBEAT)[0].fields
        assert hb["reads"] > 0 and hb["dropped"] == 0
        ts = [f.fields["t"] for f in host.of(codec.OBSERVE)]
        assert ts == sorted(ts)
    finally:
        host.close()


def test_a_stalled_vm_still_reports_every_state(reader: SimReader) -> None:
    """A loaded machine may not run the VM for longer than the scenario leaves a card in
    one place (here SIGSTOP for 0.8 s over SA's 300 ms in the trick zone). The sim's
    world then waits for the reader's scans instead of racing ahead of them
    (firmware/sim/main.py hold_scans), so the frames are exactly the scenario's, only
    later."""
    want = expected_observations(SCENARIO, "N")
    host = Host(reader)
    try:
        host.handshake()
        host.pump(lambda fs: len(observed(fs)) >= 5, 5.0)  # the hand, by t = 0.2 s or so
        reader.process.send_signal(signal.SIGSTOP)
        try:
            time.sleep(0.8)  # SA goes to the trick at 0.4 s and to the table at 0.7 s
        finally:
            reader.process.send_signal(signal.SIGCONT)
        host.pump(lambda fs: len(observed(fs)) >= len(want), 8.0)
        assert observed(host.frames) == want
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


def test_a_reopened_port_shows_a_gap_never_a_reordering(reader: SimReader) -> None:
    """Why a link once saw "OBSERVE 8 before 7": opening a tty flushes its input
    (pyserial, like any termios open), so frames the reader wrote while the host had
    the port closed (a link that timed out and reopens) are gone. On the wire that is a
    gap, and the firmware still writes every frame in sequence order; RESEND brings
    the kept ones back, in order. The link, seeing 8 where 7 was due, asks from 7 and
    gets 7 and 8 again: the "reordering" was a loss on the host side."""
    want = expected_observations(SCENARIO, "N")
    host = Host(reader)
    try:
        host.handshake()
        host.pump(lambda fs: len(observed(fs)) >= 5, 5.0)  # the hand
        host.port.close()
        time.sleep(0.9)  # the reader plays on: SA to the trick, back to the table
        host.port = open_port(reader.port)  # flushes what came meanwhile
        n = len(host.frames)
        host.pump(lambda fs: len(fs) > n, 5.0)
        seqs = [f.seq for f in host.frames]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # written in order
        missing = [s for s in range(seqs[0], seqs[-1]) if s not in seqs]
        assert missing and missing[0] == host.frames[n - 1].seq + 1  # lost while closed
        host.send(codec.RESEND, {"from_seq": missing[0]})
        host.pump(lambda fs: any(f.seq in missing for f in fs), 3.0)
        resent = [f for f in host.frames if f.seq in missing]
        assert [f.seq for f in resent] == sorted(f.seq for f in resent)
        # every kept frame but HELLO comes back (protocol.md section 5), heartbeats too
        assert {f.mtype for f in resent} <= {codec.OBSERVE, codec.FAULT, codec.HEARTBEAT}
        # by seq, once each, the observations are the scenario's, in order
        host.pump(lambda fs: len({f.seq: f for f in fs if f.mtype == codec.OBSERVE})
                  >= len(want), 5.0)
        by_seq = {f.seq: f for f in host.frames}
        assert observed([by_seq[s] for s in sorted(by_seq)]) == want
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


def scan_rate(a: codec.Frame, b: codec.Frame) -> tuple[float, int]:
    """Reads per second of the reader's own clock between two HEARTBEATs (one card in
    sight: one read a scan), and the uptime between them in ms."""
    du = b.fields["uptime"] - a.fields["uptime"]
    return (b.fields["reads"] - a.fields["reads"]) * 1000 / du, du


def test_config_changes_seat_and_period(tmp_path: Path) -> None:
    """CONFIG sets the seat and the scan period. The period is checked against the
    reader's own clock (HEARTBEAT uptime), not the test's: a scan period can only
    stretch on a loaded machine, never shrink, so "no faster than configured" is
    exact, and "the new period took effect" compares it with the old one in the same
    run instead of with wall-clock bounds."""
    scen = tmp_path / "s.jsonl"
    scen.write_text(
        '{"t": 0, "card": "SA", "zone": "table", "face": "down"}\n'
        '{"t": 2600, "card": "SA", "zone": "trick", "face": "up"}\n'
    )
    r = start_reader("N", scen, scan_ms=20, debounce_ms=40)
    try:
        host = Host(r)
        host.handshake("N", 20, 40)
        host.pump(lambda fs: len(observed(fs)) >= 1, 4.0)
        assert observed(host.frames)[0]["seat"] == "N"
        # two heartbeats scanning every 20 ms (the first one may straddle the CONFIG)
        host.pump(lambda fs: len(host.of(codec.HEARTBEAT)) >= 2, 4.0)
        fast, du_fast = scan_rate(*host.of(codec.HEARTBEAT)[-2:])
        host.send(codec.CONFIG, {"seat": "S", "scan_ms": 100, "debounce_ms": 0}, seq=5)
        host.pump(lambda fs: len(host.of(codec.ACK)) >= 2, 3.0)
        assert host.of(codec.ACK)[1].fields == {"ack_seq": 5}
        n_hb = len(host.of(codec.HEARTBEAT))
        host.pump(lambda fs: len(observed(fs)) >= 2, 4.0)
        obs = observed(host.frames)[1]
        assert obs["seat"] == "S" and obs["zone"] == "trick"
        # two heartbeats wholly after the CONFIG: every 100 ms
        host.pump(lambda fs: len(host.of(codec.HEARTBEAT)) >= n_hb + 2, 4.0)
        slow, du_slow = scan_rate(*host.of(codec.HEARTBEAT)[-2:])
        # never faster than configured (a scan can start late, never early): per the
        # reader's clock at most one scan a period, plus the one a window may straddle
        assert fast <= 1000 / 20 + 1000 / du_fast, (fast, du_fast)
        assert slow <= 1000 / 100 + 1000 / du_slow, (slow, du_slow)
        print(f"scan rate by the reader's clock: {fast:.1f}/s at 20 ms, {slow:.1f}/s at 100 ms")
        assert slow > 0
        # and the 100 ms period is in force: 5x fewer scans than at 20 ms nominally;
        # more than 2.5x fewer even if a loaded machine stretches the short period
        assert fast >= 2.5 * slow, (fast, slow)
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


def test_maint_stop_ends_the_reader_loop_over_the_wire() -> None:
    """``tablesense maint PORT stop``: the reader ACKs and its loop ends (on a board the
    REPL comes back for mpremote; the sim's VM exits)."""
    import subprocess
    import sys

    r = start_reader("N", SCENARIO)
    try:
        done = subprocess.run([sys.executable, "-m", "tablesense.cli", "maint", r.port, "stop"],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        assert "reader 1: stop acknowledged" in done.stdout
        assert r.process.wait(10) == 0
    finally:
        r.stop()


@BUILDS
def test_hello_claims_what_the_rfid_reader_senses_and_it_reports_no_more(
        reader: SimReader) -> None:
    """The real firmware in the VM: every OBSERVE stays inside the HELLO's capabilities."""
    host = Host(reader)
    want = expected_observations(SCENARIO, "N")
    try:
        host.handshake()
        host.pump(lambda fs: len(observed(fs)) >= len(want), 8.0)
        caps = set(host.frames[0].fields["capabilities"])
        assert not caps & {"face", "hand", "detached", "seen_by", "conf"}, caps
        zones = caps & set(codec.ZONE_CAPABILITIES)
        assert zones == {"table", "trick", "floor"}
        for o in observed(host.frames):
            assert o["zone"] in zones | {"gone"}, o
            assert o["face"] == "unknown", o
            want_levels = ("unknown",) if o["zone"] == "gone" else ("at", "below")
            assert o["level"] in want_levels, o
            assert "seen_by" not in o and "conf" not in o, o
    finally:
        host.close()
