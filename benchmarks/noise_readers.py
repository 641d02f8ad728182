"""Noise at the readers: whole boards through simulated readers with a noise profile.

    .venv/bin/python benchmarks/noise_readers.py --readers python --boards 1000
    .venv/bin/python benchmarks/noise_readers.py --readers rfid --boards 100 --jobs 2

Where benchmarks/noise.py adds the profile's noise to the observations the
engine receives, this one adds it *below* the readers, per poll of their
sensors (tablesense.sim.noise docstring), and lets the readers' own debouncing
and cross-talk rejection deal with it:

* ``python``: the demo's Python camera reader (tablesense.demo.pysim.PySimCore);
* ``rfid`` / ``camera``: the reader firmware itself (firmware/*.py, the code
  the VM and the board run) on the simulated MFRC522s, tags and camera
  (firmware/sim/vrun.py), here under CPython; ``vm-rfid`` / ``vm-camera``:
  the same in the MicroPython VM, one process per reader;

each on a virtual clock (20 ms scans, as the demo's readers; the firmware's
period and debounce can be set to a board's: ``--scan-ms``, ``--debounce-ms``,
``--rf-ms``), so a board takes seconds, not its real duration. The boards are the demo's
timetables (tablesense.demo.schedule: robots with a mishap on
``--mishaps`` of the boards, at ``--speed``), all four seats' readers each
fed the whole table (cross-talk needs the neighbours' cards).

The host side is emulated as the daemon's link does it: each frame reaches
the host 0..``jitter_ms`` late (a reader's frames in order); a frame damaged
on the wire (``reorder``) is asked for again as soon as its bad CRC arrives
and delivered one round trip later, with the reader's frames held behind it
(``--link nack``, the default: the daemon's link, daemon/sequence.py).
``--link gap`` is the link before that: the loss is noticed only at that
reader's next frame (an OBSERVE or its 1 Hz HEARTBEAT), then asked for.
Host steps (board, dealt, calls, decides) go in at their timetable time
plus ``HOST_DELAY_MS`` (the demo's driver waits for the readers).
Observations and steps, merged by host time,
go through the engine; the clean profile's rulings (same readers, same
timetable) are the reference, compared as tablesense.proving.noise_eval does: a
noisy penalty/director ruling with no clean twin is false, a clean one with
no noisy twin is missed, a twin of another kind/options/severity is wrong,
and the twins' time difference is the added detection latency.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from tablesense.contract.events import parse_event
from tablesense.demo.pysim import SCAN_MS, PySimCore
from tablesense.demo.schedule import SEATS, Timeline, table_timeline
from tablesense.engine import Engine, EngineError, Ruling
from tablesense.engine.incidents import THROWN_MS
from tablesense.laws import CODES
from tablesense.sim.noise import PROFILES, Profile, load_profile

ROOT = Path(__file__).resolve().parents[1]
HOST_DELAY_MS = 150
HEARTBEAT_MS = 1000
RTT_MS = 3  # RESEND out, the kept frame back
TAIL_MS = 2500
CHIP = "pn5180"  # --chip: the RFID front end under the rfid and vm-rfid readers

Event = dict[str, Any]
Key = tuple[int, str | None, tuple[str, ...]]


def _firmware() -> Any:
    """firmware/sim/vrun.py, imported as the firmware tests do (flat modules, the shared
    ones placed by the build step, tablesense.firmware.build)."""
    import tempfile

    from tablesense.firmware.build import place_shared

    fw = str(ROOT / "firmware")
    if fw not in sys.path:
        sys.path[:0] = [fw, str(place_shared(Path(tempfile.mkdtemp(prefix="ts-shared-"))))]
    import sim.vrun  # type: ignore[import-not-found]

    return sim.vrun


def reader_frames(tl: Timeline, seat: str, kind: str, profile: Profile | None,
                  seed: int, scan: tuple[int, int, int] = (SCAN_MS, 40, 0)
                  ) -> tuple[list[Event], dict[str, int]]:
    """The OBSERVE fields one seat's reader sends for the table's timeline (``rt`` = when)."""
    whole = [line for s in SEATS for line in tl.scenario(s)]
    end = tl.duration_ms + TAIL_MS
    if kind == "python":
        core = PySimCore(seat, whole, profile, seed)
        out: list[Event] = []
        for now in range(0, end, SCAN_MS):
            for f in core.scan(now):
                f["rt"] = f.pop("t")
                out.append(f)
        return out, dict(core.debouncer.suppressed)
    if kind.startswith("vm-"):
        return vm_frames(whole, seat, kind[3:], profile, seed, scan)
    vrun = _firmware()
    from sim.world import neighbours  # type: ignore[import-not-found]

    own = [e for e in whole if e.get("seat") == seat]
    others = [e for e in whole if e.get("seat") in neighbours(seat)]
    scan_ms, debounce_ms, cost_ms = scan
    obs, stats = vrun.run(seat, own, kind, scan_ms, debounce_ms,
                          profile.poll_level() if profile is not None else None, seed,
                          others, TAIL_MS, cost_ms, chip=CHIP)
    return obs, dict(stats["suppressed"])


def vm_frames(whole: list[Event], seat: str, kind: str, profile: Profile | None, seed: int,
              scan: tuple[int, int, int], extra: tuple[str, ...] = ()
              ) -> tuple[list[Event], dict[str, int]]:
    """As reader_frames, the firmware running in the MicroPython VM (firmware/sim/vrun.py)."""
    import os
    import subprocess
    import tempfile

    from tablesense.firmware.build import place_shared
    from tablesense.sim.firmware import find_micropython

    with tempfile.TemporaryDirectory(prefix="ts-noise-vm-") as tmp:
        d = Path(tmp)
        place_shared(d)
        (d / "s.jsonl").write_text("".join(json.dumps(e) + "\n" for e in whole))
        argv = [find_micropython(), str(ROOT / "firmware" / "sim" / "vrun.py"), "--seat", seat,
                "--kind", kind, "--scenario", str(d / "s.jsonl"), "--scan-ms", str(scan[0]),
                "--debounce-ms", str(scan[1]), "--rf-ms", str(scan[2]), "--chip", CHIP,
                *extra]
        if profile is not None:
            (d / "n.json").write_text(json.dumps(profile.poll_level()))
            argv += ["--noise", str(d / "n.json"), "--noise-seed", str(seed)]
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(
            [str(ROOT / "firmware"), str(d), ".frozen"]))
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True,
                             timeout=3600).stdout
    lines = [json.loads(x) for x in out.splitlines() if x]
    stats = lines.pop()["stats"]
    # the VM's JSON has no tuples: seen_by comes back as a list, as the host decodes it
    return lines, dict(stats["suppressed"])


def deliver(frames: list[Event], profile: Profile | None, rng: random.Random,
            link: str) -> list[tuple[int, Event]]:
    """(host ms, frame) as the daemon's link would hand them to the core."""
    jitter = profile.jitter_ms if profile is not None else 0
    lose = profile.reorder if profile is not None else 0.0
    if not frames:
        return []
    # what goes on the wire: the observations and the 1 Hz heartbeats (None)
    end = frames[-1]["rt"] + HEARTBEAT_MS
    phase = rng.randrange(HEARTBEAT_MS)
    wire: list[tuple[int, Event | None]] = [(f["rt"], f) for f in frames]
    wire += [(t, None) for t in range(phase, end + HEARTBEAT_MS, HEARTBEAT_MS)]
    wire.sort(key=lambda x: x[0])
    arrive: list[int] = []
    last = 0
    for t, _ in wire:
        last = max(last, t + (rng.randrange(jitter + 1) if jitter else 0))
        arrive.append(last)
    lost = [bool(lose) and rng.random() < lose for _ in wire]
    out: list[tuple[int, Event]] = []
    hold_until: int | None = None  # a lost frame is pending until then: later ones wait
    for i, (_, f) in enumerate(wire):
        at = arrive[i]
        if lost[i]:
            if link == "nack":
                at += RTT_MS
            else:  # the gap shows at this reader's next frame that gets through
                j = i + 1
                while j < len(wire) and lost[j]:
                    j += 1
                at = (arrive[j] if j < len(wire) else at + HEARTBEAT_MS) + RTT_MS
            hold_until = max(hold_until or 0, at)
        elif hold_until is not None:
            if at < hold_until:
                at = hold_until
            else:
                hold_until = None
        if f is not None:
            out.append((at, f))
    return out


