#!/usr/bin/env python3
"""Writes examples/capture.bin: a deterministic capture of one table's reader bus.

    .venv/bin/python scripts/make_capture.py [OUT]

The table's four seat readers (ids 1-4 at N E S W, RFID) and its bidding box
(id 5) share one bus with the host, so the capture holds both directions, as
a tap on that bus would record them: power-up line noise, the HELLO / CONFIG
/ ACK handshake, 1 Hz heartbeats (a few, not every one), the deal (52 cards
arriving in hands face down), the auction (1NT by North, raised to 3NT), the
first trick and the lead to the second. One OBSERVE is hit by a bit error
(bad CRC); the host asks for it again (RESEND) and the reader resends it with
its original sequence number. A noise burst with a stray 0x00 in it shows up
as a truncated frame. Prints the counts that ``tablesense decode`` reports.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from tablesense.onboard.wire import codec as c

OUT = Path(__file__).resolve().parent.parent / "examples" / "capture.bin"
SEATS = "NESW"
RANK_ORDER = "23456789TJQKA"
HOST = 0  # the reader id the host's own frames carry is their destination


class Reader:
    def __init__(self, rid: int, boot_ms: int) -> None:
        self.rid = rid
        self.seq = 0
        self.clock_offset = boot_ms  # reader clock = table time - boot time

    def frame(self, mtype: int, fields: dict[str, Any]) -> bytes:
        data = c.encode(mtype, fields, self.rid, self.seq)
        self.seq = c.seq_next(self.seq)
        return data


class Capture:
    def __init__(self) -> None:
        self.data = bytearray()
        self.now = 0  # table time, ms
        self.host_seq = 0
        self.readers = {rid: Reader(rid, boot) for rid, boot in ((1, 0), (2, 35), (3, 61), (4, 90))}
        self.readers[5] = Reader(5, 120)
        self.sent: dict[tuple[int, int], bytes] = {}

    def t(self, rid: int) -> int:
        return self.now - self.readers[rid].clock_offset

    def reader(self, rid: int, mtype: int, fields: dict[str, Any], corrupt: bool = False) -> int:
        r = self.readers[rid]
        seq = r.seq
        data = r.frame(mtype, fields)
        self.sent[(rid, seq)] = data
        self.data += flip_bit(data) if corrupt else data
        return seq

    def host(self, mtype: int, fields: dict[str, Any], to: int) -> None:
        self.data += c.encode(mtype, fields, to, self.host_seq)
        self.host_seq = c.seq_next(self.host_seq)

    def observe(self, seat: str, card: str, zone: str, face: str, level: str, **kw: bool) -> int:
        rid = SEATS.index(seat) + 1
        fields = {"seat": seat, "card": card, "zone": zone, "face": face, "level": level}
        return self.reader(rid, c.OBSERVE, {**fields, "t": self.t(rid)}, **kw)

    def heartbeats(self, reads: int) -> None:
        for rid in range(1, 6):
            self.now += 7
            up = self.t(rid)
            fields = {"uptime": up, "reads": reads * rid, "errors": 0, "dropped": 0}
            self.reader(rid, c.HEARTBEAT, fields)


def flip_bit(frame: bytes) -> bytes:
    """A single bit error in the payload, as a noisy line makes it."""
    raw = bytearray(c.cobs_decode(frame[:-1]))
    raw[8] ^= 0x04
    return c.cobs_encode(bytes(raw)) + b"\x00"


def deal() -> dict[str, list[str]]:
    deck = [s + r for s in "SHDC" for r in "AKQJT98765432"]
    random.Random(1926).shuffle(deck)
    hands: dict[str, list[str]] = {s: [] for s in SEATS}
    for k, card in enumerate(deck):  # the dealer, North, deals from East round
        hands[SEATS[(1 + k) % 4]].append(card)
    return hands


def play_card(hand: list[str], led: str | None) -> str:
    """Lowest of the suit led, else lowest card; a lead is the highest card of the longest suit."""

    def rank(card: str) -> int:
        return RANK_ORDER.index(card[1])

    if led is None:
        longest = max("SHDC", key=lambda s: sum(card[0] == s for card in hand))
        return max((card for card in hand if card[0] == longest), key=rank)
    follow = [card for card in hand if card[0] == led[0]]
    return min(follow or hand, key=rank)


def build() -> bytes:
    cap = Capture()
    cap.data += b"\x00\x3c\xc3\xf0"  # power-up noise, then the first HELLO right behind it
    caps = ["face", "level", "floor", "detached", "resend"]
    for rid in range(1, 5):
        cap.now += 40
        fields = {
            "kind": "rfid",
            "firmware": "1.0.3",
            "serial": f"TS3-{SEATS[rid - 1]}-{1000 + rid}",
            "capabilities": caps,
        }
        cap.reader(rid, c.HELLO, fields)
    cap.now += 40
    bidbox = {
        "kind": "bidbox",
        "firmware": "1.0.1",
        "serial": "TS3-BB-2001",
        "capabilities": ["calls"],
    }
    cap.reader(5, c.HELLO, bidbox)
    for rid in range(1, 6):
        cap.now += 10
        seat = SEATS[rid - 1] if rid < 5 else "N"
        cap.host(c.CONFIG, {"seat": seat, "scan_ms": 50, "debounce_ms": 30}, rid)
        cap.now += 5
        cap.reader(rid, c.ACK, {"ack_seq": cap.host_seq - 1})
    cap.now = 1000
    cap.heartbeats(0)

    hands = deal()
    corrupted: tuple[int, int] | None = None
    for k in range(52):
        seat = SEATS[(1 + k) % 4]
        card = hands[seat][k // 4]
        cap.now += 350
        bad = k == 17
        seq = cap.observe(seat, card, "hand", "down", "above", corrupt=bad)
        if bad:
            corrupted = (SEATS.index(seat) + 1, seq)
        if k == 20 and corrupted:  # the host saw the gap in that reader's seq numbers
            rid, from_seq = corrupted
            cap.host(c.RESEND, {"from_seq": from_seq}, rid)
            cap.data += cap.sent[corrupted]  # resent with its original seq
        if k % 13 == 12:
            cap.heartbeats(k + 1)

    cap.now += 2000
    for seat, call in zip("NESWNES", ("1N", "P", "3N", "P", "P", "P"), strict=False):
        cap.now += 1500
        cap.reader(5, c.CALL, {"seat": seat, "call": call, "t": cap.t(5)})
    cap.heartbeats(52)

    # Declarer North, dummy South, East leads.
    led: str | None = None
    trick: list[tuple[str, str]] = []
    for seat in "ESWN":
        card = play_card(hands[seat], led)
        hands[seat].remove(card)
        led = led or card
        trick.append((seat, card))
        cap.now += 1800
        cap.observe(seat, card, "trick", "up", "at")
        if seat == "S":
            cap.data += b"\x55\x00"  # a noise burst with a stray delimiter in it
    winner = max(
        (p for p in trick if p[1][0] == trick[0][1][0]), key=lambda p: RANK_ORDER.index(p[1][1])
    )[0]
    cap.now += 2500
    for seat, card in trick:
        cap.now += 120
        cap.observe(seat, card, "table", "down", "at")
    cap.heartbeats(56)
    cap.now += 1500
    card = play_card(hands[winner], None)
    cap.observe(winner, card, "trick", "up", "at")
    return bytes(cap.data)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    data = build()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    dec = c.Decoder()
    items = dec.feed(data) + dec.feed_eof()
    errors = [i.kind for i in items if isinstance(i, c.RemoteProtocolError)]
    print(f"wrote {out}: {len(data)} bytes, {dec.counters['frames']} frames, errors {errors}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
