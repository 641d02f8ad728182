"""Does a refactor change any ruling? Hash what the engine makes of random boards.

    PYTHONPATH=<tree>/host .venv/bin/python benchmarks/exactness.py --boards 300

For ``--boards`` seeds of each law code, the irregular board
(``tablesense.proving.irregular``) and, for a quarter of them, the same journal as
an RFID reader reports it (faces unknown on the table, every other observation
reported twice): one hash of the journals, one of every ruling, every reported
line and each engine's final state (``Engine.snapshot``). Run it under the tree
before and the tree after (PYTHONPATH): a refactor must print the same two hashes.
It is no benchmark of speed; it lives here beside the harness it reuses.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random

from tablesense.documents.replay import replay_steps
from tablesense.engine import Engine
from tablesense.proving.irregular import CODES, irregular_board


def as_rfid(lines: list[str], seed: int) -> list[str]:
    """The journal as an RFID reader reports it (tests/test_fast_path.py's re-reported
    RFID journals, written out here so that no benchmark imports a test)."""
    rng = random.Random(seed)
    events = [json.loads(line) for line in lines]
    out = []
    for i, ev in enumerate(events):
        if ev["type"] == "observe" and ev["zone"] in ("table", "floor"):
            ev["face"] = "unknown"
        out.append(ev)
        if ev["type"] == "observe" and rng.random() < 0.5:
            nxt = events[i + 1]["t"] if i + 1 < len(events) else ev["t"] + 80
            out.append({**ev, "t": (ev["t"] + nxt) // 2})
    return [json.dumps(e, separators=(",", ":")) for e in out]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=300, help="seeds a code (default 300)")
    args = ap.parse_args()
    journals, rulings = hashlib.sha256(), hashlib.sha256()
    boards = [irregular_board(seed, code).lines() for code in CODES
              for seed in range(args.boards)]
    boards += [as_rfid(irregular_board(seed, code).lines(), seed) for code in CODES
               for seed in range(args.boards // 4)]
    for lines in boards:
        journals.update("\n".join(lines).encode())
        engines: dict[int, Engine] = {}
        for step in replay_steps(lines, None):
            if step.engine is not None:
                engines[id(step.engine)] = step.engine
            if step.error is not None:
                rulings.update(step.error.encode())
            for r in step.rulings:
                rulings.update(json.dumps(r.to_json(), sort_keys=True).encode())
        rulings.update(json.dumps([e.snapshot() for e in engines.values()], sort_keys=True,
                                  default=str).encode())
    print(json.dumps({"boards": len(boards), "journals": journals.hexdigest()[:16],
                      "rulings_and_state": rulings.hexdigest()[:16]}))


if __name__ == "__main__":
    main()
