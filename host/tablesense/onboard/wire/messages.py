"""The messages of protocol v1: their types, code tables and one table of their fields.

``MESSAGES`` says, for each type, its name and its fields in wire order:
``(key, kind, arg, absent)``. ``kind`` names how the field travels (an
integer, a code from a table, a card, ...), ``arg`` is what that kind needs
(a struct format and range, a code table), ``absent`` is None for a required
field, or the value an absent optional field is sent as: a value outside the
field's range (``NONE_BYTE``, ``NO_DECK``) comes back as absent, one inside
it (CONFIG's ``debounce_ms`` 0, the boot default) as that value. A new message
is one new row, plus its type number.

>>> payload = encode_payload(CALL, {"seat": "W", "call": "3n", "t": 4})
>>> payload.hex()
'031104000000'
>>> decode_payload(CALL, payload)
{'seat': 'W', 'call': '3N', 't': 4}
"""

import struct

from .errors import LocalProtocolError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Message types: reader -> host 1..15, host -> reader 16..31 (ACK both ways).
HELLO = 1
HEARTBEAT = 2
OBSERVE = 3
CALL = 4
FAULT = 5
TAG = 6
STATUS = 7
CONFIG = 16
RESEND = 17
ACK = 18
MAINT = 19
WRITE = 20
FILE = 21
CHUNK = 22
INSTALL = 23
CONFIRM = 24

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
MAINT_ACTIONS = ("stop", "bootloader", "reset", "enrol", "scan", "hello")
# A firmware update's progress, as the reader reports it (STATUS state).
UPDATE_STATES = ("receiving", "verified", "mismatch", "installing", "confirmed", "not-on-trial",
                 "on-trial", "bad-signature", "incomplete", "bad-manifest", "write-failed")
MAX_CHUNK = 32  # file bytes a CHUNK carries: 38 bytes of payload, a signed frame fits
DIGEST_LEN = 32  # a SHA-256 (FILE) or HMAC-SHA256 (INSTALL) on the wire; hex when decoded
UID_LEN = 8  # an ISO/IEC 15693 UID (ICODE SLIX2); on the wire its length, then 8 bytes
# zero-padded on the right (NTAG213: 7 bytes, ISO/IEC 14443 single size: 4)
NO_DECK = 0xFFFF
NONE_BYTE = 0xFF  # "absent" for the optional one-byte fields of FAULT
SEEN_KNOWN = 0x80  # OBSERVE seen_by byte: bit 7 set = the list is known
MAX_SERIAL = 32
CONF_SCALE = 255  # conf travels as round(conf * 255); 255 means 1 (omitted)
U32 = ("I", 0, 0xFFFFFFFF)
U16 = ("H", 0, 0xFFFF)
U8 = ("B", 0, 0xFF)
DECK = ("H", 0, NO_DECK - 1)

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

