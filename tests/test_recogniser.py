"""The learned index recogniser: its candidates, its training data, the shipped model, and
what the board does with an identity it is not sure of.

The training itself (PyTorch) runs here only where torch is installed (the ``train``
extra): a few scenes, one epoch, to an ONNX file OpenCV loads.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
cv2 = pytest.importorskip("cv2")

from tablesense.vision import indexes as ix  # noqa: E402
from tablesense.vision import synth  # noqa: E402
from tablesense.vision.classify import RANKS, SUITS, IndexModel, model  # noqa: E402
from tablesense.vision.deck import card_face  # noqa: E402
from tablesense.vision.fuse import CONTRADICTS, Fuser  # noqa: E402
from tablesense.vision.pipeline import Sighting  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CARDS = [s + r for s in SUITS for r in RANKS]


def test_the_index_of_the_projects_deck_is_located_in_its_corner() -> None:
    rgba = np.asarray(card_face("HT", 8.0).convert("RGBA"))
    found = synth.locate(rgba)
    assert found is not None
    rank, suit = found
    # deck.py: rank cells from 3 mm across and 2.5 mm down, the suit's from 24.5 mm down
    assert rank[1] == round(2.5 * 8) and suit[1] == round(24.5 * 8)
    assert rank[3] <= suit[1] and rank[0] >= 3 * 8 - 1


@pytest.mark.parametrize("angle", [0, 90, 180, 233])
def test_an_index_is_a_candidate_at_any_rotation(angle: int) -> None:
    """Rank over suit is found whichever way the card lies: the patch cut along the
    direction from rank to suit shows it upright."""
    face = np.asarray(card_face("C7", 2.0).convert("L"))
    pad = cv2.copyMakeBorder(face, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=40)
    h, w = pad.shape
    rot = cv2.warpAffine(pad, cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0), (w, h),
                         borderValue=40)
    cands = ix.candidates(ix.blobs(rot, 20, 60))
    # the top-left index: rank cell 6 x 20 mm at (3, 2.5) mm; at 2 px/mm its centre ...
    cx, cy = 60 + 2 * 9.0, 60 + 2 * 12.5
    a = math.radians(-angle)
    x = w / 2 + (cx - w / 2) * math.cos(a) - (cy - h / 2) * math.sin(a)
    y = h / 2 + (cx - w / 2) * math.sin(a) + (cy - h / 2) * math.cos(a)
    near = [c for c in cands if math.hypot(c.rank.cx - x, c.rank.cy - y) < 12]
    assert near, (angle, x, y, [(c.rank.cx, c.rank.cy) for c in cands])
    patch = ix.patches(rot, near[:1])[0, 0]
    # upright: the rank's ink in the top half, the suit's in the bottom half
    top, bottom = patch[: ix.PATCH_H // 2], patch[ix.PATCH_H // 2:]
    assert (top > 0.5).sum() > 20 and (bottom > 0.5).sum() > 20


def test_training_scenes_label_every_candidate_from_the_truth() -> None:
    faces = synth.own_faces(CARDS[::5])
    x, rank, suit = synth.samples(faces, 6, seed=2)
    assert x.shape[1:] == (1, ix.PATCH_H, ix.PATCH_W) and len(x) == len(rank) == len(suit)
    assert (rank < synth.NONE).any() and (rank == synth.NONE).any()
    assert ((rank == synth.NONE) == (suit == -1)).all()
    assert np.isfinite(x).all()


def test_a_font_face_knows_where_its_index_is() -> None:
    face = synth.font_face("DT", None, random.Random(1))
    x0, y0, x1, y1 = face.rank
    sx0, sy0, sx1, _ = face.suit
    assert y1 <= sy0 and x0 < sx1 and sx0 < x1  # the suit under the rank
    ink = face.rgba[y0:y1, x0:x1, :3].min(axis=2)
    assert (ink < 128).any()


def test_the_shipped_model_loads_from_the_package() -> None:
    m = model()
    assert 0.5 <= m.threshold < 1
    assert m.card["patch"] == [ix.PATCH_W, ix.PATCH_H]
    out = m.logits(np.zeros((3, 1, ix.PATCH_H, ix.PATCH_W), np.float32))
    assert out.shape == (3, synth.NONE + 5)


def _sighting(card: str | None, conf: float, seat: str = "N", u: float = 0.0) -> Sighting:
    return Sighting("O", seat, "table", "face", card, conf, u, 0.3)


def test_a_card_that_contradicts_the_deal_is_reported_unsure() -> None:
    deal = {c: "NESW"[i // 13] for i, c in enumerate(CARDS)}
    f = Fuser(deal=deal)
    out = f.fuse([_sighting("SA", 0.99, "N"), _sighting("HA", 0.99, "N", 0.1)])
    assert out["SA"].conf == 0.99  # dealt to North, seen at North
    assert out["HA"].conf == CONTRADICTS  # dealt to East, seen at North


def test_an_index_seen_and_not_named_keeps_the_card_that_lay_there() -> None:
    f = Fuser()
    f.fuse([_sighting("SA", 0.99)])
    out = f.fuse([_sighting(None, 0.4)])
    assert set(out) == {"SA"} and out["SA"].face == "up" and out["SA"].conf == 0.4
    assert Fuser().fuse([_sighting(None, 0.4)]) == {}  # nothing known there: nothing said


@pytest.mark.skipif(not os.environ.get("TABLESENSE_TRAIN_TEST")
                    and __import__("importlib").util.find_spec("torch") is None,
                    reason="the train extra (torch) is not installed")
def test_the_trainer_makes_a_model_opencv_loads(tmp_path: Path) -> None:
    out = tmp_path / "m.onnx"
    subprocess.run([sys.executable, str(REPO / "scripts" / "train-recogniser"),
                    "--designs", "own", "--scenes", "4", "--epochs", "1", "--work",
                    str(tmp_path / "work"), "--out", str(out)], check=True,
                   env={**os.environ, "PYTHONPATH": str(REPO / "host")}, timeout=600)
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["designs"] == ["own"] and card["patch"] == [ix.PATCH_W, ix.PATCH_H]
    m = IndexModel(str(out))
    assert m.logits(np.zeros((2, 1, ix.PATCH_H, ix.PATCH_W), np.float32)).shape == (2, 18)
