"""The reader <-> host wire protocol, version 1: the one codec, sans-I/O.

This single file is shared verbatim by the host (CPython 3.11) and the reader
firmware (MicroPython 1.2x), so it keeps to the subset both run: no
dataclasses, no runtime ``typing`` import, no ``__future__``, ``struct`` and
``binascii.crc32`` only. Annotations are evaluated by CPython, so any that
name typing-only things are strings; MicroPython ignores annotations.

Like h11 it does no I/O: :func:`encode` turns a message into the bytes of one
frame; a :class:`Decoder` is fed whatever bytes arrive and returns, in stream
order, :class:`Frame` objects and :class:`RemoteProtocolError` instances
(returned, not raised, so the caller can log and count them and go on).
Misuse on our side raises :class:`LocalProtocolError`.

The wire format is specified in ``hardware/protocol.md``; the golden vectors
in ``hardware/protocol/vectors.json`` pin it down byte for byte.

>>> d = Decoder()
>>> [f.fields for f in d.feed(encode(ACK, {"ack_seq": 7}, reader=2, seq=1))]
[{'ack_seq': 7}]

Signing is optional (protocol.md section 2a, MAVLink 2 style): with a shared
key, :func:`encode` appends a stamp and a truncated HMAC-SHA256 and sets
``FLAG_SIGNED``; a ``Decoder(key)`` checks them. Without a key nothing
changes: unsigned frames are byte for byte those of v1.

>>> key = bytes(range(16))
>>> wire = encode(ACK, {"ack_seq": 7}, reader=2, seq=1, key=key, stamp=5)
>>> [(f.fields, f.stamp) for f in Decoder(key).feed(wire)]
[({'ack_seq': 7}, 5)]
>>> [e.kind for e in Decoder(bytes(16)).feed(wire)]
['bad_signature']
"""

import binascii
import hashlib
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROTOCOL_VERSION = 1

# Header: version, flags, reader, seq (u16 LE), type. Trailer: CRC-32 (u32 LE).
HEADER_LEN = 6
CRC_LEN = 4
MIN_FRAME = HEADER_LEN + CRC_LEN
# Largest decoded frame (header + payload + CRC). The largest v1 message,
# HELLO with a 32-character serial number, needs 49.
MAX_FRAME = 64
# COBS adds one byte per 254 (or fewer) bytes; the 0x00 delimiter is extra.
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1
MIN_ENCODED = MIN_FRAME + 1

# Flags byte: the low nibble holds *incompatible* flags (a receiver that does
# not know a set bit must drop the frame), the high nibble *compatible* flags
# (a receiver ignores the bits it does not know). As MAVLink 2 does.
INCOMPAT_MASK = 0x0F
COMPAT_MASK = 0xF0
# The frame carries a stamp and a truncated HMAC-SHA256 (protocol.md section
# 2a). Only a receiver given the key supports it: a Decoder without one drops
# signed frames as ``incompatible_flag``, and encode() sets it only with a key.
FLAG_SIGNED = 0x01
SUPPORTED_INCOMPAT = 0x00  # without a key; with one, FLAG_SIGNED too

# Signature block, between the payload and the CRC of a signed frame:
# stamp (u48 LE, strictly increasing per sender and key) | mac (8 bytes).
# mac = HMAC-SHA256(key, direction | header | payload | stamp)[:8], where
# direction is b"R" for a frame a reader sends and b"H" for one the host sends
# (so a frame cannot be reflected back to its sender).
STAMP_LEN = 6
MAC_LEN = 8
SIG_LEN = STAMP_LEN + MAC_LEN
MAX_STAMP = 0xFFFFFFFFFFFF
SENDERS = ("reader", "host")
_DIRECTION = {"reader": b"R", "host": b"H"}

# Message types: reader -> host 1..15, host -> reader 16..31 (ACK both ways).
HELLO = 1
HEARTBEAT = 2
OBSERVE = 3
CALL = 4
FAULT = 5
TAG = 6
CONFIG = 16
RESEND = 17
ACK = 18
MAINT = 19
WRITE = 20

TYPE_NAMES = {
    HELLO: "HELLO",
    HEARTBEAT: "HEARTBEAT",
    OBSERVE: "OBSERVE",
    CALL: "CALL",
    FAULT: "FAULT",
    TAG: "TAG",
    CONFIG: "CONFIG",
    RESEND: "RESEND",
    ACK: "ACK",
    MAINT: "MAINT",
    WRITE: "WRITE",
}
TYPE_IDS = {name: mtype for mtype, name in TYPE_NAMES.items()}

