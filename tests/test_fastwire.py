"""The host's quick decoder gives exactly what the shared codec gives.

``daemon.fastwire.FastDecoder`` takes shortcuts for well-formed unsigned
frames; the wire codec (shared with the firmware, checked in the MicroPython
VM) is the reference. Same frames (fields in the same order), same errors
with the same messages and offsets, same counters: on every golden vector,
whole and cut into pieces, and on random streams of good, damaged and
made-up frames cut at random places.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon.fastwire import FastDecoder, unstuff
from tablesense.onboard.wire import codec

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "hardware" / "protocol"
                      / "vectors.json").read_text())
SIGNED = VECTORS["signed"]
KEY = bytes.fromhex(SIGNED["key"])


def norm(items: list[codec.Frame | codec.RemoteProtocolError]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, codec.RemoteProtocolError):
            out.append(("error", item.kind, item.message, item.offset))
        else:
            out.append(("frame", item.to_dict(), list(item.fields)))
    return out


def both(chunks: list[bytes], eof: bool = True, **kw: Any) -> tuple[list[Any], list[Any]]:
    """What the codec and the quick decoder make of ``chunks`` (then counters)."""
    results = []
    for d in (codec.Decoder(**kw), FastDecoder(**kw)):
        items: list[codec.Frame | codec.RemoteProtocolError] = []
        for c in chunks:
            items += d.feed(c)
        if eof:
            items += d.feed_eof()
        results.append([norm(items), dict(d.counters)])
    return results[0], results[1]


def pieces(data: bytes, rng: random.Random) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = rng.choice((1, 2, 3, 7, 23, 64, 200, 4096))
        out.append(data[i:i + n])
        i += n
    return out


def good_streams() -> list[tuple[bytes, dict[str, Any]]]:
    streams: list[tuple[bytes, dict[str, Any]]] = [(bytes.fromhex(v["hex"]), {})
                                                   for v in VECTORS["good"]]
    for v in SIGNED["good"]:
        streams.append((bytes.fromhex(v["hex"]), {"key": KEY, "sender": v["sender"]}))
    return streams


@pytest.mark.parametrize("i", range(len(good_streams())))
def test_every_good_vector(i: int) -> None:
    data, kw = good_streams()[i]
    ref, fast = both([data], **kw)
    assert fast == ref
    assert ref[1]["frames"] == 1  # the reference did decode it: the comparison means something
    one_byte_at_a_time = both([data[j:j + 1] for j in range(len(data))], **kw)
    assert one_byte_at_a_time[1] == one_byte_at_a_time[0] == ref


def test_every_bad_vector() -> None:
    signed = [(v, {"key": KEY, "sender": v["sender"], "require": v["require"]})
              for v in SIGNED["bad"]]
    for v, kw in [(v, {}) for v in VECTORS["bad"]] + signed:
        data = bytes.fromhex(v["hex"])
        ref, fast = both([data], **kw)
        assert fast == ref, v["name"]
        assert ref[1] == v["counters"], v["name"]
        for cut in range(len(data) + 1):
            assert both([data[:cut], data[cut:]], **kw) == (ref, ref), (v["name"], cut)


def test_all_good_unsigned_vectors_as_one_stream_in_random_pieces() -> None:
    data = b"".join(bytes.fromhex(v["hex"]) for v in VECTORS["good"])
    rng = random.Random(7)
    for _ in range(50):
        ref, fast = both(pieces(data, rng))
        assert fast == ref
        assert ref[1]["frames"] == len(VECTORS["good"])


def random_frame(rng: random.Random, seq: int) -> bytes:
    """A frame as a reader might send it, or one nearly like it."""
    r = rng.random()
    if r < 0.4:  # a good OBSERVE, as the readers send them
        seat = rng.choice(codec.SEATS)
        fields: dict[str, Any] = {
            "seat": seat, "card": codec.card_name(rng.randrange(52)),
            "zone": rng.choice(codec.ZONES), "face": rng.choice(codec.FACES),
            "level": rng.choice(codec.LEVELS), "t": rng.randrange(1 << 32)}
        if rng.random() < 0.5:
            fields["seen_by"] = [s for s in codec.SEATS if s != seat and rng.random() < 0.5]
        if rng.random() < 0.5:
            fields["conf"] = round(rng.randrange(255) / 255, 4)
        return codec.encode(codec.OBSERVE, fields, reader=rng.randrange(256), seq=seq)
    if r < 0.65:  # OBSERVE with any payload bytes: most good, some out of range
        payload = bytes([rng.choice((0, 1, 2, 3, 3, 4, 255)), rng.choice((0, 12, 51, 51, 52, 255)),
                         rng.choice((0, 2, 5, 6)), rng.randrange(256),
                         rng.choice((0, 0x80, 0x81, 0x86, 0x8F, 0x05, rng.randrange(256))),
                         rng.choice((255, 255, 0, 128, rng.randrange(256)))])
        payload += rng.randrange(1 << 32).to_bytes(4, "little")
        payload = payload[:rng.choice((10, 10, 10, 9, 4))] + bytes(rng.choice((0, 0, 0, 3)))
        mtype = codec.OBSERVE
    elif r < 0.75:
        payload = bytes(rng.randrange(256) for _ in range(rng.choice((16, 16, 15, 20))))
        mtype = codec.HEARTBEAT
    else:
        mtype = rng.choice([*codec.MESSAGES, 7, 99])
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
    version = 1 if rng.random() < 0.95 else 2
    flags = 0 if rng.random() < 0.9 else rng.choice((0x10, 0x02, 0x01, 0xF0))
    return codec.pack_frame(version, flags, rng.randrange(256), seq, mtype, payload)


def damage(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((0, 0, 0, 0, 0, 1, 2))):
        what = rng.random()
        at = rng.randrange(len(b) + 1)
        if what < 0.3 and b:
            b[min(at, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif what < 0.5:
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 90)))
        elif what < 0.7:
            del b[at:at + rng.randrange(1, 30)]
        else:
            b[at:at] = b"\x00" * rng.randrange(1, 3)
    return bytes(b)


@pytest.mark.parametrize("seed", range(8))
def test_random_streams_decode_the_same(seed: int) -> None:
    rng = random.Random(seed)
    frames_seen = 0
    for _ in range(150):
        data = b"".join(damage(random_frame(rng, s), rng) for s in range(rng.randrange(1, 30)))
        if rng.random() < 0.2:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 10))) + data
        ref, fast = both(pieces(data, rng), eof=rng.random() < 0.5)
        assert fast == ref
        frames_seen += ref[1]["frames"]
    assert frames_seen > 700  # most streams held frames the quick path had to take


def test_unstuff_is_cobs_decode_on_chunks_without_zero() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        chunk = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 80)))
        try:
            want: bytes | None = codec.cobs_decode(chunk)
        except ValueError:
            want = None
        assert unstuff(chunk) == want
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        assert unstuff(codec.cobs_encode(raw)) == raw
