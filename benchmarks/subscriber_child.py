"""An MQTT subscriber in a process of its own, for benchmarks.

    python benchmarks/subscriber_child.py PORT TOPIC [TOPIC...]

Prints ``{"ready": true}`` once subscribed; then each line on stdin asks for
the alerts so far: one JSON line ``{alert id: first arrival}``, arrivals on
``time.perf_counter()`` (CLOCK_MONOTONIC on Linux: the same clock in every
process of the machine). A process of its own so that stamping an alert's
arrival never waits for the benchmark's other threads (its simulated readers)
to give up the interpreter lock.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


def main(argv: list[str]) -> int:
    port, topics = int(argv[1]), argv[2:]
    alerts: dict[str, float] = {}
    lock = threading.Lock()
    subscribed = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)

    def on_connect(c: mqtt.Client, u: Any, f: Any, rc: Any, p: Any) -> None:
        for t in topics:
            c.subscribe(t, qos=1)

    def on_subscribe(c: mqtt.Client, u: Any, mid: int, rcs: Any, p: Any) -> None:
        subscribed.set()

    def on_message(c: mqtt.Client, u: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        ident = json.loads(msg.payload)["id"]
        with lock:
            alerts.setdefault(ident, now)

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    client.connect("127.0.0.1", port, keepalive=30)
    client.loop_start()
    if not subscribed.wait(10):
        print(json.dumps({"ready": False}), flush=True)
        return 1
    print(json.dumps({"ready": True}), flush=True)
    for _ in sys.stdin:
        with lock:
            snapshot = dict(alerts)
        print(json.dumps(snapshot), flush=True)
    client.disconnect()
    client.loop_stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
