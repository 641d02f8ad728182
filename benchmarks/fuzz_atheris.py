"""Coverage-guided fuzzing (atheris, libFuzzer) of the parsers that take outside input.

    .venv/bin/pip install atheris            # optional; a binary wheel for CPython 3.11
    .venv/bin/python benchmarks/fuzz_atheris.py --target codec --runs 200000
    .venv/bin/python benchmarks/fuzz_atheris.py --target signed --seconds 60
    .venv/bin/python benchmarks/fuzz_atheris.py --target journal --runs 100000

Targets (the same invariants as tests/test_fuzz.py, which CI runs with
hypothesis):

* ``codec``: any bytes, split at a fuzzer-chosen point, into a keyless
  ``Decoder``: frames or ``RemoteProtocolError``; every error counted once;
  never more than 2 x MAX_ENCODED bytes held.
* ``signed``: the same into a ``Decoder(key)``, plus: a decoded frame always
  has a stamp (a good MAC), so nothing unsigned or forged gets through.
* ``journal``: any bytes as the text of a journal: every non-blank line is an
  event or one reported error (``JournalError``), never an exception.

Any other exception, or a broken invariant (AssertionError), is a crash:
libFuzzer prints the input and writes it to ``crash-*``. On stdout, one JSON
line after the last run (every 50,000 with ``--seconds``): inputs run,
frames and events accepted, and every rejection by kind.
Not in CI (it runs as long as you let it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import atheris  # type: ignore[import-untyped,unused-ignore]

with atheris.instrument_imports():
    from tablesense.contract.journal import JournalError, parse_lines
    from tablesense.onboard.wire import codec

ROOT = Path(__file__).resolve().parent.parent
KEY = bytes.fromhex(json.loads((ROOT / "hardware" / "protocol" / "vectors.json").read_text())
                    ["signed"]["key"])  # the vectors' key, so signed seeds verify
STATS: Counter[str] = Counter()
REPORT_EVERY = [0]  # libFuzzer leaves with _exit (no atexit): report as we go


def count_input() -> None:
    STATS["inputs"] += 1
    if REPORT_EVERY[0] and STATS["inputs"] % REPORT_EVERY[0] == 0:
        print(json.dumps(dict(STATS)), flush=True)


def check(dec: codec.Decoder, items: list[Any]) -> None:
    assert dec.buffered <= 2 * codec.MAX_ENCODED
    frames = sum(isinstance(i, codec.Frame) for i in items)
    assert dec.counters["frames"] == frames
    counted = sum(v for k, v in dec.counters.items() if k not in ("frames", "garbage_bytes"))
    assert counted == len(items) - frames
    STATS["frames"] += frames
    for i in items:
        if isinstance(i, codec.RemoteProtocolError):
            STATS["rejected:" + i.kind] += 1
        elif dec.key is not None:
            assert i.stamp is not None, i


def wire_of(mode: int, rest: bytes, key: bytes | None) -> bytes:
    """Mode 0: the bytes as they are. 1: a frame body, CRC and COBS made good, so the
    fuzzer gets past the CRC to the header, flags, type and payload checks. 2: the
    same, signed with the key (past the MAC too)."""
    if mode == 0 or len(rest) < codec.HEADER_LEN:
        return rest
    if mode == 1 or key is None:
        return codec.cobs_encode(rest + codec.crc32(rest).to_bytes(4, "little")) + b"\x00"
    v, f, r, lo, hi, t = rest[:6]
    return codec.pack_signed(v, f, r, lo | hi << 8, t, rest[6:], key, len(rest))


def decoder_target(key: bytes | None) -> Any:
    def target(data: bytes) -> None:
        count_input()
        fdp = atheris.FuzzedDataProvider(data)
        mode = fdp.ConsumeIntInRange(0, 2)
        cut = fdp.ConsumeIntInRange(0, 255)
        rest = wire_of(mode, fdp.ConsumeBytes(fdp.remaining_bytes()), key)
        dec = codec.Decoder(key) if key else codec.Decoder()
        items = dec.feed(rest[:cut]) + dec.feed(rest[cut:]) + dec.feed_eof()
        check(dec, items)
    return target


def journal_target(data: bytes) -> None:
    count_input()
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    out = list(parse_lines(lines))
    assert len(out) <= sum(1 for x in lines if x.strip())
    for n, item in out:
        if isinstance(item, JournalError):
            assert item.line == n
            STATS["rejected:" + item.field.split(".")[0]] += 1
        else:
            STATS["events"] += 1


def make_seeds(target: str, d: Path) -> None:
    """A starting corpus: the golden vectors' frames, or the example journals."""
    if target == "journal":
        for i, p in enumerate(sorted((ROOT / "examples" / "journals").glob("*.jsonl"))):
            (d / f"j{i}").write_bytes(p.read_bytes())
        return
    vectors = json.loads((ROOT / "hardware" / "protocol" / "vectors.json").read_text())
    frames = [v["hex"] for v in vectors["good"] + vectors["bad"]]
    frames += [v["hex"] for v in vectors["signed"]["good"]]
    for i, h in enumerate(frames):
        (d / f"f{i}").write_bytes(b"\x00\x00" + bytes.fromhex(h))  # mode 0, no cut


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", choices=("codec", "signed", "journal"), default="codec")
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--seconds", type=int, default=0, help="stop after this long instead")
    args, rest = ap.parse_known_args()
    target = {"codec": decoder_target(None), "signed": decoder_target(KEY),
              "journal": journal_target}[args.target]
    seeds = tempfile.mkdtemp(prefix="ts-fuzz-seeds-")
    make_seeds(args.target, Path(seeds))
    libfuzzer = [sys.argv[0], "-max_len=4096", *rest, seeds]
    if args.seconds:
        libfuzzer.append(f"-max_total_time={args.seconds}")
        REPORT_EVERY[0] = 50_000
    else:
        libfuzzer.append(f"-runs={args.runs}")
        REPORT_EVERY[0] = args.runs  # the last input: one line with the totals
    STATS["target:" + args.target] = 1
    atheris.Setup(libfuzzer, target)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
