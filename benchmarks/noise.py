"""Noise: false alarms, missed exposures and wrong rulings per noise profile.

    .venv/bin/python benchmarks/noise.py --boards 1000
    .venv/bin/python benchmarks/noise.py --boards 300 --sweep

Robot boards (30% with a scripted true exposure: a dropped card, a card shown
to partner, a lead out of turn) are replayed clean and with each profile's
noise (tablesense.sim.noise); see tablesense.proving.noise_eval for what is counted.
``--sweep`` varies each tracker threshold around its default on the club and
hostile profiles: the numbers the defaults were chosen from.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from tablesense.engine.sensing import Tuning
from tablesense.proving.noise_eval import evaluate
from tablesense.sim.noise import PROFILES, load_profile

SWEEP = {
    "min_dwell_ms": (0, 50, 100, 150, 250),
    "conflict_ms": (0, 100, 250, 500, 1000),
    "transit_ms": (0, 250, 500),
    "dropout_ms": (0, 300, 1000),
    "min_conf": (0.0, 0.3, 0.6),
}


def row(s: dict[str, object]) -> str:
    return ("| {profile} | {boards} | {true_exposures} | {false_penalty_alerts} | "
            "{false_director_alerts} | {missed_exposures} | {wrong_rulings} | "
            "{added_latency_ms_median} / {added_latency_ms_max} | "
            "{detection_latency_ms_median} / {detection_latency_ms_max} |").format(**s)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profiles", nargs="*", default=list(PROFILES))
    ap.add_argument("--sweep", action="store_true")
    args = ap.parse_args()
    print("| profile | boards | true exposures | false penalty | false director | missed | "
          "wrong | added latency ms (median / max) | detection latency ms (median / max) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.profiles:
        t0 = time.perf_counter()
        res = evaluate(load_profile(name), args.boards, args.seed)
        s = res.summary()
        print(row(s), flush=True)
        print(json.dumps({**s, "seconds": round(time.perf_counter() - t0, 1),
                          "examples": res.examples}), file=sys.stderr)
    if args.sweep:
        default = Tuning()
        print("\n| threshold | value | club: false / missed / wrong | "
              "hostile: false / missed / wrong |")
        print("|---|---|---|---|")
        for knob, values in SWEEP.items():
            for v in values:
                tuning = dataclasses.replace(default, **{knob: v})
                cells = []
                for name in ("club", "hostile"):
                    s = evaluate(load_profile(name), args.boards, args.seed, tuning).summary()
                    cells.append(f"{s['false_penalty_alerts']}+{s['false_director_alerts']} / "
                                 f"{s['missed_exposures']} / {s['wrong_rulings']}")
                mark = " (default)" if getattr(default, knob) == v else ""
                print(f"| {knob} | {v}{mark} | {cells[0]} | {cells[1]} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
