"""The camera pipeline on rendered frames: accuracy per condition, speed, latency (issue 17).

    .venv/bin/python benchmarks/vision.py --frames 60
    .venv/bin/python benchmarks/vision.py --frames 60 --json

1. Accuracy: ``--frames`` random moments of a board (tablesense.vision.evaluate),
   every camera (the overhead, four floor cameras, four eye lines), under each condition
   (clean, glare, blur, occlusion): identity, face and zone accuracy, false
   detections, and the share of readable faces read.
2. Speed on one core (OpenCV and BLAS held to one thread): each camera's whole
   frame recognised (every region it reads, none skipped as unchanged), median
   ms and frames/s.
3. The board's CPU as the demo runs it: one table's timetable (seed 7, speed 20, 3
   boards) on a clock that runs the board's own CPU time: CPU a frame, for the
   timetable, and the lag a board with a core of its own builds up.
4. Latency from a card's move to its OBSERVE: one board of the demo's timetable
   (seed 7, speed 20) played in real time by the camera board, each change's
   OBSERVE time minus the time the card moved (debounce included); and minus
   the time the frame that saw it was taken (what the board adds when it keeps
   up: the frame's rendering and recognition, and the debounce).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "host"))

from tablesense.demo.schedule import table_timeline
from tablesense.vision import geometry as g
from tablesense.vision.evaluate import calibrated_recognisers, moment, score
from tablesense.vision.reader import VisionCore
from tablesense.vision.render import CONDITIONS, Renderer

CONDITION_NAMES = ("clean", "glare", "blur", "occlusion")


def accuracy(frames: int, seed: int) -> dict[str, dict[str, Any]]:
    renderer = Renderer(g.rig())
    recs = calibrated_recognisers(renderer)
    out = {}
    for name in CONDITION_NAMES:
        s = score(replace(CONDITIONS[name], seed=seed), frames, seed=seed, renderer=renderer,
                  recognisers=recs)
        out[name] = {**s.ratios(), "frames": s.frames, "moments": frames, "named": s.named,
                     "named_right": s.named_right, "legible": s.legible, "false": s.false,
                     "wrong": s.wrong[:10]}
    return out


def speed(frames: int, seed: int) -> dict[str, Any]:
    import random

    renderer = Renderer(g.rig())
    recs = calibrated_recognisers(renderer)
    rng = random.Random(seed)
    times: dict[str, list[float]] = {name: [] for name in recs}
    for i in range(frames):
        placed = moment(rng).placed()
        for name, rec in recs.items():
            img = np.asarray(renderer.render(name, placed, CONDITIONS["clean"], i))
            t0 = time.perf_counter()
            rec.recognise(img, force=True)
            times[name].append(time.perf_counter() - t0)
    out: dict[str, Any] = {}
    for name, ts in times.items():
        med = statistics.median(ts)
        cam = renderer.cameras[name]
        out[name] = {"size": f"{cam.width}x{cam.height}", "median_ms": round(1000 * med, 1),
                     "fps": round(1 / med, 1)}
    return out


def latency(seed: int = 7, speed_x: float = 20.0) -> dict[str, Any]:
    tl = table_timeline("1", boards=1, seed=seed, speed=speed_x)
    lines = [line for s in "NESW" for line in tl.scenario(s)]
    core = VisionCore(lines)
    zero = time.monotonic()

    def clock() -> int:
        return int((time.monotonic() - zero) * 1000)

    core.clock = clock
    end = max(int(e["t"]) for e in lines) + 3000
    lat: list[int] = []
    service: list[int] = []  # from the frame that saw the move: what a board keeping up adds
    frame_ms: list[float] = []
    observed = 0
    while clock() < end + core.lag:
        now = clock()
        f0 = core.frames
        t0 = time.perf_counter()
        for f in core.scan(now):
            observed += 1
            lat.append(clock() - core.moved_at[f["card"]])
            service.append(clock() - core.taken)
        if core.frames != f0:
            frame_ms.append(1000 * (time.perf_counter() - t0))
        left = 0.020 - (time.monotonic() - zero - now / 1000)
        if left > 0:
            time.sleep(left)
    lat.sort()
    service.sort()
    return {"board": f"seed {seed}, speed {speed_x:g}, 1 board", "moves": len(lines),
            "observed": observed, "frames": core.frames,
            "frame_ms_median": round(statistics.median(frame_ms), 1),
            "frame_ms_p95": round(frame_ms_sorted(frame_ms, 0.95), 1),
            "latency_ms_median": statistics.median(lat),
            "latency_ms_p95": lat[int(0.95 * len(lat))], "latency_ms_max": lat[-1],
            "lag_ms_at_end": core.lag, "frame_to_observe_ms_median": statistics.median(service),
            "frame_to_observe_ms_p95": service[int(0.95 * len(service))]}


def board_cpu(seed: int = 7, speed_x: float = 20.0, boards: int = 3) -> dict[str, Any]:
    """The demo's timetable for one table (``boards`` boards) played by a camera board with
    a core of its own: its clock runs 20 ms a scan plus the CPU time the board spent
    (this thread's), read by the board's clock too, so the figures do not depend on what
    else the machine runs. Each frame's CPU (render where cards moved, the recogniser's
    differencing and reads, fusion), the board's CPU for the whole timetable, and the
    ``lag`` it built up (move to the release of its frame's reading)."""
    tl = table_timeline("1", boards=boards, seed=seed, speed=speed_x)
    lines = [line for s in "NESW" for line in tl.scenario(s)]
    core = VisionCore(lines)
    base, t0 = 0.0, 0.0

    def clock() -> int:
        return int(base + (time.thread_time() - t0) * 1000)

    core.clock = clock
    end = max(int(e["t"]) for e in lines) + 3000
    costs: list[float] = []
    observed = 0
    cpu0 = time.thread_time()
    while base < end + core.lag:
        now = int(base)
        f0 = core.frames
        t0 = time.thread_time()
        observed += len(core.scan(now))
        dt = (time.thread_time() - t0) * 1000
        if core.frames != f0:
            costs.append(dt)
        base += 20 + dt
    return {"board": f"seed {seed}, speed {speed_x:g}, {boards} boards", "moves": len(lines),
            "observed": observed, "frames": core.frames,
            "frame_cpu_ms_median": round(statistics.median(costs), 1),
            "frame_cpu_ms_p95": round(frame_ms_sorted(costs, 0.95), 1),
            "frame_cpu_ms_max": round(max(costs), 1),
            "board_cpu_s": round(time.thread_time() - cpu0, 2),
            "timetable_s": round(end / 1000, 1), "lag_ms_at_end": core.lag,
            "regions_read": sum(r.regions_read for r in core.recognisers.values()),
            "indexes_read": sum(getattr(r, "indexes_read", 0)
                                for r in core.recognisers.values())}


def latency_virtual(seed: int = 7, speed_x: float = 20.0) -> dict[str, Any]:
    """The same board on a virtual clock (20 ms scans, frames cost no time): the latency
    the board's debouncing and framing add, whatever the CPU."""
    tl = table_timeline("1", boards=1, seed=seed, speed=speed_x)
    lines = [line for s in "NESW" for line in tl.scenario(s)]
    core = VisionCore(lines)
    now = 0
    core.clock = lambda: now
    lat: list[int] = []
    end = max(int(e["t"]) for e in lines) + 3000
    truth = {(e["seat"], e["card"]) for e in lines}
    seen = set()
    while now < end:
        for f in core.scan(now):
            lat.append(now - core.moved_at[f["card"]])
            seen.add((f["seat"], f["card"]))
        now += 20
    lat.sort()
    return {"observed": len(lat), "moves": len(lines), "cards": len(seen & truth),
            "latency_ms_median": statistics.median(lat),
            "latency_ms_p95": lat[int(0.95 * len(lat))], "latency_ms_max": lat[-1]}


def frame_ms_sorted(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=60, help="moments per condition")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip", default="",
                    help="comma list of: accuracy, speed, board, latency")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    skip = set(args.skip.split(",")) - {""}
    result: dict[str, Any] = {"load_average": os.getloadavg()}
    if "accuracy" not in skip:
        result["accuracy"] = accuracy(args.frames, args.seed)
    if "speed" not in skip:
        result["speed"] = speed(min(args.frames, 20), args.seed)
    if "board" not in skip:
        result["board_cpu"] = board_cpu()
    if "latency" not in skip:
        result["latency_virtual"] = latency_virtual()
        result["latency"] = latency()
    result["load_average_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    if "accuracy" in result:
        print("| condition | frames | identity | face | zone | read | false / frame | named |")
        print("|---|---|---|---|---|---|---|---|")
        for name, r in result["accuracy"].items():
            print(f"| {name} | {r['frames']} | {r['identity']:.4f} ({r['named_right']}/"
                  f"{r['named']}) | {r['face']:.4f} | {r['zone']:.4f} | {r['read']:.3f} | "
                  f"{r['false_per_frame']:.3f} | {r['named']} |")
            if r["wrong"]:
                print(f"|  misreads (read as, truth) | {r['wrong']} |")
    if "speed" in result:
        print("\n| camera | frame | whole frame recognised, median ms | frames/s |")
        print("|---|---|---|---|")
        for name, r in result["speed"].items():
            print(f"| {name} | {r['size']} | {r['median_ms']} | {r['fps']} |")
    if "board_cpu" in result:
        print("\na board with a core of its own: " + json.dumps(result["board_cpu"]))
    if "latency" in result:
        print("\nvirtual clock: " + json.dumps(result["latency_virtual"]))
        print("real time: " + json.dumps(result["latency"]))
    print(f"\nload average before/after: {result['load_average']} / "
          f"{result['load_average_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
