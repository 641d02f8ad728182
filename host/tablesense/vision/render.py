"""Frames of the simulated table from each camera's pose, drawn with Pillow.

Painter's algorithm: the floor, the table top (felt, with its zones printed
faintly, as on a dummy mat), then every card as a textured quad projected
through the camera (Pillow's perspective transform of the card's face or
back, whichever side faces the camera), far regions first. Then what a real
camera adds (:class:`Conditions`): uneven lighting (gain, tint, vignetting),
a spotlight's glare, defocus or motion blur, a player's arm in the picture,
and sensor noise. The same seed gives the same frame.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from tablesense.vision import geometry as g
from tablesense.vision.deck import card_back, card_face
from tablesense.vision.scene import Placed

FLOOR = (92, 84, 76)
FELT = (28, 104, 62)
FELT_LINE = (44, 124, 80)
RIM = (74, 50, 34)
SKIN = (196, 150, 122)
LEVELS = (8.0, 4.0, 2.0, 1.0, 0.5, 0.25)  # px/mm of the card textures (the rig reads 3-6)


@dataclass(frozen=True)
class Conditions:
    """What the camera adds to the scene. All zero/one: a perfect camera."""

    gain: float = 1.0
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    vignette: float = 0.0  # brightness lost at the corners (0..1)
    glare: float = 0.0  # peak added brightness of a spotlight's reflection (0..255)
    glare_radius: float = 0.12  # of the frame's width
    blur: float = 0.0  # Gaussian radius, px
    occlusion: float = 0.0  # share of frames with an arm over the table (0..1)
    noise: float = 0.0  # sensor noise, sigma in grey levels
    seed: int = 0
    extra: dict[str, float] = field(default_factory=dict)


CONDITIONS: dict[str, Conditions] = {
    "clean": Conditions(gain=1.0, vignette=0.12, noise=2.0),
    "glare": Conditions(gain=1.05, vignette=0.15, noise=2.0, glare=230.0, glare_radius=0.16),
    "blur": Conditions(vignette=0.12, noise=2.0, blur=1.6),
    "occlusion": Conditions(vignette=0.12, noise=2.0, occlusion=1.0),
    "dim": Conditions(gain=0.55, tint=(1.0, 0.92, 0.8), vignette=0.3, noise=4.0),
}


def _coeffs(H_out_from_in: np.ndarray) -> tuple[float, ...]:
    """Pillow's PERSPECTIVE data: output pixel -> input pixel (the inverse homography)."""
    Hi = np.linalg.inv(H_out_from_in)
    Hi = Hi / Hi[2, 2]
    return tuple(float(v) for v in Hi.flatten()[:8])


def _project_poly(cam: g.Camera, pts: list[np.ndarray]) -> list[tuple[float, float]] | None:
    uv = cam.project(np.array(pts))
    if np.isnan(uv).any():
        return None
    return [(float(x), float(y)) for x, y in uv]


Box = tuple[int, int, int, int]


