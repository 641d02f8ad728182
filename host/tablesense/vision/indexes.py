"""Where corner indices may be, in any image: pairs of ink blobs, rank above suit.

Every standard deck prints its corner index as a rank glyph with the suit
glyph under it (in the card's own frame), in two opposite corners. So an
index is found without knowing the design, the card's rotation or which
corner shows: an ink blob (the rank, or one digit of a 10) with a smaller ink
blob close beside it (the suit) is a *candidate*, and the direction from the
rank to the suit is the card's "down". The candidate's pixels are cut out
along that direction into a small upright patch (:data:`PATCH_W` x
:data:`PATCH_H`, the rank in its top half), which the learned classifier
(:mod:`tablesense.vision.classify`) names or rejects: two pips one above the
other, a suit above its rank (an index upside down), a court card's drawing
and a back's pattern make candidates too, and are the classifier's ``none``.

Ink is found by its contrast with what is around it (darker than
:data:`INK_RATIO` of the mean grey within a glyph's size), never by its colour, so any white
balance, exposure and ink colour read alike. Pure: numpy and OpenCV on arrays,
no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[Any]
F32 = npt.NDArray[np.float32]

PATCH_W, PATCH_H = 32, 48  # the classifier's input, pixels
MARGIN = 0.12  # of the index's length, added above and below it in a patch
INK_RATIO = 0.78  # a pixel is ink when darker than this share of the grey around it
SUIT_RATIO = (0.30, 1.02)  # the suit blob's size over the rank blob's
GAP = (-0.15, 0.75)  # the space between rank and suit, of the rank's size
PARTNERS = 4  # pairs a blob may take part in, as a rank and as a suit


@dataclass(frozen=True)
class Blob:
    """A connected run of ink: centre and bounding box (x0, y0, x1, y1 exclusive)."""

    cx: float
    cy: float
    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def size(self) -> float:
        return float(max(self.x1 - self.x0, self.y1 - self.y0))

    def half_along(self, vx: float, vy: float) -> float:
        """Half the blob's extent along the unit direction ``(vx, vy)`` (from its box)."""
        return 0.5 * (abs((self.x1 - self.x0) * vx) + abs((self.y1 - self.y0) * vy))


@dataclass(frozen=True)
class Candidate:
    """A rank blob and a suit blob that may be an index; ``M`` maps patch pixels to image
    pixels (2x3, for ``cv2.warpAffine`` with ``WARP_INVERSE_MAP``)."""

    rank: Blob
    suit: Blob
    M: npt.NDArray[np.float64]

    def corners(self) -> npt.NDArray[np.float64]:
        """The patch's four corners in the image (TL, TR, BR, BL), pixels."""
        pts = np.array([[0, 0, 1], [PATCH_W, 0, 1], [PATCH_W, PATCH_H, 1], [0, PATCH_H, 1]],
                       dtype=np.float64)
        out: npt.NDArray[np.float64] = pts @ self.M.T
        return out

    def box(self) -> tuple[int, int, int, int]:
        """The axis-aligned box around the rank and the suit, image pixels."""
        return (min(self.rank.x0, self.suit.x0), min(self.rank.y0, self.suit.y0),
                max(self.rank.x1, self.suit.x1), max(self.rank.y1, self.suit.y1))


def ink(gray: U8, window: int) -> U8:
    """1 where a pixel is darker than INK_RATIO of the mean grey within ``window`` of it
    (a window about a glyph's size: mostly the paper it is printed on, so any light and
    any ink colour read alike)."""
    w = max(3, window | 1)
    mean = cv2.blur(gray.astype(np.float32), (w, w), borderType=cv2.BORDER_REPLICATE)
    out: U8 = (gray.astype(np.float32) < INK_RATIO * mean).astype(np.uint8)
    return out


def blobs(gray: U8, min_px: float, max_px: float) -> list[Blob]:
    """The ink blobs of a glyph's size: their larger side within ``min_px..max_px``
    (a suit may be down to SUIT_RATIO of the smallest rank)."""
    mask = ink(gray, int(max_px))
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    lo = max(4.0, SUIT_RATIO[0] * min_px)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        side = max(w, h)
        if not lo <= side <= max_px or area < 0.12 * w * h or area < 4:
            continue
        out.append(Blob(float(cents[i][0]), float(cents[i][1]), x, y, x + w, y + h))
    return out


