"""The director's record: every ruling, and what was decided about it, from the journals.

The journal stays the truth: the record is made by replaying each table's
journal through the same engine (so its rulings are the ones the daemon
made) and collecting, next to each ruling, the ``decide`` and ``resolve``
events that named it, with the time and the login that sent them (``by``:
the broker login of a command sent on ``<base>/<table>/cmd/by/<login>``,
daemon/topics.py; absent for in-process or anonymous commands). A ``decide``
without ``alert`` is matched as the engine matches it: the most recent open
ruling offering that option. A decision the engine refused is kept, with
the reason, since an appeals committee may ask about it too.

Boards are grouped by *playing evening*: the local date of the board's
first event, a day running from 06:00 to 06:00, so a session that goes on
past midnight stays one evening.

:func:`search` keeps the boards where a text occurs (table, board, kind,
law, cards, ruling text, decisions, notes, logins); :func:`to_json` is the
JSON export, :mod:`tablesense.documents.report` the printable HTML.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tablesense.contract.events import (
    BoardStart,
    Decide,
    EventError,
    Reopen,
    Resolve,
    parse_event,
)
from tablesense.contract.journal import SKIPPED_TYPES
from tablesense.engine import Engine, EngineError
from tablesense.laws import CODES

EVENING_STARTS = timedelta(hours=6)


def evening_of(t_ms: int) -> str:
    """The playing evening (local date, 06:00 to 06:00) of a journal time.

    >>> evening_of(0) in ("1969-12-31", "1970-01-01")
    True
    """
    return (datetime.fromtimestamp(t_ms / 1000) - EVENING_STARTS).date().isoformat()


@dataclass
class Decision:
    t: int
    action: str  # decide | resolve | reopen
    by: str | None
    option: str | None = None
    card: str | None = None
    suit: str | None = None
    seat: str | None = None
    note: str | None = None
    refused: str | None = None  # the engine's reason, when it refused it
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class RuledIncident:
    ruling: dict[str, Any]
    decisions: list[Decision] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.ruling, "decisions": [d.to_json() for d in self.decisions]}


@dataclass
class BoardRecord:
    table: str
    board: int
    evening: str
    started: int
    code: str | None
    dealer: str | None = None
    vul: str | None = None
    contract: str | None = None
    doubled: int = 0
    declarer: str | None = None
    tricks: dict[str, int] = field(default_factory=dict)
    rulings: list[RuledIncident] = field(default_factory=list)
    unmatched: list[Decision] = field(default_factory=list)  # decisions naming no ruling

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "board": self.board, "evening": self.evening,
                "started": self.started, "code": self.code, "dealer": self.dealer,
                "vul": self.vul, "contract": self.contract, "doubled": self.doubled,
                "declarer": self.declarer, "tricks": self.tricks,
                "rulings": [r.to_json() for r in self.rulings],
                "unmatched": [d.to_json() for d in self.unmatched]}

    def text(self) -> str:
        """Everything searchable, lower case."""
        return json.dumps(self.to_json(), ensure_ascii=False).lower()


@dataclass
class Problem:
    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: line {self.line}: field {self.field}: {self.message}"


def table_record(lines: Iterable[str], table: str | None, code: str | None = None,
                 path: str = "<journal>", until: int | None = None,
                 ) -> tuple[list[BoardRecord], list[Problem]]:
    """The boards of one table's journal, with rulings and decisions.

    ``table``: the table the journal is of (its boards' ``table`` must
    match); None takes each board's own. ``until``: the journal is live,
    read at this time (ms, the journal's clock); None: it is finished.
    """
    engine = Engine(table=table, code=code, codes=CODES)
    boards: list[BoardRecord] = []
    problems: list[Problem] = []
    by_id: dict[str, RuledIncident] = {}
    current: BoardRecord | None = None
    for no, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(Problem(path, no, "(line)", f"not JSON: {exc.msg}"))
            continue
        if not isinstance(obj, dict) or str(obj.get("type")) in SKIPPED_TYPES:
            continue
        by = obj.get("by") if isinstance(obj.get("by"), str) else None
        try:
            event = parse_event(obj)
        except EventError as exc:
            problems.append(Problem(path, no, exc.field, exc.message))
            continue
        if isinstance(event, BoardStart) and current is not None:
            # the board before it ends here: its open incidents close (as replay does)
            for r in engine.flush():
                current.rulings.append(RuledIncident(r.to_json()))
            _result(current, engine)
        answered = set(engine.answered)
        try:
            rulings = engine.apply(event)
            refused = None
        except EngineError as exc:
            rulings, refused = [], str(exc)
        if refused is not None and not isinstance(event, Decide | Resolve | Reopen):
            problems.append(Problem(path, no, "type", refused))
        target: str | None = None
        if isinstance(event, Decide):
            # the ruling the engine applied it to: the one it marked answered, else the
            # most recent open one offering the option (a time-closed incident's ruling is
            # made by this very apply, so it cannot be looked up before)
            newly = engine.answered - answered
            target = event.alert or (newly.pop() if len(newly) == 1 else
                                     _open_offering(engine, event.option))
        if isinstance(event, BoardStart) and refused is None:
            current = BoardRecord(table=event.table, board=event.board, evening=evening_of(event.t),
                                  started=event.t, code=engine.law.id, dealer=event.dealer,
                                  vul=event.vul)
            boards.append(current)
            by_id = {}
        if current is None:
            continue
        for r in rulings:
            inc = RuledIncident(r.to_json())
            by_id[r.id] = inc
            current.rulings.append(inc)
        if isinstance(event, Decide):
            d = Decision(event.t, "decide", by, option=event.option, card=event.card,
                         suit=event.suit, seat=event.seat, refused=refused, line=no)
            _attach(current, by_id, target, d)
        elif isinstance(event, Resolve):
            d = Decision(event.t, "resolve", by, note=event.note, refused=refused, line=no)
            _attach(current, by_id, event.alert, d)
        elif isinstance(event, Reopen):
            d = Decision(event.t, "reopen", by, note=event.note, refused=refused, line=no)
            _attach(current, by_id, event.alert, d)
        _result(current, engine)
    # incidents still open when the journal ends: a finished journal closes them (as
    # replay does); a live one closes those that time has closed (as the daemon's tick)
    late = engine.flush() if until is None else engine.tick(max(until, engine.now))
    if current is not None:
        for r in late:
            current.rulings.append(RuledIncident(r.to_json()))
        _result(current, engine)
    return boards, problems


def _result(current: BoardRecord, engine: Engine) -> None:
    b = engine.board
    if b is not None:
        current.contract, current.doubled = b.contract, b.doubled
        current.declarer, current.tricks = b.declarer, dict(b.won)


def _open_offering(engine: Engine, option: str) -> str | None:
    for r in reversed(engine.rulings):
        if option in r.options and r.id not in engine.closed and r.id not in engine.answered:
            return r.id
    return None


def _attach(board: BoardRecord, by_id: dict[str, RuledIncident], target: str | None,
            d: Decision) -> None:
    inc = by_id.get(target) if target else None
    if inc is None:
        board.unmatched.append(d)
    else:
        inc.decisions.append(d)


def build(journals: dict[str, tuple[Path, str | None]], until: int | None = None,
          any_table: bool = False) -> tuple[list[BoardRecord], list[Problem]]:
    """Every board of every table: ``{table: (journal path, code or None)}``.

    A journal that does not exist yet is a table that has not played;
    ``until`` as for :func:`table_record`; ``any_table``: the keys are only
    labels, each board names its table.
    """
    boards: list[BoardRecord] = []
    problems: list[Problem] = []
    for table, (path, code) in journals.items():
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                b, p = table_record(f, None if any_table else table, code, str(path), until)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(Problem(str(path), 0, "(file)", exc.strerror or str(exc)))
            continue
        boards.extend(b)
        problems.extend(p)
    boards.sort(key=lambda x: (x.evening, _natural(x.table), x.board, x.started))
    return boards, problems


def _natural(name: str) -> tuple[Any, ...]:
    head = name.rstrip("0123456789")
    tail = name[len(head):]
    return (head, int(tail) if tail else -1)


def search(boards: list[BoardRecord], query: str = "", *, table: str | None = None,
           board: int | None = None, evening: str | None = None,
           with_rulings: bool = False) -> list[BoardRecord]:
    """The boards matching every filter given (``query``: words, all present)."""
    words = query.lower().split()
    out = []
    for b in boards:
        if table is not None and b.table != table:
            continue
        if board is not None and b.board != board:
            continue
        if evening is not None and b.evening != evening:
            continue
        if with_rulings and not b.rulings:
            continue
        if words:
            text = b.text()
            if not all(w in text for w in words):
                continue
        out.append(b)
    return out


def to_json(boards: list[BoardRecord], problems: list[Problem] | None = None) -> dict[str, Any]:
    """The JSON export: ``{"v": 1, "evenings": [...], "boards": [...], "problems": [...]}``."""
    return {"v": 1, "evenings": sorted({b.evening for b in boards}),
            "boards": [b.to_json() for b in boards],
            "problems": [str(p) for p in problems or []]}
