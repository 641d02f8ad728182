"""The engine's observation path with honest readers: an RFID tag and a camera sighting of
one card fused (engine/fusion.py, wired in Engine._fused), a card gone from a trick zone
withdrawn once the dropout window has passed, a face nobody saw ruled on by nobody.

The golden scenarios camera-and-tag-agree, camera-against-tag and tag-alone-face-unknown
(tests/scenarios/duplicate-2017/) hold the rulings; these check what a journal cannot:
that a daemon ticking between events decides what the replay of its journal decides,
and that observations of one kind of reader pass through the fusion untouched.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tablesense.contract.events import Observe, parse_event
from tablesense.documents.replay import replay_lines
from tablesense.engine import Engine, Ruling
from tablesense.laws import CODES

sys.path.insert(0, str(Path(__file__).parent / "scenarios"))
from script import DEAL, Script

HERE = Path(__file__).parent
SCENARIOS = sorted(p for p in (HERE / "scenarios").glob("*/*.jsonl")
                   if not p.name.endswith(".rulings.jsonl"))


def east_on_lead() -> Script:
    """Trick 3 of the contract's board: East on lead, South dummy."""
    s = Script("duplicate-2017").dealt().auction("1N P 3N P P P").play("E:CK")
    s.spread("S", DEAL["S"])
    s.play("S:CA W:CJ N:C3").quit("E:CK S:CA W:CJ N:C3")
    return s.trick("S:S3 W:S4 N:ST E:SJ")


def events(lines: list[dict[str, Any]]) -> list[Any]:
    return [parse_event(json.loads(json.dumps(x))) for x in lines]


def replayed(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r.to_json() for r in replay_lines(json.dumps(x) for x in lines)
            if isinstance(r, Ruling)]


def ticking(lines: list[dict[str, Any]], step: int = 50) -> list[dict[str, Any]]:
    """The events as a daemon applies them, ticking every ``step`` ms in between."""
    eng = Engine(codes=CODES)
    out: list[Ruling] = []
    now = None
    for e in events(lines):
        if now is not None:
            for t in range(now + step, e.t, step):
                out += eng.tick(t)
        out += eng.apply(e)
        now = e.t
    out += eng.flush()
    return [r.to_json() for r in out]


def with_source(line: dict[str, Any], source: str) -> dict[str, Any]:
    return {**line, "source": source} if line.get("type") == "observe" else line


