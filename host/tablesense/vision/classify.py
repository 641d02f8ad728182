"""Corner indices named by a small learned model, or left unnamed.

The model (``data/index.onnx``, trained by ``scripts/train-recogniser`` on
several published deck designs and system fonts, docs/recogniser.md) takes a
candidate's upright patch (:mod:`tablesense.vision.indexes`) and gives two
distributions: the rank (13 ranks and *none*: no index at all) and the suit,
from the glyphs' shapes in grey (never their colour). It ships in the package
and is run by OpenCV's DNN module: no other runtime, nothing fetched.

An :class:`IndexRead` is an index the model takes for one (the rank's *none*
below one half): ``card`` is its name when the confidence (the rank's
probability times the suit's) reaches the model's calibrated threshold
(``data/index.json``), else None: an index seen and not named. Reads of one
index through several candidates (the two digits of a 10) are one read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from tablesense.vision import indexes as ix

U8 = npt.NDArray[Any]
RANKS = "AKQJT98765432"
SUITS = "SHDC"
NONE = len(RANKS)
BATCH = 256


@dataclass(frozen=True)
class IndexRead:
    """An index found: its card (None: seen, not named), the confidence, the candidate
    it was read through (rank and suit blobs, the patch's map)."""

    card: str | None
    conf: float
    cand: ix.Candidate

    @property
    def box(self) -> tuple[int, int, int, int]:
        return self.cand.box()


class IndexModel:
    """The classifier, loaded once from the package (or from ``path``)."""

    def __init__(self, path: str | None = None) -> None:
        if path is None:
            data = resources.files("tablesense.vision") / "data"
            onnx = (data / "index.onnx").read_bytes()
            card = json.loads((data / "index.json").read_text())
        else:
            with open(path, "rb") as f:
                onnx = f.read()
            with open(path.removesuffix(".onnx") + ".json") as f:
                card = json.load(f)
        self.net = cv2.dnn.readNetFromONNX(np.frombuffer(onnx, np.uint8),
                                           engine=cv2.dnn.ENGINE_CLASSIC)
        self.threshold = float(card["threshold"])
        self.card: dict[str, Any] = card
        self.patches_read = 0

    def logits(self, patches: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The model's 18 outputs for each patch (n, 1, PATCH_H, PATCH_W)."""
        outs = []
        for i in range(0, len(patches), BATCH):
            self.net.setInput(np.ascontiguousarray(patches[i:i + BATCH]))
            outs.append(np.asarray(self.net.forward(), np.float32).reshape(-1, NONE + 5))
        self.patches_read += len(patches)
        return np.concatenate(outs) if outs else np.zeros((0, NONE + 5), np.float32)

    def read(self, gray: U8, min_px: float, max_px: float) -> list[IndexRead]:
        """Every index in ``gray`` whose rank is ``min_px..max_px`` pixels tall, named or not,
        best first, one read an index."""
        cands = ix.candidates(ix.blobs(gray, min_px, max_px))
        if not cands:
            return []
        z = self.logits(ix.patches(gray, cands))
        pr, ps = _softmax(z[:, :NONE + 1]), _softmax(z[:, NONE + 1:])
        rank, suit = pr.argmax(axis=1), ps.argmax(axis=1)
        conf = pr.max(axis=1) * ps.max(axis=1)
        found = []
        for k in np.argsort(-conf):
            if rank[k] == NONE or pr[k, NONE] >= 0.5:
                continue
            c = float(conf[k])
            name = SUITS[int(suit[k])] + RANKS[int(rank[k])] if c >= self.threshold else None
            found.append(IndexRead(name, c, cands[int(k)]))
        return _one_a_index(found)


def _softmax(z: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    out: npt.NDArray[np.float32] = e / e.sum(axis=1, keepdims=True)
    return out


def _one_a_index(reads: list[IndexRead]) -> list[IndexRead]:
    """The best read of each index (``reads`` best first): a read sharing a blob with a
    better one, or whose suit lies in a better one's box, is the same index."""
    kept: list[IndexRead] = []
    for r in reads:
        if any(_same(r, k) for k in kept):
            continue
        kept.append(r)
    return kept


def _same(a: IndexRead, b: IndexRead) -> bool:
    if a.cand.suit == b.cand.suit or a.cand.rank == b.cand.rank or a.cand.rank == b.cand.suit \
            or a.cand.suit == b.cand.rank:
        return True
    x0, y0, x1, y1 = b.box
    return x0 <= a.cand.suit.cx <= x1 and y0 <= a.cand.suit.cy <= y1


@cache
def model() -> IndexModel:
    """The shipped model, loaded once."""
    return IndexModel()
