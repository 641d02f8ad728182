"""What replaying costs, counted rather than timed: cProfile's call counts.

    PYTHONPATH=<tree>/host .venv/bin/python benchmarks/calls.py --boards 100

Replays ``--boards`` robot boards (``benchmarks/engine.py``'s journal, seed 1,
one journal) and the irregular boards of seeds 0..``--boards``/2 of each law
code (a journal each) through ``replay_lines`` under cProfile, and prints the
calls (Python and built-in) each set made, in all and a journal line, and the
lines the replay refused (none expected). Unlike a time, the count does not move
with the machine's load: run it under the tree before and after a change and
compare the two.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats

from engine import journal_lines

from tablesense.documents.replay import replay_lines
from tablesense.proving.irregular import CODES, irregular_board


def calls(journals: list[list[str]]) -> tuple[int, int]:
    """Calls made replaying each journal in turn, and the lines refused."""
    refused = 0
    prof = cProfile.Profile()
    prof.enable()
    for lines in journals:
        for out in replay_lines(lines):
            refused += isinstance(out, str)
    prof.disable()
    return int(pstats.Stats(prof).total_calls), refused  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=100, help="robot boards (default 100)")
    args = ap.parse_args()
    sets = {"robot": [list(journal_lines(args.boards, 1))],
            "irregular": [irregular_board(seed, code).lines() for code in CODES
                          for seed in range(args.boards // 2)]}
    out: dict[str, dict[str, float]] = {}
    for name, journals in sets.items():
        n, refused = calls(journals)
        lines = sum(len(j) for j in journals)
        out[name] = {"lines": lines, "refused": refused, "calls": n,
                     "a_line": round(n / lines, 2)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
