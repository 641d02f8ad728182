"""Properties of the codec, with generated input (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tablesense.onboard.wire import codec as c

u32 = st.integers(0, 0xFFFFFFFF)
seats = st.sampled_from(c.SEATS)
cards = st.builds(lambda s, r: s + r, st.sampled_from(c.SUITS), st.sampled_from(c.RANKS))
calls = st.sampled_from(
    ["P", "X", "XX"] + [f"{level}{strain}" for level in range(1, 8) for strain in c.STRAINS]
)


@st.composite
def observe_fields(draw: st.DrawFn) -> dict[str, Any]:
    seat = draw(seats)
    fields: dict[str, Any] = {
        "seat": seat,
        "card": draw(cards),
        "zone": draw(st.sampled_from(c.ZONES)),
        "face": draw(st.sampled_from(c.FACES)),
        "level": draw(st.sampled_from(c.LEVELS)),
        "t": draw(u32),
    }
    if draw(st.booleans()):
        others = [s for s in c.SEATS if s != seat]
        fields["seen_by"] = draw(
            st.lists(st.sampled_from(others), unique=True).map(
                lambda xs: [s for s in c.SEATS if s in xs]
            )
        )
    q = draw(st.integers(0, 255))
    if q != 255:
        fields["conf"] = round(q / 255, 4)
    return fields


def hello_fields() -> st.SearchStrategy[dict[str, Any]]:
    serial = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=32)
    version = st.tuples(*[st.integers(0, 255)] * 3).map(lambda v: ".".join(str(n) for n in v))
    caps = st.sets(st.integers(0, 15)).map(
        lambda bits: [
            c.CAPABILITIES[b] if b < len(c.CAPABILITIES) else f"bit{b}" for b in sorted(bits)
        ]
    )
    return st.fixed_dictionaries(
        {
            "kind": st.sampled_from(c.READER_KINDS),
            "firmware": version,
            "serial": serial,
            "capabilities": caps,
        }
    )


def fault_fields() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"code": st.integers(0, 255), "t": u32},
        optional={"zone": st.sampled_from(c.ZONES), "antenna": st.integers(0, 254)},
    )


MESSAGES: st.SearchStrategy[tuple[int, dict[str, Any]]] = st.one_of(
    hello_fields().map(lambda f: (c.HELLO, f)),
    st.fixed_dictionaries({"uptime": u32, "reads": u32, "errors": u32, "dropped": u32}).map(
        lambda f: (c.HEARTBEAT, f)
    ),
    observe_fields().map(lambda f: (c.OBSERVE, f)),
    st.fixed_dictionaries({"seat": seats, "call": calls, "t": u32}).map(lambda f: (c.CALL, f)),
    fault_fields().map(lambda f: (c.FAULT, f)),
    st.fixed_dictionaries(
        {"seat": seats, "scan_ms": st.integers(1, 0xFFFF), "debounce_ms": st.integers(0, 0xFFFF)}
    ).map(lambda f: (c.CONFIG, f)),
    st.fixed_dictionaries({"from_seq": st.integers(0, 0xFFFF)}).map(lambda f: (c.RESEND, f)),
    st.fixed_dictionaries({"ack_seq": st.integers(0, 0xFFFF)}).map(lambda f: (c.ACK, f)),
)
HEADERS = st.tuples(st.integers(0, 255), st.integers(0, 0xFFFF), st.sampled_from([0, 0x10, 0xF0]))


@settings(max_examples=300)
@given(MESSAGES, HEADERS)
def test_encode_decode_identity(
    message: tuple[int, dict[str, Any]], header: tuple[int, int, int]
) -> None:
    mtype, fields = message
    reader, seq, flags = header
    data = c.encode(mtype, fields, reader, seq, flags)
    assert data[-1] == 0 and 0 not in data[:-1]
    assert len(data) - 1 <= c.MAX_ENCODED
    dec = c.Decoder()
    (frame,) = dec.feed(data)
    assert isinstance(frame, c.Frame)
    assert (frame.mtype, frame.reader, frame.seq, frame.flags, frame.version) == (
        mtype,
        reader,
        seq,
        flags,
        c.PROTOCOL_VERSION,
    )
    assert frame.fields == fields
    assert frame.encode() == data


def check_invariants(dec: c.Decoder, items: list[c.Frame | c.RemoteProtocolError]) -> None:
    assert dec.buffered <= 2 * c.MAX_ENCODED
    for item in items:
        assert isinstance(item, (c.Frame, c.RemoteProtocolError))
        if isinstance(item, c.RemoteProtocolError):
            assert item.kind in dec.counters
    frames = sum(isinstance(i, c.Frame) for i in items)
    assert dec.counters["frames"] == frames
    errors = sum(dec.counters[k] for k in c.COUNTER_NAMES if k not in ("frames", "garbage_bytes"))
    assert errors == len(items) - frames


@settings(max_examples=500)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_any_bytes_give_frames_or_counted_errors(chunks: list[bytes]) -> None:
    dec = c.Decoder()
    items: list[c.Frame | c.RemoteProtocolError] = []
    for chunk in chunks:
        items += dec.feed(chunk)
        check_invariants(dec, items)
    items += dec.feed_eof()
    check_invariants(dec, items)


@settings(max_examples=300)
@given(st.lists(st.one_of(st.binary(max_size=80), MESSAGES), max_size=10))
def test_mixed_frames_and_noise_never_raise(parts: list[Any]) -> None:
    data = b"".join(p if isinstance(p, bytes) else c.encode(p[0], p[1], 1, 0) for p in parts)
    dec = c.Decoder()
    items = dec.feed(data) + dec.feed_eof()
    check_invariants(dec, items)


@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.binary(max_size=150), MESSAGES), min_size=1, max_size=6),
    st.integers(1, 50),
)
def test_garbage_before_a_frame_never_loses_it(
    parts: list[tuple[bytes, tuple[int, dict[str, Any]]]], chunk: int
) -> None:
    """Noise (no matter its bytes or length) before or between frames costs only the noise."""
    stream = b""
    sent = []
    for seq, (garbage, (mtype, fields)) in enumerate(parts):
        stream += garbage + c.encode(mtype, fields, 9, seq)
        sent.append((mtype, seq, fields))
    dec = c.Decoder()
    items: list[c.Frame | c.RemoteProtocolError] = []
    for i in range(0, len(stream), chunk):
        items += dec.feed(stream[i : i + chunk])
    frames = [(f.mtype, f.seq, f.fields) for f in items if isinstance(f, c.Frame) and f.reader == 9]
    assert frames == sent
    assert dec.buffered == 0
