"""``tablesense vision read PHOTO``: the cards of a photo by their corner indices.

The photos are made here: faces of two designs (the project's own deck, and
thirteen of Adrian Kennard's CC0 cards in tests/data/kennard) laid on a table
cloth at random angles, lit warm or cold, compressed as JPEG, then read
through the command line as a director would. Every card named must be a card
in the photo, at its place; abstaining is allowed, naming a wrong card is not.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")
Image = pytest.importorskip("PIL.Image")

from tablesense.cli import main  # noqa: E402
from tablesense.vision.deck import card_face  # noqa: E402

KENNARD = Path(__file__).parent / "data" / "kennard"
SEATS = "NESW"


def _face(card: str, design: str, width: int) -> Any:
    if design == "own":
        im = card_face(card, 8.0).convert("RGBA")
    else:
        im = Image.open(KENNARD / f"{card}.png").convert("RGBA")
    return im.resize((width, round(im.height * width / im.width)), Image.Resampling.LANCZOS)


def _lay(canvas: Any, face: Any, centre: tuple[float, float], angle: float) -> Any:
    """Paste ``face`` rotated by ``angle`` degrees centred at ``centre``; its corners."""
    rot = face.rotate(angle, expand=True, resample=Image.Resampling.BICUBIC)
    x, y = round(centre[0] - rot.width / 2), round(centre[1] - rot.height / 2)
    canvas.alpha_composite(rot, (x, y))
    w, h = face.size
    a = math.radians(-angle)
    pts = []
    for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)):
        pts.append((centre[0] + dx * math.cos(a) - dy * math.sin(a),
                    centre[1] + dx * math.sin(a) + dy * math.cos(a)))
    return np.array(pts, np.float32)


def _light(img: Any, tint: tuple[float, float, float], path: Path, rng: random.Random) -> None:
    a = np.asarray(img.convert("RGB"), np.float32) * np.array(tint, np.float32)
    a += np.random.default_rng(rng.randrange(1 << 30)).normal(0, 3, a.shape)
    Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(path, quality=85)


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("design", "tint"), [("own", (1.0, 0.93, 0.78)),
                                              ("kennard", (0.85, 0.95, 1.1))])
def test_cards_scattered_on_a_table_are_named_right(tmp_path: Path, design: str,
                                                    tint: tuple[float, float, float],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(3)
    cards = ["SA", "HK", "DQ", "CJ", "ST", "H9", "D8", "C7", "S6", "H5", "D4", "C3"]
    canvas = Image.new("RGBA", (1400, 1000), (30, 105, 60, 255))
    where = {}
    for k, card in enumerate(cards):
        centre = (170 + (k % 4) * 350 + rng.uniform(-20, 20), 170 + (k // 4) * 330)
        where[card] = _lay(canvas, _face(card, design, 190), centre, rng.uniform(0, 360))
    path = tmp_path / "table.jpg"
    _light(canvas, tint, path, rng)
    found = json.loads(_run(["vision", "read", str(path), "--json"], capsys))
    assert all(set(f) == {"card", "box", "conf"} for f in found)
    named = [f for f in found if f["card"] is not None]
    for f in named:  # every card named is that card, its index box on it
        x0, y0, x1, y1 = f["box"]
        assert f["card"] in where, f
        assert cv2.pointPolygonTest(where[f["card"]], ((x0 + x1) / 2, (y0 + y1) / 2),
                                    False) >= 0, f
        assert 0 < f["conf"] <= 1
    assert len({f["card"] for f in named}) >= 0.75 * len(cards), found


def test_a_photo_that_cannot_be_read_is_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "no.jpg"
    bad.write_text("not a photo")
    assert main(["vision", "read", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0]
