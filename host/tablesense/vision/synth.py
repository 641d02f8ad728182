"""Training data for the index classifier: card faces laid in random scenes, read as the
camera reads them.

A :class:`Face` is one card's face (RGBA, any resolution) with the boxes of its
top-left index's rank and suit, found by :func:`locate` in published art, or
known where :func:`font_face` draws a face from a system font. A scene
(:func:`scene`) lays a few faces and backs on a background at a random scale
(the rank 7 to 30 pixels tall), rotation and shear, overlapping as dummy's
columns and fans do, then adds what a camera adds (light's gain and tint,
glare, blur, sensor noise, JPEG). The scene is read by the very code the
camera runs (:mod:`tablesense.vision.indexes`: blobs, candidates, patches), and
each candidate is labelled from the truth: the card whose index it is (either
corner), ``none`` when it is no index, or left out when that index is partly
covered. So the classifier learns from exactly what it will be shown.

Pure apart from the fonts and art it is handed; numpy, OpenCV and Pillow.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from tablesense.vision import indexes as ix
from tablesense.vision.deck import RANKS, SUITS

U8 = npt.NDArray[Any]
Box = tuple[int, int, int, int]
NONE = len(RANKS)  # the rank class of a candidate that is no index
RANK_PX = (7.0, 30.0)  # the rank's height in a scene, pixels (log-uniform)
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RED, BLACK = (200, 20, 30), (15, 15, 20)


@dataclass(frozen=True)
class Face:
    """A card's face, RGBA, with its top-left index: the rank's and the suit's boxes."""

    card: str  # contract name, "SA"
    rgba: U8
    rank: Box
    suit: Box