class Renderer:
    """Draws one table's frames; the static background of each camera is drawn once.

    :meth:`render` draws a whole frame; :meth:`update` redraws only where cards
    moved since the camera's last frame (the reader renders only what changed).
    """

    def __init__(self, cameras: dict[str, g.Camera],
                 faces: Callable[[str, float], Image.Image] | None = None) -> None:
        """``faces``: a card's texture (``"back"`` for the back) at a level in px/mm, RGBA
        (default: the project's deck, :mod:`.deck`); other designs for benchmarks."""
        self.cameras = cameras
        self.faces = faces or _rgba
        self._bg: dict[str, Image.Image] = {}
        self._regions: dict[tuple[str, str], g.Region] = {(r.seat, r.kind): r
                                                          for r in g.ALL_REGIONS}
        self._H = {(name, key): g.plane_homography(cam, r.plane)
                   for name, cam in cameras.items() for key, r in self._regions.items()}
        # per camera: each card's place, box and texture level, and the frame as delivered
        # (an array: handing the recogniser a Pillow image would copy a 12 MP frame)
        self._last: dict[str, tuple[dict[str, tuple[Placed, Box, float]], np.ndarray]] = {}
        self._normal = {key: r.plane.normal for key, r in self._regions.items()}
        # per camera: regions far to near, and whether it sees each region's face side
        self._order = {name: self._far_first(cam) for name, cam in cameras.items()}
        self._front = {(name, key): float((cam.C - np.array(r.plane.origin)) @ r.plane.normal) > 0
                       for name, cam in cameras.items() for key, r in self._regions.items()}

    def _far_first(self, cam: g.Camera) -> list[tuple[str, str]]:
        def distance(key: tuple[str, str]) -> float:
            r = self._regions[key]
            return cam.distance(r.plane.point((r.u0 + r.u1) / 2, (r.w0 + r.w1) / 2))
        return sorted(self._regions, key=distance, reverse=True)

    # -- the room -------------------------------------------------------------------
    def background(self, name: str) -> Image.Image:
        bg = self._bg.get(name)
        if bg is None:
            bg = self._bg[name] = self._draw_background(self.cameras[name])
        return bg

    def _draw_background(self, cam: g.Camera) -> Image.Image:
        img = Image.new("RGB", (cam.width, cam.height), FLOOR)
        self._draw_table(img, cam)
        return img

    @staticmethod
    def _draw_table(img: Image.Image, cam: g.Camera) -> None:
        """The table (its edge, the felt, the zones' lines) over what ``img`` shows."""
        d = ImageDraw.Draw(img)
        h = g.HALF
        rim = [np.array([x, y, 0.0]) for x, y in ((-h, -h), (h, -h), (h, h), (-h, h))]
        below = [p + np.array([0, 0, -0.03]) for p in rim]
        for i in range(4):  # the table's edge, seen where it faces the camera
            q = _project_poly(cam, [rim[i], rim[(i + 1) % 4], below[(i + 1) % 4], below[i]])
            if q is not None:
                d.polygon(q, fill=RIM)
        top = _project_poly(cam, rim)
        if top is not None:
            d.polygon(top, fill=FELT)
        for r in g.ALL_REGIONS:
            if r.kind != "table":
                continue
            for w0, w1, hu in ((*g.TABLE_ZONE_W, g.TABLE_U), (*g.TRICK_ZONE_W, g.TRICK_U)):
                corners = [r.plane.point(u, w) for u, w in ((-hu, w0), (hu, w0), (hu, w1),
                                                             (-hu, w1))]
                q = _project_poly(cam, corners)
                if q is not None:
                    d.line([*q, q[0]], fill=FELT_LINE, width=1)

    # -- cards ------------------------------------------------------------------------
    def _card_homography(self, name: str, p: Placed, lv: float) -> np.ndarray:
        """Texture pixels (at ``lv`` px/mm) of ``p`` -> pixels of camera ``name``."""
        s = 1.0 / (lv * 1000)
        if p.facing > 0:
            A = np.array([[s, 0, p.u], [0, -s, p.w], [0, 0, 1]])
        else:  # turned over about its long axis: its own left is the plane's right
            A = np.array([[-s, 0, p.u + g.CARD_W], [0, -s, p.w], [0, 0, 1]])
        H: np.ndarray = self._H[(name, (p.seat, p.region))] @ A
        return H

    def where(self, name: str, p: Placed) -> tuple[Box, float] | None:
        """The card's bounding box in the frame and its texture level, or None if unseen."""
        cam = self.cameras[name]
        H = self._card_homography(name, p, 1.0)
        tw, th = g.CARD_W * 1000, g.CARD_H * 1000
        c = H @ np.array([[0, tw, tw, 0], [0, 0, th, th], [1, 1, 1, 1]], dtype=np.float64)
        if (c[2] <= 1e-6).any():
            return None
        xs, ys = c[0] / c[2], c[1] / c[2]
        x0, y0 = max(0, math.floor(xs.min())), max(0, math.floor(ys.min()))
        x1, y1 = min(cam.width, math.ceil(xs.max()) + 1), min(cam.height, math.ceil(ys.max()) + 1)
        if x1 - x0 < 1 or y1 - y0 < 1:
            return None
        side = max(math.hypot(xs[0] - xs[3], ys[0] - ys[3]),
                   math.hypot(xs[1] - xs[2], ys[1] - ys[2]))
        need = side / th
        lv = LEVELS[0]
        for level in reversed(LEVELS):
            if level >= need * 1.3:
                lv = level
                break
        return (x0, y0, x1, y1), lv

    def _draw_card(self, img: Image.Image, name: str, p: Placed, lv: float, box: Box,
                   origin: tuple[int, int] = (0, 0)) -> None:
        """Draw ``p`` into ``img``, whose top-left is ``origin`` in the frame."""
        cam = self.cameras[name]
        r = self._regions[(p.seat, p.region)]
        centre = r.plane.point(p.u + g.CARD_W / 2, p.w - g.CARD_H / 2)
        face_side = float((cam.C - centre) @ self._normal[(p.seat, p.region)]) * p.facing > 0
        tex = self.faces(p.card if face_side else "back", lv)
        x0, y0, x1, y1 = box
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        H = shift @ self._card_homography(name, p, lv)
        patch = tex.transform((x1 - x0, y1 - y0), Image.Transform.PERSPECTIVE, _coeffs(H),
                              Image.Resampling.BILINEAR)
        img.paste(patch, (x0 - origin[0], y0 - origin[1]), patch)

    def _ordered(self, name: str, cards: list[Placed]) -> list[Placed]:
        by_region: dict[tuple[str, str], list[Placed]] = {}
        for p in cards:
            by_region.setdefault((p.seat, p.region), []).append(p)
        out: list[Placed] = []
        for key in self._order[name]:
            ps = by_region.get(key)
            if ps:
                # within a region: the side a camera is on decides which card is in front
                front = self._front[(name, key)]
                out.extend(sorted(ps, key=lambda p: p.layer if front else -p.layer))
        return out

    def render(self, name: str, cards: list[Placed], cond: Conditions | None = None,
               frame_no: int = 0) -> Image.Image:
        """Camera ``name``'s whole frame of ``cards`` under ``cond`` (frame_no varies noise)."""
        img = self.background(name).copy()
        for p in self._ordered(name, cards):
            where = self.where(name, p)
            if where is not None:
                self._draw_card(img, name, p, where[1], where[0])
        return apply_conditions(img, cond or Conditions(), f"{name}/{frame_no}")

    def render_plate(self, name: str, plate: np.ndarray, half: float,
                     cond: Conditions | None = None) -> Image.Image:
        """Camera ``name``'s frame of the calibration plate (an RGB image of a square
        ``2 * half`` metres a side) lying where it lies for that camera
        (:func:`~tablesense.vision.geometry.plate_place`): at the centre of the empty
        table, or on the floor, where the table hides what is behind it."""
        cam = self.cameras[name]
        place = g.plate_place(name)
        below = place.origin[2] < 0
        img = Image.new("RGB", (cam.width, cam.height), FLOOR) if below else \
            self.background(name).copy()
        tex = Image.fromarray(plate)
        s = 2 * half / tex.width
        A = np.array([[s, 0, -half], [0, -s, half], [0, 0, 1]])
        H = g.plane_homography(cam, place) @ A
        # only the plate's box in the frame is transformed (a 12 MP frame takes seconds)
        c = H @ np.array([[0, tex.width, tex.width, 0], [0, 0, tex.height, tex.height],
                          [1, 1, 1, 1]], dtype=np.float64)
        xs, ys = c[0] / c[2], c[1] / c[2]
        x0, y0 = max(0, math.floor(xs.min())), max(0, math.floor(ys.min()))
        x1, y1 = min(cam.width, math.ceil(xs.max()) + 1), min(cam.height, math.ceil(ys.max()) + 1)
        if x1 > x0 and y1 > y0:
            Hb = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ H
            size = (x1 - x0, y1 - y0)
            img.paste(tex.transform(size, Image.Transform.PERSPECTIVE, _coeffs(Hb),
                                    Image.Resampling.BILINEAR),
                      (x0, y0),
                      Image.new("L", tex.size, 255).transform(
                          size, Image.Transform.PERSPECTIVE, _coeffs(Hb),
                          Image.Resampling.BILINEAR))
        if below:
            self._draw_table(img, cam)
        return apply_conditions(img, cond or Conditions(), f"{name}/plate")

    def update(self, name: str, cards: list[Placed], cond: Conditions | None = None,
               frame_no: int = 0) -> tuple[np.ndarray, Box | None]:
        """The frame after the cards moved: only the part where they moved is redrawn.

        Returns the frame (RGB, the renderer's own buffer: redrawn in place by the next
        update) and the box around what was redrawn (None: nothing moved). The camera's
        noise and glare stay where nothing moved (a still picture).
        """
        cond = cond or Conditions()
        cam = self.cameras[name]
        last = self._last.get(name)
        if last is None:
            last = ({}, conditioned(self.background(name).copy(), cond, f"{name}/bg"))
        boxes, out = last
        placed = {p.card: p for p in cards}
        dirty: list[Box] = []
        now: dict[str, tuple[Placed, Box, float]] = {}
        for card, p in placed.items():
            old = boxes.get(card)
            if old is not None and old[0] == p:
                now[card] = old
                continue
            if old is not None:
                dirty.append(old[1])
            where = self.where(name, p)
            if where is not None:
                now[card] = (p, where[0], where[1])
                dirty.append(where[0])
        dirty.extend(box for card, (_, box, _) in boxes.items() if card not in placed)
        if not dirty:
            self._last[name] = (now, out)
            return out, None
        # each patch where something changed is redrawn on its own (a card played from
        # a hand to the trick: two small patches, not the box around both)
        drawn = self._ordered(name, [q for q, _, _ in now.values()])
        for box in _merge(dirty, cam.width, cam.height):
            crop = self.background(name).crop(box)
            for p in drawn:
                _, b, lv = now[p.card]
                if b[2] <= box[0] or b[0] >= box[2] or b[3] <= box[1] or b[1] >= box[3]:
                    continue
                self._draw_card(crop, name, p, lv, b, origin=(box[0], box[1]))
            out[box[1]:box[3], box[0]:box[2]] = conditioned(
                crop, cond, f"{name}/{frame_no}", box=box, frame=(cam.width, cam.height))
        self._last[name] = (now, out)
        return out, (min(b[0] for b in dirty), min(b[1] for b in dirty),
                     min(max(b[2] for b in dirty), cam.width),
                     min(max(b[3] for b in dirty), cam.height))


