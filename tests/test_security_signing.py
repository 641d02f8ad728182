"""Reader authentication: signed frames (hardware/protocol.md section 2a).

The codec's own HMAC against CPython's, signed frames round-tripping and any
tampering caught, the replay window against a model, the link dropping
forged, unsigned and replayed frames (and raising ``reader-spoofed``), a
rebooted reader and a resend after a lost frame still getting through, the
config's keys, and the real firmware signing in the MicroPython VM.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import queue
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import PtyReader
from tablesense.daemon.config import ConfigError, LinkSettings, parse_config
from tablesense.daemon.link import ReaderLink
from tablesense.daemon.session import LinkMessage
from tablesense.daemon.stamps import ReplayWindow, host_stamp
from tablesense.firmware.build import place_shared
from tablesense.onboard.wire import codec as c
from test_codec_props import MESSAGES
from test_link import FAST, Collector, until

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "hardware" / "protocol" / "vectors.json"
KEY = bytes(range(32))
OTHER = bytes(range(1, 33))


# -- the codec -------------------------------------------------------------------


@settings(max_examples=300)
@given(st.binary(max_size=200), st.binary(max_size=300))
def test_hmac_is_cpythons(key: bytes, msg: bytes) -> None:
    if not key:
        key = b"\x00"
    assert c.hmac_sha256(key, msg) == hmac.new(key, msg, "sha256").digest()


@settings(max_examples=300)
@given(MESSAGES, st.integers(0, 255), st.integers(0, 0xFFFF), st.integers(0, c.MAX_STAMP),
       st.sampled_from(c.SENDERS))
def test_signed_frames_round_trip_and_are_only_theirs(
        message: tuple[int, dict[str, Any]], reader: int, seq: int, stamp: int,
        sender: str) -> None:
    mtype, fields = message
    data = c.encode(mtype, fields, reader, seq, key=KEY, stamp=stamp, sender=sender)
    assert len(data) - 1 <= c.MAX_ENCODED and 0 not in data[:-1]
    (frame,) = c.Decoder(KEY, sender=sender).feed(data)
    assert isinstance(frame, c.Frame)
    assert (frame.mtype, frame.fields, frame.reader, frame.seq, frame.stamp) == (
        mtype, fields, reader, seq, stamp)
    assert frame.flags & c.FLAG_SIGNED
    other = "host" if sender == "reader" else "reader"
    for dec, kind in ((c.Decoder(OTHER, sender=sender), "bad_signature"),
                      (c.Decoder(KEY, sender=other), "bad_signature"),
                      (c.Decoder(), "incompatible_flag")):
        (err,) = dec.feed(data)
        assert isinstance(err, c.RemoteProtocolError) and err.kind == kind
    # the unsigned frame is the plain v1 one, whatever the codec learnt since
    plain = c.encode(mtype, fields, reader, seq)
    assert plain == c.pack_frame(1, 0, reader, seq, mtype, c.cobs_decode(plain[:-1])[6:-4])


@settings(max_examples=200)
@given(MESSAGES, st.data())
def test_any_tampering_with_a_signed_frame_is_caught(
        message: tuple[int, dict[str, Any]], data: st.DataObject) -> None:
    """Flip any bit and make the CRC good again: never a frame, always counted."""
    mtype, fields = message
    raw = bytearray(c.cobs_decode(c.encode(mtype, fields, 3, 9, key=KEY, stamp=77)[:-1]))
    bit = data.draw(st.integers(0, (len(raw) - c.CRC_LEN) * 8 - 1))
    raw[bit // 8] ^= 1 << (bit % 8)
    body = bytes(raw[: -c.CRC_LEN])
    dec = c.Decoder(KEY)
    items = dec.feed(c.cobs_encode(body + struct.pack("<I", c.crc32(body))) + b"\x00")
    assert len(items) == 1 and isinstance(items[0], c.RemoteProtocolError)
    assert items[0].kind in ("bad_signature", "unsigned", "bad_version", "incompatible_flag")
    assert dec.counters[items[0].kind] == 1 and dec.counters["frames"] == 0


def test_resign_keeps_the_frame_and_changes_only_the_stamp() -> None:
    f = c.encode(c.OBSERVE, {"seat": "N", "card": "SA", "zone": "trick", "t": 5}, 1, 40,
                 key=KEY, stamp=10)
    again = c.resign(f, KEY, 99)
    (a,), (b,) = c.Decoder(KEY).feed(f), c.Decoder(KEY).feed(again)
    assert isinstance(a, c.Frame) and isinstance(b, c.Frame)
    assert (a.stamp, b.stamp) == (10, 99)
    assert {**a.to_dict(), "stamp": 0} == {**b.to_dict(), "stamp": 0}


def test_keyless_behaviour_is_v1() -> None:
    with pytest.raises(c.LocalProtocolError):
        c.encode(c.ACK, {"ack_seq": 1}, 1, 0, flags=c.FLAG_SIGNED)
    assert set(c.Decoder().counters) == set(c.COUNTER_NAMES)
    assert set(c.Decoder(KEY).counters) == set(c.COUNTER_NAMES) | set(c.SIGNED_COUNTER_NAMES)
    # a keyed decoder that does not require signing takes unsigned frames as they are
    (f,) = c.Decoder(KEY, require=False).feed(c.encode(c.ACK, {"ack_seq": 3}, 1, 0))
    assert isinstance(f, c.Frame) and f.stamp is None


@pytest.mark.skipif(shutil.which(str(Path(sys.executable).parent / "micropython")) is None,
                    reason="no MicroPython VM beside the venv's python")
def test_signed_vectors_under_micropython() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "micropython"),
         str(ROOT / "hardware" / "protocol" / "check_vectors.py"),
         str(ROOT / "host" / "tablesense" / "onboard"), str(VECTORS)],
        capture_output=True, text=True, timeout=120)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    signed = json.loads(VECTORS.read_text())["signed"]
    total = sum(len(signed[k]) for k in ("hmac", "good", "bad", "encode_errors"))
    assert result["implementation"] == "micropython"
    assert (result["signed_checked"], result["failures"]) == (total, [])


# -- the replay window ---------------------------------------------------------------


@settings(max_examples=300)
@given(st.lists(st.integers(0, 400), max_size=200), st.integers(1, 64))
def test_replay_window_matches_its_definition(stamps: list[int], size: int) -> None:
    w = ReplayWindow(size)
    seen: set[int] = set()
    for s in stamps:
        newest = max(seen, default=-1)
        want = s not in seen and s > newest - size
        assert w.accept(s) == want, (s, sorted(seen), size)
        if want:
            seen.add(s)


def test_replay_window_floor() -> None:
    w = ReplayWindow(8)
    assert w.accept(3)
    w.raise_floor(100)
    assert not w.accept(99) and not w.accept(95) and w.accept(101)
    w.raise_floor(50)  # never lowers it
    assert not w.accept(60)
    assert host_stamp(1420070400 + 1.5) == 150_000


# -- a signing reader behind a pty ------------------------------------------------------


class SignedPtyReader(PtyReader):
    """The conftest reader, signing as the firmware does (protocol.md section 2a).

    Each frame gets the next stamp; a CONFIG's stamp is adopted; resent frames
    are signed afresh. ``key=None`` sends unsigned frames (a reader without
    its key), ``sign_with`` overrides the key used (a spoofer's).
    """

    def __init__(self, key: bytes | None = KEY, **kw: Any) -> None:
        self.key = key
        self.sign_with: bytes | None = None
        self.stamp = 0
        super().__init__(**kw)
        self._decoder = c.Decoder(key, sender="host") if key else c.Decoder()

    def frame(self, mtype: int, fields: dict[str, object]) -> bytes:
        key = self.sign_with or self.key
        if key is None:
            return super().frame(mtype, fields)
        with self.lock:
            self.stamp += 1
            data = c.encode(mtype, fields, reader=self.reader, seq=self.seq, key=key,
                            stamp=self.stamp)
            if mtype in (c.OBSERVE, c.CALL, c.FAULT):
                self.sent[self.seq] = data
            self.seq = (self.seq + 1) & 0xFFFF
            return data

    def reboot(self) -> None:
        with self.lock:
            self.stamp = 0
            self.seq = 0
            self.sent.clear()

    def on_frame(self, f: Any) -> None:
        if f.mtype == c.CONFIG and f.stamp is not None:
            # a CONFIG's stamp is adopted before the CONFIG shows in received: a test that
            # saw it may send at once, and must not sign with a stale stamp
            with self.lock:
                self.stamp = max(self.stamp, f.stamp)
        if f.mtype == c.RESEND and self.key is None:
            with self.lock:
                self.received.append(f)  # an unsigned reader here answers no RESEND
            return
        super().on_frame(f)

    def again(self, frame: bytes) -> bytes:
        assert self.key is not None
        self.stamp += 1
        return c.resign(frame, self.key, self.stamp)


@pytest.fixture
def signed_links() -> Iterator[Callable[..., tuple[ReaderLink, Collector]]]:
    made: list[tuple[ReaderLink, Collector]] = []

    def make(seat: str, path: str, key: bytes | None = KEY, require: bool = True,
             settings: LinkSettings = FAST) -> tuple[ReaderLink, Collector]:
        q: queue.Queue[LinkMessage] = queue.Queue()
        link = ReaderLink("1", seat, lambda: path, q, settings, key=key,
                          require_signed=require)
        col = Collector(q)
        link.start()  # the port is open (and its session's CONFIG sent) when this returns
        made.append((link, col))
        assert link.counters["opens"] == 1
        return link, col

    yield make
    for link, col in made:
        link.stop()
        col.stop()


@pytest.fixture
def signed_readers() -> Iterator[Callable[..., SignedPtyReader]]:
    made: list[SignedPtyReader] = []

    def make(**kw: Any) -> SignedPtyReader:
        r = SignedPtyReader(**kw)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def go_online(r: SignedPtyReader, col: Collector) -> None:
    """A signed link starts its session itself: a CONFIG as soon as the port opens."""
    assert until(lambda: bool(r.host_frames(c.CONFIG)))
    r.start_heartbeats(0.1)
    assert until(lambda: col.kinds() == ["online"])


def spoofed(col: Collector) -> list[LinkMessage]:
    return [m for m in list(col.items) if m.kind == "spoofed"]


def test_signed_session_delivers_and_adopts_the_hosts_clock(signed_readers,
                                                            signed_links) -> None:
    r = signed_readers(reader=1, serial="SIGNED-1")
    before = host_stamp(time.time())
    link, col = signed_links("N", r.path)
    assert until(lambda: bool(r.host_frames(c.CONFIG)))
    r.hello()  # stale (stamp 1 < the session's): answered all the same
    r.start_heartbeats(0.1)
    assert until(lambda: col.kinds() == ["online"])
    assert until(lambda: link.identity.get("serial") == "SIGNED-1")
    cfg = r.host_frames(c.CONFIG)[-1]
    assert cfg.stamp is not None and cfg.stamp >= before  # type: ignore[attr-defined]
    assert r.stamp > cfg.stamp  # type: ignore[attr-defined]
    for card in ("SA", "SK", "SQ"):
        r.observe(card)
    assert until(lambda: col.cards() == ["SA", "SK", "SQ"])
    acks = r.host_frames(c.ACK)
    assert until(lambda: bool(r.host_frames(c.ACK)))
    assert all(f.stamp is not None for f in r.received)  # type: ignore[attr-defined]
    n = link.all_counters()
    assert (n["unsigned"], n["bad_signature"], n["replayed"], n["lost"]) == (0, 0, 0, 0), n
    assert spoofed(col) == [] and acks is not None


def test_forged_and_unsigned_frames_are_dropped_counted_and_alerted(signed_readers,
                                                                    signed_links) -> None:
    r = signed_readers(reader=1)
    link, col = signed_links("N", r.path)
    go_online(r, col)
    r.observe("SA")
    assert until(lambda: col.cards() == ["SA"])
    # a spoofer on the line: its own key, then no key at all, between genuine frames
    for i in range(20):
        r.write(c.encode(c.OBSERVE, {"seat": "N", "card": "HA", "zone": "table", "face": "up",
                                     "t": i}, 1, 5000 + i, key=OTHER, stamp=10**12 + i))
        r.write(c.encode(c.OBSERVE, {"seat": "N", "card": "HK", "zone": "table", "face": "up",
                                     "t": i}, 1, 6000 + i))
    r.observe("SK")
    assert until(lambda: col.cards() == ["SA", "SK"])
    assert until(lambda: link.counters["bad_signature"] == 20 and link.counters["unsigned"] == 20)
    alerts = spoofed(col)
    assert [m.reason for m in alerts] == ["bad_signature"]  # one alert a minute, not 40
    assert alerts[0].health["counters"]["bad_signature"] >= 1
    assert link.all_counters()["lost"] == 0 and link.state == "online"


def test_replayed_frames_are_dropped_and_not_delivered_twice(signed_readers,
                                                             signed_links) -> None:
    r = signed_readers(reader=1)
    link, col = signed_links("N", r.path)
    go_online(r, col)
    captured = r.frame(c.OBSERVE, {"seat": "N", "card": "DA", "zone": "table", "face": "up",
                                   "level": "at", "t": 1})
    r.write(captured)
    assert until(lambda: col.cards() == ["DA"])
    r.observe("DK")
    assert until(lambda: col.cards() == ["DA", "DK"])
    for _ in range(3):
        r.write(captured)  # a recording played back
    r.observe("DQ")
    assert until(lambda: col.cards() == ["DA", "DK", "DQ"])
    assert until(lambda: link.counters["replayed"] == 3)
    assert spoofed(col) == []  # a good MAC: not a spoofer's own frame, just an old one
    # after a reboot the reader's stamps restart at 1: its HELLO is still answered
    r.stop_heartbeats()
    r.reboot()
    r.hello()
    assert until(lambda: link.counters["stale_hello"] >= 1)
    assert until(lambda: len(r.host_frames(c.CONFIG)) >= 2)
    r.start_heartbeats(0.1)
    r.observe("DJ")
    assert until(lambda: col.cards() == ["DA", "DK", "DQ", "DJ"]), link.all_counters()
    replayed = link.counters["replayed"]
    r.write(captured)  # the old session's frame stays stale after the reboot
    assert until(lambda: link.counters["replayed"] == replayed + 1)  # taken, and dropped
    assert col.cards() == ["DA", "DK", "DQ", "DJ"]
    assert link.counters["bad_signature"] == 0


def test_a_lost_frame_comes_again_resigned(signed_readers, signed_links) -> None:
    r = signed_readers(reader=1)
    link, col = signed_links("N", r.path)
    go_online(r, col)
    r.observe("CA")
    r.frame(c.OBSERVE, {"seat": "N", "card": "CK", "zone": "trick", "face": "up", "t": 2})
    r.observe("CQ")  # CK never went out: the link asks again, the reader re-signs it
    assert until(lambda: col.cards() == ["CA", "CK", "CQ"]), link.all_counters()
    n = link.all_counters()
    assert n["resends"] >= 1 and n["lost"] == 0 and n["replayed"] == 0, n


def test_optional_signing_takes_unsigned_readers_and_still_checks_signatures(
        signed_readers, signed_links) -> None:
    r = signed_readers(key=None, reader=1)
    link, col = signed_links("N", r.path, require=False)
    r.hello()
    r.start_heartbeats(0.1)
    assert until(lambda: col.kinds() == ["online"])
    r.observe("SA")
    r.write(c.encode(c.OBSERVE, {"seat": "N", "card": "SK", "zone": "hand", "t": 0}, 1, 900,
                     key=OTHER, stamp=5))
    r.observe("SQ")
    assert until(lambda: col.cards() == ["SA", "SQ"])
    assert until(lambda: link.counters["bad_signature"] == 1)
    assert link.counters["unsigned"] == 0


# -- configuration -----------------------------------------------------------------------


def table_conf(readers: dict[str, dict[str, Any]], **t: Any) -> dict[str, Any]:
    return {"version": 1, "tables": {"3": {"readers": readers, **t}}}


def test_config_keys_and_require_signed() -> None:
    k = KEY.hex()
    cfg = parse_config(table_conf({"N": {"port": "loop://", "key": k},
                                   "S": {"port": "socket://x:1", "key": OTHER.hex()}}))
    t = cfg.tables["3"]
    assert t.require_signed and t.readers["N"].key == KEY
    assert k not in repr(t)  # keys stay out of logs and reprs
    cfg = parse_config(table_conf({"N": {"port": "loop://"}}))
    assert not cfg.tables["3"].require_signed and cfg.tables["3"].readers["N"].key is None
    loose = parse_config(table_conf({"N": {"port": "loop://", "key": k},
                                     "E": {"port": "loop://e"}}, require_signed=False))
    assert not loose.tables["3"].require_signed
    bad = [
        (table_conf({"N": {"port": "loop://", "key": "zz"}}), "tables.3.readers.N.key",
         "hex"),
        (table_conf({"N": {"port": "loop://", "key": "00" * 8}}), "tables.3.readers.N.key",
         "16 to 64 bytes"),
        (table_conf({"N": {"port": "loop://", "key": k}, "E": {"port": "loop://e"}}),
         "tables.3.readers.E.key", "requires signed"),
        (table_conf({"N": {"port": "loop://"}}, require_signed=True),
         "tables.3.readers.N.key", "requires signed"),
    ]
    for data, key, words in bad:
        with pytest.raises(ConfigError) as e:
            parse_config(data, source="t.toml")
        assert e.value.key == key and words in e.value.problem, str(e.value)


# -- the real firmware, signing, in the MicroPython VM --------------------------------------

VM_MAIN = """
import asyncio
from wire import codec
import sim.main as m

ARGV = ["main.py", "--seat", "N", "--scenario", SCENARIO, "--scan-ms", "20",
        "--debounce-ms", "40", "--serial", "SIM-SIGNED"]

async def amain():
    world, reader = m.build(m.args(ARGV))
    reader.key = codec.SigningKey(bytes.fromhex(KEY))  # what main.py does with key.txt
    reader.decoder = codec.Decoder(reader.key, True, "host")
    world.advance(0)
    asyncio.create_task(m.drive(world, reader))
    await reader.run()

asyncio.run(amain())
"""


@contextlib.contextmanager
def signed_vm_reader(scenario: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    vm = Path(sys.executable).parent / "micropython"
    if not vm.exists():
        pytest.skip("no MicroPython VM beside the venv's python")
    work = Path(tempfile.mkdtemp(prefix="ts-signed-vm-"))
    place_shared(work)
    (work / "run.py").write_text(f"SCENARIO = {str(scenario)!r}\nKEY = {KEY.hex()!r}\n"
                                 + VM_MAIN)
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(ROOT / "firmware"), str(work),
                                                        ".frozen"]))
    master, slave = os.openpty()
    tty.setraw(slave)
    with open(work / "stderr.log", "wb") as log:
        proc = subprocess.Popen([str(vm), str(work / "run.py")], stdin=master, stdout=master,
                                stderr=log, env=env, close_fds=True, cwd=work)
    os.close(master)
    try:
        yield os.ttyname(slave), proc, work
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(3)
        if proc.poll() is None:
            proc.kill()
            proc.wait(3)
        os.close(slave)
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.hil
def test_the_real_firmware_signs_and_the_link_requires_it(signed_links) -> None:
    sim = pytest.importorskip("tablesense.sim.firmware")
    scenario = Path(__file__).parent / "data" / "sim-north.jsonl"
    want = sim.expected_observations(scenario, "N")
    with signed_vm_reader(scenario) as (port, _proc, work):
        before = host_stamp(time.time())
        # The firmware beats at 1 Hz: the protocol's 3.5 s timeout, not the fast one. With
        # 400 ms the link timed the reader out between beats (and while the VM booted), and
        # each reopen flushed the pty's input: the frames lost came again through RESEND,
        # re-signed, so a resent frame's newer stamp preceded the held frames' older ones.
        link, col = signed_links("N", port, settings=LinkSettings())
        assert until(lambda: len(col.cards()) >= len(want), 15), (
            col.cards(), link.all_counters(), (work / "stderr.log").read_text())
        got = [{k: v for k, v in m.frame.fields.items() if k != "t"}
               for m in col.items if m.frame is not None and m.frame.mtype == c.OBSERVE]
        assert got[: len(want)] == want
        frames = [m.frame for m in col.items if m.frame is not None]
        assert all(f.stamp is not None and f.flags & c.FLAG_SIGNED for f in frames)
        # every frame signed after the reader adopted the session's clock, each stamp once
        # (a frame resent after a gap is re-signed: delivered in seq order, not stamp order)
        stamps = [f.stamp for f in frames if f.stamp is not None]
        assert all(s > before for s in stamps) and len(set(stamps)) == len(stamps)
        n = link.all_counters()
        assert (n["unsigned"], n["bad_signature"], n["lost"]) == (0, 0, 0), n
        assert link.identity.get("serial") in (None, "SIM-SIGNED")


@pytest.mark.broker
def test_the_daemon_publishes_reader_spoofed(mosquitto, watchers, tmp_path: Path) -> None:
    from tablesense.daemon.core import Daemon
    from test_daemon import config

    broker = mosquitto()
    w = watchers(broker.port, ["ts/1/alert", "ts/1/readers/N"])
    genuine = SignedPtyReader(reader=1)
    spoof = SignedPtyReader(key=OTHER, reader=1)  # same line, wrong key
    cfg = config(tmp_path, broker.port, {"N": genuine.path})
    table = cfg.tables["1"]
    reader = table.readers["N"]
    cfg.tables["1"] = type(table)(name="1", code=table.code, require_signed=True,
                                  readers={"N": type(reader)(seat="N", port=reader.port,
                                                             key=KEY)})
    daemon = Daemon(cfg)
    daemon.start()
    try:
        assert until(lambda: bool(genuine.host_frames(c.CONFIG)))
        genuine.start_heartbeats(0.1)
        for i in range(5):
            genuine.write(spoof.frame(c.OBSERVE, {"seat": "N", "card": "SA", "zone": "table",
                                                  "face": "up", "t": i}))
        assert w.wait_for(lambda m: any(t == "ts/1/alert" for t, *_ in m), 10)
        (alert,) = [json.loads(p) for p in w.on("ts/1/alert")]
        assert (alert["kind"], alert["severity"], alert["reader"], alert["reason"]) == (
            "reader-spoofed", "director", "N", "bad_signature")
        assert alert["id"].startswith("1-reader-N-spoofed-")
        assert w.wait_for(lambda m: any(
            json.loads(p)["counters"].get("bad_signature") == 5
            for p in w.on("ts/1/readers/N")), 5)
        j = (tmp_path / "journal" / "1.jsonl")
        assert not j.exists() or "SA" not in j.read_text()  # nothing forged reached the engine
    finally:
        daemon.stop()
        genuine.close()
        spoof.close()
