"""The hand-written PBN and LIN export read back by another program: endplay's parsers.

docs/dashboard.md ("PBN and LIN: endplay's writers or ours") weighs endplay's
writers against tablesense.documents.export and keeps ours (they carry the rulings as
comments, irregular boards and no heavy dependency); this checks that what we
write is what another program reads: the same deals, auctions, plays and
contracts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablesense.documents.export import export_lines, export_text

pytest.importorskip("endplay", reason="the dd extra is not installed")
from endplay.parsers import lin, pbn

ROBOT = Path(__file__).resolve().parent.parent / "examples" / "journals" / "robot-table.jsonl"


def ours() -> list[tuple[str, int, int, str | None]]:
    boards = export_lines(ROBOT.read_text().splitlines()).boards
    out = []
    for b in boards:
        deal = "N:" + " ".join(".".join("".join(c[1] for c in sorted(
            (x for x in b.deal[s] if x[0] == suit), key=lambda x: "AKQJT98765432".index(x[1])))
            for suit in "SHDC") for s in "NESW")
        out.append((deal, len(b.calls), sum(len(t) for t in b.tricks), b.contract))
    return out


def theirs(boards: list[object]) -> list[tuple[str, int, int, str | None]]:
    out = []
    for b in boards:
        c = b.contract  # type: ignore[attr-defined]
        contract = None if c is None else f"{c.level}{'SHDCN'[c.denom.value]}"
        out.append((b.deal.to_pbn(), len(b.auction), len(b.play), contract))  # type: ignore[attr-defined]
    return out


def test_endplay_reads_our_lin() -> None:
    text, errors = export_text(ROBOT.read_text().splitlines(), "lin")
    assert errors == []
    assert theirs(lin.loads(text)) == ours()


def test_endplay_reads_our_pbn_without_its_comments() -> None:
    # endplay's reader does not take a {comment} between the cards of a trick (PBN
    # commentary, where our rulings go): without them it reads every board
    text, errors = export_text(ROBOT.read_text().splitlines(), "pbn")
    assert errors == [] and "{1-1-1 major-penalty-card" in text
    assert theirs(pbn.loads(re.sub(r"\{[^}]*\}\s*", "", text))) == ours()
