"""The table's state as the daemon publishes it: one board's phase, contract, tricks,
card positions, what the law code's state shows (penalty cards, restrictions, calls
owed) and the rulings with which are closed and answered. Fresh containers each
time, never changed after (the daemon hands them to other threads).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablesense.engine.board import Board
    from tablesense.engine.code import Code
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.tracker import Tracker


def snapshot(table: str | None, board: Board | None, law: Code, tracker: Tracker,
             rulings: Sequence[Ruling], closed: Set[str], answered: Set[str]) -> dict[str, Any]:
    """``table``'s state: ``{"phase": "idle"}`` before its first board."""
    b = board
    if b is None:
        return {"phase": "idle", "table": table}
    ob = law.state  # what the code's state shows (engine/obligations.py)
    return {
        "table": b.table, "board": b.number, "code": law.id, "phase": b.phase,
        "dealer": b.dealer, "vul": b.vul, "declarer": b.declarer, "contract": b.contract,
        "doubled": b.doubled, "turn": b.next_to_play() or b.turn,
        "tricks": dict(b.won), "trick": [list(p) for p in b.trick],
        "penalty_cards": {s: sorted(d) for s, d in ob.penalty_cards().items() if d},
        "obligations": [r.to_json() for r in rulings
                        if r.id not in closed and r.severity != "info"],
        "cards": {c: {"seat": p.seat, "zone": p.zone, "face": p.face}
                  for c, p in sorted(tracker.pos.items())},
        # for the dashboard's table view and the record (daemon/view.py)
        "strain": b.strain, "dummy": b.dummy,
        "auction": [[s, c] for s, c in b.calls],
        "deal": {s: list(h) for s, h in b.deal.items()},
        "held": {s: sorted(h) for s, h in b.hands.items()},
        "trick_leader": b.trick_leader if b.trick else None,
        "played": [[[list(p) for p in plays], w] for plays, w in b.tricks],
        "penalty": {s: [{"card": c, "major": pc.major, "ruling": pc.ruling}
                        for c, pc in sorted(d.items())]
                    for s, d in ob.penalty_cards().items() if d},
        "restrictions": [{"seat": r.seat, "option": r.option, "suit": r.suit,
                          "ruling": r.ruling, "lead": lead}
                         for lead, rules in ((True, ob.lead_rules),
                                             (False, ob.play_rules)) for r in rules],
        "must_pass": dict(ob.must_pass),
        "law24": {s: dict(d) for s, d in ob.law24_cards().items() if d},
        "rulings": [r.to_json() for r in rulings],
        "closed": sorted(closed), "answered": sorted(answered),
    }


__all__ = ["snapshot"]