def _merge(boxes: list[Box], width: int, height: int) -> list[Box]:
    """The boxes, clipped to the frame, with overlapping ones joined until none overlap."""
    out = [(b[0], b[1], min(b[2], width), min(b[3], height)) for b in boxes]
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                              max(a[3], b[3]))
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out


@cache
def _rgba(card: str, lv: float) -> Image.Image:
    return (card_back(lv) if card == "back" else card_face(card, lv)).convert("RGBA")


def _vignette(c: Conditions, fw: int, fh: int, box: Box) -> np.ndarray:
    """Per pixel of ``box``: the lens's vignetting, worked out for the box alone (a map
    of a whole 12 MP frame, kept per size, would be 50 MB)."""
    x0, y0, x1, y1 = box
    yy = ((np.arange(y0, y1, dtype=np.float32) - fh / 2) / (fh / 2)) ** 2
    xx = ((np.arange(x0, x1, dtype=np.float32) - fw / 2) / (fw / 2)) ** 2
    out: np.ndarray = 1.0 - np.float32(c.vignette / 2) * (yy[:, None] + xx[None, :])
    return out


NOISE_TILE = 1024  # sensor noise repeats at this period: a bank the size of a frame
# (twice over, to be read at random offsets) would be 600 MB at 12 MP


@lru_cache(maxsize=8)
def _noise_bank(sigma: float, seed: int) -> np.ndarray:
    """A tile of sensor noise; each frame reads it at a random offset, wrapping."""
    rng = np.random.default_rng(seed)
    out: np.ndarray = rng.normal(0, sigma, size=(NOISE_TILE, NOISE_TILE, 3)).astype(np.float32)
    return out


