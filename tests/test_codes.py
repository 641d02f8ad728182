"""The law code registry, the old codes' behaviour beyond the golden scenarios,
``tablesense codes`` / ``explain``, and the cross-code table's freshness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tablesense.cli import main
from tablesense.contract.events import parse_event
from tablesense.engine import Engine
from tablesense.engine.errors import InvalidEvent
from tablesense.laws import CODES, find_code
from tablesense.laws.oldstate import OldState

ROOT = Path(__file__).resolve().parent.parent
OLD = ("portland-1904", "american-1907", "auction-1929", "auction-1913")


def test_registry_has_the_five_codes_with_their_classvars() -> None:
    assert set(CODES) == {"duplicate-2017", *OLD}
    for cid in OLD:
        code = find_code(cid)
        assert code.id == cid and code.title and code.year and code.source
        assert code.rules, cid
    assert find_code("portland-1904").whist and find_code("american-1907").whist
    assert not find_code("auction-1929").whist and not find_code("auction-1913").whist


def test_hierarchy_mirrors_the_laws() -> None:
    names = {cid: [k.__name__ for k in type(find_code(cid)).__mro__] for cid in OLD}
    assert "Portland1904" in names["american-1907"]
    assert "Portland1904" in names["auction-1929"]
    assert "American1907" in names["auction-1913"]


def test_every_old_code_has_scenarios() -> None:
    for cid in OLD:
        assert len(list((ROOT / "tests" / "scenarios" / cid).glob("*.rulings.jsonl"))) >= 15


def _engine(code: str, lines: list[dict[str, object]]) -> Engine:
    eng = Engine(codes=CODES)
    for i, ev in enumerate(lines):
        eng.apply(parse_event({"v": 1, "t": 1000 + 1500 * i, **ev}))
    return eng


def test_new_deal_claim_lapses_once_claimant_looked() -> None:
    eng = _engine("portland-1904", [
        {"type": "board", "table": "1", "board": 1, "dealer": "N", "code": "portland-1904"},
        {"type": "setup", "step": "deal"},
        {"type": "observe", "seat": "N", "card": "HA", "zone": "table", "face": "down"},
        {"type": "observe", "seat": "N", "card": "HA", "zone": "table", "face": "up"},
        {"type": "observe", "seat": "E", "card": "SK", "zone": "hand", "face": "down"},
        {"type": "observe", "seat": "W", "card": "SA", "zone": "hand", "face": "down"},
    ])
    with pytest.raises(InvalidEvent):
        eng.apply(parse_event({"v": 1, "t": 99000, "type": "decide",
                               "option": "demand-new-deal", "seat": "E"}))


def test_a_fresh_round_replaces_the_old_codes_state() -> None:
    """Portland L27-L35: a card seen in the cut is a redeal; when the new deal begins the
    code replaces its state, and what it then records goes into the new one."""
    eng = _engine("portland-1904", [
        {"type": "board", "table": "1", "board": 1, "dealer": "N", "code": "portland-1904"},
        {"type": "setup", "step": "cut"},
        {"type": "observe", "seat": "N", "card": "C3", "zone": "table", "face": "up"},
        {"type": "setup", "step": "deal"},
    ])
    aborted = eng.law.state
    assert isinstance(aborted, OldState)
    assert aborted.redeal_ruled and aborted.steps_ruled == {"cut"}
    eng.apply(parse_event({"v": 1, "t": 20000, "type": "observe", "seat": "E", "card": "SK",
                           "zone": "hand", "face": "down"}))
    fresh = eng.law.state
    assert isinstance(fresh, OldState) and fresh is not aborted
    assert not fresh.redeal_ruled and not fresh.steps_ruled
    assert fresh.seen_down == {"SK"} and "SK" not in aborted.seen_down


def test_misnaming_is_invalid_outside_portland() -> None:
    base: list[dict[str, object]] = [
        {"type": "board", "table": "1", "board": 1, "dealer": "N", "code": "american-1907"},
        {"type": "dealt", "hands": {
            "N": ["ST", "S2", "HA", "HQ", "H6", "H4", "H3", "DA", "D5", "D2", "C7", "C6", "C3"],
            "E": ["SK", "SJ", "S6", "H7", "DK", "DJ", "D6", "CK", "CT", "C9", "C8", "C5", "C4"],
            "S": ["S9", "S8", "S7", "S5", "S3", "HJ", "HT", "H2", "DQ", "DT", "CA", "CQ", "C2"],
            "W": ["SA", "SQ", "S4", "HK", "H9", "H8", "H5", "D9", "D8", "D7", "D4", "D3", "CJ"]}},
        {"type": "declare", "seat": "N", "strain": "N"},
        {"type": "call", "seat": "E", "call": "P"},
        {"type": "observe", "seat": "E", "card": "DK", "zone": "table", "face": "up"},
        {"type": "observe", "seat": "E", "card": "CK", "zone": "trick", "face": "up"},
    ]
    eng = _engine("american-1907", base)
    with pytest.raises(InvalidEvent):
        eng.apply(parse_event({"v": 1, "t": 99000, "type": "decide", "option": "call-card",
                               "card": "SA"}))


def test_codes_and_explain_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["codes"]) == 0
    out = capsys.readouterr().out
    for cid in (*OLD, "duplicate-2017"):
        assert cid in out
    assert main(["explain", "auction-1929"]) == 0
    out = capsys.readouterr().out
    assert "Manning Foster" in out and "shown to an adversary only" in out
    assert main(["explain", "nope"]) == 2


def test_compare_table_is_fresh() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare_codes.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
