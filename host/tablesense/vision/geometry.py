"""The table in metres, its zones and planes, and the cameras that look at it.

World frame: origin at the centre of the table top, x towards East, y towards
North, z up; the top is a 0.90 m square at z = 0, the floor at z = -0.72.
Each seat has its own frame: ``r`` the player's right, ``f`` forward (towards
the centre), and up. Everything a camera reads lies in a *plane region*: a
rectangle ``u0..u1`` x ``w0..w1`` (metres) on a plane ``X = O + u a + w b``:

* the seat's part of the table top (its ``table`` zone near its edge, its
  ``trick`` zone further in): ``a = r``, ``b = f``, so a card lying with its
  top towards the centre is upright in the rectified image;
* the seat's hand: cards held upright 5 cm outside the edge, leaning back 30
  degrees, ``a = r``: the holder sees the faces; other seats see the backs,
  or the face of a card turned outwards;
* the floor beside the seat, below the table edge (the overhead camera sees it
  past the edge).

The cameras (one board a table, :func:`rig`): ``O`` overhead, on a pendant 1.0 m
above the centre, reading the table top; on the same pendant ``FN FE FS FW``,
each reading the floor past its seat's edge; and one at each seat's eye line
(0.30 m behind the edge, 0.40 m above the top) looking across the table. Each
is chosen so that what it reads is seen at no less than ``MIN_PX_PER_MM``
(:func:`px_per_mm`). A camera is a pinhole: ``K`` (intrinsics), ``R`` and
centre ``C`` (pose); :func:`plane_homography` maps plane
coordinates to pixels, which is what calibration recovers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tablesense.contract.vocab import SEATS, Seat, Zone

F64 = npt.NDArray[np.float64]

HALF = 0.45  # half the table's side
FLOOR_Z = -0.72
CARD_W, CARD_H = 0.057, 0.089  # bridge size
SPREAD_PITCH = 0.018  # cards in a spread (hand, dummy, quitted tricks) overlap to this
DETACH_RAISE = 0.040  # a card held apart from the hand is pulled up this far
HAND_OUT = 0.05  # the hand's cards stand this far outside the edge ...
HAND_UP = 0.10  # ... with their bottom this far above the top
HAND_LEAN = math.radians(30)  # leaning back (top away from the holder)
EYE_BACK, EYE_UP = 0.30, 0.40  # a seat's eye line: behind the edge, above the top
OVERHEAD_Z = 1.0

# seat -> (right, forward): x East, y North
_AXES: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "N": ((-1, 0), (0, -1)), "E": ((0, 1), (-1, 0)),
    "S": ((1, 0), (0, 1)), "W": ((0, -1), (1, 0)),
}


def seat_axes(seat: str) -> tuple[F64, F64, F64]:
    """``(r, f, up)`` of a seat, as 3-vectors in the world frame."""
    (rx, ry), (fx, fy) = _AXES[seat]
    return np.array([rx, ry, 0.0]), np.array([fx, fy, 0.0]), np.array([0.0, 0.0, 1.0])


def edge_centre(seat: str) -> F64:
    _, f, _ = seat_axes(seat)
    return -HALF * f


def eye(seat: str) -> F64:
    """A seat's eye point (the eye-line camera is there)."""
    _, f, up = seat_axes(seat)
    return edge_centre(seat) - EYE_BACK * f + EYE_UP * up


@dataclass(frozen=True)
class Plane:
    """``X = origin + u * a + w * b``; the face of a card lying in it looks along ``a x b``."""

    origin: tuple[float, float, float]
    a: tuple[float, float, float]
    b: tuple[float, float, float]

    def point(self, u: float, w: float) -> F64:
        return np.array(self.origin) + u * np.array(self.a) + w * np.array(self.b)

    @property
    def normal(self) -> F64:
        n: F64 = np.cross(np.array(self.a), np.array(self.b))
        return n


def _plane(o: F64, a: F64, b: F64) -> Plane:
    return Plane(tuple(map(float, o)), tuple(map(float, a)), tuple(map(float, b)))  # type: ignore[arg-type]


def table_plane(seat: str) -> Plane:
    r, f, _ = seat_axes(seat)
    return _plane(edge_centre(seat), r, f)


def hand_plane(seat: str) -> Plane:
    r, f, up = seat_axes(seat)
    o = edge_centre(seat) - HAND_OUT * f + HAND_UP * up
    b = math.cos(HAND_LEAN) * up + math.sin(HAND_LEAN) * f
    return _plane(o, r, b)