Played = tuple[list[Ruling], dict[str, int], dict[str, dict[str, int]], dict[str, int]]


def play(tl: Timeline, kind: str, profile: Profile | None, seed: int, link: str,
         code: str | None, scan: tuple[int, int, int] = (SCAN_MS, 40, 0)) -> Played:
    """One timeline through four readers, the link and the engine: (non-info rulings,
    each ruling's emission time, the engine's suppressions per seat, the readers')."""
    rng = random.Random(f"{seed}/wire")
    items: list[tuple[int, int, Event]] = []
    readers: dict[str, int] = {}
    for k, seat in enumerate(SEATS):
        frames, sup = reader_frames(tl, seat, kind, profile, seed * 4 + k, scan)
        for n, v in sup.items():
            readers[n] = readers.get(n, 0) + v
        for at, f in deliver(frames, profile, rng, link):
            obs = {"v": 1, "type": "observe", **{x: y for x, y in f.items() if x != "seat"},
                   "seat": f["seat"]}
            items.append((at, 1, obs))
    for s in tl.steps:
        if s.kind == "host":
            items.append((s.at + HOST_DELAY_MS, 0, {"v": 1, **s.event}))
    items.sort(key=lambda x: (x[0], x[1]))
    eng = Engine(table=tl.table, code=code, codes=CODES)
    made: list[Ruling] = []
    emitted: dict[str, int] = {}
    now = 0
    for at, _, ev in items:
        now = max(now, at)
        ev["t"] = now
        try:
            out = eng.apply(parse_event(ev))
        except EngineError:
            continue  # as a daemon does: reported, changes nothing
        made += out
        emitted.update({r.id: min(now, r.t + THROWN_MS) for r in out})
    out = eng.flush()
    made += out
    emitted.update({r.id: r.t + THROWN_MS for r in out})
    noise = {seat: dict(c) for seat, c in eng.noise.items()}
    return [r for r in made if r.severity != "info"], emitted, noise, readers


