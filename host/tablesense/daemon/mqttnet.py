"""The MQTT client's network traffic, on a selector of our own (epoll on Linux).

paho's own network thread (``loop_start``) waits on its socket with
``select()``, which takes only descriptors below ``FD_SETSIZE`` (1024). A room's
daemon holds thousands of descriptors (ports, journals, the outbox), so
a connection made after the ports are open (any reconnect) gets a descriptor
above 1024 and paho's loop fails on it (``ValueError: filedescriptor out of
range in select()``) for as long as it tries. Here one thread drives the
client through paho's interface for external loops (``loop_read``,
``loop_write``, ``loop_misc``, ``socket``, ``reconnect``) and waits with
:mod:`selectors`, which has no such limit.

Also: paho's thread is woken for every message published (one byte written
to a socket pair each time); here a publish wakes the thread only when the
client had nothing to write before (``on_socket_register_write``), so a
burst of state and health messages is one wake-up and one write.

Reconnects as paho's loop does: after a lost or refused connection, the
next try after ``min_delay_s``, doubling up to ``max_delay_s``, back to the
minimum once connected. The module does not import paho: it drives any
client with the methods of :class:`NetClient`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import threading
import time
from typing import Any, Protocol

log = logging.getLogger("tablesense.mqtt")

MISC_S = 1.0  # the longest wait: keepalive pings are paho's loop_misc's


class NetClient(Protocol):
    """What the loop drives (``paho.mqtt.client.Client``)."""

    on_socket_register_write: Any

    def socket(self) -> Any: ...

    def want_write(self) -> bool: ...

    def loop_read(self, max_packets: int = 1) -> int: ...

    def loop_write(self) -> int: ...

    def loop_misc(self) -> int: ...

    def reconnect(self) -> int: ...

    def is_connected(self) -> bool: ...


class NetLoop:
    """One thread serving one MQTT client's socket; start after ``connect_async``."""

    def __init__(self, client: NetClient, name: str = "mqtt-net",
                 min_delay_s: float = 1.0, max_delay_s: float = 5.0) -> None:
        self.client = client
        self.name = name
        self.min_delay_s = min_delay_s
        self.max_delay_s = max_delay_s
        self.connects = 0  # sockets opened (tries that reached the broker's port)
        self._delay = min_delay_s
        self._next_try = 0.0
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._pipe_lock = threading.Lock()
        # one writer at a time: this thread, or a caller of flush()
        self._write_lock = threading.Lock()
        self._sock: object = None  # the socket watched, and its descriptor
        self._fd: int | None = None
        self._events = 0
        self._stop = threading.Event()
        self._closing = threading.Event()  # no reconnect: the client is disconnecting
        self._thread: threading.Thread | None = None
        client.on_socket_register_write = lambda _c, _u, _s: self.wake()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """After the client's ``disconnect()``: let its DISCONNECT go out (within
        ``timeout``), then end the thread; never reconnects meanwhile."""
        self._closing.set()
        self.wake()
        deadline = time.monotonic() + timeout
        while self.client.socket() is not None and time.monotonic() < deadline \
                and self._thread is not None and self._thread.is_alive():
            time.sleep(0.01)
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(max(0.1, deadline - time.monotonic()))
        if self._thread is None or not self._thread.is_alive():
            with contextlib.suppress(OSError):
                self._selector.close()
            with self._pipe_lock:
                for fd in (self._wake_r, self._wake_w):
                    with contextlib.suppress(OSError):
                        os.close(fd)
                self._wake_r = self._wake_w = -1

    def wake(self) -> None:
        """Have the thread look at the client now (something to write, stopping)."""
        with self._pipe_lock:
            if self._wake_w >= 0:
                with contextlib.suppress(BlockingIOError, OSError):
                    os.write(self._wake_w, b"x")

    def flush(self) -> None:
        """Write what the client has queued now, from the caller's thread, unless the
        loop is writing (then it does): an alert leaves without waiting for a hand-over."""
        if self._write_lock.acquire(blocking=False):
            try:
                if self.client.socket() is not None and self.client.want_write():
                    self.client.loop_write()
            finally:
                self._write_lock.release()

    # -- the thread -----------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._once()
            except Exception:  # never lose the broker for a bug: log, go on
                log.exception("event=mqtt-loop-error")
                time.sleep(0.1)
        self._watch(None, None)

    def _once(self) -> None:
        c = self.client
        sock = c.socket()
        if sock is None:
            self._watch(None, None)
            if self._closing.is_set():
                self._wait(MISC_S)
                return
            now = time.monotonic()
            if now < self._next_try:
                self._wait(self._next_try - now)
                return
            self._connect()
            return
        self._watch(sock, sock.fileno(), c.want_write())
        pending = sock.pending() if hasattr(sock, "pending") else 0  # TLS: bytes read ahead
        readable = pending > 0
        for key, events in self._selector.select(0 if readable else MISC_S):
            if key.data is None:
                self._drain_wake()
            elif events & selectors.EVENT_READ:
                readable = True
        if readable and c.loop_read() != 0:
            self._lost()
            return
        if c.socket() is not None and c.want_write():
            with self._write_lock:
                rc = c.loop_write()
            if rc != 0:
                self._lost()
                return
        if c.socket() is not None:
            c.loop_misc()
        if c.socket() is None:
            self._lost()
        elif c.is_connected():
            self._delay = self.min_delay_s

    def _connect(self) -> None:
        try:
            self.client.reconnect()
            self.connects += 1
        except Exception as exc:  # refused, unreachable, TLS: try again later
            log.debug("event=broker-connect-failed error=%r", str(exc))
            self._lost()

    def _lost(self) -> None:
        """The connection is gone (or never came): the next try after the backoff."""
        if self.client.socket() is not None:
            return
        self._watch(None, None)
        self._next_try = time.monotonic() + self._delay
        self._delay = min(self._delay * 2, self.max_delay_s)

    def _watch(self, sock: object, fd: int | None, write: bool = False) -> None:
        """Wait on ``sock`` (descriptor ``fd``; for writing too if ``write``); None: on
        no socket. A new socket may have the descriptor of the one closed before it."""
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if write else 0)
        if sock is not self._sock or fd != self._fd:
            if self._fd is not None:  # closed by paho by now: epoll forgot it already
                with contextlib.suppress(KeyError, ValueError, OSError):
                    self._selector.unregister(self._fd)
            self._sock, self._fd = None, None
            if sock is not None and fd is not None and fd >= 0:
                self._selector.register(fd, events, fd)
                self._sock, self._fd, self._events = sock, fd, events
        elif fd is not None and events != self._events:
            self._selector.modify(fd, events, fd)
            self._events = events

    def _wait(self, seconds: float) -> None:
        for key, _ in self._selector.select(max(0.0, min(seconds, MISC_S))):
            if key.data is None:
                self._drain_wake()

    def _drain_wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(self._wake_r, 4096)