def floor_plane(seat: str) -> Plane:
    r, f, up = seat_axes(seat)
    return _plane(edge_centre(seat) + FLOOR_Z * up, r, f)


@dataclass(frozen=True)
class Region:
    """A rectangle of a plane that one zone (or a hand) of one seat occupies."""

    seat: Seat
    kind: str  # "table" (table and trick zones), "hand", "floor"
    plane: Plane
    u0: float
    u1: float
    w0: float
    w1: float

    @property
    def key(self) -> str:
        return f"{self.seat}.{self.kind}"


TABLE_ZONE_W = (0.005, 0.175)  # the table zone: depth from the edge (m)
TRICK_ZONE_W = (0.185, 0.310)
TABLE_U, TRICK_U = 0.21, 0.10  # half widths


def regions(seat: Seat) -> list[Region]:
    return [
        Region(seat, "table", table_plane(seat), -TABLE_U, TABLE_U, TABLE_ZONE_W[0],
               TRICK_ZONE_W[1]),
        Region(seat, "hand", hand_plane(seat), -0.20, 0.20, -0.005, CARD_H + DETACH_RAISE + 0.01),
        Region(seat, "floor", floor_plane(seat), -0.25, 0.25, -0.56, -0.39),
    ]


ALL_REGIONS: list[Region] = [r for s in SEATS for r in regions(s)]


def table_zone_at(w: float) -> Zone:
    """Which zone of a seat's part of the table top a card's top edge at depth ``w`` is in."""
    return "trick" if w > TRICK_ZONE_W[0] + 0.5 * CARD_H else "table"


# -- cameras ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Camera:
    """A pinhole camera: ``name`` is ``O`` (overhead) or a seat (its eye line)."""

    name: str
    width: int
    height: int
    K: F64
    R: F64  # world -> camera rotation (rows: right, down, forward)
    C: F64  # centre, world

    def project(self, X: F64) -> F64:
        """World points (n, 3) -> pixels (n, 2); points behind the camera get nan."""
        pc = (np.atleast_2d(X) - self.C) @ self.R.T
        z = pc[:, 2:3]
        with np.errstate(divide="ignore", invalid="ignore"):
            uv = (pc @ self.K.T)[:, :2] / np.where(z > 1e-6, z, np.nan)
        out: F64 = uv
        return out

    def distance(self, X: F64) -> float:
        return float(np.linalg.norm(np.asarray(X) - self.C))

    def with_pose(self, R: F64, C: F64) -> Camera:
        return Camera(self.name, self.width, self.height, self.K, R, C)

    def resized(self, width: int, height: int) -> Camera:
        """The same lens and pose, its sensor read out at ``width`` x ``height`` (the same
        field of view, fewer or more pixels); ValueError if that is another shape."""
        if (width, height) == (self.width, self.height):
            return self
        if abs(width * self.height - height * self.width) > 0.01 * self.width * self.height:
            raise ValueError(f"camera {self.name}: a {width}x{height} frame is not the shape "
                             f"of its {self.width}x{self.height} sensor")
        k = width / self.width
        K: F64 = self.K * np.array([[k, 1, k], [1, k, k], [1, 1, 1]])
        return Camera(self.name, width, height, K, self.R, self.C)


def look_at(C: F64, target: F64, image_up: F64) -> F64:
    fwd = target - C
    fwd = fwd / np.linalg.norm(fwd)
    right = np.cross(fwd, image_up)
    right = right / np.linalg.norm(right)
    down = np.cross(fwd, right)
    R: F64 = np.stack([right, down, fwd])
    return R


def intrinsics(width: int, height: int, hfov_deg: float) -> F64:
    fx = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    return focal(width, height, fx)


def focal(width: int, height: int, f_px: float) -> F64:
    """A centred pinhole's ``K`` with a focal length of ``f_px`` pixels."""
    return np.array([[f_px, 0, width / 2], [0, f_px, height / 2], [0, 0, 1.0]])


