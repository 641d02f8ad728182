"""Double-dummy analysis of a table's current position, for an adjusted score.

A director assigning an adjusted score (2017 Laws 12C, 64C) weighs what
would likely have happened without the irregularity; the double-dummy
result (every card seen, best play on both sides) is one of the things he
weighs. This asks the DDS solver, through endplay (PyPI, optional extra
``tablesense[dd]``), from the position in a state snapshot: the cards each
seat still holds (``held``), the current trick and who led it, the trumps
(``strain``).

:func:`analyse` returns, for the side of the declarer, how many of the
remaining tricks each card of the player on play leads to, the best of
them, the total with the tricks already won, and the double-dummy table of
the original deal (tricks for each strain and declarer).

Without endplay installed :func:`analyse` raises :class:`DDUnavailable`,
which the dashboard shows as such.
"""

from __future__ import annotations

import threading
from typing import Any

from tablesense.contract.cards import lho, side
from tablesense.contract.vocab import SEATS

SUITS = "SHDC"
RANKS = "AKQJT98765432"
STRAINS = "SHDCN"

_lock = threading.Lock()  # DDS keeps per-thread state of its own; one solve at a time here


class DDError(ValueError):
    """The snapshot holds no position the solver can analyse."""


class DDUnavailable(RuntimeError):
    """endplay (the DDS solver) is not installed."""


def _pbn_hand(cards: list[str]) -> str:
    by_suit = {s: "".join(r for r in RANKS if s + r in cards) for s in SUITS}
    return ".".join(by_suit[s] for s in SUITS)


def position(snap: dict[str, Any]) -> tuple[dict[str, list[str]], str, list[tuple[str, str]]]:
    """(hands before the current trick, who leads it, its cards) of a snapshot."""
    held: dict[str, list[str]] = {s: list(snap.get("held", {}).get(s, [])) for s in SEATS}
    if snap.get("phase") not in ("lead", "play", "claim") or not snap.get("declarer"):
        raise DDError("double-dummy analysis needs a board in play (after the auction)")
    trick = [(str(s), str(c)) for s, c in snap.get("trick") or []]
    if len(trick) == 4:  # a complete trick not yet quitted: the next trick starts empty
        trick = []
    for seat, card in trick:
        held[seat].append(card)
    counts = {len(h) for h in held.values()}
    if len(counts) != 1 or not counts.pop():
        raise DDError("the hands are not all the same length: the position is not known "
                      "(cards missing from the deal?)")
    first = trick[0][0] if trick else snap.get("turn")
    if first not in SEATS:
        raise DDError("nobody is on lead")
    return held, str(first), trick


def analyse(snap: dict[str, Any]) -> dict[str, Any]:
    """Double-dummy result from the snapshot's position (see the module docstring)."""
    try:
        from endplay.dds import calc_dd_table, solve_board
        from endplay.types import Deal, Denom, Player
    except ImportError as exc:
        raise DDUnavailable("double-dummy analysis needs endplay: pip install "
                            "'tablesense[dd]'") from exc
    held, first, trick = position(snap)
    declarer = str(snap["declarer"])
    strain = str(snap.get("strain") or "N")
    pbn = "N:" + " ".join(_pbn_hand(held[s]) for s in SEATS)
    deal = Deal(pbn, first=Player(SEATS.index(first)), trump=Denom(STRAINS.index(strain)))
    for _, card in trick:
        deal.play(card)
    on_play = trick[-1][0] if trick else None
    on_play = lho(on_play) if on_play is not None else first
    remaining = len(held[first])
    won = dict(snap.get("tricks") or {"NS": 0, "EW": 0})
    mine = side(on_play) == side(declarer)
    with _lock:
        solved = list(solve_board(deal))
        full = snap.get("deal") or {}
        table = None
        if all(len(full.get(s, [])) == 13 for s in SEATS):
            d0 = Deal("N:" + " ".join(_pbn_hand(list(full[s])) for s in SEATS))
            rows = calc_dd_table(d0).to_list()
            table = {STRAINS[i]: {s: rows[i][j] for j, s in enumerate(SEATS)}
                     for i in range(5)}
    cards = []
    for c, tricks in solved:
        ours = int(tricks) if mine else remaining - int(tricks)
        cards.append({"card": "SHDC"[c.suit.value] + c.rank.abbr, "tricks": ours})
    best = max((x["tricks"] for x in cards), default=0) if mine else \
        min((x["tricks"] for x in cards), default=0)
    dside = side(declarer)
    total = won.get(dside, 0) + best
    contract = str(snap.get("contract") or "")
    need = int(contract[0]) + 6 if contract[:1].isdigit() else None
    return {
        "v": 1, "table": snap.get("table"), "board": snap.get("board"),
        "declarer": declarer, "strain": strain, "contract": contract or None,
        "on_play": on_play, "remaining": remaining, "won": won,
        "cards": sorted(cards, key=lambda x: (-x["tricks"] if mine else x["tricks"],
                                              SUITS.index(x["card"][0]),
                                              RANKS.index(x["card"][1]))),
        "declarer_tricks": total,
        "result": None if need is None else total - need,
        "dd_table": table,
    }
