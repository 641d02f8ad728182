"""The reader firmware in the MicroPython unix VM: cost per scan and frames per second.

    .venv/bin/python benchmarks/firmware.py [--repeat 5] [--scans 200] [--frames 3000]

Runs, ``--repeat`` times each, the firmware's own benchmark
(``firmware/sim/bench.py``: a steady scan of 13 table cards and one trick card
through the simulated PN5180 (the table build) and SPI bus, and the loop alone with a canned
scanner) and ``benchmarks/firmware_vm.py`` (``Reader.send`` into a null
stream, unsigned and signed, and a scan in which all 14 cards move). Prints
the medians as one JSON object, with the line rate for comparison: at
115200 baud a 23-byte OBSERVE frame (37 signed) leaves every 2.0 ms (3.2 ms).

These are unix-VM numbers on this PC; an RP2040 at 125 MHz runs MicroPython
some 10-30 times slower, so read them as relative costs (signed vs
unsigned, scan vs line) and see hardware/README.md for the board budget.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tablesense.firmware.build import place_shared

ROOT = Path(__file__).resolve().parent.parent
VM = Path(sys.executable).parent / "micropython"


def run_vm(script: Path, arg: int, codec_dir: Path) -> str:
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([str(ROOT / "firmware"), str(codec_dir),
                                                        ".frozen"]))
    done = subprocess.run([str(VM), str(script), str(arg)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return done.stdout.strip().splitlines()[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scans", type=int, default=200)
    ap.add_argument("--frames", type=int, default=3000)
    args = ap.parse_args()
    if not VM.exists():
        print("no MicroPython VM beside this python", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="ts-fw-") as tmp:
        place_shared(Path(tmp))
        bench: dict[str, list[float]] = {}
        sends: dict[str, list[float]] = {}
        for i in range(args.repeat):
            line = run_vm(ROOT / "firmware" / "sim" / "bench.py", args.scans, Path(tmp))
            for key, value in re.findall(r"(\w+)=([\d.]+)", line):
                bench.setdefault(key, []).append(float(value))
            got = json.loads(run_vm(Path(__file__).parent / "firmware_vm.py", args.frames,
                                    Path(tmp)))
            for key, value in got.items():
                sends.setdefault(key, []).append(float(value))
            print(f"run {i + 1}: {line} | {got}", file=sys.stderr)
    med = {k: round(statistics.median(v), 3) for k, v in {**bench, **sends}.items()}
    med["line_rate_frames_per_s_unsigned"] = round(115200 / 10 / 23)
    med["line_rate_frames_per_s_signed"] = round(115200 / 10 / 37)
    med["repeat"] = args.repeat
    print(json.dumps(med))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
