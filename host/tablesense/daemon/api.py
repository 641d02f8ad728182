"""The dashboard's documents beside the static page (daemon/web.py routes).

- ``/catalogue.json``: the kinds and options (tablesense.contract.catalogue);
- ``/record.json`` and ``/report.html``: the director's record of every
  ruling and decision, made from the tables' journals (tablesense.documents.record,
  tablesense.documents.report); parameters ``q`` (words, all present), ``table``,
  ``board``, ``evening`` (YYYY-MM-DD) narrow it;
- ``/dd.json?table=T``: the double-dummy analysis of the table's current
  position (tablesense.documents.dd), from the state the daemon last published;
- ``/session``: the page hands over its broker login (HTTP Basic) once it
  has connected; the daemon asks the broker (daemon/mqtt.py
  ``broker_login``) and answers with a session cookie (HttpOnly,
  SameSite=Strict, for an evening). ``/session?logout=1`` ends it.

Who gets what, when the dashboard has logins (``[dashboard] login``, the
default): the record and the report, any login the broker accepts; the
double-dummy analysis, a director only (it solves a board still in play:
not for a viewer's phone at the table). Without logins (the demo's
anonymous broker) everything is open, as the broker is.

These run on the web server's threads: they read journal files (the journal
writer only appends) and the last published state (a dict the core thread
replaces whole), never the engines the core thread owns.
"""

from __future__ import annotations

import base64
import binascii
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from html import escape
from http import HTTPStatus
from pathlib import Path
from typing import Any

from tablesense.contract import catalogue
from tablesense.daemon.config import DashboardConfig
from tablesense.daemon.mqtt import broker_login
from tablesense.daemon.web import Request, Response, Route, json_response
from tablesense.documents import dd, record, report


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


SESSION_COOKIE = "tablesense_session"
SESSION_S = 12 * 3600  # an evening


