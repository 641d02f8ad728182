"""Engine throughput: generate a large journal of robot boards and replay it.

    .venv/bin/python benchmarks/engine.py --boards 10000 [--repeat 3]

The journal is written to a temporary file, as the daemon writes it, and then:

* ``replay``: the file through ``replay_lines`` (decoding, validation and
  the engine, as ``tablesense replay`` does), read as it goes;
* ``decode``: the same file through ``journal.parse_lines`` alone (decoding
  and validation, no engine);
* ``engine``: the engine alone on events decoded beforehand;
* ``replay_peak_rss_mib``: the peak resident memory of ``tablesense replay
  FILE`` in a process of its own (once): what replaying a season costs;
* ``fast_path_shares``: the share of observations each of the engine's fast
  paths takes (``Engine._unchanged``, ``_arrives``, ``_quits``, ``_displayed``)
  and all of them, counted in one more engine run, untimed.

Runs are repeated and the median is reported, per second of wall time and
per second of CPU time the process got (``*_per_cpu_s``: on a shared
machine, what one core does). One JSON object on stdout.

Two trees of the code compared on a shared machine, where a CPU-second
stretches with the others' load:

    .venv/bin/python benchmarks/engine.py --boards 500 --pairs 5 \
        --before /tmp/base/host --after /tmp/after/host

runs this script in ``--best`` mode under each tree in turn (PYTHONPATH),
``--pairs`` times: the journal held in memory, the engine alone run five
times and ``replay_lines`` three, the fastest of each (the minimum is what
filters the load out); then the medians of each tree and of the pairs'
ratios.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tablesense.contract.events import Event, Observe
from tablesense.contract.journal import parse_lines
from tablesense.documents.replay import replay_lines
from tablesense.engine import Engine, Ruling
from tablesense.engine.tracker import Position
from tablesense.laws import CODES
from tablesense.sim.robots import MISHAPS, Board


def journal_lines(boards: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    t = 0
    for n in range(1, boards + 1):
        mishap = rng.choice(MISHAPS) if rng.random() < 0.1 else None
        b = Board("1", n, random.Random(rng.random()), t0=t, mishap=mishap)
        for e in b.events():
            yield json.dumps(e, separators=(",", ":"))
        t = b.t


def write_journal(path: Path, boards: int, seed: int) -> tuple[int, int]:
    """(events, observations) written to ``path``."""
    events = observations = 0
    with open(path, "w") as f:
        for line in journal_lines(boards, seed):
            f.write(line + "\n")
            events += 1
            observations += '"observe"' in line
    return events, observations


def peak_rss_kib() -> int:
    """This process's own peak resident memory, KiB: VmHWM (``ru_maxrss`` of a child
    also counts its parent's memory at the fork, which the exec does not undo). Its
    source is sent to the child processes measured (``PEAK_RSS_KIB``)."""

    try:
        with open("/proc/self/status") as f:
            return next(int(x.split()[1]) for x in f if x.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


PEAK_RSS_KIB = inspect.getsource(peak_rss_kib)


def replay_rss_mib(path: Path) -> float:
    """Peak RSS of ``tablesense replay FILE`` (output discarded) in a child process."""
    code = (PEAK_RSS_KIB + "import sys\nfrom tablesense.cli import main\n"
            f"rc = main(['replay', {str(path)!r}])\nprint(peak_rss_kib(), file=sys.stderr)\n"
            "raise SystemExit(rc)\n")
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=True, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024


FAST_PATHS = ("_unchanged", "_arrives", "_quits", "_displayed")


def fast_path_shares(events: list[Event]) -> dict[str, float]:
    """The share of observations that each of the engine's fast paths takes (a card
    re-reported or turned after the quit, a card played, a trick quitted, dummy's cards),
    and all of them (``all``)."""
    taken = dict.fromkeys(FAST_PATHS, 0)
    saved = {name: getattr(Engine, name) for name in FAST_PATHS}

    def counting(name: str) -> Callable[[Engine, Observe, Position], bool]:
        path = saved[name]

        def count(self: Engine, o: Observe, prev: Position) -> bool:
            done: bool = path(self, o, prev)
            taken[name] += done
            return done
        return count

    for name in FAST_PATHS:
        setattr(Engine, name, counting(name))
    try:
        eng = Engine(codes=CODES)
        for e in events:
            eng.apply(e)
        eng.flush()
    finally:
        for name, path in saved.items():
            setattr(Engine, name, path)
    n = max(1, sum(isinstance(e, Observe) for e in events))
    shares = {name.strip("_"): round(k / n, 3) for name, k in taken.items()}
    return {**shares, "all": round(sum(taken.values()) / n, 3)}


def best(boards: int, seed: int) -> dict[str, int]:
    """Observations per CPU-second of the fastest of 5 engine-alone runs and 3 replays."""
    lines = [line.encode() for line in journal_lines(boards, seed)]
    events = [e for _, e in parse_lines(lines) if isinstance(e, Event)]
    n_obs = sum(isinstance(e, Observe) for e in events)
    engine_cpu, replay_cpu = [], []
    for _ in range(5):
        c0 = time.process_time()
        eng = Engine(codes=CODES)
        for e in events:
            eng.apply(e)
        eng.flush()
        engine_cpu.append(time.process_time() - c0)
    for _ in range(3):
        c0 = time.process_time()
        for _ in replay_lines(lines):
            pass
        replay_cpu.append(time.process_time() - c0)
    return {"engine_observations_per_cpu_s": round(n_obs / min(engine_cpu)),
            "replay_observations_per_cpu_s": round(n_obs / min(replay_cpu))}


def interleaved(before: str, after: str, pairs: int, boards: int, seed: int) -> int:
    """``--best`` under each tree in turn; the medians and the pairs' ratios."""
    runs: dict[str, list[dict[str, int]]] = {"before": [], "after": []}
    for i in range(pairs):
        for name, tree in (("before", before), ("after", after)):
            done = subprocess.run(
                [sys.executable, __file__, "--best", "--boards", str(boards), "--seed",
                 str(seed)], env={**os.environ, "PYTHONPATH": tree}, check=True,
                stdout=subprocess.PIPE, text=True)
            runs[name].append(json.loads(done.stdout))
            print(f"pair {i + 1} {name}: {done.stdout.strip()}", file=sys.stderr)
    out: dict[str, object] = {"boards": boards, "pairs": pairs, "before": before,
                              "after": after}
    for key in ("engine_observations_per_cpu_s", "replay_observations_per_cpu_s"):
        b = [r[key] for r in runs["before"]]
        a = [r[key] for r in runs["after"]]
        out[f"before_{key}"] = statistics.median(b)
        out[f"after_{key}"] = statistics.median(a)
        out[f"ratio_{key}"] = round(statistics.median(x / y for x, y in zip(a, b, strict=True)), 2)
    print(json.dumps(out))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-engine-alone", action="store_true",
                    help="skip the engine-alone runs (they hold every event in memory)")
    ap.add_argument("--best", action="store_true",
                    help="only the fastest runs on a journal held in memory (see --pairs)")
    ap.add_argument("--pairs", type=int, default=0,
                    help="compare the trees --before and --after, interleaved, N times")
    ap.add_argument("--before", help="a tree's host/ directory (with --pairs)")
    ap.add_argument("--after", help="another tree's host/ directory (with --pairs)")
    args = ap.parse_args()
    if args.best:
        print(json.dumps(best(args.boards, args.seed)))
        return 0
    if args.pairs:
        if not (args.before and args.after):
            ap.error("--pairs needs --before and --after")
        return interleaved(args.before, args.after, args.pairs, args.boards, args.seed)
    with tempfile.TemporaryDirectory(prefix="ts-engine-") as tmp:
        path = Path(tmp) / "journal.jsonl"
        t0 = time.perf_counter()
        n_events, n_obs = write_journal(path, args.boards, args.seed)
        size_mib = os.path.getsize(path) / 2**20
        print(f"journal: {args.boards} boards, {n_events} events, {n_obs} observations, "
              f"{size_mib:.0f} MiB (written in {time.perf_counter() - t0:.1f} s)",
              file=sys.stderr)
        rss = replay_rss_mib(path)
        print(f"tablesense replay: peak RSS {rss:.1f} MiB", file=sys.stderr)
        events: list[Event] = []
        if not args.no_engine_alone:
            with open(path, "rb") as f:
                events = [e for _, e in parse_lines(f) if isinstance(e, Event)]
        full, decode, engine_only = [], [], []
        cpu: dict[str, list[float]] = {"replay": [], "decode": [], "engine": []}
        rulings = 0
        for i in range(args.repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            with open(path, "rb") as f:
                rulings = sum(1 for r in replay_lines(f) if isinstance(r, Ruling))
            full.append(time.perf_counter() - t0)
            cpu["replay"].append(time.process_time() - c0)
            t0, c0 = time.perf_counter(), time.process_time()
            with open(path, "rb") as f:
                for _ in parse_lines(f):
                    pass
            decode.append(time.perf_counter() - t0)
            cpu["decode"].append(time.process_time() - c0)
            if events:
                t0, c0 = time.perf_counter(), time.process_time()
                eng = Engine(codes=CODES)
                for e in events:
                    eng.apply(e)
                eng.flush()
                engine_only.append(time.perf_counter() - t0)
                cpu["engine"].append(time.process_time() - c0)
            print(f"run {i + 1}: replay {full[-1]:.2f} s, decode {decode[-1]:.2f} s"
                  + (f", engine {engine_only[-1]:.2f} s" if engine_only else ""),
                  file=sys.stderr)
    med_full, med_dec = statistics.median(full), statistics.median(decode)
    out = {
        "boards": args.boards, "events": n_events, "observations": n_obs,
        "journal_mib": round(size_mib, 1), "rulings": rulings,
        "replay_events_per_s": round(n_events / med_full),
        "replay_observations_per_s": round(n_obs / med_full),
        "decode_observations_per_s": round(n_obs / med_dec),
    }
    if engine_only:
        med_eng = statistics.median(engine_only)
        out["engine_observations_per_s"] = round(n_obs / med_eng)
        out["engine_share_of_replay"] = round(med_eng / med_full, 2)
        out["fast_path_shares"] = fast_path_shares(events)
    # The same per second of CPU this process got: on a shared machine, what one
    # core does (wall time counts the time others had the cores).
    for name, runs in cpu.items():
        if runs:
            out[f"{name}_observations_per_cpu_s"] = round(n_obs / statistics.median(runs))
    out["replay_peak_rss_mib"] = round(rss, 1)
    out["benchmark_peak_rss_mib"] = round(peak_rss_kib() / 1024, 1)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
