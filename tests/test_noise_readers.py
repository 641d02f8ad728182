"""Noisy readers end to end (bounded, loopback only).

The Python camera readers of the demo sense a board through the club noise
profile at the poll level (tablesense.noise.PollNoise: missed reads, boundary
flicker, sorted hands, misrecognised and neighbours' cards, a wire that
delays and corrupts frames) and debounce it as the firmware does; the daemon
(in-process, the demo's embedded broker) must rule exactly what the clean
board rules. Then ``tablesense demo --noise club`` as a user runs it.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablesense.demo.club import Club, DemoOptions
from tablesense.demo.pysim import PySimReader
from tablesense.demo.schedule import Step, Timeline, table_timeline
from tablesense.engine import Engine
from tablesense.events import parse_event

EXE = str(Path(sys.executable).with_name("tablesense"))
SEED = 338  # table 1, board 1: West shows the DA to partner at trick 2 (major penalty card)
SPEED = 1.2  # a club's pace in the play: plays 1.25 s apart
SETUP_GAP_MS = 400  # but the deal and the auction compressed
AFTER_MS = 3000  # the board is cut this long after the exposure


Ruled = tuple[str, str | None, tuple[str, ...], str]


def events_of(tl: Timeline) -> list[dict[str, Any]]:
    return [{"v": 1, "t": s.at, **s.event, **({"type": "observe"} if s.kind == "reader" else {})}
            for s in tl.steps]


def rulings_of(events: list[dict[str, Any]]) -> list[tuple[int, Ruled]]:
    eng = Engine(table="1")
    out = []
    for ev in events:
        out += [(ev["t"], r) for r in eng.apply(parse_event(ev))]
    out += [(events[-1]["t"], r) for r in eng.flush()]
    return [(t, (r.kind, r.offender, tuple(r.cards), r.severity)) for t, r in out
            if r.severity != "info"]


def short_board() -> Timeline:
    """The board's timetable, its deal and auction compressed, cut AFTER_MS after the
    exposure: the play keeps a club's pace, so no reader frame the link must ask for
    again (up to a heartbeat late) can overtake another seat's next play."""
    tl = table_timeline("1", 1, SEED, SPEED)
    first_play = next(i for i, s in enumerate(tl.steps)
                      if s.kind == "reader" and s.event["zone"] == "trick")
    steps: list[Step] = []
    shift = 0
    for i, s in enumerate(tl.steps):
        if 0 < i <= first_play:
            gap = s.at - tl.steps[i - 1].at
            shift += max(0, gap - SETUP_GAP_MS)
        steps.append(Step(s.at - shift, s.kind, s.board, s.event, s.trusted, s.wait_ruling,
                          s.readers_before))
    out = Timeline(tl.table, steps, tl.boards, tl.mishaps)
    exposure_at = rulings_of(events_of(out))[0][0]
    out.steps = [s for s in steps if s.at <= exposure_at + AFTER_MS]
    return out


@pytest.mark.slow
def test_python_readers_with_club_noise_rule_exactly_the_clean_board(tmp_path: Path) -> None:
    tl = short_board()
    want = [r for _, r in rulings_of(events_of(tl))]
    assert want == [("major-penalty-card", "W", ("DA",), "penalty")]
    club = Club(DemoOptions(tables=1, boards=1, readers="python", noise="club", dashboard=False,
                            journal=tmp_path, seed=SEED, speed=SPEED), err=io.StringIO())
    club.timelines["1"] = tl
    try:
        club.start()
        club.wait()
    finally:
        club.stop()
    lines = [line for line in (tmp_path / "1.jsonl").read_text().splitlines() if line]
    journal = [json.loads(x) for x in lines]
    got = [r for _, r in rulings_of(journal)]
    assert got == want, got
    assert club.alerts() == 1  # the daemon alerted that ruling, and nothing else
    observed = [x for x in journal if x["type"] == "observe"]
    assert observed and all("rt" in x for x in observed)  # through the readers
    noise: dict[str, int] = {}
    for r in club.readers:
        assert isinstance(r, PySimReader) and r.core.noise is not None
        for k, v in r.core.noise.counts.items():
            noise[k] = noise.get(k, 0) + v
    assert noise["missed"] > 100 and noise["crosstalk"] > 0, noise  # the noise was there


@pytest.mark.slow
def test_demo_with_club_noise_reports_its_counts() -> None:
    out = subprocess.run([EXE, "demo", "--tables", "1", "--boards", "1", "--noise", "club",
                          "--no-dashboard", "--speed", "50"], capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-3000:]
    err = out.stderr
    assert "with noise profile club" in err
    assert "suppressed N:" in err  # the status line
    last = err.strip().splitlines()[-1]
    assert last.startswith("demo: 1 boards played at 1 tables")
    assert "noise club: the host suppressed" in last and "(N " in last


def test_demo_refuses_an_unknown_noise_profile() -> None:
    out = subprocess.run([EXE, "demo", "--noise", "nosuch", "--no-dashboard"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    assert "--noise" in out.stdout + out.stderr and "nosuch" in out.stdout + out.stderr
