"""The host tracker's noise handling: glitches never make an exposure, and never
hide a real one. Each suppression is counted per seat."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tablesense.contract.events import parse_event
from tablesense.engine import Engine, Ruling
from tablesense.engine.sensing import Tuning
from tablesense.laws import CODES

sys.path.insert(0, str(Path(__file__).parent / "scenarios"))
from script import DEAL, Script


def east_on_lead() -> Script:
    s = Script("duplicate-2017").dealt().auction("1N P 3N P P P").play("E:CK")
    s.spread("S", DEAL["S"])
    s.play("S:CA W:CJ N:C3").quit("E:CK S:CA W:CJ N:C3")
    return s.trick("S:S3 W:S4 N:ST E:SJ")


def run(s: Script, tuning: Tuning | None = None) -> tuple[list[Ruling], Engine]:
    eng = Engine(tuning=tuning, codes=CODES)
    out: list[Ruling] = []
    for line in s.lines:
        out += eng.apply(parse_event(json.loads(json.dumps(line))))
    out += eng.flush()
    return out, eng


def test_flicker_to_the_table_is_no_exposure() -> None:
    s = east_on_lead().obs("E", "C5", "table", gap=60).obs("E", "C5", "hand", "down")
    rulings, eng = run(s.play("E:C9 S:CQ W:H5 N:C6"))
    assert rulings == []
    assert eng.noise["E"]["flicker"] == 1


def test_a_card_snatched_up_after_a_moment_is_still_exposed() -> None:
    s = east_on_lead().obs("E", "C5", "table", gap=400).obs("E", "C5", "hand", "down")
    rulings, eng = run(s)
    assert [r.kind for r in rulings] == ["minor-penalty-card"]
    assert eng.noise["E"]["flicker"] == 0


def test_flicker_into_the_trick_zone_is_no_play() -> None:
    s = east_on_lead().obs("W", "H5", "trick", gap=80).obs("W", "H5", "hand", "down")
    rulings, eng = run(s.play("E:C9 S:CQ W:H5 N:C6"))
    assert rulings == []
    assert eng.noise["W"]["flicker"] == 1
    assert eng.board is not None and eng.board.tricks[-1][0][2] == ("W", "H5")


def test_a_moment_at_two_seats_is_noise_a_lasting_one_a_conflict() -> None:
    s = east_on_lead().obs("E", "CT", "hand", "down")
    s.obs("W", "CT", "hand", "down", gap=100).obs("W", "CT", "gone")
    rulings, eng = run(s)
    assert rulings == []
    assert eng.noise["W"]["conflict"] == 1
    s = east_on_lead().obs("E", "CT", "hand", "down").obs("W", "CT", "hand", "down")
    rulings, _ = run(s.obs("W", "CT", "hand", "down"))
    assert [(r.kind, r.severity, r.cards) for r in rulings] == [
        ("sensor-conflict", "director", ("CT",))]


def test_low_confidence_needs_corroboration() -> None:
    s = east_on_lead().obs("E", "C5", "table", conf=0.3)
    rulings, eng = run(s.play("E:C9 S:CQ W:H5 N:C6"))
    assert rulings == []
    assert eng.noise["E"]["low_conf"] == 1
    s = east_on_lead().obs("E", "C5", "table", conf=0.3, gap=100).obs("E", "C5", "table",
                                                                      conf=0.4)
    rulings, _ = run(s)
    assert [r.kind for r in rulings] == ["minor-penalty-card"]


def test_thresholds_are_configurable() -> None:
    s = east_on_lead().obs("E", "C5", "table", gap=60).obs("E", "C5", "hand", "down")
    rulings, _ = run(s, Tuning(min_dwell_ms=0))
    assert [r.kind for r in rulings] == ["minor-penalty-card"]


def test_an_rfid_reader_quits_a_trick_without_seeing_faces() -> None:
    s = east_on_lead().play("E:C9 S:CQ W:H5 N:C6")
    for seat, card in (("E", "C9"), ("S", "CQ"), ("W", "H5"), ("N", "C6")):
        s.obs(seat, card, "table", "unknown", gap=40)
    rulings, eng = run(s)
    assert rulings == []
    assert eng.board is not None and eng.board.trick == [] and eng.board.quitted


def test_a_play_crossing_the_table_survives_a_late_quit() -> None:
    """West's card is sensed face up on the table on its way to the trick, and North's
    quit of the last trick arrives meanwhile: still a play, no exposure."""
    s = Script("duplicate-2017").dealt().auction("1N P 3N P P P").play("E:CK")
    s.spread("S", DEAL["S"])
    s.play("S:CA W:CJ N:C3").quit("E:CK S:CA W:CJ N:C3")
    s.play("S:S3 W:S4 N:ST E:SJ").quit("S:S3 W:S4 E:SJ")  # North's quit comes late
    s.obs("E", "C9", "trick", gap=100).obs("S", "CQ", "trick", gap=100)
    s.obs("W", "H5", "table", gap=60).obs("N", "ST", "table", "down", gap=60)
    s.obs("W", "H5", "trick", gap=1500)
    rulings, eng = run(s.play("N:C6"))
    assert rulings == []
    assert eng.noise["W"]["transit"] == 1
    assert eng.board is not None and eng.board.tricks[-1][0][2] == ("W", "H5")


def test_the_trick_waits_for_a_play_crossing_the_table() -> None:
    """North's card reaches the trick before West's, which was sensed crossing the table at
    West's turn: West played first, North did not play early."""
    s = east_on_lead().obs("E", "C9", "trick", gap=100).obs("S", "CQ", "trick", gap=100)
    s.obs("W", "H5", "table", gap=60).obs("N", "C6", "trick", gap=60)
    s.obs("W", "H5", "trick", gap=1500)
    rulings, eng = run(s)
    assert rulings == []
    assert eng.board is not None
    assert [p for p, _ in eng.board.tricks[-1][0]] == ["E", "S", "W", "N"]


def test_a_card_dropped_out_of_turn_then_played_soon_is_still_exposed() -> None:
    """West drops the H5 face up while his partner East is on lead, then plays it at his
    turn 450 ms later: the plays in between show it was no play crossing the table."""
    s = east_on_lead().obs("W", "H5", "table", gap=150).obs("E", "C9", "trick", gap=150)
    s.obs("S", "CQ", "trick", gap=150).obs("W", "H5", "trick", gap=1500)
    rulings, eng = run(s.play("N:C6"))
    assert [(r.kind, r.offender, r.cards) for r in rulings] == [
        ("minor-penalty-card", "W", ("H5",))]
    assert eng.noise["W"]["transit"] == 0
