"""Fuzzing the parsers that take input from outside: the wire codec (with a key
too), the sequencer behind it, and the journal reader. The invariant, as h11's
fuzz target states it: any input parses or is rejected and counted; nothing
raises, nothing is lost or delivered twice, memory stays bounded.
(``benchmarks/fuzz_atheris.py`` runs the same targets under coverage-guided
atheris for longer.)
"""

from __future__ import annotations

import itertools
import json
import random
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablesense.contract.events import EVENT_TYPES
from tablesense.contract.journal import SKIPPED_TYPES, JournalError, parse_lines
from tablesense.daemon.sequence import Sequencer
from tablesense.onboard.wire import codec as c
from test_codec_props import MESSAGES

KEY = bytes(range(32))
ALL_COUNTERS = c.COUNTER_NAMES + c.SIGNED_COUNTER_NAMES


def check(dec: c.Decoder, items: list[c.Frame | c.RemoteProtocolError]) -> None:
    assert dec.buffered <= 2 * c.MAX_ENCODED
    frames = [i for i in items if isinstance(i, c.Frame)]
    errors = [i for i in items if isinstance(i, c.RemoteProtocolError)]
    assert len(frames) + len(errors) == len(items)
    assert dec.counters["frames"] == len(frames)
    counted = sum(v for k, v in dec.counters.items() if k not in ("frames", "garbage_bytes"))
    assert counted == len(errors)  # every rejection counted, once
    assert all(e.kind in dec.counters for e in errors)
    if dec.key is not None:
        assert all(f.stamp is not None for f in frames) or not dec.require


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=200), max_size=8), st.booleans(),
       st.sampled_from(c.SENDERS))
def test_keyed_decoder_takes_any_bytes(chunks: list[bytes], require: bool, sender: str) -> None:
    dec = c.Decoder(KEY, require=require, sender=sender)
    items: list[c.Frame | c.RemoteProtocolError] = []
    for chunk in chunks:
        items += dec.feed(chunk)
        check(dec, items)
    items += dec.feed_eof()
    check(dec, items)
    assert set(dec.counters) == set(ALL_COUNTERS)


@st.composite
def signed_streams(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int]], int]:
    """Genuine signed frames with noise, forgeries and plain frames between them."""
    out = b""
    genuine: list[tuple[int, int]] = []
    forged = 0
    for seq in range(draw(st.integers(1, 8))):
        mtype, fields = draw(MESSAGES)
        kind = draw(st.sampled_from(["genuine", "noise", "forged", "plain", "bitflip"]))
        frame = c.encode(mtype, fields, 4, seq, key=KEY, stamp=seq + 1)
        if kind == "genuine":
            out += frame
            genuine.append((mtype, seq))
        elif kind == "noise":
            out += draw(st.binary(max_size=70)) + frame
            genuine.append((mtype, seq))
        elif kind == "forged":
            out += c.encode(mtype, fields, 4, seq, key=bytes(32), stamp=seq + 1)
            forged += 1
        elif kind == "plain":
            out += c.encode(mtype, fields, 4, seq)
            forged += 1
        else:  # a bit flipped and the CRC made good again: only the MAC can tell
            raw = bytearray(c.cobs_decode(frame[:-1]))
            bit = draw(st.integers(0, (len(raw) - 4) * 8 - 1))
            raw[bit // 8] ^= 1 << (bit % 8)
            body = bytes(raw[:-4])
            out += c.cobs_encode(body + struct.pack("<I", c.crc32(body))) + b"\x00"
            forged += 1
    return out, genuine, forged


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(signed_streams(), st.integers(1, 40))
def test_signed_stream_keeps_every_genuine_frame_and_no_forged_one(
        stream: tuple[bytes, list[tuple[int, int]], int], chunk: int) -> None:
    data, genuine, forged = stream
    dec = c.Decoder(KEY)
    items: list[c.Frame | c.RemoteProtocolError] = []
    for i in range(0, len(data), chunk):
        items += dec.feed(data[i:i + chunk])
    items += dec.feed_eof()
    check(dec, items)
    got = [(f.mtype, f.seq) for f in items if isinstance(f, c.Frame)]
    assert got == genuine
    rejected = sum(dec.counters[k] for k in ("bad_signature", "unsigned", "bad_version",
                                             "incompatible_flag"))
    assert rejected == forged


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["next", "dup", "skip", "back", "hello", "tick",
                                           "far"]), st.integers(1, 40)), max_size=120))
