"""The deal reaches the table: a board's code, dealer, vulnerability and deal as the
daemon journals them (daemon/dealing.py), and the configuration that names them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablesense.contract.handrecords import load_hand_records
from tablesense.daemon.config import ConfigError, parse_config
from tablesense.daemon.journal_writer import JournalWriter
from tablesense.daemon.outbox import Outbox
from tablesense.daemon.tables import TableRuntime
from tablesense.daemon.topics import Topics
from tablesense.documents.replay import replay_lines

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HANDS = EXAMPLES / "hands.pbn"


def runtime(tmp_path: Path, code: str | None = "duplicate-2017",
            hands: bool = True) -> TableRuntime:
    box = Outbox(tmp_path / "outbox.sqlite")
    return TableRuntime("1", code, JournalWriter(tmp_path / "1.jsonl", "never"), box,
                        Topics("ts"), hands=load_hand_records(HANDS) if hands else None)


def send(rt: TableRuntime, by: str | None = None, **cmd: Any) -> dict[str, Any]:
    return rt.command(json.dumps(cmd).encode(), by=by)


def journal(rt: TableRuntime) -> list[dict[str, Any]]:
    rt.journal.flush()
    return [json.loads(x) for x in rt.journal.path.read_text().splitlines()]


def test_a_board_with_a_hand_record_is_dealt_from_it(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    resp = send(rt, type="board", board=2)
    assert resp["ok"] and resp["dealt"] == "record", resp
    board, dealt = journal(rt)
    assert board == {"v": 1, "t": board["t"], "type": "board", "table": "1", "board": 2,
                     "dealer": "E", "vul": "NS", "code": "duplicate-2017"}
    rec = load_hand_records(HANDS).boards[2]
    assert dealt["type"] == "dealt" and dealt["dealer"] == "E"
    assert dealt["hands"] == {s: list(h) for s, h in rec.hands.items()}
    assert dealt["record"] == f"hands.pbn:{rec.line}"
    snap = rt.engine.snapshot()
    assert (snap["phase"], snap["dealer"], snap["vul"]) == ("auction", "E", "NS")
    # board 4's game names neither dealer nor vulnerability: Law 2's
    assert send(rt, type="board", board=4)["ok"]
    assert (rt.engine.snapshot()["dealer"], rt.engine.snapshot()["vul"]) == ("W", "All")


def test_a_board_command_may_not_contradict_the_record(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    resp = send(rt, type="board", board=2, dealer="N")
    assert not resp["ok"] and resp["field"] == "dealer"
    assert "hand record (hands.pbn, line" in resp["error"] and "gives dealer E" in resp["error"]
    resp = send(rt, type="board", board=2, vul="None")
    assert not resp["ok"] and resp["field"] == "vul"
    assert [x["type"] for x in journal(rt)] == ["rejected", "rejected"]
    assert rt.engine.board is None


def test_without_a_record_dealer_and_vulnerability_follow_law_2(tmp_path: Path) -> None:
    rt = runtime(tmp_path, hands=False)
    assert send(rt, type="board", board=7)["ok"]
    (board,) = journal(rt)
    assert (board["dealer"], board["vul"], board["code"]) == ("S", "All", "duplicate-2017")
    # what the command says stands where there is no record
    assert send(rt, type="board", board=8, dealer="N", vul="EW")["ok"]
    assert (rt.engine.board.dealer, rt.engine.board.vul) == ("N", "EW")  # type: ignore[union-attr]


def test_a_board_past_the_record_waits_for_a_directors_dealt(tmp_path: Path) -> None:
    rt = runtime(tmp_path)
    assert send(rt, type="board", board=9)["ok"]
    assert rt.engine.snapshot()["phase"] == "setup"
    # the plain topic carries no login: refused, and journaled as refused
    resp = send(rt, type="dealt")
    assert not resp["ok"] and resp["field"] == "type"
    assert "director's login only" in resp["error"] and "ts/1/cmd/by/<login>" in resp["error"]
    hands = {s: list(h) for s, h in load_hand_records(HANDS).boards[1].hands.items()}
    resp = send(rt, by="director", type="dealt", hands=hands)
    assert resp["ok"], resp
    lines = journal(rt)
    assert lines[-1]["type"] == "dealt" and lines[-1]["by"] == "director"
    assert lines[-2] == {**lines[-2], "type": "rejected", "field": "type"}
    assert rt.engine.snapshot()["phase"] == "auction"
    # a board that has its record is not dealt again by hand
    assert send(rt, type="board", board=3)["ok"]
    resp = send(rt, by="director", type="dealt", hands=hands)
    assert not resp["ok"] and "dealt from its hand record (hands.pbn)" in resp["error"]
    # dealt again at the table (a redeal): the record's cards are gone, the director deals
    assert send(rt, type="setup", step="shuffle")["ok"]
    assert send(rt, by="director", type="dealt", hands=hands)["ok"]
    assert rt.engine.snapshot()["phase"] == "auction"


def test_the_code_played_is_the_one_journaled(tmp_path: Path) -> None:
    rt = runtime(tmp_path, code="auction-1929", hands=False)
    resp = send(rt, type="board", board=1, code="duplicate-2017")
    assert not resp["ok"] and resp["field"] == "code"
    assert "table 1 plays auction-1929" in resp["error"]
    resp = send(rt, type="board", board=1, code="bridge-1850")
    assert not resp["ok"] and resp["error"].startswith("unknown law code 'bridge-1850' (known:")
    assert send(rt, type="board", board=1, dealer="S")["ok"]
    board = journal(rt)[-1]
    assert board["code"] == "auction-1929"
    # an auction-bridge rubber has no numbered boards: no Law 2 vulnerability invented
    assert "vul" not in board
    # what replay makes of the journal is what the table was playing
    rt.journal.flush()
    out = replay_lines(rt.journal.path.read_text().splitlines())
    assert not [x for x in out if isinstance(x, str)]
    assert rt.engine.law.id == "auction-1929"


def _config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {"version": 1, "tables": {"1": {"code": "duplicate-2017", **extra}}}


def test_the_config_names_the_hand_records_and_refuses_an_unknown_code(tmp_path: Path) -> None:
    (tmp_path / "own.pbn").write_text(HANDS.read_text().replace('[Board "3"]', '[Board "13"]'))
    data = {**_config(tmp_path, hands="own.pbn"), "event": {"hands": str(HANDS)}}
    data["tables"]["2"] = {}
    cfg = parse_config(data, source="t.toml", base_dir=tmp_path)
    assert sorted(cfg.hands_of("1").boards) == [1, 2, 4, 13]  # type: ignore[union-attr]
    assert sorted(cfg.hands_of("2").boards) == [1, 2, 3, 4]  # type: ignore[union-attr]
    with pytest.raises(ConfigError) as err:
        parse_config(_config(tmp_path, code="duplicate-1987"), source="t.toml")
    assert str(err.value).startswith("t.toml: tables.1.code: unknown law code 'duplicate-1987'")
    (tmp_path / "bad.pbn").write_text('[Board "1"]\n[Deal "N:AKQ"]\n')
    with pytest.raises(ConfigError) as err:
        parse_config({"version": 1, "event": {"hands": "bad.pbn"}}, source="t.toml",
                     base_dir=tmp_path)
    assert str(err.value).startswith("t.toml: event.hands: ")
    assert "bad.pbn:2: Deal: expected four hands" in str(err.value)


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablesense.cli", "run", "--check", *args],
                          capture_output=True, text=True, timeout=60)


def test_run_check_reads_the_example_and_rejects_an_unknown_code(tmp_path: Path) -> None:
    club = EXAMPLES / "tablesense-club.toml"
    done = run_check("--config", str(club))
    assert done.returncode == 0, done.stderr
    assert "hand records for 4 boards" in done.stdout
    bad = tmp_path / "club.toml"
    text = club.read_text().replace('"hands.pbn"', json.dumps(str(HANDS))).replace(
        '"mosquitto/', json.dumps(str(EXAMPLES / "mosquitto"))[:-1] + "/")
    bad.write_text(text.replace('code = "duplicate-2017"', 'code = "whist-1850"', 1))
    done = run_check("--config", str(bad))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("tablesense run: club.toml: tables.")
    assert "unknown law code 'whist-1850'" in done.stderr
    (tmp_path / "x.pbn").write_text("[Board \"1\"]\n")
    done = run_check("--config", str(club), "--hands", str(tmp_path / "x.pbn"))
    assert done.returncode == 2 and "x.pbn: no game with a Deal tag" in done.stderr
