"""A club table plays a live session, and its journal says what the table ruled.

``tablesense run`` (a process of its own, with a config naming the event's
hand records) serves a table of four RFID readers, the real firmware in the
MicroPython VM behind ptys, through a real mosquitto with the example ACL:

- board 1 is dealt from the hand record (examples-style PBN written here), in
  which two cards of North and West are transposed: the table plays the board
  as it was really dealt, and the two cards reach the trick zones at seats the
  record does not give them. The board reaches its end with exactly two
  ``fouled-board`` rulings, no penalty;
- board 2 is not in the record: its dealer and vulnerability follow Law 2, a
  ``dealt`` on the plain command topic is refused, the director's (on his
  login's topic, which the ACL lets only him write) is journaled with ``by``,
  and the board is passed out.

Then ``tablesense replay``, ``record`` and ``export`` read the daemon's journal
and give the alerts the broker carried, byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from conftest import Broker, find_mosquitto, free_port
from tablesense.contract.cards import SEATS
from tablesense.sim.convert import TablePlan, plan_from_journal
from tablesense.sim.firmware import find_micropython
from tablesense.sim.robots import Board
from tablesense.sim.table import SimTable

pytestmark = [pytest.mark.hil, pytest.mark.broker]

REPO = Path(__file__).resolve().parent.parent
USERS = {"daemon": "pw-daemon", "director": "pw-director", "viewer": "pw-viewer"}
ALERTS = ("penalty", "director")


def _have_vm() -> bool:
    try:
        return bool(find_micropython())
    except RuntimeError:
        return False


if not _have_vm() or find_mosquitto() is None:  # pragma: no cover
    pytest.skip("needs the MicroPython unix VM and mosquitto", allow_module_level=True)


def pbn_hand(cards: list[str]) -> str:
    order = "AKQJT98765432"
    return ".".join("".join(sorted((c[1] for c in cards if c[0] == s), key=order.index))
                    for s in "SHDC")


def robot_board(seed: int) -> list[dict[str, Any]]:
    """Board 1 as a robot table plays it to its last trick (RFID readers see it all)."""
    for s in range(seed, seed + 50):
        evs = list(Board("1", 1, random.Random(s)).events())
        if sum(e["type"] == "observe" and e["zone"] == "trick" for e in evs) == 52:
            return evs
    raise AssertionError("no robot board with a play")


class Director:
    """The director's MQTT client (v5, his own login): commands and what comes back."""

    def __init__(self, port: int, user: str = "director") -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.acks: dict[int, Any] = {}
        connected = threading.Event()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.c.username_pw_set(user, USERS[user])
        self.c.on_connect = lambda c, u, f, rc, p: (c.subscribe("tablesense/#", qos=1),
                                                   connected.set())
        self.c.on_message = self._on_message
        self.c.on_publish = self._on_publish
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert connected.wait(30)

    def _on_message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def _on_publish(self, c: Any, u: Any, mid: int, rc: Any, p: Any) -> None:
        with self.cond:
            self.acks[mid] = rc
            self.cond.notify_all()

    def wait(self, pred: Any, timeout: float = 30) -> bool:
        with self.cond:
            return bool(self.cond.wait_for(lambda: pred(self.messages), timeout))

    def on(self, topic: str) -> list[bytes]:
        with self.cond:
            return [p for t, p in self.messages if t == topic]

    def send(self, topic: str, cmd: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        """Publish a command and wait for its response (matched by ``req``)."""
        req = f"r{len(self.messages)}-{random.random()}"
        with self.cond:
            seen = len(self.messages)
        self.c.publish(topic, json.dumps({**cmd, "req": req}).encode(), qos=1)

        def answered(m: list[tuple[str, bytes]]) -> bool:
            return any(t.endswith("/cmd/response") and json.loads(p).get("req") == req
                       for t, p in m[seen:])
        assert self.wait(answered, timeout), f"no response to {cmd}"
        return next(json.loads(p) for t, p in self.messages[seen:]
                    if t.endswith("/cmd/response") and json.loads(p).get("req") == req)

    def publish_rc(self, topic: str, payload: bytes) -> Any:
        info = self.c.publish(topic, payload, qos=1)
        with self.cond:
            assert self.cond.wait_for(lambda: info.mid in self.acks, 30)
            return self.acks[info.mid]

    def state(self) -> dict[str, Any]:
        states = self.on("tablesense/1/state")
        return json.loads(states[-1]) if states else {}

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


class Session:
    """What the live session left: the journal, the alerts, the expected rulings."""

    def __init__(self, workdir: Path, alerts: list[bytes], fouled: list[str],
                 record: dict[str, list[str]], table: dict[str, list[str]], lag: str) -> None:
        self.workdir = workdir
        self.lag = lag
        self.journal = workdir / "journal" / "1.jsonl"
        self.alerts = alerts
        self.fouled = fouled
        self.record = record
        self.table = table

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.journal.read_text().splitlines()]


