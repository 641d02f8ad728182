"""Python calls an event: the engine's cost counted, not timed (no clock, no load).

    PYTHONPATH=<tree>/host .venv/bin/python benchmarks/calls.py --boards 100

Replays the journal of ``--boards`` robot boards (benchmarks/engine.py's, seed 1)
through one ``Engine`` under cProfile and prints the calls it made (Python and
built-in functions alike), the events, and calls an event. The same journal under
two trees shows whether a change added calls on the engine's paths: a refactor that
moves code between owners should not.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine import journal_lines

from tablesense.contract.events import Event
from tablesense.contract.journal import parse_lines
from tablesense.engine import Engine
from tablesense.laws import CODES


def calls(boards: int, seed: int) -> dict[str, float]:
    lines = [line.encode() for line in journal_lines(boards, seed)]
    events = [e for _, e in parse_lines(lines) if isinstance(e, Event)]
    eng = Engine(codes=CODES)
    prof = cProfile.Profile()
    prof.enable()
    for e in events:
        eng.apply(e)
    eng.flush()
    prof.disable()
    total = sum(row[1] for row in pstats.Stats(prof).stats.values())  # type: ignore[attr-defined]
    return {"boards": boards, "events": len(events), "calls": total,
            "calls_per_event": round(total / len(events), 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(json.dumps(calls(args.boards, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
