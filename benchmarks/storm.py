"""Storm rate: boards with one or two random irregularities, replayed through the engine.

    .venv/bin/python benchmarks/storm.py --boards 10000

Generates ``--boards`` boards (``tablesense.proving.irregular``), spread evenly over
the five law codes, seeds ``--seed`` .. ``--seed + boards/5 - 1`` under each
code, replays each one and counts the *storms*: boards whose penalty and
director rulings exceed 2 x incidents + 3 (issue 13). Prints, per code, the
storm rate, the boards that did not end (13 tricks or a claim) and those
whose replay is not byte-for-byte repeatable; then the worst seeds with the
first false ruling of each, and the most common first false rulings. Progress
goes to standard error. ``--code`` restricts to one code (then all boards are
of that code).

``--readers rfid`` (or ``mixed``: three RFID readers and one camera reader,
its seat by the seed) replays each board as honest readers would report it
(``tablesense.proving.honest``: ``sim.convert``'s model of the firmware) and counts
instead the boards with a *false ruling* (a kind the full-truth replay of the
same board does not make), those that do not end, the storms, and the boards
with more out-of-step/director rulings than incidents; then the false
rulings by kind and the first seeds of each::

    .venv/bin/python benchmarks/storm.py --readers rfid --boards 2000
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from tablesense.proving.honest import READERS, HonestVerdict, judge_honest
from tablesense.proving.irregular import CODES, IRREGULARITIES, IrregularBoard, irregular_board
from tablesense.proving.storm import Measured, Verdict, judge

V = TypeVar("V", bound=Measured)


def pattern(v: Verdict) -> str:
    """A storm in a few words, for counting: the irregularity after which the engine lost
    the table, and the kind of its first false ruling."""
    assert v.first_false is not None
    kind = v.first_false.split(" ")[1]
    return f"after {v.cause}: first false ruling {kind}"


def judge_all(codes: Sequence[str], first: int, per_code: int,
              judge_one: Callable[[IrregularBoard], V], counted: Callable[[V], bool],
              what: str, every: int) -> dict[str, list[V]]:
    """Each code's boards, seeds ``first`` on, judged; progress on standard error every
    ``every`` boards, with how many are ``counted`` (``what``)."""
    verdicts: dict[str, list[V]] = {c: [] for c in codes}
    total = per_code * len(codes)
    t0 = time.perf_counter()
    done = bad = 0
    for code in codes:
        for seed in range(first, first + per_code):
            v = judge_one(irregular_board(seed, code))
            verdicts[code].append(v)
            done += 1
            bad += counted(v)
            if done % every == 0 or done == total:
                print(f"\r{done}/{total} boards, {bad} {what}, "
                      f"{time.perf_counter() - t0:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return verdicts


def per_code_table(verdicts: dict[str, list[V]], columns: Sequence[str],
                   row: Callable[[list[V]], Sequence[object]]) -> None:
    """One markdown row per code and one for all of them: boards, incidents, then ``row``."""
    print("| code | boards | incidents | " + " | ".join(columns) + " |")
    print("|---|---|---|" + "---|" * len(columns))
    everything = [v for vs in verdicts.values() for v in vs]
    for code, vs in (*verdicts.items(), ("all", everything)):
        cells = [len(vs), sum(v.board.incidents for v in vs), *row(vs)]
        print(f"| {code} | " + " | ".join(str(c) for c in cells) + " |")


def per_irregularity_table(verdicts: dict[str, list[V]],
                           cell: Callable[[list[V]], str]) -> None:
    """One markdown row per irregularity: ``cell`` of the boards with it, per code."""
    codes = list(verdicts)
    print("| irregularity | " + " | ".join(codes) + " |")
    print("|---|" + "---|" * len(codes))
    for kind in IRREGULARITIES:
        cells = []
        for code in codes:
            with_it = [v for v in verdicts[code]
                       if any(n.startswith(kind + ":") for n in v.board.injected)]
            cells.append(cell(with_it) if with_it else "-")
        print(f"| {kind} | " + " | ".join(cells) + " |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=10_000, help="boards in all (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--code", choices=CODES, help="only this code")
    ap.add_argument("--examples", type=int, default=3, help="worst seeds shown per code")
    ap.add_argument("--readers", choices=("truth", *READERS), default="truth",
                    help="the readers the boards are replayed as (default truth: full-truth "
                    "readers, the storm count)")
    args = ap.parse_args()
    codes = (args.code,) if args.code else CODES
    per_code = max(1, args.boards // len(codes))
    seeds = f"{per_code * len(codes)} boards ({per_code} per code, seeds {args.seed}.." \
            f"{args.seed + per_code - 1})"
    if args.readers != "truth":
        return honest(args, codes, per_code, seeds)
    verdicts = judge_all(codes, args.seed, per_code, judge, lambda v: v.storm, "storms", 500)
    print(f"{seeds}, bound: penalty + director rulings <= 2 x incidents + 3\n")

    def row(vs: list[Verdict]) -> list[object]:
        storms = sum(v.storm for v in vs)
        return [storms, f"{100 * storms / len(vs):.1f}%", sum(not v.ended for v in vs),
                sum(v.drift is not None for v in vs), sum(bool(v.unexpected) for v in vs),
                sum(judge(v.board).output != v.output for v in vs if v.storm),
                max(len(v.alerts) for v in vs)]

    per_code_table(verdicts, ("storms", "storm rate", "not ended", "lost the trick",
                              "unexpected kind", "not repeatable", "most alerts"), row)
    print("\n(lost the trick: the engine's trick left the table's and did not come back "
          "before the table finished the next trick; unexpected kind: boards with a penalty "
          "or director ruling of a kind none of their irregularities gives (storm.EXPECTED), "
          "storm or not; not repeatable: checked on the storms, each replayed a second time)")
    print("\nStorm rate of the boards with each irregularity (alone or with another):\n")
    per_irregularity_table(verdicts, lambda vs: (
        f"{100 * sum(v.storm for v in vs) / len(vs):.0f}% of {len(vs)}"))
    print("\nWorst seeds (alerts / bound), with the first false ruling:")
    for code in codes:
        worst = sorted((v for v in verdicts[code] if v.storm),
                       key=lambda v: (-len(v.alerts), v.board.seed))[:args.examples]
        for v in worst:
            print(f"- {code} seed {v.board.seed}: {len(v.alerts)} / {v.bound}; "
                  f"{'; '.join(v.board.injected)}\n    {v.first_false}")
    print("\nBoards with a ruling of an unexpected kind (first seeds):")
    for code in codes:
        odd = [v for v in verdicts[code] if v.unexpected]
        print(f"- {code}: " + "; ".join(
            f"{v.board.seed} ({', '.join(sorted({r.kind for r in v.unexpected}))} after "
            f"{' + '.join(n.split(':')[0] for n in v.board.injected)})"
            for v in odd[:args.examples * 2]))
    print("\nBoards that lost the trick without a storm (first seeds):")
    for code in codes:
        quiet = [v for v in verdicts[code] if v.drift is not None and not v.storm]
        print(f"- {code}: " + ", ".join(f"{v.board.seed} (after {v.cause})"
                                        for v in quiet[:args.examples * 2]))
    print("\nStorms by what the engine lost the table after, most common first:")
    for code in codes:
        counts = collections.Counter(pattern(v) for v in verdicts[code] if v.storm)
        print(f"- {code}: " + "; ".join(f"{n} {what}" for what, n in counts.most_common(6)))
    return 0


def honest(args: argparse.Namespace, codes: tuple[str, ...], per_code: int, seeds: str) -> int:
    """``--readers rfid|mixed``: false rulings, unended boards and storms."""
    verdicts = judge_all(codes, args.seed, per_code,
                         lambda b: judge_honest(b, args.readers), lambda v: bool(v.false),
                         "with a false ruling", 100)
    print(f"{seeds}, readers {args.readers}; false ruling: a kind the full-truth replay of "
          "the board does not make\n")

    def row(vs: list[HonestVerdict]) -> list[object]:
        false = sum(bool(v.false) for v in vs)
        return [f"{false} ({100 * false / len(vs):.1f}%)",
                sum(any(r.severity != "info" for r in v.false) for v in vs),
                sum(not v.ended for v in vs), sum(v.storm for v in vs),
                sum(len(v.out_of_step) > v.board.incidents for v in vs)]

    per_code_table(verdicts, ("false ruling", "false penalty/director", "not ended", "storms",
                              "out-of-step/director > incidents"), row)
    print("\nBoards with a false ruling among those with each irregularity (alone or with "
          "another):\n")
    per_irregularity_table(verdicts, lambda vs: f"{sum(bool(v.false) for v in vs)} of {len(vs)}")
    print("\nFalse rulings by kind (boards; first seeds, code and irregularities):\n")
    by: dict[tuple[str, str], list[HonestVerdict]] = collections.defaultdict(list)
    for v in (v for vs in verdicts.values() for v in vs):
        for key in sorted({(r.kind, r.severity) for r in v.false}):
            by[key].append(v)
    for (kind, severity), vs in sorted(by.items(), key=lambda x: -len(x[1])):
        print(f"- {kind} ({severity}): {len(vs)} boards")
        for v in vs[:args.examples]:
            print(f"    {v.board.code} seed {v.board.seed}: {'; '.join(v.board.injected)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
