"""End-to-end alert latency: last byte of an OBSERVE into a pty -> alert at an MQTT subscriber.

    .venv/bin/python benchmarks/latency.py [--events 2000] [--dropped 30] [--variants disk,tmpfs]
                                           [--baseline OLD/host]

One run measures, against one mosquitto on a free loopback port:

* **relay**: the floor. ``relay_child.py`` reads the pty with pyserial and
  publishes each frame unchanged (QoS 1, paho): no decoding, no journal, no
  rules, no outbox.
* **durable relay**: the same relay appending each frame to a file on the
  working disk and fsyncing it before it publishes: the floor for anything
  that makes a frame durable before its alert leaves.
* **daemon** (per variant): ``daemon_child.py`` runs the real Daemon (links'
  event loop, sequencer, core, journal, engine, SQLite outbox, paho) for one
  table with four simulated readers. Each exposure is one OBSERVE of a
  defender's card turned face up in his hand during play, which the
  engine rules on at once (a minor, then major, penalty card): one frame in,
  one alert out. Boards are set up with commands and a trusted ``dealt``
  (not timed); 24 exposures a board. ``disk``: journal and outbox in a
  temporary directory on the working disk (fsync as configured: the
  default ``event`` policy, and the journal is made durable before every
  alert, as is the outbox row); ``tmpfs``: the same on /dev/shm, where fsync
  costs nothing, to separate the disk from the software.
* **dropped**: a defender's card dropped face up on the table: the engine
  closes a "dropped card" incident only when the 1 s thrown-hand window has
  passed (incidents.THROWN_MS, closed by ``Engine.tick``), so this latency is
  that window plus the daemon's tick.

All four pipelines run at once and are measured interleaved: each round
sends one event through each of them, in a random order, the next after the
previous one arrived (2-6 ms between), so this is latency without queueing,
and the shared machine's noise falls on every pipeline alike. Prints progress on
stderr and one JSON object on stdout, with the goals' ratios on top:
``ratio_p99_to_relay`` (daemon on tmpfs / relay) and
``ratio_p99_to_durable_relay`` (daemon on disk / durable relay).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from harness import (
    HANDS,
    PYTHON,
    Broker,
    DaemonChild,
    ReaderPool,
    SimReader,
    Subscriber,
    start_board,
    summary_ms,
    write_config,
)

from tablesense.onboard.wire import codec

HERE = Path(__file__).resolve().parent


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


Pipeline = Generator[float, None, dict[str, Any]]


def relay_pipeline(broker: Broker, journal: Path | None = None) -> Pipeline:
    """Yields one frame's latency per step (the relay, or with ``journal`` the durable
    relay)."""
    reader = SimReader("r", "N")
    topic = f"bench/relay/{'durable' if journal else 'bare'}"
    sub = Subscriber(broker.port, [topic])
    extra = [str(journal)] if journal is not None else []
    proc = subprocess.Popen([PYTHON, str(HERE / "relay_child.py"), reader.path, str(broker.port),
                             topic, *extra], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        if b"ready" not in proc.stdout.readline():
            raise RuntimeError("relay did not start")
        time.sleep(0.2)
        i = 0
        while True:
            n = len(sub.messages)
            data = reader.frame(codec.OBSERVE, {"seat": "W", "card": HANDS["W"][i % 13],
                                                "zone": "hand", "face": "up", "level": "above",
                                                "t": i})
            t0 = reader.write(data)
            got = sub.wait(lambda m, n=n: m[n][2] if len(m) > n else None, 5)
            if got is None:
                raise RuntimeError(f"relay lost frame {i}")
            i += 1
            yield got - t0
    finally:
        proc.kill()
        proc.wait(5)
        sub.close()
        reader.close()


class DaemonPipeline:
    """The real daemon for one table, four readers: one exposure per step."""

    def __init__(self, broker: Broker, workdir: Path, table: str,
                 host: Path | None = None) -> None:
        # each daemon its own table name: they share the broker, and alert ids
        # are <table>-<board>-<n>
        self.table = table
        self.readers = {s: SimReader(table, s) for s in "NESW"}
        conf = write_config(workdir / "daemon.toml", broker.port,
                            {table: {s: r.path for s, r in self.readers.items()}}, workdir)
        self.sub = Subscriber(broker.port, [f"ts/{table}/alert"])
        self.daemon = DaemonChild(conf, workdir / "daemon.log", host)
        self.pool = ReaderPool(list(self.readers.values()))
        self.pool.start_sessions()
        self.board = 0
        self.cards: list[tuple[int, str, str]] = []
        self.done = 0

    def _new_board(self) -> None:
        self.board += 1
        start_board(self.daemon, self.table, self.board)
        self.readers["E"].observe(HANDS["E"][0], "trick", "up")  # the opening lead
        time.sleep(0.35)  # the lead's 300 ms "played together" window

    def exposure(self) -> float:
        """A defender's card face up in his hand: ruled on at once, one alert."""
        if not self.cards:
            self._new_board()
            cards = [("W", c) for c in HANDS["W"][1:13]] + [("E", c) for c in HANDS["E"][1:13]]
            self.cards = [(n, seat, card) for n, (seat, card) in enumerate(cards, 1)]
        n, seat, card = self.cards.pop(0)
        t0 = self.readers[seat].observe(card, "hand", "up", "above", t=self.done)
        got = self.sub.alert_time(f"{self.table}-{self.board}-{n}", 10)
        if got is None:
            raise RuntimeError(f"no alert {self.table}-{self.board}-{n} for {seat} {card}")
        self.done += 1
        return got - t0

    def dropped(self, i: int) -> float:
        """A defender's card dropped face up on the table (the 1 s window)."""
        self.cards = []
        self._new_board()
        seat = "W" if i % 2 else "E"
        t0 = self.readers[seat].observe(HANDS[seat][5], "table", "up", "at", t=i)
        got = self.sub.alert_time(f"{self.table}-{self.board}-1", 10)
        if got is None:
            raise RuntimeError(f"no alert for the dropped card of board {self.board}")
        return got - t0

    def close(self) -> dict[str, Any]:
        try:
            stats = self.daemon.stats()
        finally:
            self.pool.close()
            self.daemon.close()
            self.sub.close()
        journal = stats["journal"][self.table]
        return {"boards": self.board, "alerts": stats["tables"][self.table]["alerts"],
                "lost": sum(link["counters"].get("lost", 0) for link in stats["links"]),
                "fsyncs": journal["fsyncs"], "journal_lines": journal["lines"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--dropped", type=int, default=30)
    ap.add_argument("--variants", default="disk,tmpfs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", type=Path, default=None,
                    help="also run daemons from the tablesense package in this directory (an "
                         "older commit's host/, e.g. from git archive), interleaved with the "
                         "rest, as daemon_<variant>_baseline")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    result: dict[str, Any] = {"events": args.events}
    variants = args.variants.split(",")
    warm = 48
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ts-bench-")))
        broker = Broker(tmp / "broker")
        stack.callback(broker.close)
        relays: dict[str, Pipeline] = {"relay": relay_pipeline(broker)}
        relays["durable_relay"] = relay_pipeline(broker, tmp / "durable-frames.log")
        for gen in relays.values():
            stack.callback(gen.close)
        daemons: dict[str, DaemonPipeline] = {}
        for variant in variants:
            base = Path("/dev/shm") if variant == "tmpfs" else tmp
            d = Path(stack.enter_context(tempfile.TemporaryDirectory(
                prefix=f"ts-{variant}-", dir=base)))
            daemons[f"daemon_{variant}"] = DaemonPipeline(broker, d, str(len(daemons) + 1))
            if args.baseline is not None:
                d = Path(stack.enter_context(tempfile.TemporaryDirectory(
                    prefix=f"ts-{variant}-base-", dir=base)))
                daemons[f"daemon_{variant}_baseline"] = DaemonPipeline(
                    broker, d, str(len(daemons) + 1), args.baseline.resolve())
        samples: dict[str, list[float]] = {k: [] for k in [*relays, *daemons]}
        steps: dict[str, Callable[[], float]] = {k: g.__next__ for k, g in relays.items()}
        steps.update({k: p.exposure for k, p in daemons.items()})
        log(f"{len(steps)} pipelines, {args.events} events each, interleaved")
        try:
            for i in range(args.events + warm):
                # one event of each pipeline in a random order: the machine's noise
                # falls on all of them alike
                for name in rng.sample(list(steps), len(steps)):
                    lat = steps[name]()
                    if i >= warm:
                        samples[name].append(lat)
                    time.sleep(rng.uniform(0.002, 0.006))
                if i and i % 500 == 0:
                    log(f"  {i} events each")
            drops: list[float] = []
            if "daemon_disk" in daemons and args.dropped:
                for i in range(args.dropped):
                    drops.append(daemons["daemon_disk"].dropped(i))
        finally:
            counts = {name: p.close() for name, p in daemons.items()}
    for name in relays:
        result[name] = summary_ms(samples[name])
    for name in daemons:
        held = summary_ms(samples[name])
        for floor in relays:
            for p in ("p50", "p99"):
                held[f"ratio_{p}_to_{floor}"] = round(held[f"{p}_ms"] / result[floor][f"{p}_ms"],
                                                      2)
        c = counts[name]
        result[name] = {**held, "alerts": c["alerts"], "lost_frames": c["lost"],
                        "journal_fsyncs": c["fsyncs"], "journal_lines": c["journal_lines"]}
    if drops:
        result["dropped_card"] = summary_ms(drops)
    # the goals: tmpfs against the bare relay, disk against the durable relay
    if "daemon_tmpfs" in result:
        result["ratio_p99_to_relay"] = result["daemon_tmpfs"]["ratio_p99_to_relay"]
    if "daemon_disk" in result:
        result["ratio_p99_to_durable_relay"] = result["daemon_disk"]["ratio_p99_to_durable_relay"]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
