"""The camera pipeline on rendered frames: calibration, recognition, seen_by, the board.

Kept to a few frames (seconds): BENCHMARKS.md has the accuracy over many
(benchmarks/vision.py).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cv2")

from tablesense.vision import geometry as g
from tablesense.vision.evaluate import calibrated_recognisers, score
from tablesense.vision.fuse import Fuser
from tablesense.vision.pipeline import (
    PLATE_HALF,
    calibrate_camera,
    plate_image,
)
from tablesense.vision.reader import VisionCore
from tablesense.vision.render import CONDITIONS, Conditions, Renderer
from tablesense.vision.scene import Scene


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(g.rig())


@pytest.fixture(scope="module")
def recognisers(renderer: Renderer) -> dict[str, Any]:
    return calibrated_recognisers(renderer)


def test_calibration_finds_each_camera_from_the_plate(renderer: Renderer) -> None:
    plate = plate_image()
    for name, cam in renderer.cameras.items():
        check = calibrate_camera(cam, np.asarray(renderer.render_plate(name, plate, PLATE_HALF,
                                                                       CONDITIONS["clean"])))
        assert check.ok, (name, check.problems)
        assert check.markers == 4 and check.reprojection_px < 2
        assert check.pose is not None
        # the pose from the pixels, not from the simulator: within a centimetre
        assert np.linalg.norm(check.pose[1] - cam.C) < 0.01, name


@pytest.mark.parametrize(("condition", "problem"), [
    ("blur", "out of focus"), ("glare", "glare"), ("dim", "exposure")])
def test_calibration_checks_focus_glare_and_exposure(renderer: Renderer, condition: str,
                                                      problem: str) -> None:
    check = calibrate_camera(renderer.cameras["O"], np.asarray(
        renderer.render_plate("O", plate_image(), PLATE_HALF, CONDITIONS[condition])))
    assert not check.ok and any(problem in p for p in check.problems), check.problems


def test_calibration_without_the_plate_says_so(renderer: Renderer) -> None:
    check = calibrate_camera(renderer.cameras["N"], np.asarray(renderer.render("N", [])))
    assert not check.ok and check.problems == ("plate not found (0 of 4 markers)",)


def test_clean_frames_are_read_without_a_mistake(renderer: Renderer,
                                                 recognisers: dict[str, Any]) -> None:
    s = score(replace(CONDITIONS["clean"], seed=3), frames=2, seed=11, renderer=renderer,
              recognisers=recognisers)
    r = s.ratios()
    assert s.named > 25, s
    assert r["identity"] == 1.0 and r["face"] == 1.0 and r["zone"] == 1.0, (r, s.wrong)
    assert s.false == 0 and r["read"] > 0.95


def test_an_arm_over_the_table_hides_cards_but_names_none_wrongly(
        renderer: Renderer, recognisers: dict[str, Any]) -> None:
    s = score(Conditions(noise=2.0, vignette=0.12, occlusion=1.0, seed=5), frames=2, seed=11,
              renderer=renderer, recognisers=recognisers)
    assert s.ratios()["identity"] == 1.0 and s.false == 0
    assert s.read < s.legible  # something was hidden


def _fused(renderer: Renderer, recognisers: dict[str, Any], scene: Scene,
           fuser: Fuser) -> dict[str, Any]:
    sightings = []
    for name, rec in recognisers.items():
        sightings += rec.recognise(np.asarray(renderer.render(name, scene.placed(),
                                                              CONDITIONS["clean"])), force=True)
    return fuser.fuse(sightings)


def test_who_could_see_a_face_is_measured(renderer: Renderer,
                                          recognisers: dict[str, Any]) -> None:
    rng = random.Random(4)
    deck = [s + r for s in "SHDC" for r in "AKQJT98765432"]
    rng.shuffle(deck)
    scene = Scene()
    for i, seat in enumerate("NESW"):
        for c in deck[i * 13:(i + 1) * 13]:
            scene.move(seat, c, "hand", "down")
    fuser = Fuser()
    before = _fused(renderer, recognisers, scene, fuser)
    assert len(before) == 52
    assert all(o.zone == "hand" and o.face == "down" and o.seen_by == () for o in before.values())
    shown, dropped, quitted = deck[13 + 5], deck[5], deck[26 + 2]
    scene.move("E", shown, "hand", "up")  # turned outwards, towards West
    scene.move("N", dropped, "table", "up")
    scene.move("S", quitted, "trick", "up")
    mid = _fused(renderer, recognisers, scene, fuser)
    o = mid[shown]  # its identity from the place it was read before, its face measured
    assert (o.seat, o.zone, o.face, o.level) == ("E", "hand", "up", "above")
    assert "W" in o.seen_by and "E" not in o.seen_by
    o = mid[dropped]
    assert (o.seat, o.zone, o.face, o.seen_by) == ("N", "table", "up", ("E", "S", "W"))
    assert (mid[quitted].zone, mid[quitted].face) == ("trick", "up")
    scene.move("S", quitted, "table", "down")  # the trick turned: a back, the same card
    after = _fused(renderer, recognisers, scene, fuser)
    assert (after[quitted].seat, after[quitted].zone, after[quitted].face,
            after[quitted].seen_by) == ("S", "table", "down", ())


def _where(s: Any) -> tuple[Any, ...]:
    return (s.camera, s.seat, s.region, s.side, s.card, round(s.u, 4), round(s.w, 4), s.own)


def test_frame_differencing_reads_what_a_whole_read_would(renderer: Renderer) -> None:
    """Frame after frame (the renderer redrawing where cards moved, its noise redrawn
    there), the regions and indexes the differencing keeps give the sightings that
    reading every region and index afresh gives, for a fraction of the reads."""
    from tablesense.vision.evaluate import moment

    scene = moment(random.Random(8))
    moves = []
    for seat in "NS":
        held = sorted(c for c, (s, t) in scene.truth.items() if s == seat and t.zone == "hand")
        moves += [(seat, held[0], "trick", "up"), (seat, held[0], "table", "down")]
        if len(held) > 2:
            moves.append((seat, held[1], "hand", "up"))
    cond = replace(CONDITIONS["clean"], seed=2)
    frames = Renderer(renderer.cameras)  # its own incremental state
    steady = calibrated_recognisers(renderer)
    fresh = calibrated_recognisers(renderer)
    for step, move in enumerate([None, *moves]):
        if move is not None:
            scene.move(*move)
        for name in steady:
            img = np.asarray(frames.update(name, scene.placed(), cond, step)[0])
            kept = {_where(x): x.conf for x in steady[name].recognise(img)}
            whole = {_where(x): x.conf for x in fresh[name].recognise(img, force=True)}
            assert kept.keys() == whole.keys(), (step, name)
            # a window within CHANGE_LEVEL of the one read keeps that read's score
            assert all(abs(kept[k] - whole[k]) < 0.02 for k in kept), (step, name)
    read = sum(r.regions_read for r in steady.values())
    whole = sum(r.regions_read for r in fresh.values())
    assert read < whole / 2, (read, whole)
    assert 0 < sum(r.indexes_read for r in steady.values()) < sum(
        r.indexes_read for r in fresh.values()) / 2


def test_the_board_reports_a_short_play_as_it_happened() -> None:
    lines: list[dict[str, Any]] = []
    hand = ["SA", "HK", "D7", "C2"]
    for c in hand:
        lines.append({"t": 0, "seat": "W", "card": c, "zone": "hand", "face": "down",
                      "level": "above"})
    lines += [
        {"t": 300, "seat": "W", "card": "HK", "zone": "trick", "face": "up", "level": "at"},
        {"t": 700, "seat": "W", "card": "D7", "zone": "detached", "face": "down",
         "level": "above"},
        {"t": 1100, "seat": "W", "card": "HK", "zone": "table", "face": "down", "level": "at"},
        # face down on the floor (a back: the card that left the hand)
        {"t": 1500, "seat": "W", "card": "C2", "zone": "floor", "face": "down", "level": "below"},
    ]
    core = VisionCore(lines)
    got = []
    for now in range(0, 3000, 20):
        got += [(f["card"], f["zone"], f["face"], f["level"]) for f in core.scan(now)]
    assert got[:4] == [(c, "hand", "down", "above") for c in sorted(
        hand, key=lambda c: ("SHDC".index(c[0]), 0))]
    assert got[4:] == [("HK", "trick", "up", "at"), ("D7", "detached", "down", "above"),
                       ("HK", "table", "down", "at"), ("C2", "floor", "down", "below")]


def test_the_calibrate_command(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from tablesense.cli import main

    assert main(["calibrate", "--json", "--save", str(tmp_path)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["camera"] for r in rows] == ["O", "FN", "FE", "FS", "FW", "N", "E", "S", "W"]
    assert all(r["ok"] and r["markers"] == 4 for r in rows)
    # the saved frames read back as a real board's would
    assert main(["calibrate", "--frames", str(tmp_path)]) == 0
    assert "ok" in capsys.readouterr().out
    assert main(["calibrate", "--condition", "blur"]) == 1
    assert "out of focus" in capsys.readouterr().out
    (tmp_path / "N.png").write_bytes(b"not a png")
    assert main(["calibrate", "--frames", str(tmp_path)]) == 2
    assert "N.png: cannot read" in capsys.readouterr().err
