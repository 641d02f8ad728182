"""Reading journals: one JSON object a line (domain.md), with errors that name
the file, the line number and the field.

Lines of type ``rejected`` (commands the daemon refused, kept for the record)
are skipped by readers: they were never acted on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tablesense.events import Event, EventError, parse_event

SKIPPED_TYPES = frozenset(("rejected",))


@dataclass(frozen=True)
class JournalError:
    """A line that is not a valid event."""

    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: field {self.field}: {self.message}"


def parse_lines(lines: Iterable[str]) -> Iterator[tuple[int, Event | JournalError]]:
    """Yield ``(line number, event or error)`` for every non-blank line."""
    last_t = None
    for no, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield no, JournalError(no, "(line)", f"not JSON: {exc.msg} at column {exc.colno}")
            continue
        if isinstance(obj, dict) and str(obj.get("type")) in SKIPPED_TYPES:
            continue
        try:
            event = parse_event(obj)
        except EventError as exc:
            yield no, JournalError(no, exc.field, exc.message)
            continue
        if last_t is not None and event.t < last_t:
            yield no, JournalError(no, "t", f"time goes backwards ({event.t} < {last_t})")
            continue
        last_t = event.t
        yield no, event


def read_journal(path: str) -> Iterator[tuple[int, Event | JournalError]]:
    """Events of a journal file; OSError if it cannot be read."""
    with open(path, encoding="utf-8", errors="replace") as f:
        yield from parse_lines(f)
