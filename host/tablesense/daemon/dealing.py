"""Where a table's boards get their code, dealer, vulnerability and deal.

One truth from the table to the replay: what the daemon journals for a board
is what the board was played under, so that ``tablesense replay``, ``record``
and ``export`` rule it as the table did.

- **The code.** A table plays every board under its configured code (the
  default code when it has none). A ``board`` command naming another code,
  or an unknown one, is refused with the reason; one naming none is
  journaled with the table's.
- **Dealer and vulnerability.** From the board's hand record when the event
  has one (a ``board`` command that contradicts it is refused: the record is
  what was dealt); otherwise, for a code of numbered duplicate boards, from
  the board number as Law 2 gives them, where the command leaves them out.
- **The deal.** When a board with a hand record starts, the daemon journals a
  ``dealt`` with the record's hands (and ``record``: the file and line of its
  game). A director's ``dealt`` command is for a board without one, or for
  one dealt again at the table after a ``setup``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import msgspec

from tablesense.contract.boards import dealer_of, vul_of
from tablesense.contract.events import BoardStart, Dealt, EventError
from tablesense.contract.handrecords import HandRecord, HandRecords
from tablesense.laws import CODES, DEFAULT_CODE

log = logging.getLogger("tablesense.table")


class Dealing:
    """One table's code and hand records."""

    def __init__(self, table: str, code: str | None, hands: HandRecords | None) -> None:
        self.table = table
        self.code = code or DEFAULT_CODE
        self.hands = hands
        self.file = Path(hands.source).name if hands is not None else ""

    def record(self, board: int) -> HandRecord | None:
        return self.hands.get(board) if self.hands is not None else None

    def code_of(self, obj: dict[str, Any]) -> None:
        """Give a ``board`` command the table's code, or refuse the one it names
        (:class:`EventError` on ``code``)."""
        code = obj.setdefault("code", self.code)
        if code not in CODES:
            raise EventError("code", f"unknown law code {code!r} (known: "
                             f"{', '.join(sorted(CODES))})")
        if code != self.code:
            raise EventError("code", f"table {self.table} plays {self.code} (its configuration "
                             f"says so), not {code}: change the table's code in the "
                             "configuration to play another")

    def board(self, e: BoardStart) -> BoardStart:
        """``e`` with the dealer and vulnerability its record or Law 2 gives."""
        rec = self.record(e.board)
        if rec is not None:
            where = f"board {e.board}'s hand record ({self.file}, line {rec.line})"
            if e.dealer is not None and e.dealer != rec.dealer:
                raise EventError("dealer", f"{where} gives dealer {rec.dealer}, got {e.dealer}")
            if e.vul is not None and e.vul != rec.vul:
                raise EventError("vul", f"{where} gives vulnerability {rec.vul}, got {e.vul}")
            return msgspec.structs.replace(e, dealer=rec.dealer, vul=rec.vul)
        if CODES[self.code].numbered_boards:
            return msgspec.structs.replace(e, dealer=e.dealer or dealer_of(e.board),
                                           vul=e.vul or vul_of(e.board))
        return e

    def check_dealt(self, board: int | None, phase: str | None) -> None:
        """A director's ``dealt`` is for a board that has no hand record, or one dealt
        again at the table (a ``setup`` took it back to the setup phase: the record's
        cards were shuffled away)."""
        if board is not None and phase != "setup" and self.record(board) is not None:
            raise EventError("type", f"board {board} is dealt from its hand record "
                             f"({self.file}); a dealt command is for a board that has none, "
                             "or one dealt again (after a setup command)")

    def dealt(self, e: BoardStart, t: int) -> tuple[Dealt, dict[str, Any]] | None:
        """The record's ``dealt`` for the board ``e`` started (at ``t``) and the journal
        fields to add to it, or None when it has no record."""
        rec = self.record(e.board)
        if rec is None:
            if self.hands is not None:
                log.warning("event=no-hand-record table=%s board=%d file=%s", self.table,
                            e.board, self.hands.source)
            return None
        hands: dict[str, tuple[str, ...]] = {s: h for s, h in rec.hands.items()}
        return Dealt(t, hands, rec.dealer), {"record": f"{self.file}:{rec.line}"}


__all__ = ["Dealing"]
