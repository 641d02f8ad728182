"""``tablesense demo``: the simulated club, end to end, and its timetable.

The timetable (tablesense.demo.schedule) is pure, so its promises are
checked directly: clean robot boards make no penalty, steps keep the
spacing the readers need. The demo itself runs as the README runs it, with
the embedded broker: once with the firmware in the MicroPython VM (the
default for one table), once with the Python simulated readers, whose
journal must replay to exactly the rulings of the timetable itself.
"""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tablesense.contract.events import parse_event
from tablesense.demo.club import JournalTail
from tablesense.demo.schedule import (
    HOST_TO_READER_MS,
    SAME_CARD_MS,
    SAME_SEAT_TRICK_MS,
    Timeline,
    table_timeline,
)
from tablesense.engine import Engine
from tablesense.laws import CODES

EXE = str(Path(sys.executable).with_name("tablesense"))


Ruled = tuple[str, str, tuple[str, ...]]


def rulings_of(events: list[dict[str, Any]], table: str = "1") -> list[Ruled]:
    eng = Engine(table=table, codes=CODES)
    out = []
    for ev in events:
        out += eng.apply(parse_event(ev))
    out += eng.flush()
    return [(r.id, r.kind, tuple(r.cards)) for r in out if r.severity != "info"]


def timeline_events(tl: Timeline) -> list[dict[str, Any]]:
    return [{"v": 1, "t": s.at, **s.event, **({"type": "observe"} if s.kind == "reader" else {})}
            for s in tl.steps]


def test_timetable_clean_boards_make_no_penalty_and_mishaps_do() -> None:
    mishap_rulings = 0
    for seed in range(12):
        tl = table_timeline("1", boards=2, seed=seed, speed=20)
        rulings = rulings_of(timeline_events(tl))
        mishap_boards = {n for n, _ in tl.mishaps}
        assert {int(rid.split("-")[1]) for rid, _, _ in rulings} <= mishap_boards
        mishap_rulings += len(rulings)
    assert mishap_rulings >= 5


def test_timetable_spacing_whatever_the_speed() -> None:
    tl = table_timeline("3", boards=2, seed=4, speed=1000)
    steps = tl.steps
    assert all(a.at <= b.at for a, b in itertools.pairwise(steps))
    last_card: dict[str, int] = {}
    last_trick: dict[str, int] = {}
    for prev, s in itertools.pairwise(steps):
        if prev.kind == "host" and s.kind == "reader":
            assert s.at - prev.at >= HOST_TO_READER_MS
    for s in steps:
        if s.kind != "reader":
            continue
        card, seat = s.event["card"], s.event["seat"]
        if card in last_card:
            assert s.at - last_card[card] >= SAME_CARD_MS
        last_card[card] = s.at
        if s.event["zone"] == "trick":
            if seat in last_trick:
                assert s.at - last_trick[seat] >= SAME_SEAT_TRICK_MS
            last_trick[seat] = s.at
    # every card a reader sensed is gathered at the end of each board
    held: set[tuple[str, str]] = set()
    for s in steps:
        if s.kind == "reader":
            key = (s.event["seat"], s.event["card"])
            (held.discard if s.event["zone"] == "gone" else held.add)(key)
    assert held == set()
    assert table_timeline("3", boards=2, seed=4, speed=1000).steps == steps  # deterministic


def test_journal_tail_reads_only_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "1.jsonl"
    tail = JournalTail(path)
    assert tail.poll() == 0
    with open(path, "w") as f:
        f.write('{"v":1,"t":5000,"type":"observe","seat":"N","card":"SA","zone":"hand","rt":40}\n')
        f.write('{"v":1,"t":5001,"type":"call","seat":"N","call":"P"}\n{"v":1,"t":50')
        f.flush()
        assert tail.poll() == 1
        f.write('10,"type":"observe","seat":"N","card":"SK","zone":"hand","rt":60}\n')
    assert tail.poll() == 2
    assert tail.offsets == {"N": 4950}