# The rig (issue 27): every region a camera reads a card's index in is seen at no less
# than MIN_PX_PER_MM (an index's strokes are under a millimetre). A camera's px/mm on a
# plane is its focal length in pixels over the distance, less where it looks obliquely
# (:func:`px_per_mm`); a frame covers its pixels' count over that, whatever the height.
# So one 12 MP camera covers the table top at 3.25 px/mm, with 2 cm to spare past the
# zones; the floor past each edge, 2 m from the pendant and seen at 30 degrees, takes
# a 4K camera of its own with a long lens; a hand 0.35 m from its holder's eye-line
# camera takes a 2560 x 1440 sensor at 80 degrees. hardware/README.md has the table.
MIN_PX_PER_MM = 3.0
OVERHEAD_SIZE, OVERHEAD_F = (4056, 3040), 3250.0  # 12.3 MP; HFOV 63.9 degrees
FLOOR_SIZE, FLOOR_F = (3840, 2160), 8300.0  # 4K; HFOV 26.2 degrees
EYE_SIZE, EYE_HFOV = (2560, 1440), 80.0
FLOOR_CAMERA = {s: f"F{s}" for s in SEATS}  # the camera that reads each seat's floor
FLOOR_PLATE_W = -0.55  # a floor camera's plate lies centred this far out from the edge
FLOOR_AIM_W = -0.53  # ... and it looks at this depth, between the plate and the zone


def _scaled(size: tuple[int, int], scale: float) -> tuple[int, int]:
    return int(size[0] * scale), int(size[1] * scale)


def rig(scale: float = 1.0) -> dict[str, Camera]:
    """The table's cameras as mounted (``scale`` resizes the frames, and the focal length
    with them, so the px/mm scale too):

    * ``O``, the overhead, on a pendant 1.0 m above the centre, looking straight down
      at the table top;
    * ``FN FE FS FW``, on the same pendant, each looking past its seat's edge at the
      floor beside the seat;
    * ``N E S W``, one at each seat's eye line, looking across the table: its own
      hand from behind, the others' from the front.
    """
    top = np.array([0, 0, OVERHEAD_Z])
    ow, oh = _scaled(OVERHEAD_SIZE, scale)
    cams = {"O": Camera("O", ow, oh, focal(ow, oh, OVERHEAD_F * ow / OVERHEAD_SIZE[0]),
                        look_at(top, np.zeros(3), np.array([0.0, 1.0, 0.0])), top)}
    fw, fh = _scaled(FLOOR_SIZE, scale)
    for s in SEATS:
        _, f, up = seat_axes(s)
        target = edge_centre(s) + FLOOR_Z * up + FLOOR_AIM_W * f
        name = FLOOR_CAMERA[s]
        cams[name] = Camera(name, fw, fh, focal(fw, fh, FLOOR_F * fw / FLOOR_SIZE[0]),
                            look_at(top, target, f), top)
    ew, eh = _scaled(EYE_SIZE, scale)
    for s in SEATS:
        _, f, up = seat_axes(s)
        C = eye(s)
        target = edge_centre(s) + 0.40 * f - 0.02 * up
        cams[s] = Camera(s, ew, eh, intrinsics(ew, eh, EYE_HFOV), look_at(C, target, up), C)
    return cams


def reads(camera: str) -> list[tuple[Region, bool]]:
    """The regions a camera reads, and whether it sees each from its face side (where
    it reads identities).

    The overhead camera reads the table top, each floor camera its seat's floor; a
    seat's eye-line camera reads the hands: its own from the holder's side, the
    others' from their backs (a card turned outwards).
    """
    if camera == "O":
        return [(r, True) for r in ALL_REGIONS if r.kind == "table"]
    if camera in FLOOR_CAMERA.values():
        return [(r, True) for r in ALL_REGIONS
                if r.kind == "floor" and FLOOR_CAMERA[r.seat] == camera]
    return [(r, r.seat == camera) for r in ALL_REGIONS if r.kind == "hand"]


def plate_place(camera: str) -> Plane:
    """Where the calibration plate lies while ``camera`` is calibrated: the centre of the
    table top (its markers' axes x and y), or, for a floor camera, the floor beside
    its seat (axes the seat's right and forward)."""
    for s, name in FLOOR_CAMERA.items():
        if name == camera:
            r, f, up = seat_axes(s)
            return _plane(edge_centre(s) + FLOOR_Z * up + FLOOR_PLATE_W * f, r, f)
    return Plane((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))


