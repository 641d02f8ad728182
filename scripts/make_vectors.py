#!/usr/bin/env python3
"""Writes hardware/protocol/vectors.json, the golden vectors of wire protocol v1.

    .venv/bin/python scripts/make_vectors.py          # rewrite the file
    .venv/bin/python scripts/make_vectors.py --check  # exit 1 if it is stale

Three lists:
- ``good``: one message each: ``mtype``/``reader``/``seq``/``flags`` and
  ``frame.fields`` encode to exactly ``hex``, and ``hex`` decodes to exactly
  ``frame`` (``Frame.to_dict()``).
- ``bad``: byte streams with something wrong (or odd) in them: feeding ``hex``
  to a fresh Decoder yields ``expect`` in order (``{"frame": ...}`` or
  ``{"error": kind, "offset": n}``) and leaves ``counters`` exactly so.
- ``encode_errors``: arguments that ``encode`` must refuse with
  ``LocalProtocolError``.
- ``signed`` (protocol.md section 2a): ``key`` (hex), ``hmac`` (HMAC-SHA256
  test vectors, RFC 4231 cases and ours, computed with CPython's ``hmac``),
  ``good`` (signed frames: ``sender`` and ``stamp`` too; encoding with the key
  gives ``hex``, and a ``Decoder(key, sender=...)`` gives ``frame``), ``bad``
  (streams fed to ``Decoder(key, require=..., sender=...)``) and
  ``encode_errors`` (keyed ``encode`` calls that must be refused).

The bad frames are built with ``codec.pack_frame`` (the raw layer), since
``encode`` refuses to make them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import sys
from pathlib import Path
from typing import Any

from tablesense.onboard.wire import codec as c

OUT = Path(__file__).resolve().parent.parent / "hardware" / "protocol" / "vectors.json"

GOOD: list[tuple[str, int, int, int, int, dict[str, Any]]] = [
    # name, mtype, reader, seq, flags, fields
    (
        "hello-rfid",
        c.HELLO,
        1,
        0,
        0,
        {
            "kind": "rfid",
            "firmware": "1.0.3",
            "serial": "TS-N-0001",
            "capabilities": ["face", "level", "floor", "detached", "resend"],
        },
    ),
    (
        "hello-rfid-zones-it-senses",
        c.HELLO,
        1,
        0,
        0,
        {
            "kind": "rfid",
            "firmware": "0.3.0",
            "serial": "TS-S-0002",
            "capabilities": ["level", "floor", "resend", "table", "trick"],
        },
    ),
    (
        "hello-camera-unknown-capability-bit",
        c.HELLO,
        7,
        1,
        0,
        {
            "kind": "camera",
            "firmware": "2.13.0",
            "serial": "CAM-7f3a",
            "capabilities": ["face", "level", "seen_by", "conf", "bit12"],
        },
    ),
    (
        "hello-bidbox-longest-serial",
        c.HELLO,
        5,
        65535,
        0,
        {
            "kind": "bidbox",
            "firmware": "0.9.255",
            "serial": "BB-" + "0123456789ABCDEFGHIJKLMNOPQ-Z",
            "capabilities": ["calls"],
        },
    ),
    ("maint-stop", c.MAINT, 3, 9, 0, {"action": "stop"}),
    ("maint-enrol", c.MAINT, 1, 11, 0, {"action": "enrol"}),
    ("tag-blank", c.TAG, 1, 12, 0, {"uid": "045A10037F0081", "locked": False}),
    ("tag-enrolled-locked", c.TAG, 1, 13, 0,
     {"uid": "045A10037F0081", "card": "SA", "deck": 7, "locked": True}),
    ("write-card-and-deck", c.WRITE, 1, 14, 0, {"uid": "045A10037F0081", "card": "SA", "deck": 7}),
    ("maint-bootloader", c.MAINT, 3, 10, 0, {"action": "bootloader"}),
    ("maint-hello", c.MAINT, 2, 15, 0, {"action": "hello"}),
    # a firmware update (protocol.md section 3a)
    ("file-manifest", c.FILE, 1, 20, 0, {"file": 0, "size": 1234, "sha256": hashlib.sha256(
        b"tablesense-firmware 0.6.1\n").hexdigest()}),
    ("chunk-full", c.CHUNK, 1, 21, 0, {"file": 3, "offset": 4096, "data": bytes(range(32)).hex()}),
    ("chunk-last-short", c.CHUNK, 1, 22, 0, {"file": 3, "offset": 4128, "data": "0a"}),
    ("install", c.INSTALL, 1, 23, 0, {"sig": bytes(range(0xA0, 0xC0)).hex()}),
    ("confirm", c.CONFIRM, 1, 24, 0, {"firmware": "0.6.1"}),
    ("status-receiving", c.STATUS, 1, 30, 0, {"file": 3, "have": 4160, "state": "receiving"}),
    ("status-bad-signature", c.STATUS, 1, 31, 0, {"file": 0, "have": 0,
                                                   "state": "bad-signature"}),
    (
        "heartbeat",
        c.HEARTBEAT,
        2,
        41,
        0,
        {"uptime": 61000, "reads": 1234, "errors": 2, "dropped": 0},
    ),
    (
        "heartbeat-max-counters",
        c.HEARTBEAT,
        3,
        42,
        0,
        {"uptime": 0xFFFFFFFF, "reads": 0xFFFFFFFF, "errors": 0x01000000, "dropped": 255},
    ),
    (
        "observe-hand-face-down",
        c.OBSERVE,
        1,
        100,
        0,
        {"seat": "N", "card": "SA", "zone": "hand", "face": "down", "level": "above", "t": 5000},
    ),
    (
        "observe-gone",
        c.OBSERVE,
        2,
        101,
        0,
        {"seat": "E", "card": "C2", "zone": "gone", "face": "unknown", "level": "unknown", "t": 0},
    ),
    (
        "observe-trick-seen-by-nobody",
        c.OBSERVE,
        3,
        102,
        0,
        {
            "seat": "S",
            "card": "HT",
            "zone": "trick",
            "face": "up",
            "level": "at",
            "seen_by": [],
            "t": 123456,
        },
    ),
    (
        "observe-camera-seen-by-and-conf",
        c.OBSERVE,
        7,
        103,
        0,
        {
            "seat": "W",
            "card": "DQ",
            "zone": "floor",
            "face": "up",
            "level": "below",
            "seen_by": ["N", "E"],
            "conf": 0.8,
            "t": 0xFFFFFFFF,
        },
    ),
    (
        "observe-detached-conf-zero",
        c.OBSERVE,
        7,
        104,
        0,
        {
            "seat": "N",
            "card": "C9",
            "zone": "detached",
            "face": "down",
            "level": "at",
            "seen_by": ["E", "S", "W"],
            "conf": 0.0,
            "t": 77,
        },
    ),
    ("call-1n", c.CALL, 5, 10, 0, {"seat": "N", "call": "1N", "t": 90000}),
    ("call-pass", c.CALL, 5, 11, 0, {"seat": "E", "call": "P", "t": 91000}),
    ("call-redouble", c.CALL, 5, 12, 0, {"seat": "S", "call": "XX", "t": 92000}),
    ("call-7nt", c.CALL, 5, 13, 0, {"seat": "W", "call": "7N", "t": 93000}),
    (
        "fault-antenna",
        c.FAULT,
        4,
        200,
        0,
        {"code": 1, "zone": "trick", "antenna": 3, "t": 600000},
    ),
    ("fault-whole-reader", c.FAULT, 4, 201, 0, {"code": 7, "t": 600500}),
    (
        "config",
        c.CONFIG,
        1,
        0,
        0,
        {"seat": "N", "scan_ms": 50, "debounce_ms": 0},
    ),
    (
        "config-debounce",
        c.CONFIG,
        3,
        1,
        0,
        {"seat": "S", "scan_ms": 20, "debounce_ms": 150},
    ),
    ("resend", c.RESEND, 2, 7, 0, {"from_seq": 65530}),
    ("ack", c.ACK, 2, 8, 0, {"ack_seq": 65535}),
    ("ack-compatible-flag-set", c.ACK, 2, 9, 0x30, {"ack_seq": 0}),
]


def frame_of(mtype: int, fields: dict[str, Any], reader: int, seq: int, flags: int = 0) -> bytes:
    return c.encode(mtype, fields, reader, seq, flags)


def observe(card: str, seq: int, reader: int = 1) -> bytes:
    fields = {"seat": "N", "card": card, "zone": "hand", "face": "down", "level": "above", "t": seq}
    return frame_of(c.OBSERVE, fields, reader, seq)


def flip_crc(frame: bytes) -> bytes:
    raw = bytearray(c.cobs_decode(frame[:-1]))
    raw[-1] ^= 0x5A
    return c.cobs_encode(bytes(raw)) + b"\x00"


def observe_payload(card: int = 0, zone: int = 0, fl: int = 0x06, seen: int = 0) -> bytes:
    return struct.pack("<BBBBBBI", 0, card, zone, fl, seen, 255, 1000)


def bad_streams() -> list[tuple[str, bytes]]:
    a = observe("SA", 1)
    b = observe("SK", 2)
    hello_payload = struct.pack("<BBBBHB", 0, 1, 0, 0, 0, 32) + b"X" * 32
    return [
        ("bad-crc", flip_crc(a)),
        ("bad-crc-then-good", flip_crc(a) + b),
        ("truncated-frame", a[:8] + b"\x00" + b),
        ("too-short-for-a-header", c.cobs_encode(b"\x01\x00\x01\x02") + b"\x00"),
        ("oversize-frame", c.pack_frame(1, 0, 1, 3, c.HELLO, hello_payload + b"Y" * 30)),
        ("oversize-no-delimiter", bytes(range(1, 201)) + b"\x00" + b),
        ("garbage-between-frames", a + b"\x55\xaa\x13\x37" + b),
        ("garbage-before-first-frame", b"\xfe\xff\x10" + a),
        ("noise-burst-with-delimiter", a + b"\x07\x00" + b),
        ("lost-delimiter", a[:-1] + b),
        ("empty-frames-are-ignored", b"\x00\x00" + a + b"\x00\x00"),
        ("unknown-message-type", c.pack_frame(1, 0, 1, 4, 9, b"\x01\x02")),
        ("signed-flag-unsupported", c.pack_frame(1, c.FLAG_SIGNED, 1, 5, c.ACK, b"\x05\x00")),
        ("unknown-incompatible-flag", c.pack_frame(1, 0x04, 1, 6, c.ACK, b"\x05\x00") + b),
        ("bad-version", c.pack_frame(2, 0, 1, 7, c.ACK, b"\x05\x00")),
        ("bad-payload-card-byte", c.pack_frame(1, 0, 1, 8, c.OBSERVE, observe_payload(card=60))),
        ("bad-payload-zone-byte", c.pack_frame(1, 0, 1, 9, c.OBSERVE, observe_payload(zone=6))),
        ("bad-payload-face-bits", c.pack_frame(1, 0, 1, 10, c.OBSERVE, observe_payload(fl=3))),
        (
            "bad-payload-seen-by-holder",
            c.pack_frame(1, 0, 1, 11, c.OBSERVE, observe_payload(seen=0x81)),
        ),
        ("bad-payload-short", c.pack_frame(1, 0, 1, 12, c.HEARTBEAT, b"\x01\x02\x03")),
        (
            "longer-payload-is-forward-compatible",
            c.pack_frame(1, 0, 1, 13, c.ACK, b"\x05\x00\xee\xee"),
        ),
        ("bad-payload-chunk-too-long",
         c.pack_frame(1, 0, 1, 14, c.CHUNK, struct.pack("<BIB", 3, 0, 33) + bytes(33))),
        ("bad-payload-update-state",
         c.pack_frame(1, 0, 1, 15, c.STATUS, struct.pack("<BIB", 0, 0, len(c.UPDATE_STATES)))),
        ("unterminated-tail-is-kept", a + b[:-1]),
    ]


ENCODE_ERRORS: list[tuple[str, int, dict[str, Any], int, int, int]] = [
    # name, mtype, fields, reader, seq, flags
    ("unknown-type", 9, {}, 1, 0, 0),
    ("missing-field", c.CALL, {"seat": "N", "call": "1C"}, 1, 0, 0),
    ("unknown-field", c.ACK, {"ack_seq": 1, "extra": 2}, 1, 0, 0),
    ("bad-card", c.OBSERVE, {"seat": "N", "card": "S1", "zone": "hand", "t": 0}, 1, 0, 0),
    ("bad-zone", c.OBSERVE, {"seat": "N", "card": "SA", "zone": "pocket", "t": 0}, 1, 0, 0),
    (
        "seen-by-holder",
        c.OBSERVE,
        {"seat": "N", "card": "SA", "zone": "hand", "seen_by": ["N"], "t": 0},
        1,
        0,
        0,
    ),
    (
        "seen-by-twice",
        c.OBSERVE,
        {"seat": "N", "card": "SA", "zone": "hand", "seen_by": ["E", "E"], "t": 0},
        1,
        0,
        0,
    ),
    (
        "conf-above-one",
        c.OBSERVE,
        {"seat": "N", "card": "SA", "zone": "hand", "conf": 1.5, "t": 0},
        1,
        0,
        0,
    ),
    ("t-negative", c.CALL, {"seat": "N", "call": "1C", "t": -1}, 1, 0, 0),
    ("bad-call", c.CALL, {"seat": "N", "call": "8C", "t": 0}, 1, 0, 0),
    ("seq-out-of-range", c.ACK, {"ack_seq": 1}, 1, 65536, 0),
    ("reader-out-of-range", c.ACK, {"ack_seq": 1}, 256, 0, 0),
    ("signed-flag", c.ACK, {"ack_seq": 1}, 1, 0, c.FLAG_SIGNED),
    ("unknown-incompatible-flag", c.ACK, {"ack_seq": 1}, 1, 0, 0x08),
    (
        "serial-too-long",
        c.HELLO,
        {"kind": "rfid", "firmware": "1.0.0", "serial": "S" * 33, "capabilities": []},
        1,
        0,
        0,
    ),
    (
        "bad-firmware-version",
        c.HELLO,
        {"kind": "rfid", "firmware": "1.0.256", "serial": "S", "capabilities": []},
        1,
        0,
        0,
    ),
    ("scan-zero", c.CONFIG, {"seat": "N", "scan_ms": 0}, 1, 0, 0),
    ("chunk-too-long", c.CHUNK, {"file": 0, "offset": 0, "data": "00" * 33}, 1, 0, 0),
    ("sha256-too-short", c.FILE, {"file": 0, "size": 1, "sha256": "00" * 31}, 1, 0, 0),
]


def expect_of(item: c.Frame | c.RemoteProtocolError) -> dict[str, Any]:
    if isinstance(item, c.Frame):
        return {"frame": item.to_dict()}
    return {"error": item.kind, "offset": item.offset}


def build() -> dict[str, Any]:
    good = []
    for name, mtype, reader, seq, flags, fields in GOOD:
        data = frame_of(mtype, fields, reader, seq, flags)
        items = c.Decoder().feed(data)
        assert len(items) == 1 and isinstance(items[0], c.Frame), (name, items)
        assert items[0].fields == fields, (name, items[0].fields, fields)
        good.append({"name": name, "mtype": mtype, "hex": data.hex(), "frame": items[0].to_dict()})
    bad = []
    for name, data in bad_streams():
        dec = c.Decoder()
        items = dec.feed(data) + dec.feed_eof()
        bad.append(
            {
                "name": name,
                "hex": data.hex(),
                "expect": [expect_of(i) for i in items],
                "counters": dict(dec.counters),
            }
        )
    errors = []
    for name, mtype, fields, reader, seq, flags in ENCODE_ERRORS:
        try:
            c.encode(mtype, fields, reader, seq, flags)
        except c.LocalProtocolError:
            pass
        else:
            raise AssertionError(f"encode accepted {name}")
        errors.append(
            {
                "name": name,
                "mtype": mtype,
                "fields": fields,
                "reader": reader,
                "seq": seq,
                "flags": flags,
            }
        )
    return {
        "about": "Golden vectors of the tablesense reader<->host protocol; see "
        "hardware/protocol.md. Generated by scripts/make_vectors.py. Each 'bad' "
        "stream is fed to a fresh Decoder, then end of input (feed_eof).",
        "protocol_version": c.PROTOCOL_VERSION,
        "max_frame": c.MAX_FRAME,
        "good": good,
        "bad": bad,
        "encode_errors": errors,
        "signed": build_signed(),
    }


SIGN_KEY = bytes(range(0x40, 0x60))  # 32 bytes, for the vectors only
LONG_SERIAL = "TS-" + "0123456789ABCDEFGHIJKLMNOPQRS"  # 32 characters: the largest frame

SIGNED_GOOD: list[tuple[str, str, int, int, int, int, dict[str, Any]]] = [
    # name, sender, mtype, reader, seq, stamp, fields
    ("signed-hello-longest-serial", "reader", c.HELLO, 5, 0, 1,
     {"kind": "rfid", "firmware": "1.0.3", "serial": LONG_SERIAL,
      "capabilities": ["face", "level", "resend"]}),
    ("signed-observe-worked-example", "reader", c.OBSERVE, 2, 300, 0x0123456789AB,
     {"seat": "E", "card": "HQ", "zone": "trick", "face": "up", "level": "at", "seen_by": [],
      "t": 83456}),
    ("signed-heartbeat", "reader", c.HEARTBEAT, 2, 301, 0x0123456789AC,
     {"uptime": 61000, "reads": 1234, "errors": 2, "dropped": 0}),
    ("signed-ack-from-reader", "reader", c.ACK, 2, 302, 0x0123456789AD, {"ack_seq": 0}),
    ("signed-config-from-host", "host", c.CONFIG, 2, 0, 0x0123456789AA,
     {"seat": "E", "scan_ms": 20, "debounce_ms": 0}),
    ("signed-ack-from-host", "host", c.ACK, 2, 1, 0x0123456789FF, {"ack_seq": 302}),
    ("signed-stamp-zero", "reader", c.CALL, 6, 7, 0, {"seat": "S", "call": "3N", "t": 1}),
    ("signed-stamp-max", "reader", c.CALL, 6, 8, c.MAX_STAMP, {"seat": "S", "call": "P", "t": 2}),
]


def signed_bad_streams() -> list[tuple[str, str, bool, bytes]]:
    """name, the sender the decoder expects, require, stream."""
    k = SIGN_KEY
    obs = {"seat": "N", "card": "SA", "zone": "hand", "face": "down", "level": "above", "t": 9}
    good = c.encode(c.OBSERVE, obs, 1, 10, key=k, stamp=1000)
    raw = bytearray(c.cobs_decode(good[:-1]))
    forged = bytearray(raw[:-4])
    forged[-1] ^= 0x01  # last MAC byte
    forged_frame = (c.cobs_encode(bytes(forged) + struct.pack("<I", c.crc32(bytes(forged))))
                    + b"\x00")
    tampered = bytearray(raw[:-4])
    tampered[8] = 2  # the zone byte: hand -> table, CRC made good again, MAC not
    tampered_frame = (c.cobs_encode(bytes(tampered) + struct.pack("<I", c.crc32(bytes(tampered))))
                      + b"\x00")
    noisy = bytearray(raw)
    noisy[8] ^= 0x40  # line noise: the CRC catches it first, no forgery alarm
    noisy_frame = c.cobs_encode(bytes(noisy)) + b"\x00"
    host_ack = c.encode(c.ACK, {"ack_seq": 10}, 1, 3, key=k, stamp=2000, sender="host")
    plain = c.encode(c.OBSERVE, obs, 1, 11)
    other_key = c.encode(c.OBSERVE, obs, 1, 12, key=bytes(32), stamp=1001)
    return [
        ("signed-good-frame", "reader", True, good),
        ("signed-forged-mac", "reader", True, forged_frame + good),
        ("signed-tampered-payload", "reader", True, tampered_frame),
        ("signed-line-noise-is-bad-crc", "reader", True, noisy_frame),
        ("signed-other-key", "reader", True, other_key),
        ("signed-reflected-host-frame", "reader", True, host_ack),
        ("signed-host-frame-to-reader", "host", True, host_ack),
        ("signed-unsigned-where-required", "reader", True, plain + good),
        ("signed-unsigned-where-optional", "reader", False, plain + good),
        ("signed-too-short-for-signature",
         "reader", True, c.pack_frame(1, c.FLAG_SIGNED, 1, 5, c.ACK, b"\x05\x00")),
        ("signed-unknown-type-after-good-mac",
         "reader", True, c.pack_signed(1, 0, 1, 6, 9, b"\x01", k, 5)),
        ("signed-other-incompatible-flag",
         "reader", True, c.pack_signed(1, 0x02, 1, 7, c.ACK, b"\x05\x00", k, 6)),
        ("signed-garbage-before-frame", "reader", True, b"\x13\x37\xfe" + good),
    ]


SIGNED_ENCODE_ERRORS: list[tuple[str, int, dict[str, Any], int, int, str]] = [
    # name, mtype, fields, stamp, seq, sender
    ("stamp-negative", c.ACK, {"ack_seq": 1}, -1, 0, "reader"),
    ("stamp-over-48-bits", c.ACK, {"ack_seq": 1}, c.MAX_STAMP + 1, 0, "reader"),
    ("sender-unknown", c.ACK, {"ack_seq": 1}, 1, 0, "bridge"),
    ("bad-field-still-refused", c.CONFIG, {"seat": "N", "scan_ms": 0}, 1, 0, "host"),
]

HMAC_CASES: list[tuple[str, bytes, bytes]] = [
    ("rfc4231-case-1", b"\x0b" * 20, b"Hi There"),
    ("rfc4231-case-2", b"Jefe", b"what do ya want for nothing?"),
    ("rfc4231-case-6-key-over-block", b"\xaa" * 131,
     b"Test Using Larger Than Block-Size Key - Hash Key First"),
    ("key-exactly-one-block", bytes(range(64)), b""),
    ("frame-sized-message", SIGN_KEY, bytes(range(1, 61))),
]


def build_signed() -> dict[str, Any]:
    good = []
    for name, sender, mtype, reader, seq, stamp, fields in SIGNED_GOOD:
        data = c.encode(mtype, fields, reader, seq, key=SIGN_KEY, stamp=stamp, sender=sender)
        items = c.Decoder(SIGN_KEY, sender=sender).feed(data)
        assert len(items) == 1 and isinstance(items[0], c.Frame), (name, items)
        assert items[0].fields == fields and items[0].stamp == stamp, (name, items[0])
        assert c.Decoder().feed(data)[0].kind == "incompatible_flag", name  # type: ignore[union-attr]
        good.append({"name": name, "sender": sender, "mtype": mtype, "hex": data.hex(),
                     "frame": items[0].to_dict()})
    bad = []
    for name, sender, require, data in signed_bad_streams():
        dec = c.Decoder(SIGN_KEY, require=require, sender=sender)
        items = dec.feed(data) + dec.feed_eof()
        bad.append({"name": name, "sender": sender, "require": require, "hex": data.hex(),
                    "expect": [expect_of(i) for i in items], "counters": dict(dec.counters)})
    errors = []
    for name, mtype, fields, stamp, seq, sender in SIGNED_ENCODE_ERRORS:
        try:
            c.encode(mtype, fields, 1, seq, key=SIGN_KEY, stamp=stamp, sender=sender)
        except c.LocalProtocolError:
            pass
        else:
            raise AssertionError(f"encode accepted {name}")
        errors.append({"name": name, "mtype": mtype, "fields": fields, "stamp": stamp,
                       "seq": seq, "sender": sender})
    macs = []
    for name, key, msg in HMAC_CASES:
        mac = hmac.new(key, msg, "sha256").digest()
        assert c.hmac_sha256(key, msg) == mac, name
        macs.append({"name": name, "key": key.hex(), "msg": msg.hex(), "mac": mac.hex()})
    return {"key": SIGN_KEY.hex(), "hmac": macs, "good": good, "bad": bad,
            "encode_errors": errors}


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale: run scripts/make_vectors.py", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT}: {text.count(chr(10))} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
