"""On-axis field of the seat's rectangular loop antennas, and the height a tag is powered at.

    python3 hardware/field.py

Biot-Savart for a rectangular loop of sides a x b carrying I (amperes, rms)
in N turns, on its axis at height z above its plane:

    H(z) = N I a b / (4 pi r) * (1 / (a^2/4 + z^2) + 1 / (b^2/4 + z^2)),
    r = sqrt(a^2/4 + b^2/4 + z^2)

A tag is powered where H >= its activation field. The standards' minimum
operating fields are the floor: ISO/IEC 14443-2 Hmin = 1.5 A/m (NTAG213),
ISO/IEC 15693-2 Hmin = 0.15 A/m (ICODE SLIX2). A small inlay needs more than
the standard's reference card, and the card lies over the antenna's middle
only sometimes; hardware/README.md (measurement plan M1, M2) says how the
real figures are taken. The coil currents are assumptions of the design
until M1 measures them.
"""

from math import pi, sqrt

HMIN = {"iso14443": 1.5, "iso15693": 0.15}  # A/m, the standards' minimum operating field


def h_axis(a: float, b: float, current: float, turns: int, z: float) -> float:
    """Field strength in A/m at height ``z`` (m) over the middle of an ``a`` x ``b`` (m) loop."""
    r = sqrt(a * a / 4 + b * b / 4 + z * z)
    k = turns * current * a * b / (4 * pi * r)
    return k * (1 / (a * a / 4 + z * z) + 1 / (b * b / 4 + z * z))


def _segment(ax: float, ay: float, bx: float, by: float, z0: float,
             p: tuple[float, float, float]) -> tuple[float, float, float]:
    """H (per ampere-turn) at ``p`` of the straight wire from (ax, ay) to (bx, by) at
    height z0: H = I / (4 pi) * (r1 x r2) / |r1 x r2|^2 * L . (r1 / |r1| - r2 / |r2|)."""
    r1 = (p[0] - ax, p[1] - ay, p[2] - z0)
    r2 = (p[0] - bx, p[1] - by, p[2] - z0)
    lx, ly = bx - ax, by - ay
    cx = r1[1] * r2[2] - r1[2] * r2[1]
    cy = r1[2] * r2[0] - r1[0] * r2[2]
    cz = r1[0] * r2[1] - r1[1] * r2[0]
    c2 = cx * cx + cy * cy + cz * cz
    if c2 < 1e-18:
        return (0.0, 0.0, 0.0)  # on the wire's line: not a point a tag lies at
    n1 = sqrt(r1[0] ** 2 + r1[1] ** 2 + r1[2] ** 2)
    n2 = sqrt(r2[0] ** 2 + r2[1] ** 2 + r2[2] ** 2)
    k = (lx * (r1[0] / n1 - r2[0] / n2) + ly * (r1[1] / n1 - r2[1] / n2)) / (4 * pi * c2)
    return (k * cx, k * cy, k * cz)


def h_point(rect: tuple[float, float, float, float, float], current: float, turns: int,
            p: tuple[float, float, float]) -> float:
    """|H| in A/m at point ``p`` (x, y, z in m) of the loop ``rect`` (x0, x1, y0, y1 and
    its plane's height z, m): the four sides' Biot-Savart fields added, anywhere (on the
    axis it equals ``h_axis``)."""
    x0, x1, y0, y1, z0 = rect
    hx = hy = hz = 0.0
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)),
                 ((x0, y1), (x0, y0))):
        sx, sy, sz = _segment(a[0], a[1], b[0], b[1], z0, p)
        hx, hy, hz = hx + sx, hy + sy, hz + sz
    return turns * current * sqrt(hx * hx + hy * hy + hz * hz)


def reach(a: float, b: float, current: float, turns: int, hmin: float) -> float:
    """The greatest height (m) over the middle at which H >= ``hmin`` (0 if not even at 0)."""
    if h_axis(a, b, current, turns, 0.0) < hmin:
        return 0.0
    lo, hi = 0.0, 2.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if h_axis(a, b, current, turns, mid) >= hmin:
            lo = mid
        else:
            hi = mid
    return lo


# (name, a m, b m, turns, coil current A rms, tag standard)
ANTENNAS = (
    ("RC522 module PCB antenna, 40 x 35 mm", 0.040, 0.035, 4, 0.030, "iso14443"),
    ("trick, 100 x 140 mm, MFRC522 (rev A)", 0.100, 0.140, 2, 0.060, "iso14443"),
    ("table segment, 140 x 160 mm, MFRC522 (rev A)", 0.140, 0.160, 2, 0.060, "iso14443"),
    ("floor mat, 500 x 400 mm, MFRC522", 0.500, 0.400, 1, 0.060, "iso14443"),
    ("trick, 100 x 140 mm, PN5180 + SLIX2 (rev B)", 0.100, 0.140, 2, 0.150, "iso15693"),
    ("table segment, 140 x 160 mm, PN5180 + SLIX2 (rev B)", 0.140, 0.160, 2, 0.150, "iso15693"),
    ("floor mat, 500 x 400 mm, PN5180 + SLIX2 (rev B)", 0.500, 0.400, 1, 0.150, "iso15693"),
)


def main() -> None:
    print(f"{'antenna':52} {'H(0) A/m':>9} {'Hmin':>5} {'reach mm':>9}")
    for name, a, b, n, i, std in ANTENNAS:
        h0 = h_axis(a, b, i, n, 0.0)
        print(f"{name:52} {h0:9.2f} {HMIN[std]:5.2f} {reach(a, b, i, n, HMIN[std]) * 1000:9.0f}")


if __name__ == "__main__":
    main()
