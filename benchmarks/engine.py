"""Engine throughput: generate a large journal of robot boards and replay it.

    .venv/bin/python benchmarks/engine.py --boards 10000

Prints events/s and observations/s of replay through the engine (parsing
included, as ``tablesense replay`` does), of the engine alone on pre-parsed
events, and the peak resident memory. Runs are repeated and the median is
reported; the machine is shared, so compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time

from tablesense.engine import Engine, Ruling
from tablesense.events import parse_event
from tablesense.laws import CODES
from tablesense.replay import replay_lines
from tablesense.robots import MISHAPS, Board


def make_journal(boards: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines: list[str] = []
    t = 0
    for n in range(1, boards + 1):
        mishap = rng.choice(MISHAPS) if rng.random() < 0.1 else None
        b = Board("1", n, random.Random(rng.random()), t0=t, mishap=mishap)
        lines.extend(json.dumps(e) for e in b.events())
        t = b.t
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    lines = make_journal(args.boards, args.seed)
    gen = time.perf_counter() - t0
    n_obs = sum(1 for x in lines if '"observe"' in x)
    print(f"journal: {args.boards} boards, {len(lines)} events, {n_obs} observations "
          f"(generated in {gen:.1f} s)", file=sys.stderr)
    events = [parse_event(json.loads(x)) for x in lines]
    full, engine_only = [], []
    rulings = 0
    for i in range(args.repeat):
        t0 = time.perf_counter()
        rulings = sum(1 for r in replay_lines(lines) if isinstance(r, Ruling))
        full.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        eng = Engine(codes=CODES)
        for e in events:
            eng.apply(e)
        eng.flush()
        engine_only.append(time.perf_counter() - t0)
        print(f"run {i + 1}: replay {full[-1]:.2f} s, engine {engine_only[-1]:.2f} s",
              file=sys.stderr)
    med_full, med_eng = statistics.median(full), statistics.median(engine_only)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({
        "boards": args.boards, "events": len(lines), "observations": n_obs,
        "rulings": rulings,
        "replay_events_per_s": round(len(lines) / med_full),
        "replay_observations_per_s": round(n_obs / med_full),
        "engine_observations_per_s": round(n_obs / med_eng),
        "engine_share_of_replay": round(med_eng / med_full, 2),
        "peak_rss_mib": round(rss_mib, 1),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
