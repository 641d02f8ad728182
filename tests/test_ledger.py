"""The alert ledger: every alert of the session on ``<base>/<table>/alerts``, retained,
with who answered it; a second decision refused until a director re-opens it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tablesense.daemon.core import Daemon
from tablesense.daemon.ledger import AlertLedger, logins_by_line
from tablesense.sim.robots import deal
from test_daemon import config, journal


def penalty_card_journal(path: Path) -> str:
    """Board 1, 2S by North, East leads, West drops an honour: a major penalty card."""
    hands = deal(random.Random(5))
    honour = next(c for c in hands["W"] if c[1] in "AKQJ")
    lines: list[dict[str, Any]] = [
        {"type": "board", "table": "1", "board": 1, "dealer": "N", "vul": "None"},
        {"type": "dealt", "hands": hands}]
    for seat, call in (("N", "1S"), ("E", "P"), ("S", "2S"), ("W", "P"), ("N", "P"),
                       ("E", "P")):
        lines.append({"type": "call", "seat": seat, "call": call})
    lines += [{"type": "observe", "seat": "E", "card": hands["E"][0], "zone": "trick",
               "face": "up", "level": "at"},
              {"type": "observe", "seat": "W", "card": honour, "zone": "table", "face": "up",
               "level": "at"}]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"v": 1, "t": 1000 * (i + 1), **x}) + "\n"
                            for i, x in enumerate(lines)))
    return honour


def test_ledger_keeps_answers_supersessions_and_readers() -> None:
    led = AlertLedger("1", keep_closed=2)
    led.add({"id": "1-1-1", "kind": "minor-penalty-card", "severity": "penalty", "t": 1,
             "options": []})
    led.add({"id": "1-1-2", "kind": "major-penalty-card", "severity": "penalty", "t": 2,
             "options": ["pc-remains"], "supersedes": ["1-1-1"]})
    led.add({"id": "1-reader-W-3", "kind": "reader-offline", "severity": "director", "t": 3,
             "reader": "W"})
    p = led.payload()
    assert [e["id"] for e in p["open"]] == ["1-1-2", "1-reader-W-3"]
    assert p["closed"][0]["closed"] == "superseded by 1-1-2"
    assert (p["count"], p["worst"], p["severity"], p["oldest"]) == (2, "reader-offline",
                                                                     "director", 2)
    assert led.newest_offering("pc-remains") == "1-1-2" and led.daemon_alert("1-reader-W-3")
    led.close_reader("W", 9)
    assert led.summary()["count"] == 1
    led.decided("1-1-2", {"option": "pc-remains", "by": "ann", "t": 10}, (1, 8, 5), False)
    assert led.target("pc-remains", None) is None  # answered: no longer a candidate
    assert led.newest_offering("pc-remains") == "1-1-2"
    assert led.answered_ids() == {"1-1-2"}
    led.moved((1, 8, 5))  # nothing counted since: the answer stands
    assert led.answer_of("1-1-2") is not None
    led.moved((1, 8, 6))  # a card since, and the law did not close the option: open again
    assert led.answer_of("1-1-2") is None and led.payload()["open"][0]["status"] == "open"
    led.decided("1-1-2", {"option": "pc-remains", "by": "ann", "t": 12}, (1, 8, 6), True)
    led.moved((1, 8, 9))  # the law closed it: it stays answered
    assert led.answered_ids() == {"1-1-2"}
    led.resolved("1-1-2", {"by": "ann", "t": 11, "note": "fine"})
    closed = {e["id"]: e["closed"] for e in led.payload()["closed"]}
    # the oldest closed one dropped (keep_closed)
    assert closed == {"1-1-2": "resolved: fine", "1-reader-W-3": "the reader is back online"}
    assert logins_by_line([b'{"type":"call"}', b'', b'{"type":"decide","by":"bob"}']) == \
        {3: "bob"}


class Sender:
    """A director's client: commands under his login, each response awaited."""

    def __init__(self, port: int, watcher: Any, user: str) -> None:
        self.watcher, self.user, self.n = watcher, user, 0
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def send(self, cmd: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        req = f"{self.user}-{self.n}"
        self.client.publish(f"ts/1/cmd/by/{self.user}", json.dumps({**cmd, "req": req}),
                            qos=1).wait_for_publish(5)
        assert self.watcher.wait_for(lambda m: any(
            t == "ts/1/cmd/response" and json.loads(p).get("req") == req for t, p, *_ in m), 10)
        return next(x for x in map(json.loads, self.watcher.on("ts/1/cmd/response"))
                    if x.get("req") == req)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def last(w: Any, topic: str) -> dict[str, Any]:
    got = w.on(topic)
    assert got, topic
    return dict(json.loads(got[-1]))


@pytest.mark.broker
def test_one_truth_across_decisions_restarts_and_boards(mosquitto, watchers,
                                                        tmp_path: Path) -> None:
    broker = mosquitto()
    penalty_card_journal(tmp_path / "journal" / "1.jsonl")
    w = watchers(broker.port, ["ts/#"])
    daemon = Daemon(config(tmp_path, broker.port, {}))
    daemon.start()
    ann, bob = Sender(broker.port, w, "ann"), Sender(broker.port, w, "bob")
    try:
        assert daemon.publisher.wait_listening(5)
        assert w.wait_for(lambda m: any(t == "ts/1/alerts" and b"1-1-1" in p
                                        for t, p, *_ in m), 10)
        led = last(w, "ts/1/alerts")
        assert [e["id"] for e in led["open"]] == ["1-1-1"] and led["open"][0]["status"] == "open"
        assert led["open"][0]["options"] == ["require-lead-suit", "forbid-lead-suit",
                                             "pc-remains"]

        r = ann.send({"type": "decide", "alert": "1-1-1", "option": "pc-remains"})
        assert r["ok"] is True
        assert w.wait_for(lambda m: last(w, "ts/1/alerts")["open"][0]["status"] == "answered",
                          5)
        d = last(w, "ts/1/alerts")["open"][0]["decisions"]
        assert [(x["action"], x["by"], x["option"]) for x in d] == [
            ("decide", "ann", "pc-remains")]
        # the state's answered agrees with the ledger and the record
        assert w.wait_for(lambda m: "1-1-1" in last(w, "ts/1/state")["answered"], 5)
        assert last(w, "ts/1/state")["view"]["alerts"][0]["decided"] is True

        # a second, different decision: refused, naming who answered and what
        r = bob.send({"type": "decide", "alert": "1-1-1", "option": "require-lead-suit"})
        assert r["ok"] is False and r["field"] == "alert"
        assert "already answered by ann" in r["error"] and "pc-remains" in r["error"]
        assert r["answered"]["by"] == "ann" and r["answered"]["option"] == "pc-remains"
        # naming no alert: the same alert is meant, the same refusal
        r = bob.send({"type": "decide", "option": "forbid-lead-suit"})
        assert r["ok"] is False and "already answered by ann" in r["error"]
        rejected = [x for x in journal(tmp_path) if x["type"] == "rejected"]
        assert [(x["by"], x["field"]) for x in rejected] == [("bob", "alert"), ("bob", "alert")]

        # re-opened (journaled), a new decision is taken
        assert bob.send({"type": "reopen", "alert": "1-1-1", "note": "misheard"})["ok"]
        r = bob.send({"type": "decide", "alert": "1-1-1", "option": "require-lead-suit",
                      "suit": "S"})
        assert r["ok"] is True, r
        lines = journal(tmp_path)
        assert [(x["type"], x.get("by")) for x in lines[-2:]] == [("reopen", "bob"),
                                                                  ("decide", "bob")]
        # the record (and the printed report) has the same story, refused decisions aside
        from tablesense.documents.record import table_record

        boards, _ = table_record((tmp_path / "journal" / "1.jsonl").read_text().splitlines(),
                                 "1")
        [ruled] = [r for r in boards[0].rulings if r.ruling["id"] == "1-1-1"]
        assert [(d.action, d.by, d.option) for d in ruled.decisions] == [
            ("decide", "ann", "pc-remains"), ("reopen", "bob", None),
            ("decide", "bob", "require-lead-suit")]
        who = bob.send({"type": "whoami"})
        assert (who["ok"], who["by"], who["table"]) == (True, "bob", "1")
        assert journal(tmp_path)[-1]["type"] == "decide"  # whoami journals nothing
    finally:
        ann.close()
        bob.close()
        daemon.stop()

    # restarted: the ledger comes back from the journal, logins included; a new board
    # leaves the earlier board's unresolved alert open
    w2 = watchers(broker.port, ["ts/#"])
    daemon = Daemon(config(tmp_path, broker.port, {}))
    daemon.start()
    try:
        assert w2.wait_for(lambda m: any(t == "ts/1/alerts" for t, *_ in m), 10)
        e = last(w2, "ts/1/alerts")["open"][0]
        assert [(x["action"], x["by"]) for x in e["decisions"]] == [
            ("decide", "ann"), ("reopen", "bob"), ("decide", "bob")]
        assert e["status"] == "answered"
        assert daemon.command("1", {"type": "board", "board": 2, "dealer": "E"})["ok"]
        assert w2.wait_for(lambda m: last(w2, "ts/1/state").get("board") == 2, 5)
        led = last(w2, "ts/1/alerts")
        assert [x["id"] for x in led["open"]] == ["1-1-1"] and led["open"][0]["board"] == 1
        assert daemon.command("1", {"type": "resolve", "alert": "1-1-1", "note": "done"})["ok"]
        assert w2.wait_for(lambda m: last(w2, "ts/1/alerts")["open"] == [], 5)
        assert last(w2, "ts/1/alerts")["closed"][0]["closed"] == "resolved: done"
    finally:
        daemon.stop()
