"""A fouled board (2017 Law 87): the table contradicts the hand record (engine/fouling.py).

Robot boards are played from one deal while the ``dealt`` the engine is given
(the hand record) has two cards of different hands transposed. Each card the
table shows at a seat the record does not give it is one ``fouled-board``
ruling, never a penalty; the rest of the board plays on as the table shows it.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from tablesense.contract.cards import ALL_CARDS, SEATS, partner
from tablesense.contract.events import parse_event
from tablesense.documents.replay import replay_lines
from tablesense.engine import Engine, EngineError, Ruling
from tablesense.laws import CODES
from tablesense.sim.robots import Board

Events = list[dict[str, Any]]


def board(seed: int) -> Events:
    """A robot board that reaches the play."""
    for s in range(seed, seed + 50):
        evs = list(Board("1", 1, random.Random(s)).events())
        if sum(e["type"] == "observe" for e in evs) > 52:
            return evs
    raise AssertionError("no board with a play")


def transposed(evs: Events, a: str, b: str) -> Events:
    """``evs`` with the record (the ``dealt``) giving ``a`` and ``b`` to each other's
    hands; the table plays the board as it was really dealt."""
    out = []
    for e in evs:
        if e["type"] == "dealt":
            e = {**e, "hands": {s: [b if c == a else a if c == b else c for c in h]
                                for s, h in e["hands"].items()}}
        out.append(e)
    return out


def rfid(evs: Events) -> Events:
    """As RFID readers report it: no face on the table, a face up in the trick zone."""
    out = []
    for e in evs:
        if e["type"] == "observe":
            e = {**e, "face": "up" if e["zone"] == "trick" else "unknown", "source": "rfid"}
            e.pop("seen_by", None)
        out.append(e)
    return out


def rulings(evs: Events) -> list[Ruling]:
    out = list(replay_lines(json.dumps(e) for e in evs))
    assert not [x for x in out if isinstance(x, str)], out
    return [r for r in out if not isinstance(r, str)]


def holder(evs: Events, card: str) -> str:
    hands = next(e for e in evs if e["type"] == "dealt")["hands"]
    return next(s for s in SEATS if card in hands[s])


@pytest.mark.parametrize("readers", ["camera", "rfid"])
@pytest.mark.parametrize("seed", [1, 7, 30])
def test_each_transposed_card_is_one_fouled_board_ruling(seed: int, readers: str) -> None:
    evs = board(seed)
    if readers == "rfid":
        evs = rfid(evs)
    assert rulings(evs) == []  # the board as dealt: nothing to rule
    hands = next(e for e in evs if e["type"] == "dealt")["hands"]
    # a card of West's for one of North's (different sides: a revoke on the record's
    # word would be the other side's penalty)
    a, b = hands["W"][3], hands["N"][5]
    got = rulings(transposed(evs, a, b))
    assert [(r.kind, r.severity, r.cards, r.offender) for r in got] == [
        ("fouled-board", "director", (c,), None) for c in sorted(
            (a, b), key=lambda c: next(i for i, e in enumerate(evs)
                                       if e.get("card") == c and e["type"] == "observe"))]
    by_card = {r.cards[0]: r for r in got}
    assert "West's seat" in by_card[a].text and "gives it to North" in by_card[a].text
    assert "North's seat" in by_card[b].text and "gives it to West" in by_card[b].text
    assert all(r.citation == "Law 87" for r in got)


def test_a_revoke_is_never_ruled_on_the_records_word() -> None:
    # the record gives a defender a card of the suit led which the table shows he
    # never had: a revoke on the record's word, were the record believed
    for seed in range(60):
        evs = rfid(board(seed))
        plays = [(e["seat"], e["card"]) for e in evs
                 if e["type"] == "observe" and e["zone"] == "trick"]
        _, lead = plays[0]
        follower, followed = plays[1]
        if followed[0] == lead[0]:
            continue  # he followed suit: nothing to test here
        # a card of the led suit, held by his partner and played later, is put in his
        # hand by the record; his partner gets the follower's discard
        dealt = next(e for e in evs if e["type"] == "dealt")["hands"]
        mate = [c for c in dealt[partner(follower)] if c[0] == lead[0]]
        if not mate:
            continue
        got = rulings(transposed(evs, mate[0], followed))
        assert [r.kind for r in got] == ["fouled-board", "fouled-board"], got
        return
    pytest.skip("no board with a discard on the opening lead")


def test_a_low_confidence_camera_reading_never_fouls_the_board() -> None:
    evs = board(7)
    hands = next(e for e in evs if e["type"] == "dealt")["hands"]
    card = hands["N"][0]
    i = next(i for i, e in enumerate(evs) if e["type"] == "call")
    t = evs[i - 1]["t"] + 10  # after the dealt, before the first call
    glimpse = [{"v": 1, "t": t + 40 * k, "type": "observe", "seat": "E", "card": card,
                "zone": "hand", "face": "down", "level": "at", "conf": 0.4,
                "source": "camera"} for k in range(25)]  # 1 s of a guess at East's
    got = rulings(evs[:i] + glimpse + evs[i:])
    assert [r.kind for r in got if r.kind == "fouled-board"] == []
    # the same sighting, confident, is the record contradicted
    sure = [{**g, "conf": 0.95} for g in glimpse]
    got = rulings(evs[:i] + sure + evs[i:])
    assert [(r.kind, r.cards) for r in got][:1] == [("fouled-board", (card,))]


def test_a_short_cross_read_is_noise_and_a_reader_against_a_reader_is_a_sensor_conflict(
) -> None:
    evs = board(7)
    hands = next(e for e in evs if e["type"] == "dealt")["hands"]
    card = hands["N"][0]
    i = next(i for i, e in enumerate(evs) if e["type"] == "call")
    t = evs[i - 1]["t"] + 10

    def obs(dt: int, seat: str, zone: str, face: str = "down") -> dict[str, Any]:
        return {"v": 1, "t": t + dt, "type": "observe", "seat": seat, "card": card,
                "zone": zone, "face": face, "level": "at"}

    # 200 ms at East's: shorter than the conflict window
    assert rulings([*evs[:i], obs(0, "E", "hand"), obs(200, "E", "gone", "unknown"),
                    *evs[i:]]) == []
    # North's reader senses it where the record has it: a reader against a reader
    got = rulings([*evs[:i], obs(0, "N", "hand"), obs(100, "E", "hand"), *evs[i:]])
    assert [r.kind for r in got][:1] == ["sensor-conflict"]
    assert not any(r.kind == "fouled-board" for r in got)
    # North's reader sensed it there, then lost it, and East's antenna reads it: the
    # table bore the record out; a neighbour's read is the readers' conflict
    got = rulings([*evs[:i], obs(0, "N", "table", "unknown"), obs(300, "N", "gone", "unknown"),
                   obs(400, "E", "table", "unknown"), *evs[i:]])
    assert [r.kind for r in got][:1] == ["sensor-conflict"]
    assert not any(r.kind == "fouled-board" for r in got)


def test_an_inferred_deal_is_no_record() -> None:
    evs = board(7)
    hands = next(e for e in evs if e["type"] == "dealt")["hands"]
    i = next(i for i, e in enumerate(evs) if e["type"] == "dealt")
    # the readers report every hand, the deal is inferred: nothing to contradict
    seen = [{"v": 1, "t": evs[i]["t"], "type": "observe", "seat": s, "card": c,
             "zone": "hand", "face": "down", "level": "at"}
            for s in SEATS for c in sorted(hands[s], key=ALL_CARDS.index)]
    got = rulings(evs[:i] + seen + evs[i + 1:])
    assert not any(r.kind == "fouled-board" for r in got)


LIVE = Path(__file__).parent / "data" / "fouled-board-rfid-live.jsonl"


def ticked(evs: Events) -> list[Ruling]:
    """The rulings of a daemon that lets time close what it can between events
    (``Engine.tick`` every 20 ms of the journal's clock, as the core does)."""
    engine = Engine(table="1", codes=CODES)
    out: list[Ruling] = []
    now = evs[0]["t"]
    for e in evs:
        while now + 20 < e["t"]:
            now += 20
            out += engine.tick(now)
        with contextlib.suppress(EngineError):  # (replay reports it; it changes nothing)
            out += engine.apply(parse_event(e))
    return out + engine.flush()


@pytest.mark.parametrize("source", ["camera", "rfid", "live"])
def test_a_daemon_ticking_between_events_rules_as_the_replay_of_its_journal(
        source: str) -> None:
    """Replay has only the journal's events; the daemon also ticks between them. A
    fouled card is taken in as of the moment its conflict window closed, whichever
    of the two sees that first, so both rule the same. ``live``: a board as four RFID
    reader VMs reported it to ``tablesense run`` (tests/test_live_session.py), on a
    busy machine: the readers' lag makes a premature play of it, the same in both."""
    if source == "live":
        evs = [e for e in map(json.loads, LIVE.read_text().splitlines())
               if e["type"] != "rejected"]
    else:
        evs = board(7)
        if source == "rfid":
            evs = rfid(evs)
        hands = next(e for e in evs if e["type"] == "dealt")["hands"]
        evs = transposed(evs, hands["W"][3], hands["N"][5])
    live = ticked(evs)
    replayed = [r for r in replay_lines(json.dumps(e) for e in evs) if not isinstance(r, str)]
    assert [r.to_json() for r in live] == [r.to_json() for r in replayed]
    assert [r.kind for r in live if r.severity == "director"][:2] == ["fouled-board"] * 2
