"""What the table view costs the daemon: encoding one state message, before and after.

    .venv/bin/python benchmarks/state_payload.py

A table in play (a robot deal, 1NT, every card sensed in hand): the time to
make and JSON-encode one ``<base>/<table>/state`` message as published before
the table view (the snapshot's original keys) and now
(daemon/view.py ``table_state``), 7 rounds of 500 each, medians, one run, and
the payload sizes. The daemon publishes a table's state at most every
``state_interval_ms`` (250 ms), and only when it changed.
"""

from __future__ import annotations

import random
import statistics
import time

from tablesense.contract.events import parse_event
from tablesense.daemon.tables import dumps
from tablesense.daemon.view import table_state
from tablesense.engine import Engine
from tablesense.laws import CODES
from tablesense.sim.robots import deal

OLD_KEYS = ("table", "board", "code", "phase", "dealer", "vul", "declarer", "contract",
            "doubled", "turn", "tricks", "trick", "penalty_cards", "obligations", "cards")


def main() -> None:
    hands = deal(random.Random(3))
    eng = Engine(table="1", codes=CODES)
    events: list[dict[str, object]] = [
        {"type": "board", "table": "1", "board": 1, "dealer": "N", "vul": "None"},
        {"type": "dealt", "hands": hands}]
    for seat, call in (("N", "1N"), ("E", "P"), ("S", "P"), ("W", "P")):
        events.append({"type": "call", "seat": seat, "call": call})
    for i in range(13):
        for seat in "NESW":
            events.append({"type": "observe", "seat": seat, "card": hands[seat][i],
                           "zone": "hand", "face": "down"})
    for i, e in enumerate(events):
        eng.apply(parse_event({"v": 1, "t": 1000 + 10 * i, **e}))

    def old() -> bytes:
        s = eng.snapshot()
        return dumps({k: s[k] for k in OLD_KEYS})

    def new() -> bytes:
        return dumps(table_state(eng.snapshot()))

    runs: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(7):
        for name, f in (("old", old), ("new", new)):
            t = time.perf_counter()
            for _ in range(500):
                f()
            runs[name].append((time.perf_counter() - t) / 500 * 1e6)
    o, n = statistics.median(runs["old"]), statistics.median(runs["new"])
    print(f"before the view: {o:.0f} us, {len(old())} bytes")
    print(f"with the view:   {n:.0f} us, {len(new())} bytes")
    print(f"ratio: {n / o:.2f}")


if __name__ == "__main__":
    main()
