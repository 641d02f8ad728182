"""One thread for every reader link: a selector over their ports, and timers.

A room has hundreds of readers, each sending a few frames a second, and the
daemon's threads must not grow with them: a thread a reader wakes at each
read timeout and hands the interpreter lock over with each frame, and the
alerts wait behind those hand-overs. Here one thread waits on every port's
descriptor at once (``selectors``, epoll on Linux) and on a wake-up pipe.
Each wake-up:

1. reads every port that is readable (what is waiting, once each) and hands
   the bytes to its link, which decodes them and delivers frames to its
   sink;
2. runs what other threads asked for (:meth:`call_soon`);
3. calls ``on_wake`` once: the daemon's core does its whole batch there
   (journal, engine, one group commit, alerts), in this same thread;
4. services every link that had input, and every link every ``service_s``
   (in turns: a slice of them each ``interval_s``)
   (sequencer timeouts, RESEND, CONFIG retries and ACKs, heartbeat
   timeouts, reopening closed ports with backoff), so ACKs follow the core's
   journal writes.

It sleeps at most ``interval_s``, so ``on_wake`` also runs when no port has
input (the core's clock: incident windows close on time).

Ports without a descriptor (pyserial's ``loop://``) are polled at each
service. Nothing here blocks but the selector; a link that cannot open its
port is retried later, never waited for.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import selectors
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("tablesense.loop")

INTERVAL_S = 0.02  # the longest sleep: on_wake (the core's clock) runs at least this often
SERVICE_S = 0.05  # every link's timers at least this often: a fifth of the shortest (ACKs, 250 ms)


class Served(Protocol):
    """What the loop drives (a :class:`~tablesense.daemon.link.ReaderLink`)."""

    def attach(self, loop: LinkLoop) -> None: ...

    def on_readable(self, now_ms: int) -> None: ...

    def service(self, now_ms: int) -> None: ...

    def shutdown(self) -> None: ...


def now_ms() -> int:
    return int(time.time() * 1000)


class LinkLoop:
    """The links' thread. ``on_wake`` (optional) runs once per wake-up, in it."""

    def __init__(self, name: str = "links", interval_s: float = INTERVAL_S,
                 on_wake: Callable[[], None] | None = None,
                 service_s: float = SERVICE_S) -> None:
        self.name = name
        self.interval_s = interval_s
        self.service_s = service_s
        self.on_wake = on_wake
        self.selector = selectors.DefaultSelector()
        self.links: list[Served] = []
        self.polled: set[Served] = set()  # ports without a descriptor
        self._calls: deque[Callable[[], None]] = deque()
        self._pipe_lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.wakeups = 0
        self._turn = -1  # the link serviced last (round robin)

    # -- set-up --------------------------------------------------------------
    def add(self, link: Served) -> None:
        """Serve ``link`` (before :meth:`start`, or from the loop's own thread)."""
        self.links.append(link)
        link.attach(self)

    def watch(self, fd: int, link: Served) -> None:
        """Wake for input on ``fd`` (the loop's thread only)."""
        self.selector.register(fd, selectors.EVENT_READ, link)

    def unwatch(self, fd: int) -> None:
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.selector.unregister(fd)

    def poll(self, link: Served, on: bool) -> None:
        if on:
            self.polled.add(link)
        else:
            self.polled.discard(link)

    # -- other threads ---------------------------------------------------------
    def call_soon(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` in the loop's thread at its next wake-up (thread-safe)."""
        self._calls.append(fn)
        self.wake()

    def wake(self) -> None:
        with self._pipe_lock:  # never a write to a closed (and maybe reused) descriptor
            if self._wake_w >= 0:
                with contextlib.suppress(BlockingIOError, OSError):
                    os.write(self._wake_w, b"x")

    def start(self) -> None:
        """Open every link's port now, in the caller's thread, then serve them.

        A reader that speaks as soon as :meth:`start` returns is heard: opening a
        tty flushes what was written to it before, so ports opened later, by the
        thread, would drop a HELLO sent meanwhile.
        """
        t = now_ms()
        for link in self.links:
            self._guard(link.service, t)
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread; every link closes its port."""
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._thread is None or not self._thread.is_alive():
            for link in self.links:
                with contextlib.suppress(Exception):
                    link.shutdown()
            with contextlib.suppress(OSError):
                self.selector.close()
            with self._pipe_lock:
                for fd in (self._wake_r, self._wake_w):
                    with contextlib.suppress(OSError):
                        os.close(fd)
                self._wake_r = self._wake_w = -1

    @property
    def in_thread(self) -> bool:
        return threading.current_thread() is self._thread

    # -- the thread --------------------------------------------------------------
    def _run(self) -> None:
        next_service = time.monotonic()
        while not self._stop.is_set():
            timeout = min(self.interval_s, max(0.0, next_service - time.monotonic()))
            try:
                ready = self.selector.select(timeout)
            except OSError:  # a descriptor closed under us: the links notice on service
                log.exception("event=loop-select-error")
                ready = []
            self.wakeups += 1
            t = now_ms()
            had_input: list[Served] = []
            for key, _ in ready:
                link = key.data
                if link is None:
                    with contextlib.suppress(BlockingIOError, OSError):
                        os.read(self._wake_r, 4096)
                    continue
                had_input.append(link)
                self._guard(link.on_readable, t)
            for link in list(self.polled):
                had_input.append(link)
                self._guard(link.on_readable, t)
            while self._calls:
                fn = self._calls.popleft()
                try:
                    fn()
                except Exception:
                    log.exception("event=loop-call-error")
            if self.on_wake is not None:
                try:
                    self.on_wake()
                except Exception:
                    log.exception("event=loop-core-error")
            for link in had_input:
                self._guard(link.service, t)
            now = time.monotonic()
            if now >= next_service and self.links:
                # The links take turns: a slice every interval_s, so that each is
                # serviced every service_s and 500 of them do not stall a wake-up.
                next_service = now + self.interval_s
                share = max(1, math.ceil(len(self.links) * self.interval_s / self.service_s))
                for _ in range(min(share, len(self.links))):
                    self._turn = (self._turn + 1) % len(self.links)
                    self._guard(self.links[self._turn].service, t)
        if self.on_wake is not None:  # what arrived before the stop is still processed
            with contextlib.suppress(Exception):
                self.on_wake()

    @staticmethod
    def _guard(fn: Callable[[int], None], t: int) -> None:
        try:
            fn(t)
        except Exception:  # a bug in one link must not stop the others
            log.exception("event=link-error")
