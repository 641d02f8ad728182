"""Duplicate scoring (2017 Law 77, the Duplicate Bridge Scoring Table): pure arithmetic.

A finished board's score for declarer's side from the contract, the doubling,
declarer's vulnerability and the tricks declarer took; the board-result
message (daemon/results.py) gives it to the scorers from North-South's side.

>>> score(4, "S", 0, vulnerable=False, tricks=10)
420
>>> score(3, "N", 0, vulnerable=True, tricks=10)
630
>>> score(4, "H", 1, vulnerable=True, tricks=7)
-800
>>> score(1, "C", 2, vulnerable=False, tricks=8)
430
>>> score(7, "N", 0, vulnerable=True, tricks=13)
2220
"""

from __future__ import annotations

from typing import Final

TRICK_VALUE: Final = {"C": 20, "D": 20, "H": 30, "S": 30, "N": 30}
NT_FIRST_TRICK_EXTRA: Final = 10  # no trumps: 40 for the first odd trick, 30 after
BOOK: Final = 6


class ScoringError(ValueError):
    """A contract or a trick count that no board can have; names the value at fault."""


def _check(level: int, strain: str, doubled: int, tricks: int) -> None:
    if not 1 <= level <= 7:
        raise ScoringError(f"level: expected 1 to 7, got {level!r}")
    if strain not in TRICK_VALUE:
        raise ScoringError(f"strain: expected one of C, D, H, S, N, got {strain!r}")
    if doubled not in (0, 1, 2):
        raise ScoringError(f"doubled: expected 0, 1 or 2, got {doubled!r}")
    if not 0 <= tricks <= 13:
        raise ScoringError(f"tricks: expected 0 to 13, got {tricks!r}")


def trick_points(level: int, strain: str, doubled: int) -> int:
    """The contract's trick score (Law 77: odd tricks bid and made), doubling included.

    >>> trick_points(3, "N", 0), trick_points(2, "S", 1), trick_points(1, "D", 2)
    (100, 120, 80)
    """
    points = level * TRICK_VALUE[strain] + (NT_FIRST_TRICK_EXTRA if strain == "N" else 0)
    return points * (1, 2, 4)[doubled]


def undertrick_penalty(down: int, doubled: int, vulnerable: bool) -> int:
    """What the defenders score for ``down`` undertricks (a positive number).

    Undoubled 50 a trick (100 vulnerable); doubled, not vulnerable, 100 for the
    first, 200 for the second and third, 300 each after; doubled vulnerable 200
    for the first, 300 each after; redoubled, twice the doubled figure.

    >>> [undertrick_penalty(n, 1, False) for n in (1, 2, 3, 4, 5)]
    [100, 300, 500, 800, 1100]
    >>> [undertrick_penalty(n, 1, True) for n in (1, 2, 3)]
    [200, 500, 800]
    >>> undertrick_penalty(2, 0, True), undertrick_penalty(2, 2, False)
    (200, 600)
    """
    if down <= 0:
        return 0
    if doubled == 0:
        return down * (100 if vulnerable else 50)
    total = 0
    for n in range(1, down + 1):
        if vulnerable:
            total += 200 if n == 1 else 300
        else:
            total += 100 if n == 1 else 200 if n <= 3 else 300
    return total * doubled  # redoubled: twice the doubled penalty


def score(level: int, strain: str, doubled: int, vulnerable: bool, tricks: int) -> int:
    """Declarer's side's score: positive when the contract made, negative when it failed.

    ``doubled`` is 0, 1 (doubled) or 2 (redoubled); ``tricks`` the tricks
    declarer took of the 13.
    """
    _check(level, strain, doubled, tricks)
    need = BOOK + level
    if tricks < need:
        return -undertrick_penalty(need - tricks, doubled, vulnerable)
    contract = trick_points(level, strain, doubled)
    over = tricks - need
    if doubled == 0:
        overtricks = over * TRICK_VALUE[strain]
    else:
        overtricks = over * (200 if vulnerable else 100) * doubled
    insult = (0, 50, 100)[doubled]  # for making a doubled or redoubled contract
    game = (500 if vulnerable else 300) if contract >= 100 else 50
    slam = 0
    if level == 6:
        slam = 750 if vulnerable else 500
    elif level == 7:
        slam = 1500 if vulnerable else 1000
    return contract + overtricks + insult + game + slam


def is_vulnerable(vul: str | None, seat: str) -> bool:
    """Is ``seat``'s side vulnerable under the board's vulnerability (None, NS, EW, All)?

    >>> is_vulnerable("NS", "S"), is_vulnerable("NS", "E"), is_vulnerable("All", "W")
    (True, False, True)
    """
    if vul == "All":
        return True
    if vul in ("NS", "EW"):
        return seat in vul
    if vul in (None, "None"):
        return False
    raise ScoringError(f"vul: expected None, NS, EW or All, got {vul!r}")


def ns_score(level: int, strain: str, doubled: int, declarer: str, vul: str | None,
             tricks: int) -> int:
    """The board's score from North-South's side, as a travelling score sheet writes it.

    >>> ns_score(4, "S", 0, "E", "EW", 10)
    -620
    >>> ns_score(3, "N", 1, "N", "None", 8)
    -100
    """
    points = score(level, strain, doubled, is_vulnerable(vul, declarer), tricks)
    return points if declarer in ("N", "S") else -points
