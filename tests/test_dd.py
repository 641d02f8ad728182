"""Double-dummy analysis (tablesense.documents.dd), with the real DDS solver (endplay)."""

from __future__ import annotations

from typing import Any

import pytest

from tablesense.contract.events import parse_event
from tablesense.documents import dd
from tablesense.engine import Engine
from tablesense.laws import CODES

pytest.importorskip("endplay", reason="the dd extra is not installed")

# North holds every top card: in spades North-South take all 13 tricks
HANDS = {
    "N": ["SA", "SK", "SQ", "SJ", "HA", "HK", "HQ", "DA", "DK", "DQ", "CA", "CK", "CQ"],
    "E": ["ST", "S9", "S8", "HJ", "HT", "H9", "DJ", "DT", "D9", "CJ", "CT", "C9", "C8"],
    "S": ["S7", "S6", "S5", "H8", "H7", "H6", "H5", "D8", "D7", "D6", "D5", "C7", "C6"],
    "W": ["S4", "S3", "S2", "H4", "H3", "H2", "D4", "D3", "D2", "C5", "C4", "C3", "C2"],
}


def engine(*plays: tuple[str, str]) -> Engine:
    eng = Engine(table="1", codes=CODES)
    events: list[dict[str, Any]] = [
        {"type": "board", "table": "1", "board": 1, "dealer": "N", "vul": "None"},
        {"type": "dealt", "hands": HANDS}]
    for seat, call in (("N", "7S"), ("E", "P"), ("S", "P"), ("W", "P")):
        events.append({"type": "call", "seat": seat, "call": call})
    for seat, card in plays:
        events.append({"type": "observe", "seat": seat, "card": card, "zone": "trick",
                       "face": "up"})
    for i, e in enumerate(events):
        eng.apply(parse_event({"v": 1, "t": 1000 + 2000 * i, **e}))
    eng.tick(1000 + 2000 * len(events))  # the last card's dwell is over
    return eng


def test_grand_slam_from_the_opening_lead() -> None:
    r = dd.analyse(engine().snapshot())
    assert r["on_play"] == "E" and r["remaining"] == 13
    assert r["declarer_tricks"] == 13 and r["result"] == 0
    assert {c["tricks"] for c in r["cards"]} == {13}  # whatever East leads
    assert len(r["cards"]) == 13
    assert r["dd_table"]["S"]["N"] == 13 and r["dd_table"]["N"]["E"] == 0


def test_mid_trick_position() -> None:
    snap = engine(("E", "ST"), ("S", "S5")).snapshot()
    held, first, trick = dd.position(snap)
    assert first == "E" and trick == [("E", "ST"), ("S", "S5")]
    assert "ST" in held["E"] and len(held["W"]) == 13
    r = dd.analyse(snap)
    assert r["on_play"] == "W" and r["declarer_tricks"] == 13
    assert {c["card"] for c in r["cards"]} == {"S4", "S3", "S2"}  # West must follow


def test_no_position_before_the_auction_ends() -> None:
    eng = Engine(table="1", codes=CODES)
    eng.apply(parse_event({"v": 1, "t": 1, "type": "board", "table": "1", "board": 1,
                           "dealer": "N", "vul": "None"}))
    with pytest.raises(dd.DDError, match="after the auction"):
        dd.analyse(eng.snapshot())