def locate(rgba: U8) -> tuple[Box, Box] | None:
    """The rank's and suit's boxes of a face's top-left index, from its ink: the topmost
    glyph in the corner (its pieces side by side joined: a 10), and the glyph under it."""
    h, w = rgba.shape[:2]
    a = rgba[..., 3:4].astype(np.float32) / 255
    rgb = rgba[..., :3].astype(np.float32) * a + 255 * (1 - a)
    gray = rgb.mean(axis=2)
    sat = rgb.max(axis=2) - rgb.min(axis=2)
    inked = ((gray < 150) | ((sat > 90) & (gray < 215))) & (a[..., 0] > 0.5)
    cw, ch = int(0.36 * w), int(0.46 * h)
    n, _, stats, _ = cv2.connectedComponentsWithStats(inked[:ch, :cw].astype(np.uint8),
                                                      connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < 0.0002 * w * h or x == 0 or y == 0 or x + bw >= cw or y + bh >= ch:
            continue  # a speck, the card's border, or a drawing running out of the corner
        if max(bw, bh) > 0.26 * h:
            continue
        comps.append((y, x, x + bw, y + bh))
    if len(comps) < 2:
        return None
    comps.sort()
    y0, x0, x1, y1 = comps[0]
    rest = []
    for c in comps[1:]:
        overlap = min(y1, c[3]) - max(y0, c[0])
        if overlap > 0.5 * min(y1 - y0, c[3] - c[0]) and c[1] < x1 + (x1 - x0) * 1.5:
            y0, x0, x1, y1 = min(y0, c[0]), min(x0, c[1]), max(x1, c[2]), max(y1, c[3])
        else:
            rest.append(c)
    mid = 0.5 * (x0 + x1)
    below = [c for c in rest if c[0] >= y1 - 0.1 * (y1 - y0) and c[1] <= mid <= c[2]
             and max(c[2] - c[1], c[3] - c[0]) >= 0.3 * (y1 - y0)]
    if not below:
        return None
    sy, sx0, sx1, sy1 = min(below)
    return (x0, y0, x1, y1), (sx0, sy, sx1, sy1)


def design_faces(folder: Path, cards: Sequence[str]) -> list[Face]:
    """The faces ``<card>.png`` in ``folder`` whose index :func:`locate` finds."""
    out = []
    for card in cards:
        rgba = np.asarray(Image.open(folder / f"{card}.png").convert("RGBA"))
        found = locate(rgba)
        if found is not None:
            out.append(Face(card, rgba, *found))
    return out


def own_faces(cards: Sequence[str], px_per_mm: float = 8.0) -> list[Face]:
    """The project's own deck (:mod:`tablesense.vision.deck`), as a design like any other."""
    from tablesense.vision.deck import card_face

    out = []
    for card in cards:
        rgba = np.asarray(card_face(card, px_per_mm).convert("RGBA"))
        found = locate(rgba)
        if found is not None:
            out.append(Face(card, rgba, *found))
    return out


def font_face(card: str, font: Path | None, rng: random.Random, px_per_mm: float = 8.0,
              four_colour: bool = False) -> Face:
    """A face drawn with a font: the rank (``10`` for a ten) over the suit glyph, in both
    corners, at a random size and place, pips or a picture in the middle."""
    w, h = round(rng.uniform(56, 64) * px_per_mm), round(89 * px_per_mm)
    img = Image.new("RGBA", (w, h), (*_paper(rng), 255))
    d = ImageDraw.Draw(img)
    suit, rank = card[0], card[1]
    ink = {"S": BLACK, "C": (0, 120, 50) if four_colour else BLACK,
           "H": RED, "D": (220, 110, 0) if four_colour else RED}[suit]
    rh = rng.uniform(5.0, 13.0) * px_per_mm
    rank_font = _font(font, rh * 1.38)
    suit_font = _font(font, rh * 1.38 * rng.uniform(0.55, 0.95))
    text = "10" if rank == "T" else rank
    corner = Image.new("RGBA", (w // 2, h // 2), (0, 0, 0, 0))
    cd = ImageDraw.Draw(corner)
    rb = cd.textbbox((0, 0), text, font=rank_font)
    sb = cd.textbbox((0, 0), SUIT_CHARS[suit], font=suit_font)
    x = rng.uniform(1.5, 5.0) * px_per_mm
    y = rng.uniform(1.5, 5.0) * px_per_mm
    cx = x + (rb[2] - rb[0]) / 2
    cd.text((x - rb[0], y - rb[1]), text, font=rank_font, fill=ink)
    gap = rng.uniform(0.3, 2.5) * px_per_mm
    sy = y + (rb[3] - rb[1]) + gap
    sx = cx - (sb[2] - sb[0]) / 2
    cd.text((sx - sb[0], sy - sb[1]), SUIT_CHARS[suit], font=suit_font, fill=ink)
    img.alpha_composite(corner)
    img.alpha_composite(corner.rotate(180), (w - corner.width, h - corner.height))
    pip = _font(font, rng.uniform(9, 16) * px_per_mm)
    if rank in "KQJ":
        d.rectangle((0.25 * w, 0.2 * h, 0.75 * w, 0.8 * h), outline=ink, width=3,
                    fill=(rng.randrange(80, 255), rng.randrange(80, 255), rng.randrange(80, 255)))
        for _ in range(12):
            d.line([(rng.uniform(0.25, 0.75) * w, rng.uniform(0.2, 0.8) * h) for _ in range(2)],
                   fill=ink, width=rng.randrange(2, 8))
    else:
        n = 1 if rank == "A" else int("23456789T".index(rank)) + 2
        cols = 1 if n <= 3 else 2 if n <= 8 else 3
        for k in range(n):
            px_ = w * (0.5 if cols == 1 else 0.33 + 0.34 * (k % cols) / max(1, cols - 1))
            py_ = h * (0.25 + 0.5 * (k // cols) / max(1, math.ceil(n / cols) - 1 or 1))
            d.text((px_, py_), SUIT_CHARS[suit], font=pip, fill=ink, anchor="mm")
    rank_box = (round(x), round(y), round(x + rb[2] - rb[0]), round(y + rb[3] - rb[1]))
    suit_box = (round(sx), round(sy), round(sx + sb[2] - sb[0]), round(sy + sb[3] - sb[1]))
    return Face(card, np.asarray(img), rank_box, suit_box)


def _paper(rng: random.Random) -> tuple[int, int, int]:
    v = rng.randrange(225, 256)
    return (v, v - rng.randrange(0, 8), v - rng.randrange(0, 14))


def _font(path: Path | None, size: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if path is None:
        return ImageFont.load_default(max(4.0, size))
    return ImageFont.truetype(str(path), max(4, round(size)))


def back_face(rng: random.Random, px_per_mm: float = 8.0) -> U8:
    """A card back: any colour, a lattice, dots or stripes, with or without a margin."""
    w, h = round(57 * px_per_mm), round(89 * px_per_mm)
    base = tuple(rng.randrange(0, 256) for _ in range(3))
    line = tuple(rng.randrange(0, 256) for _ in range(3))
    img = Image.new("RGBA", (w, h), (*_paper(rng), 255))
    d = ImageDraw.Draw(img)
    m = rng.choice((0.0, 2.0, 4.0)) * px_per_mm
    d.rectangle((m, m, w - 1 - m, h - 1 - m), fill=(*base, 255))
    step = rng.uniform(1.5, 8.0) * px_per_mm
    width = max(1, round(rng.uniform(0.2, 0.45) * step))
    kind = rng.randrange(3)
    for k in range(-40, 80):
        o = k * step
        if kind == 0:
            d.line((o, 0, o + h, h), fill=(*line, 255), width=width)
            d.line((o, h, o + h, 0), fill=(*line, 255), width=width)
        elif kind == 1:
            for j in range(0, 60):
                d.ellipse((o, j * step, o + width * 2, j * step + width * 2), fill=(*line, 255))
        else:
            d.line((0, o, w, o), fill=(*line, 255), width=width)
    return np.asarray(img)


# -- scenes ------------------------------------------------------------------------------
@dataclass
class _Laid:
    face: Face | None  # None: a back
    A: npt.NDArray[np.float64]  # face pixels -> scene pixels (2x3)


def _affine(k: float, theta: float, shear: float, squash: float, centre: tuple[float, float],
            origin: tuple[float, float]) -> npt.NDArray[np.float64]:
    c, s = math.cos(theta), math.sin(theta)
    L = np.array([[c, -s], [s, c]]) @ np.array([[k, shear * k], [0, k * squash]])
    t = np.array(centre) - L @ np.array(origin)
    return np.hstack([L, t[:, None]])


def scene(faces: Sequence[Face], rng: random.Random, np_rng: np.random.Generator,
          backs: Sequence[U8] = ()) -> tuple[U8, list[_Laid], float]:
    """A random scene of cards: the image (RGB), what lies where (bottom first), and the
    rank's height in pixels. One to five cards in a row, each on the last and shifted
    right (a dummy's column, a fan, a quitted trick), sometimes a back among them, on a
    background of any colour."""
    first = rng.choice(faces)
    rank_h = first.rank[3] - first.rank[1]
    r_px = math.exp(rng.uniform(math.log(RANK_PX[0]), math.log(RANK_PX[1])))
    k = r_px / rank_h
    fh, fw = first.rgba.shape[:2]
    n = rng.choice((1, 2, 3, 4, 5))
    pitch = rng.uniform(0.22, 0.7) * fw
    span = fw + (n - 1) * pitch
    size = int(max(fh, span) * k * 1.15) + 8
    bg = np.empty((size, size, 3), np.float32)
    bg[:] = [rng.uniform(0, 255) for _ in range(3)]
    bg += (np_rng.standard_normal((size, size, 1), np.float32) * rng.uniform(0, 12))
    img = np.clip(bg, 0, 255)
    theta = rng.uniform(0, 2 * math.pi)
    shear, squash = rng.uniform(-0.12, 0.12), rng.uniform(0.85, 1.1)
    centre = (size / 2, size / 2)
    fan = rng.uniform(-0.12, 0.12) if rng.random() < 0.4 else 0.0
    laid: list[_Laid] = []
    for i in range(n):
        face = None if backs and rng.random() < 0.12 else rng.choice(faces)
        # the row's middle at the centre; card i's centre (i - (n-1)/2) pitches along
        along = (i - (n - 1) / 2) * pitch
        drop = rng.uniform(-0.04, 0.04) * fh
        laid.append(_Laid(face, _affine(k, theta + fan * (i - (n - 1) / 2), shear, squash,
                                        centre, (fw / 2 - along, fh / 2 - drop))))
    for item in laid:
        rgba = (item.face.rgba if item.face is not None
                else rng.choice(backs) if backs else back_face(rng))
        _paste(img, rgba, item.A, k)
    return _camera(img, rng, np_rng, r_px), laid, r_px


_PYRAMID: dict[int, tuple[U8, list[U8]]] = {}


def _paste(img: npt.NDArray[np.float32], rgba: U8, A: npt.NDArray[np.float64], k: float) -> None:
    """Draw ``rgba`` into ``img`` through ``A``, from a level of its pyramid (halvings,
    kept with the image they were made from: an id alone may be a freed image's) no
    smaller than 1.4 times the scale, so the warp does not alias."""
    level = 0
    while k * (2 ** (level + 1)) <= 0.7 and level < 5:
        level += 1
    entry = _PYRAMID.get(id(rgba))
    if entry is None or entry[0] is not rgba:
        entry = _PYRAMID[id(rgba)] = (rgba, [rgba])
    levels = entry[1]
    while len(levels) <= level:
        src = levels[-1]
        levels.append(cv2.resize(src, (max(1, src.shape[1] // 2), max(1, src.shape[0] // 2)),
                                 interpolation=cv2.INTER_AREA))
    src = levels[level]
    A2 = A.copy()
    A2[:, :2] = A[:, :2] * (rgba.shape[1] / src.shape[1])
    size = (img.shape[1], img.shape[0])
    warped = cv2.warpAffine(src, A2, size, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255
    img *= 1 - a
    img += warped[..., :3].astype(np.float32) * a


def _camera(img: npt.NDArray[np.float32], rng: random.Random, np_rng: np.random.Generator,
            r_px: float) -> U8:
    """What a camera adds: light's gain, tint and gradient, glare, blur, noise, JPEG."""
    h, w = img.shape[:2]
    gain = rng.uniform(0.35, 1.25)
    tint = np.array([rng.uniform(0.65, 1.3) for _ in range(3)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    grad = 1 + rng.uniform(0, 0.5) * ((xx * math.cos(ang) + yy * math.sin(ang)) / max(w, h) - 0.5)
    out = img * (gain * grad)[..., None] * tint
    if rng.random() < 0.3:
        gx, gy, rad = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.6) * w
        out += (rng.uniform(60, 230) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * rad ** 2)
                                              ))[..., None]
    sigma = rng.choice((0.0, 0.0, rng.uniform(0.3, 1.0), rng.uniform(0.5, 0.09 * r_px + 0.6)))
    if sigma > 0:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < 0.15:
        n = rng.randrange(3, 8)
        kern = np.zeros((n, n), np.float32)
        kern[n // 2] = 1 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
        out = cv2.filter2D(out, -1, cv2.warpAffine(kern, rot, (n, n)))
    out += np_rng.standard_normal(out.shape, np.float32) * rng.uniform(0, 9)
    u8: U8 = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        buf = io.BytesIO()
        Image.fromarray(u8).save(buf, "JPEG", quality=rng.randrange(35, 95))
        u8 = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"))
    return u8


def _true_indexes(laid: list[_Laid]) -> list[tuple[str, npt.NDArray[np.float64], float, float]]:
    """Each visible face's two indexes: (card, the inverse map scene -> face pixels,
    which corner: 0 top-left / 1 bottom-right, and how much of it is covered)."""
    out = []
    for n, item in enumerate(laid):
        if item.face is None:
            continue
        f = item.face
        inv = np.asarray(cv2.invertAffineTransform(item.A), np.float64)
        fh, fw = f.rgba.shape[:2]
        for corner in (0, 1):
            x0, y0 = min(f.rank[0], f.suit[0]), f.rank[1]
            x1, y1 = max(f.rank[2], f.suit[2]), f.suit[3]
            pts = np.array([(x, y) for x in np.linspace(x0, x1, 5) for y in np.linspace(y0, y1, 7)])
            if corner:
                pts = np.array([fw, fh]) - pts
            covered = 0.0
            for above in laid[n + 1:]:
                ainv = cv2.invertAffineTransform(above.A)
                scene_pts = pts @ item.A[:, :2].T + item.A[:, 2]
                q = scene_pts @ ainv[:, :2].T + ainv[:, 2]
                ah, aw = (above.face.rgba.shape[:2] if above.face is not None
                          else (round(89 * 8.0), round(57 * 8.0)))
                inside = ((q[:, 0] >= -1) & (q[:, 0] <= aw + 1) & (q[:, 1] >= -1)
                          & (q[:, 1] <= ah + 1))
                covered = max(covered, float(inside.mean()))
            out.append((f.card, inv, float(corner), covered))
    return out


def _index_centres(laid: list[_Laid]) -> npt.NDArray[np.float64]:
    """The centres of every face's two suit glyphs in the scene, pixels."""
    pts = []
    for item in laid:
        f = item.face
        if f is None:
            continue
        fh, fw = f.rgba.shape[:2]
        c = np.array([(f.suit[0] + f.suit[2]) / 2, (f.suit[1] + f.suit[3]) / 2])
        for q in (c, np.array([fw, fh]) - c):
            pts.append(item.A[:, :2] @ q + item.A[:, 2])
    return np.array(pts).reshape(-1, 2)


def label(cand: ix.Candidate, laid: list[_Laid]) -> tuple[int, int] | None:
    """(rank class, suit class) of a candidate: an index's (NONE, -1 when it is none of
    them); None when it is an index partly covered (neither taught as one nor as none)."""
    for item in laid:
        f = item.face
        if f is None:
            continue
        inv = cv2.invertAffineTransform(item.A)
        fh, fw = f.rgba.shape[:2]
        r = np.array([cand.rank.cx, cand.rank.cy]) @ inv[:, :2].T + inv[:, 2]
        s = np.array([cand.suit.cx, cand.suit.cy]) @ inv[:, :2].T + inv[:, 2]
        for corner in (0, 1):
            rr, ss = (r, s) if not corner else (np.array([fw, fh]) - r, np.array([fw, fh]) - s)
            if _inside(rr, f.rank, 0.15) and _inside(ss, f.suit, 0.25):
                cov = _covered(item, laid, f, corner)
                if cov > 0.0:
                    return None
                return RANKS.index(f.card[1]), SUITS.index(f.card[0])
            if _inside(rr, f.suit, 0.25) and _inside(ss, f.rank, 0.15):
                return NONE, -1  # upside down: the suit taken for the rank
            if _inside(rr, f.rank, 0.3) or _inside(ss, f.suit, 0.4):
                return None  # half on the index: neither one nor the other
    return NONE, -1


def _inside(p: npt.NDArray[Any], box: Box, slack: float) -> bool:
    x0, y0, x1, y1 = box
    m = slack * max(x1 - x0, y1 - y0)
    return bool(x0 - m <= p[0] <= x1 + m and y0 - m <= p[1] <= y1 + m)


def _covered(item: _Laid, laid: list[_Laid], f: Face, corner: int) -> float:
    for card, _, c, cov in _true_indexes(laid):
        if card == f.card and c == corner:
            return cov
    return 0.0


def samples(faces: Sequence[Face], n_scenes: int, seed: int, negatives: float = 2.5
            ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Patches and labels (rank class, suit class) from ``n_scenes`` scenes of ``faces``:
    every index the camera's candidates find, and up to ``negatives`` times as many of the
    candidates that are none (at least two a scene)."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    backs = [back_face(rng) for _ in range(24)]
    xs: list[npt.NDArray[np.float32]] = []
    ranks: list[int] = []
    suits: list[int] = []
    for _ in range(n_scenes):
        img, laid, r_px = scene(faces, rng, np_rng, backs)
        gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        cands = ix.candidates(ix.blobs(gray, 0.55 * r_px, 2.2 * r_px))
        near = _index_centres(laid)
        pos: list[tuple[ix.Candidate, tuple[int, int]]] = []
        neg: list[tuple[ix.Candidate, tuple[int, int]]] = []
        for c in cands:
            d = np.hypot(near[:, 0] - c.suit.cx, near[:, 1] - c.suit.cy) if len(near) else None
            if d is None or float(d.min()) > 3 * r_px:
                neg.append((c, (NONE, -1)))  # nowhere near an index
                continue
            lab = label(c, laid)
            if lab is None:
                continue
            (neg if lab[0] == NONE else pos).append((c, lab))
        rng.shuffle(neg)
        keep = pos + neg[:max(2, int(negatives * len(pos)))]
        if not keep:
            continue
        xs.append(ix.patches(gray, [c for c, _ in keep]))
        ranks += [lab[0] for _, lab in keep]
        suits += [lab[1] for _, lab in keep]
    if not xs:
        return (np.zeros((0, 1, ix.PATCH_H, ix.PATCH_W), np.float32), np.zeros(0, np.int64),
                np.zeros(0, np.int64))
    return np.concatenate(xs), np.array(ranks, np.int64), np.array(suits, np.int64)