# The one table of fields, in wire order (protocol.md section 3).
MESSAGES: "dict[int, tuple[str, tuple[tuple[str, str, Any, int | None], ...]]]" = {
    HELLO: ("HELLO", (
        ("kind", "code", READER_KINDS, None),
        ("firmware", "version", None, None),
        ("capabilities", "caps", None, None),
        ("serial", "serial", None, None),
    )),
    HEARTBEAT: ("HEARTBEAT", (
        ("uptime", "int", U32, None),
        ("reads", "int", U32, None),
        ("errors", "int", U32, None),
        ("dropped", "int", U32, None),
    )),
    OBSERVE: ("OBSERVE", (
        ("seat", "code", SEATS, None),
        ("card", "card", None, None),
        ("zone", "code", ZONES, None),
        ("face", "face_level", None, 0),  # face | level << 2, one byte
        ("seen_by", "seen_by", None, 0),
        ("conf", "conf", None, CONF_SCALE),
        ("t", "int", U32, None),
    )),
    CALL: ("CALL", (
        ("seat", "code", SEATS, None),
        ("call", "call", None, None),
        ("t", "int", U32, None),
    )),
    FAULT: ("FAULT", (
        ("code", "int", ("B", 0, 255), None),
        ("zone", "code", ZONES, NONE_BYTE),
        ("antenna", "int", ("B", 0, 254), NONE_BYTE),
        ("t", "int", U32, None),
    )),
    TAG: ("TAG", (  # a tag as it is, from a reader in enrolment mode
        ("uid", "uid", None, None),
        ("card", "card", None, NONE_BYTE),
        ("deck", "int", DECK, NO_DECK),
        ("locked", "flag", None, None),
    )),
    CONFIG: ("CONFIG", (
        ("seat", "code", SEATS, None),
        ("scan_ms", "int", ("H", 1, 0xFFFF), None),
        ("debounce_ms", "int", U16, 0),
    )),
    RESEND: ("RESEND", (("from_seq", "int", U16, None),)),
    ACK: ("ACK", (("ack_seq", "int", U16, None),)),
    MAINT: ("MAINT", (("action", "code", MAINT_ACTIONS, None),)),
    WRITE: ("WRITE", (  # write and lock a tag for a card of a deck
        ("uid", "uid", None, None),
        ("card", "card", None, None),
        ("deck", "int", DECK, None),
    )),
    # a firmware update (protocol.md section 3a): one file of the bundle announced, one
    # piece of it, the bundle's signature, the new version confirmed; the reader's progress
    FILE: ("FILE", (
        ("file", "int", U8, None),
        ("size", "int", U32, None),
        ("sha256", "digest", None, None),
    )),
    CHUNK: ("CHUNK", (
        ("file", "int", U8, None),
        ("offset", "int", U32, None),
        ("data", "blob", None, None),
    )),
    INSTALL: ("INSTALL", (("sig", "digest", None, None),)),
    CONFIRM: ("CONFIRM", (("firmware", "version", None, None),)),
    STATUS: ("STATUS", (
        ("file", "int", U8, None),
        ("have", "int", U32, None),
        ("state", "code", UPDATE_STATES, None),
    )),
}
TYPE_NAMES = {mtype: spec[0] for mtype, spec in MESSAGES.items()}
# Struct format of each kind's bytes (HELLO's serial adds its own bytes after them).
_FORMATS = {"code": "B", "card": "B", "call": "B", "face_level": "B", "seen_by": "B",
            "conf": "B", "version": "BBB", "caps": "H", "serial": "B", "flag": "B",
            "uid": f"B{UID_LEN}s", "digest": f"{DIGEST_LEN}s", "blob": "B"}


def _err(key: str, value: object, want: str) -> LocalProtocolError:
    return LocalProtocolError(f"field {key}={value!r}: expected {want}")


