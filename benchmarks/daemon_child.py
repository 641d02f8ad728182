"""The real :class:`~tablesense.daemon.core.Daemon` in a process of its own, for benchmarks.

    python benchmarks/daemon_child.py CONFIG.toml

Prints ``{"ready": true}`` once started, then answers one JSON request a line
on stdin with one JSON line on stdout:

* ``{"op": "cmd", "table": T, "cmd": {...}, "trusted": bool}``: ``Daemon.command``
  (trusted admits ``dealt``, as a dealing machine wired in-process would);
* ``{"op": "stats"}``: every link's counters and state, every table's
  counters, the outbox counts, the journal lines and fsyncs;
* ``{"op": "stop"}``: a clean stop.

A separate process so that the benchmark's own threads (pty writers, the MQTT
subscriber) do not share the daemon's interpreter lock.
"""

from __future__ import annotations

import gc
import json
import logging
import sys
import time
from typing import Any

from tablesense.daemon.config import load_config
from tablesense.daemon.core import Daemon

GC: dict[str, float] = {"collections": 0, "gen2": 0, "max_pause_ms": 0.0, "total_ms": 0.0}
_gc_start = [0.0]


def _gc_watch(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_start[0] = time.perf_counter()
        return
    pause = (time.perf_counter() - _gc_start[0]) * 1000
    GC["collections"] += 1
    GC["gen2"] += info.get("generation") == 2
    GC["total_ms"] = round(GC["total_ms"] + pause, 3)
    GC["max_pause_ms"] = round(max(GC["max_pause_ms"], pause), 3)


def stats(d: Daemon) -> dict[str, Any]:
    return {
        "gc": dict(GC),
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
    d.start()
    gc.collect()  # as `tablesense run` does once started
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
