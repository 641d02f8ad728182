"""Noisy readers end to end (bounded, loopback only).

The Python camera readers of the demo sense a board through the club noise
profile at the poll level (tablesense.onboard.pollnoise.Noise: missed reads, boundary
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

from tablesense.contract.events import parse_event
from tablesense.demo.club import Club, DemoOptions
from tablesense.demo.pysim import PySimReader
from tablesense.demo.schedule import Step, Timeline, table_timeline
from tablesense.engine import Engine
from tablesense.laws import CODES

EXE = str(Path(sys.executable).with_name("tablesense"))
SEED = 338  # table 1, board 1: West shows the DA to partner at trick 2 (major penalty card)
SPEED = 20.0  # the demo's pace: plays about 0.1 s apart
SETUP_GAP_MS = 400  # but the deal and the auction compressed
AFTER_MS = 3000  # the board is cut this long after the exposure


Ruled = tuple[str, str | None, tuple[str, ...], str]


def events_of(tl: Timeline) -> list[dict[str, Any]]:
    return [{"v": 1, "t": s.at, **s.event, **({"type": "observe"} if s.kind == "reader" else {})}
            for s in tl.steps]


def rulings_of(events: list[dict[str, Any]]) -> list[tuple[int, Ruled]]:
    eng = Engine(table="1", codes=CODES)
    out = []
    for ev in events:
        out += [(ev["t"], r) for r in eng.apply(parse_event(ev))]
    out += [(events[-1]["t"], r) for r in eng.flush()]
    return [(t, (r.kind, r.offender, tuple(r.cards), r.severity)) for t, r in out
            if r.severity != "info"]


def short_board() -> Timeline:
    """The board's timetable at the demo's pace, its deal and auction compressed, cut
    AFTER_MS after the exposure. A frame the wire corrupts is asked for again at once
    (the link's RESEND on a bad CRC), so it cannot fall behind another seat's next play."""
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


def _bench() -> Any:
    """benchmarks/noise_readers.py (the readers, the link and the engine on a virtual clock)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "noise_readers.py"
    spec = importlib.util.spec_from_file_location("noise_readers", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("noise_readers", mod)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("kind", ["python", "camera"])
def test_clean_readers_rule_exactly_the_timetable(kind: str) -> None:
    """Clean: readers, debouncer, link and engine rule what the robots' own events rule."""
    nr = _bench()
    exposures = 0
    for n in range(1, 9 if kind == "python" else 5):
        tl = table_timeline("1", 1, 500 + n, 20, 0.8)
        want = [r for _, r in rulings_of(events_of(tl))]
        got, _, _, _ = nr.play(tl, kind, None, n, "nack", None)
        assert [(r.kind, r.offender, tuple(r.cards), r.severity) for r in got] == want, n
        exposures += len(want)
    assert exposures >= 3


@pytest.mark.parametrize(("kind", "boards"), [("python", 30), ("camera", 6)])
def test_club_noise_at_the_readers_pinned(kind: str, boards: int) -> None:
    """A smaller run of benchmarks/noise_readers.py at the demo's pace (speed 20): the club
    profile under the readers gives no false, missed or wrong ruling."""
    s = _bench().evaluate(kind, "club", boards, seed=1, speed=20.0, mishaps=0.5, link="nack",
                          jobs=1)
    assert s["true_exposures"] >= (8 if kind == "python" else 2)
    assert (s["false_penalty_alerts"], s["false_director_alerts"], s["missed_exposures"],
            s["wrong_rulings"]) == (0, 0, 0, 0), s["examples"]
    assert s["reader_suppressed"]["foreign"] > 100  # the noise was there, and was handled


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