# Code tables: the index in each tuple is the byte on the wire.
SEATS = ("N", "E", "S", "W")
SUITS = ("S", "H", "D", "C")
RANKS = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")
ZONES = ("hand", "detached", "table", "trick", "floor", "gone")
FACES = ("unknown", "up", "down")
LEVELS = ("unknown", "above", "at", "below")
STRAINS = ("C", "D", "H", "S", "N")
READER_KINDS = ("rfid", "camera", "bidbox")
CAPABILITIES = ("face", "level", "seen_by", "conf", "floor", "detached", "calls", "resend",
                "hand", "table", "trick")
# The zones a reader may claim to sense (HELLO capabilities); a reader claiming none of
# hand/table/trick predates them (firmware < 0.3.0) and is trusted for every zone.
ZONE_CAPABILITIES = ("hand", "detached", "table", "trick", "floor")
MAINT_ACTIONS = ("stop", "bootloader", "reset", "enrol", "scan")
UID_LEN = 7  # NTAG213's UID; a shorter one is zero-padded on the right
NO_DECK = 0xFFFF
NONE_BYTE = 0xFF  # "absent" for the optional one-byte fields of FAULT
SEEN_KNOWN = 0x80  # OBSERVE seen_by byte: bit 7 set = the list is known
MAX_SERIAL = 32
CONF_SCALE = 255  # conf travels as round(conf * 255); 255 means 1 (omitted)

# Assigned FAULT codes (the field is a plain integer; unknown codes pass).
FAULT_NAMES = {
    0: "other",
    1: "antenna-open",
    2: "antenna-short",
    3: "rfid-chip-timeout",
    4: "camera-obscured",
    5: "camera-failure",
    6: "level-sensor",
    7: "over-temperature",
    8: "tx-buffer-overflow",
    9: "rfid-chip-clone",
    10: "tag-write-failed",
}

COUNTER_NAMES = (
    "frames",
    "bad_crc",
    "truncated",
    "oversize",
    "bad_version",
    "incompatible_flag",
    "unknown_type",
    "bad_payload",
    "garbage_bytes",
    "resyncs",
)
# Counted only by a Decoder that has a key (a keyless one keeps the v1 set).
SIGNED_COUNTER_NAMES = ("unsigned", "bad_signature")


class ProtocolError(Exception):
    """Base of the codec's errors."""


class LocalProtocolError(ProtocolError):
    """We misused the codec: unknown type, bad field value, oversize frame."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something we drop. Returned by :meth:`Decoder.feed`.

    ``kind`` names the counter it was counted in; ``offset`` is the stream
    offset (bytes fed to the decoder before it) where the dropped bytes began.
    """

    def __init__(self, kind: str, message: str, offset: int = -1) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.offset = offset

    def __repr__(self) -> str:
        return f"RemoteProtocolError({self.kind!r}, {self.message!r}, offset={self.offset})"

    def to_dict(self) -> "dict[str, Any]":
        return {"error": self.kind, "message": self.message, "offset": self.offset}


def crc32(data: bytes) -> int:
    """CRC-32 (IEEE 802.3, as zlib) of ``data``, unsigned."""
    return binascii.crc32(data) & 0xFFFFFFFF


def seq_next(seq: int) -> int:
    """The sequence number after ``seq`` (16 bits, wraps 65535 -> 0)."""
    return (seq + 1) & 0xFFFF


def seq_delta(new: int, old: int) -> int:
    """How far ``new`` is ahead of ``old``, in -32768..32767, across the wrap."""
    d = (new - old) & 0xFFFF
    return d - 0x10000 if d >= 0x8000 else d


# -- signing -----------------------------------------------------------------


class SigningKey:
    """A shared reader key, with the HMAC-SHA256 pads computed once.

    MicroPython has ``hashlib.sha256`` but no ``hmac`` module, so HMAC
    (RFC 2104) is written out here; ``tests/test_security_signing.py`` checks
    it against CPython's ``hmac``.
    """

    def __init__(self, key: bytes) -> None:
        if not isinstance(key, (bytes, bytearray)) or not key:
            raise LocalProtocolError("a signing key is a non-empty bytes value")
        k = bytes(key)
        if len(k) > 64:
            k = hashlib.sha256(k).digest()
        k = k + bytes(64 - len(k))
        self._ipad = bytes([b ^ 0x36 for b in k])
        self._opad = bytes([b ^ 0x5C for b in k])

    def digest(self, msg: bytes) -> bytes:
        """HMAC-SHA256 of ``msg`` (all 32 bytes)."""
        inner = hashlib.sha256(self._ipad + msg).digest()
        return bytes(hashlib.sha256(self._opad + inner).digest())

    def mac(self, sender: str, signed: bytes) -> bytes:
        """The truncated MAC of a frame's header, payload and stamp from ``sender``."""
        return self.digest(_DIRECTION[sender] + signed)[:MAC_LEN]


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    """HMAC-SHA256 (RFC 2104) over ``hashlib.sha256``; same bytes as CPython's ``hmac``."""
    return SigningKey(key).digest(msg)


