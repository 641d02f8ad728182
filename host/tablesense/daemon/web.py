"""The director's dashboard: a small web server inside the daemon.

The page (``tablesense/static/``: index.html, dashboard.js, dashboard.css,
the bundled mqtt.js and the favicon) talks MQTT over WebSockets straight to
the broker, so any number of directors and screens watch the same retained
state and alerts, each with his own broker login (the page asks for it; it
is never served). The dynamic documents are:

- ``/config.json``: where the broker's WebSocket listener is, the base
  topic, the tables, a user name to suggest (never a password)::

    {"v": 1, "broker_url": "ws://{host}:9001", "base": "tablesense",
     "tables": ["1", "2"], "login": true, "username": "director"}

  ``{host}`` in ``broker_url`` is filled in by the page with the host name
  it was loaded from, so a tablet that opens ``http://club-pc:8080/`` talks
  to ``ws://club-pc:9001``; ``login: false`` (the demo's anonymous broker)
  connects without asking;
- the *routes* it is handed (made by daemon/api.py, handed over by
  daemon/core.py): the catalogue of kinds and options, the record as JSON
  and as a printable report, the double-dummy analysis of a table.

Only ``GET``/``HEAD`` of files in the static folder (no listings) and of the
routes; every answer carries a Content-Security-Policy that allows scripts
from this server only, so even a display bug could not run a script
smuggled in a card name or a note (the page shows all data with
``textContent``). Workers may also come from ``blob:`` URLs: mqtt.js runs
its keepalive timer in a worker it makes from a blob (a page's timers are
throttled in a background tab, a worker's are not, and a throttled ping
gets the connection dropped); only a script already allowed to run can make
one.

>>> s = DashboardServer({"v": 1}, bind="127.0.0.1", port=0)
>>> s.start(); s.url.startswith("http://127.0.0.1:")
True
>>> s.stop()
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

log = logging.getLogger("tablesense.web")

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self' ws: wss:; worker-src 'self' blob:; object-src 'none'; "
       "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

# A route answers (status, content type, body, extra headers) to a request.
Response = tuple[int, str, bytes, dict[str, str]]


@dataclass(frozen=True)
class Request:
    """What a route sees of a GET: the query's parameters, the headers, the cookies."""

    query: dict[str, str]
    headers: Mapping[str, str]
    cookies: dict[str, str]


Route = Callable[[Request], Response]


class PortTaken(OSError):
    """The dashboard's port is in use: says which and what to do."""


class _Handler(SimpleHTTPRequestHandler):
    server: _Server

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def do_GET(self) -> None:
        if not self._route(head=False):
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._route(head=True):
            super().do_HEAD()

    def _route(self, head: bool) -> bool:
        url = urlsplit(self.path)
        route = self.server.routes.get(url.path)
        if route is None:
            return False
        cookies = SimpleCookie()
        with contextlib.suppress(CookieError):
            cookies.load(self.headers.get("Cookie", ""))
        request = Request(dict(parse_qsl(url.query)), {k.lower(): v for k, v in
                                                       self.headers.items()},
                          {k: m.value for k, m in cookies.items()})
        try:
            status, ctype, body, extra = route(request)
        except Exception:  # a bug in a route must not take the page down
            log.exception("event=dashboard-route-failed path=%s", url.path)
            status, ctype = HTTPStatus.INTERNAL_SERVER_ERROR, "application/json; charset=utf-8"
            body, extra = b'{"error":"internal error: see the daemon log"}', {}
        self.send_response(status)
        for k, v in extra.items():
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)
        return True

    def list_directory(self, path: str | Any) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "no listings here")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("event=http client=%s %s", self.address_string(), format % args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    routes: Mapping[str, Route] = {}


def json_response(obj: Any, status: int = HTTPStatus.OK,
                  headers: dict[str, str] | None = None) -> Response:
    return status, "application/json; charset=utf-8", json.dumps(
        obj, ensure_ascii=False, separators=(",", ":")).encode(), headers or {}


class DashboardServer:
    """Serves ``static_dir``, ``/config.json`` and ``routes`` on ``bind:port`` (0: any free)."""

    def __init__(self, settings: dict[str, Any], *, bind: str = "127.0.0.1", port: int = 8080,
                 static_dir: Path = STATIC_DIR, routes: Mapping[str, Route] | None = None,
                 source: str = "the configuration") -> None:
        self.settings = settings
        self.routes = dict(routes or {})
        self.source = source
        self.bind = bind
        self.port = port
        self.static_dir = static_dir
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind (raises :class:`PortTaken`, an OSError, when the port is in use) and serve."""
        static = str(self.static_dir)

        def handler(*args: Any, **kw: Any) -> _Handler:
            return _Handler(*args, directory=static, **kw)

        try:
            server = _Server((self.bind, self.port), handler)
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                why = ("is in use by another program (another tablesense?)"
                       if exc.errno == errno.EADDRINUSE else "needs privileges to bind")
                raise PortTaken(exc.errno, f"the dashboard's port {self.port} on {self.bind} "
                                f"{why}: set [dashboard] port in {self.source} to a free one "
                                "(0: any free port)") from exc
            raise
        config = json_response(self.settings)
        server.routes = {"/config.json": lambda r: config,
                         "/favicon.ico": lambda r: (HTTPStatus.OK, "image/svg+xml",
                                                    (self.static_dir / "favicon.svg").read_bytes(),
                                                    {}),
                         **self.routes}
        self._server = server
        self.port = int(server.server_address[1])
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="dashboard", daemon=True)
        self._thread.start()
        log.info("event=dashboard-listening url=%s", self.url)

    @property
    def url(self) -> str:
        """Where to point a browser on this machine."""
        host = self.bind
        if host in ("", "0.0.0.0"):
            host = "127.0.0.1"
        elif host == "::":
            host = "[::1]"
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def stop(self, timeout: float = 2.0) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout)
        self._server = None


def dashboard_settings(base: str, broker_url: str, tables: list[str],
                       username: str | None = None, login: bool = True) -> dict[str, Any]:
    """The ``/config.json`` document the page reads first: never a password."""
    out: dict[str, Any] = {"v": 1, "broker_url": broker_url, "base": base, "tables": tables,
                           "login": login}
    if username is not None:
        out["username"] = username
    return out
