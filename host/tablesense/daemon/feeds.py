"""A table's feeds for the scorers and the vugraph: board results and the LIN play feed.

Pure but for the clock the caller passes in: the core hands each table's
board (the engine's, on the core thread) and alert ledger here when its state
changes, and publishes what comes back (docs/contract.md, "Board results"
and "The play feed").

* **Board result** (``<base>/<table>/result``, QoS 1, retained): once a board
  has a result (thirteen tricks, a claim or concession naming its tricks, or
  four passes): the contract, declarer, tricks, the score from the board's
  vulnerability (laws/scoring.py), who sat where (daemon/seating.py), the
  board's rulings and those still open (``pending``). ``final`` is false while
  any is open: a ruling may still adjust the score, and the message comes
  again, ``final: true``, when the last is resolved. A board that never
  reached a result gets no message: the record says why.
* **Play feed** (``<base>/<table>/lin``, QoS 1, retained): the board so far as
  one BBO LIN line (documents/export.py's writer) in ``{"v": 1, "table",
  "board", "lin"}`` (JSON like every payload under the base), each version
  published ``lin_delay_s`` after the table reached it (a vugraph's secure
  delay).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from tablesense.contract.cards import is_bid, side
from tablesense.contract.events import Event
from tablesense.daemon.config import FeedsConfig
from tablesense.daemon.ledger import AlertLedger
from tablesense.documents.export import BoardRecord, Meta, Recorder, lin_board, record_of
from tablesense.engine.board import Board
from tablesense.laws.scoring import ns_score


def result_message(rec: BoardRecord, seating: dict[str, Any], rulings: list[str],
                   pending: list[str]) -> dict[str, Any] | None:
    """The board-result message of ``rec``, or None while it has no result."""
    if not rec.finished:
        return None
    out: dict[str, Any] = {"v": 1, "table": rec.table, "board": rec.number, **seating,
                           "dealer": rec.dealer, "vul": rec.vul}
    if rec.passed_out:
        out.update({"contract": "Pass", "declarer": None, "tricks": None, "result": None,
                    "score": {"NS": 0, "EW": 0}, "ended": "passed-out"})
    else:
        tricks = rec.final_tricks()
        assert tricks is not None and rec.declarer is not None
        ended = rec.claim.kind if rec.claim is not None and len(rec.tricks) < 13 else "played"
        out.update({"contract": rec.contract, "doubled": rec.doubled, "declarer": rec.declarer,
                    "tricks": tricks, "ended": ended})
        if rec.whist or rec.contract is None or not is_bid(rec.contract):
            out.update({"result": None, "score": None})  # no duplicate score for whist
        else:
            level = int(rec.contract[0])
            over = tricks - 6 - level
            ns = ns_score(level, rec.contract[1], rec.doubled, rec.declarer, rec.vul, tricks)
            out.update({"result": "=" if over == 0 else f"{over:+d}",
                        "score": {"NS": ns, "EW": -ns},
                        "declarer_side": side(rec.declarer)})
    out.update({"rulings": rulings, "pending": pending, "final": not pending})
    return out


class TableFeeds:
    """One table's result and play feed, fed with every event the engine took."""

    def __init__(self, table: str, cfg: FeedsConfig) -> None:
        self.table = table
        self.cfg = cfg
        self._rec: Recorder | None = None
        self.result: dict[str, Any] | None = None  # the last result published
        self._lin: str | None = None
        self._lin_board = 0
        self._shape: tuple[object, ...] = ()  # what the LIN was last made from
        self._due: deque[tuple[float, str]] = deque()  # LIN versions waiting for the delay

    def after(self, event: Event, board: Board | None) -> None:
        """The engine took ``event``: follow the board's claims and its declarer."""
        if board is None:
            return
        if self._rec is None or self._rec.board is not board:
            self._rec = Recorder(board)
        self._rec.after(event)

    def record(self) -> BoardRecord | None:
        r = self._rec
        if r is None:
            return None
        return record_of(r.board, r.times[0] if r.times else 0, r.auction_declarer, r.claim)

    def board_result(self, ledger: AlertLedger, alerts_changed: bool = False
                     ) -> dict[str, Any] | None:
        """The result message to publish now (None: nothing new). Also the last board's
        again when its open alerts changed (resolved after the next board began)."""
        if not self.cfg.results:
            return None
        over = self._rec is not None and self._rec.board.phase in ("end", "claim")
        if not over and not (alerts_changed and self.result is not None):
            return None  # most states: a board in play has no result (no record made)
        rec = self.record()
        msg = None
        if rec is not None and rec.finished:
            msg = result_message(rec, self._seating(rec.number),
                                 *_board_alerts(ledger, rec.number))
        elif self.result is not None:
            rulings, pending = _board_alerts(ledger, self.result["board"])
            msg = {**self.result, "rulings": rulings, "pending": pending, "final": not pending}
        if msg is None or msg == self.result:
            return None
        self.result = msg
        return msg

    def _seating(self, board: int) -> dict[str, Any]:
        m = self.cfg.movement
        return m.at(self.table, board) if m is not None else {}

    def play(self, now: float) -> None:
        """Queue the board's LIN as it stands at ``now`` (monotonic seconds)."""
        if not self.cfg.lin:
            return
        r = self._rec
        if r is None:
            return
        b = r.board
        shape = (id(b), id(b.calls), len(b.calls), len(b.tricks), len(b.trick), b.phase,
                 r.claim, len(b.deal))
        if shape == self._shape:
            return  # nothing the LIN shows has changed (most states: a card moved in a hand)
        self._shape = shape
        rec = self.record()
        assert rec is not None
        names = (self.cfg.movement.at(self.table, rec.number).get("players", {})
                 if self.cfg.movement is not None else {})
        lin = lin_board(rec, Meta(players=names))
        if lin != self._lin:
            self._lin, self._lin_board = lin, rec.number
            self._due.append((now + self.cfg.lin_delay_s, lin))

    def due(self, now: float) -> str | None:
        """The newest LIN version whose delay is over (older ones are skipped)."""
        out = None
        while self._due and self._due[0][0] <= now:
            out = self._due.popleft()[1]
        return out

    def lin_message(self, lin: str) -> dict[str, Any]:
        """The play feed's payload around a LIN line ``due`` gave."""
        board = int(lin[4:lin.index("|", 4)]) if lin.startswith("qx|o") else self._lin_board
        return {"v": 1, "table": self.table, "board": board, "lin": lin}


def _board_alerts(ledger: AlertLedger, board: int) -> tuple[list[str], list[str]]:
    """The board's rulings in the ledger (the daemon's own alerts are no rulings): all
    of them, and those still open."""
    p = ledger.payload()
    entries = [e for e in p["open"] + p["closed"]
               if e.get("board") == board and not ledger.daemon_alert(str(e.get("id")))]
    entries.sort(key=lambda e: (e.get("t") or 0, str(e.get("id"))))
    return ([str(e["id"]) for e in entries],
            [str(e["id"]) for e in entries if e.get("status") != "closed"])