def test_sequencer_delivers_each_frame_at_most_once_in_order(
        steps: list[tuple[str, int]]) -> None:
    """Frames in any order, duplicated, lost, far ahead, restarted: per stream (between
    HELLOs) each seq comes out at most once and in increasing order; held frames stay
    within the window. (Jumps stay below 4,000 frames: with 16-bit numbers a frame
    32,768 behind looks new again, as in MAVLink; the protocol lives with that.)"""
    s = Sequencer(resend_timeout_ms=100, window=64)
    now = 0
    seq = 0
    sent: list[int] = []
    delivered: list[list[int]] = [[]]

    def take(out: list[tuple[c.Frame, int]]) -> None:
        for f, _ in out:
            if f.mtype == c.HELLO:
                delivered.append([])
            delivered[-1].append(f.seq)

    for op, n in steps:
        now += 7
        if op == "tick":
            now += n * 20
            take(s.tick(now))
            continue
        if op == "hello":
            seq = n
            take(s.accept(c.Frame(c.HELLO, {}, seq=seq), now))
            seq = (seq + 1) & 0xFFFF
            continue
        if op == "dup" and sent:  # a recent frame again (16-bit seqs wrap: not an old one)
            take(s.accept(c.Frame(c.OBSERVE, {}, seq=random.Random(n).choice(sent[-50:])), now))
            continue
        if op == "back":
            take(s.accept(c.Frame(c.OBSERVE, {}, seq=(seq - n) & 0xFFFF), now))
            continue
        if op == "skip":
            seq = (seq + n) & 0xFFFF
        if op == "far":  # past the window, far short of the 32768 that would look old
            seq = (seq + 100 * n) & 0xFFFF
        sent.append(seq)
        take(s.accept(c.Frame(c.OBSERVE, {}, seq=seq), now))
        seq = (seq + 1) & 0xFFFF
        assert len(s.held) <= 64 + 1
    take(s.tick(now + 10_000))
    take(s.tick(now + 20_000))
    take(s.tick(now + 30_000))
    for stream in delivered:
        # unwrapped, each delivery is strictly after the one before: never one twice
        assert all(c.seq_delta(b, a) > 0 for a, b in itertools.pairwise(stream))
    assert all(v >= 0 for v in s.counters.values())


# -- the journal reader -------------------------------------------------------------------

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(),
                    st.text(max_size=6), st.sampled_from(["N", "E", "S", "W", "SA", "HT", "C2",
                                                          "10h", "table", "up", "1N", "XX"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=14),
                                                       st.dictionaries(st.text(max_size=4),
                                                                       inner, max_size=4)),
                      max_leaves=12)
FIELDS = ["v", "t", "type", "seat", "card", "zone", "face", "level", "seen_by", "conf", "rt",
          "table", "board", "dealer", "vul", "code", "step", "hands", "call", "strain",
          "tricks", "current", "option", "alert", "suit", "note", "by"]


@st.composite
def journal_lines(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["event", "text", "json"]))
    if kind == "text":
        return str(draw(st.text(max_size=80)))
    if kind == "json":
        return json.dumps(draw(VALUES))
    obj: dict[str, Any] = {"v": draw(st.sampled_from([1, 1, 1, 2, "1"])),
                           "t": draw(st.integers(-5, 10**7)),
                           "type": draw(st.sampled_from([*sorted(EVENT_TYPES), "rejected", "x"]))}
    for name in draw(st.lists(st.sampled_from(FIELDS), max_size=8)):
        obj[name] = draw(VALUES)
    return json.dumps(obj)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(journal_lines(), max_size=20))
def test_any_journal_parses_or_reports_each_bad_line(lines: list[str]) -> None:
    out = list(parse_lines(lines))
    numbers = [n for n, _ in out]
    assert numbers == sorted(set(numbers))  # one item per line at most, in order
    for n, item in out:
        if isinstance(item, JournalError):
            assert item.line == n and item.field and item.message
    expected = set()
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError:
            expected.add(n)
            continue
        if isinstance(obj, dict) and str(obj.get("type")) in SKIPPED_TYPES:
            continue
        expected.add(n)
    assert set(numbers) == expected  # every line either an event or a reported error
    ts = [e.t for _, e in out if not isinstance(e, JournalError)]
    assert ts == sorted(ts)
