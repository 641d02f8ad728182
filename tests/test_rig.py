"""The camera rig resolves a card's index wherever a card can lie (issue 27).

Each camera is calibrated from the plate in its rendered frame, and the
px/mm worked out from the pose calibration found, not the simulator's.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")

from tablesense.contract.vocab import SEATS
from tablesense.vision import geometry as g
from tablesense.vision.pipeline import PLATE_HALF, calibrate_camera, calibrated, plate_image
from tablesense.vision.render import CONDITIONS, Renderer
from tablesense.vision.scene import Placed


@pytest.fixture(scope="module")
def posed() -> dict[str, g.Camera]:
    renderer = Renderer(g.rig())
    plate = plate_image()
    out = {}
    for name, cam in renderer.cameras.items():
        frame = np.asarray(renderer.render_plate(name, plate, PLATE_HALF, CONDITIONS["clean"]))
        check = calibrate_camera(cam, frame)
        assert check.ok, (name, check.problems)
        out[name] = calibrated(cam, check)
    return out


def test_every_region_a_card_can_lie_in_is_read_by_a_camera_from_its_face_side() -> None:
    read = {r.key for name in g.rig() for r, own in g.reads(name) if own}
    assert read == {f"{s}.{kind}" for s in SEATS for kind in ("table", "hand", "floor")}


def test_every_region_is_seen_at_3_px_per_mm_or_more_as_calibrated(
        posed: dict[str, g.Camera]) -> None:
    res = g.resolution(posed)
    assert len(res) == 12
    low = {k: round(v, 2) for k, v in res.items() if v < g.MIN_PX_PER_MM}
    assert not low, low
    # the table zones (dummy's columns, quitted cards, the trick) from the overhead
    assert all(res[("O", f"{s}.table")] >= 3.0 for s in SEATS)


def test_px_per_mm_is_zero_where_a_region_leaves_the_frame(posed: dict[str, g.Camera]) -> None:
    """A camera aimed elsewhere, or one with too few pixels, fails the same test."""
    south = g.regions("S")
    assert g.px_per_mm(posed["FN"], south[2]) == 0.0  # the North floor camera, South's floor
    small = g.rig(scale=0.5)
    assert 1.5 < g.px_per_mm(small["O"], south[0]) < g.MIN_PX_PER_MM


def test_the_renderer_draws_cards_at_the_resolution_the_rig_sees_them() -> None:
    renderer = Renderer(g.rig())
    cards = [Placed("SA", s, "table", -0.03, g.TRICK_ZONE_W[1] - 0.01, 1, 0) for s in SEATS]
    cards += [Placed("HK", s, "floor", 0.0, -0.40, 1, 0) for s in SEATS]
    cards += [Placed("D7", s, "hand", 0.0, g.CARD_H, -1, 0) for s in SEATS]
    for p in cards:
        name = {"table": "O", "floor": g.FLOOR_CAMERA[p.seat], "hand": p.seat}[p.region]
        where = renderer.where(name, p)
        assert where is not None, (name, p)
        (x0, y0, x1, y1), level = where
        # the card's long side in the frame, in px/mm, against its texture's px/mm
        seen = max(x1 - x0, y1 - y0) / (g.CARD_H * 1000)
        assert seen >= g.MIN_PX_PER_MM * 0.9, (name, p, seen)
        assert level >= seen, (name, p, level, seen)
