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