@pytest.mark.parametrize("journal", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_one_kind_of_reader_passes_through_the_fusion_untouched(journal: Path) -> None:
    """Every golden journal, its observations said to come from cameras (or all from RFID
    readers), rules exactly as it does: fusion changes nothing while one kind senses."""
    lines = [json.loads(x) for x in journal.read_text().splitlines() if x.strip()]
    want = replayed(lines)
    for source in ("rfid", "camera"):
        assert replayed([with_source(x, source) for x in lines]) == want, source


def test_a_lasting_disagreement_is_ruled_by_tick_as_the_replay_rules_it() -> None:
    s = east_on_lead().obs("E", "C5", "table", "unknown", source="rfid", gap=100)
    s.obs("W", "C5", "table", "up", seen_by=["N", "E", "S"], conf=0.9, source="camera",
          gap=2000)
    s.obs("E", "C5", "trick", "unknown", source="rfid", gap=60)
    s.obs("E", "C5", "trick", "up", seen_by=["N", "S", "W"], conf=0.95, source="camera")
    got = replayed(s.lines)
    assert [(r["kind"], r["severity"], r["cards"]) for r in got] == [
        ("sensor-conflict", "director", ["C5"])]
    assert ticking(s.lines) == got
    # a daemon's tick rules it no sooner than conflict_ms after the camera began to
    # disagree (later if an incident that began before it is still open), and once
    eng = Engine(codes=CODES)
    evs = events(s.lines)
    cam = next(e for e in evs if isinstance(e, Observe) and e.source == "camera")
    for e in evs:
        if e.t > cam.t:
            break
        assert eng.apply(e) == []
    ruled = [(t, r.kind) for t in range(cam.t, cam.t + 1900, 10) for r in eng.tick(t)]
    assert len(ruled) == 1 and ruled[0][1] == "sensor-conflict"
    assert ruled[0][0] >= cam.t + eng.tuning.conflict_ms
    assert got[0]["t"] == cam.t  # when the disagreement began, however late it is ruled


def test_the_camera_face_makes_one_exposure_whichever_reader_reports_first() -> None:
    for first, second in (("rfid", "camera"), ("camera", "rfid")):
        s = east_on_lead()
        for source in (first, second):
            if source == "rfid":
                s.obs("E", "C5", "table", "unknown", source="rfid", gap=60)
            else:
                s.obs("E", "C5", "table", "up", seen_by=["N", "S", "W"], conf=0.93,
                      source="camera", gap=60)
        s.wait(1500).play("E:C5")
        got = replayed(s.lines)
        assert [(r["kind"], r["severity"]) for r in got] == [
            ("minor-penalty-card", "penalty")], first
        assert ticking(s.lines) == got


def test_a_weak_recognition_gives_no_face_to_rule_on() -> None:
    """Below min_conf the camera never contradicts the tag, and its face is no ground for
    a ruling either: the tag's word alone (face unknown), so nothing is ruled."""
    s = east_on_lead().obs("E", "C5", "table", "unknown", source="rfid", gap=60)
    s.obs("E", "C5", "table", "up", seen_by=["N", "S", "W"], conf=0.3, source="camera")
    s.obs("E", "C5", "table", "up", seen_by=["N", "S", "W"], conf=0.35, source="camera")
    assert replayed(s.lines) == []
    # the same sightings confident: one penalty card
    s = east_on_lead().obs("E", "C5", "table", "unknown", source="rfid", gap=60)
    s.obs("E", "C5", "table", "up", seen_by=["N", "S", "W"], conf=0.8, source="camera")
    assert [r["kind"] for r in replayed(s.lines)] == ["minor-penalty-card"]


def revoke_then(back: str | None, gap: int) -> Script:
    """North leads a club at trick 5 and East, who holds clubs, plays the DJ (a revoke not
    yet established); the DJ then leaves his trick zone (``back``: where a reader senses it
    next; None: nowhere, it went into the hand) and he plays the C4."""
    s = east_on_lead().trick("E:D6 S:DT W:D3 N:DA").obs("N", "C7", "trick")
    s.obs("E", "DJ", "trick", "unknown", gap=gap)
    s.obs("E", "DJ", "gone", "unknown", "unknown", gap=600)
    if back is not None:
        s.obs("E", "DJ", back, "unknown", gap=600)
    return s.obs("E", "C4", "trick", "unknown").play("S:C2 W:H5")


def test_a_card_gone_from_the_trick_zone_is_withdrawn_after_the_dropout_window() -> None:
    """The revoke corrected: an RFID reader sees the DJ leave the trick zone (``gone``: no
    hand antenna) and the C4 arrive. Once dropout_ms has passed the DJ is back in the hand
    and the law rules the correction (a major penalty card), not a premature play."""
    got = replayed(revoke_then(None, 1500).lines)
    assert [(r["kind"], r["cards"]) for r in got] == [("major-penalty-card", ["DJ"])]
    assert ticking(revoke_then(None, 1500).lines) == got


def test_a_card_back_in_the_trick_zone_within_the_dropout_window_never_left() -> None:
    s = east_on_lead().trick("E:D6 S:DT W:D3 N:DA").obs("N", "C7", "trick")
    s.obs("E", "C4", "trick", "unknown")
    s.obs("E", "C4", "gone", "unknown", "unknown", gap=600)
    s.obs("E", "C4", "trick", "unknown").play("S:C2 W:H5")
    assert replayed(s.lines) == []
    assert ticking(s.lines) == []


def test_a_card_gone_from_the_trick_zone_then_on_the_table_moved_from_the_trick() -> None:
    """Gone, then sensed on the table within the window: a move from the trick zone to the
    table, as if the reader had never lost it (the law rules what that move is)."""
    via_gone = replayed(revoke_then("table", 1500).lines)
    s = east_on_lead().trick("E:D6 S:DT W:D3 N:DA").obs("N", "C7", "trick")
    s.obs("E", "DJ", "trick", "unknown", gap=2100).obs("E", "DJ", "table", "unknown", gap=600)
    direct = replayed(s.obs("E", "C4", "trick", "unknown").play("S:C2 W:H5").lines)
    assert via_gone == direct


def test_cards_played_together_unseen_are_the_director_s_with_no_penalty() -> None:
    """RFID tags: East's C9 and C4 arrive together, faces unknown. Whether one or both
    could be seen (2017 Law 58B1 or 58B2) is the director's: one director ruling; the
    C4 he puts back on the table is his choice, no penalty card; the trick goes on."""
    s = east_on_lead().together("E", ["C9", "C4"], faces=["unknown", "unknown"])
    s.obs("E", "C4", "table", "unknown").play("S:CQ W:H5 N:C6")
    got = replayed(s.lines)
    assert [(r["kind"], r["severity"], r["cards"], r["options"]) for r in got] == [
        ("cards-played-together", "director", ["C9", "C4"], [])]
    assert ticking(s.lines) == got


def complete_then(seat_next: str, card_next: str) -> Script:
    """Trick 5 (RFID tags, faces unknown): North leads the C7, East discards the DJ though
    he holds clubs, South and West follow: North wins. Then East's DJ leaves his trick
    zone for the table, and the next card to arrive is ``seat_next``'s ``card_next``."""
    s = east_on_lead().trick("E:D6 S:DT W:D3 N:DA")
    for seat, card in (("N", "C7"), ("E", "DJ"), ("S", "C2"), ("W", "H5")):
        s.obs(seat, card, "trick", "unknown")
    s.obs("E", "DJ", "table", "unknown")
    return s.obs(seat_next, card_next, "trick", "unknown")


def test_a_card_put_back_and_replaced_by_its_player_is_a_correction_not_the_quit() -> None:
    """A tag on the table cannot tell a card turned (the quit) from one put back: East
    then putting another card in his trick zone shows a correction (his revoke corrected
    before the trick was quitted: the DJ a major penalty card, 2017 Law 62B1)."""
    got = replayed(complete_then("E", "C4").lines)
    assert [(r["kind"], r["cards"]) for r in got] == [("major-penalty-card", ["DJ"])]
    assert ticking(complete_then("E", "C4").lines) == got
    # North, who won it, leading the next trick: that was the quit, nothing to rule yet
    assert replayed(complete_then("N", "H3").lines) == []


def test_a_camera_first_at_another_seat_then_the_tag_is_one_conflict() -> None:
    """The camera sees East's C5 face up on West's side before East's tag is read: the
    sensing filter rules that seat conflict; the tag then disagreeing with the camera is
    the same disagreement, not a second sensor-conflict."""
    s = east_on_lead().obs("W", "C5", "table", "up", seen_by=["N", "E", "S"], conf=0.9,
                           source="camera", gap=100)
    s.obs("E", "C5", "table", "unknown", source="rfid", gap=1500)
    s.obs("E", "C5", "trick", "unknown", source="rfid", gap=60)
    s.obs("E", "C5", "trick", "up", seen_by=["N", "S", "W"], conf=0.95, source="camera")
    got = replayed(s.lines)
    assert [(r["kind"], r["cards"]) for r in got] == [("sensor-conflict", ["C5"])]
    assert ticking(s.lines) == got
