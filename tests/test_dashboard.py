"""The director's dashboard in a real browser: Debian's Chromium driven by Playwright.

A daemon with a simulated table (pty readers) and a mosquitto with a
WebSockets listener; the page is served by the daemon and talks MQTT over
WebSockets. An exposure at the table must appear as an alert with its
citation; the director's choice and resolution must come back as commands
that the daemon journals. Screenshots go to test-output/.

Never ``playwright install`` (it downloads browsers): scripts/services
installs Debian's chromium, and the tests skip without it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon.config import parse_config
from tablesense.daemon.core import Daemon
from tablesense.sim.robots import deal

CHROMIUM = "/usr/bin/chromium"
REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "test-output"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage",
        "--mute-audio"]

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.broker,
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                       reason="Debian's chromium is not installed (run scripts/services)"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=30_000)
        yield b
        b.close()


def make_daemon(tmp_path: Path, port: int, ws_port: int, readers: dict[str, str]) -> Daemon:
    cfg = parse_config({
        "version": 1,
        "broker": {"port": port, "base": "ts", "client_id": f"daemon-{tmp_path.name}"},
        "journal": {"dir": "journal", "fsync": "never"},
        "readers": {"heartbeat_timeout_ms": 3000, "backoff_initial_ms": 20,
                    "backoff_max_ms": 200},
        "tables": {"1": {"code": "duplicate-2017",
                         "readers": {s: {"port": u} for s, u in readers.items()}},
                   "2": {}},
        "dashboard": {"port": 0, "broker_url": f"ws://{{host}}:{ws_port}", "login": False},
        "state_interval_ms": 100,
    }, source="test.toml", base_dir=tmp_path)
    return Daemon(cfg)


def journal(tmp_path: Path, table: str = "1") -> list[dict[str, Any]]:
    path = tmp_path / "journal" / f"{table}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait(pred: Any, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def watch(page: Any) -> list[str]:
    """Everything that makes a page unclean: uncaught errors, console errors (a
    Content-Security-Policy violation is one), warnings, and any answer >= 400."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}")
            if m.type in ("error", "warning", "assert") else None)
    page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}")
            if r.status >= 400 else None)
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url} {r.failure}"))
    return errors


def open_page(browser: Any, url: str, width: int = 1280, height: int = 900) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.errors = watch(page)
    page.goto(url)
    page.wait_for_selector("#conn.pill-ok", timeout=10_000)
    return page


def test_exposure_alert_decide_and_resolve(tmp_path: Path, mosquitto: Any, pty_readers: Any,
                                           browser: Any) -> None:
    broker = mosquitto(websockets=True)
    readers = {s: pty_readers(reader=i + 1, serial=f"DASH-{s}") for i, s in enumerate("NESW")}
    daemon = make_daemon(tmp_path, broker.port, broker.ws_port,
                         {s: r.path for s, r in readers.items()})
    daemon.start()
    try:
        for r in readers.values():
            r.hello()
            r.start_heartbeats(0.3)
        assert daemon.dashboard_url is not None
        page = open_page(browser, daemon.dashboard_url)
        # the tables grid: both configured tables, readers going online
        page.wait_for_selector('.table-card[data-table="2"]')
        page.wait_for_selector('.table-card[data-table="1"] .reader-online[data-seat="W"]',
                               timeout=10_000)

        hands = deal(random.Random(5))
        assert daemon.command("1", {"type": "board", "board": 1, "dealer": "N",
                                    "vul": "None"})["ok"]
        assert daemon.command("1", {"type": "dealt", "hands": hands}, trusted=True)["ok"]
        for seat, call in (("N", "1S"), ("E", "P"), ("S", "2S"), ("W", "P"), ("N", "P"),
                           ("E", "P")):
            assert daemon.command("1", {"type": "call", "seat": seat, "call": call})["ok"]
        # North declares 2S, East is on lead: he drops an honour face up on the table
        card = next(c for c in hands["E"] if c[1] in "AKQJ")
        readers["E"].observe(card, zone="table", seat="E", t=10)
        page.wait_for_selector(".alerts .alert", timeout=10_000)
        alert = page.locator(".alerts .alert").first
        alert_id = alert.get_attribute("data-alert-id")
        assert alert_id == "1-1-1"
        assert "Law" in alert.locator(".citation").inner_text()
        assert "penalty card" in alert.locator(".kind").inner_text().lower()
        assert "East" in alert.locator(".offender").inner_text()
        assert alert.locator(".card").first.get_attribute("title") == card
        page.wait_for_selector('.table-card[data-table="1"] .penalty', timeout=5000)
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / "dashboard-alert.png"), full_page=True)

        # the non-offending side requires the lead of spades when West next leads
        alert.locator(".option:has(button[data-option='require-lead-suit']) select") \
            .select_option("S")
        alert.locator("button[data-option='require-lead-suit']").click()
        page.wait_for_selector(".alerts .alert .responses .ok", timeout=10_000)
        assert "decide" in alert.locator(".responses .ok").inner_text()
        # and the director closes it with a note
        alert.locator("input.note").fill("North called me; spade lead required")
        alert.locator("button.btn-resolve").click()
        page.wait_for_selector("#history .alert[data-alert-id='1-1-1']", state="attached",
                               timeout=10_000)
        page.locator("#history-box > summary").click()
        page.locator("details.cmdlog summary").click()
        page.screenshot(path=str(OUT / "dashboard-resolved.png"), full_page=True)
        assert page.errors == []

        lines = journal(tmp_path)
        decides = [x for x in lines if x["type"] == "decide"]
        resolves = [x for x in lines if x["type"] == "resolve"]
        assert decides and decides[-1]["alert"] == "1-1-1"
        assert decides[-1]["option"] == "require-lead-suit" and decides[-1]["suit"] == "S"
        assert resolves and resolves[-1] == {**resolves[-1], "alert": "1-1-1",
                                             "note": "North called me; spade lead required"}
        # the state followed: the resolved alert is no longer an open obligation
        assert wait(lambda: not [o for o in daemon.tables["1"].engine.snapshot()["obligations"]
                                 if o["id"] == "1-1-1"], 5)
        page.close()
    finally:
        daemon.stop()


