"""Property tests of the engine: clean boards give no penalty, replay is
deterministic, and no garbage line can crash replay."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablesense.documents.replay import replay_lines
from tablesense.engine import Ruling
from tablesense.laws import CODES
from tablesense.sim.robots import MISHAPS, Board


def journal(seed: int, mishap: str | None = None) -> list[str]:
    return [json.dumps(e) for e in Board("7", seed % 32 + 1, random.Random(seed),
                                         mishap=mishap).events()]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_legal_boards_give_no_penalty(seed: int) -> None:
    out = list(replay_lines(journal(seed)))
    assert [o for o in out if isinstance(o, str)] == []
    assert [o.kind for o in out if isinstance(o, Ruling) and o.severity != "info"] == []


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(MISHAPS))
def test_replay_is_deterministic(seed: int, mishap: str) -> None:
    lines = journal(seed, mishap)
    first = [r.to_json() if isinstance(r, Ruling) else r for r in replay_lines(lines)]
    second = [r.to_json() if isinstance(r, Ruling) else r for r in replay_lines(lines)]
    assert first == second


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(MISHAPS))
def test_a_mishap_is_ruled_on(seed: int, mishap: str) -> None:
    lines = journal(seed, mishap)
    if not any('"call", "seat"' in x and '"P"' not in x for x in lines):
        return  # passed out: no play, no mishap
    rulings = [r for r in replay_lines(lines) if isinstance(r, Ruling)]
    assert rulings, "a robot's mishap produced no ruling"


JUNK = st.one_of(
    st.text(max_size=80),
    st.dictionaries(st.sampled_from(["v", "t", "type", "seat", "card", "zone", "face",
                                     "call", "option", "alert", "hands", "board", "table"]),
                    st.one_of(st.none(), st.integers(-5, 10**6), st.text(max_size=6),
                              st.lists(st.text(max_size=3), max_size=4)),
                    max_size=8).map(json.dumps),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=1000), st.lists(st.tuples(st.integers(0, 400), JUNK),
                                                          max_size=12))
def test_garbage_lines_never_crash_replay(seed: int, junk: list[tuple[int, str]]) -> None:
    lines = journal(seed, "drop")
    for pos, line in junk:
        lines.insert(min(pos, len(lines)), line)
    out = list(replay_lines(lines))
    for o in out:
        assert isinstance(o, (Ruling, str))
        if isinstance(o, str):
            assert o.startswith("line ")


SEATS = ["N", "E", "S", "W"]
CARDS = [s + r for s in "SHDC" for r in "AKQJT98765432"]
VALID = st.one_of(
    st.builds(lambda seat, card, zone, face, level, seen: {
        "type": "observe", "seat": seat, "card": card, "zone": zone, "face": face,
        "level": level, **({"seen_by": seen} if seen is not None else {})},
        st.sampled_from(SEATS), st.sampled_from(CARDS),
        st.sampled_from(["hand", "detached", "table", "trick", "floor", "gone"]),
        st.sampled_from(["up", "down", "unknown"]),
        st.sampled_from(["above", "at", "below", "unknown"]),
        st.one_of(st.none(), st.lists(st.sampled_from(SEATS), max_size=3))),
    st.builds(lambda seat, call: {"type": "call", "seat": seat, "call": call},
              st.sampled_from(SEATS), st.sampled_from(["P", "X", "XX", "1C", "3N", "7S"])),
    st.builds(lambda opt, suit: {"type": "decide", "option": opt, **({"suit": suit} if suit
                                                                     else {})},
              st.sampled_from(["accept-lead", "refuse-lead", "become-dummy", "pc-remains",
                               "require-lead-suit", "forbid-lead-suit", "refuse-play",
                               "accept-play", "require-highest", "designate-card",
                               "require-other-suit"]),
              st.one_of(st.none(), st.sampled_from(["S", "H", "D", "C"]))),
    st.builds(lambda kind, seat: {"type": kind, "seat": seat},
              st.sampled_from(["claim", "concede", "object"]), st.sampled_from(SEATS)),
    st.builds(lambda seat, card: {"type": "named", "seat": seat, "card": card},
              st.sampled_from(SEATS), st.sampled_from(CARDS)),
    st.just({"type": "setup", "step": "deal"}),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=1000),
       st.lists(st.tuples(st.integers(0, 300), VALID, st.integers(0, 400)), max_size=25))
def test_valid_but_surprising_events_never_crash_the_engine(
        seed: int, extra: list[tuple[int, dict[str, object], int]]) -> None:
    objs = [json.loads(x) for x in journal(seed, "drop")]
    for pos, ev, dt in extra:
        pos = min(pos, len(objs))
        t = objs[pos - 1]["t"] + dt if pos else 0
        objs.insert(pos, {"v": 1, "t": t, **ev})
    last = 0
    for o in objs:  # keep time monotonic so the lines are valid journal lines
        o["t"] = last = max(int(o["t"]), last)
    out = list(replay_lines(json.dumps(o) for o in objs))
    assert all(isinstance(o, (Ruling, str)) for o in out)


def test_deal_inferred_when_each_reader_holds_13() -> None:
    from tablesense.contract.events import parse_event
    from tablesense.engine import Engine
    from tablesense.sim.robots import deal

    hands = deal(random.Random(5))
    eng = Engine(codes=CODES)
    t = 0
    events = [{"type": "board", "table": "2", "board": 3, "dealer": "E"},
              {"type": "setup", "step": "deal"}]
    for i in range(13):
        for seat in ("N", "E", "S", "W"):
            events.append({"type": "observe", "seat": seat, "card": hands[seat][i],
                           "zone": "hand", "face": "down", "level": "above"})
    for ev in events:
        t += 10
        eng.apply(parse_event({"v": 1, "t": t, **ev}))
        if len(events) > 2 and ev is events[-2]:
            assert eng.snapshot()["phase"] == "setup"
    assert eng.snapshot()["phase"] == "auction"
    assert eng.board is not None and eng.board.turn == "E"
    # the dealing machine's own `dealt` afterwards is accepted as the same deal
    eng.apply(parse_event({"v": 1, "t": t + 1, "type": "dealt", "hands": hands}))
    eng.apply(parse_event({"v": 1, "t": t + 2, "type": "call", "seat": "E", "call": "1C"}))
    assert eng.board.calls == [("E", "1C")]
