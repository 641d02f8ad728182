"""The real :class:`~tablesense.daemon.core.Daemon` in a process of its own, for benchmarks.

    python benchmarks/daemon_child.py CONFIG.toml

Prints ``{"ready": true}`` once started, then answers one JSON request a line
on stdin with one JSON line on stdout:

* ``{"op": "cmd", "table": T, "cmd": {...}, "trusted": bool}``: ``Daemon.command``
  (trusted admits ``dealt``, as a dealing machine wired in-process would);
* ``{"op": "stats"}``: every link's counters and state, every table's
  counters, the outbox counts, the journal lines and fsyncs;
* ``{"op": "timings"}``: since the last such call, where the time went
  inside the daemon: ``inside`` (for each alert, from its frame's
  arrival, the ruling's ``t``, to paho taking its PUBLISH; whole ms),
  ``core_wake`` (each wake-up's batch: journal, engine, commit, state; and
  ``core_wake_cpu``, the CPU time the core's thread spent on it),
  ``core_journal_write`` (the core's writes of journal lines to the OS),
  ``journal_sync`` (each journal fsync, wall time, in whichever thread) and
  ``core_gap`` (time between two batches: the loop's own work, or the core
  waiting for a CPU or the interpreter lock);
* ``{"op": "reclaim"}``: the collector's periodic full pass (daemon/collector.py)
  run now, in the core: how long it took and how many objects it walked;
* ``{"op": "stop"}``: a clean stop.

A separate process so that the benchmark's own threads (pty writers, the MQTT
subscriber) do not share the daemon's interpreter lock.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import logging
import sys
import threading
import time
from typing import Any

from tablesense.daemon.config import load_config
from tablesense.daemon.core import Daemon

GC: dict[str, float] = {"collections": 0, "gen2": 0, "max_pause_ms": 0.0, "total_ms": 0.0,
                        "max_cpu_ms": 0.0, "total_cpu_ms": 0.0}
GC_BY_GEN: dict[int, list[float]] = {0: [0, 0.0, 0.0], 1: [0, 0.0, 0.0], 2: [0, 0.0, 0.0]}
GC_CPU: dict[int, list[float]] = {0: [], 1: [], 2: []}  # each collection's CPU ms
_gc_start = [0.0, 0.0]
# long stalls (over STALL_MS): (perf_counter at the start, what, wall ms, CPU ms of its thread)
STALL_MS = 3.0
STALLS: list[tuple[float, str, float, float]] = []


def _gc_watch(phase: str, info: dict[str, int]) -> None:
    """Each collection's wall time (a "pause": the thread may also have been
    descheduled meanwhile) and the CPU time its thread spent in it."""
    if phase == "start":
        _gc_start[0], _gc_start[1] = time.perf_counter(), time.thread_time()
        return
    pause = (time.perf_counter() - _gc_start[0]) * 1000
    cpu = (time.thread_time() - _gc_start[1]) * 1000
    GC["collections"] += 1
    GC["gen2"] += info.get("generation") == 2
    GC["total_ms"] = round(GC["total_ms"] + pause, 3)
    GC["max_pause_ms"] = round(max(GC["max_pause_ms"], pause), 3)
    GC["total_cpu_ms"] = round(GC["total_cpu_ms"] + cpu, 3)
    GC["max_cpu_ms"] = round(max(GC["max_cpu_ms"], cpu), 3)
    g = GC_BY_GEN.setdefault(info.get("generation", -1), [0, 0.0, 0.0])
    g[0] += 1
    g[1] += pause
    g[2] = max(g[2], cpu)
    GC_CPU.setdefault(info.get("generation", -1), []).append(cpu)
    if pause > STALL_MS:
        STALLS.append((_gc_start[0], f"gc{info.get('generation')}", round(pause, 1), round(cpu, 1)))


def schedstats() -> dict[str, tuple[float, float]]:
    """Per thread name (syncer workers summed): CPU time and time spent runnable but
    waiting for a CPU (the run queue), in ms, from /proc/self/task/*/schedstat."""
    out: dict[str, tuple[float, float]] = {}
    for t in threading.enumerate():
        if t.native_id is None:
            continue
        try:
            with open(f"/proc/self/task/{t.native_id}/schedstat") as f:
                run_ns, wait_ns, _ = (int(x) for x in f.read().split())
        except (OSError, ValueError):
            continue
        name = t.name.split("_")[0]
        cpu, wait = out.get(name, (0.0, 0.0))
        out[name] = (cpu + run_ns / 1e6, wait + wait_ns / 1e6)
    return out


class Timings:
    """Where an alert's time goes inside the daemon (wrapping, not changing, the daemon)."""

    def __init__(self, d: Daemon) -> None:
        self.inside: list[float] = []
        self.inside_by_id: dict[str, tuple[float, float]] = {}  # id -> (inside, published at)
        self.published: dict[str, int] = {}  # MQTT messages handed to paho, by kind
        self.wake: list[float] = []
        self.wake_cpu: list[float] = []
        self.write: list[float] = []
        self.fsync: list[float] = []  # JournalWriter.sync (an alert's fsync, or the interval's)
        self.gap: list[float] = []
        self._last_end = self._last_cpu = 0.0
        self._sched = schedstats()
        base = d.topics.alert("x")[:-len("x/alert")]
        publish = d.publisher.client.publish

        def timed_publish(topic: str, payload: Any = None, *a: Any, **kw: Any) -> Any:
            kind = topic.rsplit("/", 2)[-2] if "/readers/" in topic else topic.rsplit("/", 1)[-1]
            self.published[kind] = self.published.get(kind, 0) + 1
            if topic.startswith(base) and topic.endswith("/alert"):
                with contextlib.suppress(Exception):
                    at = time.perf_counter()  # CLOCK_MONOTONIC: the benchmark's clock too
                    alert = json.loads(payload)
                    took = time.time() - alert["t"] / 1000
                    self.inside.append(took)
                    self.inside_by_id.setdefault(alert["id"], (took, at))
            return publish(topic, payload, *a, **kw)

        d.publisher.client.publish = timed_publish  # type: ignore[method-assign]
        batch = d.loop.on_wake
        assert batch is not None

        def timed_batch() -> None:
            t0, c0 = time.perf_counter(), time.thread_time()
            if self._last_end:
                self.gap.append(t0 - self._last_end)
                if (t0 - self._last_end) * 1000 > STALL_MS:
                    STALLS.append((self._last_end, "gap", round((t0 - self._last_end) * 1000, 1),
                                   round((c0 - self._last_cpu) * 1000, 1)))
            batch()
            self._last_end = time.perf_counter()
            self._last_cpu = time.thread_time()
            self.wake.append(self._last_end - t0)
            self.wake_cpu.append(self._last_cpu - c0)
            if (self._last_end - t0) * 1000 > STALL_MS:
                STALLS.append((t0, "batch", round((self._last_end - t0) * 1000, 1),
                               round((self._last_cpu - c0) * 1000, 1)))

        d.loop.on_wake = timed_batch
        for t in d.tables.values():  # the journal's writes, as the core makes them
            t.journal._drain = self._timed_drain(t.journal._drain, d)  # type: ignore[method-assign]
            t.journal.sync = self._timed_sync(t.journal.sync)  # type: ignore[method-assign]

    def _timed_sync(self, sync: Any) -> Any:
        def timed() -> None:
            t0 = time.perf_counter()
            try:
                return sync()
            finally:
                self.fsync.append(time.perf_counter() - t0)
        return timed

    def _timed_drain(self, drain: Any, d: Daemon) -> Any:
        def timed() -> None:
            if not d.loop.in_thread:
                return drain()
            t0 = time.perf_counter()
            try:
                return drain()
            finally:
                self.write.append(time.perf_counter() - t0)
        return timed

    def take(self) -> dict[str, Any]:
        out = {"inside": summary_ms(self.inside), "core_wake": summary_ms(self.wake),
               "core_wake_cpu": summary_ms(self.wake_cpu), "core_gap": summary_ms(self.gap),
               "core_journal_write": summary_ms(self.write),
               "journal_sync": summary_ms(self.fsync),
               "inside_by_id": {k: (round(v * 1000, 3), at)
                                for k, (v, at) in self.inside_by_id.items()}}
        now = schedstats()
        # per thread: CPU ms, and ms runnable but waiting for a CPU (not for the GIL:
        # a thread waiting for the interpreter lock sleeps)
        out["threads"] = {k: (round(c - self._sched.get(k, (0, 0))[0]),
                              round(w - self._sched.get(k, (0, 0))[1]))
                          for k, (c, w) in now.items()}
        self._sched = now
        out["published"], self.published = self.published, {}
        out["stalls"] = list(STALLS)
        STALLS.clear()
        self.inside_by_id = {}
        self.inside, self.wake, self.wake_cpu, self.gap, self.write = [], [], [], [], []
        self.fsync = []
        return out


def summary_ms(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    v = sorted(values)
    return {"n": len(v), "p50_ms": round(v[len(v) // 2] * 1000, 3),
            "p99_ms": round(v[min(len(v) - 1, int(len(v) * 0.99))] * 1000, 3),
            "max_ms": round(v[-1] * 1000, 3)}


def stats(d: Daemon) -> dict[str, Any]:
    return {
        "gc": {**GC, "frozen": gc.get_freeze_count(),
               "by_generation": {str(g): {"n": int(v[0]), "wall_ms": round(v[1], 1),
                                          "max_cpu_ms": round(v[2], 3),
                                          "cpu_ms": summary_ms([c / 1000 for c in GC_CPU[g]])}
                                 for g, v in GC_BY_GEN.items()}},
        "links": [{"table": link.table, "seat": link.seat, "state": link.state,
                   "counters": link.all_counters()} for link in d.links],
        "tables": {name: dict(t.counters) for name, t in d.tables.items()},
        "journal": {name: {"lines": t.journal.lines, "fsyncs": t.journal.fsyncs}
                    for name, t in d.tables.items()},
        "outbox": d.outbox.counts(),
        "inbox": d.inbox.qsize(),
    }


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("paho").setLevel(logging.WARNING)
    gc.callbacks.append(_gc_watch)
    d = Daemon(load_config(argv[1]))
    timings = Timings(d)
    d.start()
    manage = getattr(d, "own_process", None)  # as `tablesense run` does once started
    if manage is not None:
        manage()
    else:  # a baseline from before daemon/collector.py
        gc.collect()
        gc.freeze()
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "cmd":
            resp: dict[str, Any] = d.command(req["table"], req["cmd"],
                                             trusted=bool(req.get("trusted")))
        elif op == "stats":
            resp = stats(d)
        elif op == "timings":  # since the last call
            resp = timings.take()
        elif op == "reclaim":  # the collector's periodic full pass, now (its cost)
            c = getattr(d, "collector", None)
            if c is None:
                resp = {}
            else:
                before = c.reclaims
                d.loop.call_soon(functools.partial(c.tick, float("inf")))  # in the core
                deadline = time.monotonic() + 10
                while c.reclaims == before and time.monotonic() < deadline:
                    time.sleep(0.01)
                resp = {"reclaim_ms": round(c.reclaim_ms, 1), "found": c.reclaimed,
                        "frozen": gc.get_freeze_count()}
        elif op == "stop":
            d.stop()
            out.write(json.dumps({"stopped": True}) + "\n")
            out.flush()
            return 0
        else:
            resp = {"ok": False, "error": f"unknown op {op!r}"}
        out.write(json.dumps(resp) + "\n")
        out.flush()
    d.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
