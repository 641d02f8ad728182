"""Replay: a journal through one engine per table, rulings out in order.

Used by ``tablesense replay``, by the daemon on restart, and by the tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tablesense.engine import Engine, EngineError, Ruling
from tablesense.events import BoardStart
from tablesense.journal import JournalError, parse_lines


def replay_lines(lines: Iterable[str], code: str | None = None) -> Iterator[Ruling | str]:
    """Yield rulings, and for every line that is invalid or not valid in the board's
    state a message ``"line N: ..."``; the engine's state is unchanged by such a line."""
    engines: dict[str, Engine] = {}
    current: Engine | None = None
    for no, item in parse_lines(lines):
        if isinstance(item, JournalError):
            yield str(item)
            continue
        if isinstance(item, BoardStart):
            if current is not None:
                yield from current.flush()
            current = engines.setdefault(item.table, Engine(code=code))
        if current is None:
            yield f"line {no}: field type: a {item.type} event before any board event"
            continue
        try:
            yield from current.apply(item)
        except EngineError as exc:
            yield f"line {no}: field type: {exc}"
    if current is not None:
        yield from current.flush()


def replay_file(path: str, code: str | None = None) -> list[Ruling]:
    with open(path, encoding="utf-8", errors="replace") as f:
        return [r for r in replay_lines(f, code) if isinstance(r, Ruling)]
