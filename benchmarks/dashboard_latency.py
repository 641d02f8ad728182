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
  engine decides when the card has rested for its 1 s window;
* ``decision`` (simulated readers): from the click on the alert's "Penalty
  card remains" in this page to the decision listed under the same alert in
  a second page (a phone's viewport): one device's decision on every other
  device, through the daemon's journal and its alert ledger
  (``<base>/<table>/alerts``).

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
from typing import Any

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


def summary(values: list[float], scale: float = 1000) -> dict[str, float]:
    """n, p50, p90, p95, max in ms of ``values`` (seconds; ``scale`` 1 for ms)."""
    ms = sorted(v * scale for v in values)
    if not ms:
        return {"n": 0}
    return {"n": len(ms), "p50": round(statistics.median(ms), 1),
            "p90": round(ms[min(len(ms) - 1, int(0.9 * len(ms)))], 1),
            "p95": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 1), "max": round(ms[-1], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=20)
    ap.add_argument("--readers", choices=("simulated", "honest"), default="simulated",
                    help="simulated: frames written into the ptys by this process (timed from "
                         "the write); honest: the RFID firmware in the VM and the camera "
                         "pipeline on rendered frames, timed from the card's landing "
                         "(benchmarks/honest_rig.py)")
    ap.add_argument("--state-interval-ms", type=int, default=250,
                    help="the daemon's state_interval_ms (default 250, its own default)")
    args = ap.parse_args()
    with Rig(args.readers, args.boards, args.state_interval_ms) as rig:
        out = rig.run_honest() if args.readers == "honest" else rig.run_simulated()
    print(json.dumps({"readers": args.readers, "boards": args.boards,
                      "state_interval_ms": args.state_interval_ms,
                      "loadavg": round(os.getloadavg()[0], 2), **out}))
    return 0


class Rig:
    """mosquitto, the daemon with the table's readers, the page in Chromium."""

    def __init__(self, readers: str, boards: int, state_interval_ms: int) -> None:
        self.kind = readers
        self.boards = boards
        self.state_interval_ms = state_interval_ms
        self.work = Path(tempfile.mkdtemp(prefix="ts-dash-bench-"))
        self.seen: dict[str, float] = {}  # "trick:B:CARD" etc. -> wall s of the first state

    def __enter__(self) -> Rig:
        from playwright.sync_api import sync_playwright

        work = self.work
        port, ws_port = free_port(), free_port()
        conf = work / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nlistener {ws_port} 127.0.0.1\n"
                        "protocol websockets\nallow_anonymous true\n"
                        f"user {pwd.getpwuid(os.geteuid()).pw_name}\nlog_dest stderr\n"
                        "log_type error\n")
        self.broker = subprocess.Popen(
            [shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.daemon: Daemon | None = None
        self.pool: ReaderPool | None = None
        self.honest: Any = None
        self.pw: Any = None
        self.sub = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.sub.on_message = self._on_state
        assert wait_port(port) and wait_port(ws_port), "mosquitto did not start"
        rng = random.Random(1)
        self.deals = [deal(rng) for _ in range(self.boards)]
        if self.kind == "honest":
            from honest_rig import HonestReaders, timetable

            self.honest = HonestReaders(timetable(self.deals), work)
            readers_cfg = self.honest.config()
        else:
            self.readers = {s: SimReader("1", s) for s in "NESW"}
            self.pool = ReaderPool(list(self.readers.values()))
            readers_cfg = {s: {"port": r.path} for s, r in self.readers.items()}
        cfg = parse_config({
            "version": 1, "broker": {"port": port, "client_id": "bench-dashboard"},
            "journal": {"dir": str(work / "journal")},
            "tables": {"1": {"readers": readers_cfg}},
            "dashboard": {"port": 0, "broker_url": f"ws://{{host}}:{ws_port}", "login": False},
            "state_interval_ms": self.state_interval_ms,
        }, source="bench", base_dir=work)
        self.daemon = Daemon(cfg)
        self.daemon.start()
        self.sub.connect("127.0.0.1", port)
        self.sub.subscribe("tablesense/1/state", qos=1)
        self.sub.loop_start()
        if self.pool is not None:
            self.pool.start_sessions()
        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        self.page = self.browser.new_page(viewport={"width": 1366, "height": 900})
        assert self.daemon.dashboard_url
        self.page.goto(self.daemon.dashboard_url)
        self.page.wait_for_selector("#conn.pill-ok", timeout=15_000)
        self.page.locator('.table-card[data-table="1"]').click()
        self.phone = self.browser.new_page(viewport={"width": 390, "height": 844},
                                           is_mobile=True)
        self.phone.goto(self.daemon.dashboard_url)
        self.phone.wait_for_selector("#conn.pill-ok", timeout=15_000)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pw is not None:
            self.browser.close()
            self.pw.stop()
        self.sub.loop_stop()
        if self.daemon is not None:
            self.daemon.stop()
        if self.pool is not None:
            self.pool.close()
        if self.honest is not None:
            self.honest.close()
        self.broker.terminate()
        self.broker.wait(5)
        shutil.rmtree(self.work, ignore_errors=True)

    def _on_state(self, client: object, userdata: object, msg: mqtt.MQTTMessage) -> None:
        now = time.time()
        state = json.loads(msg.payload)
        v, b = state.get("view") or {}, state.get("board")
        tr = v.get("trick") or {}
        for _, c in (tr.get("cards") or []) + (tr.get("pending") or []):
            self.seen.setdefault(f"trick:{b}:{c}", now)
        for x in v.get("lying") or []:
            self.seen.setdefault(f"lying:{b}:{x['card']}", now)
            if str(x.get("status", "")).endswith("penalty-card"):
                self.seen.setdefault(f"penalty:{b}:{x['card']}", now)

    def _set_up(self, board: int, hands: dict[str, list[str]]) -> None:
        """The board and its auction, by commands (not timed)."""
        d = self.daemon
        assert d is not None
        assert d.command("1", {"type": "board", "board": board, "dealer": "N",
                               "vul": "None"})["ok"]
        assert d.command("1", {"type": "dealt", "hands": hands}, trusted=True)["ok"]
        for seat, call in (("N", "1N"), ("E", "P"), ("S", "3N"), ("W", "P"),
                           ("N", "P"), ("E", "P")):
            assert d.command("1", {"type": "call", "seat": seat, "call": call})["ok"]
        self.page.wait_for_selector(f'#tv-h:has-text("board {board}")')

    def run_simulated(self) -> dict[str, Any]:
        """Frames written into the ptys by this process, each timed from its write."""
        times: dict[str, list[float]] = {"played": [], "face_up": [], "penalty": [],
                                         "decision": [], "played_state": [],
                                         "face_up_state": []}
        page = self.page
        for board, hands in enumerate(self.deals, 1):
            self._set_up(board, hands)
            lead = hands["E"][0]
            t0 = self.readers["E"].observe(lead, "trick", "up")
            w0 = time.time()
            page.wait_for_selector(f'#tv .tv-spot-e .card[title="{lead}"]', timeout=15_000)
            times["played"].append(time.perf_counter() - t0)
            times["played_state"].append(self.seen[f"trick:{board}:{lead}"] - w0)
            honour = next((c for c in hands["W"] if c[1] in "AKQJ"), hands["W"][0])
            t0 = self.readers["W"].observe(honour, "table", "up")
            w0 = time.time()
            page.wait_for_selector(f'#tv .tv-w .tv-lying li[data-card="{honour}"]',
                                   timeout=15_000)
            times["face_up"].append(time.perf_counter() - t0)
            times["face_up_state"].append(self.seen[f"lying:{board}:{honour}"] - w0)
            page.wait_for_selector(f'#tv .tv-w .tv-lying li[data-card="{honour}"]'
                                   '[data-status$="penalty-card"]', timeout=15_000)
            times["penalty"].append(time.perf_counter() - t0)
            alert = f".alert[data-alert-id='1-{board}-1']"
            self.phone.wait_for_selector(f"#alerts {alert}", timeout=15_000)
            t0 = time.perf_counter()
            page.locator(f"{alert} button[data-option='pc-remains']").click()
            self.phone.wait_for_selector(f"{alert} .decisions li.decision-decide",
                                         timeout=15_000)
            times["decision"].append(time.perf_counter() - t0)
        return {k: summary(v) for k, v in times.items()}

    def run_honest(self) -> dict[str, Any]:
        """Each board on the honest readers' timetable, timed from the card's landing (the
        wall-clock instant of its scenario line) to the element on the page, and split:
        ``sense`` (landing to the host's receipt: the reader's scan, debounce, the wire
        and the link, the journal's ``t``), ``daemon`` (receipt to the first state
        showing it at a plain MQTT subscriber: journal, engine with its law windows,
        outbox, MQTT) and ``page`` (that state to the element)."""
        from honest_rig import (
            PENALTY_AFTER_MS,
            SETUP_MS,
            board_at,
            first_after,
            honour,
            host_arrivals,
        )

        rig = self.honest
        page = self.page
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        stamps: dict[str, list[tuple[int, str, float, float]]] = {"played": [], "penalty": []}
        missing = {"played": 0, "penalty": 0}
        late = 0
        for b, hands in enumerate(self.deals):
            board = b + 1
            land = rig.wall_ms(board_at(b)) / 1000
            pause = land - SETUP_MS / 1000 - time.time()  # the last board cleared by then
            if pause > 0:
                time.sleep(pause)  # pacing the timetable, not waiting for a result
            try:
                self._set_up(board, hands)
            except PlaywrightTimeout:
                late += 1  # the page never showed the board: not a sample
                continue
            if time.time() > land:
                late += 1  # set up after the landing: not a fair sample
                continue
            lead, drop = hands["E"][0], honour(hands["W"])
            for name, sel, card, t_event in (
                    ("played", f'#tv .tv-spot-e .card[title="{lead}"]', lead, land),
                    ("penalty", f'#tv .tv-w .tv-lying li[data-card="{drop}"]'
                                '[data-status$="penalty-card"]', drop,
                     land + PENALTY_AFTER_MS / 1000)):
                try:
                    page.wait_for_selector(sel, timeout=15_000)
                except PlaywrightTimeout:
                    missing[name] += 1  # never shown: counted, not timed
                    continue
                stamps[name].append((board, card, t_event, time.time()))
        assert self.daemon is not None
        self.daemon.stop()  # its journals complete before they are read
        self.daemon = None
        arrived = host_arrivals(self.work / "journal")
        out: dict[str, Any] = {"late_boards": late, "not_shown": missing}
        for name, key, zone, face in (("played", "trick", "trick", "any"),
                                      ("penalty", "penalty", "table", "up")):
            total, sense, daemon, pg = [], [], [], []
            for board, card, t_land, t_page in stamps[name]:
                total.append(t_page - t_land)
                host = first_after(arrived.get((card, zone, face)), t_land * 1000)
                state = self.seen.get(f"{key}:{board}:{card}")
                if host is not None and state is not None:
                    sense.append(host / 1000 - t_land)
                    daemon.append(state - host / 1000)
                    pg.append(t_page - state)
            out[name] = {**summary(total), "stages_p50_ms": {
                "sense": summary(sense).get("p50"), "daemon": summary(daemon).get("p50"),
                "page": summary(pg).get("p50")}}
        return out


if __name__ == "__main__":
    raise SystemExit(main())
