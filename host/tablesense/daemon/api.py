"""The dashboard's documents beside the static page (daemon/web.py routes).

- ``/catalogue.json``: the kinds and options (tablesense.catalogue);
- ``/record.json`` and ``/report.html``: the director's record of every
  ruling and decision, made from the tables' journals (tablesense.record,
  tablesense.report); parameters ``q`` (words, all present), ``table``,
  ``board``, ``evening`` (YYYY-MM-DD) narrow it;
- ``/dd.json?table=T``: the double-dummy analysis of the table's current
  position (tablesense.dd), from the state the daemon last published.

These run on the web server's threads: they read journal files (the journal
writer only appends) and the last published state (a dict the core thread
replaces whole), never the engines the core thread owns.
"""

from __future__ import annotations

import threading
import time
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablesense import catalogue, dd, record, report
from tablesense.daemon.journal_writer import journal_path
from tablesense.daemon.web import Response, Route, json_response

if TYPE_CHECKING:
    from tablesense.daemon.core import Daemon


class RecordCache:
    """The record of the journals, made again only when a journal changed."""

    def __init__(self, journals: dict[str, tuple[Path, str | None]]) -> None:
        self.journals = journals
        self._key: tuple[Any, ...] | None = None
        self._value: tuple[list[record.BoardRecord], list[record.Problem]] = ([], [])
        self._lock = threading.Lock()

    def _stamp(self) -> tuple[Any, ...]:
        # the files, and time in 5 s steps: an incident that time closes (a dropped card's
        # 1 s window) makes a ruling without a new journal line
        out: list[Any] = [int(time.time() // 5)]
        for table, (path, _) in sorted(self.journals.items()):
            try:
                st = path.stat()
                out.append((table, st.st_size, st.st_mtime_ns))
            except OSError:
                out.append((table, -1, -1))
        return tuple(out)

    def get(self) -> tuple[list[record.BoardRecord], list[record.Problem]]:
        with self._lock:
            key = self._stamp()
            if key != self._key:
                self._value = record.build(self.journals, until=int(time.time() * 1000))
                self._key = key
            return self._value


def _filters(q: dict[str, str]) -> dict[str, Any] | str:
    out: dict[str, Any] = {"query": q.get("q", ""), "table": q.get("table") or None,
                           "evening": q.get("evening") or None}
    board = q.get("board")
    if board:
        if not board.isdigit():
            return f"board: expected a number, got {board!r}"
        out["board"] = int(board)
    return out


def dashboard_routes(daemon: Daemon) -> dict[str, Route]:
    cfg = daemon.config
    journals = {name: (journal_path(cfg.journal.dir, name), t.code)
                for name, t in cfg.tables.items()}
    cache = RecordCache(journals)
    cat = json_response(catalogue.as_json())

    def record_json(q: dict[str, str]) -> Response:
        f = _filters(q)
        if isinstance(f, str):
            return json_response({"error": f}, HTTPStatus.BAD_REQUEST)
        boards, problems = cache.get()
        return json_response(record.to_json(record.search(boards, **f), problems))

    def report_page(q: dict[str, str]) -> Response:
        f = _filters(q)
        if isinstance(f, str):
            return json_response({"error": f}, HTTPStatus.BAD_REQUEST)
        boards, _ = cache.get()
        chosen = record.search(boards, **f)
        title = "tablesense · the director's record"
        if f.get("table"):
            title += f" · table {f['table']}"
        if f.get("board") is not None:
            title += f" · board {f['board']}"
        return (HTTPStatus.OK, "text/html; charset=utf-8",
                report.report_html(chosen, title=title, query=f["query"]).encode())

    def dd_json(q: dict[str, str]) -> Response:
        # 200 with "ok": false for what the page expects (no position yet, no solver): a
        # 4xx would be logged in the browser's console as a failed resource
        table = q.get("table", "")
        state = daemon.states.get(table)
        if state is None:
            return json_response({"ok": False, "error": f"no state of table {table!r} yet"})
        try:
            return json_response({"ok": True, **dd.analyse(state)})
        except (dd.DDUnavailable, dd.DDError) as exc:
            return json_response({"ok": False, "error": str(exc)})

    return {"/catalogue.json": lambda q: cat, "/record.json": record_json,
            "/report.html": report_page, "/dd.json": dd_json}