class Sessions:
    """Broker logins that the broker accepted, by the token of their cookie."""

    def __init__(self, check: Callable[[str, str], str | None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.check = check  # (user, password) -> role, None if refused; may raise
        self.clock = clock
        self._tokens: dict[str, tuple[str, str, float]] = {}
        self._lock = threading.Lock()

    def login(self, user: str, password: str) -> tuple[str, str] | None:
        """(token, role), or None when the broker refuses the login."""
        role = self.check(user, password)
        if role is None:
            return None
        token = secrets.token_urlsafe(24)
        with self._lock:
            now = self.clock()
            self._tokens = {k: v for k, v in self._tokens.items() if v[2] > now}
            self._tokens[token] = (user, role, now + SESSION_S)
        return token, role

    def get(self, token: str | None) -> tuple[str, str] | None:
        """(user, role) of a live session."""
        with self._lock:
            found = self._tokens.get(token or "")
        if found is None or found[2] <= self.clock():
            return None
        return found[0], found[1]

    def logout(self, token: str | None) -> None:
        with self._lock:
            self._tokens.pop(token or "", None)


def basic_auth(header: str | None) -> tuple[str, str] | None:
    """(user, password) of an ``Authorization: Basic`` header.

    >>> basic_auth("Basic " + base64.b64encode("anne:pw:x".encode()).decode())
    ('anne', 'pw:x')
    """
    if not header or not header.startswith("Basic "):
        return None
    try:
        text = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, sep, password = text.partition(":")
    return (user, password) if sep and user else None


def _filters(q: dict[str, str]) -> dict[str, Any] | str:
    out: dict[str, Any] = {"query": q.get("q", ""), "table": q.get("table") or None,
                           "evening": q.get("evening") or None}
    board = q.get("board")
    if board:
        if not board.isdigit():
            return f"board: expected a number, got {board!r}"
        out["board"] = int(board)
    return out


def login_url(broker_url: str, bind: str) -> str:
    """The broker URL the page logs in to, as the daemon reaches it: ``{host}``
    (the host the page was loaded from) is this machine. Never the request's
    Host header, which the client writes.

    >>> login_url("ws://{host}:9001", "0.0.0.0"), login_url("wss://c.org/mqtt", "::")
    ('ws://127.0.0.1:9001', 'wss://c.org/mqtt')
    """
    here = "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind
    return broker_url.replace("{host}", f"[{here}]" if ":" in here else here)


def dashboard_routes(dash: DashboardConfig, base: str,
                     journals: dict[str, tuple[Path, str | None]],
                     states: Mapping[str, dict[str, Any]]) -> dict[str, Route]:
    """The routes, given what they read: the dashboard's settings, the broker's topic
    ``base`` (logins are checked against its ACL), each table's journal and law code,
    and the last state published per table (a mapping the daemon's core keeps up to
    date; read here, never written)."""
    cache = RecordCache(journals)
    cat = json_response(catalogue.as_json())
    logins = dash.login
    url = login_url(dash.broker_url, dash.bind)
    sessions = Sessions(lambda user, pw: broker_login(url, base, user, pw))

    def who(req: Request) -> tuple[str, str] | None:
        if not logins:
            return ("", "director")
        return sessions.get(req.cookies.get(SESSION_COOKIE))

    def refused(req: Request, director: bool, html: bool = False) -> Response | None:
        me = who(req)
        if me is not None and (not director or me[1] == "director"):
            return None
        why = ("log in on the dashboard first" if me is None
               else f"{me[0]} is a viewer: this is for directors")
        status = HTTPStatus.UNAUTHORIZED if me is None else HTTPStatus.FORBIDDEN
        if html:
            page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>'
                    f'tablesense</title><link rel="icon" href="favicon.svg"></head><body><p>'
                    f'{escape(why)}: <a href="./">the dashboard</a>.</p></body></html>')
            return status, "text/html; charset=utf-8", page.encode(), {}
        return json_response({"ok": False, "error": why}, status)

    def session(req: Request) -> Response:
        token = req.cookies.get(SESSION_COOKIE)
        if "logout" in req.query:
            sessions.logout(token)
            return json_response({"ok": True}, headers={"Set-Cookie": _cookie("", 0)})
        if not logins:
            return json_response({"ok": True, "user": None, "role": "director"})
        given = basic_auth(req.headers.get("authorization"))
        if given is None:
            me = sessions.get(token)
            return json_response({"ok": me is not None, "user": me and me[0],
                                  "role": me and me[1]})
        try:
            made = sessions.login(*given)
        except (OSError, TimeoutError, ValueError) as exc:
            return json_response({"ok": False, "error": f"cannot ask the broker: {exc}"})
        if made is None:
            return json_response({"ok": False, "error": "the broker refused the login"})
        return json_response({"ok": True, "user": given[0], "role": made[1]},
                             headers={"Set-Cookie": _cookie(made[0], SESSION_S)})

    def record_json(req: Request) -> Response:
        no = refused(req, director=False)
        if no is not None:
            return no
        f = _filters(req.query)
        if isinstance(f, str):
            return json_response({"error": f}, HTTPStatus.BAD_REQUEST)
        boards, problems = cache.get()
        return json_response(record.to_json(record.search(boards, **f), problems))

    def report_page(req: Request) -> Response:
        no = refused(req, director=False, html=True)
        if no is not None:
            return no
        f = _filters(req.query)
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
                report.report_html(chosen, title=title, query=f["query"]).encode(), {})

    def dd_json(req: Request) -> Response:
        no = refused(req, director=True)
        if no is not None:
            return no
        # 200 with "ok": false for what the page expects (no position yet, no solver): a
        # 4xx would be logged in the browser's console as a failed resource
        table = req.query.get("table", "")
        state = states.get(table)
        if state is None:
            return json_response({"ok": False, "error": f"no state of table {table!r} yet"})
        try:
            return json_response({"ok": True, **dd.analyse(state)})
        except (dd.DDUnavailable, dd.DDError) as exc:
            return json_response({"ok": False, "error": str(exc)})

    return {"/catalogue.json": lambda req: cat, "/record.json": record_json,
            "/report.html": report_page, "/dd.json": dd_json, "/session": session}


def _cookie(token: str, max_age: int) -> str:
    return (f"{SESSION_COOKIE}={token}; Max-Age={max_age}; Path=/; HttpOnly; "
            "SameSite=Strict")
