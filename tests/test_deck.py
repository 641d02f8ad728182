"""``tablesense deck``: deck files, and enrolment and verification against the real
firmware in the MicroPython VM behind a pty: the table build (a simulated PN5180 and
ICODE SLIX2 tags, ISO/IEC 15693 blocks written and locked) and the bench build
(simulated MFRC522s and NTAG213 tags)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablesense.contract import decks
from tablesense.sim.firmware import find_micropython, start_reader

FW = Path(__file__).resolve().parents[1] / "firmware"
sys.path.insert(0, str(FW))
from sim.tags import card_uid, card_uid15693  # noqa: E402

DECK = decks.DECK
CLI = [sys.executable, "-m", "tablesense.cli", "deck"]
CHIPS = ["pn5180", "mfrc522"]


def uid(card: str, chip: str = "pn5180") -> str:
    return (card_uid15693(card) if chip == "pn5180" else card_uid(card)).hex().upper()


def test_deck_files_round_trip_and_errors_name_file_line_field(tmp_path: Path) -> None:
    d = decks.Deck(4, {uid("HT"): "HT", uid("SA"): "SA"})
    back = decks.parse(d.text(), "x")
    assert back.deck_id == 4 and back.cards == d.cards
    assert d.text().splitlines() == ["# deck 4", f"{uid('SA')} SA", f"{uid('HT')} HT"]
    with pytest.raises(decks.DeckError, match=r"f.txt:2: card: 'ZZ'"):
        decks.parse("# deck 1\n04A1B2C3D4E5F6 ZZ\n", "f.txt")
    with pytest.raises(decks.DeckError, match=r"f.txt:1: uid: 'XYZ'"):
        decks.parse("XYZ SA\n", "f.txt")
    with pytest.raises(decks.DeckError, match=r"f.txt:2: uid: .* listed twice"):
        decks.parse("04A1B2C3D4E5F6 SA\n04a1b2c3d4e5f6 SK\n", "f.txt")
    with pytest.raises(decks.DeckError, match=r"nope\.txt"):
        decks.load(tmp_path / "nope.txt")


def test_verify_names_missing_duplicate_foreign_and_mismatched() -> None:
    d = decks.Deck(7, {uid(c): c for c in DECK})
    tags = [decks.Tag(uid(c), c, 7, True) for c in DECK[:50]]
    tags.append(decks.Tag(uid("C3"), "SA", 7, True))  # a second SA, where C3 should be
    tags.append(decks.Tag(uid("C2"), "C2", 8, True))  # board 8's C2 in board 7's deck
    v = decks.verify(d, tags)
    assert v.missing == ["C3", "C2"]
    assert v.duplicates == {"SA": sorted([uid("SA"), uid("C3")])}
    assert [t.uid for t in v.foreign] == [uid("C2")]
    assert [t.uid for t in v.mismatched] == [uid("C3")]
    assert not v.ok
    assert decks.verify(d, [decks.Tag(uid(c), c, 7, True) for c in DECK]).ok


def test_list_shows_each_deck_file(tmp_path: Path) -> None:
    (tmp_path / "deck-1.txt").write_text(decks.Deck(1, {uid(c): c for c in DECK}).text())
    (tmp_path / "deck-2.txt").write_text(decks.Deck(2, {uid("SA"): "SA"}).text())
    (tmp_path / "bad.txt").write_text("nonsense line here\n")
    r = subprocess.run([*CLI, "list", str(tmp_path)], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 1 and "bad.txt:1: want UID CARD" in r.stderr
    assert r.stdout.splitlines() == ["deck-1.txt: deck 1, 52 cards, complete",
                                     "deck-2.txt: deck 2, 1 cards, 51 missing"]


# -- against the firmware in the VM -----------------------------------------------------

def _vm() -> None:
    try:
        find_micropython()
    except RuntimeError:
        pytest.skip("no MicroPython VM")


@pytest.mark.parametrize("chip", CHIPS)
def test_enroll_writes_and_locks_each_new_tag_and_verify_reads_them_back(
        tmp_path: Path, chip: str) -> None:
    _vm()
    physical = ["HA", "D7", "C9", "S4"]  # blank tags laid on the table one after another
    scen = tmp_path / "blank.jsonl"
    scen.write_text("".join(
        json.dumps({"t": 400 + 700 * i, "seat": "N", "card": c, "zone": "table",
                    "blank": True}) + "\n" for i, c in enumerate(physical)))
    out = tmp_path / "deck-7.txt"
    r = start_reader("N", scen, chip=chip)
    try:
        done = subprocess.run([*CLI, "enroll", r.port, "--deck", "7", "--cards",
                               "SA,SK,SQ,SJ", "-o", str(out), "--timeout", "30"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr + r.log
        assert "place SA on the reader" in done.stderr
        d = decks.load(out)
        assert d.deck_id == 7
        # each blank tag became one of the four cards (in the order laid, unless a loaded
        # machine let two of them arrive before the reader was in enrolment mode)
        assert sorted(d.cards) == sorted(uid(p, chip) for p in physical)
        assert sorted(d.cards.values()) == sorted(["SA", "SK", "SQ", "SJ"])
        # the tags now say so themselves: read back through the reader
        v = subprocess.run([*CLI, "verify", r.port, str(out), "--seconds", "4", "--json"],
                           capture_output=True, text=True, timeout=60)
        got = json.loads(v.stdout)
        assert v.returncode == 1 and got["seen"] == 4  # 48 cards of the deck are not here
        assert got["missing"] == list(DECK[4:]) and got["duplicates"] == {}
        assert got["foreign"] == [] and got["mismatched"] == []
        # and they are locked: enrolling them into another deck is refused
        again = subprocess.run([*CLI, "enroll", r.port, "--deck", "8", "--cards", "SA",
                                "-o", str(tmp_path / "d8.txt"), "--timeout", "3"],
                               capture_output=True, text=True, timeout=60)
        assert again.returncode == 1
        first = next(u for u, c in d.cards.items() if c == "SA")
        assert f"tag {first} is locked as SA of deck 7" in again.stderr
    finally:
        r.stop()


@pytest.mark.parametrize("chip", CHIPS)
def test_verify_a_whole_deck_with_a_stranger_and_a_double(tmp_path: Path, chip: str) -> None:
    _vm()
    file = tmp_path / "deck-7.txt"
    file.write_text(decks.Deck(7, {uid(c, chip): c for c in DECK}).text())
    lines = []
    zones = ("trick", "table", "floor")
    for i, c in enumerate(DECK[:50]):  # spread over the three antennas
        lines.append({"t": 0, "seat": "N", "card": c, "zone": zones[i % 3], "deck": 7})
    lines.append({"t": 0, "seat": "N", "card": "C3", "zone": "trick", "deck": 7, "as": "SA"})
    lines.append({"t": 0, "seat": "N", "card": "C2", "zone": "table", "deck": 8})
    scen = tmp_path / "deck.jsonl"
    scen.write_text("".join(json.dumps(x) + "\n" for x in lines))
    r = start_reader("N", scen, chip=chip)
    try:
        v = subprocess.run([*CLI, "verify", r.port, str(file), "--seconds", "6"],
                           capture_output=True, text=True, timeout=60)
    finally:
        r.stop()
    assert v.returncode == 1, v.stderr
    out = v.stdout.splitlines()
    assert out[0] == "deck 7: 52 tags seen, 50 of 52 cards"
    assert "missing: C3 C2" in out
    both = ", ".join(sorted([uid("SA", chip), uid("C3", chip)]))
    assert f"duplicate: SA in tags {both}" in out
    assert f"foreign: tag {uid('C2', chip)} (C2 of deck 8)" in out
    assert f"mismatched: tag {uid('C3', chip)} holds SA; the file says C3" in out
    assert out[-1] == "not ok"
