"""Journal lines decoded straight into events (msgspec) give exactly what the
field-by-field parser gives: the same event, or the same error, for any line."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablesense.contract.cards import ALL_CARDS
from tablesense.contract.events import (
    CALLS,
    EventError,
    Observe,
    decode_event,
    fast_event,
    parse_event,
)
from tablesense.contract.journal import JournalError, parse_lines

SEATS = ["N", "E", "S", "W"]
DEAL = {s: list(ALL_CARDS[i::4]) for i, s in enumerate(SEATS)}
VALID: list[dict[str, Any]] = [
    {"v": 1, "t": 5, "type": "observe", "seat": "N", "card": "SA", "zone": "hand",
     "face": "up", "level": "at"},
    {"v": 1, "t": 5, "type": "observe", "seat": "E", "card": "D2", "zone": "gone",
     "seen_by": ["N", "W"], "conf": 1, "rt": 9},
    {"v": 1, "t": 1, "type": "board", "table": "3", "board": 2, "dealer": "E", "vul": "NS",
     "code": "duplicate-2017"},
    {"v": 1, "t": 1, "type": "setup", "step": "deal"},
    {"v": 1, "t": 1, "type": "dealt", "hands": DEAL, "dealer": "N"},
    {"v": 1, "t": 1, "type": "call", "seat": "S", "call": "3N"},
    {"v": 1, "t": 1, "type": "declare", "seat": "S", "strain": "H"},
    {"v": 1, "t": 1, "type": "claim", "seat": "W", "tricks": 13},
    {"v": 1, "t": 1, "type": "concede", "seat": "W", "tricks": 0, "current": True},
    {"v": 1, "t": 1, "type": "object", "seat": "N"},
    {"v": 1, "t": 1, "type": "named", "seat": "N", "card": "HT"},
    {"v": 1, "t": 1, "type": "decide", "option": "call-suit", "alert": "1-1-1", "card": "C2",
     "suit": "D", "seat": "S"},
    {"v": 1, "t": 1, "type": "resolve", "alert": "1-1-1", "note": "ok"},
]
# values that are valid somewhere, invalid elsewhere, or valid but not canonical
ODD = st.sampled_from([
    None, True, False, 0, 1, -1, 1.0, 0.5, 2, 14, 2**70, "", "n", "N", "x", "SA", "10h", "h10",
    " SA",
    "sa", "SX", "unknown", "up", "gone", "trick", "1nt", "1N", "pass", "P", "h", "H", "NS",
    "none", "None", "deal", [], ["N"], ["n", "N"], ["S", "N"], ["N", "N"], {}, {"N": []},
    "rejected", "observe",
])
FIELDS = st.sampled_from(["v", "t", "type", "seat", "card", "zone", "face", "level", "seen_by",
                          "conf", "rt", "table", "board", "dealer", "vul", "code", "step",
                          "hands", "call", "strain", "tricks", "current", "option", "alert",
                          "suit", "note", "seq", "reader"])


@st.composite
def lines(draw: st.DrawFn) -> str:
    obj = dict(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(0, 3))):
        key = draw(FIELDS)
        if draw(st.booleans()):
            obj[key] = draw(ODD)
        else:
            obj.pop(key, None)
    if draw(st.booleans()) and obj.get("hands") == DEAL:  # a card dealt twice
        hands = {k: list(v) for k, v in obj["hands"].items()}
        a, b = draw(st.sampled_from(SEATS)), draw(st.sampled_from(SEATS))
        hands[a][0] = hands[b][1]
        obj["hands"] = hands
    return json.dumps(obj)


def slow(line: str) -> Any:
    try:
        return parse_event(json.loads(line))
    except EventError as exc:
        return ("error", exc.field, exc.message)


def fast(line: str) -> Any:
    try:
        return decode_event(line.encode())
    except EventError as exc:
        return ("error", exc.field, exc.message)


@settings(max_examples=400, deadline=None)
@given(lines())
def test_decoding_straight_into_events_is_the_field_by_field_parser(line: str) -> None:
    assert fast(line) == slow(line)
    got = fast_event(line)
    if got is not None:  # taken without the slow path: the very same event
        assert type(got) is type(slow(line)) and got == slow(line)


def test_the_common_lines_take_the_fast_path() -> None:
    for obj in VALID:
        assert fast_event(json.dumps(obj)) == parse_event(obj), obj
    assert fast_event(b'{"v":1,"t":3,"type":"observe","seat":"N","card":"SA","zone":"hand",'
                      b'"face":"up","level":"at","seq":7,"reader":"N"}') == \
        Observe(3, "N", "SA", "hand", "up", "at")
    # canonical forms only; the rest goes the slow way and comes out canonical
    assert fast_event(b'{"t":3,"type":"observe","seat":"n","card":"h10","zone":"hand",'
                      b'"face":"up"}') is None
    assert decode_event(b'{"t":3,"type":"observe","seat":"n","card":"h10","zone":"hand",'
                        b'"face":"up"}') == Observe(3, "N", "HT", "hand", "up")
    assert len(CALLS) == 38


def test_journal_errors_still_name_line_and_field() -> None:
    text = [b'{"v":1,"t":1,"type":"board","table":"1","board":1}\n', b"\n",
            b'{"v":1,"t":2,"type":"observe","seat":"N","card":"SX","zone":"hand","face":"up"}\n',
            b'{"v":1,"t":3,"type":"observe","seat":"N","card":"SA","zone":"hand"}\n',
            b'{"v":1,"t":4,"type":"rejected","field":"x"}\n', b"{not json\n",
            b'{"v":1,"t":0,"type":"call","seat":"N","call":"P"}\n',
            b'{"v":1,"t":5,"type":"call","seat":"N","call":"\xff"}\n']
    got = [(n, str(x)) for n, x in parse_lines(text) if isinstance(x, JournalError)]
    assert got == [
        (3, "line 3: field card: not a card: 'SX'"),
        (4, "line 4: field face: missing"),
        (6, "line 6: field (line): not JSON: Expecting property name enclosed in double "
            "quotes at column 2"),
        (7, "line 7: field t: time goes backwards (0 < 1)"),
        (8, "line 8: field call: not a call: '\ufffd'"),
    ]


@settings(max_examples=300, deadline=None)
@given(lines())
def test_the_dict_fast_path_is_the_field_by_field_parser(line: str) -> None:
    obj = json.loads(line)
    if not isinstance(obj, dict):
        return
    # an extra key keeps parse_event off its fast path for plain observations
    slow_obj = {**obj, "x-unknown": 0}
    assert slow(json.dumps(obj)) == slow(json.dumps(slow_obj))


def test_reader_observations_journal_as_the_object_path_does(tmp_path) -> None:
    from tablesense.daemon.journal_writer import JournalWriter
    from tablesense.daemon.outbox import Outbox
    from tablesense.daemon.tables import TableRuntime
    from tablesense.daemon.topics import Topics
    from tablesense.onboard.wire import codec

    def runtime(name: str) -> TableRuntime:
        rt = TableRuntime("1", None, JournalWriter(tmp_path / f"{name}.jsonl", "never"),
                          Outbox(":memory:"), Topics("ts"))
        rt.command(json.dumps({"type": "board", "board": 1, "dealer": "N"}).encode())
        rt.command(json.dumps({"type": "dealt", "hands": DEAL}).encode(), trusted=True)
        return rt

    direct, via_object = runtime("direct"), runtime("object")
    direct.journal.last_t = via_object.journal.last_t = 2 * 10**12  # one clock for both
    variants = [{}, {"seen_by": ["E", "W"]}, {"seen_by": []}, {"conf": 0.75}, {"conf": 1}]
    for i, extra in enumerate(variants * 3):
        raw = codec.encode(codec.OBSERVE, {"seat": "N", "card": DEAL["N"][i % 13],
                                           "zone": ("hand", "table", "gone")[i % 3],
                                           "face": ("up", "down", "unknown")[i % 3],
                                           "level": "at", "t": 1000 + i, **extra}, 1, i)
        frame = codec.Decoder().feed(raw)[0]
        assert isinstance(frame, codec.Frame)
        fields = frame.fields
        obj = {"type": "observe", "seat": "N", "rt": fields["t"],
               **{k: v for k, v in fields.items() if k not in ("t", "seat")}}
        a = direct.reader_observe("N", "N", fields, 5000 + i, seq=i)
        b = via_object.reader_event("N", obj, 5000 + i, seq=i)
        assert [r.to_json() for r in a] == [r.to_json() for r in b]
    for rt in (direct, via_object):
        rt.commit()
        rt.journal.close()
    # past the two commands (stamped with the wall clock), the same bytes
    got = (tmp_path / "direct.jsonl").read_bytes().splitlines()[2:]
    assert got == (tmp_path / "object.jsonl").read_bytes().splitlines()[2:]
    assert len(got) == 15 and any(b'"seen_by":[]' in x for x in got)
