"""A table's alerts of the whole session, with who answered them and when: pure, no I/O.

The alert topic is a stream (QoS 1, never retained): a page that loads late,
or loads again, sees none of what went before. The ledger is the room's one
truth about alerts, kept by the daemon from the same events the journal holds
(rebuilt by replaying it after a restart) and published retained on
``<base>/<table>/alerts`` (docs/contract.md, "The alert ledger"), so every
device shows the same open alerts, the same answers and the same history.

Each entry is the alert as published plus ``status`` (``open``, ``answered``:
an option was taken, the alert still waiting to be resolved, or ``closed``),
``decisions`` (``decide``, ``resolve`` and ``reopen``, each with ``by`` and
``t``) and, once closed, ``closed`` (why). An answered alert takes no second
decision until it is re-opened (:meth:`AlertLedger.answer_of` is the daemon's
gate), or, where the law lets the option be taken again at each occasion (a
major penalty card's lead options, each time the offender's partner is to
lead: the law did not close them), until the board has moved on: a call or a
card since the answer (:meth:`AlertLedger.moved`). Two directors pressing
at the same moment never both decide.

>>> led = AlertLedger("3")
>>> led.add({"id": "3-1-1", "kind": "lead-out-of-turn", "options": ["accept-lead"], "t": 5})
True
>>> led.target("accept-lead", None)
'3-1-1'
>>> led.decided("3-1-1", {"option": "accept-lead", "by": "ann", "t": 9}, (1, 4, 1), True)
>>> led.answer_of("3-1-1")["by"], led.payload()["open"][0]["status"]
('ann', 'answered')
>>> led.reopened("3-1-1", {"by": "bob", "t": 12, "note": "wrong button"})
>>> led.answer_of("3-1-1") is None
True
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

# Closed alerts kept in the retained payload: the evening's history on every device,
# bounded so the message stays small (the record has them all), and without their
# text and options: a phone loads every table's ledger at login.
KEEP_CLOSED = 100
CLOSED_DROPS = ("text", "options")
SEVERITY_RANK = {"director": 2, "penalty": 1}


class AlertLedger:
    """Every alert of a table this session (open ones, then the newest closed ones)."""

    def __init__(self, table: str, keep_closed: int = KEEP_CLOSED) -> None:
        self.table = table
        self.keep_closed = keep_closed
        self._entries: dict[str, dict[str, Any]] = {}  # id -> entry, in the order raised
        # ids whose last decide stands now (answer_of; kept as it changes: the core asks
        # for it at every state it publishes)
        self._answered: set[str] = set()
        self.changed = True  # published once at start, even when empty

    # -- what happened ----------------------------------------------------------------
    def add(self, alert: dict[str, Any]) -> bool:
        """A new alert (a ruling of severity penalty/director, or the daemon's own)."""
        rid = alert.get("id")
        if not isinstance(rid, str) or rid in self._entries:
            return False
        self._entries[rid] = {**alert, "status": "open", "decisions": []}
        for old in alert.get("supersedes") or ():
            self.close(old, f"superseded by {rid}", alert.get("t"))
        self._trim()
        self.changed = True
        return True

    def decided(self, rid: str, line: dict[str, Any], at: tuple[int, int, int],
                final: bool) -> None:
        """The engine took ``decide`` (``line``: its journal object, ``by`` included).

        ``at``: the board, calls and cards counted when it was taken; ``final``: the
        law closed the alert's options (else they come again at the next occasion)."""
        e = self._entries.get(rid)
        if e is None:
            return
        e["decisions"].append({**_decision("decide", line), "at": list(at), "final": final})
        self._answered.add(rid)
        if e["status"] == "open":
            e["status"] = "answered"
        self.changed = True

    def moved(self, at: tuple[int, int, int]) -> None:
        """The board stands at ``at`` now: answers the law did not close, given before
        it, no longer stand (the option's next occasion may be answered)."""
        if not self._answered:
            return
        for rid in list(self._answered):
            d = self.answer_of(rid)
            if d is not None and not d.get("final") and d.get("at") != list(at):
                self._answered.discard(rid)
                e = self._entries[rid]
                if e["status"] == "answered":
                    e["status"] = "open"
                self.changed = True

    def resolved(self, rid: str, line: dict[str, Any]) -> None:
        e = self._entries.get(rid)
        if e is None:
            return
        e["decisions"].append(_decision("resolve", line))
        note = line.get("note") or ""
        self._close(e, "resolved" + (f": {note}" if note else ""), line.get("t"),
                    line.get("by"))

    def reopened(self, rid: str, line: dict[str, Any]) -> None:
        """A director re-opened ``rid``: its answer no longer stands; a new one may come."""
        e = self._entries.get(rid)
        if e is None:
            return
        e["decisions"].append(_decision("reopen", line))
        self._answered.discard(rid)
        e["status"] = "open"
        for k in ("closed", "closed_t", "closed_by"):
            e.pop(k, None)
        self.changed = True

    def close(self, rid: str, why: str, t: Any = None, by: Any = None) -> None:
        """Closed without a decision of its own (superseded; a reader back online)."""
        e = self._entries.get(rid)
        if e is not None:
            self._close(e, why, t, by)

    def close_reader(self, reader: str, t: Any) -> None:
        """A reader is back: its open ``reader-offline`` alerts are over."""
        for e in list(self._entries.values()):
            if (e["status"] != "closed" and e.get("kind") == "reader-offline"
                    and e.get("reader") == reader):
                self._close(e, "the reader is back online", t, None)

    def sync_closed(self, closed: Iterable[str]) -> None:
        """The engine's closed ids (resolved or superseded) that the ledger still has open."""
        for rid in closed:
            e = self._entries.get(rid)
            if e is not None and e["status"] != "closed":
                self._close(e, "closed", None, None)

    # -- questions ----------------------------------------------------------------------
    def known(self, rid: str) -> bool:
        return rid in self._entries

    def daemon_alert(self, rid: str) -> bool:
        """An alert the daemon raised itself (not a ruling the engine knows)."""
        e = self._entries.get(rid)
        return e is not None and e.get("kind") in ("reader-offline", "reader-spoofed",
                                                   "journal-failed")

    def target(self, option: str, alert: str | None) -> str | None:
        """The alert a ``decide`` is for: the one it names, else (as the engine chooses)
        the newest still open, unanswered, offering ``option``."""
        if alert is not None:
            return alert
        for rid in reversed(self._entries):
            e = self._entries[rid]
            if e["status"] == "open" and option in (e.get("options") or ()):
                return rid
        return None

    def newest_offering(self, option: str) -> str | None:
        """The newest alert not closed that offers ``option``, answered or not: the one a
        ``decide`` naming no alert is taken to answer, unless it is answered already."""
        for rid in reversed(self._entries):
            e = self._entries[rid]
            if e["status"] != "closed" and option in (e.get("options") or ()):
                return rid
        return None

    def standing(self, option: str, alert: str | None) -> tuple[str, dict[str, Any]] | None:
        """The alert a ``decide`` for ``option`` (naming ``alert``, or none) is for, and
        the answer standing on it, when there is one: the daemon refuses the decide."""
        rid = alert or self.newest_offering(option)
        answer = self.answer_of(rid) if rid is not None else None
        return None if rid is None or answer is None else (rid, answer)

    def answer_of(self, rid: str) -> dict[str, Any] | None:
        """The decision standing on ``rid`` now (its last ``decide``, not re-opened since,
        final or given at this point of the board), or None."""
        e = self._entries.get(rid)
        if e is None or rid not in self._answered:
            return None
        decisions: list[dict[str, Any]] = e["decisions"]
        for d in reversed(decisions):
            action = d["action"]
            if action == "reopen":
                return None
            if action == "decide":
                return dict(d)
        return None

    def answered_ids(self) -> set[str]:
        return set(self._answered)

    def open_entries(self) -> Iterator[dict[str, Any]]:
        return (e for e in self._entries.values() if e["status"] != "closed")

    def summary(self) -> dict[str, Any]:
        """The table card's line: open alerts, the most severe kind, the oldest's time."""
        live = list(self.open_entries())
        worst = max(live, key=lambda e: (SEVERITY_RANK.get(e.get("severity", ""), 0),
                                         -(e.get("t") or 0)), default=None)
        return {"count": len(live),
                "worst": None if worst is None else worst.get("kind"),
                "severity": None if worst is None else worst.get("severity"),
                "oldest": min((e.get("t") or 0 for e in live), default=None)}

    def payload(self) -> dict[str, Any]:
        """The retained ``<base>/<table>/alerts`` message."""
        entries = list(self._entries.values())
        return {"v": 1, "table": self.table, **self.summary(),
                "open": [e for e in entries if e["status"] != "closed"],
                "closed": [{k: v for k, v in e.items() if k not in CLOSED_DROPS}
                           for e in entries if e["status"] == "closed"]}

    # -- inside -------------------------------------------------------------------------
    def _close(self, e: dict[str, Any], why: str, t: Any, by: Any) -> None:
        if e["status"] == "closed":
            return
        e["status"] = "closed"
        e["closed"] = why
        if isinstance(t, int):
            e["closed_t"] = t
        if isinstance(by, str):
            e["closed_by"] = by
        self._trim()
        self.changed = True

    def _trim(self) -> None:
        closed = [rid for rid, e in self._entries.items() if e["status"] == "closed"]
        for rid in closed[:max(0, len(closed) - self.keep_closed)]:
            del self._entries[rid]
            self._answered.discard(rid)


def _decision(action: str, line: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"action": action, "by": line.get("by"), "t": line.get("t")}
    for k in ("option", "card", "suit", "seat", "note"):
        if line.get(k) not in (None, ""):
            out[k] = line[k]
    return out


def logins_by_line(lines: Iterable[bytes]) -> dict[int, str]:
    """The ``by`` of each journal line that has one, by line number (from 1, as
    ``journal.read_journal`` numbers them): replay's events do not carry it."""
    out: dict[int, str] = {}
    for no, raw in enumerate(lines, start=1):
        if b'"by"' not in raw:
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("by"), str):
            out[no] = obj["by"]
    return out


def refusal_text(rid: str, answer: dict[str, Any]) -> str:
    """Why a second decision is refused: who answered, what and when (local time).

    >>> refusal_text("1-1-1", {"by": "ann", "t": None, "option": "pc-remains"})[:59]
    'alert 1-1-1 was already answered by ann at ? (pc-remains); '
    """
    t = answer.get("t")
    when = time.strftime("%H:%M:%S", time.localtime(t / 1000)) if isinstance(t, int) else "?"
    what = " ".join(str(answer[k]) for k in ("option", "suit", "card", "seat") if k in answer)
    return (f"alert {rid} was already answered by {answer.get('by') or 'an unnamed sender'} "
            f"at {when} ({what}); re-open it (a reopen command) to decide again")
