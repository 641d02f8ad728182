"""Cards in any photo: every corner index found, and the deal of four hands laid out.

No calibration and no scale: a photo larger than :data:`WORK_PX` on its long
side is read shrunk to it (a phone's 12 megapixels hold indices far larger
than the classifier needs), and ranks from :data:`MIN_RANK_PX` pixels to an
eighth of that side are looked for. Boxes are given in the photo's own
pixels.

:func:`deal` groups the named cards of a photo of four hands laid out as a
diagram (North at the top, East on the right) by where they lie around the
middle of all of them, one read a card (the surest), at most 13 a hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from tablesense.contract.vocab import SEATS
from tablesense.vision.classify import IndexModel, model

WORK_PX = 1600
MIN_RANK_PX = 7.0
RANKS = "AKQJT98765432"
SUITS = "SHDC"


@dataclass(frozen=True)
class Found:
    """One index in a photo: the card (None: seen, not named), box in the photo's pixels."""

    card: str | None
    box: tuple[int, int, int, int]
    conf: float

    def as_json(self) -> dict[str, Any]:
        return {"card": self.card, "box": list(self.box), "conf": round(self.conf, 4)}


def read(rgb: npt.NDArray[Any], index_model: IndexModel | None = None) -> list[Found]:
    """Every index in the photo ``rgb`` (H x W x 3), surest first."""
    m = index_model or model()
    h, w = rgb.shape[:2]
    scale = min(1.0, WORK_PX / max(h, w))
    img = rgb if scale == 1.0 else cv2.resize(rgb, (round(w * scale), round(h * scale)),
                                              interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_RGB2GRAY)
    long = max(gray.shape)
    out = []
    for r in m.read(gray, MIN_RANK_PX, max(2 * MIN_RANK_PX, long / 8)):
        x0, y0, x1, y1 = r.box
        box = (math.floor(x0 / scale), math.floor(y0 / scale), math.ceil(x1 / scale),
               math.ceil(y1 / scale))
        out.append(Found(r.card, box, r.conf))
    return out


def deal(found: list[Found]) -> dict[str, list[str]]:
    """The hands of a photo of four hands laid out as a diagram: each named card to the
    side of the middle it lies on (North up), each card once, at most 13 a hand."""
    named: dict[str, Found] = {}
    for f in sorted(found, key=lambda f: -f.conf):
        if f.card is not None and f.card not in named:
            named[f.card] = f
    if not named:
        return {s: [] for s in SEATS}
    centres = {c: ((f.box[0] + f.box[2]) / 2, (f.box[1] + f.box[3]) / 2)
               for c, f in named.items()}
    mx = float(np.median([x for x, _ in centres.values()]))
    my = float(np.median([y for _, y in centres.values()]))
    hands: dict[str, list[str]] = {s: [] for s in SEATS}
    for card, _f in sorted(named.items(), key=lambda kv: -kv[1].conf):
        x, y = centres[card]
        dx, dy = x - mx, y - my
        seat = ("S" if dy > 0 else "N") if abs(dy) >= abs(dx) else ("E" if dx > 0 else "W")
        if len(hands[seat]) < 13:
            hands[seat].append(card)
    return {s: sorted(cs, key=lambda c: (SUITS.index(c[0]), RANKS.index(c[1])))
            for s, cs in hands.items()}


def pbn(hands: dict[str, list[str]]) -> str:
    """The PBN ``Deal`` tag of ``hands``, North first; a hand with no card read is ``-``."""
    out = []
    for seat in SEATS:
        cards = hands.get(seat, [])
        if not cards:
            out.append("-")
            continue
        out.append(".".join("".join(r for r in RANKS if s + r in cards) for s in SUITS))
    return f'[Deal "N:{" ".join(out)}"]'