def key(r: Ruling) -> Key:
    return (r.board, r.offender, r.cards)


def one_board(args: tuple[Any, ...]) -> dict[str, Any]:
    n, seed, speed, mishaps, kind, profile_name, link, code, scan = args
    profile = load_profile(profile_name)
    tl = table_timeline("1", 1, seed * 100003 + n, speed, mishaps, code)
    want, want_t, _, _ = play(tl, kind, None, n, link, code, scan)
    got, got_t, noise, readers = play(tl, kind, profile, n, link, code, scan)
    res: dict[str, Any] = {"board": n, "exposures": len(want), "false_penalty": 0,
                           "false_director": 0, "missed": 0, "wrong": 0, "latency": [],
                           "examples": [], "suppressed": {}, "readers": readers}
    for seat_counts in noise.values():
        for name, v in seat_counts.items():
            res["suppressed"][name] = res["suppressed"].get(name, 0) + v
    want_by = {key(r): r for r in want}
    got_by = {key(r): r for r in got}
    for k, r in got_by.items():
        twin = want_by.get(k)
        if twin is None:
            res["false_penalty" if r.severity == "penalty" else "false_director"] += 1
            res["examples"].append(f"seed {seed} board {n}: false {r.kind} {list(r.cards)} "
                                   f"({r.severity}, {r.offender})")
        elif (twin.kind, twin.options, twin.severity) != (r.kind, r.options, r.severity):
            res["wrong"] += 1
            res["examples"].append(f"seed {seed} board {n}: {twin.kind} became {r.kind}")
        else:
            res["latency"].append(got_t[r.id] - want_t[twin.id])
    for k, r in want_by.items():
        if k not in got_by:
            res["missed"] += 1
            res["examples"].append(f"seed {seed} board {n}: missed {r.kind} {list(r.cards)}")
    return res


