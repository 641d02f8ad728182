"""Hand records (PBN 2.1) and Law 2's dealer and vulnerability by board number."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesense.contract.boards import dealer_of, vul_of
from tablesense.contract.cards import ALL_CARDS
from tablesense.contract.handrecords import (
    HandRecordError,
    load_hand_records,
    parse_deal,
    parse_pbn,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hands.pbn"
DEAL = "N:AJ432.Q87.KT.AKJ 765.AJT3.J3.9732 8.K64.Q9764.QT86 KQT9.952.A852.54"


def test_law_2_dealer_and_vulnerability_run_through_sixteen_boards() -> None:
    # the table printed with the Laws: each group of four boards starts one seat round
    want = {1: ("N", "None"), 2: ("E", "NS"), 3: ("S", "EW"), 4: ("W", "All"),
            5: ("N", "NS"), 6: ("E", "EW"), 7: ("S", "All"), 8: ("W", "None"),
            9: ("N", "EW"), 10: ("E", "All"), 11: ("S", "None"), 12: ("W", "NS"),
            13: ("N", "All"), 14: ("E", "None"), 15: ("S", "NS"), 16: ("W", "EW")}
    for n, dv in want.items():
        assert (dealer_of(n), vul_of(n)) == dv
        assert (dealer_of(n + 16), vul_of(n + 16)) == dv
    # each seat deals each vulnerability once in a cycle
    assert len({(dealer_of(n), vul_of(n)) for n in range(1, 17)}) == 16
    with pytest.raises(ValueError, match="start at 1"):
        dealer_of(0)


def test_the_example_file_gives_four_boards() -> None:
    recs = load_hand_records(EXAMPLE)
    assert sorted(recs.boards) == [1, 2, 3, 4]
    b1 = recs.boards[1]
    assert (b1.dealer, b1.vul) == ("N", "None")
    assert b1.hands["N"][:5] == ("SA", "SJ", "S4", "S3", "S2")
    # board 4 names neither: Law 2 gives West and All
    assert (recs.boards[4].dealer, recs.boards[4].vul) == ("W", "All")
    for rec in recs.boards.values():
        assert sorted(c for h in rec.hands.values() for c in h) == sorted(ALL_CARDS)
        assert all(len(h) == 13 for h in rec.hands.values())


def test_endplay_reads_the_same_deals_from_the_example() -> None:
    pytest.importorskip("endplay", reason="the dd extra is not installed")
    from endplay.parsers import pbn

    ours = load_hand_records(EXAMPLE).boards
    with EXAMPLE.open() as f:
        theirs = pbn.load(f)
    assert sorted(b.board_num for b in theirs) == sorted(ours)
    vuls = {0: "None", 1: "All", 2: "NS", 3: "EW"}
    for b in theirs:
        rec = ours[b.board_num]
        assert "NESW"[int(b.dealer)] == rec.dealer
        assert vuls[int(b.vul)] == rec.vul
        for i, seat in enumerate("NESW"):
            hand = b.deal[i]
            cards = {f"{'SHDC'[int(c.suit)]}{c.rank.abbr}" for c in hand}
            assert cards == set(rec.hands[seat]), (b.board_num, seat)  # type: ignore[index]


def test_the_first_seat_of_a_deal_rotates_the_hands() -> None:
    north_first = parse_deal(DEAL)
    hands = DEAL[2:].split()
    west_first = parse_deal("W:" + " ".join([hands[3], *hands[:3]]))
    assert west_first == north_first
    assert parse_deal("e:" + " ".join([hands[1], hands[2], hands[3], hands[0]]).lower()) \
        == north_first


def test_comments_escapes_strings_and_inheritance_are_skipped_exactly() -> None:
    text = "\n".join([
        "% PBN 2.1",
        '%[Board "99"] an escape line is no tag',
        '[Event "The \\"Tuesday\\" pairs [club]"] ; [Board "98"] a comment',
        '[Board "7"]',
        "{ a comment across lines,",
        "",
        '  [Board "97"] with an empty line in it }',
        '[Dealer "W"]',
        '[Vulnerable "Both"]',
        f'[Deal "{DEAL}"]',
        '[Auction "W"]',
        '1S Pass 2S Pass "a string with [Board \\"96\\"]" =1= Pass',
        "",
        '[Board "8"]',
        '[Dealer "#"]',
        '[Vulnerable "-"]',
        '[Deal "#"]',
        '[Board "9"]',  # repeated within a game: ignored, as PBN says
        "",
        '[Event "a game with no deal: no hand record"]',
        "",
    ])
    recs = parse_pbn(text, "t.pbn").boards
    assert sorted(recs) == [7, 8]
    assert (recs[7].dealer, recs[7].vul, recs[7].line) == ("W", "All", 3)
    assert (recs[8].dealer, recs[8].vul) == ("W", "None")
    assert recs[8].hands == recs[7].hands == parse_deal(DEAL)


@pytest.mark.parametrize(("text", "where"), [
    (f'[Board "1"]\n[Deal "{DEAL.replace("AJ432", "AJ43A")}"]',
     "t.pbn:2: Deal: the SA is dealt twice"),
    (f'[Board "1"]\n[Deal "{DEAL.replace("AJ432", "AJ43")}"]', "t.pbn:2: Deal: North holds 12"),
    (f'[Board "1"]\n[Deal "{DEAL.replace("AJ432", "AJ43X")}"]', "t.pbn:2: Deal: North's hand"),
    ('[Board "1"]\n[Deal "N:AKQ.. ..."]', "t.pbn:2: Deal: expected four hands"),
    (f'[Board "1"]\n[Deal "X{DEAL[1:]}"]', "t.pbn:2: Deal: expected '<first seat>:'"),
    (f'[Board "1"]\n[Dealer "Q"]\n[Deal "{DEAL}"]', "t.pbn:2: Dealer: expected N, E, S or W"),
    (f'[Board "1"]\n[Vulnerable "Red"]\n[Deal "{DEAL}"]', "t.pbn:2: Vulnerable: expected"),
    (f'[Board "one"]\n[Deal "{DEAL}"]', "t.pbn:1: Board: expected a board number"),
    (f'[Event "x"]\n\n[Deal "{DEAL}"]', "t.pbn:3: Board: missing"),
    (f'[Board "1"]\n[Deal "{DEAL}"]\n\n[Board "1"]\n[Deal "{DEAL}"]',
     "t.pbn:4: Board: board 1 again (first at line 1)"),
    (f'[Board "1"]\n{{ never closed\n[Deal "{DEAL}"]', "t.pbn:2: (comment): a { comment"),
    ('[Board "1]\n', "t.pbn:1: Board: a string is not closed"),
    ('[Board "1"\n', "t.pbn:1: Board: expected ']'"),
    (f'[Board "1"]\n[Dealer "#"]\n[Deal "{DEAL}"]', "t.pbn:2: Dealer: '#'"),
    ('; only a comment\n', "t.pbn: no game with a Deal tag"),
])
def test_every_error_names_the_file_the_line_and_the_tag(text: str, where: str) -> None:
    with pytest.raises(HandRecordError) as err:
        parse_pbn(text, "t.pbn")
    assert str(err.value).startswith(where), str(err.value)


def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(HandRecordError, match=r"missing\.pbn: cannot read"):
        load_hand_records(tmp_path / "missing.pbn")
