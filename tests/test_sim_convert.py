"""Journal -> simulated table (tablesense.sim.convert), checked without the VM.

The plan's readers are modelled by ``expected_timeline`` (what the firmware
reports for a scenario, by reader kind); the HIL test runs the same plan
through the real firmware.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tablesense.documents.replay import replay_lines
from tablesense.sim.convert import needs_camera, plan_from_journal
from tablesense.sim.firmware import load_scenario

SCENARIOS = Path(__file__).parent / "scenarios"
GOLDEN = SCENARIOS / "duplicate-2017" / "minor-penalty-card.jsonl"
KEYS = ("kind", "offender", "cards", "options", "until", "severity")
JOURNALS = sorted(p for p in SCENARIOS.glob("*/*.jsonl") if not p.name.endswith(".rulings.jsonl"))


def rulings_of(lines: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    out = list(replay_lines([json.dumps(x) for x in lines]))
    return ([{k: r.to_json().get(k) for k in KEYS} for r in out if not isinstance(r, str)],
            [r for r in out if isinstance(r, str)])


def golden_rulings(journal: Path) -> list[dict[str, Any]]:
    path = journal.with_name(journal.name.replace(".jsonl", ".rulings.jsonl"))
    return [{k: r.get(k) for k in KEYS}
            for r in map(json.loads, path.read_text().splitlines()) if r]


def test_the_golden_board_becomes_four_readers_and_the_commands() -> None:
    plan = plan_from_journal(GOLDEN, max_gap_ms=500)
    # only East's drop needs a camera (seen_by); the others are RFID readers
    assert plan.kinds == {"N": "rfid", "E": "camera", "S": "rfid", "W": "rfid"}
    assert [c["type"] for _, c in plan.commands] == ["board", "dealt"] + ["call"] * 6 + ["claim"]
    # every seat picks up its 13 dealt cards before the first call, after the board
    t_board, t_call = plan.commands[0][0], plan.commands[2][0]
    for seat in "NESW":
        hand = [e for e in plan.seat_lines(seat) if e["t"] < t_call]
        assert len(hand) == 13 and all(t_board < e["t"] for e in hand)
        assert {e["zone"] for e in hand} == {"hand"}
    drop = next(e for e in plan.seat_lines("E") if e["card"] == "C5" and e["zone"] == "table")
    assert drop["seen_by"] == ["N", "S", "W"] and drop["face"] == "up"
    # gestures keep their 40 ms; long pauses are shortened, never the law's windows
    spread = [e["t"] for e in plan.seat_lines("S") if e["zone"] == "table" and e["face"] == "up"]
    assert len(spread) == 13 and {b - a for a, b in itertools.pairwise(spread)} == {40}
    assert plan.duration_ms < 20_000 < plan_from_journal(GOLDEN).duration_ms


def test_modelled_readers_give_the_golden_ruling() -> None:
    plan = plan_from_journal(GOLDEN, max_gap_ms=500)
    journal = plan.expected_journal()
    got, errors = rulings_of(journal)
    assert errors == [] and got == golden_rulings(GOLDEN)
    # what the RFID seats report: the dummy's spread and the quitted cards with face unknown
    south = [o for o in journal if o["type"] == "observe" and o["seat"] == "S"]
    assert {o["face"] for o in south if o["zone"] == "table"} == {"unknown"}
    assert not any("seen_by" in o for o in journal if o["type"] == "observe" and o["seat"] != "E")


def test_an_rfid_only_table_rules_nothing_on_a_face_it_cannot_see() -> None:
    """RFID cannot see a face: the drop is ``table``/``unknown``, and every code makes a
    card exposed only when its face could be seen (2017 Law 49): no ruling rests on it,
    neither a penalty card nor anything that would follow from one."""
    plan = plan_from_journal(GOLDEN, kinds=dict.fromkeys("NESW", "rfid"), max_gap_ms=500)
    drop = [o for o in plan.expected_journal() if o.get("card") == "C5" and o["zone"] == "table"]
    assert drop[0]["face"] == "unknown" and "seen_by" not in drop[0]
    got, errors = rulings_of(plan.expected_journal())
    assert golden_rulings(GOLDEN)[0]["kind"] == "minor-penalty-card"
    assert errors == [] and got == []


def unnumbered(errors: list[str]) -> list[str]:
    """Reports without their line numbers (a plan's lines are not the journal's)."""
    return [e.split(": ", 1)[1] if e.startswith("line ") else e for e in errors]


def golden_errors(journal: Path) -> list[str]:
    """What the golden scenario expects reported (NAME.errors.txt), unnumbered."""
    path = journal.with_name(journal.stem + ".errors.txt")
    return unnumbered(path.read_text().splitlines()) if path.exists() else []


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_time_compression_keeps_every_golden_ruling(journal: Path) -> None:
    """The plan itself, replayed as a journal (observations as the journal says, plus the
    picked-up hands and the cards collected for a new deal), rules as the golden does, with
    every pause shortened to 500 ms."""
    plan = plan_from_journal(journal, max_gap_ms=500, kinds=dict.fromkeys("NESW", "rfid"))
    got, errors = rulings_of([{"v": 1, **e} for e in plan.lines])
    assert unnumbered(errors) == golden_errors(journal)
    assert got == golden_rulings(journal)
    ts = [e["t"] for e in plan.lines]
    assert ts == sorted(ts)


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_chosen_readers_rule_as_the_golden(journal: Path) -> None:
    """Cameras only where needed (choose_kinds), and with them the modelled readers
    rule as the journal does."""
    plan = plan_from_journal(journal, max_gap_ms=500)
    want = golden_rulings(journal)
    cameras = plan_from_journal(journal, max_gap_ms=500, kinds=dict.fromkeys("NESW", "camera"))
    if rulings_of(cameras.expected_journal())[0] != want:
        pytest.skip("not even four cameras reproduce this journal: it repeats an unchanged "
                    "observation, which a reader (reporting changes only) never sends")
    got, errors = rulings_of(plan.expected_journal())
    assert unnumbered(errors) == golden_errors(journal) and got == want, plan.kinds


def test_the_plan_file_is_a_scenario_for_each_seat(tmp_path: Path) -> None:
    plan = plan_from_journal(GOLDEN, max_gap_ms=500)
    path = plan.write(tmp_path / "table.jsonl")
    assert path.read_text().startswith("# tablesense sim scenario")
    for seat in "NESW":
        assert load_scenario(path, seat) == plan.seat_lines(seat)
    # the file is also a journal: the sim skips the commands, replay takes everything
    got, errors = rulings_of([{"v": 1, **json.loads(x)} for x in path.read_text().splitlines()
                              if not x.startswith("#")])
    assert errors == [] and got == golden_rulings(GOLDEN)


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="max_gap_ms"):
        plan_from_journal(GOLDEN, max_gap_ms=100)
    with pytest.raises(ValueError, match="kinds"):
        plan_from_journal(GOLDEN, kinds={"E": "sonar"})
    assert needs_camera([{"zone": "detached"}]) and not needs_camera([{"zone": "table"}])
