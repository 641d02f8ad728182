"""Recognition on pixels: calibration from ArUco markers, then cards from each frame.

**Calibration** (:func:`calibrate`): a plate with four ArUco markers (4x4,
ids 0-3, 120 mm) lies at the centre of the table (for a floor camera, on the
floor beside its seat: ``geometry.plate_place``); each camera finds them,
and its pose (``solvePnP`` from the markers' 16 corners, the lens's
intrinsics known) gives the homography of every plane it reads (table top,
hands, floor). The same frame is checked as a calibration plate is: focus
(variance of the Laplacian over the plate), exposure (the plate's paper
neither dark nor clipped) and glare (saturated pixels on the plate).

**Recognition** (:class:`Recogniser`): each region a camera reads is
rectified to 1 px/mm in the plane it lies in (warpPerspective with the
calibrated homography), so every card in it is upright and printed at one
scale. There:

* card *faces* are found by their corner index: ink blobs of a rank glyph's
  height on paper; the rank is the best of 13 templates by normalised
  cross-correlation in a small window, the suit the best of the 2 templates
  of its ink colour (red or black) where the suit glyph must be; ``conf`` is
  the weaker of the two scores, lowered when the runner-up is close;
* card *backs* are the blue of the back, one blob a card (the white margin
  keeps overlapping backs apart);
* seen from a hand's back side (another seat looking at it), a *face* is
  any card-sized strip of paper: a card turned outwards.

Regions whose pixels did not change since the last frame (8x8 block means)
keep their sightings, so a frame costs what changed in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from tablesense.contract.vocab import Seat
from tablesense.vision import geometry as g
from tablesense.vision.deck import (
    INDEX_X,
    INK,
    RANK_Y,
    RANKS,
    SUIT_Y,
    glyph_template,
)

U8 = npt.NDArray[Any]  # an 8-bit image (OpenCV's stubs type its results loosely)
PX_PER_M = 1000.0  # rectified: 1 px/mm
MM = PX_PER_M / 1000
RANK_PX_H = 20 * MM  # the rank glyph's height
ARUCO = cv2.aruco.DICT_4X4_50
PLATE_HALF = 0.20
MARKER = 0.12
CHANGE_LEVEL = 6.0  # mean grey change of an 8x8 block that counts as a change
BACK_MARGIN = 0.003
FACE_MIN_CONF = 0.35  # below this an index candidate is no card at all
INDEX_PAD = 3  # px of slack around a template in the window it is matched over


@dataclass(frozen=True)
class Sighting:
    """One card side one camera saw in one region.

    ``u``/``w``: the card's left and top edges, metres in the region's plane,
    as the holder sees it; ``own``: seen from the face side of the region (the
    holder's side of a hand; above the table or floor); ``card`` is None
    where the camera saw a side but could not read it (a back; a face too far).
    """

    camera: str
    seat: Seat
    region: str
    side: str  # "face" or "back"
    card: str | None
    conf: float
    u: float
    w: float
    own: bool = True


# -- calibration -----------------------------------------------------------------------
def plate_image(px_per_mm: float = 2.0) -> U8:
    """The calibration plate (400 mm square, a marker in each corner), RGB."""
    side = round(2 * PLATE_HALF * 1000 * px_per_mm)
    img = np.full((side, side), 225, np.uint8)  # matte paper, not white
    d = cv2.aruco.getPredefinedDictionary(ARUCO)
    m = round(MARKER * 1000 * px_per_mm)
    pad = round(10 * px_per_mm)
    for i, (x, y) in enumerate(_marker_origins_px(side, m, pad)):
        marker = cv2.aruco.generateImageMarker(d, i, m)
        img[y:y + m, x:x + m] = np.where(marker > 127, 225, 20).astype(np.uint8)
    out: U8 = cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)
    return out


def _marker_origins_px(side: int, m: int, pad: int) -> list[tuple[int, int]]:
    return [(pad, pad), (side - pad - m, pad), (side - pad - m, side - pad - m),
            (pad, side - pad - m)]


def plate_corners_world(place: g.Plane | None = None) -> dict[int, npt.NDArray[np.float64]]:
    """Marker id -> its 4 corners (ArUco order: TL, TR, BR, BL) in the world, metres,
    for the plate lying centred on ``place`` (default: the centre of the table top)."""
    place = place or g.plate_place("O")
    out = {}
    pad = 0.010
    h = PLATE_HALF
    tl = [(-h + pad, h - pad), (h - pad - MARKER, h - pad), (h - pad - MARKER, -h + pad + MARKER),
          (-h + pad, -h + pad + MARKER)]
    for i, (x, y) in enumerate(tl):
        out[i] = np.array([place.point(u, w) for u, w in ((x, y), (x + MARKER, y),
                                                            (x + MARKER, y - MARKER),
                                                            (x, y - MARKER))], dtype=np.float64)
    return out


@dataclass(frozen=True)
class CameraCheck:
    """What ``calibrate`` found for one camera; ``ok`` when it can be used."""

    camera: str
    markers: int
    reprojection_px: float
    focus: float
    exposure: float
    clipped: float
    problems: tuple[str, ...]
    pose: tuple[Any, Any] | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return not self.problems


FOCUS_MIN = 500.0  # variance of the Laplacian over the plate (sharp: thousands) ...
FOCUS_PX_PER_MM = 1.0  # ... judged at this scale of the plate: the blur that matters is in
# millimetres (a sharp frame with more pixels a millimetre has fewer edges a pixel)
EXPOSURE_RANGE = (120.0, 245.0)  # mean grey of the plate's paper
CLIPPED_MAX = 0.01  # share of saturated plate pixels (glare)
REPROJ_MAX = 2.0


def calibrate_camera(cam: g.Camera, frame: U8) -> CameraCheck:
    """Find the plate in ``frame`` (RGB), lying where it lies for this camera
    (:func:`~tablesense.vision.geometry.plate_place`), and check the picture; the pose
    if found."""
    gray = cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(gray)
    problems: list[str] = []
    place = g.plate_place(cam.name)
    world = plate_corners_world(place)
    obj, img = [], []
    if ids is not None:
        for c, i in zip(corners, ids.flatten(), strict=True):
            if int(i) in world:
                obj.append(world[int(i)])
                img.append(c.reshape(4, 2))
    n = len(obj)
    reproj = float("inf")
    pose = None
    if n < 2:
        problems.append(f"plate not found ({n} of 4 markers)")
    else:
        o = np.concatenate(obj).astype(np.float64)
        p = np.concatenate(img).astype(np.float64)
        ok, rvec, tvec = cv2.solvePnP(o, p, cam.K, None, flags=cv2.SOLVEPNP_ITERATIVE)
        if not ok:
            problems.append("pose not found")
        else:
            proj, _ = cv2.projectPoints(o, rvec, tvec, cam.K, None)
            reproj = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - p) ** 2, axis=1))))
            R, _ = cv2.Rodrigues(rvec)
            pose = (R, (-R.T @ tvec).reshape(3))
            if reproj > REPROJ_MAX:
                problems.append(f"markers do not fit a pose ({reproj:.1f} px)")
    # the plate's area in the picture: from the pose, or from the markers found
    mask = np.zeros(gray.shape, np.uint8)
    scale = 1.0  # the focus's downscale
    if pose is not None:
        h = PLATE_HALF
        pts = np.array([place.point(u, w) for u, w in ((-h, -h), (h, -h), (h, h), (-h, h))],
                       dtype=np.float64)
        R, C = pose
        q = cam.with_pose(np.asarray(R, dtype=np.float64), np.asarray(C, dtype=np.float64)
                          ).project(pts)
        cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 255)
        seen = g.px_per_mm(cam.with_pose(np.asarray(R, dtype=np.float64),
                                         np.asarray(C, dtype=np.float64)),
                           g.Region("N", "plate", place, -h, h, -h, h))
        scale = min(1.0, FOCUS_PX_PER_MM / seen) if seen > 0 else 1.0
    elif img:
        cv2.fillConvexPoly(mask, cv2.convexHull(np.concatenate(img).astype(np.int32)), 255)
    sel = mask > 0
    focus = exposure = clipped = 0.0
    if sel.any():
        focus = _focus(gray, mask, scale)
        vals = gray[sel]
        paper = vals[vals >= np.percentile(vals, 60)]
        exposure = float(paper.mean()) if paper.size else 0.0
        clipped = float((vals >= 252).mean())
        if focus < FOCUS_MIN:
            problems.append(f"out of focus (Laplacian variance {focus:.0f} < {FOCUS_MIN:.0f})")
        if not EXPOSURE_RANGE[0] <= exposure <= EXPOSURE_RANGE[1]:
            problems.append(f"exposure {exposure:.0f} outside {EXPOSURE_RANGE[0]:.0f}.."
                            f"{EXPOSURE_RANGE[1]:.0f}")
        if clipped > CLIPPED_MAX:
            problems.append(f"glare: {100 * clipped:.1f}% of the plate saturated")
    return CameraCheck(cam.name, n, reproj, focus, exposure, clipped, tuple(problems), pose)


def _focus(gray: U8, mask: U8, scale: float) -> float:
    """The variance of the Laplacian over the plate (``mask``), the frame first scaled by
    ``scale`` (averaging pixels: INTER_AREA)."""
    if scale < 1.0:
        size = (max(1, round(gray.shape[1] * scale)), max(1, round(gray.shape[0] * scale)))
        gray = cv2.resize(gray, size, interpolation=cv2.INTER_AREA)
        mask = cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST)
    lap = cv2.Laplacian(gray, cv2.CV_64F)
    return float(lap[mask > 0].var())


def calibrated(cam: g.Camera, check: CameraCheck) -> g.Camera:
    """The camera with the pose its calibration found."""
    if check.pose is None:
        raise ValueError(f"camera {cam.name}: not calibrated: {', '.join(check.problems)}")
    R, C = check.pose
    return cam.with_pose(np.asarray(R, dtype=np.float64), np.asarray(C, dtype=np.float64))


# -- recognition -------------------------------------------------------------------------
def reads(camera: str) -> list[tuple[g.Region, bool]]:
    """The regions a camera reads, and whether it sees each from its face side: the
    rig's (:func:`tablesense.vision.geometry.reads`)."""
    return g.reads(camera)


_Read = tuple[float, int, int, str]  # conf, the glyph cell's x and y, the card
INDEX_BLOCK = 4  # px: the blocks an index window is compared in, frame to frame


@dataclass
class _RegionView:
    region: g.Region
    own: bool
    M: npt.NDArray[np.float64]  # rectified px -> frame px
    size: tuple[int, int]
    roi: tuple[int, int, int, int] | None
    step: int = 1  # the change test samples every step-th pixel (about one a millimetre)
    last: U8 | None = None
    sightings: list[Sighting] = field(default_factory=list)
    # ink blob (x, y) -> the index window's block means when it was read, and the read
    index: dict[tuple[int, int], tuple[U8, _Read | None]] = field(default_factory=dict)


TEMPLATE_BLUR = (0.0, 1.0, 2.0)  # px: sharp, and as a soft lens or a far camera draws it


class Templates:
    """Rank and suit glyphs at the rectified scale (grey, paper 245, ink 20), each also
    blurred, as unit vectors for normalised cross-correlation (TM_CCOEFF_NORMED done as
    one product for all templates and every offset of the window)."""

    def __init__(self) -> None:
        self.ranks, self.rank, self.rank_shape = self._bank(
            {r: glyph_template("rank", r, MM) for r in RANKS})
        # where each rank glyph has ink: the pixels whose colour names the suit
        self.rank_ink = {r: np.asarray(glyph_template("rank", r, MM)) < 100 for r in RANKS}
        self.suits, self.suit, self.suit_shape = self._bank(
            {x: glyph_template("suit", x, MM) for x in "SHDC"})

    @staticmethod
    def _bank(imgs: dict[str, Any]) -> tuple[list[str], npt.NDArray[np.float32],
                                             tuple[int, int]]:
        names, rows = [], []
        shape = (0, 0)
        for name, img in imgs.items():
            a = np.asarray(img, dtype=np.uint8)
            shape = a.shape
            for b in TEMPLATE_BLUR:
                t = (a if b == 0 else cv2.GaussianBlur(a, (0, 0), b)).astype(np.float32).ravel()
                t = t - t.mean()
                rows.append(t / max(float(np.linalg.norm(t)), 1e-6))
                names.append(name)
        # (pixels, templates), contiguous: one plain GEMM against a window's patches (a
        # transposed view costs BLAS a copy or a slow path, ~8x on this machine)
        return names, np.ascontiguousarray(np.stack(rows).T), (int(shape[0]), int(shape[1]))


def match(win: U8, names: list[str], bank: npt.NDArray[np.float32], shape: tuple[int, int]
          ) -> list[tuple[float, str, tuple[int, int]]]:
    """Each symbol's best score over its blurs and the window's offsets, best first,
    with the offset (x, y) of the best."""
    th, tw = shape
    patches = np.lib.stride_tricks.sliding_window_view(win.astype(np.float32), (th, tw))
    ny, nx = patches.shape[:2]
    p = patches.reshape(ny * nx, th * tw)
    p = p - p.mean(axis=1, keepdims=True)
    p = p / np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-6)
    scores = p @ bank  # (offsets, templates)
    k = scores.argmax(axis=0)
    top = scores[k, np.arange(scores.shape[1])]
    best: dict[str, tuple[float, tuple[int, int]]] = {}
    for j, name in enumerate(names):
        v = float(top[j])
        if name not in best or v > best[name][0]:
            kk = int(k[j])
            best[name] = (v, (kk % nx, kk // nx))
    return sorted(((v, n, loc) for n, (v, loc) in best.items()), reverse=True)


_TEMPLATES: Templates | None = None


def templates() -> Templates:
    global _TEMPLATES
    if _TEMPLATES is None:
        _TEMPLATES = Templates()
    return _TEMPLATES


class Recogniser:
    """One calibrated camera's recognition, frame after frame."""

    def __init__(self, cam: g.Camera, px_per_m: float = PX_PER_M) -> None:
        self.cam = cam
        self.views: list[_RegionView] = []
        for region, own in reads(cam.name):
            H = g.plane_homography(cam, region.plane)
            M = H @ g.rect_matrix(region, px_per_m, mirror=not own)
            corners = [region.plane.point(u, w) for u in (region.u0, region.u1)
                       for w in (region.w0, region.w1)]
            uv = cam.project(np.array(corners))
            roi = None
            if not np.isnan(uv).any():
                x0, y0 = np.floor(uv.min(axis=0)).astype(int)
                x1, y1 = np.ceil(uv.max(axis=0)).astype(int)
                x0, y0 = max(0, x0), max(0, y0)
                x1, y1 = min(cam.width, x1 + 1), min(cam.height, y1 + 1)
                if x1 > x0 and y1 > y0:
                    roi = (int(x0), int(y0), int(x1), int(y1))
            if roi is not None:
                step = max(1, int(g.px_per_mm(cam, region)))
                self.views.append(_RegionView(region, own, M, g.rect_size(region, px_per_m),
                                              roi, step))
        self.t = templates()
        self.regions_read = 0
        self.indexes_read = 0

    def recognise(self, frame: U8, force: bool = False) -> list[Sighting]:
        """Every sighting in ``frame`` (RGB): regions that did not change keep theirs."""
        out: list[Sighting] = []
        for v in self.views:
            assert v.roi is not None
            x0, y0, x1, y1 = v.roi
            # block means of 8 x 8 samples, a sample every ``step`` pixels: a block is
            # 8 mm or so at any camera's resolution, its noise averaged over 64 pixels
            # as at 1 px/mm, and the test reads a ninth of a 3 px/mm frame, not all of it
            k = v.step
            sample = np.ascontiguousarray(frame[y0:y1:k, x0:x1:k])
            small: U8 = cv2.resize(cv2.cvtColor(sample, cv2.COLOR_RGB2GRAY),
                                   (max(1, sample.shape[1] // 8), max(1, sample.shape[0] // 8)),
                                   interpolation=cv2.INTER_AREA)
            changed = (force or v.last is None or v.last.shape != small.shape
                       or float(cv2.absdiff(small, v.last).max()) > CHANGE_LEVEL)
            if changed:
                v.last = small
                rect: U8 = cv2.warpPerspective(frame, v.M, v.size,
                                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                           borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
                v.sightings = self.read_region(v, rect, force)
                self.regions_read += 1
            out.extend(v.sightings)
        return out

    # -- one region ---------------------------------------------------------------------
    def _to_plane(self, v: _RegionView, x: float, y: float) -> tuple[float, float]:
        s = 1.0 / PX_PER_M
        r = v.region
        u = r.u0 + (x + 0.5) * s if v.own else r.u1 - (x + 0.5) * s
        return u, r.w1 - (y + 0.5) * s

    def read_region(self, v: _RegionView, rect: U8, force: bool = True) -> list[Sighting]:
        """The sightings in one rectified region; ``force`` False: an index whose window
        looks as it did when last read (block means within CHANGE_LEVEL) keeps that read."""
        hsv = cv2.cvtColor(rect, cv2.COLOR_RGB2HSV)
        gray: U8 = cv2.cvtColor(rect, cv2.COLOR_RGB2GRAY)
        r_, g_, b_ = (rect[..., i].astype(np.int16) for i in range(3))
        paper = ((hsv[..., 1] < 70) & (hsv[..., 2] > 110)).astype(np.uint8)
        back = ((b_ > r_ + 45) & (b_ > g_ + 25)).astype(np.uint8)
        out: list[Sighting] = []
        faces = self._faces(v, rect, gray, paper, back, force)
        out.extend(faces)
        out.extend(self._backs(v, back))
        if not v.own:
            out.extend(self._paper_strips(v, paper, faces))
        return out

    def _faces(self, v: _RegionView, rect: U8, gray: U8, paper: U8, back: U8,
               force: bool = True) -> list[Sighting]:
        area = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
        ink = ((area > 0) & (paper == 0) & (back == 0) & (gray < 170)).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
        found: list[_Read] = []
        index: dict[tuple[int, int], tuple[U8, _Read | None]] = {}
        for i in range(1, n):
            x, y, w, h, a = (int(s) for s in stats[i])
            # a rank glyph; blurred, it may have run into the suit below it or a neighbour
            if not (0.7 * RANK_PX_H <= h <= 2.4 * RANK_PX_H and w <= 18 * MM and a >= 8):
                continue
            read = self._index_at(v, rect, gray, x, y, index, force)
            if read is not None:
                found.append(read)
        v.index = index
        found.sort(reverse=True)
        kept: list[_Read] = []
        for f in found:
            if all(abs(f[1] - k[1]) > 9 * MM or abs(f[2] - k[2]) > 9 * MM for k in kept):
                kept.append(f)
        out = []
        for conf, ax, ay, card in kept:
            # the index's glyph cell origin -> the card's top-left corner
            u, top = self._to_plane(v, ax - INDEX_X * MM, ay - RANK_Y * MM)
            if not v.own:  # seen from behind: that corner is the card's right one
                u -= g.CARD_W
            if v.region.kind == "hand" and not _in_hand(top):
                continue  # the table behind the hand, seen through the region
            out.append(Sighting(self.cam.name, v.region.seat, v.region.kind, "face", card,
                                conf, u, top, v.own))
        return out

    def _index_window(self, x: int, y: int) -> tuple[int, int, int, int]:
        """The pixels :meth:`_read_index` may look at for an ink blob at ``x, y``:
        (x0, y0, x1, y1) of the rectified region, whatever the match's offset."""
        pad, mm = INDEX_PAD, round(MM)
        th, tw = self.t.rank_shape
        sh, sw = self.t.suit_shape
        dy = round((SUIT_Y - RANK_Y) * MM)
        return (x - mm - 2 * pad, y - mm - pad,
                x - mm + max(tw + pad, sw + 2 * pad), y - mm + max(th + pad, dy + sh + 2 * pad))

    def _index_at(self, v: _RegionView, rect: U8, gray: U8, x: int, y: int,
                  index: dict[tuple[int, int], tuple[U8, _Read | None]], force: bool
                  ) -> _Read | None:
        """The index at the ink blob ``x, y``: read, or as read last time if its window
        has not changed since (frame differencing, as for a region: the block means
        of the window in colour, within CHANGE_LEVEL)."""
        x0, y0, x1, y1 = self._index_window(x, y)
        if x0 < 0 or y0 < 0 or y1 > rect.shape[0] or x1 > rect.shape[1]:
            return self._read_index(rect, gray, x, y)
        blocks: U8 = cv2.resize(rect[y0:y1, x0:x1],
                                ((x1 - x0) // INDEX_BLOCK, (y1 - y0) // INDEX_BLOCK),
                                interpolation=cv2.INTER_AREA)
        old = v.index.get((x, y))
        if (not force and old is not None and old[0].shape == blocks.shape
                and float(cv2.absdiff(blocks, old[0]).max()) <= CHANGE_LEVEL):
            read = old[1]
        else:
            read = self._read_index(rect, gray, x, y)
            self.indexes_read += 1
        index[(x, y)] = (blocks, read)
        return read

    def _read_index(self, rect: U8, gray: U8, x: int, y: int
                    ) -> _Read | None:
        pad = INDEX_PAD
        t = self.t
        th, tw = t.rank_shape
        # a template has 1 mm of paper around its glyph
        y0, x0 = y - round(MM) - pad, x - round(MM) - pad
        if y0 < 0 or x0 < 0:
            return None
        win = gray[y0:y0 + th + 2 * pad, x0:x0 + tw + 2 * pad]
        if win.shape[0] < th + 2 * pad or win.shape[1] < tw + 2 * pad:
            return None
        scores = match(win, t.ranks, t.rank, t.rank_shape)
        r1, rank, loc = scores[0]
        r2 = scores[1][0]
        if r1 < FACE_MIN_CONF:
            return None
        gx, gy = x0 + loc[0] + round(MM), y0 + loc[1] + round(MM)  # the glyph cell origin
        sh, sw = t.suit_shape
        sy0 = gy + round((SUIT_Y - RANK_Y) * MM) - round(MM) - pad
        sx0 = gx - round(MM) - pad
        if sy0 < 0 or sx0 < 0:
            return None
        swin = gray[sy0:sy0 + sh + 2 * pad, sx0:sx0 + sw + 2 * pad]
        if swin.shape[0] < sh + 2 * pad or swin.shape[1] < sw + 2 * pad:
            return None
        glyph = rect[y0 + loc[1]:y0 + loc[1] + th, x0 + loc[0]:x0 + loc[0] + tw]
        suit = ink_suit(glyph[t.rank_ink[rank]])
        if suit is None:
            return None
        shapes = {name: v for v, name, _ in match(swin, t.suits, t.suit, t.suit_shape)}
        s1 = shapes[suit]
        other = max(v for name, v in shapes.items() if name != suit)
        # the glyph must agree with the ink: a shape that fits another suit better halves it
        suit_conf = max(0.0, s1) * (1.0 if s1 >= other - 0.05 else 0.5)
        conf = min(_confidence(r1, r2), suit_conf)
        if conf < FACE_MIN_CONF:
            return None
        return conf, gx, gy, suit + rank

    def _backs(self, v: _RegionView, back: U8) -> list[Sighting]:
        clean = cv2.morphologyEx(back, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(clean, connectivity=4)
        out = []
        for i in range(1, n):
            x, y, _, h, a = (int(s) for s in stats[i])
            if a < 250 * MM * MM or h < 30 * MM:
                continue
            left, top = x - BACK_MARGIN * PX_PER_M, y - BACK_MARGIN * PX_PER_M
            u, wpl = self._to_plane(v, left, top)
            if not v.own:
                u -= g.CARD_W
            if v.region.kind == "hand" and not _in_hand(wpl):
                continue  # the table behind the hand, seen through the region
            out.append(Sighting(self.cam.name, v.region.seat, v.region.kind, "back", None, 1.0,
                                u, wpl, v.own))
        return out


    def _paper_strips(self, v: _RegionView, paper: U8, faces: list[Sighting]) -> list[Sighting]:
        """Faces seen from behind a hand: runs of columns that are paper across the cards'
        middle (below the index, above the bottom margin), a card's strip wide."""
        r = v.region
        y0, y1 = round((r.w1 - 0.060) * PX_PER_M), round((r.w1 - 0.020) * PX_PER_M)
        band = paper[y0:y1]
        if band.size == 0:
            return []
        cols = band.mean(axis=0) >= 0.6
        out = []
        x = 0
        n = cols.shape[0]
        while x < n:
            if not cols[x]:
                x += 1
                continue
            start = x
            while x < n and cols[x]:
                x += 1
            if x - start < 10 * MM or x - start > 70 * MM:
                continue
            # seen from behind, the run's left end is the card's own left edge
            u_edge, _ = self._to_plane(v, start, 0)
            u = u_edge - g.CARD_W
            if any(abs(f.u - u) < 0.012 for f in faces):
                continue  # read as a face already
            out.append(Sighting(self.cam.name, r.seat, r.kind, "face", None, 0.0, u, g.CARD_H,
                                False))
        return out


_INK_HUE = {s: int(cv2.cvtColor(np.array([[c]], np.uint8), cv2.COLOR_RGB2HSV)[0, 0, 0])
            for s, c in INK.items() if s != "S"}  # OpenCV hue, 0..180


def ink_suit(pixels: U8) -> str | None:
    """The suit an index's ink names: the darkest third of its pixels, black (little
    colour) or the nearest of the three inks by hue (which paper mixed in, as blur
    does, leaves alone); None: no ink."""
    px = pixels.reshape(-1, 3).astype(np.float64)
    if px.size == 0:
        return None
    grey = px @ np.array([0.299, 0.587, 0.114])
    if float(grey.min()) > 200:
        return None
    k = int(0.33 * (grey.size - 1))  # the darkest third: the 33rd percentile, by rank
    mean = px[grey <= np.partition(grey, k)[k]].mean(axis=0)
    hsv = cv2.cvtColor(np.clip(mean, 0, 255).astype(np.uint8).reshape(1, 1, 3),
                       cv2.COLOR_RGB2HSV)[0, 0]
    if int(hsv[1]) < 70:
        return "S"
    hue = int(hsv[0])
    return min(_INK_HUE, key=lambda x: min(abs(_INK_HUE[x] - hue), 180 - abs(_INK_HUE[x] - hue)))


def _in_hand(top: float) -> bool:
    """A card's top edge where a held card's is (or a detached one's)."""
    return (abs(top - g.CARD_H) < 0.012
            or abs(top - g.CARD_H - g.DETACH_RAISE) < 0.012)


def _confidence(best: float, second: float) -> float:
    """A match score as a confidence: high only when clearly better than the runner-up."""
    margin = min(1.0, 0.6 + 4.0 * max(0.0, best - second))
    return max(0.0, min(1.0, best)) * margin


