"""The director's one truth in a real browser: every device, every reload, one record.

Real parts throughout, as in test_dashboard_director.py: mosquitto with the
example ACL (two directors here) and a WebSockets listener, the daemon with
pty readers (in-process, or ``tablesense run`` in a process of its own where
it is killed), Debian's Chromium driven by Playwright at a desktop's and a
phone's size. Every page is watched for console errors and warnings, uncaught
errors and answers >= 400. Screenshots go to test-output/; the time each
decision took to reach the other device is in test-output/dashboard-latency.json.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablesense.daemon.config import parse_config
from tablesense.daemon.core import Daemon
from tablesense.sim.robots import deal
from test_dashboard import ARGS, CHROMIUM, OUT, journal, wait, watch
from test_dashboard_director import (
    DESKTOP,
    PHONE,
    Room,
    daemon_config,
    honour_of,
    save_latency,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.broker,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason="Debian's chromium is not installed (run scripts/services)"),
]

REPO = Path(__file__).resolve().parent.parent
USERS = {"daemon": "pw-daemon", "director": "pw-director", "ann": "pw-ann", "viewer": "pw-viewer"}
# the example ACL and a second director, as a club with two directors would have it
ACL = (REPO / "examples" / "mosquitto" / "acl").read_text() + (
    "\nuser ann\ntopic read tablesense/#\ntopic write tablesense/+/cmd/by/ann\n")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=30_000)
        yield b
        b.close()


@pytest.fixture
def hall(tmp_path: Path, mosquitto: Any, pty_readers: Any) -> Iterator[Room]:
    broker = mosquitto(users=USERS, acl=ACL, websockets=True)
    readers = {s: pty_readers(reader=i + 1, serial=f"TRUTH-{s}") for i, s in enumerate("NESW")}
    daemon = Daemon(parse_config(daemon_config(tmp_path, broker, readers), source="test.toml",
                                 base_dir=tmp_path))
    daemon.start()
    for r in readers.values():
        r.hello()
        r.start_heartbeats(0.3)
    try:
        yield Room(daemon, broker, readers, tmp_path)
    finally:
        daemon.stop()


def sign_in(browser: Any, url: str, user: str, device: dict[str, Any]) -> Any:
    page = browser.new_context(**device).new_page()
    page.errors = watch(page)
    page.goto(url)
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#login-user", user)
    page.fill("#login-pass", USERS[user])
    page.locator("#login button[type=submit]").click()
    page.wait_for_selector("#conn.pill-ok", timeout=10_000)
    page.wait_for_selector(f"#role:has-text('{user} · ')", timeout=10_000)
    page.wait_for_selector("#daemon.pill-ok", timeout=10_000)
    return page


def penalty_card(room: Room, board: int, seed: int) -> str:
    """Board ``board`` to 2S by North; East leads, West drops an honour: an alert."""
    d = room.daemon
    hands = deal(random.Random(seed))
    assert d.command("1", {"type": "board", "board": board, "dealer": "N", "vul": "None"})["ok"]
    assert d.command("1", {"type": "dealt", "hands": hands}, trusted=True)["ok"]
    for seat, call in (("N", "1S"), ("E", "P"), ("S", "2S"), ("W", "P"), ("N", "P"),
                       ("E", "P")):
        assert d.command("1", {"type": "call", "seat": seat, "call": call})["ok"]
    t0 = 10 + 1000 * board
    room.readers["E"].observe(hands["E"][0], zone="trick", seat="E", t=t0)
    room.readers["W"].observe(honour_of(hands, "W"), zone="table", seat="W", t=t0 + 10)
    rid = f"1-{board}-1"
    assert wait(lambda: any(e["id"] == rid for e in room.daemon.tables["1"].ledger.payload()
                            ["open"]), 10), f"no alert {rid}"
    return rid


def open_ids(page: Any) -> list[str]:
    return sorted(page.locator("#alerts .alert:not(.closed)").evaluate_all(
        "ns => ns.map(n => n.dataset.alertId)"))


def test_reload_and_late_login_see_every_open_alert(hall: Room, browser: Any) -> None:
    first = penalty_card(hall, 1, seed=5)
    second = penalty_card(hall, 2, seed=6)  # board 1's alert is still open, unresolved
    late = sign_in(browser, hall.url, "director", DESKTOP)  # logs in after both
    late.wait_for_selector(f"#alerts .alert[data-alert-id='{first}']", timeout=10_000)
    late.wait_for_selector(f"#alerts .alert[data-alert-id='{second}']", timeout=10_000)
    assert open_ids(late) == [first, second]
    assert late.locator("#open-count").inner_text() == "2"
    # the earlier board's options lapsed, but it waits for the director
    lapsed = late.locator(f".alert[data-alert-id='{first}'] .lapsed").inner_text()
    assert "board 1 is over" in lapsed
    card = late.locator('.table-card[data-table="1"]')
    assert card.get_attribute("data-open") == "2"
    assert "2 open" in card.locator(".need").inner_text()
    assert "major penalty card" in card.locator(".need").inner_text().lower()
    assert "Table 1" in late.locator("#needing-list").inner_text()
    late.screenshot(path=str(OUT / "truth-late-login.png"), full_page=True)

    # a resolution from this page, then a reload: the same open alerts, the resolved one
    # in the history with who resolved it
    late.locator(f".alert[data-alert-id='{first}'] input.note").fill("no damage")
    late.locator(f".alert[data-alert-id='{first}'] button.btn-resolve").click()
    late.wait_for_selector(f"#history .alert[data-alert-id='{first}']", state="attached",
                           timeout=10_000)
    late.reload()
    late.wait_for_selector("#conn.pill-ok", timeout=10_000)
    late.wait_for_selector(f"#alerts .alert[data-alert-id='{second}']", timeout=10_000)
    late.wait_for_selector(f"#history .alert[data-alert-id='{first}']", state="attached",
                           timeout=10_000)
    assert open_ids(late) == [second]
    text = late.locator(f"#history .alert[data-alert-id='{first}'] .decisions").text_content()
    assert text is not None
    assert "director" in text and "resolved: no damage" in text
    # the phone, logged in later still: "tables needing you" first
    phone = sign_in(browser, hall.url, "ann", PHONE)
    phone.wait_for_selector("#needing-list .need-btn[data-table='1']", timeout=10_000)
    top = phone.locator("#needing").bounding_box()
    alerts = phone.locator("#alerts").bounding_box()
    tables = phone.locator("#tables").bounding_box()
    assert top is not None and alerts is not None and tables is not None
    assert top["y"] < alerts["y"] < tables["y"]
    assert "1 open" in phone.locator("#needing-list").inner_text()
    phone.screenshot(path=str(OUT / "truth-phone-needing.png"), full_page=True)
    assert late.errors == [] and phone.errors == []


def test_the_tables_sort_by_need(hall: Room, browser: Any) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    penalty_card(hall, 1, seed=5)  # table 1: a penalty
    # table 2: a director-severity alert (as the daemon's ledger would say it for a
    # reader gone), which outranks table 1's penalty
    now = int(time.time() * 1000)
    gone = {"v": 1, "id": "2-reader-N-1", "table": "2", "kind": "reader-offline",
            "severity": "director", "cards": [], "options": [], "citation": "", "t": now,
            "text": "North's reader at table 2 stopped answering.", "reader": "N",
            "status": "open", "decisions": []}
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    c.username_pw_set("daemon", USERS["daemon"])
    c.connect("127.0.0.1", hall.broker.port)
    c.loop_start()
    c.publish("tablesense/2/alerts", json.dumps({
        "v": 1, "table": "2", "count": 1, "worst": "reader-offline", "severity": "director",
        "oldest": now, "open": [gone], "closed": []}), qos=1, retain=True).wait_for_publish(5)
    c.loop_stop()
    c.disconnect()
    page = sign_in(browser, hall.url, "director", DESKTOP)
    page.wait_for_selector('.table-card[data-table="2"].needs-director', timeout=10_000)
    page.wait_for_selector('.table-card[data-table="1"].needs-penalty', timeout=10_000)

    def order() -> list[str]:
        return list(page.locator("#tables .table-card").evaluate_all(
            "ns => ns.map(n => n.dataset.table)"))

    assert order() == ["1", "2"]  # by table, as it opens
    page.select_option("#sort", "need")
    assert order() == ["2", "1"]
    needing = page.locator("#needing-list .need-btn").evaluate_all(
        "ns => ns.map(n => n.dataset.table)")
    assert needing == ["2", "1"]
    page.reload()  # the choice is kept on the device
    page.wait_for_selector('.table-card[data-table="2"].needs-director', timeout=10_000)
    assert page.locator("#sort").input_value() == "need" and order() == ["2", "1"]
    page.screenshot(path=str(OUT / "truth-sorted-by-need.png"), full_page=True)
    assert page.errors == []


def test_two_devices_see_each_others_decisions_and_a_second_is_refused(
        hall: Room, browser: Any) -> None:
    desk = sign_in(browser, hall.url, "director", DESKTOP)
    phone = sign_in(browser, hall.url, "ann", PHONE)
    rid = penalty_card(hall, 1, seed=5)
    alert = f".alert[data-alert-id='{rid}']"
    for page in (desk, phone):
        page.wait_for_selector(f"#alerts {alert}", timeout=10_000)

    # ann decides on her phone: the desktop shows who and what, and takes no option now
    t0 = time.monotonic()
    phone.locator(f"{alert} button[data-option='pc-remains']").tap()
    desk.wait_for_selector(f"{alert} .decisions li[data-by='ann']", timeout=10_000)
    save_latency("decision_to_other_device_s", time.monotonic() - t0)
    assert "decided Penalty card remains" in desk.locator(f"{alert} .decisions").inner_text()
    assert desk.locator(f"{alert} button[data-option='require-lead-suit']").is_disabled()
    assert desk.locator(f"{alert} button[data-option='pc-remains']").get_attribute(
        "class").find("chosen") >= 0
    assert wait(lambda: rid in hall.daemon.states["1"]["answered"], 5)

    # a device that had not heard yet presses another option: the daemon refuses it and
    # says who answered and what
    other = f"{alert} button[data-option='forbid-lead-suit']"
    desk.evaluate(f"""() => {{ const b = document.querySelector("{other}");
                              b.disabled = false; b.click(); }}""")
    desk.wait_for_selector(f"{alert} .responses .err", timeout=10_000)
    refused = desk.locator(f"{alert} .responses .err").inner_text()
    assert re.search(r"already answered by ann at \d\d:\d\d:\d\d \(pc-remains\)", refused), refused
    desk.screenshot(path=str(OUT / "truth-second-decision-refused.png"), full_page=True)
    lines = journal(hall.tmp)
    assert [(x["type"], x.get("by")) for x in lines if x["type"] in ("decide", "rejected")] == [
        ("decide", "ann"), ("rejected", "director")]

    # the director re-opens it on the desktop (journaled): the phone may decide again
    desk.locator(f"{alert} .btn-reopen").click()
    phone.wait_for_selector(f"{alert} .decisions li.decision-reopen[data-by='director']",
                            timeout=10_000)
    phone.wait_for_selector(f"{alert} button[data-option='require-lead-suit']:not([disabled])",
                            timeout=10_000)
    phone.locator(f"{alert} .option:has(button[data-option='require-lead-suit']) select"
                  ).select_option("S")
    phone.locator(f"{alert} button[data-option='require-lead-suit']").tap()
    desk.wait_for_selector(f"{alert} .decisions li.decision-decide >> nth=1", timeout=10_000)
    assert "Require" in desk.locator(f"{alert} .decisions li.decision-decide").nth(1).inner_text()
    lines = journal(hall.tmp)
    assert [(x["type"], x.get("by")) for x in lines if x["type"] in ("decide", "reopen")] == [
        ("decide", "ann"), ("reopen", "director"), ("decide", "ann")]
    phone.screenshot(path=str(OUT / "truth-phone-decisions.png"), full_page=True)
    assert desk.errors == [] and phone.errors == []


def _run(conf: Path, *extra: str) -> subprocess.Popen[str]:
    exe = Path(sys.executable).parent / "tablesense"
    return subprocess.Popen([str(exe), "run", "--config", str(conf), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _toml(cfg: dict[str, Any]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f'"{k}" = {value(x)}' for k, x in v.items()) + " }"
        return json.dumps(v)
    out = [f"version = {cfg['version']}", f"state_interval_ms = {cfg['state_interval_ms']}"]
    for section in ("broker", "journal", "readers", "dashboard"):
        out.append(f"[{section}]")
        out += [f"{k} = {value(v)}" for k, v in cfg[section].items()]
    for name, t in cfg["tables"].items():
        out.append(f'[tables."{name}"]')
        out += [f"{k} = {value(v)}" for k, v in t.items()]
    return "\n".join(out) + "\n"


def test_a_killed_daemons_tables_go_offline_and_a_second_daemon_is_refused(
        tmp_path: Path, mosquitto: Any, pty_readers: Any, browser: Any) -> None:
    broker = mosquitto(users=USERS, acl=ACL, websockets=True)
    readers = {s: pty_readers(reader=i + 1, serial=f"KILL-{s}") for i, s in enumerate("NESW")}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    conf_a = tmp_path / "a" / "tablesense.toml"
    conf_a.write_text(_toml(daemon_config(tmp_path / "a", broker, readers)))
    first = _run(conf_a)
    try:
        assert first.stderr is not None
        line = first.stderr.readline()
        while "dashboard at" not in line:
            assert line, "the daemon stopped before serving its dashboard"
            line = first.stderr.readline()
        url = line.split("dashboard at ", 1)[1].strip()
        for r in readers.values():
            r.hello()
            r.start_heartbeats(0.3)
        page = sign_in(browser, url, "director", DESKTOP)
        page.wait_for_selector('.table-card[data-table="1"] .reader-online[data-seat="N"]',
                               timeout=10_000)
        daemon_id = page.locator("#daemon").get_attribute("data-daemon")
        assert daemon_id and str(first.pid) in daemon_id

        # a second daemon on the same base (its own journal and dashboard) is refused
        other = dict(daemon_config(tmp_path / "b", broker, {}))
        other["tables"] = {"1": {}, "2": {}}
        conf_b = tmp_path / "b" / "tablesense.toml"
        conf_b.write_text(_toml(other))
        second = _run(conf_b)
        _, err = second.communicate(timeout=60)
        assert second.returncode == 3, err
        assert f"another daemon is running on this base: {daemon_id}" in err
        assert "--take-over" in err
        assert page.locator("#daemon").get_attribute("data-daemon") == daemon_id
        assert page.locator("#daemon.pill-ok").count() == 1
        refused_journal = tmp_path / "b" / "journal" / "1.jsonl"
        assert not refused_journal.exists() or refused_journal.read_text() == ""

        # North's reader falls silent: the card says so, and an alert waits for the director
        readers["N"].stop_heartbeats()
        card1 = page.locator('.table-card[data-table="1"]')
        page.wait_for_selector('.table-card[data-table="1"] .stale-readers', timeout=10_000)
        assert "North" in card1.locator(".stale-readers").inner_text()
        page.wait_for_selector("#alerts .alert[data-alert-id^='1-reader-N-'] .btn-resolve",
                               timeout=10_000)
        assert page.locator("#alerts .alert .btn-resolve").first.is_enabled()

        # the first is killed: its will says offline; every table and reader goes grey,
        # and nothing can be pressed
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        page.wait_for_selector("#daemon.pill-bad", timeout=10_000)
        page.wait_for_selector("#daemon-banner:not([hidden])")
        assert "nothing can be decided" in page.locator("#daemon-banner").inner_text()
        for name in ("1", "2"):
            card = page.locator(f'.table-card[data-table="{name}"]')
            assert "offline" in (card.get_attribute("class") or "")
            assert "the daemon stopped" in card.locator(".table-offline").inner_text()
        assert page.locator('.table-card[data-table="1"] .reader-online').count() == 0
        assert page.locator('.table-card[data-table="1"] .reader-offline').count() == 4
        assert "daemon-offline" in (page.locator("body").get_attribute("class") or "")
        assert page.locator("#alerts .alert .btn-resolve").first.is_disabled()
        assert page.locator("#alerts .alert input.note").first.is_disabled()
        page.screenshot(path=str(OUT / "truth-daemon-killed.png"), full_page=True)
        assert page.errors == []
    finally:
        if first.poll() is None:
            first.kill()
        first.wait(10)
