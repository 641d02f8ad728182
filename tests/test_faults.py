"""Faults, each with the same three checks afterwards:

1. no ruling lost: every exposure made gets its alert at the subscriber;
2. none published twice under different ids: the alert ids received are those
   a clean replay of the journal makes, and one id always carries one payload;
3. the state after recovery equals a clean replay of the journal.

Faults: a reader unplugged mid-frame that comes back rebooted; a reader
spewing garbage at full rate beside healthy ones; the broker killed (SIGKILL)
and restarted during alerts; the daemon process SIGKILLed at random moments;
the journal's disk full. Loopback only, every test bounded.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import PtyReader
from tablesense.contract.journal import JournalError, read_journal
from tablesense.daemon.config import Config, parse_config
from tablesense.daemon.core import Daemon
from tablesense.engine import Engine, EngineError
from tablesense.laws import CODES
from tablesense.onboard.wire import codec

SEATS = "NESW"
DECK = [s + r for s in "SHDC" for r in "AKQJT98765432"]
HANDS = {seat: DECK[i::4] for i, seat in enumerate(SEATS)}
# the defenders' exposures: West's and East's cards turned face up in the hand
EXPOSURES = [("W", c) for c in HANDS["W"][1:12]] + [("E", c) for c in HANDS["E"][1:12]]


def until(pred: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return bool(pred())


def config(tmp_path: Path, port: int, readers: dict[str, str], *,
           journal_dir: Path | None = None, outbox: Path | None = None,
           client_id: str = "faulty") -> Config:
    return parse_config({
        "version": 1,
        "broker": {"port": port, "base": "ts", "client_id": client_id, "keepalive": 5},
        "journal": {"dir": str(journal_dir or tmp_path / "journal"), "fsync": "event"},
        "outbox": {"path": str(outbox or tmp_path / "outbox.sqlite")},
        "readers": {"heartbeat_timeout_ms": 800, "backoff_initial_ms": 20,
                    "backoff_max_ms": 200, "resend_timeout_ms": 150},
        "tables": {"1": {"code": "duplicate-2017",
                         "readers": {s: {"port": u} for s, u in readers.items()}}},
        "state_interval_ms": 50,
    }, source="faults.toml", base_dir=tmp_path)


def make_readers(pty_readers: Any) -> dict[str, PtyReader]:
    return {s: pty_readers(reader=i + 1, serial=f"F-{s}") for i, s in enumerate(SEATS)}


def symlinks(tmp_path: Path, readers: dict[str, PtyReader]) -> dict[str, str]:
    """A stable path per seat (as a by-id device link), re-pointed when a reader is replugged."""
    out = {}
    for s, r in readers.items():
        link = tmp_path / f"tty{s}"
        link.symlink_to(r.path)
        out[s] = str(link)
    return out


def repoint(link: Path, target: str) -> None:
    tmp = link.with_name(link.name + ".new")
    tmp.symlink_to(target)
    os.replace(tmp, link)


def hello_until_config(r: PtyReader, timeout: float = 10) -> None:
    """As the firmware does: HELLO every so often until a CONFIG comes (the host
    flushes what arrived before it opened the port)."""
    n = len(r.host_frames(codec.CONFIG))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r.hello()
        if until(lambda: len(r.host_frames(codec.CONFIG)) > n, 0.3):
            return
    raise AssertionError("no CONFIG for a HELLO")


def go_online(readers: dict[str, PtyReader], daemon: Daemon | None = None) -> None:
    for r in readers.values():
        r.start_heartbeats(0.1)
    for r in readers.values():
        hello_until_config(r)
    if daemon is not None:
        assert until(lambda: all(link.state == "online" for link in daemon.links), 10)


def start_board(daemon: Daemon, readers: dict[str, PtyReader], board: int = 1) -> None:
    for cmd in ({"type": "board", "board": board, "dealer": "N", "vul": "None"},):
        assert daemon.command("1", cmd)["ok"]
    assert daemon.command("1", {"type": "dealt", "hands": HANDS}, trusted=True)["ok"]
    for seat, call in zip(SEATS, ("1N", "P", "P", "P"), strict=True):
        assert daemon.command("1", {"type": "call", "seat": seat, "call": call})["ok"]
    readers["E"].observe(HANDS["E"][12], zone="trick", seat="E")  # the opening lead
    time.sleep(0.35)


def expose(r: PtyReader, seat: str, card: str) -> None:
    r.send(codec.OBSERVE, {"seat": seat, "card": card, "zone": "hand", "face": "up",
                           "level": "above", "t": 1})


def alerts(watcher: Any) -> list[dict[str, Any]]:
    return [json.loads(p) for p in watcher.on("ts/1/alert")]


def ids_of(received: list[dict[str, Any]], kind_prefix: str = "1-1-") -> set[str]:
    return {a["id"] for a in received if a["id"].startswith(kind_prefix)}


def replay(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A clean replay of a journal: its alerts (penalty, director) and the final state."""
    eng = Engine(table="1", codes=CODES)
    out = []
    for _, item in read_journal(str(path)):
        if isinstance(item, JournalError):
            continue
        try:
            out += eng.apply(item)
        except EngineError:
            continue
    return [r.to_json() for r in out if r.severity in ("penalty", "director")], eng.snapshot()


