"""One daemon, many readers: CPU, alert latency, dropped frames and memory per table.

    .venv/bin/python benchmarks/scale.py [--readers 16,64,128] [--modes realistic,line]
                                         [--seconds 20]

For each number of readers (4 a table) and each load, a fresh daemon
(``daemon_child.py``, journal and outbox on the working disk, default fsync
policy) serves simulated readers behind ptys (``harness.SimReader``: HELLO,
CONFIG/ACK, 1 Hz heartbeats, RESEND from a kept ring). Every table plays a
board (commands and a trusted ``dealt``), East leads, and then for
``--seconds``:

* ``realistic``: each reader reports a card event every 2-4 s (a card in the
  hand moving, face down: journaled, no ruling), the pace of real play;
* ``line``: each reader sends at its full line rate, 115200 baud (about 520
  OBSERVE frames a second each, written in 20 ms bursts); when the daemon
  cannot keep up the ptys fill and the writer waits (back-pressure, as USB
  CDC does), so the *achieved* rate is what is reported;
* in both, *probes*: defenders' cards turned face up in the hand at random
  moments of the run (22 a table, each table independent), each ruled on at
  once: one alert each, timed from the moment its frame is written into the
  pty to its arrival at the MQTT subscriber, a process of its own
  (``subscriber_child.py``: no thread of the simulated readers delays the
  stamp; both stamps on CLOCK_MONOTONIC).

Reported per configuration: CPU of the daemon process (CPU seconds per
second: 1.0 = one core busy), frames a second delivered, probe latency p50
and p99, dropped frames (observations and commands sent minus lines in the
journals, plus frames the links counted lost or bad: must be 0) and the
daemon's resident memory per table (RSS minus an idle daemon's, divided by
the tables). Where the time goes inside the daemon (``daemon_child.py``'s
timings, over the load and the drain): ``inside_ms``, each alert from its
frame's arrival to paho taking its PUBLISH; ``core_wake_ms`` and
``core_wake_cpu_ms``, each batch of the core, wall and CPU time (a wall time
far above the CPU time is the thread waiting for a core or the interpreter
lock); ``core_gap_ms`` between batches; ``core_journal_write_ms``, the core's
writes of journal lines; ``journal_sync_ms``, every fsync. Each probe's
latency split in three: ``to_read_ms`` (written until the daemon's loop read
it), inside, ``to_subscriber_ms`` (paho, mosquitto, the subscriber); the
core's stalls around the slowest probes (stderr); the CPU of the rig
(``bench_cpu_cores``) and of mosquitto, and per daemon thread its CPU and
its time runnable but waiting for a CPU (``daemon_threads_cpu_wait_ms``);
the collector's periodic full pass, timed at the end (``collector_full_pass``).
One JSON object per configuration on stdout, led by its ``headline``:
``inside_p99_ms`` (the p99 of ``inside_ms``) and ``daemon_cpu_cores``, with the
simulated readers run below the daemon's priority (``--rig-nice``, default
10: real readers are hardware of their own, not the daemon's CPU), and the end
to end p99 (``end_to_end_p99_ms``, = ``p99_ms``) as a secondary figure beside
the machine's load; progress on stderr.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from harness import (
    HANDS,
    Broker,
    DaemonChild,
    ReaderPool,
    SimReader,
    SubscriberChild,
    cpu_seconds,
    fd_count,
    rss_kib,
    start_board,
    summary_ms,
    thread_count,
    write_config,
)

from tablesense.onboard.wire import codec

LINE_BYTES_PER_S = 115200 // 10  # 8N1


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def idle_rss(broker: Broker, workdir: Path) -> int:
    conf = write_config(workdir / "idle.toml", broker.port, {}, workdir / "idle")
    d = DaemonChild(conf, workdir / "idle.log")
    try:
        time.sleep(1.0)
        return rss_kib(d.pid)
    finally:
        d.close()


class Load:
    """The writer thread: background observations and timed probes."""

    def __init__(self, readers: dict[tuple[str, str], SimReader], tables: list[str],
                 mode: str, seconds: float, rng: random.Random) -> None:
        self.readers = readers
        self.tables = tables
        self.mode = mode
        self.seconds = seconds
        self.rng = rng
        self.sent_observes = 0
        self.probe_at: dict[str, float] = {}  # alert id -> last byte written
        self.stalls = 0.0
        self.elapsed = 0.0
        self._level: dict[tuple[str, str], int] = {}

    def benign(self, r: SimReader) -> bytes:
        k = (r.table, r.seat)
        self._level[k] = self._level.get(k, 0) ^ 1
        level = "above" if self._level[k] else "at"
        return r.frame(codec.OBSERVE, {"seat": r.seat, "card": HANDS[r.seat][0], "zone": "hand",
                                       "face": "down", "level": level, "t": 0})

    def probes(self, start: float) -> list[tuple[float, str, str, str, int]]:
        """(when, table, seat, card, n): 22 a table, evenly spread with jitter."""
        out = []
        span = self.seconds * 0.9
        for table in self.tables:
            cards = [("W", c) for c in HANDS["W"][1:12]] + [("E", c) for c in HANDS["E"][1:12]]
            # tables are independent: each its own random moments (not in step)
            times = sorted(start + self.rng.uniform(0, span) for _ in cards)
            # ruling ids count in arrival order: the n-th probe of a table is ruling n
            for n, ((seat, card), when) in enumerate(zip(cards, times, strict=True), 1):
                out.append((max(start, when), table, seat, card, n))
        return sorted(out)

    def run(self) -> None:
        start = time.monotonic()
        end = start + self.seconds
        probes = self.probes(start)
        pi = 0
        heap: list[tuple[float, int, SimReader]] = []
        budget: dict[int, float] = {}
        rlist = list(self.readers.values())
        if self.mode == "realistic":
            for i, r in enumerate(rlist):
                heapq.heappush(heap, (start + self.rng.uniform(0, 3), i, r))
        tick = 0.02
        next_tick = start
        while True:
            now = time.monotonic()
            if now >= end and pi >= len(probes):
                break
            while pi < len(probes) and probes[pi][0] <= now:
                _, table, seat, card, n = probes[pi]
                r = self.readers[(table, seat)]
                with r.lock:  # numbered and written at once, as SimReader.send does
                    frame = r.frame(codec.OBSERVE, {"seat": seat, "card": card, "zone": "hand",
                                                    "face": "up", "level": "above", "t": n})
                    # stamped as the write begins: a thread switch after the write (this
                    # process's other threads) would make the probe look quicker
                    t0 = time.perf_counter()
                    r.write(frame)
                self.probe_at[f"{table}-1-{n}"] = t0
                self.sent_observes += 1
                pi += 1
            if now < end:
                if self.mode == "realistic":
                    while heap and heap[0][0] <= now:
                        _, i, r = heapq.heappop(heap)
                        r.write(self.benign_locked(r))
                        heapq.heappush(heap, (now + self.rng.uniform(2, 4), i, r))
                elif now >= next_tick:
                    t_before = time.monotonic()
                    for i, r in enumerate(rlist):
                        budget[i] = budget.get(i, 0.0) + LINE_BYTES_PER_S * tick
                        with r.lock:
                            chunk = bytearray()
                            while budget[i] >= 23:
                                f = self.benign(r)
                                chunk += f
                                budget[i] -= len(f)
                                self.sent_observes += 1
                            if chunk:
                                r.write(bytes(chunk))
                    next_tick += tick
                    spent = time.monotonic() - t_before
                    if spent > tick:
                        self.stalls += spent - tick
                        next_tick = time.monotonic()
            nxt = [end] if now < end else []
            if pi < len(probes):
                nxt.append(probes[pi][0])
            if self.mode == "realistic" and heap and now < end:
                nxt.append(heap[0][0])
            if self.mode == "line" and now < end:
                nxt.append(next_tick)
            delay = min(nxt) - time.monotonic() if nxt else 0.001
            if delay > 0:
                time.sleep(min(delay, 0.05))
        self.elapsed = time.monotonic() - start

    def benign_locked(self, r: SimReader) -> bytes:
        with r.lock:
            self.sent_observes += 1
            return self.benign(r)


def renice_self(nice: int) -> None:
    """Every thread of this process (the simulated readers) at ``nice``: Linux keeps a
    nice value per thread, and threads made later inherit it from the one making them."""
    for tid in os.listdir("/proc/self/task"):
        os.setpriority(os.PRIO_PROCESS, int(tid), nice)


def run_config(n_readers: int, mode: str, seconds: float, broker: Broker, workdir: Path,
               idle_kib: int, rng: random.Random, heartbeats: str = "together",
               rig_nice: int = 0) -> dict[str, Any]:
    tables = [str(i + 1) for i in range(n_readers // 4)]
    # paho waits on its socket with select(), which takes descriptors below 1024
    # only: the subscriber connects before hundreds of ptys are opened here.
    sub = SubscriberChild(broker.port, ["ts/+/alert"])
    readers = {(t, s): SimReader(t, s) for t in tables for s in "NESW"}
    conf = write_config(workdir / "daemon.toml", broker.port,
                        {t: {s: readers[(t, s)].path for s in "NESW"} for t in tables},
                        workdir)
    t_setup = time.monotonic()
    daemon = DaemonChild(conf, workdir / "daemon.log")
    pool = ReaderPool(list(readers.values()), spread=heartbeats == "spread")
    try:
        if rig_nice:  # the pool's thread and this one (the load's writer is made later)
            renice_self(rig_nice)
        pool.start_sessions(30)
        commands = 0
        for t in tables:
            start_board(daemon, t, 1)
            commands += 6
            readers[(t, "E")].observe(HANDS["E"][12], "trick", "up")
        time.sleep(0.4)
        lead_observes = len(tables)
        before = daemon.stats()
        frames0 = sum(link["counters"]["frames"] for link in before["links"])
        setup_s = time.monotonic() - t_setup
        log(f"  {n_readers} readers {mode}: set up in {setup_s:.1f} s, load {seconds:.0f} s")
        load = Load(readers, tables, mode, seconds, rng)
        daemon.request({"op": "timings"})  # from now on
        cpu0, w0 = cpu_seconds(daemon.pid), time.monotonic()
        own0 = cpu_seconds(os.getpid()) + cpu_seconds(sub.proc.pid)
        broker0 = cpu_seconds(broker.proc.pid)
        writer = threading.Thread(target=load.run, name="load")
        writer.start()
        rss_samples = []
        while writer.is_alive():
            writer.join(1.0)
            rss_samples.append(rss_kib(daemon.pid))
        cpu1, w1 = cpu_seconds(daemon.pid), time.monotonic()
        own1 = cpu_seconds(os.getpid()) + cpu_seconds(sub.proc.pid)
        broker1 = cpu_seconds(broker.proc.pid)
        # drain: wait for every probe's alert and for the journals to catch up
        expect = load.sent_observes + lead_observes + commands
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            st = daemon.stats()
            lines = sum(j["lines"] for j in st["journal"].values())
            if lines >= expect and st["inbox"] == 0:
                break
            time.sleep(0.2)
        drain_s = time.monotonic() - w1
        arrived = dict(sub.alerts)
        timings = daemon.request({"op": "timings"})
        reclaim = daemon.request({"op": "reclaim"})  # the 10-minute full pass, at this size
        st = daemon.stats()
        lat = [arrived[k] - t0 for k, t0 in load.probe_at.items() if k in arrived]
        first = min(load.probe_at.values(), default=0.0)
        worst = sorted(((arrived[k] - t0, t0 - first, k) for k, t0 in load.probe_at.items()
                        if k in arrived), reverse=True)[:5]
        # each probe's time: written into the pty -> read by the daemon (``to_read``),
        # read -> handed to paho (inside; whole ms), handed to paho -> at the
        # subscriber (``to_subscriber``: paho, mosquitto, the subscriber's thread)
        inside_by_id = timings.get("inside_by_id", {})
        split = {k: (arrived[k] - inside_by_id[k][1], inside_by_id[k][0] / 1000)
                 for k in load.probe_at if k in arrived and k in inside_by_id}
        to_sub = [after for after, _ in split.values()]
        to_read = [arrived[k] - load.probe_at[k] - after - inside
                   for k, (after, inside) in split.items()]
        log("  slowest probes (latency ms = to read + inside + to subscriber, at s, id): "
            + ", ".join(f"{w * 1000:.0f} = {(w - sum(split.get(k, (0, 0)))) * 1000:.0f} + "
                        f"{split.get(k, (0, 0))[1] * 1000:.0f} + "
                        f"{split.get(k, (0, 0))[0] * 1000:.0f} @{a:.1f} {k}"
                        for w, a, k in worst))
        for w, _, k in worst[:3]:  # what the daemon's core was doing meanwhile
            t0 = load.probe_at[k]
            near = [f"{what} {wall:.0f}/{cpu:.0f} ms @{(at - t0) * 1000:+.0f}"
                    for at, what, wall, cpu in timings.get("stalls", [])
                    if t0 - 0.1 < at + wall / 1000 and at < t0 + w]
            log(f"    {k}: core stalls (wall/CPU, start from the probe's write): "
                + (", ".join(near) or "none"))
        lines = sum(j["lines"] for j in st["journal"].values())
        fsyncs = sum(j["fsyncs"] for j in st["journal"].values()) - sum(
            j["fsyncs"] for j in before["journal"].values())
        bad = sum(link["counters"].get(k, 0) for link in st["links"]
                  for k in ("lost", "bad_crc", "errors", "resyncs"))
        frames = sum(link["counters"]["frames"] for link in st["links"]) - frames0
        rss = rss_kib(daemon.pid)
        inside = timings.get("inside", {})
        result = {
            # the headline: what the daemon itself costs, which this machine can measure
            # with the simulated readers below the daemon's priority; the end to end p99
            # beside it, with the machine's load (waits for a CPU on a shared machine)
            "headline": {"inside_p99_ms": inside.get("p99_ms"),
                         "daemon_cpu_cores": round((cpu1 - cpu0) / (w1 - w0), 3),
                         "end_to_end_p99_ms": summary_ms(lat).get("p99_ms"),
                         "loadavg": os.getloadavg()[0], "rig_nice": rig_nice},
            "readers": n_readers, "tables": len(tables), "mode": mode, "heartbeats": heartbeats,
            "seconds": round(load.elapsed, 1),
            "daemon_cpu_cores": round((cpu1 - cpu0) / (w1 - w0), 3),
            # the rest of the 2 cores' users: the simulated readers and the writer (this
            # process) with the subscriber (subscriber_child.py), and mosquitto
            "bench_cpu_cores": round((own1 - own0) / (w1 - w0), 3),
            "broker_cpu_cores": round((broker1 - broker0) / (w1 - w0), 3),
            "loadavg": os.getloadavg()[0],
            "observes_sent_per_s": round(load.sent_observes / load.elapsed),
            "line_rate_observes_per_s": round(n_readers * LINE_BYTES_PER_S / 23),
            "writer_stalled_s": round(load.stalls, 1),
            "frames_delivered_per_s": round(frames / (w1 - w0 + drain_s)),
            # per second of CPU the daemon got: what one core does, on a shared machine
            "frames_per_daemon_cpu_s": round(frames / max(cpu_seconds(daemon.pid) - cpu0, 1e-9)),
            "drain_s": round(drain_s, 1),
            "fsyncs_per_s": round(fsyncs / (w1 - w0 + drain_s)),
            "p50_ms": summary_ms(lat).get("p50_ms"), "p99_ms": summary_ms(lat).get("p99_ms"),
            "probe_latency": summary_ms(lat),
            "probes_missing": len(load.probe_at) - len(lat),
            "dropped_frames": max(0, load.sent_observes + lead_observes + commands - lines) + bad,
            "resends": sum(link["counters"].get("resends", 0) for link in st["links"]),
            "rss_mib": round(rss / 1024, 1),
            "rss_per_table_kib": round((rss - idle_kib) / len(tables)),
            "rss_growth_during_load_kib": rss_samples[-1] - rss_samples[0] if rss_samples else 0,
            "threads": thread_count(daemon.pid), "fds": fd_count(daemon.pid),
            "alerts": sum(t["alerts"] for t in st["tables"].values()),
            "gc": st["gc"],
            "collector_full_pass": reclaim,
            # inside the daemon: frame in -> alert handed to paho; the core's batches
            # and the gaps between them (daemon_child.py)
            "inside_ms": inside,
            "to_read_ms": summary_ms(to_read), "to_subscriber_ms": summary_ms(to_sub),
            "core_wake_ms": timings.get("core_wake", {}),
            "core_wake_cpu_ms": timings.get("core_wake_cpu", {}),
            "core_gap_ms": timings.get("core_gap", {}),
            "core_journal_write_ms": timings.get("core_journal_write", {}),
            "journal_sync_ms": timings.get("journal_sync", {}),  # each fsync, wall
            # per thread of the daemon: CPU ms and ms waiting for a CPU (run queue)
            "daemon_threads_cpu_wait_ms": timings.get("threads", {}),
            "published": timings.get("published", {}),  # MQTT messages, by kind
        }
        return result
    finally:
        pool.close()
        daemon.close()
        sub.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--readers", default="16,64,128")
    ap.add_argument("--modes", default="realistic,line")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--heartbeats", choices=("together", "spread"), default="together",
                    help="every reader's 1 Hz heartbeat at the same moment (a burst of one "
                         "frame per reader each second: the worst case), or each reader on "
                         "its own clock, their phases spread over the second")
    ap.add_argument("--data-dir", default=None,
                    help="where journals and outboxes go (default: a temporary directory "
                         "on the working disk; /dev/shm takes the disk out)")
    ap.add_argument("--rig-nice", type=int, default=10,
                    help="run the simulated readers (this process, started after the daemon, "
                         "broker and subscriber) at this nice value: on a machine they share "
                         "with the daemon, real readers being hardware of their own "
                         "(default 10; 0: the same priority as the daemon)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="ts-scale-") as tmp:
        broker = Broker(Path(tmp) / "broker")
        try:
            idle = idle_rss(broker, Path(tmp))
            log(f"idle daemon RSS {idle / 1024:.1f} MiB")
            for mode in args.modes.split(","):
                for n in (int(x) for x in args.readers.split(",")):
                    with tempfile.TemporaryDirectory(prefix=f"ts-{n}-",
                                                     dir=args.data_dir or tmp) as d:
                        r = run_config(n, mode, args.seconds, broker, Path(d), idle, rng,
                                       args.heartbeats, args.rig_nice)
                    r["idle_rss_mib"] = round(idle / 1024, 1)
                    print(json.dumps(r), flush=True)
                    log(f"  -> {r}")
        finally:
            broker.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