def apply_conditions(img: Image.Image, c: Conditions, key: str, box: Box | None = None,
                     frame: tuple[int, int] | None = None) -> Image.Image:
    """``img`` as the camera delivers it (see :func:`conditioned`), as an image."""
    return Image.fromarray(conditioned(img, c, key, box, frame))


def conditioned(img: Image.Image, c: Conditions, key: str, box: Box | None = None,
                frame: tuple[int, int] | None = None) -> np.ndarray:
    """``img`` as the camera delivers it, an RGB array. ``img`` may be the part ``box``
    of a frame of size ``frame``; ``key`` is ``camera/frame_no``: the arm and the glare
    stay in place for one camera (seeded by its name), the noise changes with the frame."""
    cam_key = key.split("/")[0]
    place = random.Random(f"{c.seed}/{cam_key}/{key if c.extra.get('moving') else ''}")
    fw, fh = frame or img.size
    ox, oy = (box[0], box[1]) if box is not None else (0, 0)
    if c.occlusion and place.random() < c.occlusion:
        _arm(img, place, fw, fh, ox, oy)
    if c.blur:
        img = img.filter(ImageFilter.GaussianBlur(c.blur))
    plain = (c.gain == 1.0 and c.tint == (1.0, 1.0, 1.0) and not c.vignette and not c.glare
             and not c.noise)
    if plain:
        return np.array(img)
    w, h = img.size
    a = np.asarray(img, dtype=np.float32)
    if c.vignette:
        a *= _vignette(c, fw, fh, (ox, oy, ox + w, oy + h))[..., None]
    a *= np.array(c.tint, dtype=np.float32) * np.float32(c.gain)
    if c.glare:
        gx, gy = place.uniform(0.25, 0.75) * fw, place.uniform(0.25, 0.75) * fh
        rad = c.glare_radius * fw
        yy, xx = np.mgrid[oy:oy + h, ox:ox + w].astype(np.float32)
        spot = c.glare * np.exp(-(((xx - gx) ** 2 + ((yy - gy) * 1.4) ** 2) / (2 * rad ** 2)))
        a += spot[..., None]
    if c.noise:
        bank = _noise_bank(c.noise, c.seed)
        r = random.Random(zlib.crc32(f"{c.seed}/{key}/{ox},{oy}".encode()))
        t = NOISE_TILE
        for y in range(0, h, t):  # each tile-sized block from its own place in the tile
            for x in range(0, w, t):
                blk = a[y:y + t, x:x + t]
                ny, nx = r.randrange(t - blk.shape[0] + 1), r.randrange(t - blk.shape[1] + 1)
                blk += bank[ny:ny + blk.shape[0], nx:nx + blk.shape[1]]
    np.clip(a, 0, 255, out=a)
    out: np.ndarray = a.astype(np.uint8)
    return out


def _arm(img: Image.Image, rng: random.Random, fw: int, fh: int, ox: int, oy: int) -> None:
    """A player's arm reaching in from one side of the frame, its hand well into the picture."""
    d = ImageDraw.Draw(img)
    side = rng.randrange(4)
    along = rng.uniform(0.25, 0.75)
    reach = rng.uniform(0.25, 0.45)
    width = rng.uniform(0.07, 0.11) * fw
    line: tuple[float, float, float, float]
    hand: tuple[float, float]
    if side < 2:
        x = along * fw
        end = reach * fh if side == 0 else fh - reach * fh
        start = -10 if side == 0 else fh + 10
        line = (x, start, x, end)
        hand = (x, end)
    else:
        y = along * fh
        end = reach * fw if side == 2 else fw - reach * fw
        start = -10 if side == 2 else fw + 10
        line = (start, y, end, y)
        hand = (end, y)
    d.line((line[0] - ox, line[1] - oy, line[2] - ox, line[3] - oy), fill=SKIN,
           width=round(width))
    r = width * 0.7
    d.ellipse((hand[0] - r - ox, hand[1] - r - oy, hand[0] + r - ox, hand[1] + r - oy), fill=SKIN)
