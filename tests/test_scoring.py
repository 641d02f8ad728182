"""Duplicate scoring (laws/scoring.py) against the figures of Law 77's table."""

from __future__ import annotations

import pytest

from tablesense.laws.scoring import ScoringError, is_vulnerable, ns_score, score

# (level, strain, doubled, vulnerable, tricks, declarer's score): a travelling score sheet
CASES = [
    (1, "N", 0, False, 7, 90),
    (2, "S", 0, False, 8, 110),
    (2, "H", 0, True, 9, 140),  # an overtrick undoubled: the trick's value
    (3, "N", 0, False, 9, 400),
    (3, "N", 0, True, 10, 630),
    (4, "S", 0, False, 10, 420),
    (4, "S", 0, True, 10, 620),
    (5, "D", 0, False, 11, 400),
    (5, "C", 0, True, 11, 600),
    (6, "N", 0, False, 12, 990),
    (6, "S", 0, True, 12, 1430),
    (7, "N", 0, True, 13, 2220),
    (7, "C", 0, False, 13, 1440),
    (1, "C", 1, False, 7, 140),  # doubled into a part score: 40 + 50 + 50
    (1, "C", 2, False, 7, 230),  # redoubled: 80 + 100 + 50
    (2, "S", 1, False, 8, 470),  # doubled into game
    (1, "N", 1, True, 8, 380),  # doubled overtrick vulnerable: 200
    (1, "N", 2, False, 9, 960),  # redoubled into game, two overtricks not vulnerable: 2 x 200
    (7, "N", 2, True, 13, 2980),
    (4, "S", 0, False, 9, -50),
    (4, "S", 0, True, 7, -300),
    (3, "N", 1, False, 8, -100),
    (3, "N", 1, False, 7, -300),
    (3, "N", 1, False, 6, -500),
    (4, "H", 1, False, 6, -800),  # the fourth undertrick doubled: 300
    (4, "H", 1, True, 8, -500),
    (4, "H", 1, True, 7, -800),
    (4, "H", 2, True, 8, -1000),
    (7, "N", 2, True, 0, -7600),
]


@pytest.mark.parametrize(("level", "strain", "doubled", "vul", "tricks", "expected"), CASES)
def test_score_matches_the_table(level: int, strain: str, doubled: int, vul: bool,
                                 tricks: int, expected: int) -> None:
    assert score(level, strain, doubled, vul, tricks) == expected


def test_north_south_view_and_vulnerability() -> None:
    assert ns_score(4, "S", 0, "N", "NS", 10) == 620
    assert ns_score(4, "S", 0, "W", "NS", 10) == -420  # East-West not vulnerable
    assert ns_score(4, "S", 0, "W", "NS", 9) == 50
    assert ns_score(3, "N", 0, "E", "All", 9) == -600
    assert [is_vulnerable(v, "E") for v in ("None", "NS", "EW", "All")] == \
        [False, False, True, True]


@pytest.mark.parametrize(("args", "field"), [
    ((0, "S", 0, False, 7), "level"), ((8, "S", 0, False, 7), "level"),
    ((1, "X", 0, False, 7), "strain"), ((1, "S", 3, False, 7), "doubled"),
    ((1, "S", 0, False, 14), "tricks"),
])
def test_impossible_input_names_the_field(args: tuple[int, str, int, bool, int],
                                          field: str) -> None:
    with pytest.raises(ScoringError, match=rf"^{field}: "):
        score(*args)
    with pytest.raises(ScoringError, match=r"^vul: "):
        is_vulnerable("both", "N")
