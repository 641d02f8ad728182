"""Reading journals: one JSON object a line (docs/contract.md), with errors that name
the file, the line number and the field.

Lines of type ``rejected`` (commands the daemon refused, kept for the record)
are skipped by readers: they were never acted on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import msgspec

from tablesense.contract.events import DECODER, Event, EventError, Observe, canonical, parse_event

SKIPPED_TYPES = frozenset(("rejected",))


@dataclass(frozen=True)
class JournalError:
    """A line that is not a valid event."""

    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: field {self.field}: {self.message}"


def parse_lines(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Event | JournalError]]:
    """Yield ``(line number, event or error)`` for every non-blank line.

    Lines are decoded straight into events (``events.fast_event``, written out); one that
    does not decode that way (blank, invalid, skipped, or not in canonical
    form) is read again field by field, which names what is wrong.
    Bytes that are not UTF-8 are read as U+FFFD, as a text file opened with
    ``errors="replace"`` would.
    """
    last_t = None
    decode = DECODER.decode
    for no, raw in enumerate(lines, start=1):
        # fast_event(raw), spelled out: an observation with no sight and a face given
        # (nearly every line) is canonical as decoded
        event: Event | None
        try:
            event = decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError):
            event = None
        else:
            if not (type(event) is Observe and event.seen_by is None and (
                    event.face != "unknown" or event.zone == "gone")) and not canonical(event):
                event = None
        if event is None:
            text = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw).strip()
            if not text:
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                yield no, JournalError(no, "(line)",
                                       f"not JSON: {exc.msg} at column {exc.colno}")
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
    """Events of a journal file, read as it goes; OSError if it cannot be read."""
    with open(path, "rb") as f:
        yield from parse_lines(f)
