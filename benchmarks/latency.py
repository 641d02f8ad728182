"""End-to-end alert latency: last byte of an OBSERVE into a pty -> alert at an MQTT subscriber.

    .venv/bin/python benchmarks/latency.py [--events 2000] [--dropped 30] [--variants disk,tmpfs]

One run measures, against one mosquitto on a free loopback port:

* **relay**: the floor. ``relay_child.py`` reads the pty with pyserial and
  publishes each frame unchanged (QoS 1, paho): no decoding, no journal, no
  rules, no outbox.
* **daemon** (per variant): ``daemon_child.py`` runs the real Daemon (link
  thread, sequencer, core, journal, engine, SQLite outbox, paho) for one
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

Exposures are sent one at a time (the next after the previous alert, with
2-6 ms between), so this is latency without queueing. Prints progress on
stderr and one JSON object on stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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

from tablesense import codec

HERE = Path(__file__).resolve().parent


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def relay_latency(broker: Broker, events: int, rng: random.Random) -> list[float]:
    reader = SimReader("r", "N")
    sub = Subscriber(broker.port, ["bench/relay"])
    proc = subprocess.Popen([PYTHON, str(HERE / "relay_child.py"), reader.path, str(broker.port),
                             "bench/relay"], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        if b"ready" not in proc.stdout.readline():
            raise RuntimeError("relay did not start")
        time.sleep(0.2)
        out: list[float] = []
        frames = [reader.frame(codec.OBSERVE, {"seat": "W", "card": HANDS["W"][i % 13],
                                               "zone": "hand", "face": "up", "level": "above",
                                               "t": i}) for i in range(events + 50)]
        def nth(n: int) -> Callable[[list[tuple[str, bytes, float]]], float | None]:
            return lambda m: m[n][2] if len(m) > n else None

        for i, data in enumerate(frames):
            n = len(sub.messages)
            t0 = reader.write(data)
            got = sub.wait(nth(n), 5)
            if got is None:
                raise RuntimeError(f"relay lost frame {i}")
            if i >= 50:  # warm-up
                out.append(got - t0)
            time.sleep(rng.uniform(0.002, 0.006))
        return out
    finally:
        proc.kill()
        proc.wait(5)
        sub.close()
        reader.close()


def alert_arrival(sub: Subscriber, alert_id: str, timeout: float) -> float | None:
    return sub.alert_time(alert_id, timeout)


def daemon_latency(broker: Broker, workdir: Path, events: int, dropped: int,
                   rng: random.Random) -> dict[str, Any]:
    readers = {s: SimReader("1", s) for s in "NESW"}
    conf = write_config(workdir / "daemon.toml", broker.port,
                        {"1": {s: r.path for s, r in readers.items()}}, workdir)
    sub = Subscriber(broker.port, ["ts/1/alert"])
    daemon = DaemonChild(conf, workdir / "daemon.log")
    pool = ReaderPool(list(readers.values()))
    held: list[float] = []
    drops: list[float] = []
    try:
        pool.start_sessions()
        board = 0
        done = 0
        warm = 48
        while done < events + warm:
            board += 1
            start_board(daemon, "1", board)
            readers["E"].observe(HANDS["E"][0], "trick", "up")  # the opening lead
            time.sleep(0.35)  # the lead's 300 ms "played together" window
            cards = [("W", c) for c in HANDS["W"][1:13]] + [("E", c) for c in HANDS["E"][1:13]]
            for n, (seat, card) in enumerate(cards, 1):
                if done >= events + warm:
                    break
                t0 = readers[seat].observe(card, "hand", "up", "above", t=done)
                got = alert_arrival(sub, f"1-{board}-{n}", 10)
                if got is None:
                    raise RuntimeError(f"no alert 1-{board}-{n} for {seat} {card}")
                if done >= warm:
                    held.append(got - t0)
                done += 1
                time.sleep(rng.uniform(0.002, 0.006))
            if done % 480 < 24:
                log(f"  {done} exposures, board {board}")
        for i in range(dropped):
            board += 1
            start_board(daemon, "1", board)
            readers["E"].observe(HANDS["E"][0], "trick", "up")
            time.sleep(0.35)
            seat = "W" if i % 2 else "E"
            t0 = readers[seat].observe(HANDS[seat][5], "table", "up", "at", t=i)
            got = alert_arrival(sub, f"1-{board}-1", 10)
            if got is None:
                raise RuntimeError(f"no alert for the dropped card of board {board}")
            drops.append(got - t0)
        stats = daemon.stats()
    finally:
        pool.close()
        daemon.close()
        sub.close()
    lost = sum(link["counters"].get("lost", 0) for link in stats["links"])
    alerts = stats["tables"]["1"]["alerts"]
    journal = stats["journal"]["1"]
    return {"held": held, "dropped": drops, "boards": board, "alerts": alerts, "lost": lost,
            "fsyncs": journal["fsyncs"], "journal_lines": journal["lines"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=2000)
    ap.add_argument("--dropped", type=int, default=30)
    ap.add_argument("--variants", default="disk,tmpfs")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    result: dict[str, Any] = {"events": args.events}
    with tempfile.TemporaryDirectory(prefix="ts-bench-") as tmp:
        broker = Broker(Path(tmp) / "broker")
        try:
            log(f"relay: {args.events} frames")
            relay = relay_latency(broker, args.events, rng)
            result["relay"] = summary_ms(relay)
            log(f"relay: {result['relay']}")
            for variant in args.variants.split(","):
                base = Path("/dev/shm") if variant == "tmpfs" else Path(tmp)
                with tempfile.TemporaryDirectory(prefix=f"ts-{variant}-", dir=base) as d:
                    log(f"daemon ({variant}): {args.events} exposures")
                    got = daemon_latency(broker, Path(d), args.events,
                                         args.dropped if variant == "disk" else 0, rng)
                held = summary_ms(got["held"])
                held["ratio_p50_to_relay"] = round(held["p50_ms"] / result["relay"]["p50_ms"], 2)
                held["ratio_p99_to_relay"] = round(held["p99_ms"] / result["relay"]["p99_ms"], 2)
                result[f"daemon_{variant}"] = {**held, "alerts": got["alerts"],
                                               "lost_frames": got["lost"],
                                               "journal_fsyncs": got["fsyncs"]}
                log(f"daemon ({variant}): {result[f'daemon_{variant}']}")
                if got["dropped"]:
                    result["dropped_card"] = summary_ms(got["dropped"])
                    log(f"dropped card: {result['dropped_card']}")
        finally:
            broker.close()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
