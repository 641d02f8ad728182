"""The ports a real camera board speaks on, besides the simulated board's pty.

A camera board is a computer (a single-board computer beside the table) that
runs ``tablesense camera``; its frames reach the daemon on one of:

* :class:`PortWire`: a serial port, any pyserial URL (a USB gadget's
  ``/dev/ttyGS0``, a USB-serial adapter's ``/dev/ttyUSB0``, or
  ``socket://host:port`` towards a serial-over-TCP bridge that listens),
  opened through :mod:`tablesense.daemon.ports` (the one module that imports
  pyserial); a port that fails is opened again, never given up;
* :class:`ListenWire`: a TCP port the daemon connects to, its reader's
  ``port`` being ``socket://board:port``; one daemon at a time (a new
  connection replaces the old one, as a host reopening a serial port does).

Either way the bytes are the wire protocol's frames, exactly as a reader
board sends them over USB serial (hardware/protocol.md).
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import time

from tablesense.daemon.ports import Port, PortError, open_port, read_some

REOPEN_S = 1.0


class PortWire:
    """A serial port (a pyserial URL) the board writes its frames to."""

    def __init__(self, url: str) -> None:
        self.port = url
        self._p: Port | None = open_port(url, timeout=0.0)  # PortError: the caller says so
        self._retry = 0.0

    def write(self, data: bytes) -> None:
        p = self._p
        if p is None:
            return
        fd = getattr(p, "fd", None)
        try:
            if isinstance(fd, int) and fd >= 0:
                with contextlib.suppress(BlockingIOError):  # a host not reading: dropped
                    os.write(fd, data)
            else:
                p.write(data)
        except OSError:
            self._lost()

    def read(self, timeout: float) -> bytes:
        p = self._p
        if p is None:
            if time.monotonic() >= self._retry:
                with contextlib.suppress(PortError):
                    self._p = open_port(self.port, timeout=0.0)
            time.sleep(timeout)
            return b""
        fd = getattr(p, "fd", None)
        try:
            if isinstance(fd, int) and fd >= 0:
                ready, _, _ = select.select([fd], [], [], timeout)
                if not ready:
                    return b""
            else:
                time.sleep(timeout)
            return read_some(p)
        except (OSError, ValueError):
            self._lost()
            return b""

    def _lost(self) -> None:
        if self._p is not None:
            with contextlib.suppress(Exception):
                self._p.close()
        self._p = None
        self._retry = time.monotonic() + REOPEN_S

    def close(self) -> None:
        self._lost()


class ListenWire:
    """A TCP port the daemon opens as ``socket://HOST:PORT``; ``port`` is that URL."""

    def __init__(self, host: str = "0.0.0.0", port: int = 0) -> None:
        self._server = socket.create_server((host, port))
        self._server.setblocking(False)
        bound = self._server.getsockname()[1]
        shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
        self.port = f"socket://{shown}:{bound}"
        self._conn: socket.socket | None = None

    def write(self, data: bytes) -> None:
        conn = self._conn
        if conn is None:
            return  # no daemon yet: dropped (HELLO repeats; a RESEND recovers the rest)
        try:
            conn.sendall(data)
        except OSError:
            self._drop(conn)

    def read(self, timeout: float) -> bytes:
        server, conn = self._server, self._conn
        if server.fileno() < 0:
            time.sleep(timeout)
            return b""
        watch = [server] if conn is None else [server, conn]
        try:
            ready, _, _ = select.select(watch, [], [], timeout)
        except (OSError, ValueError):
            return b""
        if server in ready:
            with contextlib.suppress(BlockingIOError, OSError):
                new, _ = server.accept()
                new.setblocking(True)
                new.settimeout(1.0)  # a daemon that stops reading does not hang the board
                new.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if conn is not None:
                    self._drop(conn)
                self._conn = conn = new
        if conn is not None and conn in ready:
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                self._drop(conn)
            return data
        return b""

    def _drop(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            conn.close()
        if self._conn is conn:
            self._conn = None

    def close(self) -> None:
        if self._conn is not None:
            self._drop(self._conn)
        with contextlib.suppress(OSError):
            self._server.close()
