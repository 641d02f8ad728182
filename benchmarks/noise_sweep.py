"""The firmware debouncer's noise settings, swept in the MicroPython VM.

    .venv/bin/python benchmarks/noise_sweep.py --boards 10 --jobs 2

Each demo board's four readers run the reader firmware on the simulated
hardware in the VM (firmware/sim/vrun.py, virtual time; ``--readers
vm-rfid`` for the RFID reader at a board's timing) once clean and once per
noise profile, for each value of the debouncer's zone hold (``HOLD_MS``) and
gone time (``GONE_MS``). Counted per setting: the cards whose reported
sequence of states differs from the clean run's (an extra change, a missing
one: what the host would see as noise), and, clean, how late the reports
come after the scenario's change (median / 95th percentile; gone separately).
``boundary`` is the club profile with every move resting on a zone boundary
(flicker 1): the club profile alone moves few cards across one.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from noise_readers import vm_frames

from tablesense.demo.schedule import SEATS, table_timeline
from tablesense.sim.firmware import expected_timeline
from tablesense.sim.noise import Profile, load_profile

HOLDS = (0, 50, 100, 150, 250)
GONES = (150, 250, 400, 600)
DEFAULT = (150, 400)


def profiles(names: list[str]) -> dict[str, Profile]:
    out = {}
    for n in names:
        if n == "boundary":
            out[n] = dataclasses.replace(load_profile("club"), name="boundary", flicker=1.0)
        else:
            out[n] = load_profile(n)
    return out


def per_card(obs: list[dict[str, Any]]) -> dict[str, list[tuple[Any, ...]]]:
    d: dict[str, list[tuple[Any, ...]]] = {}
    for o in obs:
        d.setdefault(o["card"], []).append((o["zone"], o["face"], o["level"],
                                            tuple(o.get("seen_by") or ()), o.get("rt")))
    return d


def one(args: tuple[Any, ...]) -> dict[str, Any]:
    n, seed, speed, kind, scan, hold, gone, names = args
    tl = table_timeline("1", 1, seed * 100003 + n, speed, 0.5)
    whole = [line for s in SEATS for line in tl.scenario(s)]
    extra = ("--hold-ms", str(hold), "--gone-ms", str(gone))
    res: dict[str, Any] = {"lat": [], "gone_lat": [], "diff": {}, "changes": 0}
    model = kind[3:]  # vm-camera -> camera
    for k, seat in enumerate(SEATS):
        clean, _ = vm_frames(whole, seat, model, None, 0, scan, extra)
        want = expected_timeline(whole, seat, model)
        by_card: dict[str, list[int]] = {}
        for t, f in want:
            by_card.setdefault(f["card"], []).append(t)
        c = per_card(clean)
        res["changes"] += len(clean)
        for card, seq in c.items():
            for (zone, *_, rt), t in zip(seq, by_card.get(card, []), strict=False):
                (res["gone_lat"] if zone == "gone" else res["lat"]).append(rt - t)
        for name, prof in profiles(names).items():
            noisy, _ = vm_frames(whole, seat, model, prof, n * 4 + k, scan, extra)
            d = per_card(noisy)
            bad = sum(1 for card in set(c) | set(d)
                      if [x[:4] for x in c.get(card, [])] != [x[:4] for x in d.get(card, [])])
            res["diff"][name] = res["diff"].get(name, 0) + bad
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readers", choices=("camera", "rfid"), default="camera")
    ap.add_argument("--boards", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", type=float, default=1.0)
    ap.add_argument("--profiles", nargs="*", default=["club", "boundary", "hostile"])
    ap.add_argument("--scan-ms", type=int, default=20)
    ap.add_argument("--debounce-ms", type=int, default=40)
    ap.add_argument("--rf-ms", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    scan = (args.scan_ms, args.debounce_ms, args.rf_ms)
    settings = [(h, DEFAULT[1]) for h in HOLDS] + [(DEFAULT[0], g) for g in GONES
                                                   if g != DEFAULT[1]]
    print(f"{args.boards} boards x 4 readers ({args.readers}, scan {scan[0]} ms + RF "
          f"{scan[2]} ms, debounce {scan[1]} ms, speed {args.speed:g})")
    print("| hold ms | gone ms | cards differing from clean: "
          + " / ".join(args.profiles) + " | clean latency ms, change (median / p95) "
          "| gone (median / p95) |")
    print("|---|---|---|---|---|")
    for hold, gone in settings:
        work = [(n, args.seed, args.speed, "vm-" + args.readers, scan, hold, gone,
                 args.profiles) for n in range(1, args.boards + 1)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as ex:
                results = list(ex.map(one, work))
        else:
            results = [one(w) for w in work]
        lat = sorted(x for r in results for x in r["lat"])
        glat = sorted(x for r in results for x in r["gone_lat"])
        diffs = " / ".join(str(sum(r["diff"].get(p, 0) for r in results))
                           for p in args.profiles)
        mark = " (default)" if (hold, gone) == DEFAULT else ""

        def pct(xs: list[int], q: float) -> int:
            return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0

        print(f"| {hold}{mark} | {gone} | {diffs} | "
              f"{statistics.median(lat) if lat else 0:g} / {pct(lat, 0.95)} | "
              f"{statistics.median(glat) if glat else 0:g} / {pct(glat, 0.95)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
