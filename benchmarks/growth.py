"""How cost grows: a daemon from 16 to 512 readers, replay from 1k to 100k boards.

    .venv/bin/python benchmarks/growth.py [--readers 16,64,128,256,512] [--seconds 20]
                                          [--boards 1000,10000,100000] [--png FILE]
    .venv/bin/python benchmarks/growth.py --replot ROWS.jsonl [...]   # the plot again

Readers: ``scale.py``'s realistic load (a card event every 2-4 s a reader,
1 Hz heartbeats, 22 timed probes a table) on a fresh daemon for each count:
the daemon's CPU (cores), resident memory, threads, and the probes' p50/p99.
Boards: a robot journal of each size written to a file, then ``tablesense
replay FILE`` in a process of its own: wall and CPU time, observations per
second of each, and peak resident memory. The journal is ``engine.py``'s
(the same robot boards, seed and times) up to ``--pool`` boards (2,000); a
longer one repeats those boards, renumbered and later in time, written from
line templates (a 100,000-board journal, 1.2 GB, in seconds rather than the
robots' hour): the engine starts every board afresh, so a repeated deal costs
what a new one does. Prints one JSON object a line and draws the plot
(matplotlib, the ``bench`` extra) to ``--png`` (default: BENCHMARKS-growth.png
beside BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import PEAK_RSS_KIB, journal_lines, write_journal
from harness import Broker
from scale import idle_rss, run_config

HERE = Path(__file__).resolve().parent


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


HEAD = '{"v":1,"t":'


Template = list[tuple[int, bytes]]  # one board: each line's time and the rest of it


def board_templates(boards: int, seed: int) -> tuple[list[tuple[bytes, bytes, Template]], int]:
    """``engine.py``'s first ``boards`` robot boards as line templates: for each, its
    board line around the board number, and its lines; and when the last board ends."""
    pool: list[tuple[bytes, bytes, Template]] = []
    end = 0
    for line in journal_lines(boards, seed):
        assert line.startswith(HEAD), line
        comma = line.index(",", len(HEAD))
        t, rest = int(line[len(HEAD):comma]), line[comma:].encode()
        if rest.startswith(b',"type":"board",'):
            before, after = rest.split(b'"board":', 1)
            pool.append((before + b'"board":', after[after.index(b","):], []))
        pool[-1][2].append((t, rest))
        end = t
    return pool, end + 1500


def write_journal_cycled(path: Path, boards: int, seed: int, pool_size: int) -> tuple[int, int]:
    """(events, observations) of a ``boards``-board journal written to ``path``: the
    pool's boards again and again, renumbered, each round later than the last."""
    pool, period = board_templates(min(boards, pool_size), seed)
    observations_of = [sum(b'"type":"observe"' in rest for _, rest in lines)
                       for _, _, lines in pool]
    events = observations = 0
    with open(path, "wb", buffering=1 << 20) as f:
        for n in range(boards):
            offset = (n // len(pool)) * period
            before, after, lines = pool[n % len(pool)]
            f.write(b'{"v":1,"t":%d%s%d%s\n' % (lines[0][0] + offset, before, n + 1, after))
            f.writelines(b'{"v":1,"t":%d%s\n' % (t + offset, rest) for t, rest in lines[1:])
            events += len(lines)
            observations += observations_of[n % len(pool)]
    return events, observations


def replay_cost(boards: int, workdir: Path, pool_size: int) -> dict[str, Any]:
    path = workdir / f"journal-{boards}.jsonl"
    t0 = time.perf_counter()
    if boards <= pool_size:
        events, observations = write_journal(path, boards, seed=1)
    else:
        events, observations = write_journal_cycled(path, boards, 1, pool_size)
    log(f"  journal of {boards} boards written in {time.perf_counter() - t0:.0f} s")
    # Time and CPU of the replay itself (the interpreter's start and imports left out),
    # and its own peak RSS: VmHWM, as ru_maxrss counts the parent's at the fork.
    code = (PEAK_RSS_KIB + "import sys, time\nfrom tablesense.cli import main\n"
            "t0, c0 = time.perf_counter(), time.process_time()\n"
            f"rc = main(['replay', {str(path)!r}])\n"
            "print(time.perf_counter() - t0, peak_rss_kib(), time.process_time() - c0,"
            " file=sys.stderr)\nraise SystemExit(rc)\n")
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=True, text=True)
    *complaints, last = done.stderr.strip().splitlines()
    if complaints:  # the journal must be valid throughout, or the figures mean nothing
        raise SystemExit(f"replay of {boards} boards: {complaints[0]}")
    seconds, rss_kib, cpu = last.split()
    size = path.stat().st_size
    path.unlink()
    return {"boards": boards, "events": events, "observations": observations,
            "journal_mib": round(size / 2**20, 1), "replay_s": round(float(seconds), 2),
            "replay_observations_per_s": round(observations / float(seconds)),
            "replay_cpu_s": round(float(cpu), 2),
            # per second of CPU the replay got: what one core does, on a shared machine
            "replay_observations_per_cpu_s": round(observations / float(cpu)),
            "replay_peak_rss_mib": round(int(rss_kib) / 1024, 1)}


