"""The floor for the latency benchmark: a bare relay, serial port -> MQTT.

    python benchmarks/relay_child.py PORT_URL BROKER_PORT TOPIC [JOURNAL]

Reads the port the way a reader link does (``tablesense.daemon.ports``: pyserial,
0.05 s timeout, whatever is waiting) and publishes each whole frame (bytes up
to a 0x00), unchanged, at QoS 1 with paho, the daemon's client: no decoding,
no journal, no rules, no outbox. Prints ``{"ready": true}`` when connected.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from tablesense.daemon.ports import open_port, read_some


def main(argv: list[str]) -> int:
    url, port, topic = argv[1], int(argv[2]), argv[3]
    journal = os.open(argv[4], os.O_WRONLY | os.O_APPEND | os.O_CREAT) if len(argv) > 4 else None
    connected = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-relay-{os.getpid()}",
                         protocol=mqtt.MQTTv5)
    client.on_connect = lambda c, u, f, rc, p: connected.set()
    client.max_inflight_messages_set(100)
    client.connect("127.0.0.1", port)
    client.loop_start()
    connected.wait(5)
    serial = open_port(url, timeout=0.05)
    print(json.dumps({"ready": True}), flush=True)
    buf = bytearray()
    while True:
        data = read_some(serial)
        if not data:
            continue
        buf.extend(data)
        while True:
            end = buf.find(b"\x00")
            if end < 0:
                break
            frame = bytes(buf[: end + 1])
            if journal is not None:
                os.write(journal, frame.hex().encode() + b"\n")
                os.fsync(journal)
            client.publish(topic, frame, qos=1)
            del buf[: end + 1]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
