"""The MQTT publisher: the only module that imports paho.

Three kinds of traffic, three policies:

* **Alerts** (``<base>/<table>/alert``, QoS 1, never retained) come only from
  the :class:`~tablesense.daemon.outbox.Outbox`. A pump thread hands the
  oldest pending rows to paho, at most ``max_inflight`` unacknowledged at a
  time (so a long outage does not become a flood on reconnect, and memory
  stays bounded), and marks a row acknowledged when its PUBACK arrives
  (``on_publish`` with the message id). paho keeps unacknowledged QoS 1
  messages across reconnects and sends them again with the DUP flag, so
  order is kept; after a daemon restart the outbox supplies them again.
* **Retained state** (bridge, table state, reader health) is "latest value
  wins": it is kept in memory, published when connected and all of it again
  on every (re)connect. Nothing is queued for it during an outage.
* **Command responses** are best effort (QoS 1, not retained, not stored).

The bridge state is retained with a will of ``{"state":"offline"}`` so that
the dashboard learns of a crashed daemon from the broker.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
import threading
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from tablesense.daemon.config import BrokerConfig
from tablesense.daemon.mqttnet import NetLoop
from tablesense.daemon.outbox import Outbox
from tablesense.daemon.topics import OFFLINE, ONLINE, Topics

log = logging.getLogger("tablesense.mqtt")

# (table, payload, by): ``by`` is the sender's broker login when the command came
# on ``<base>/<table>/cmd/by/<user>`` (see topics.py), else None.
CommandHandler = Callable[[str, bytes, str | None], None]


def _client(cfg: BrokerConfig, client_id: str) -> mqtt.Client:
    """A paho client with the configuration's protocol, transport, login and TLS."""
    protocol = mqtt.MQTTv5 if cfg.protocol == 5 else mqtt.MQTTv311
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=protocol, transport=cfg.transport)  # type: ignore[arg-type]
    if cfg.username is not None:
        client.username_pw_set(cfg.username, cfg.password)
    if cfg.tls is not None:
        client.tls_set(
            ca_certs=str(cfg.tls.ca) if cfg.tls.ca else None,
            certfile=str(cfg.tls.cert) if cfg.tls.cert else None,
            keyfile=str(cfg.tls.key) if cfg.tls.key else None,
            cert_reqs=ssl.CERT_NONE if cfg.tls.insecure else ssl.CERT_REQUIRED,
        )
        client.tls_insecure_set(cfg.tls.insecure)
    return client