def plot(readers: list[dict[str, Any]], boards: list[dict[str, Any]], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    if readers:
        n = [r["readers"] for r in readers]
        for ax, key, label in ((axes[0][0], "daemon_cpu_cores", "daemon CPU (cores)"),
                               (axes[0][1], "rss_mib", "daemon RSS (MiB)"),
                               (axes[0][2], "p99_ms", "probe latency (ms)")):
            if key != "p99_ms":
                ax.plot(n, [r[key] for r in readers], "o-")
            else:
                ax.plot(n, [r["p50_ms"] for r in readers], "s--", label="p50")
                ax.plot(n, [r["p99_ms"] for r in readers], "o-", label="p99")
                ax.axhline(10, color="grey", lw=0.8, ls=":")
                ax.legend()
            if key == "daemon_cpu_cores":
                ax.axhline(0.5, color="grey", lw=0.8, ls=":")
            ax.set_xscale("log", base=2)
            ax.set_xticks(n, [str(x) for x in n])
            ax.set_xlabel("readers (4 a table), realistic pace")
            ax.set_ylabel(label)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
    if boards:
        b = [r["boards"] for r in boards]
        for ax, key, label in ((axes[1][0], "replay_cpu_s", "replay time (s)"),
                               (axes[1][1], "replay_peak_rss_mib", "replay peak RSS (MiB)"),
                               (axes[1][2], "replay_observations_per_cpu_s",
                                "replay observations per CPU-second")):
            ax.plot(b, [r.get(key, 0) for r in boards], "o-",
                    label="CPU" if key == "replay_cpu_s" else None)
            if key == "replay_cpu_s":
                ax.plot(b, [r["replay_s"] for r in boards], "s--", label="wall")
                ax.legend()
            ax.set_xscale("log")
            if key == "replay_cpu_s":
                ax.set_yscale("log")
            else:
                ax.set_ylim(bottom=0)
            if key == "replay_observations_per_cpu_s":  # the goal: 250,000 on one core
                ax.axhline(250_000, color="grey", lw=0.8, ls=":")
                ax.set_ylim(0, max(270_000, *(r[key] * 1.1 for r in boards)))
            if key == "replay_peak_rss_mib":
                ax.axhline(100, color="grey", lw=0.8, ls=":")  # the goal: under 100 MiB
                ax.set_ylim(0, max(110, *(r[key] * 1.2 for r in boards)))
            ax.set_xlabel("boards in the journal (one table)")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
    fig.suptitle("tablesense: cost growth (benchmarks/growth.py)")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readers", default="16,64,128,256,512", help="'' for none")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--boards", default="1000,10000,100000")
    ap.add_argument("--png", default=str(HERE.parent / "BENCHMARKS-growth.png"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pool", type=int, default=2000,
                    help="distinct robot boards; a longer journal repeats them (default 2000)")
    ap.add_argument("--replot", nargs="*", default=None, metavar="JSONL",
                    help="draw the plot from rows this script printed before (files of its "
                         "JSON lines), measuring nothing")
    args = ap.parse_args()
    if args.replot is not None:
        rows = [json.loads(x) for f in args.replot for x in Path(f).read_text().splitlines()
                if x.strip()]
        plot([r for r in rows if "readers" in r], [r for r in rows if "boards" in r],
             Path(args.png))
        log(f"plot: {args.png}")
        return 0
    rng = random.Random(args.seed)
    readers: list[dict[str, Any]] = []
    boards: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ts-growth-") as tmp:
        work = Path(tmp)
        if args.readers.strip():
            broker = Broker(work / "broker")
            try:
                idle = idle_rss(broker, work)
                for n in (int(x) for x in args.readers.split(",")):
                    t0 = time.monotonic()
                    with tempfile.TemporaryDirectory(prefix=f"ts-{n}-", dir=tmp) as d:
                        r = run_config(n, "realistic", args.seconds, broker, Path(d), idle, rng)
                    row = {k: r[k] for k in ("readers", "tables", "daemon_cpu_cores", "p50_ms",
                                             "p99_ms", "rss_mib", "rss_per_table_kib",
                                             "threads", "fds", "dropped_frames",
                                             "probes_missing", "frames_delivered_per_s")}
                    readers.append(row)
                    print(json.dumps(row), flush=True)
                    log(f"  {n} readers in {time.monotonic() - t0:.0f} s")
            finally:
                broker.close()
        for b in (int(x) for x in args.boards.split(",") if x):
            t0 = time.monotonic()
            row = replay_cost(b, work, args.pool)
            boards.append(row)
            print(json.dumps(row), flush=True)
            log(f"  {b} boards in {time.monotonic() - t0:.0f} s")
    plot(readers, boards, Path(args.png))
    log(f"plot: {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
