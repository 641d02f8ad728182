"""The scorers' board results and the vugraph's LIN play feed (daemon/feeds.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon.config import FeedsConfig
from tablesense.daemon.core import Daemon
from tablesense.daemon.feeds import TableFeeds, result_message
from tablesense.daemon.seating import parse_movement
from tablesense.documents.export import export_lines
from tablesense.laws.scoring import ns_score
from test_daemon import config

REPO = Path(__file__).resolve().parent.parent
MINOR = REPO / "tests" / "contract" / "minor-penalty-card.jsonl"
ROBOTS = REPO / "examples" / "journals" / "robot-table.jsonl"
MOVEMENT = {"section": "A", "pairs": {"3": ["Ann Able", "Bob Baker"], "8": ["Cy Cole", "Di Dunn"]},
            "rounds": [{"round": 2, "boards": [1, 2], "seating": {"1": [3, 8]}}]}


def claimed(tricks: int) -> list[str]:
    """The worked example, North claiming ``tricks`` of the ten left (two taken)."""
    lines = MINOR.read_text().splitlines()
    return [*lines[:-1], json.dumps({**json.loads(lines[-1]), "tricks": tricks})]


def test_results_score_every_finished_robot_board() -> None:
    boards = export_lines(ROBOTS.read_text().splitlines()).boards
    assert boards
    for rec in boards:
        msg = result_message(rec, {}, [], [])
        if not rec.finished:
            assert msg is None
            continue
        assert msg is not None and msg["final"] is True
        if rec.passed_out:
            assert msg["score"] == {"NS": 0, "EW": 0}
            continue
        assert rec.contract is not None and rec.declarer is not None
        expected = ns_score(int(rec.contract[0]), rec.contract[1], rec.doubled, rec.declarer,
                            rec.vul, msg["tricks"])
        assert msg["score"] == {"NS": expected, "EW": -expected}
        assert msg["tricks"] == rec.won[msg["declarer_side"]]


def test_a_claim_scores_and_an_unfinished_board_has_no_result() -> None:
    [rec] = export_lines(claimed(10)).boards
    msg = result_message(rec, {"section": "A"}, ["1-1-1"], ["1-1-1"])
    assert msg is not None
    assert (msg["contract"], msg["declarer"], msg["tricks"], msg["result"], msg["ended"]) == (
        "3N", "N", 12, "+3", "claim")
    assert msg["score"] == {"NS": 490, "EW": -490} and msg["section"] == "A"
    assert (msg["pending"], msg["final"]) == (["1-1-1"], False)
    [unfinished] = export_lines(MINOR.read_text().splitlines()).boards  # no number claimed
    assert result_message(unfinished, {}, [], []) is None


def test_the_play_feed_waits_for_its_delay() -> None:
    feeds = TableFeeds("1", FeedsConfig(lin_delay_s=30))
    from tablesense.contract.events import parse_event
    from tablesense.engine import Engine
    from tablesense.laws import CODES

    engine = Engine(table="1", codes=CODES)
    versions = []
    for n, line in enumerate(MINOR.read_text().splitlines()):
        event = parse_event(json.loads(line))
        engine.apply(event)
        feeds.after(event, engine.board)
        feeds.play(float(n))  # the n-th event at second n
        versions.append(feeds._lin)
    assert feeds.due(29.0) is None  # nothing 30 s old yet
    first = feeds.due(30.0)
    assert first is not None and first.startswith("qx|o1|")
    last = feeds.due(10_000.0)  # the newest whose delay is over; older ones skipped
    assert last == versions[-1] and "pc|C5|" in last and feeds.due(10_001.0) is None


def test_movement_errors_name_the_key() -> None:
    from tablesense.daemon.config import ConfigError

    with pytest.raises(ConfigError, match=r"m.toml: rounds\[0\].seating.1: pair 9 is not"):
        parse_movement({**MOVEMENT, "rounds": [{"round": 1, "boards": [1],
                                                "seating": {"1": [3, 9]}}]}, "m.toml")
    with pytest.raises(ConfigError, match=r"m.toml: tables.1.players.Q: not a seat"):
        parse_movement({"tables": {"1": {"players": {"Q": "x"}}}}, "m.toml")


def _last(w: Any, topic: str) -> Any:
    got = w.on(topic)
    return got[-1] if got else None


@pytest.mark.broker
def test_the_daemon_publishes_the_result_and_the_play(mosquitto, watchers,
                                                      tmp_path: Path) -> None:
    broker = mosquitto()
    (tmp_path / "journal").mkdir()
    (tmp_path / "journal" / "1.jsonl").write_text("\n".join(claimed(10)) + "\n")
    (tmp_path / "movement.toml").write_text(
        'section = "A"\n[pairs]\n3 = ["Ann Able", "Bob Baker"]\n8 = ["Cy Cole", "Di Dunn"]\n'
        '[[rounds]]\nround = 2\nboards = [1, 2]\nseating = { 1 = [3, 8] }\n')
    w = watchers(broker.port, ["ts/1/result", "ts/1/lin"])
    daemon = Daemon(config(tmp_path, broker.port, {}, feeds={"movement": "movement.toml"}))
    daemon.start()
    try:
        assert w.wait_for(lambda m: any(t == "ts/1/result" for t, *_ in m), 10)
        msg = json.loads(_last(w, "ts/1/result"))
        assert (msg["board"], msg["tricks"], msg["score"], msg["final"]) == (
            1, 12, {"NS": 490, "EW": -490}, False)
        assert (msg["section"], msg["round"], msg["ns_pair"], msg["ew_pair"]) == ("A", 2, 3, 8)
        assert msg["players"] == {"N": "Ann Able", "E": "Cy Cole", "S": "Bob Baker",
                                  "W": "Di Dunn"}
        assert msg["pending"] == ["1-1-1"]
        assert w.wait_for(lambda m: any(t == "ts/1/lin" for t, *_ in m), 10)
        feed = json.loads(_last(w, "ts/1/lin"))
        assert (feed["v"], feed["table"], feed["board"]) == (1, "1", 1)
        lin = feed["lin"]
        assert lin.startswith("qx|o1|pn|Bob Baker,Di Dunn,Ann Able,Cy Cole|") and "mc|12|" in lin
        # the ruling resolved: the same result, now final
        assert daemon.command("1", {"type": "resolve", "alert": "1-1-1"})["ok"]
        assert w.wait_for(lambda m: json.loads(_last(w, "ts/1/result"))["final"] is True, 5)
        assert json.loads(_last(w, "ts/1/result"))["pending"] == []
    finally:
        daemon.stop()
