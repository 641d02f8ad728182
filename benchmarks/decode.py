"""Frame decoding on the host: the shared codec's Decoder against the links' FastDecoder,
and the whole reader session (daemon/session.py) that a link feeds.

    .venv/bin/python benchmarks/decode.py [--frames 20000] [--repeat 5]

The stream is what the line-rate benchmark's readers send (``scale.py``:
OBSERVE frames of one seat's cards, face down in the hand, level toggling,
a heartbeat every 500 frames), cut into the 4 KiB reads a link makes. Each
decoder is run ``--repeat`` times on it, alternating; reported per decoder:
frames per CPU-second of this process (median of the runs), so that a busy
machine's waits do not count. ``session`` is the same stream through
``ReaderSession.receive`` after a HELLO (decoding, sequence order, trust,
one message per observation for the core): what the protocol costs a link
beyond decoding. One JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from typing import Protocol

from tablesense.daemon.fastwire import FastDecoder
from tablesense.daemon.session import ReaderSession
from tablesense.onboard.wire import codec

CARDS = ("SA", "HK", "D2", "C9", "ST")


def stream(n: int) -> list[bytes]:
    data = bytearray()
    for i in range(n):
        if i % 500 == 499:
            data += codec.encode(codec.HEARTBEAT, {"uptime": i, "reads": i, "errors": 0,
                                                   "dropped": 0}, reader=1, seq=i & 0xFFFF)
            continue
        data += codec.encode(codec.OBSERVE, {"seat": "N", "card": CARDS[i % 5], "zone": "hand",
                                             "face": "down", "level": "above" if i % 2 else "at",
                                             "t": i * 7}, reader=1, seq=i & 0xFFFF)
    return [bytes(data[i:i + 4096]) for i in range(0, len(data), 4096)]


class Feeds(Protocol):
    def feed(self, data: bytes, /) -> Sequence[object]: ...


def run(decoder: Feeds, chunks: list[bytes]) -> tuple[int, float]:
    c0 = time.process_time()
    n = sum(len(decoder.feed(c)) for c in chunks)
    return n, time.process_time() - c0


class Session:
    """A reader's session after its HELLO, fed like a decoder (``feed`` gives its actions)."""

    def __init__(self) -> None:
        self.s = ReaderSession("1", "N", now=0)
        self.s.receive(codec.encode(codec.HELLO, {"kind": "rfid", "firmware": "0.5.0",
                                                  "serial": "B", "capabilities": []},
                                    reader=1, seq=0xFFFF), 0)

    def feed(self, data: bytes, /) -> Sequence[object]:
        return self.s.receive(data, 1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    chunks = stream(args.frames)
    rates: dict[str, list[float]] = {"codec": [], "fastwire": [], "session": []}
    makers = (("codec", codec.Decoder), ("fastwire", FastDecoder), ("session", Session))
    for _ in range(args.repeat):
        for name, make in makers:
            n, cpu = run(make(), chunks)
            # the session hands the core the observations (and a CONFIG for the HELLO)
            assert n == (args.frames if name != "session" else
                         args.frames - args.frames // 500), (name, n)
            rates[name].append(args.frames / max(cpu, 1e-9))
    out = {f"{name}_frames_per_cpu_s": round(statistics.median(r)) for name, r in rates.items()}
    out["speedup"] = round(out["fastwire_frames_per_cpu_s"] / out["codec_frames_per_cpu_s"], 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