def test_a_reader_covering_several_seats_shows_them_and_its_health(
        tmp_path: Path, mosquitto: Any, pty_readers: Any, browser: Any) -> None:
    """A camera board covering North, East and South on one link, and West's own
    reader: each seat's dot follows the reader that covers it, and the camera has a
    chip naming it and its seats; when it stops answering, its three seats go
    offline with it (West's does not) and its reader-offline alert names them."""
    broker = mosquitto(websockets=True)
    cam = pty_readers(reader=1, serial="CAM-1")
    west = pty_readers(reader=4, serial="DASH-W")
    daemon = Daemon(parse_config({
        "version": 1,
        "broker": {"port": broker.port, "base": "ts", "client_id": f"daemon-{tmp_path.name}"},
        "journal": {"dir": "journal", "fsync": "never"},
        "readers": {"heartbeat_timeout_ms": 1000, "backoff_initial_ms": 20,
                    "backoff_max_ms": 200},
        "tables": {"1": {"readers": {"camera": {"port": cam.path, "seats": ["N", "E", "S"]},
                                     "W": {"port": west.path}}}},
        "dashboard": {"port": 0, "broker_url": f"ws://{{host}}:{broker.ws_port}",
                      "login": False},
        "state_interval_ms": 100,
    }, source="test.toml", base_dir=tmp_path))
    daemon.start()
    try:
        for r in (cam, west):
            r.hello()
            r.start_heartbeats(0.2)
        assert daemon.dashboard_url is not None
        page = open_page(browser, daemon.dashboard_url)
        card = '.table-card[data-table="1"]'
        chip = f'{card} .reader-multi[data-reader="camera"]'
        page.wait_for_selector(f"{chip}.reader-online", timeout=10_000)
        for seat in "NESW":
            page.wait_for_selector(f'{card} .reader-online[data-seat="{seat}"]', timeout=10_000)
        assert page.locator(chip).get_attribute("data-seats") == "N E S"
        assert page.locator(f"{chip} .reader-name").inner_text() == "camera"
        assert page.locator(f"{chip} .reader-seats").inner_text() == "N E S"
        tip = page.locator(chip).get_attribute("title") or ""
        assert "North, East, South" in tip and "online" in tip and "CAM-1" in tip
        assert "reader camera" in (page.locator(f'{card} [data-seat="E"]').get_attribute(
            "title") or "")
        assert "West's reader" in (page.locator(f'{card} [data-seat="W"]').get_attribute(
            "title") or "")
        assert page.locator(f"{card} .reader-multi").count() == 1  # West's is a seat's

        cam.stop_heartbeats()
        page.wait_for_selector(f"{chip}.reader-offline", timeout=15_000)
        for seat in "NES":
            page.wait_for_selector(f'{card} .reader-offline[data-seat="{seat}"]',
                                   timeout=5_000)
        assert "reader-online" in (page.locator(f'{card} [data-seat="W"]').get_attribute(
            "class") or "")
        alert = page.locator('.alerts .alert[data-alert-id^="1-reader-camera-"]')
        alert.wait_for(timeout=10_000)
        text = alert.inner_text()
        assert "camera reader" in text and "North, East, South" in text, text
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / "dashboard-camera-reader.png"), full_page=True)
        assert page.errors == []

        cam.start_heartbeats(0.2)  # back: the chip, its seats and the alert follow
        cam.hello()
        page.wait_for_selector(f"{chip}.reader-online", timeout=15_000)
        for seat in "NES":
            page.wait_for_selector(f'{card} .reader-online[data-seat="{seat}"]',
                                   timeout=5_000)
        page.wait_for_selector('#history .alert[data-alert-id^="1-reader-camera-"]',
                               state="attached", timeout=5_000)  # closed: it is back
        assert page.errors == []
        page.close()
    finally:
        daemon.stop()