def card_index(card: object) -> int:
    """Wire byte of a card: suit index * 13 + rank index (SA=0 .. C2=51).

    Accepts the contract's input forms: lower case, ``10`` for ``T``.

    >>> card_index("h10"), card_index("C2")
    (17, 51)
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


def _lookup(table: "tuple[str, ...]", index: int, what: str) -> str:
    if index >= len(table):
        raise ValueError(f"{what} byte {index} out of range")
    return table[index]


def _is_byte_number(s: str) -> bool:
    if not s or len(s) > 3:
        return False
    for ch in s:
        if ch not in "0123456789":
            return False
    return int(s) <= 255


def _cap_bit(cap: object) -> int:
    if not isinstance(cap, str):
        return -1
    if cap in CAPABILITIES:
        return CAPABILITIES.index(cap)
    if cap[:3] == "bit" and _is_byte_number(cap[3:]) and int(cap[3:]) < 16:
        return int(cap[3:])
    return -1


def _check_keys(name: str, fields: object, table: "tuple[Any, ...]") -> None:
    if not isinstance(fields, dict):
        raise LocalProtocolError(f"fields must be a dict, not {fields!r}")
    known = []
    for key, kind, _arg, absent in table:
        known.append(key)
        if kind == "face_level":
            known.append("level")
        if absent is None and key not in fields:
            raise LocalProtocolError(f"missing field {key}")
    for key in fields:
        if key not in known:
            raise LocalProtocolError(f"unknown field {key!r}")


def _encode_field(
    f: "dict[str, Any]", key: str, kind: str, arg: "Any", absent: "int | None"
) -> "list[Any]":
    """The struct values of one field (its bytes, HELLO's serial aside)."""
    if kind == "face_level":
        face = _code(f, "face", FACES) if "face" in f else 0
        return [face | ((_code(f, "level", LEVELS) if "level" in f else 0) << 2)]
    if key not in f:
        assert absent is not None  # _check_keys let only optional fields be absent
        return [absent]
    if kind == "int":
        return [_int(f, key, arg[1], arg[2])]
    if kind == "code":
        return [_code(f, key, arg)]
    if kind == "card":
        return [card_index(f[key])]
    if kind == "flag":
        return [1 if f[key] else 0]
    if kind == "uid":
        b = _uid(f, key)
        return [len(b), b + bytes(UID_LEN - len(b))]
    if kind == "call":
        return [call_index(f[key])]
    if kind == "digest":
        return [_hex(f, key, DIGEST_LEN, DIGEST_LEN)]
    if kind == "blob":
        return [len(_hex(f, key, 0, MAX_CHUNK))]
    if kind == "seen_by":
        seen_by = f[key]
        if not isinstance(seen_by, (list, tuple)):
            raise _err(key, seen_by, "a list of seats")
        seen = SEEN_KNOWN
        for s in seen_by:
            if not isinstance(s, str) or s not in SEATS or s == f["seat"]:
                raise _err(key, seen_by, "seats other than the holder")
            bit = 1 << SEATS.index(s)
            if seen & bit:
                raise _err(key, seen_by, "each seat at most once")
            seen |= bit
        return [seen]
    if kind == "conf":
        conf = f[key]
        if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 <= conf <= 1:
            raise _err(key, conf, "a number 0..1")
        return [round(conf * CONF_SCALE)]
    if kind == "version":
        fw = f[key]
        parts = fw.split(".") if isinstance(fw, str) else []
        if len(parts) != 3 or not all(_is_byte_number(p) for p in parts):
            raise _err(key, fw, "a version MAJOR.MINOR.PATCH, each 0..255")
        return [int(parts[0]), int(parts[1]), int(parts[2])]
    if kind == "caps":
        caps = f[key]
        if not isinstance(caps, (list, tuple)):
            raise _err(key, caps, "a list of capability names")
        mask = 0
        for cap in caps:
            bit = _cap_bit(cap)
            if bit < 0:
                raise _err(key, cap, "one of " + " ".join(CAPABILITIES) + " or bit0..bit15")
            mask |= 1 << bit
        return [mask]
    # serial: its length here, its bytes after the fixed part
    serial = f[key]
    if not isinstance(serial, str) or not _is_serial(serial):
        raise _err(key, serial, f"1..{MAX_SERIAL} printable ASCII characters, no spaces")
    return [len(serial)]


def _uid(f: "dict[str, Any]", key: str) -> bytes:
    v = f[key]
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else b""
    except ValueError:
        b = b""
    if len(b) not in (4, 7, UID_LEN):
        raise _err(key, v, "a tag UID: 8, 14 or 16 hex digits")
    return b


def _hex(f: "dict[str, Any]", key: str, lo: int, hi: int) -> bytes:
    v = f[key]
    try:
        b = bytes.fromhex(v) if isinstance(v, str) else b""
    except ValueError:
        b = b"-" * (hi + 1)
    if not isinstance(v, str) or len(b) < lo or len(b) > hi:
        want = f"{hi} bytes" if lo == hi else f"0..{hi} bytes"
        raise _err(key, v, f"hex digits of {want}")
    return b


def _is_serial(s: str) -> bool:
    if not s or len(s) > MAX_SERIAL:
        return False
    return all(not (ord(ch) < 33 or ord(ch) > 126) for ch in s)


def _format(table: "tuple[Any, ...]") -> str:
    return "<" + "".join(arg[0] if kind == "int" else _FORMATS[kind]
                         for _key, kind, arg, _absent in table)


def encode_payload(mtype: int, fields: "dict[str, Any]") -> bytes:
    """The payload of one message; ``LocalProtocolError`` naming the field that is wrong."""
    spec = MESSAGES.get(mtype) if isinstance(mtype, int) else None
    if spec is None:
        raise LocalProtocolError(f"unknown message type {mtype!r}")
    name, table = spec
    _check_keys(name, fields, table)
    values: list[Any] = []
    tail = b""
    for key, kind, arg, absent in table:
        values.extend(_encode_field(fields, key, kind, arg, absent))
        if kind == "serial":
            tail = fields[key].encode()
        elif kind == "blob":
            tail = bytes.fromhex(fields[key])
    return struct.pack(_format(table), *values) + tail


def decode_payload(mtype: int, p: bytes) -> "dict[str, Any]":
    """The fields of one message's payload; ``ValueError`` saying what is wrong.

    Bytes after the layout are ignored (a later minor revision may append
    fields). Fields that may be absent come after the others.
    """
    table = MESSAGES[mtype][1]
    fmt = _format(table)
    size = struct.calcsize(fmt)
    if len(p) < size:
        raise ValueError(f"payload is {len(p)} bytes, needs {size}")
    values = struct.unpack(fmt, p[:size])
    out: dict[str, Any] = {}
    late: dict[str, Any] = {}
    i = 0
    for key, kind, arg, absent in table:
        v = values[i]
        i += 1
        # an optional field whose absent value lies outside its range: absent, and last
        may_lack = absent is not None and (kind != "int" or not arg[1] <= absent <= arg[2])
        if may_lack and kind in ("int", "code", "card") and v == absent:
            continue
        dest = late if may_lack else out
        if kind == "int":
            if v < arg[1] or v > arg[2]:
                raise ValueError(f"{key} {v} out of range")
            dest[key] = v
        elif kind == "code":
            dest[key] = _lookup(arg, v, key)
        elif kind == "card":
            dest[key] = card_name(v)
        elif kind == "flag":
            out[key] = bool(v & 1)
        elif kind == "uid":
            if v not in (4, 7, UID_LEN):
                raise ValueError(f"{key} length {v}")
            out[key] = bytes(values[i][:v]).hex().upper()
            i += 1
        elif kind == "call":
            out[key] = call_name(v)
        elif kind == "digest":
            out[key] = bytes(v).hex()
        elif kind == "blob":  # v bytes after the fixed part
            if v > MAX_CHUNK or len(p) < size + v:
                raise ValueError(f"{key}: {v} bytes, payload is {len(p)}")
            out[key] = bytes(p[size : size + v]).hex()
        elif kind == "face_level":
            out["face"] = _lookup(FACES, v & 3, "face")
            out["level"] = _lookup(LEVELS, (v >> 2) & 3, "level")
        elif kind == "seen_by":
            if v & SEEN_KNOWN:
                holder = SEATS.index(out["seat"])
                if v & (1 << holder):
                    raise ValueError("seen_by names the holder")
                late[key] = [s for n, s in enumerate(SEATS) if v & (1 << n)]
        elif kind == "conf":
            if v != CONF_SCALE:
                late[key] = round(v / CONF_SCALE, 4)
        elif kind == "version":
            out[key] = f"{v}.{values[i]}.{values[i + 1]}"
            i += 2
        elif kind == "caps":
            out[key] = [CAPABILITIES[bit] if bit < len(CAPABILITIES) else f"bit{bit}"
                        for bit in range(16) if v & (1 << bit)]
        else:  # serial: v bytes after the fixed part
            if len(p) < size + v:
                raise ValueError(f"payload is {len(p)} bytes, needs {size + v}")
            serial = p[size : size + v]
            if v == 0 or v > MAX_SERIAL or any(b < 0x21 or b > 0x7E for b in serial):
                raise ValueError("bad serial number")
            out[key] = serial.decode()
    out.update(late)
    return out
