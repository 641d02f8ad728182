"""The demo's embedded MQTT broker: amqtt, in-process, with a WebSocket listener.

``tablesense demo`` without ``--broker`` needs a broker that comes with the
Python package: amqtt (an asyncio MQTT broker, MIT) runs on its own event
loop in a background thread, with a TCP listener for the daemon and a
WebSocket listener for the dashboard, both on loopback. Anonymous access,
no persistence: it lives as long as the demo.

amqtt speaks MQTT 3.1.1 only (a v5 CONNECT is refused with "unsupported
protocol version"), so the demo's daemon connects with ``broker.protocol =
4`` and the dashboard's mqtt.js uses 3.1.1, its default. A real club runs
mosquitto (examples/mosquitto/), which speaks both.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import Any

log = logging.getLogger("tablesense.demo.broker")


class BrokerError(RuntimeError):
    """The embedded broker could not start."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class EmbeddedBroker:
    """amqtt on ``host``: MQTT on ``port``, MQTT over WebSockets on ``ws_port`` (0: any free)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, ws_port: int = 0) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.ws_port = ws_port or free_port(host)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.host}:{self.ws_port}"

    def config(self) -> dict[str, Any]:
        return {
            "listeners": {
                "default": {"type": "tcp", "bind": f"{self.host}:{self.port}"},
                "ws": {"type": "ws", "bind": f"{self.host}:{self.ws_port}"},
            },
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            },
        }

    def start(self, timeout: float = 10.0) -> None:
        # amqtt logs a line per packet at INFO, and a traceback at ERROR each time a
        # browser tab closes its WebSocket: for a demo, its critical messages only.
        logging.getLogger("amqtt").setLevel(logging.CRITICAL)
        logging.getLogger("transitions").setLevel(logging.WARNING)
        self._thread = threading.Thread(target=self._run, name="embedded-broker", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise BrokerError(f"amqtt did not start within {timeout} s")
        if self._error is not None:
            raise BrokerError(f"amqtt could not start: {self._error}") from self._error
        log.info("event=broker-started mqtt=%s ws=%s", self.url, self.ws_url)

    def stop(self, timeout: float = 2.0) -> bool:
        """Shut the broker down; False if it did not finish within ``timeout``.

        A client that neither disconnects nor answers (a browser tab left
        open, a paho client without a loop) holds amqtt's shutdown for its
        WebSocket close timeout; the thread is a daemon thread, so a demo
        that is exiting does not wait for it.
        """
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread is None:
            return True
        self._thread.join(timeout)
        done = not self._thread.is_alive()
        if not done:
            log.info("event=broker-stop-pending reason=clients-still-connected")
        self._thread = None
        return done

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to start(), or logged after it
            if not self._ready.is_set():
                self._error = exc
            else:
                log.exception("event=broker-failed")
        finally:
            self._ready.set()
            _cancel_all(loop)
            loop.close()

    async def _serve(self) -> None:
        from amqtt.broker import Broker  # type: ignore[import-untyped]  # only the demo needs it

        self._stop = asyncio.Event()
        broker = Broker(self.config())
        await broker.start()
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await broker.shutdown()


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what amqtt left running, so closing the loop is quiet."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for t in tasks:
        t.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
