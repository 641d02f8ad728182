"""The irregular-board generator (the measuring stick of issue 13): its boards are
whole, physically consistent journals, deterministic per seed, and each irregularity
it claims to inject is in the journal. Whether the engine rules them well is
tests/test_storm.py's question, not this file's."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from tablesense.contract.events import parse_event
from tablesense.contract.vocab import SEATS
from tablesense.proving.irregular import CODES, INCIDENTS, IRREGULARITIES, irregular_board
from tablesense.proving.storm import judge, render


def test_deterministic_per_seed_and_varied_across_seeds() -> None:
    for code in CODES:
        assert irregular_board(11, code) == irregular_board(11, code)
    journals = {tuple(irregular_board(s, "duplicate-2017").lines()) for s in range(20)}
    assert len(journals) == 20
    kinds = Counter(n.split(":")[0] for s in range(300)
                    for n in irregular_board(s, "auction-1913").injected)
    assert set(kinds) == set(IRREGULARITIES)


@pytest.mark.parametrize("code", CODES)
def test_boards_are_whole_and_consistent(code: str) -> None:
    """Valid journal lines, time never backwards, the code in the board event, every card
    sensed only at its holder's seat, and each card played exactly once by the end."""
    for seed in range(40):
        b = irregular_board(seed, code)
        assert b.events[0]["type"] == "board" and b.events[0]["code"] == code
        whist = any(e["type"] == "declare" for e in b.events)
        assert whist == (code in ("portland-1904", "american-1907"))
        last = 0
        for line in b.lines():
            ev = parse_event(json.loads(line))
            assert ev.t >= last
            last = ev.t
        hands = b.events[1]["hands"]
        holder = {c: s for s, cards in hands.items() for c in cards}
        assert sorted(holder) == sorted(c for cs in hands.values() for c in cs)
        assert len(holder) == 52
        where: dict[str, str] = {}
        for e in b.events:
            if e["type"] == "observe":
                assert holder[e["card"]] == e["seat"], (seed, e)
                where[e["card"]] = f"{e['zone']}/{e['face']}"
        quits = [e for e in b.events if e["type"] == "observe" and e["zone"] == "table"
                 and e["face"] == "down"]
        laid = sum("laid face down" in n for n in b.injected)  # (a card taken back)
        if b.events[-1]["type"] == "claim" or b.claimed:
            assert (len(quits) - laid) % 4 == 0 and len(quits) - laid < 52
        else:
            assert len(quits) == 52 + laid and len({e["card"] for e in quits}) == 52, seed
            assert set(where.values()) == {"table/down"}, seed
            assert b.truth[-1] == (13, ())


@pytest.mark.parametrize("kind", IRREGULARITIES)
def test_each_irregularity_is_injected_under_every_code(kind: str) -> None:
    for code in CODES:
        boards = [irregular_board(seed, code, kinds=[kind]) for seed in range(30)]
        hit = [b for b in boards if any(n.startswith(kind + ":") for n in b.injected)]
        rare = ("early-lead", "lead-before-option", "pc-suit-revoke",  # (a moment to find)
                "premature-taken-back")
        assert len(hit) >= (15 if kind in rare else 25), (code, kind)
        assert all(b.incidents == INCIDENTS[kind] for b in hit)
        assert all(b.incidents == len(b.injected) for b in boards)


def test_irregularities_show_in_the_journal() -> None:
    """Spot checks of the shapes of docs/contract.md: a revoke corrected goes back from the trick
    to the hand; cards played together arrive 50 ms apart; a refused lead gets its
    ``decide``; a premature card is one more trick arrival before its turn."""
    def events(kind: str, code: str = "duplicate-2017") -> list[dict[str, object]]:
        b = next(b for s in range(50) if (b := irregular_board(s, code, kinds=[kind])).incidents)
        return list(b.events)

    ev = events("revoke-corrected")
    moves = [(e["card"], e["zone"], e["face"]) for e in ev if e["type"] == "observe"]
    back = [c for i, (c, z, f) in enumerate(moves) if z == "trick" and any(
        c2 == c and (z2, f2) in (("hand", "down"), ("table", "up")) for c2, z2, f2 in moves[i:])]
    assert back, "no card went back from the trick"
    ev = events("together")
    assert any(e["type"] == "observe" and f["type"] == "observe" and e["zone"] == f["zone"]
               == "trick" and e["seat"] == f["seat"] and int(str(f["t"])) - int(str(e["t"]))
               == 50 for e, f in pairwise(ev))
    opts = {str(e["option"]) for s in range(40)
            for e in irregular_board(s, "duplicate-2017", kinds=["lead-out-of-turn"]).events
            if e["type"] == "decide"}
    assert {"accept-lead", "refuse-lead"} <= opts
    old = {str(e["option"]) for s in range(40)
           for e in irregular_board(s, "auction-1929", kinds=["opening-lead-out-of-turn"]).events
           if e["type"] == "decide"}
    assert old == {"require-lead-suit"}


def test_a_clean_board_stays_in_step_and_within_the_bound() -> None:
    for code in CODES:
        for seed in range(10):
            v = judge(irregular_board(seed, code, kinds=[]))
            assert v.board.incidents == 0 and v.bound == 3
            assert v.alerts == () and v.drift is None and v.ended and not v.storm


def test_render_is_what_the_replay_command_prints(tmp_path: Path) -> None:
    for seed, code in enumerate(CODES):
        b = irregular_board(seed, code)
        path = tmp_path / f"{code}.jsonl"
        path.write_text("".join(x + "\n" for x in b.lines()))
        out = subprocess.run([str(Path(sys.executable).parent / "tablesense"), "replay", str(path)],
                             capture_output=True, check=True).stdout
        assert out == render(b.lines())
        assert {s for e in b.events if e["type"] == "observe" for s in [e["seat"]]} <= set(SEATS)


def test_a_substitution_after_a_corrected_revoke_is_never_itself_a_revoke() -> None:
    """Seed 60 (duplicate-2017): N's S5 was his last spade; the generator let him take it
    back after W's revoke was corrected and play the D9 instead, a revoke it did not
    name (and the engine rightly ruled). He now keeps the S5 in the trick."""
    board = irregular_board(60, "duplicate-2017", mix="first")
    assert board.injected == ("revoke-corrected: W played D8 on a S lead at trick 4, "
                              "corrected with 4 cards in the trick",)
    subs = 0
    for seed in range(600):
        b = irregular_board(seed, "duplicate-2017", kinds=["revoke-corrected"])
        if any("took back" in n for n in b.injected):
            subs += 1
            assert not any(r.kind == "revoke" for r in judge(b).alerts), (seed, b.injected)
    assert subs >= 5


def test_the_fourth_hand_after_an_early_lead_plays_his_penalty_card_when_due() -> None:
    """Seed 1359 (duplicate-2017): N's CJ is a major penalty card and clubs are led; S
    leads early to the next trick and N, fourth hand, must still play the CJ (Law 50D1).
    The generator let him play the C6, a failure to play a penalty card it did not
    name (and the engine rightly ruled)."""
    v = judge(irregular_board(1359, "duplicate-2017", mix="first"))
    assert [(r.kind, r.cards) for r in v.alerts] == [("major-penalty-card", ("CJ",))]
