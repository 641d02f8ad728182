"""Which of a table's loops may carry a field at the same moment: the coupling model.

    python3 hardware/coupling.py

Two 13.56 MHz carriers on at once disturb each other only where both are
strong: a tag over loop B decodes B's commands as long as the field of
another loop A at that tag is a small fraction of B's own, and A's field
powers nothing there. The table's loops (section 3 of hardware/README.md, on
a 900 mm square top, each seat's layout turned by 90 degrees; the floor mat
750 mm under the top) are driven at the current that gives each its design
reach (25 mm for the sense mat's loops, 150 mm for the floor mat, ICODE
SLIX2: Hmin 0.15 A/m). For each pair, at every point a tag can lie over
either loop (a grid over the loop, 2 mm and 25 mm up; 2 and 150 mm over the
floor mat), the foreign field is compared with the loop's own, by the full
Biot-Savart field of each loop's four sides (``field.h_point``):

    couple(A, B) = max over B's tag points of |H_A| / |H_B|, and the same with A, B swapped

Two loops may be on together when that ratio is at most ``LIMIT`` (5 %, -26
dB: the residual carrier ISO/IEC 14443-2 allows in a 100 % ASK pause, taken
here as the bound for ISO/IEC 15693's 100 % ASK too) and the foreign field
stays under a third of the tags' Hmin (it powers no tag there). Both are
assumptions of the design until measurement M5 (hardware/README.md) checks
them on a real mat. ``firmware/sim/layout.py`` holds the result for the
simulator's air (``tests/test_field_coupling.py`` keeps the two equal).
"""

from __future__ import annotations

from field import HMIN, h_axis, h_point

TABLE_MM = 900.0
FLOOR_MM = -750.0  # the floor mat's plane, under the sense mat's
LIMIT = 0.05  # |H_foreign| / |H_own| at a tag: 100 % ASK pauses stay clean
POWER_SHARE = 1 / 3  # |H_foreign| under this share of Hmin: it powers no tag
SEATS = "NESW"
REACH_MM = {"trick": 25.0, "table": 25.0, "floor": 150.0}
TURNS = {"trick": 2, "table": 2, "floor": 1}
# A seat's loops as South sees them: (zone, u0, u1, v0, v1) in mm, u along the table
# edge from the seat's left, v in from the edge (README section 3; the table loops lie
# with their 160 mm side along the edge, the floor mat half under the top).
SEAT_LOOPS = (
    ("trick", 400.0, 500.0, 200.0, 340.0),
    ("table", 275.0, 435.0, 40.0, 180.0),
    ("table", 465.0, 625.0, 40.0, 180.0),
    ("floor", 200.0, 700.0, -200.0, 200.0),
)

Loop = tuple[str, str, tuple[float, float, float, float], float, float]
"""(seat, zone, (x0, x1, y0, y1) mm on the table, plane z mm, current A)"""


def _turn(seat: str, u: float, v: float) -> tuple[float, float]:
    w = TABLE_MM
    return {"S": (u, v), "N": (w - u, w - v), "E": (w - v, u), "W": (v, w - u)}[seat]


def current_for(zone: str, a: float, b: float) -> float:
    """The coil current (A) that gives ``zone``'s design reach on the loop's axis."""
    return HMIN["iso15693"] / h_axis(a, b, 1.0, TURNS[zone], REACH_MM[zone] / 1000)


def loops() -> list[Loop]:
    out: list[Loop] = []
    for seat in SEATS:
        for zone, u0, u1, v0, v1 in SEAT_LOOPS:
            (xa, ya), (xb, yb) = _turn(seat, u0, v0), _turn(seat, u1, v1)
            rect = (min(xa, xb), max(xa, xb), min(ya, yb), max(ya, yb))
            z = FLOOR_MM if zone == "floor" else 0.0
            amps = current_for(zone, (u1 - u0) / 1000, (v1 - v0) / 1000)
            out.append((seat, zone, rect, z, amps))
    return out


def _field(loop: Loop, p: tuple[float, float, float]) -> float:
    _, zone, (x0, x1, y0, y1), z, amps = loop
    return h_point((x0 / 1000, x1 / 1000, y0 / 1000, y1 / 1000, z / 1000), amps, TURNS[zone],
                   (p[0] / 1000, p[1] / 1000, p[2] / 1000))


def tag_points(loop: Loop, n: int = 5) -> list[tuple[float, float, float]]:
    """Where a tag read by ``loop`` can lie: an n x n grid inside it, at two heights."""
    _, zone, (x0, x1, y0, y1), z, _ = loop
    ups = (2.0, REACH_MM[zone])
    return [(x0 + (x1 - x0) * (i + 0.5) / n, y0 + (y1 - y0) * (j + 0.5) / n, z + h)
            for i in range(n) for j in range(n) for h in ups]


def one_way(a: Loop, b: Loop) -> tuple[float, float]:
    """(max |H_a| / |H_b|, max |H_a| in A/m) over the tags ``b`` reads."""
    ratio = worst = 0.0
    for p in tag_points(b):
        ha = _field(a, p)
        ratio = max(ratio, ha / _field(b, p))
        worst = max(worst, ha)
    return ratio, worst


def couple(a: Loop, b: Loop) -> tuple[float, float]:
    r1, h1 = one_way(a, b)
    r2, h2 = one_way(b, a)
    return max(r1, r2), max(h1, h2)


def decoupled(a: Loop, b: Loop) -> bool:
    ratio, h = couple(a, b)
    return ratio <= LIMIT and h < POWER_SHARE * HMIN["iso15693"]


def antenna_pairs() -> dict[tuple[str, str, str, str], tuple[float, float]]:
    """For every two antennas of different seats, (seat, zone, seat, zone) ->
    (worst ratio, worst foreign field) over the loops of those zones (a seat's two
    table loops are one antenna zone: the worse of them counts)."""
    ls = loops()
    out: dict[tuple[str, str, str, str], tuple[float, float]] = {}
    for i, a in enumerate(ls):
        for b in ls[i + 1:]:
            if a[0] == b[0]:
                continue  # one seat: one field at a time anyway (the multiplexer)
            key = (a[0], a[1], b[0], b[1]) if (a[0], a[1]) < (b[0], b[1]) else \
                (b[0], b[1], a[0], a[1])
            r, h = couple(a, b)
            old = out.get(key, (0.0, 0.0))
            out[key] = (max(old[0], r), max(old[1], h))
    return out


def coupled_pairs() -> set[tuple[str, str, str, str]]:
    """The antenna pairs that must not be on together."""
    return {k for k, (r, h) in antenna_pairs().items()
            if r > LIMIT or h >= POWER_SHARE * HMIN["iso15693"]}


def main() -> None:
    for seat, zone, rect, z, amps in loops():
        if seat == "S":
            print(f"{zone:6} {rect[1] - rect[0]:.0f} x {rect[3] - rect[2]:.0f} mm "
                  f"at z {z:.0f} mm: {amps * 1000:.1f} mA for a {REACH_MM[zone]:.0f} mm reach")
    print(f"\n{'pair':28} {'|H_other|/|H_own|':>18} {'dB':>6} {'H_other A/m':>12}  on together")
    bad = coupled_pairs()
    for key, (r, h) in sorted(antenna_pairs().items()):
        name = f"{key[0]} {key[1]} + {key[2]} {key[3]}"
        db = 20 * __import__("math").log10(r) if r > 0 else -999.0
        print(f"{name:28} {r:18.4f} {db:6.1f} {h:12.4f}  {'no' if key in bad else 'yes'}")


if __name__ == "__main__":
    main()