def patch_matrix(rank: Blob, suit: Blob) -> npt.NDArray[np.float64] | None:
    """The 2x3 map from patch pixels to image pixels for this rank and suit: the patch's
    y runs from the rank towards the suit, centred across on the suit, the index's
    length plus MARGIN above and below it filling the patch's height."""
    dx, dy = suit.cx - rank.cx, suit.cy - rank.cy
    d = float(np.hypot(dx, dy))
    if d < 1e-6:
        return None
    vx, vy = dx / d, dy / d
    px, py = vy, -vx  # the patch's x, a right angle clockwise from its y
    t0 = rank.cx * vx + rank.cy * vy - rank.half_along(vx, vy)
    t1 = suit.cx * vx + suit.cy * vy + suit.half_along(vx, vy)
    height = (t1 - t0) * (1 + 2 * MARGIN)
    width = height * PATCH_W / PATCH_H
    across = suit.cx * px + suit.cy * py
    along = 0.5 * (t0 + t1)
    cx, cy = across * px + along * vx, across * py + along * vy
    sx, sy = width / PATCH_W, height / PATCH_H
    # image = centre + (x - W/2) * sx * p + (y - H/2) * sy * v, at pixel centres
    return np.array([[sx * px, sy * vx, cx - (PATCH_W / 2) * sx * px - (PATCH_H / 2) * sy * vx],
                     [sx * py, sy * vy, cy - (PATCH_W / 2) * sx * py - (PATCH_H / 2) * sy * vy]],
                    dtype=np.float64)


def candidates(found: list[Blob]) -> list[Candidate]:
    """Every pair of blobs that may be a rank and its suit: the suit smaller (within
    SUIT_RATIO), just past the rank (GAP) and roughly in line (SIDE)."""
    if len(found) < 2:
        return []
    c = np.array([[b.cx, b.cy] for b in found])
    size = np.array([b.size for b in found])
    d = c[None, :, :] - c[:, None, :]  # [rank, suit] -> suit - rank
    dist = np.hypot(d[..., 0], d[..., 1])
    ratio = size[None, :] / size[:, None]
    ok = (ratio >= SUIT_RATIO[0]) & (ratio <= SUIT_RATIO[1])
    reach = 0.5 * (size[:, None] + size[None, :])  # centre distance of touching blobs
    ok &= (dist >= reach * 0.5 + GAP[0] * size[:, None])
    ok &= (dist <= reach + GAP[1] * size[:, None] + 0.3 * size[:, None])
    np.fill_diagonal(ok, False)
    # each blob in at most PARTNERS pairs as a rank and as a suit, the likeliest first
    # (the suit just under the rank): a back's lattice or a court's drawing would
    # otherwise pair every blob with every neighbour
    cost = np.where(ok, np.abs(dist / np.maximum(size[:, None], 1e-6) - 1.05), np.inf)
    k = min(PARTNERS, len(found) - 1)
    best_as_rank = np.argsort(cost, axis=1)[:, :k]
    best_as_suit = np.argsort(cost, axis=0)[:k, :]
    keep = np.zeros_like(ok)
    np.put_along_axis(keep, best_as_rank, True, axis=1)
    sel = np.zeros_like(ok)
    np.put_along_axis(sel, best_as_suit, True, axis=0)
    ok &= keep & sel
    out = []
    for i, j in zip(*np.nonzero(ok), strict=True):
        a, s = found[int(i)], found[int(j)]
        M = patch_matrix(a, s)
        if M is None:
            continue
        vx, vy = (s.cx - a.cx) / dist[i, j], (s.cy - a.cy) / dist[i, j]
        if a.half_along(vx, vy) < 0.25 * a.size:
            continue  # the rank is a sliver along the axis: a stroke, not a glyph
        out.append(Candidate(a, s, M))
    return out


def patches(gray: U8, cands: list[Candidate]) -> F32:
    """Each candidate's patch, grey, normalised (zero mean, unit spread, ink positive):
    shape (n, 1, PATCH_H, PATCH_W). A large index is cut from a halved copy of the image
    (once, or twice ...) so that sampling it down never skips its strokes."""
    out = np.empty((len(cands), 1, PATCH_H, PATCH_W), np.float32)
    levels = [gray]
    for k, cand in enumerate(cands):
        step = float(np.hypot(cand.M[0, 0], cand.M[1, 0]))  # image px a patch px
        level = 0
        while step / 2 ** (level + 1) >= 1.0 and level < 4:
            level += 1
        while len(levels) <= level:
            levels.append(cv2.pyrDown(levels[-1]))
        M = cand.M / 2 ** level
        p = cv2.warpAffine(levels[level], M, (PATCH_W, PATCH_H),
                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_REPLICATE)
        out[k, 0] = normalise(p)
    return out


def normalise(p: U8) -> F32:
    """A patch as the classifier takes it: ink positive, zero mean, unit spread."""
    f = p.astype(np.float32)
    f = f.mean() - f
    out: F32 = f / max(float(f.std()), 4.0)
    return out