def reader_lag(plan: TablePlan, journal: Path) -> str:
    """How far behind its scenario each reader VM reported (its own clock ``rt`` against
    the scenario's time): a machine too busy for the VMs plays another board than the
    plan's (cards reach the trick zones out of turn), which a failure should say."""
    if not journal.exists():
        return "no journal"
    seen = [o for o in map(json.loads, journal.read_text().splitlines())
            if o["type"] == "observe" and "rt" in o]
    out = []
    for seat in SEATS:
        lags = sorted(o["rt"] - t for o, (t, _) in zip(
            [o for o in seen if o["seat"] == seat], plan.expected_timeline(seat), strict=False))
        if lags:
            out.append(f"{seat} median {lags[len(lags) // 2]} ms, max {lags[-1]} ms")
    return (f"reader VMs behind their scenario: {'; '.join(out)} (load "
            f"{os.getloadavg()[0]:.1f}); a card follows another 1500 ms later in the plan")


def tablesense(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesense.cli", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    work = tmp_path_factory.mktemp("live")
    # the board as really dealt, and a record with a card of West's and one of North's
    # transposed: both are played, each at a seat the record does not give it
    evs = robot_board(3)
    hands: dict[str, list[str]] = next(e for e in evs if e["type"] == "dealt")["hands"]
    a, b = hands["W"][4], hands["N"][6]
    record = {s: [b if c == a else a if c == b else c for c in h] for s, h in hands.items()}
    plays = [e["card"] for e in evs if e["type"] == "observe" and e["zone"] == "trick"]
    fouled = sorted((a, b), key=plays.index)
    (work / "hands.pbn").write_text(
        '% PBN 2.1\n[Event "live"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
        f'[Deal "N:{" ".join(pbn_hand(record[s]) for s in SEATS)}"]\n\n')
    # RFID readers at every seat, players as quick as the robots (1.5 s a card): a
    # fouled card is counted once its conflict window is over, and a reader VM on a
    # busy machine reports a move up to a second late, so no card may follow the one
    # before it more closely than the readers' timing allows
    plan: TablePlan = plan_from_journal(evs, kinds=dict.fromkeys(SEATS, "rfid"))
    before = plan.observations_before()

    acl = (REPO / "examples" / "mosquitto" / "acl").read_text()
    (work / "broker").mkdir()
    broker = Broker(dir=work / "broker", port=free_port(), users=USERS, acl=acl)
    broker.start()
    daemon: subprocess.Popen[bytes] | None = None
    director: Director | None = None
    # the readers' ports: links the daemon opens (and reopens, with its backoff) once the
    # readers exist; they are made after the daemon is up, so that the readers' scenario
    # clock starts with the daemon listening
    ports = {s: work / f"tty-{s}" for s in SEATS}
    readers = "\n".join(f'readers.{s} = {{ port = "{p}" }}' for s, p in ports.items())
    (work / "club.toml").write_text(f"""version = 1
[event]
hands = "hands.pbn"
[broker]
port = {broker.port}
username = "daemon"
password = "{USERS['daemon']}"
client_id = "daemon-live"
[journal]
dir = "journal"
[readers]
heartbeat_timeout_ms = 3500
backoff_initial_ms = 20
backoff_max_ms = 100
resend_timeout_ms = 150
[tables.1]
code = "duplicate-2017"
{readers}
""")
    check = tablesense("run", "--check", "--config", str(work / "club.toml"))
    assert check.returncode == 0 and "hand records for 1 boards" in check.stdout, check
    try:
        daemon = subprocess.Popen(
            [sys.executable, "-m", "tablesense.cli", "run", "--config", str(work / "club.toml")],
            stdout=subprocess.DEVNULL, stderr=(work / "daemon.log").open("wb"),
            env=os.environ.copy())
        director = Director(broker.port)
        # the daemon answers a command once it listens: ask until it does
        for _ in range(60):
            try:
                director.send("tablesense/~probe/cmd", {"type": "whoami"}, timeout=1)
                break
            except AssertionError:
                assert daemon.poll() is None, (work / "daemon.log").read_text()
        with SimTable(plan, work / "sim", scan_ms=40) as table:
            for s, p in table.ports.items():
                ports[s].symlink_to(p)
            journal = work / "journal" / "1.jsonl"

            def observed() -> int:
                if not journal.exists():
                    return 0
                return journal.read_text().count('"type":"observe"')

            for _, cmd in table.commands(lambda i: observed() >= before[i], timeout=30):
                if cmd["type"] == "dealt":
                    continue  # the daemon deals board 1 from the record
                cmd = {k: v for k, v in cmd.items() if k not in ("dealer", "vul")}
                resp = director.send("tablesense/1/cmd", cmd)
                assert resp["ok"], (cmd, resp)
                if cmd["type"] == "board":
                    assert resp["dealt"] == "record"
            assert director.wait(lambda m: json.loads(
                [p for t, p in m if t == "tablesense/1/state"][-1]).get("phase") == "end"
                if any(t == "tablesense/1/state" for t, _ in m) else False,
                plan.duration_ms / 1000 + 60), (
                reader_lag(plan, journal), director.state(), table.logs())

            # board 2: no record
            resp = director.send("tablesense/1/cmd", {"type": "board", "board": 2})
            assert resp["ok"] and "dealt" not in resp
            deal2 = {s: hands[s] for s in SEATS}
            refused = director.send("tablesense/1/cmd", {"type": "dealt", "hands": deal2})
            assert not refused["ok"] and "director's login only" in refused["error"]
            viewer = Director(broker.port, "viewer")
            rc = viewer.publish_rc("tablesense/1/cmd/by/viewer",
                                   json.dumps({"type": "dealt", "hands": deal2}).encode())
            viewer.close()
            assert rc.is_failure  # the ACL: a viewer writes no command
            resp = director.send("tablesense/1/cmd/by/director",
                                 {"type": "dealt", "hands": deal2})
            assert resp["ok"], resp
            for seat in ("E", "S", "W", "N"):  # Law 2: East deals board 2; passed out
                assert director.send("tablesense/1/cmd", {"type": "call", "seat": seat,
                                                          "call": "P"})["ok"]
            assert director.wait(lambda m: json.loads(
                [p for t, p in m if t == "tablesense/1/state"][-1]).get("board") == 2
                and json.loads([p for t, p in m if t == "tablesense/1/state"][-1])
                .get("phase") == "end", 30), director.state()
            assert director.wait(lambda m: sum(t == "tablesense/1/alert" for t, _ in m)
                                 >= len(fouled), 30)
            assert all(table.alive().values()), table.logs()
        assert daemon is not None and director is not None
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(30) == 0, (work / "daemon.log").read_text()[-3000:]
        # the rulings' alerts (the daemon's own, a reader offline while the readers were
        # being started, are no rulings: not journaled, not replayed)
        alerts = [p for p in director.on("tablesense/1/alert")
                  if re.fullmatch(r"1-\d+-\d+", json.loads(p)["id"])]
        yield Session(work, alerts, fouled, record, hands, reader_lag(plan, journal))
    finally:
        if director is not None:
            director.close()
        if daemon is not None and daemon.poll() is None:
            daemon.kill()
            daemon.wait(10)
        broker.stop()


def test_a_whole_board_is_dealt_from_the_record_and_ends_with_the_fouled_rulings(
        session: Session) -> None:
    alerts = [json.loads(p) for p in session.alerts]
    assert [(a["board"], a["kind"], a["severity"], a["cards"]) for a in alerts] == [
        (1, "fouled-board", "director", [c]) for c in session.fouled], session.lag
    assert all("offender" not in a for a in alerts)  # never a penalty
    lines = session.lines()
    boards = [x for x in lines if x["type"] == "board"]
    assert [(x["board"], x["dealer"], x["vul"], x["code"]) for x in boards] == [
        (1, "N", "None", "duplicate-2017"), (2, "E", "NS", "duplicate-2017")]
    dealts = [x for x in lines if x["type"] == "dealt"]
    def same(given: dict[str, list[str]], want: dict[str, list[str]]) -> bool:
        return {s: sorted(h) for s, h in given.items()} == {s: sorted(h) for s, h in want.items()}

    assert same(dealts[0]["hands"], session.record) and dealts[0]["record"] == "hands.pbn:2"
    assert "by" not in dealts[0]
    assert dealts[1]["by"] == "director" and same(dealts[1]["hands"], session.table)
    rejected = [x for x in lines if x["type"] == "rejected"]
    assert [(x["input"]["type"], x["field"]) for x in rejected] == [("dealt", "type")]
    # every card of board 1 was played, the four readers' observations all journaled
    b1 = lines[:lines.index(boards[1])]
    assert sum(x["type"] == "observe" and x["zone"] == "trick" for x in b1) == 52


def test_replay_record_and_export_give_the_live_rulings_byte_for_byte(
        session: Session) -> None:
    journal = str(session.journal)
    replayed = tablesense("replay", "--strict", journal)
    assert replayed.returncode == 0 and replayed.stderr == "", replayed.stderr
    alerted = [x for x in replayed.stdout.splitlines()
               if json.loads(x)["severity"] in ALERTS]
    assert [x.encode() for x in alerted] == session.alerts

    record = tablesense("record", journal, "--format", "json")
    assert record.returncode == 0, record.stderr
    doc = json.loads(record.stdout)
    boards = doc["boards"]
    ruled = [{k: v for k, v in r.items() if k != "decisions"}
             for b in boards for r in b["rulings"]]
    compact = [json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode()
               for r in ruled if r["severity"] in ALERTS]
    assert compact == session.alerts

    export = tablesense("export", journal, "--format", "pbn")
    assert export.returncode == 0, export.stderr
    for payload in session.alerts:
        a = json.loads(payload)
        assert f"{{{a['id']} {a['kind']} ({a['citation']}): {a['text']}}}" in export.stdout
    # the record's deal, as the hand record gave it
    assert '[Deal "N:' in export.stdout and '[Board "1"]' in export.stdout