def check_recovery(journal: Path, received: list[dict[str, Any]], live: dict[str, Any],
                   exposures: int) -> None:
    made = {f"1-1-{n}" for n in range(1, exposures + 1)}
    got = ids_of(received)
    assert made <= got, f"lost: {sorted(made - got)}"                         # 1. none lost
    want, state = replay(journal)
    assert got == {a["id"] for a in want}, (sorted(got), [a["id"] for a in want])  # 2.
    by_id: dict[str, dict[str, Any]] = {}
    for a in received:
        assert by_id.setdefault(a["id"], a) == a, f"two payloads for {a['id']}"
    assert [by_id[a["id"]] for a in want] == want
    if "view" in live:  # the state topic's payload: the snapshot and its table view
        from tablesense.daemon.view import table_state

        state = table_state(state)
    assert json.loads(json.dumps(state)) == json.loads(json.dumps(live))  # 3. same state


# -- a reader unplugged mid-frame, replugged (it rebooted) --------------------------------


@pytest.mark.broker
def test_reader_unplugged_mid_frame_comes_back_rebooted(mosquitto, watchers, pty_readers,
                                                        tmp_path: Path) -> None:
    broker = mosquitto()
    w = watchers(broker.port, ["ts/1/alert"])
    readers = make_readers(pty_readers)
    links = symlinks(tmp_path, readers)
    daemon = Daemon(config(tmp_path, broker.port, links))
    daemon.start()
    try:
        go_online(readers, daemon)
        start_board(daemon, readers)
        for n, (seat, card) in enumerate(EXPOSURES[:6], 1):
            expose(readers[seat], seat, card)
            assert w.wait_for(lambda m, n=n: f"1-1-{n}" in ids_of(alerts(w)), 5)
        # West's next report is cut in half by the unplug
        west = readers["W"]
        half = west.frame(codec.OBSERVE, {"seat": "W", "card": EXPOSURES[6][1], "zone": "hand",
                                          "face": "up", "level": "above", "t": 2})
        west.write(half[: len(half) // 2])
        west.close()
        assert w.wait_for(lambda m: any(a["kind"] == "reader-offline" and a["reader"] == "W"
                                        for a in alerts(w)), 5)
        # replugged: the reader rebooted (seq from 0, HELLO) and reports what it senses,
        # the card it had turned face up included
        again = pty_readers(reader=4, serial="F-W")
        repoint(tmp_path / "ttyW", again.path)
        readers["W"] = again
        again.start_heartbeats(0.1)
        hello_until_config(again)
        for n, (seat, card) in enumerate(EXPOSURES[6:11], 7):
            expose(readers[seat], seat, card)
            assert w.wait_for(lambda m, n=n: f"1-1-{n}" in ids_of(alerts(w)), 5), alerts(w)
        time.sleep(0.3)
        live = daemon.tables["1"].engine.snapshot()
        link = next(x for x in daemon.links if x.seat == "W")
        assert link.counters["opens"] >= 2 and link.seq.counters["restarts"] >= 1
    finally:
        daemon.stop()
    check_recovery(tmp_path / "journal" / "1.jsonl", alerts(w), live, 11)
    offline = [a for a in alerts(w) if a["kind"] == "reader-offline"]
    assert len({a["id"] for a in offline}) == len(offline) >= 1


# -- a reader spewing garbage at full rate beside healthy ones ------------------------------


@pytest.mark.broker
def test_garbage_at_full_rate_beside_healthy_readers(mosquitto, watchers, pty_readers,
                                                     tmp_path: Path) -> None:
    broker = mosquitto()
    w = watchers(broker.port, ["ts/1/alert"])
    readers = make_readers(pty_readers)
    daemon = Daemon(config(tmp_path, broker.port, {s: r.path for s, r in readers.items()}))
    daemon.start()
    stop = threading.Event()
    flooded = [0]

    def flood() -> None:
        # South's line turns to noise: random bytes as fast as the pty takes them
        rng = random.Random(7)
        noise = bytes(rng.getrandbits(8) for _ in range(65536))
        while not stop.is_set():
            i = rng.randrange(0, 60000)
            try:
                readers["S"].write(noise[i:i + 4096])
            except OSError:
                time.sleep(0.01)
                continue
            flooded[0] += 4096

    try:
        go_online({s: r for s, r in readers.items() if s != "S"})
        start_board(daemon, readers)
        t_flood = time.monotonic()
        flooder = threading.Thread(target=flood, daemon=True)
        flooder.start()
        time.sleep(0.5)
        worst = 0.0
        for n, (seat, card) in enumerate(EXPOSURES, 1):
            t0 = time.monotonic()
            expose(readers[seat], seat, card)
            assert w.wait_for(lambda m, n=n: f"1-1-{n}" in ids_of(alerts(w)), 5)
            worst = max(worst, time.monotonic() - t0)
        stop.set()
        flooder.join(2)
        rate = flooded[0] / (time.monotonic() - t_flood)
        time.sleep(0.3)
        live = daemon.tables["1"].engine.snapshot()
        south = next(x for x in daemon.links if x.seat == "S").all_counters()
        healthy = [x.all_counters() for x in daemon.links if x.seat != "S"]
    finally:
        stop.set()
        daemon.stop()
    assert rate > 115200 / 10, rate  # more than a serial line could carry
    assert worst < 1.0, worst  # healthy readers' alerts stay prompt
    assert south["bytes"] > 100_000 and south["frames"] == 0
    assert south["errors"] + south["bad_crc"] + south["resyncs"] > 0  # counted, not silent
    assert all(h["lost"] == 0 and h["bad_crc"] == 0 for h in healthy)
    check_recovery(tmp_path / "journal" / "1.jsonl", alerts(w), live, len(EXPOSURES))


# -- the broker killed and restarted during alerts ------------------------------------------


@pytest.mark.broker
def test_broker_killed_and_restarted_during_alerts(mosquitto, watchers, pty_readers,
                                                   tmp_path: Path) -> None:
    broker = mosquitto(persistence=True)
    w = watchers(broker.port, ["ts/1/alert"], client_id="director-screen", persistent=True)
    readers = make_readers(pty_readers)
    daemon = Daemon(config(tmp_path, broker.port, {s: r.path for s, r in readers.items()}))
    daemon.start()
    rng = random.Random(11)
    kills = sorted(rng.sample(range(2, len(EXPOSURES) - 1), 3))
    try:
        go_online(readers, daemon)
        start_board(daemon, readers)
        time.sleep(1.2)  # the broker has saved the subscriber's session
        for n, (seat, card) in enumerate(EXPOSURES, 1):
            expose(readers[seat], seat, card)
            time.sleep(rng.uniform(0.0, 0.08))
            if n in kills:
                assert broker.proc is not None
                broker.proc.kill()  # SIGKILL: no goodbye, whatever was in flight
                broker.proc.wait(5)
                broker.proc = None
                time.sleep(rng.uniform(0.2, 0.6))
                broker.start()
        assert w.wait_for(lambda m: ids_of(alerts(w)) >= {f"1-1-{n}" for n in
                                                          range(1, len(EXPOSURES) + 1)}, 30), (
            sorted(ids_of(alerts(w))))
        assert daemon.wait_delivered(10)
        time.sleep(0.3)
        live = daemon.tables["1"].engine.snapshot()
        counts = daemon.outbox.counts()
        connects = daemon.publisher.connects
    finally:
        daemon.stop()
    assert counts["pending"] == 0 and counts["refused"] == 0
    assert connects >= 2  # it reconnected (kills close together may share one reconnect)
    check_recovery(tmp_path / "journal" / "1.jsonl", alerts(w), live, len(EXPOSURES))


# -- the daemon SIGKILLed at random moments ------------------------------------------------


def write_toml(tmp_path: Path, broker_port: int, readers: dict[str, str]) -> Path:
    lines = [
        "version = 1", "state_interval_ms = 50",
        "[broker]", f"port = {broker_port}", 'base = "ts"', 'client_id = "killed"',
        "keepalive = 5", "[journal]", 'dir = "journal"',
        "[readers]", "heartbeat_timeout_ms = 800", "backoff_initial_ms = 20",
        "backoff_max_ms = 200", "resend_timeout_ms = 150",
        '[tables."1"]', 'code = "duplicate-2017"',
    ] + [f'readers.{s} = {{ port = "{u}" }}' for s, u in readers.items()]
    p = tmp_path / "daemon.toml"
    p.write_text("\n".join(lines) + "\n")
    return p


class Director:
    """Commands over MQTT, each waited for until the daemon answers it."""

    def __init__(self, port: int, watcher: Any) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.w = watcher
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        self.n = 0

    def send(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        req = f"r{self.n}"
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:  # the daemon may be restarting: ask again
            self.c.publish("ts/1/cmd", json.dumps({**cmd, "req": req}), qos=1)
            if self.w.wait_for(lambda m: any(json.loads(p).get("req") == req
                                             for p in self.w.on("ts/1/cmd/response")), 2):
                resp = next(json.loads(p) for p in self.w.on("ts/1/cmd/response")
                            if json.loads(p).get("req") == req)
                return dict(resp)
        raise AssertionError(f"no answer to {cmd}")

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@pytest.mark.broker
def test_daemon_sigkilled_at_random_moments(mosquitto, watchers, pty_readers,
                                            tmp_path: Path) -> None:
    broker = mosquitto()
    w = watchers(broker.port, ["ts/1/alert", "ts/1/cmd/response", "ts/1/state"])
    readers = make_readers(pty_readers)
    conf = write_toml(tmp_path, broker.port, {s: r.path for s, r in readers.items()})
    exe = Path(sys.executable).parent / "tablesense"
    log = (tmp_path / "daemon.log").open("ab")
    rng = random.Random(5)

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen([str(exe), "run", "--config", str(conf)],
                                stdout=subprocess.DEVNULL, stderr=log)

    proc = start()
    director = Director(broker.port, w)
    kills = 0
    try:
        for r in readers.values():
            r.start_heartbeats(0.1)
            hello_until_config(r, 20)
        assert director.send({"type": "board", "board": 1, "dealer": "N", "vul": "None"})["ok"]
        assert director.send({"type": "setup", "step": "deal"})["ok"]
        for i in range(13):  # the deal, as the readers see it: 13 cards in each hand
            for s in SEATS:
                readers[s].send(codec.OBSERVE, {"seat": s, "card": HANDS[s][i], "zone": "hand",
                                                "face": "down", "level": "above", "t": i})
        time.sleep(0.5)
        for seat, call in zip(SEATS, ("1N", "P", "P", "P"), strict=True):
            assert director.send({"type": "call", "seat": seat, "call": call})["ok"]
        readers["E"].observe(HANDS["E"][12], zone="trick", seat="E")
        time.sleep(0.35)
        kill_at = sorted(rng.sample(range(1, len(EXPOSURES)), 3))
        for n, (seat, card) in enumerate(EXPOSURES, 1):
            expose(readers[seat], seat, card)
            time.sleep(rng.uniform(0.0, 0.06))
            if n in kill_at:
                proc.send_signal(signal.SIGKILL)
                proc.wait(5)
                kills += 1
                time.sleep(rng.uniform(0.05, 0.4))  # the readers go on meanwhile
                proc = start()
        assert w.wait_for(lambda m: ids_of(alerts(w)) >= {f"1-1-{n}" for n in
                                                          range(1, len(EXPOSURES) + 1)}, 30), (
            sorted(ids_of(alerts(w))), (tmp_path / "daemon.log").read_text()[-3000:])
        time.sleep(0.5)
        live = json.loads(w.on("ts/1/state")[-1])
    finally:
        director.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()
    assert kills == 3
    check_recovery(tmp_path / "journal" / "1.jsonl", alerts(w), live, len(EXPOSURES))


# -- the journal's disk full -------------------------------------------------------------


def mount_tiny_tmpfs(where: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, timeout=10)
    return done.returncode == 0


@pytest.mark.broker
def test_journal_disk_full_keeps_alerting_and_catches_up(mosquitto, watchers, pty_readers,
                                                         tmp_path: Path, caplog: Any) -> None:
    small = tmp_path / "small"
    if not mount_tiny_tmpfs(small, "64k"):
        pytest.skip("needs root and tmpfs mounts to make a full disk")
    try:
        broker = mosquitto()
        w = watchers(broker.port, ["ts/1/alert"])
        readers = make_readers(pty_readers)
        daemon = Daemon(config(tmp_path, broker.port, {s: r.path for s, r in readers.items()},
                               journal_dir=small / "journal"))
        daemon.start()
        filler = small / "filler"
        try:
            go_online(readers, daemon)
            start_board(daemon, readers)
            free = os.statvfs(small)
            # no free page left; the journal's last page takes a few more lines, and
            # North's hand (moving, face down: journaled, no ruling) fills it
            filler.write_bytes(b"\0" * (free.f_bavail * free.f_frsize))
            for i in range(40):
                readers["N"].send(codec.OBSERVE, {"seat": "N", "card": HANDS["N"][0],
                                                  "zone": "hand", "face": "down",
                                                  "level": "above" if i % 2 else "at", "t": i})
                time.sleep(0.005)
            for n, (seat, card) in enumerate(EXPOSURES[:14], 1):
                expose(readers[seat], seat, card)
                assert w.wait_for(lambda m, n=n: f"1-1-{n}" in ids_of(alerts(w)), 5)
            assert w.wait_for(lambda m: any(a["kind"] == "journal-failed" for a in alerts(w)), 5)
            assert daemon.tables["1"].counters.get("journal_errors", 0) >= 1
            assert any("journal-write-failed" in r.getMessage() for r in caplog.records)
            filler.unlink()  # room again: the journal catches up, in order
            for n, (seat, card) in enumerate(EXPOSURES[14:], 15):
                expose(readers[seat], seat, card)
                assert w.wait_for(lambda m, n=n: f"1-1-{n}" in ids_of(alerts(w)), 5)
            time.sleep(0.3)
            assert any("journal-recovered" in r.getMessage() for r in caplog.records)
            live = daemon.tables["1"].engine.snapshot()
        finally:
            daemon.stop()
        failed = [a for a in alerts(w) if a["kind"] == "journal-failed"]
        assert len(failed) == 1 and failed[0]["severity"] == "director"
        engine_alerts = [a for a in alerts(w) if a["kind"] != "journal-failed"]
        check_recovery(small / "journal" / "1.jsonl", engine_alerts, live, len(EXPOSURES))
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True, timeout=10)


@pytest.mark.broker
def test_outbox_disk_full_keeps_a_reader_offline_alert(mosquitto, watchers, pty_readers,
                                                       tmp_path: Path, caplog: Any) -> None:
    """The daemon's own alerts take the rulings' door: an outbox that cannot be written
    (its disk full) keeps a reader's offline alert in memory, and it goes out once
    there is room again."""
    small = tmp_path / "small"
    if not mount_tiny_tmpfs(small, "256k"):
        pytest.skip("needs root and tmpfs mounts to make a full disk")
    try:
        broker = mosquitto()
        w = watchers(broker.port, ["ts/1/alert"])
        readers = make_readers(pty_readers)
        daemon = Daemon(config(tmp_path, broker.port, {s: r.path for s, r in readers.items()},
                               outbox=small / "outbox.sqlite"))
        daemon.start()
        filler = small / "filler"
        try:
            go_online(readers, daemon)
            free = os.statvfs(small)
            filler.write_bytes(b"\0" * (free.f_bavail * free.f_frsize))  # no page left
            readers["N"].stop_heartbeats()  # North's reader falls silent: offline
            assert until(lambda: any("outbox-write-failed" in r.getMessage()
                                     for r in caplog.records), 10)
            table = daemon.tables["1"]
            assert table.counters["alerts"] == 0 and alerts(w) == []
            filler.unlink()  # room again: the alert kept in memory is stored and sent
            assert w.wait_for(lambda m: any(a["kind"] == "reader-offline"
                                            for a in alerts(w)), 10)
        finally:
            daemon.stop()
        (offline,) = alerts(w)
        assert (offline["kind"], offline["reader"], offline["severity"]) == (
            "reader-offline", "N", "director")
        assert offline["reason"] == "heartbeat-timeout" and table.counters["alerts"] == 1
    finally:
        subprocess.run(["umount", "-l", str(small)], capture_output=True, timeout=10)


# -- the core falling behind: links push back instead of queueing without end ---------------


class SlowSink:
    """A core that has fallen behind: ``qsize`` says how much waits for it."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.backlog = 0

    def put(self, item: Any) -> None:
        self.items.append(item)

    def qsize(self) -> int:
        return self.backlog


def test_links_stop_reading_while_the_core_is_behind(pty_readers) -> None:
    from tablesense.daemon.config import LinkSettings
    from tablesense.daemon.link import MAX_BACKLOG, ReaderLink

    r = pty_readers(reader=1)
    sink = SlowSink()
    link = ReaderLink("1", "N", lambda: r.path, sink,
                      LinkSettings(heartbeat_timeout_ms=400, backoff_initial_ms=20))
    link.start()
    try:
        assert until(lambda: link.counters["opens"] >= 1)
        time.sleep(0.05)
        r.start_heartbeats(0.05)
        hello_until_config(r)
        assert until(lambda: link.state == "online")
        sink.backlog = MAX_BACKLOG + 1  # the core is behind
        time.sleep(0.1)
        before = link.counters["frames"]
        for i in range(20):
            r.observe(HANDS["N"][i % 13], zone="hand", seat="N", t=i)
        time.sleep(1.0)  # > 2 heartbeat timeouts: silence is ours, not the reader's
        assert link.counters["frames"] <= before + 2  # not reading (a read in flight at most)
        assert link.state == "online"
        sink.backlog = 0  # caught up: everything that waited in the port comes in order
        assert until(lambda: sum(1 for m in sink.items if m.frame is not None
                                 and m.frame.mtype == codec.OBSERVE) == 20, 5)
        assert link.all_counters()["lost"] == 0 and link.counters["paused_ms"] >= 900
    finally:
        link.stop()


# -- replay equals the live daemon only if time is taken in the same order -----------------


def rulings_with_ticks(lines: list[dict[str, Any]], step: int | None) -> list[tuple[str, str]]:
    """The engine fed a journal; with ``step``, ``tick`` every step ms in between, as the
    daemon's core does (its ticks never run ahead of the next event's stamp)."""
    from tablesense.contract.events import parse_event

    eng = Engine(codes=CODES)
    out = []
    prev = None
    for o in lines:
        if step and prev is not None:
            x = prev + step
            while x <= o["t"]:
                if x > eng.now:
                    out += eng.tick(x)
                x += step
        prev = o["t"]
        try:
            out += eng.apply(parse_event(o))
        except EngineError:
            continue
    out += eng.flush()
    return [(r.id, r.kind) for r in out]


def test_ticks_between_events_do_not_change_the_rulings() -> None:
    data = Path(__file__).parent / "data" / "tick-order.jsonl"
    lines = [json.loads(x) for x in data.read_text().splitlines()]
    # Found by benchmarks/soak.py: a daemon ticking its engine between events must
    # decide in the order a replay does (incident windows and conflict confirmations
    # taken in the order they fell due).
    replayed = rulings_with_ticks(lines, None)
    for every_ms in (7, 20, 250):
        assert rulings_with_ticks(lines, every_ms) == replayed