def run_demo(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, "demo", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.slow
def test_demo_one_table_one_board_embedded_broker() -> None:
    out = run_demo("--tables", "1", "--boards", "1", "--speed", "50", "--no-dashboard")
    assert out.returncode == 0, out.stderr[-3000:]
    err = out.stderr
    assert "embedded amqtt" in err
    assert "boards 0/1" in err  # the status line
    assert "demo: 1 boards played at 1 tables" in err
    assert "0 late steps, 0 refused" in err
    assert "dashboard at" not in err


@pytest.mark.slow
def test_the_main_job_rules_the_robots_mishaps_and_nothing_else(tmp_path: Path) -> None:
    """As ./scripts/demo runs it: 2 tables x 3 boards at speed 20, the firmware in 8 VMs.

    Each table's journal replays to exactly the rulings of its timetable: a card
    reported late (four VMs booted one after another, each on its own clock) would
    make premature plays and leads out of turn that no robot made.
    """
    out = run_demo("--tables", "2", "--boards", "3", "--speed", "20", "--no-dashboard",
                   "--readers", "vm", "--journal", str(tmp_path), timeout=150)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "firmware in the MicroPython VM" in out.stderr
    assert "0 late steps, 0 refused" in out.stderr
    total = 0
    for table in ("1", "2"):
        lines = [json.loads(x) for x in (tmp_path / f"{table}.jsonl").read_text().splitlines()
                 if x]
        expected = rulings_of(timeline_events(table_timeline(table, 3, 1, 20.0)), table)
        assert rulings_of(lines, table) == expected, table
        total += len(expected)
    assert total > 0
    assert f"; {total} alerts raised" in out.stderr


@pytest.mark.slow
def test_demo_python_readers_journal_replays_to_the_timetable(tmp_path: Path) -> None:
    seed = "13"  # board 1 at table 1: a lead out of turn, accepted by a robot's decide
    out = run_demo("--tables", "1", "--boards", "1", "--speed", "50", "--seed", seed,
                   "--readers", "python", "--no-dashboard", "--journal", str(tmp_path))
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Python simulated readers" in out.stderr
    assert "1 alerts raised" in out.stderr
    lines = [json.loads(x) for x in (tmp_path / "1.jsonl").read_text().splitlines() if x]
    expected = rulings_of(timeline_events(table_timeline("1", 1, int(seed), 50.0)))
    assert expected and expected[0][1] == "lead-out-of-turn"
    assert rulings_of(lines) == expected
    observed = [x for x in lines if x["type"] == "observe"]
    assert all("rt" in x for x in observed)  # they came through readers, not in-process
    assert [x["type"] for x in lines if x["type"] == "decide"] == ["decide"]


@pytest.mark.slow
def test_demo_without_boards_stops_cleanly_on_ctrl_c() -> None:
    proc = subprocess.Popen([EXE, "demo", "--tables", "1", "--readers", "python", "--speed", "20",
                             "--no-dashboard"], stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    assert proc.stderr is not None
    lines: list[str] = []
    # stderr is drained all along (a full pipe would block the demo, whatever it is doing)
    drain = threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True)
    drain.start()
    try:
        # SIGINT once the demo plays: a status line has come after the Ctrl-C hint
        def playing() -> bool:
            hint = next((i for i, x in enumerate(lines) if "until Ctrl-C" in x), None)
            return hint is not None and len(lines) > hint + 1

        deadline = time.monotonic() + 60
        while not playing() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert playing(), "".join(lines)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    drain.join(10)
    assert proc.returncode == 0, "".join(lines)
    assert "boards played at 1 tables" in "".join(lines)


@pytest.mark.slow
def test_demo_camera_boards_rule_the_timetable_from_pixels(tmp_path: Path) -> None:
    """One camera board (9 cameras) reads the table from rendered frames: the journal
    replays to the timetable's rulings (board 1 of seed 7 drops a card), nothing else."""
    pytest.importorskip("cv2")
    out = run_demo("--tables", "1", "--boards", "1", "--speed", "20", "--seed", "7",
                   "--readers", "vision", "--no-dashboard", "--journal", str(tmp_path),
                   timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "camera boards recognising cards from rendered frames" in out.stderr
    assert "0 late steps, 0 refused" in out.stderr
    lines = [json.loads(x) for x in (tmp_path / "1.jsonl").read_text().splitlines() if x]
    expected = rulings_of(timeline_events(table_timeline("1", 1, 7, 20.0)))
    assert [k for _, k, _ in expected] == ["minor-penalty-card"]
    assert rulings_of(lines) == expected
    observed = [x for x in lines if x["type"] == "observe"]
    assert {x["reader"] for x in observed} == {"camera"}  # one reader, every seat
    assert {x["seat"] for x in observed} == set("NESW")
    assert "1 alerts raised (robots' mishaps in those boards: 1)" in out.stderr
