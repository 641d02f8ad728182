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

The cameras (one board a table): ``O`` overhead, 1.0 m above the centre,
and one at each seat's eye line (0.30 m behind the edge, 0.40 m above the
top) looking across the table. A camera is a pinhole: ``K`` (intrinsics),
``R`` and centre ``C`` (pose); :func:`plane_homography` maps plane
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
    return np.array([[fx, 0, width / 2], [0, fx, height / 2], [0, 0, 1.0]])


OVERHEAD_SIZE = (1024, 1024)
EYE_SIZE = (560, 360)


def rig(scale: float = 1.0) -> dict[str, Camera]:
    """The table's cameras as mounted: ``O`` and ``N E S W`` (``scale`` resizes the frames)."""
    ow, oh = (int(OVERHEAD_SIZE[0] * scale), int(OVERHEAD_SIZE[1] * scale))
    cams = {"O": Camera("O", ow, oh, intrinsics(ow, oh, 2 * math.degrees(math.atan(0.60))),
                        look_at(np.array([0, 0, OVERHEAD_Z]), np.zeros(3),
                                np.array([0.0, 1.0, 0.0])),
                        np.array([0, 0, OVERHEAD_Z]))}
    ew, eh = (int(EYE_SIZE[0] * scale), int(EYE_SIZE[1] * scale))
    for s in SEATS:
        _, f, up = seat_axes(s)
        C = eye(s)
        target = edge_centre(s) + 0.40 * f - 0.02 * up
        cams[s] = Camera(s, ew, eh, intrinsics(ew, eh, 80), look_at(C, target, up), C)
    return cams


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