def evaluate(kind: str, profile: str, boards: int, seed: int, speed: float, mishaps: float,
             link: str, jobs: int, code: str | None = None,
             scan: tuple[int, int, int] = (SCAN_MS, 40, 0)) -> dict[str, Any]:
    work = [(n, seed, speed, mishaps, kind, profile, link, code, scan)
            for n in range(1, boards + 1)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            results = list(ex.map(one_board, work, chunksize=1))
    else:
        results = [one_board(w) for w in work]
    lat = sorted(x for r in results for x in r["latency"])
    sup: dict[str, int] = {}
    rsup: dict[str, int] = {}
    for r in results:
        for k, v in r["suppressed"].items():
            sup[k] = sup.get(k, 0) + v
        for k, v in r["readers"].items():
            rsup[k] = rsup.get(k, 0) + v
    return {
        "readers": kind, "profile": profile, "link": link, "boards": boards,
        "true_exposures": sum(r["exposures"] for r in results),
        "false_penalty_alerts": sum(r["false_penalty"] for r in results),
        "false_director_alerts": sum(r["false_director"] for r in results),
        "boards_with_false_alerts": sum(1 for r in results
                                        if r["false_penalty"] + r["false_director"]),
        "missed_exposures": sum(r["missed"] for r in results),
        "wrong_rulings": sum(r["wrong"] for r in results),
        "added_latency_ms_median": statistics.median(lat) if lat else 0,
        "added_latency_ms_max": lat[-1] if lat else 0,
        "host_suppressed": sup, "reader_suppressed": rsup,
        "examples": [e for r in results for e in r["examples"]][:8],
    }


def row(s: dict[str, Any]) -> str:
    return ("| {readers} | {profile} | {link} | {boards} | {true_exposures} | "
            "{false_penalty_alerts} | {false_director_alerts} | {missed_exposures} | "
            "{wrong_rulings} | {added_latency_ms_median} / {added_latency_ms_max} |").format(**s)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readers", choices=("python", "rfid", "camera", "vm-rfid", "vm-camera"),
                    default="python")
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", type=float, default=50.0,
                    help="the timetable's speed (the demo's tests use 50: plays of "
                         "different seats 100 ms apart)")
    ap.add_argument("--mishaps", type=float, default=0.5)
    ap.add_argument("--profiles", nargs="*", default=[p for p in PROFILES if p != "clean"])
    ap.add_argument("--link", choices=("gap", "nack"), default="nack")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--chip", choices=("pn5180", "mfrc522"), default="pn5180",
                    help="the RFID readers' front end (rfid, vm-rfid): the table or bench build")
    ap.add_argument("--scan-ms", type=int, default=SCAN_MS,
                    help="firmware readers: the scan period CONFIG asks for (default 20)")
    ap.add_argument("--debounce-ms", type=int, default=40,
                    help="firmware readers: debounce_ms (default 40, the sim's)")
    ap.add_argument("--rf-ms", type=int, default=0,
                    help="firmware readers: ms a scan's RF takes on a board, added to "
                         "each period (hardware/README.md: ~60-140)")
    args = ap.parse_args()
    print("| readers | profile | link | boards | true exposures | false penalty | "
          "false director | missed | wrong | added latency ms (median / max) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    global CHIP
    CHIP = args.chip  # the worker processes are forked after this
    for name in args.profiles:
        t0 = time.perf_counter()
        s = evaluate(args.readers, name, args.boards, args.seed, args.speed, args.mishaps,
                     args.link, args.jobs, scan=(args.scan_ms, args.debounce_ms, args.rf_ms))
        print(row(s), flush=True)
        print(json.dumps({**s, "speed": args.speed, "scan": [args.scan_ms, args.debounce_ms,
                                                              args.rf_ms],
                          "seconds": round(time.perf_counter() - t0, 1)}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
