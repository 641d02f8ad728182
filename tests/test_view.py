"""The state payload's table view (daemon/view.py), from a real engine's snapshot."""

from __future__ import annotations

import random
from typing import Any

from tablesense.contract.events import parse_event
from tablesense.daemon.view import card_key, table_state
from tablesense.engine import Engine
from tablesense.laws import CODES
from tablesense.sim.robots import deal


def run(events: list[dict[str, Any]]) -> Engine:
    eng = Engine(table="1", codes=CODES)
    for i, e in enumerate(events):
        eng.apply(parse_event({"v": 1, "t": 1000 + i * 2000, **e}))
    return eng


def bid_2s(hands: dict[str, list[str]]) -> list[dict[str, Any]]:
    ev: list[dict[str, Any]] = [{"type": "board", "table": "1", "board": 3, "dealer": "N",
                                 "vul": "None"},
                                {"type": "dealt", "hands": hands}]
    for seat, call in (("N", "1S"), ("E", "P"), ("S", "2S"), ("W", "P"), ("N", "P"),
                       ("E", "P")):
        ev.append({"type": "call", "seat": seat, "call": call})
    return ev


def test_hands_in_suit_order_trick_and_penalty_card() -> None:
    hands = deal(random.Random(7))
    lead = hands["E"][0]
    honour = next(c for c in hands["W"] if c[1] in "AKQJ")
    eng = run([*bid_2s(hands),
               {"type": "observe", "seat": "E", "card": lead, "zone": "trick", "face": "up"},
               {"type": "observe", "seat": "W", "card": honour, "zone": "table", "face": "up"},
               {"type": "observe", "seat": "S", "card": hands["S"][0], "zone": "table",
                "face": "up"}])
    eng.tick(10**9)
    state = table_state(eng.snapshot())
    snap = eng.snapshot()
    # every key of the snapshot kept, but the board's whole list of rulings
    assert {k: state[k] for k in snap if k != "rulings"} == {
        k: v for k, v in snap.items() if k != "rulings"}
    assert "rulings" not in state
    v = state["view"]
    assert v["hands"]["N"] == sorted(hands["N"], key=card_key)
    assert v["hands"]["N"][0][0] == "S" or not any(c[0] == "S" for c in hands["N"])
    assert lead not in v["hands"]["E"] and len(v["hands"]["E"]) == 12  # played
    assert v["trick"] == {"leader": "E", "cards": [["E", lead]], "number": 1, "pending": []}
    assert v["auction"]["contract"] == "2S" and v["auction"]["declarer"] == "N"
    assert len(v["auction"]["calls"]) == 6
    lying = {x["card"]: x for x in v["lying"]}
    assert lying[honour]["status"] == "major-penalty-card"
    assert lying[honour]["seat"] == "W" and "first legal opportunity" in lying[honour]["obliges"]
    assert lying[hands["S"][0]]["status"] == "dummy"  # S is dummy: the display
    assert [a["kind"] for a in v["alerts"]] == ["major-penalty-card"]
    assert v["alerts"][0]["open"] is True


def test_a_card_in_the_trick_zone_shows_before_it_counts() -> None:
    hands = deal(random.Random(6))
    lead = hands["E"][0]
    eng = Engine(table="1", codes=CODES)
    for i, e in enumerate(bid_2s(hands)):
        eng.apply(parse_event({"v": 1, "t": 1000 + i * 2000, **e}))
    eng.apply(parse_event({"v": 1, "t": 20_000, "type": "observe", "seat": "E", "card": lead,
                           "zone": "trick", "face": "up"}))
    trick = table_state(eng.snapshot())["view"]["trick"]  # its dwell is not over yet
    assert trick["cards"] == [] and trick["pending"] == [["E", lead]]
    eng.tick(30_000)
    trick = table_state(eng.snapshot())["view"]["trick"]
    assert trick["cards"] == [["E", lead]] and trick["pending"] == []


def test_an_rfid_card_in_the_trick_zone_shows_before_it_counts_and_face_down_not() -> None:
    """An RFID reader senses no face: its card on the trick antenna shows at once too
    (issue 28: otherwise it waited for the engine's dwell, 400 ms at p50 on the page);
    a card a camera sees face down there is no play and does not."""
    hands = deal(random.Random(6))
    lead, other = hands["E"][0], hands["E"][1]
    eng = Engine(table="1", codes=CODES)
    for i, e in enumerate(bid_2s(hands)):
        eng.apply(parse_event({"v": 1, "t": 1000 + i * 2000, **e}))
    for t, card, face in ((20_000, lead, "unknown"), (20_010, other, "down")):
        eng.apply(parse_event({"v": 1, "t": t, "type": "observe", "seat": "E", "card": card,
                               "zone": "trick", "face": face}))
    trick = table_state(eng.snapshot())["view"]["trick"]
    assert trick["cards"] == [] and trick["pending"] == [["E", lead]]


def test_a_card_face_up_before_its_ruling_shows_as_exposed() -> None:
    hands = deal(random.Random(8))
    card = hands["W"][3]
    eng = run([*bid_2s(hands),
               {"type": "observe", "seat": "W", "card": card, "zone": "table", "face": "up"}])
    lying = table_state(eng.snapshot())["view"]["lying"]  # the 1 s window is still open
    assert [(x["card"], x["status"], x["ruling"]) for x in lying] == [(card, "exposed", None)]


def test_restrictions_after_a_decision() -> None:
    hands = deal(random.Random(9))
    honour = next(c for c in hands["W"] if c[1] in "AKQJ")
    eng = run([*bid_2s(hands),
               {"type": "observe", "seat": "W", "card": honour, "zone": "table", "face": "up"}])
    eng.tick(10**9)
    rid = eng.snapshot()["obligations"][0]["id"]
    eng.apply(parse_event({"v": 1, "t": 10**9 + 1, "type": "decide", "alert": rid,
                           "option": "require-lead-suit", "suit": honour[0]}))
    v = table_state(eng.snapshot())["view"]
    texts = [r["text"] for r in v["restrictions"]]
    suit = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}[honour[0]]
    assert texts == [f"East must lead {suit} at his next lead (alert {rid})"]
    assert v["alerts"][0]["decided"] is True


def test_idle_table() -> None:
    assert table_state(Engine(table="9", codes=CODES).snapshot()) == {
        "v": 1, "phase": "idle", "table": "9", "view": {}}