def as_key(key: "SigningKey | bytes | None") -> "SigningKey | None":
    """``key`` as a :class:`SigningKey` (None stays None)."""
    if key is None or isinstance(key, SigningKey):
        return key
    return SigningKey(key)


def _same_bytes(a: bytes, b: bytes) -> bool:
    """Compare without stopping at the first difference (no timing hint)."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` without any 0x00 byte.

    >>> cobs_encode(b"\\x11\\x00\\x22").hex()
    '02110222'
    """
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; ``ValueError`` if ``data`` is not COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("0x00 inside a COBS block")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the end")
        block = data[i + 1 : end]
        if 0 in block:
            raise ValueError("0x00 inside a COBS block")
        out.extend(block)
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


# -- field encodings ---------------------------------------------------------


def _err(key: str, value: object, want: str) -> LocalProtocolError:
    return LocalProtocolError(f"field {key}={value!r}: expected {want}")


def _int(fields: "dict[str, Any]", key: str, lo: int, hi: int) -> int:
    v = fields[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > hi:
        raise _err(key, v, f"an integer {lo}..{hi}")
    return v


def _code(fields: "dict[str, Any]", key: str, table: "tuple[str, ...]") -> int:
    v = fields[key]
    if isinstance(v, str) and v in table:
        return table.index(v)
    raise _err(key, v, "one of " + " ".join(table))


def card_index(card: object) -> int:
    """Wire byte of a card: suit index * 13 + rank index (SA=0 .. C2=51).

    Accepts the input forms of domain.md: lower case, ``10`` for ``T``.
    """
    if not isinstance(card, str):
        raise _err("card", card, "a card like SA or HT")
    c = card.upper()
    if len(c) == 3 and c[1:] == "10":
        c = c[0] + "T"
    if len(c) != 2 or c[0] not in SUITS or c[1] not in RANKS:
        raise _err("card", card, "a card like SA or HT")
    return SUITS.index(c[0]) * 13 + RANKS.index(c[1])


def card_name(index: int) -> str:
    """Canonical card of a wire byte 0..51 (``ValueError`` otherwise)."""
    if index < 0 or index > 51:
        raise ValueError(f"card byte {index} out of range")
    return SUITS[index // 13] + RANKS[index % 13]


def call_index(call: object) -> int:
    """Wire byte of a call: P=0, X=1, XX=2, then 3 + (level-1)*5 + strain (C D H S N)."""
    if isinstance(call, str):
        c = call.upper()
        if c == "P":
            return 0
        if c == "X":
            return 1
        if c == "XX":
            return 2
        if len(c) == 2 and c[0] in "1234567" and c[1] in STRAINS:
            return 3 + (int(c[0]) - 1) * 5 + STRAINS.index(c[1])
    raise _err("call", call, "P, X, XX or 1C..7N")


def call_name(index: int) -> str:
    """Canonical call of a wire byte 0..37 (``ValueError`` otherwise)."""
    if index < 0 or index > 37:
        raise ValueError(f"call byte {index} out of range")
    if index < 3:
        return ("P", "X", "XX")[index]
    return str((index - 3) // 5 + 1) + STRAINS[(index - 3) % 5]


def _check_keys(fields: object, required: "tuple[str, ...]", optional: "tuple[str, ...]") -> None:
    if not isinstance(fields, dict):
        raise LocalProtocolError(f"fields must be a dict, not {fields!r}")
    for key in required:
        if key not in fields:
            raise LocalProtocolError(f"missing field {key}")
    for key in fields:
        if key not in required and key not in optional:
            raise LocalProtocolError(f"unknown field {key!r}")


def _need(payload: bytes, n: int) -> None:
    if len(payload) < n:
        raise ValueError(f"payload is {len(payload)} bytes, needs {n}")


def _lookup(table: "tuple[str, ...]", index: int, what: str) -> str:
    if index >= len(table):
        raise ValueError(f"{what} byte {index} out of range")
    return table[index]


def _enc_hello(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("kind", "firmware", "serial", "capabilities"), ())
    kind = _code(f, "kind", READER_KINDS)
    fw = f["firmware"]
    parts = fw.split(".") if isinstance(fw, str) else []
    if len(parts) != 3 or not all(_is_byte_number(p) for p in parts):
        raise _err("firmware", fw, "a version MAJOR.MINOR.PATCH, each 0..255")
    serial = f["serial"]
    if not isinstance(serial, str) or not _is_serial(serial):
        raise _err("serial", serial, f"1..{MAX_SERIAL} printable ASCII characters, no spaces")
    caps = f["capabilities"]
    if not isinstance(caps, (list, tuple)):
        raise _err("capabilities", caps, "a list of capability names")
    mask = 0
    for cap in caps:
        bit = _cap_bit(cap)
        if bit < 0:
            raise _err("capabilities", cap, "one of " + " ".join(CAPABILITIES) + " or bit0..bit15")
        mask |= 1 << bit
    sb = serial.encode()
    return (
        struct.pack("<BBBBHB", kind, int(parts[0]), int(parts[1]), int(parts[2]), mask, len(sb))
        + sb
    )


def _is_byte_number(s: str) -> bool:
    if not s or len(s) > 3:
        return False
    for ch in s:
        if ch not in "0123456789":
            return False
    return int(s) <= 255


def _is_serial(s: str) -> bool:
    if not s or len(s) > MAX_SERIAL:
        return False
    return all(not (ord(ch) < 33 or ord(ch) > 126) for ch in s)


def _cap_bit(cap: object) -> int:
    if not isinstance(cap, str):
        return -1
    if cap in CAPABILITIES:
        return CAPABILITIES.index(cap)
    if cap[:3] == "bit" and _is_byte_number(cap[3:]) and int(cap[3:]) < 16:
        return int(cap[3:])
    return -1


def _dec_hello(p: bytes) -> "dict[str, Any]":
    _need(p, 7)
    kind, major, minor, patch, mask, n = struct.unpack("<BBBBHB", p[:7])
    _need(p, 7 + n)
    serial = p[7 : 7 + n]
    if n == 0 or n > MAX_SERIAL or any(b < 0x21 or b > 0x7E for b in serial):
        raise ValueError("bad serial number")
    caps = []
    for bit in range(16):
        if mask & (1 << bit):
            caps.append(CAPABILITIES[bit] if bit < len(CAPABILITIES) else f"bit{bit}")
    return {
        "kind": _lookup(READER_KINDS, kind, "reader kind"),
        "firmware": f"{major}.{minor}.{patch}",
        "serial": serial.decode(),
        "capabilities": caps,
    }


def _enc_heartbeat(f: "dict[str, Any]") -> bytes:
    keys = ("uptime", "reads", "errors", "dropped")
    _check_keys(f, keys, ())
    return struct.pack("<IIII", *[_int(f, k, 0, 0xFFFFFFFF) for k in keys])


def _dec_heartbeat(p: bytes) -> "dict[str, Any]":
    _need(p, 16)
    uptime, reads, errors, dropped = struct.unpack("<IIII", p[:16])
    return {"uptime": uptime, "reads": reads, "errors": errors, "dropped": dropped}


def _enc_observe(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("seat", "card", "zone", "t"), ("face", "level", "seen_by", "conf"))
    seat = _code(f, "seat", SEATS)
    card = card_index(f["card"])
    zone = _code(f, "zone", ZONES)
    face = _code(f, "face", FACES) if "face" in f else 0
    level = _code(f, "level", LEVELS) if "level" in f else 0
    seen = 0
    if "seen_by" in f:
        seen_by = f["seen_by"]
        if not isinstance(seen_by, (list, tuple)):
            raise _err("seen_by", seen_by, "a list of seats")
        seen = SEEN_KNOWN
        for s in seen_by:
            if not isinstance(s, str) or s not in SEATS or s == f["seat"]:
                raise _err("seen_by", seen_by, "seats other than the holder")
            bit = 1 << SEATS.index(s)
            if seen & bit:
                raise _err("seen_by", seen_by, "each seat at most once")
            seen |= bit
    q = CONF_SCALE
    if "conf" in f:
        conf = f["conf"]
        if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
            raise _err("conf", conf, "a number 0..1")
        q = round(conf * CONF_SCALE)
    t = _int(f, "t", 0, 0xFFFFFFFF)
    return struct.pack("<BBBBBBI", seat, card, zone, face | (level << 2), seen, q, t)


def _dec_observe(p: bytes) -> "dict[str, Any]":
    _need(p, 10)
    seat, card, zone, fl, seen, q, t = struct.unpack("<BBBBBBI", p[:10])
    out: dict[str, Any] = {
        "seat": _lookup(SEATS, seat, "seat"),
        "card": card_name(card),
        "zone": _lookup(ZONES, zone, "zone"),
        "face": _lookup(FACES, fl & 3, "face"),
        "level": _lookup(LEVELS, (fl >> 2) & 3, "level"),
        "t": t,
    }
    if seen & SEEN_KNOWN:
        if seen & (1 << seat):
            raise ValueError("seen_by names the holder")
        out["seen_by"] = [s for i, s in enumerate(SEATS) if seen & (1 << i)]
    if q != CONF_SCALE:
        out["conf"] = round(q / CONF_SCALE, 4)
    return out


def _enc_call(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("seat", "call", "t"), ())
    return struct.pack(
        "<BBI", _code(f, "seat", SEATS), call_index(f["call"]), _int(f, "t", 0, 0xFFFFFFFF)
    )


def _dec_call(p: bytes) -> "dict[str, Any]":
    _need(p, 6)
    seat, call, t = struct.unpack("<BBI", p[:6])
    return {"seat": _lookup(SEATS, seat, "seat"), "call": call_name(call), "t": t}


def _enc_fault(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("code", "t"), ("zone", "antenna"))
    zone = _code(f, "zone", ZONES) if "zone" in f else NONE_BYTE
    antenna = _int(f, "antenna", 0, 254) if "antenna" in f else NONE_BYTE
    return struct.pack("<BBBI", _int(f, "code", 0, 255), zone, antenna, _int(f, "t", 0, 0xFFFFFFFF))


def _dec_fault(p: bytes) -> "dict[str, Any]":
    _need(p, 7)
    code, zone, antenna, t = struct.unpack("<BBBI", p[:7])
    out: dict[str, Any] = {"code": code, "t": t}
    if zone != NONE_BYTE:
        out["zone"] = _lookup(ZONES, zone, "zone")
    if antenna != NONE_BYTE:
        out["antenna"] = antenna
    return out


def _enc_config(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("seat", "scan_ms"), ("debounce_ms",))
    debounce = _int(f, "debounce_ms", 0, 0xFFFF) if "debounce_ms" in f else 0
    return struct.pack("<BHH", _code(f, "seat", SEATS), _int(f, "scan_ms", 1, 0xFFFF), debounce)


def _dec_config(p: bytes) -> "dict[str, Any]":
    _need(p, 5)
    seat, scan, debounce = struct.unpack("<BHH", p[:5])
    if scan == 0:
        raise ValueError("scan_ms 0")
    return {"seat": _lookup(SEATS, seat, "seat"), "scan_ms": scan, "debounce_ms": debounce}


def _enc_resend(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("from_seq",), ())
    return struct.pack("<H", _int(f, "from_seq", 0, 0xFFFF))


def _dec_resend(p: bytes) -> "dict[str, Any]":
    _need(p, 2)
    return {"from_seq": struct.unpack("<H", p[:2])[0]}


def _enc_ack(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("ack_seq",), ())
    return struct.pack("<H", _int(f, "ack_seq", 0, 0xFFFF))


def _dec_ack(p: bytes) -> "dict[str, Any]":
    _need(p, 2)
    return {"ack_seq": struct.unpack("<H", p[:2])[0]}


def _uid(f: "dict[str, Any]") -> bytes:
    v = f.get("uid")
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else b""
    except ValueError:
        b = b""
    if not 4 <= len(b) <= UID_LEN:
        raise _err("uid", v, "a tag UID: 8 or 14 hex digits")
    return b + bytes(UID_LEN - len(b))


def _card_or_none(f: "dict[str, Any]") -> int:
    return card_index(f["card"]) if "card" in f else NONE_BYTE


def _enc_tag(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("uid", "locked"), ("card", "deck"))
    deck = _int(f, "deck", 0, NO_DECK - 1) if "deck" in f else NO_DECK
    return _uid(f) + struct.pack("<BHB", _card_or_none(f), deck, 1 if f["locked"] else 0)


def _dec_tag(p: bytes) -> "dict[str, Any]":
    _need(p, UID_LEN + 4)
    card, deck, flags = struct.unpack("<BHB", p[UID_LEN : UID_LEN + 4])
    out: dict[str, Any] = {"uid": p[:UID_LEN].hex().upper(), "locked": bool(flags & 1)}
    if card != NONE_BYTE:
        out["card"] = card_name(card)
    if deck != NO_DECK:
        out["deck"] = deck
    return out


def _enc_write(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("uid", "card", "deck"), ())
    return _uid(f) + struct.pack("<BH", card_index(f["card"]), _int(f, "deck", 0, NO_DECK - 1))


def _dec_write(p: bytes) -> "dict[str, Any]":
    _need(p, UID_LEN + 3)
    card, deck = struct.unpack("<BH", p[UID_LEN : UID_LEN + 3])
    if deck == NO_DECK:
        raise ValueError("deck 65535")
    return {"uid": p[:UID_LEN].hex().upper(), "card": card_name(card), "deck": deck}


def _enc_maint(f: "dict[str, Any]") -> bytes:
    _check_keys(f, ("action",), ())
    return bytes((_code(f, "action", MAINT_ACTIONS),))


def _dec_maint(p: bytes) -> "dict[str, Any]":
    _need(p, 1)
    return {"action": _lookup(MAINT_ACTIONS, p[0], "action")}


_ENCODERS = {
    HELLO: _enc_hello,
    HEARTBEAT: _enc_heartbeat,
    OBSERVE: _enc_observe,
    CALL: _enc_call,
    FAULT: _enc_fault,
    TAG: _enc_tag,
    CONFIG: _enc_config,
    RESEND: _enc_resend,
    ACK: _enc_ack,
    MAINT: _enc_maint,
    WRITE: _enc_write,
}
_DECODERS = {
    HELLO: _dec_hello,
    HEARTBEAT: _dec_heartbeat,
    OBSERVE: _dec_observe,
    CALL: _dec_call,
    FAULT: _dec_fault,
    TAG: _dec_tag,
    CONFIG: _dec_config,
    RESEND: _dec_resend,
    ACK: _dec_ack,
    MAINT: _dec_maint,
    WRITE: _dec_write,
}


# -- frames ------------------------------------------------------------------


def pack_frame(
    version: int, flags: int, reader: int, seq: int, mtype: int, payload: bytes
) -> bytes:
    """Header + payload + CRC, COBS-encoded, with the trailing 0x00.

    No checks beyond byte ranges: this is the raw layer under :func:`encode`,
    also used to build deliberately bad frames for tests.
    """
    body = struct.pack("<BBBHB", version, flags, reader, seq, mtype) + payload
    return cobs_encode(body + struct.pack("<I", crc32(body))) + b"\x00"


def pack_signed(
    version: int, flags: int, reader: int, seq: int, mtype: int, payload: bytes,
    key: "SigningKey | bytes", stamp: int, sender: str = "reader",
) -> bytes:
    """As :func:`pack_frame`, with ``FLAG_SIGNED`` set and the signature block added."""
    head = struct.pack("<BBBHB", version, flags | FLAG_SIGNED, reader, seq, mtype)
    return _sign(head + payload, key, stamp, sender)


def resign(frame: bytes, key: "SigningKey | bytes", stamp: int, sender: str = "reader") -> bytes:
    """A signed frame (as :func:`encode` made it) again, with a new stamp and MAC.

    A reader resending a kept frame signs it afresh: its old stamp may be
    stale by then (the host adopted a newer session), its seq stays.
    """
    raw = cobs_decode(frame[:-1])
    return _sign(raw[: -CRC_LEN - SIG_LEN], key, stamp, sender)


def _sign(body: bytes, key: "SigningKey | bytes", stamp: int, sender: str) -> bytes:
    k = as_key(key)
    assert k is not None
    body += struct.pack("<IH", stamp & 0xFFFFFFFF, stamp >> 32)
    body += k.mac(sender, body)
    return cobs_encode(body + struct.pack("<I", crc32(body))) + b"\x00"


def encode(
    mtype: int, fields: "dict[str, Any]", reader: int, seq: int, flags: int = 0,
    key: "SigningKey | bytes | None" = None, stamp: int = 0, sender: str = "reader",
) -> bytes:
    """The complete frame (COBS, trailing 0x00) of one message.

    With ``key`` the frame is signed (``FLAG_SIGNED`` set, ``stamp`` and the
    MAC appended, ``sender`` naming who sends it: ``"reader"`` or ``"host"``);
    without, the frame is the plain v1 one.

    Raises :class:`LocalProtocolError` for an unknown type, a missing, unknown
    or out-of-range field, an unsupported incompatible flag (``FLAG_SIGNED``
    without a key), a bad stamp or sender, or a frame over :data:`MAX_FRAME`.
    """
    enc = _ENCODERS.get(mtype) if isinstance(mtype, int) else None
    if enc is None:
        raise LocalProtocolError(f"unknown message type {mtype!r}")
    for name, value, hi in (("reader", reader, 0xFF), ("seq", seq, 0xFFFF), ("flags", flags, 0xFF)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= hi:
            raise LocalProtocolError(f"{name}={value!r}: expected an integer 0..{hi}")
    supported = SUPPORTED_INCOMPAT
    k = as_key(key)
    if k is not None:
        supported |= FLAG_SIGNED
        if isinstance(stamp, bool) or not isinstance(stamp, int) or not 0 <= stamp <= MAX_STAMP:
            raise LocalProtocolError(f"stamp={stamp!r}: expected an integer 0..{MAX_STAMP}")
        if sender not in _DIRECTION:
            raise LocalProtocolError(f"sender={sender!r}: expected reader or host")
    if flags & INCOMPAT_MASK & ~supported:
        bad = flags & INCOMPAT_MASK
        raise LocalProtocolError(f"incompatible flags 0x{bad:02x} not supported")
    try:
        payload = enc(fields)
    except LocalProtocolError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise LocalProtocolError(f"{TYPE_NAMES[mtype]} fields {fields!r}: {e}") from e
    size = HEADER_LEN + len(payload) + CRC_LEN + (SIG_LEN if k is not None else 0)
    if size > MAX_FRAME:
        raise LocalProtocolError(f"frame of {size} bytes exceeds MAX_FRAME {MAX_FRAME}")
    if k is not None:
        return pack_signed(PROTOCOL_VERSION, flags, reader, seq, mtype, payload, k, stamp, sender)
    return pack_frame(PROTOCOL_VERSION, flags, reader, seq, mtype, payload)


class Frame:
    """One decoded message: header values and ``fields`` (a plain dict).

    ``stamp`` is the signature stamp of a signed frame whose MAC checked out,
    None for an unsigned one.
    """

    def __init__(
        self,
        mtype: int,
        fields: "dict[str, Any]",
        reader: int = 0,
        seq: int = 0,
        flags: int = 0,
        version: int = PROTOCOL_VERSION,
        stamp: "int | None" = None,
    ) -> None:
        self.version = version
        self.flags = flags
        self.reader = reader
        self.seq = seq
        self.mtype = mtype
        self.fields = fields
        self.stamp = stamp

    @property
    def name(self) -> str:
        return TYPE_NAMES.get(self.mtype, f"TYPE{self.mtype}")

    def to_dict(self) -> "dict[str, Any]":
        """A JSON-ready dict: ``type`` (the name), header values, ``fields``
        (and ``stamp`` for a signed frame)."""
        out = {
            "type": self.name,
            "version": self.version,
            "flags": self.flags,
            "reader": self.reader,
            "seq": self.seq,
            "fields": self.fields,
        }
        if self.stamp is not None:
            out["stamp"] = self.stamp
        return out

    def encode(self) -> bytes:
        """The frame's bytes again (a signed frame needs ``encode(..., key=)``)."""
        return encode(self.mtype, self.fields, self.reader, self.seq, self.flags)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (
            f"Frame({self.name}, {self.fields!r}, reader={self.reader}, seq={self.seq},"
            f" flags={self.flags})"
        )


class Decoder:
    """Bytes in, frames and errors out, with bounded memory.

    Frames end at each 0x00. Bytes between delimiters are collected, but
    never more than the last ``2 * MAX_ENCODED``; a chunk that does not
    decode is searched for a valid frame at its tail, so line noise in front
    of a frame (or a lost delimiter) costs only the noise.

    With a ``key``, signed frames from ``sender`` (``"reader"``: the host's
    decoder; ``"host"``: a reader's) are checked (``bad_signature``) and
    unsigned ones dropped as ``unsigned`` unless ``require`` is False. Stamps
    are not checked for freshness here: the replay window is the caller's
    (it must outlive a decoder, which is made afresh when a port is opened). Without a key,
    signed frames are ``incompatible_flag``, as in plain v1.
    """

    def __init__(
        self, key: "SigningKey | bytes | None" = None, require: bool = True,
        sender: str = "reader",
    ) -> None:
        if sender not in _DIRECTION:
            raise LocalProtocolError(f"sender={sender!r}: expected reader or host")
        self.key = as_key(key)
        self.require = require and self.key is not None
        self.sender = sender
        self.counters: dict[str, int] = {}
        for name in COUNTER_NAMES:
            self.counters[name] = 0
        if self.key is not None:
            for name in SIGNED_COUNTER_NAMES:
                self.counters[name] = 0
        self._buf = bytearray()
        self._count = 0  # bytes of the current chunk, including any discarded
        self._start = 0  # stream offset of the current chunk
        self._pos = 0  # stream offset of the next byte fed

    @property
    def buffered(self) -> int:
        """Bytes held while waiting for the next 0x00 (at most 2 * MAX_ENCODED)."""
        return len(self._buf)

    def feed(self, data: bytes) -> "list[Frame | RemoteProtocolError]":
        out: list[Frame | RemoteProtocolError] = []
        if not isinstance(data, (bytes, bytearray)):
            data = bytes(data)
        base = self._pos
        n = len(data)
        i = 0
        while i < n:
            j = data.find(b"\x00", i)
            if j < 0:
                self._append(data, i, n, base)
                break
            self._append(data, i, j, base)
            self._end_chunk(out)
            i = j + 1
        self._pos = base + n
        return out

    def feed_eof(self) -> "list[Frame | RemoteProtocolError]":
        """End of input: decode what is buffered as if a 0x00 had arrived."""
        out: list[Frame | RemoteProtocolError] = []
        self._end_chunk(out)
        return out

    def _append(self, data: bytes, i: int, j: int, base: int) -> None:
        if j <= i:
            return
        if self._count == 0:
            self._start = base + i
        self._count += j - i
        if j - i >= MAX_ENCODED:
            self._buf = bytearray(data[j - MAX_ENCODED : j])
        else:
            self._buf.extend(data[i:j])
            if len(self._buf) > 2 * MAX_ENCODED:
                self._buf = self._buf[len(self._buf) - MAX_ENCODED :]

    def _end_chunk(self, out: "list[Frame | RemoteProtocolError]") -> None:
        count = self._count
        if count == 0:
            return
        buf = bytes(self._buf)
        if len(buf) > MAX_ENCODED:
            buf = buf[len(buf) - MAX_ENCODED :]
        self._buf = bytearray()
        self._count = 0
        start = self._start
        first_kind = "truncated"
        first_msg = f"{count} bytes: too short for a frame"
        for skip in range(len(buf) - MIN_ENCODED + 1):
            kind = ""
            try:
                raw = cobs_decode(buf[skip:])
            except ValueError as e:
                kind, msg = "truncated", f"bad COBS: {e}"
            else:
                if len(raw) < MIN_FRAME:
                    kind, msg = "truncated", f"{len(raw)} bytes: too short for a frame"
                elif len(raw) > MAX_FRAME:
                    kind, msg = "oversize", f"{len(raw)} bytes: over MAX_FRAME"
                else:
                    got = struct.unpack("<I", raw[-CRC_LEN:])[0]
                    want = crc32(raw[:-CRC_LEN])
                    if got != want:
                        kind = "bad_crc"
                        msg = f"CRC 0x{got:08x}, computed 0x{want:08x}"
            if kind:
                if skip == 0:
                    first_kind, first_msg = kind, msg
                continue
            dropped = count - len(buf) + skip
            if dropped:
                self.counters["garbage_bytes"] += dropped
                self.counters["resyncs"] += 1
                out.append(
                    RemoteProtocolError(
                        "garbage_bytes", f"skipped {dropped} bytes before a frame", start
                    )
                )
            out.append(self._parse(raw, start + dropped))
            return
        if count > len(buf):
            first_kind = "oversize"
            first_msg = f"{count} bytes between delimiters: over the maximum frame"
        self.counters[first_kind] += 1
        self.counters["garbage_bytes"] += count
        out.append(RemoteProtocolError(first_kind, first_msg, start))

    def _parse(self, raw: bytes, offset: int) -> "Frame | RemoteProtocolError":
        version, flags, reader, seq, mtype = struct.unpack("<BBBHB", raw[:HEADER_LEN])
        kind = ""
        end = len(raw) - CRC_LEN  # where the payload ends
        stamp = None
        key = self.key
        supported = SUPPORTED_INCOMPAT | (FLAG_SIGNED if key is not None else 0)
        if version != PROTOCOL_VERSION:
            kind, msg = "bad_version", f"protocol version {version}, not {PROTOCOL_VERSION}"
        elif flags & INCOMPAT_MASK & ~supported:
            kind = "incompatible_flag"
            bad = flags & INCOMPAT_MASK
            msg = f"unsupported incompatible flags 0x{bad:02x}"
            if flags & FLAG_SIGNED:
                msg += " (signed; no key here)"
        elif key is not None and flags & FLAG_SIGNED:
            end -= SIG_LEN
            if end < HEADER_LEN:
                kind, msg = "bad_signature", "too short for a signature"
            elif not _same_bytes(key.mac(self.sender, raw[: end + STAMP_LEN]),
                                 raw[end + STAMP_LEN : end + SIG_LEN]):
                kind, msg = "bad_signature", "MAC does not match"
            else:
                lo, hi = struct.unpack("<IH", raw[end : end + STAMP_LEN])
                stamp = lo | (hi << 32)
        elif self.require:
            kind, msg = "unsigned", "unsigned frame where a signature is required"
        if kind:
            pass
        elif mtype not in _DECODERS:
            kind, msg = "unknown_type", f"unknown message type {mtype}"
        else:
            try:
                fields = _DECODERS[mtype](raw[HEADER_LEN:end])
            except ValueError as e:
                kind, msg = "bad_payload", f"{TYPE_NAMES[mtype]}: {e}"
        if kind:
            self.counters[kind] += 1
            return RemoteProtocolError(kind, msg, offset)
        self.counters["frames"] += 1
        return Frame(mtype, fields, reader, seq, flags, version, stamp)
