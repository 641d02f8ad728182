"""Soak: a 16-table club at high speed for ten minutes; memory and descriptors stay flat.

    .venv/bin/python benchmarks/soak.py [--minutes 10] [--tables 16] [--sample-s 10]

The daemon (``daemon_child.py``, journals and outbox on the working disk)
serves 4 simulated readers a table (``harness.SimReader``). Each table plays
robot boards (``tablesense.sim.robots``, 10% with a mishap: a card dropped face
up, a lead out of turn, a card shown to partner) back to back: commands and
a trusted ``dealt`` from the table's thread, every card movement from the
seat's reader. Time runs about four times faster than at a real table: a gap
of more than 300 ms between two events becomes 350 ms (past the "played
together" window), one after a card left face up on the table 1.05 s (past
the thrown-hand window), shorter gaps stay as they are.

Every ``--sample-s`` the daemon's RSS, open descriptors, threads and CPU are
sampled. At the end: the alerts the subscriber got against those a clean
replay of each journal makes (none lost, none extra), frames sent against
journal lines (none dropped), and the samples with their trend (least-squares
slope per minute over the second half, after warm-up). One JSON object on
stdout; progress on stderr. Not in CI.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from harness import (
    Broker,
    DaemonChild,
    ReaderPool,
    SimReader,
    Subscriber,
    cpu_seconds,
    fd_count,
    rss_kib,
    thread_count,
    write_config,
)

from tablesense.contract.journal import JournalError, read_journal
from tablesense.engine import Engine, EngineError
from tablesense.laws import CODES
from tablesense.onboard.wire import codec
from tablesense.sim.robots import MISHAPS
from tablesense.sim.robots import Board as RobotBoard

OBSERVE_FIELDS = ("seat", "card", "zone", "face", "level", "seen_by", "conf")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class TablePlayer(threading.Thread):
    """Plays robot boards at one table until the deadline, then finishes its board."""

    def __init__(self, table: str, readers: dict[str, SimReader], daemon: DaemonChild,
                 deadline: float, seed: int) -> None:
        super().__init__(name=f"table-{table}", daemon=True)
        self.table = table
        self.readers = readers
        self.host = daemon  # not self.daemon: a Thread attribute
        self.deadline = deadline
        self.rng = random.Random(seed)
        self.boards = 0
        self.observes = 0
        self.commands = 0
        self.refused = 0
        self.error: str | None = None

    def run(self) -> None:
        try:
            n = 0
            while time.monotonic() < self.deadline:
                n += 1
                mishap = self.rng.choice(MISHAPS) if self.rng.random() < 0.1 else None
                board = RobotBoard(self.table, n, random.Random(self.rng.random()), t0=0,
                                   mishap=mishap)
                self.play(list(board.events()))
                self.boards += 1
        except Exception as exc:  # reported in the result, not swallowed
            self.error = repr(exc)

    def play(self, events: list[dict[str, Any]]) -> None:
        prev_t = events[0]["t"]
        after_face_up = False
        for e in events:
            gap = (e["t"] - prev_t) / 1000
            prev_t = e["t"]
            time.sleep(1.05 if after_face_up and gap > 0.3 else
                       gap if gap <= 0.3 else 0.35)
            after_face_up = False
            if e["type"] == "observe":
                fields = {k: e[k] for k in OBSERVE_FIELDS if k in e}
                fields["t"] = e["t"] & 0xFFFFFFFF
                self.readers[e["seat"]].send(codec.OBSERVE, fields)
                self.observes += 1
                after_face_up = e["zone"] in ("table", "floor") and e.get("face") == "up"
                continue
            cmd = {k: v for k, v in e.items() if k not in ("v", "t", "table")}
            resp = self.host.request({"op": "cmd", "table": self.table, "cmd": cmd,
                                        "trusted": e["type"] == "dealt"})
            self.commands += 1
            if not resp.get("ok"):
                self.refused += 1


def replay_alert_ids(path: Path) -> set[str]:
    eng = Engine(codes=CODES)
    ids: set[str] = set()
    for _, item in read_journal(str(path)):
        if isinstance(item, JournalError):
            continue
        try:
            rulings = eng.apply(item)
        except EngineError:
            continue
        ids |= {r.id for r in rulings if r.severity in ("penalty", "director")}
    ids |= {r.id for r in eng.flush() if r.severity in ("penalty", "director")}
    return ids


def slope_per_min(samples: list[dict[str, Any]], key: str) -> float:
    """Least-squares slope of ``key`` per minute over the second half of the samples."""
    half = samples[len(samples) // 2:]
    if len(half) < 2:
        return 0.0
    xs = [s["t_s"] / 60 for s in half]
    ys = [float(s[key]) for s in half]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--sample-s", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", default=None,
                    help="on a mismatch between alerts and replay, copy the journals, the "
                         "alerts received and the daemon log here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ts-soak-") as tmp:
        work = Path(tmp)
        broker = Broker(work / "broker")
        tables = [str(i + 1) for i in range(args.tables)]
        readers = {(t, s): SimReader(t, s) for t in tables for s in "NESW"}
        conf = write_config(work / "daemon.toml", broker.port,
                            {t: {s: readers[(t, s)].path for s in "NESW"} for t in tables}, work)
        sub = Subscriber(broker.port, ["ts/+/alert"])
        daemon = DaemonChild(conf, work / "daemon.log")
        pool = ReaderPool(list(readers.values()))
        try:
            pool.start_sessions(30)
            start = time.monotonic()
            deadline = start + args.minutes * 60
            players = [TablePlayer(t, {s: readers[(t, s)] for s in "NESW"}, daemon, deadline,
                                   args.seed * 1000 + i) for i, t in enumerate(tables)]
            for p in players:
                p.start()
            samples: list[dict[str, Any]] = []
            cpu0 = cpu_seconds(daemon.pid)
            while any(p.is_alive() for p in players):
                time.sleep(args.sample_s)
                st = daemon.stats()
                s = {"t_s": round(time.monotonic() - start, 1),
                     "rss_kib": rss_kib(daemon.pid), "fds": fd_count(daemon.pid),
                     "threads": thread_count(daemon.pid),
                     "cpu_s": round(cpu_seconds(daemon.pid) - cpu0, 1),
                     "journal_lines": sum(j["lines"] for j in st["journal"].values()),
                     "alerts_received": len(sub.alerts), "inbox": st["inbox"]}
                samples.append(s)
                log(f"  {s}")
            elapsed = time.monotonic() - start
            sent = sum(p.observes + p.commands for p in players)
            deadline2 = time.monotonic() + 30
            while time.monotonic() < deadline2:
                st = daemon.stats()
                if sum(j["lines"] for j in st["journal"].values()) >= sent and st["inbox"] == 0:
                    break
                time.sleep(0.5)
            time.sleep(2)
            st = daemon.stats()
        finally:
            daemon.close()  # before the readers go, or their ports vanish under it
            pool.close()
        got = {k for k in sub.alerts if "-reader-" not in k and "-journal-" not in k}
        want: set[str] = set()
        for t in tables:
            want |= replay_alert_ids(work / "journal" / f"{t}.jsonl")
        if args.keep and want != got:
            import shutil

            keep = Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copytree(work / "journal", keep / "journal", dirs_exist_ok=True)
            shutil.copy(work / "daemon.log", keep / "daemon.log")
            (keep / "alerts.jsonl").write_text("".join(
                json.dumps({"topic": t, "payload": json.loads(p), "at": at}) + "\n"
                for t, p, at in sub.messages))
        sub.close()
        broker.close()
        lines = sum(j["lines"] for j in st["journal"].values())
        rss = [s["rss_kib"] for s in samples]
        fds = [s["fds"] for s in samples]
        result = {
            "tables": args.tables, "readers": len(readers), "minutes": round(elapsed / 60, 2),
            "boards": sum(p.boards for p in players),
            "observes": sum(p.observes for p in players),
            "commands": sum(p.commands for p in players),
            "refused_commands": sum(p.refused for p in players),
            "player_errors": [p.error for p in players if p.error],
            "journal_lines": lines, "dropped": max(0, sent - lines),
            "link_lost": sum(x["counters"].get("lost", 0) for x in st["links"]),
            "alerts_replay": len(want), "alerts_received": len(got),
            "alerts_missing": sorted(want - got)[:10], "alerts_extra": sorted(got - want)[:10],
            "other_alerts": sorted(k for k in sub.alerts if k not in got)[:10],
            "daemon_cpu_cores": round(samples[-1]["cpu_s"] / elapsed, 3) if samples else None,
            "rss_mib_first_last_max": [round(rss[0] / 1024, 1), round(rss[-1] / 1024, 1),
                                       round(max(rss) / 1024, 1)] if rss else None,
            "rss_kib_per_min_2nd_half": round(slope_per_min(samples, "rss_kib"), 1),
            "fds_first_last_max": [fds[0], fds[-1], max(fds)] if fds else None,
            "fds_per_min_2nd_half": round(slope_per_min(samples, "fds"), 2),
            "threads_first_last": [samples[0]["threads"], samples[-1]["threads"]]
            if samples else None,
            "gc": st.get("gc"),
            "samples": samples,
        }
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