def px_per_mm(cam: Camera, region: Region, steps: int = 9) -> float:
    """The fewest pixels a millimetre of ``region`` gets in ``cam``'s frame, in any
    direction: the smaller singular value of the plane-to-pixel map's Jacobian, the
    least over a ``steps`` x ``steps`` grid of the region; 0.0 where part of the region
    lies outside the frame or behind the camera. Computed from ``cam``'s pose, so from
    a calibrated camera it is what that camera, as mounted, resolves.

    >>> cams = rig()
    >>> round(px_per_mm(cams["O"], regions("S")[0]), 2)
    3.25
    """
    H = plane_homography(cam, region.plane)
    u, w = np.meshgrid(np.linspace(region.u0, region.u1, steps),
                       np.linspace(region.w0, region.w1, steps))
    p = H @ np.stack([u.ravel(), w.ravel(), np.ones(u.size)])
    if (p[2] <= 1e-9).any():
        return 0.0
    x, y = p[0] / p[2], p[1] / p[2]
    if (x < 0).any() or (y < 0).any() or (x > cam.width).any() or (y > cam.height).any():
        return 0.0
    # d(x, y)/d(u, w) at each point: rows x, y; columns u, w
    J = np.empty((u.size, 2, 2))
    for i, q in enumerate((x, y)):
        for j in range(2):
            J[:, i, j] = (H[i, j] - q * H[2, j]) / p[2]
    least = np.linalg.svd(J, compute_uv=False)[:, -1].min()
    return float(least) / 1000.0


def resolution(cams: dict[str, Camera]) -> dict[tuple[str, str], float]:
    """``(camera, region key) -> px/mm`` for every region each camera reads identities in."""
    return {(name, r.key): px_per_mm(cam, r)
            for name, cam in cams.items() for r, own in reads(name) if own}


def plane_homography(cam: Camera, plane: Plane) -> F64:
    """3x3 ``H``: plane coordinates ``(u, w, 1)`` (m) -> pixels of ``cam``."""
    M = np.stack([np.array(plane.a), np.array(plane.b),
                  np.array(plane.origin) - cam.C], axis=1)
    H: F64 = cam.K @ cam.R @ M
    out: F64 = H / H[2, 2]
    return out


def rect_matrix(region: Region, px_per_m: float, mirror: bool = False) -> F64:
    """3x3: pixels of the region's rectified image -> plane coordinates (m).

    Row 0 is the region's top (``w1``); columns run along ``a`` (or against it
    when ``mirror``: the region seen from its back, as another seat sees a hand).
    """
    s = 1.0 / px_per_m
    if mirror:
        return np.array([[-s, 0, region.u1 - 0.5 * s], [0, -s, region.w1 - 0.5 * s], [0, 0, 1]])
    return np.array([[s, 0, region.u0 + 0.5 * s], [0, -s, region.w1 - 0.5 * s], [0, 0, 1]])


def rect_size(region: Region, px_per_m: float) -> tuple[int, int]:
    return (round((region.u1 - region.u0) * px_per_m), round((region.w1 - region.w0) * px_per_m))


def faces_towards(plane: Plane, point: F64, at: F64, normal_sign: float,
                  max_angle_deg: float = 75.0) -> bool:
    """Is ``point`` (an eye) on the face side of a card at ``at``, within ``max_angle_deg``?"""
    d = point - at
    n = normal_sign * plane.normal
    c = float(d @ n) / (float(np.linalg.norm(d)) * float(np.linalg.norm(n)))
    return c >= math.cos(math.radians(max_angle_deg))


def blocked_by_table(p: F64, q: F64) -> bool:
    """Does the segment ``p``-``q`` pass through the table top (a point on the top is not
    hidden by it)?

    >>> blocked_by_table(np.array([0, -0.75, 0.4]), np.array([0, 0.3, 0.0]))
    False
    >>> blocked_by_table(np.array([0, -0.75, 0.4]), np.array([0, 0.8, -0.72]))
    True
    """
    eps = 1e-6
    if not ((p[2] > eps and q[2] < -eps) or (p[2] < -eps and q[2] > eps)):
        return False
    t = p[2] / (p[2] - q[2])
    x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
    return bool(abs(x) < HALF - 1e-6 and abs(y) < HALF - 1e-6)


def visible_from(seat: str, plane: Plane, at: F64, normal_sign: float) -> bool:
    """Could a player at ``seat`` see the face of a card at ``at`` (from his eye line)?"""
    e = eye(seat)
    return faces_towards(plane, e, at, normal_sign) and not blocked_by_table(e, at)