class Publisher:
    """Connects to the broker, drains the outbox, keeps retained state current."""

    def __init__(self, cfg: BrokerConfig, outbox: Outbox,
                 on_command: CommandHandler | None = None,
                 on_claim: Callable[[bytes], None] | None = None) -> None:
        self.cfg = cfg
        self.topics = Topics(cfg.base)
        self.outbox = outbox
        self.on_command = on_command
        # the base's claim (daemon/claim.py): watched once ours is published, so a
        # daemon taking the base over is seen (and this one stops publishing)
        self.on_claim = on_claim
        self.taken_over = False  # set by the core: say nothing more, not even offline
        self.max_inflight = cfg.max_inflight
        self.inflight_peak = 0
        self.delivered = 0
        self.connects = 0
        self._retained: dict[str, bytes] = {self.topics.bridge_state: ONLINE}
        self._lock = threading.Lock()
        # one thread at a time hands rows to paho and matches their acks (the pump,
        # or the core itself when the pump is not at it: kick)
        self._hand_lock = threading.Lock()
        self._acks: list[tuple[int, bool]] = []
        self._inflight: dict[int, int] = {}  # paho mid -> outbox seq
        self._handed = 0  # highest outbox seq handed to paho
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._stopping = threading.Event()
        self._connected = threading.Event()
        self._listening = threading.Event()  # the broker granted the command subscription
        self._pump: threading.Thread | None = None
        self.client = self._make_client()
        # the client's network thread: ours, on epoll (paho's select() takes no
        # descriptor above 1024; a room's daemon holds thousands)
        self._net = NetLoop(self.client, name="mqtt", min_delay_s=1.0, max_delay_s=5.0)

    # -- setup -------------------------------------------------------------
    def _make_client(self) -> mqtt.Client:
        client = _client(self.cfg, self.cfg.client_id)
        client.will_set(self.topics.bridge_state, OFFLINE, qos=1, retain=True)
        # paho's own window stays off (0): the pump windows alerts (max_inflight), and
        # paho walks every message it queued past a window on each PUBACK.
        client.max_inflight_messages_set(0)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_subscribe = self._on_subscribe
        return client

    def start(self) -> None:
        """Connect in the background (retrying while the broker is down)."""
        self.client.connect_async(self.cfg.host, self.cfg.port, keepalive=self.cfg.keepalive)
        self._net.start()
        self._pump = threading.Thread(target=self._run_pump, name="outbox-pump", daemon=True)
        self._pump.start()
        self._wake.set()

    def stop(self, timeout: float = 2.0) -> None:
        """Say offline (retained), then disconnect; pending alerts stay in the outbox."""
        self._stopping.set()
        self._wake.set()
        if self._pump is not None:
            self._pump.join(timeout)
        if self._connected.is_set() and not self.taken_over:
            info = self.client.publish(self.topics.bridge_state, OFFLINE, qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self.client.disconnect()
        self._net.stop(timeout)

    # -- what the core calls --------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def wait_listening(self, timeout: float) -> bool:
        """Wait until commands published on the broker reach this daemon."""
        return self._listening.wait(timeout)

    def kick(self) -> None:
        """New rows are in the outbox: hand them on, from this thread if the pump is
        not at it (an alert then goes from the core to paho without a thread hop)."""
        self._idle.clear()
        if self._pump is not None and not self._stopping.is_set() \
                and self._hand_lock.acquire(blocking=False):
            try:
                self._drain_acks()
                self._hand_on()
                return
            except Exception:  # e.g. sqlite busy: the pump tries again
                log.exception("event=outbox-hand-on-error")
            finally:
                self._hand_lock.release()
        self._wake.set()

    def set_retained(self, topic: str, payload: bytes) -> None:
        """Record the latest value of a retained topic; publish it if connected."""
        with self._lock:
            if self._retained.get(topic) == payload:
                return
            self._retained[topic] = payload
        if self._connected.is_set() and not self.taken_over:
            self.client.publish(topic, payload, qos=1, retain=True)

    def send(self, topic: str, payload: bytes) -> None:
        """Best-effort QoS 1 message (command responses); dropped while offline."""
        if self._connected.is_set() and not self.taken_over:
            self.client.publish(topic, payload, qos=1, retain=False)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every alert in the outbox is acknowledged (tests, shutdown)."""
        self.kick()
        return self._idle.wait(timeout)

    def inflight(self) -> int:
        with self._lock:
            return len(self._inflight)

    # -- paho callbacks (network thread) ---------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: mqtt.ConnectFlags,
                    reason: ReasonCode, props: Properties | None) -> None:
        if reason.is_failure:
            log.warning("event=broker-refused reason=%r", str(reason))
            return
        self.connects += 1
        self._connected.set()
        log.info("event=broker-connected host=%s port=%d connects=%d",
                 self.cfg.host, self.cfg.port, self.connects)
        with self._lock:
            retained = dict(self._retained)
        for topic, payload in retained.items():
            client.publish(topic, payload, qos=1, retain=True)
        client.subscribe(self.topics.all_cmds, qos=1)
        client.subscribe(self.topics.all_cmds_by, qos=1)
        if self.on_claim is not None:  # after ours is published: the next one is another's
            client.subscribe(self.topics.bridge_daemon, qos=1)
        self._wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: mqtt.DisconnectFlags,
                       reason: ReasonCode, props: Properties | None) -> None:
        if self._connected.is_set():
            log.warning("event=broker-lost reason=%r", str(reason))
        self._connected.clear()
        self._listening.clear()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int,
                      reasons: list[ReasonCode], props: Properties | None) -> None:
        if reasons and not any(r.is_failure for r in reasons):
            self._listening.set()

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int,
                    reason: ReasonCode, props: Properties) -> None:
        # Called with paho's message lock held: only record, the pump does the rest.
        # Only an alert's PUBACK may wake the pump (and its outbox query): state and
        # health are QoS 1 too, hundreds a second in a full room. An alert's is one
        # in flight, or one whose row is being handed on right now (its message id
        # may not be recorded yet: the hand lock is held until it is).
        with self._lock:
            if mid not in self._inflight and not self._hand_lock.locked():
                return
            self._acks.append((mid, reason.is_failure))
        self._wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == self.topics.bridge_daemon:
            if self.on_claim is not None:
                self.on_claim(bytes(msg.payload))
            return
        source = self.topics.command_source(msg.topic)
        if source is None or self.on_command is None:
            return
        table, by = source
        try:
            self.on_command(table, bytes(msg.payload), by)
        except Exception:  # a bad handler must not kill paho's thread
            log.exception("event=command-handler-failed table=%s", table)

    # -- the pump ------------------------------------------------------------
    def _run_pump(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            if self.taken_over:  # another daemon holds the base: its alerts, not ours
                continue
            try:
                # Acks are matched under the same lock as rows are handed on: a
                # PUBACK can arrive before the thread that published its row has
                # recorded the message id, and must wait for it, not be dropped.
                with self._hand_lock:
                    self._drain_acks()
                    self._hand_on()
            except Exception:  # e.g. sqlite busy; try again on the next wake
                log.exception("event=outbox-pump-error")

    def _drain_acks(self) -> None:
        with self._lock:
            acks, self._acks = self._acks, []
            done = [(self._inflight.pop(mid), failed) for mid, failed in acks
                    if mid in self._inflight]
        for seq, failed in done:
            if failed:
                log.error("event=alert-refused-by-broker seq=%d", seq)
            self.outbox.ack(seq, "refused" if failed else "acked")
            self.delivered += 1

    def _hand_on(self) -> None:
        while True:
            with self._lock:
                room = self.max_inflight - len(self._inflight)
            if room <= 0:
                return
            batch = self.outbox.pending(after=self._handed, limit=room)
            if not batch:
                with self._lock:
                    if not self._inflight:
                        self._idle.set()
                return
            for m in batch:
                info = self.client.publish(m.topic, m.payload, qos=m.qos, retain=False)
                if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
                    log.warning("event=publish-failed rc=%s seq=%d", info.rc, m.seq)
                    return
                with self._lock:
                    self._inflight[info.mid] = m.seq
                    self.inflight_peak = max(self.inflight_peak, len(self._inflight))
                self._handed = m.seq
            self._net.flush()  # alerts go out from this thread, no hand-over


def read_retained(cfg: BrokerConfig, topics: list[str], timeout: float = 5.0) -> dict[str, bytes]:
    """The messages retained on ``topics`` now (a short-lived client of its own id).

    The client subscribes to them and to a marker topic of its own, then sends
    the marker: the broker delivers the retained messages as it takes the
    subscription, before the marker, so once the marker is back every retained
    message is in. Raises TimeoutError when the broker does not answer.
    """
    nonce = uuid.uuid4().hex[:12]
    marker = Topics(cfg.base).bridge_probe(nonce)
    got: dict[str, bytes] = {}
    done = threading.Event()
    failed: list[str] = []

    def on_connect(c: mqtt.Client, ud: Any, f: Any, rc: ReasonCode, p: Any) -> None:
        if rc.is_failure:
            failed.append(str(rc))
            done.set()
            return
        c.subscribe([(t, 1) for t in [*topics, marker]])

    def on_subscribe(c: mqtt.Client, ud: Any, mid: int, rcs: list[ReasonCode], p: Any) -> None:
        if any(r.is_failure for r in rcs):
            failed.append("subscription refused (the broker's ACL?)")
            done.set()
            return
        c.publish(marker, b"", qos=1)

    def on_message(c: mqtt.Client, ud: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == marker:
            done.set()
        elif msg.retain:
            got[msg.topic] = bytes(msg.payload)

    client = _client(cfg, f"{cfg.client_id}-probe-{nonce}")
    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    _exchange(client, "mqtt-probe", f"{cfg.host}:{cfg.port}", done, timeout,
              lambda: client.connect(cfg.host, cfg.port, keepalive=10))  # refused: OSError
    if failed:
        raise ConnectionError(f"the broker at {cfg.host}:{cfg.port}: {failed[0]}")
    return got


def broker_login(url: str, base: str, username: str, password: str,
                 timeout: float = 5.0) -> str | None:
    """Log in as ``username`` to the broker at ``url`` (the dashboard's
    ``ws://`` or ``wss://`` URL, the one the page logs in to): None if the
    broker refuses the login, else what its ACL lets him do: ``"director"``
    when it lets him send commands under his name, ``"viewer"`` otherwise.

    The dashboard's documents (daemon/api.py) are given to a broker login, as
    the page's MQTT is: the broker stays the one place where users and
    passwords live. The question asked is the page's own (dashboard.js,
    ``probeRole``): a QoS 1 command, MQTT v5, to the table ``~role`` that does
    not exist, on ``<base>/~role/cmd/by/<login>``; PUBACK "not authorized"
    (0x87) means a viewer. The daemon answers it "no table here".
    """
    u = urlsplit(url)
    if u.scheme not in ("ws", "wss") or not u.hostname:
        raise ValueError(f"expected a ws:// or wss:// URL, got {url!r}")
    done = threading.Event()
    result: dict[str, Any] = {}

    def on_connect(c: mqtt.Client, ud: Any, f: Any, rc: ReasonCode, p: Any) -> None:
        result["rc"] = rc
        if rc.is_failure:
            done.set()
            return
        info = c.publish(f"{base}/~role/cmd/by/{username}", b'{"type":"whoami"}', qos=1)
        result["mid"] = info.mid

    def on_publish(c: mqtt.Client, ud: Any, mid: int, rc: ReasonCode, p: Any) -> None:
        if mid == result.get("mid"):
            result["pub"] = rc
            done.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                         transport="websockets")
    client.ws_set_options(path=u.path or "/")
    client.username_pw_set(username, password)
    if u.scheme == "wss":
        client.tls_set()
    client.on_connect = on_connect
    client.on_publish = on_publish
    host, port = u.hostname, u.port or (443 if u.scheme == "wss" else 80)
    _exchange(client, "mqtt-login", url, done, timeout,
              lambda: client.connect_async(host, port, keepalive=10))
    if result["rc"].is_failure:
        return None
    pub = result.get("pub")
    return "viewer" if pub is not None and pub.is_failure else "director"


def _exchange(client: mqtt.Client, name: str, where: str, done: threading.Event,
              timeout: float, connect: Callable[[], object]) -> None:
    """A short-lived client's one exchange: connect, run its network loop until
    ``done`` (TimeoutError after ``timeout`` s), then disconnect and stop."""
    net = NetLoop(client, name=name)
    try:
        connect()
        net.start()
        if not done.wait(timeout):
            raise TimeoutError(f"no answer from the broker at {where}")
    finally:
        with contextlib.suppress(Exception):
            client.disconnect()
        net.stop(1.0)
