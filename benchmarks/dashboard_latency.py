"""From an observation at the table to the director's table view in Chromium.

    .venv/bin/python benchmarks/dashboard_latency.py --boards 20 [--state-interval-ms 250]

One mosquitto (anonymous, TCP and WebSockets listeners on free loopback
ports), the real daemon in this process (journal, engine, outbox, paho) with
four simulated readers behind ptys, and the dashboard in Debian's headless
Chromium driven by Playwright with the table view open. Per board (its
auction set up by commands, not timed): East's opening lead arrives in his
trick zone, then West drops an honour face up on the table. Three times,
each from the moment the frame's last byte was written into the pty
(``time.perf_counter()`` in this process) to the moment Playwright saw the
element on the page:

* ``played``: the lead in the table view's trick;
* ``face_up``: West's card lying face up in front of him (no ruling yet);
* ``penalty``: the same card labelled a major penalty card, which the
  engine decides when the card has rested for its 1 s window.

Playwright's own round trip is included (it polls the page), so the page is
at least this fast. ``played_state`` and ``face_up_state``: the same up to
the first state message showing the card at a plain MQTT subscriber (TCP),
to tell the daemon's share from the browser's. Prints a JSON summary (ms:
p50, p90, max).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paho.mqtt.client as mqtt
from harness import ReaderPool, SimReader, free_port, wait_port
from paho.mqtt.enums import CallbackAPIVersion

from tablesense.daemon.config import parse_config
from tablesense.daemon.core import Daemon
from tablesense.sim.robots import deal

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--mute-audio"]


def summary(values: list[float]) -> dict[str, float]:
    ms = sorted(v * 1000 for v in values)
    return {"n": len(ms), "p50": round(statistics.median(ms), 1),
            "p90": round(ms[min(len(ms) - 1, int(0.9 * len(ms)))], 1), "max": round(ms[-1], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--state-interval-ms", type=int, default=250,
                    help="the daemon's state_interval_ms (default 250, its own default)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="ts-dash-bench-"))
    port, ws_port = free_port(), free_port()
    conf = work / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nlistener {ws_port} 127.0.0.1\n"
                    "protocol websockets\nallow_anonymous true\n"
                    f"user {pwd.getpwuid(os.geteuid()).pw_name}\nlog_dest stderr\n"
                    "log_type error\n")
    broker = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c",
                               str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    readers = {s: SimReader("1", s) for s in "NESW"}
    pool = ReaderPool(list(readers.values()))
    daemon = None
    times: dict[str, list[float]] = {"played": [], "face_up": [], "penalty": [],
                                     "played_state": [], "face_up_state": []}
    seen: dict[str, float] = {}  # "trick:BOARD:CARD" / "lying:BOARD:CARD" -> first state with it

    def on_state(client: object, userdata: object, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        state = json.loads(msg.payload)
        v, b = state.get("view") or {}, state.get("board")
        tr = v.get("trick") or {}
        for _, c in (tr.get("cards") or []) + (tr.get("pending") or []):
            seen.setdefault(f"trick:{b}:{c}", now)
        for x in v.get("lying") or []:
            seen.setdefault(f"lying:{b}:{x['card']}", now)

    sub = mqtt.Client(CallbackAPIVersion.VERSION2)
    sub.on_message = on_state
    try:
        assert wait_port(port) and wait_port(ws_port), "mosquitto did not start"
        cfg = parse_config({
            "version": 1, "broker": {"port": port, "client_id": "bench-dashboard"},
            "journal": {"dir": str(work / "journal")},
            "tables": {"1": {"readers": {s: {"port": r.path} for s, r in readers.items()}}},
            "dashboard": {"port": 0, "broker_url": f"ws://{{host}}:{ws_port}", "login": False},
            "state_interval_ms": args.state_interval_ms,
        }, source="bench", base_dir=work)
        daemon = Daemon(cfg)
        daemon.start()
        sub.connect("127.0.0.1", port)
        sub.subscribe("tablesense/1/state", qos=1)
        sub.loop_start()
        pool.start_sessions()
        rng = random.Random(1)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1366, "height": 900})
            assert daemon.dashboard_url
            page.goto(daemon.dashboard_url)
            page.wait_for_selector("#conn.pill-ok", timeout=15_000)
            page.locator('.table-card[data-table="1"]').click()
            for board in range(1, args.boards + 1):
                hands = deal(rng)
                assert daemon.command("1", {"type": "board", "board": board, "dealer": "N",
                                            "vul": "None"})["ok"]
                assert daemon.command("1", {"type": "dealt", "hands": hands},
                                      trusted=True)["ok"]
                for seat, call in (("N", "1N"), ("E", "P"), ("S", "3N"), ("W", "P"),
                                   ("N", "P"), ("E", "P")):
                    assert daemon.command("1", {"type": "call", "seat": seat, "call": call})["ok"]
                page.wait_for_selector(f'#tv-h:has-text("board {board}")')
                lead = hands["E"][0]
                t0 = readers["E"].observe(lead, "trick", "up")
                page.wait_for_selector(f'#tv .tv-spot-e .card[title="{lead}"]', timeout=15_000)
                times["played"].append(time.perf_counter() - t0)
                times["played_state"].append(seen[f"trick:{board}:{lead}"] - t0)
                honour = next((c for c in hands["W"] if c[1] in "AKQJ"), hands["W"][0])
                t0 = readers["W"].observe(honour, "table", "up")
                page.wait_for_selector(f'#tv .tv-w .tv-lying li[data-card="{honour}"]',
                                       timeout=15_000)
                times["face_up"].append(time.perf_counter() - t0)
                times["face_up_state"].append(seen[f"lying:{board}:{honour}"] - t0)
                page.wait_for_selector(f'#tv .tv-w .tv-lying li[data-card="{honour}"]'
                                       '[data-status$="penalty-card"]', timeout=15_000)
                times["penalty"].append(time.perf_counter() - t0)
            browser.close()
    finally:
        sub.loop_stop()
        if daemon is not None:
            daemon.stop()
        pool.close()
        broker.terminate()
        broker.wait(5)
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"boards": args.boards, "state_interval_ms": args.state_interval_ms,
                      **{k: summary(v) for k, v in times.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
