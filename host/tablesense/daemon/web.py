"""The director's dashboard: a small static web server inside the daemon.

The page (``tablesense/static/``: index.html, dashboard.js, dashboard.css and
the bundled mqtt.js) talks MQTT over WebSockets straight to the broker, so
any number of directors and screens watch the same retained state and alerts
and the daemon serves only files. The one dynamic thing is ``/config.json``:
where the broker's WebSocket listener is, the base topic, the tables, and
the credentials of a dashboard user if the configuration names one::

    {"v": 1, "broker_url": "ws://{host}:9001", "base": "tablesense",
     "tables": ["1", "2"], "username": "director", "password": "..."}

``{host}`` in ``broker_url`` is filled in by the page with the host name it
was loaded from, so a tablet that opens ``http://club-pc:8080/`` talks to
``ws://club-pc:9001``.

Only ``GET``/``HEAD`` of files in the static folder (no listings); every
answer carries a Content-Security-Policy that allows scripts from this
server only, so even a display bug could not run a script smuggled in a
card name or a note (the page shows all data with ``textContent``).

>>> s = DashboardServer({"v": 1}, bind="127.0.0.1", port=0)
>>> s.start(); s.url.startswith("http://127.0.0.1:")
True
>>> s.stop()
"""

from __future__ import annotations

import json
import logging
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

log = logging.getLogger("tablesense.web")

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")


class _Handler(SimpleHTTPRequestHandler):
    server: _Server

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/config.json":
            self._config(head=False)
            return
        super().do_GET()

    def do_HEAD(self) -> None:
        if self.path.split("?", 1)[0] == "/config.json":
            self._config(head=True)
            return
        super().do_HEAD()

    def _config(self, head: bool) -> None:
        body = self.server.config_body
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def list_directory(self, path: str | Any) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "no listings here")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("event=http client=%s %s", self.address_string(), format % args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    config_body = b"{}"


class DashboardServer:
    """Serves ``static_dir`` and ``/config.json`` on ``bind:port`` (0: any free port)."""

    def __init__(self, settings: dict[str, Any], *, bind: str = "127.0.0.1", port: int = 8080,
                 static_dir: Path = STATIC_DIR) -> None:
        self.settings = settings
        self.bind = bind
        self.port = port
        self.static_dir = static_dir
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind (raises OSError when the port is taken) and serve in a thread."""
        static = str(self.static_dir)

        def handler(*args: Any, **kw: Any) -> _Handler:
            return _Handler(*args, directory=static, **kw)

        server = _Server((self.bind, self.port), handler)
        server.config_body = json.dumps(self.settings, ensure_ascii=False).encode()
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
                       username: str | None = None,
                       password: str | None = None) -> dict[str, Any]:
    """The ``/config.json`` document the page reads first."""
    out: dict[str, Any] = {"v": 1, "broker_url": broker_url, "base": base, "tables": tables}
    if username is not None:
        out["username"] = username
        if password is not None:
            out["password"] = password
    return out
