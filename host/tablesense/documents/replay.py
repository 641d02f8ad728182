"""Replay: a journal through one engine per table, rulings out in order.

Used by ``tablesense replay``, ``export``, the proving harness and the tests.
The daemon replays its own journals on restart through the same engine but
not through here (``TableRuntime.replay``: it rebuilds the ledger and
re-enqueues the alerts too).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from tablesense.contract.events import BoardStart, Event
from tablesense.contract.journal import JournalError, parse_lines
from tablesense.engine import Engine, EngineError, Ruling
from tablesense.laws import CODES


class Step(msgspec.Struct, frozen=True):
    """One step of a replay: the rulings an event made (``event`` None: the rulings of
    incidents closed by a flush), or a line that was not valid (``error``). (A struct:
    one is made for every line.)"""

    engine: Engine | None
    event: Event | None
    rulings: list[Ruling]
    error: str | None = None


def replay_steps(lines: Iterable[str | bytes], code: str | None = None) -> Iterator[Step]:
    """The journal through one engine per table, step by step (export reads the
    boards' state between steps); ``replay_lines`` is this without the state."""
    engines: dict[str, Engine] = {}
    current: Engine | None = None
    for no, item in parse_lines(lines):
        if isinstance(item, JournalError):
            yield Step(None, None, [], str(item))
            continue
        if isinstance(item, BoardStart):
            if current is not None:
                yield Step(current, None, current.flush())
            current = engines.get(item.table)
            if current is None:
                current = engines[item.table] = Engine(code=code, codes=CODES)
        if current is None:
            yield Step(None, None, [],
                       f"line {no}: field type: a {item.type} event before any board event")
            continue
        try:
            rulings = current.apply(item)
        except EngineError as exc:
            yield Step(current, None, [], f"line {no}: field type: {exc}")
            continue
        yield Step(current, item, rulings)
    if current is not None:
        yield Step(current, None, current.flush())


def replay_lines(lines: Iterable[str | bytes], code: str | None = None) -> Iterator[Ruling | str]:
    """Yield rulings, and for every line that is invalid or not valid in the board's
    state a message ``"line N: ..."``; the engine's state is unchanged by such a line.

    ``replay_steps`` without the steps, written out: one loop a line instead of two
    generators and a ``Step`` (a season of journals is millions of lines)."""
    engines: dict[str, Engine] = {}
    current: Engine | None = None
    for no, item in parse_lines(lines):
        if isinstance(item, JournalError):
            yield str(item)
            continue
        if type(item) is BoardStart:
            if current is not None:
                yield from current.flush()
            current = engines.get(item.table)
            if current is None:
                current = engines[item.table] = Engine(code=code, codes=CODES)
        if current is None:
            yield f"line {no}: field type: a {item.type} event before any board event"
            continue
        try:
            rulings = current.apply(item)
        except EngineError as exc:
            yield f"line {no}: field type: {exc}"
            continue
        if rulings:
            yield from rulings
    if current is not None:
        yield from current.flush()


def replay_file(path: str, code: str | None = None) -> list[Ruling]:
    with open(path, "rb") as f:
        return [r for r in replay_lines(f, code) if isinstance(r, Ruling)]