def test_html_in_alerts_and_notes_is_shown_as_text(tmp_path: Path, mosquitto: Any,
                                                   browser: Any, watchers: Any) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    broker = mosquitto(websockets=True)
    daemon = make_daemon(tmp_path, broker.port, broker.ws_port, {})
    daemon.start()
    evil = '<img src=x onerror="window.__xss=1">'
    try:
        assert daemon.dashboard_url is not None
        page = open_page(browser, daemon.dashboard_url, width=800, height=1000)
        client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        alert = {"v": 1, "id": "2-reader-N-1", "table": "2", "kind": "reader-offline",
                 "severity": "director", "citation": f"Law {evil}", "offender": "N",
                 "cards": [evil, "HT"], "options": [evil], "text": f"Reader {evil} gone",
                 "t": 1}
        for _ in range(2):  # at least once: the page shows it once
            client.publish("ts/2/alert", json.dumps(alert), qos=1).wait_for_publish(5)
        page.wait_for_selector(".alerts .alert[data-alert-id='2-reader-N-1']")
        time.sleep(0.3)
        assert page.locator(".alerts .alert").count() == 1
        box = page.locator(".alerts .alert").first
        assert box.locator(".text").inner_text() == f"Reader {evil} gone"
        assert evil in box.locator(".citation").inner_text()
        assert "♥10" in box.locator(".cards").inner_text()
        box.locator("input.note").fill(f"note {evil}")
        box.locator("button.btn-resolve").click()  # not an engine alert: dismissed here
        page.locator("#history-box > summary").click()
        closed = page.locator("#history .alert[data-alert-id='2-reader-N-1'] .closed-why")
        assert evil in closed.inner_text()
        OUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUT / "dashboard-escaped.png"), full_page=True)
        assert page.locator("img").count() == 0
        assert page.evaluate("window.__xss") is None
        assert page.errors == []
        client.loop_stop()
        client.disconnect()
        page.close()
    finally:
        daemon.stop()


def test_broker_lost_is_shown_and_the_page_reconnects(tmp_path: Path, mosquitto: Any,
                                                      browser: Any) -> None:
    broker = mosquitto(websockets=True)
    daemon = make_daemon(tmp_path, broker.port, broker.ws_port, {})
    daemon.start()
    try:
        assert daemon.dashboard_url is not None
        page = open_page(browser, daemon.dashboard_url, width=1024, height=768)
        page.wait_for_selector("#daemon.pill-ok", timeout=10_000)
        broker.stop()
        page.wait_for_selector("#conn.pill-bad", timeout=10_000)
        assert page.locator("#banner").is_visible()
        assert "lost" in page.locator("#banner").inner_text()
        broker.start()  # same ports: mqtt.js's reconnectPeriod brings the page back
        page.wait_for_selector("#conn.pill-ok", timeout=15_000)
        page.wait_for_selector("#daemon.pill-ok", timeout=15_000)  # retained state again
        assert not page.locator("#banner").is_visible()
        assert page.errors == []
        page.close()
    finally:
        daemon.stop()


def test_config_json_and_headers(tmp_path: Path) -> None:
    cfg = parse_config({"version": 1, "tables": {"A1": {}, "A2": {}},
                        "dashboard": {"port": 0, "broker_url": "wss://club:8443/mqtt",
                                      "username": "director"}},
                       source="t.toml", base_dir=tmp_path)
    daemon = Daemon(cfg)
    assert daemon.web is not None
    daemon.web.start()  # the server alone: no broker needed
    try:
        with urllib.request.urlopen(daemon.web.url + "config.json", timeout=5) as r:
            body = json.loads(r.read())
            assert "script-src 'self'" in r.headers["Content-Security-Policy"]
            assert r.headers["Cache-Control"] == "no-store"
        assert body == {"v": 1, "broker_url": "wss://club:8443/mqtt", "base": "tablesense",
                        "tables": ["A1", "A2"], "login": True, "username": "director"}
        for name in ("", "index.html", "dashboard.js", "dashboard.css", "mqtt.min.js",
                     "favicon.svg", "favicon.ico", "catalogue.json", "report.css"):
            with urllib.request.urlopen(daemon.web.url + name, timeout=5) as r:
                assert r.status == 200
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(daemon.web.url + "../daemon/", timeout=5)
    finally:
        daemon.web.stop()
        daemon.outbox.close()


def test_run_prints_the_dashboard_url(tmp_path: Path, mosquitto: Any) -> None:
    broker = mosquitto(websockets=True)
    conf = tmp_path / "t.toml"
    conf.write_text(f'version = 1\n[broker]\nport = {broker.port}\n'
                    '[journal]\ndir = "j"\n[dashboard]\nport = 0\n[tables.1]\n')
    exe = Path(sys.executable).with_name("tablesense")
    proc = subprocess.Popen([str(exe), "run", "--config", str(conf)], stderr=subprocess.PIPE,
                            text=True)
    try:
        url = None
        deadline = time.monotonic() + 15
        assert proc.stderr is not None
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if "dashboard at " in line:
                url = line.split("dashboard at ", 1)[1].strip()
        assert url and url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url + "config.json", timeout=5) as r:
            assert json.loads(r.read())["tables"] == ["1"]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0
