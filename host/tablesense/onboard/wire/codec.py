"""The reader <-> host wire codec, sans-I/O: messages to frames and back.

Like h11 it does no I/O: :func:`encode` turns a message into the bytes of one
frame; a :class:`Decoder` is fed whatever bytes arrive and returns, in stream
order, :class:`Frame` objects and :class:`RemoteProtocolError` instances
(returned, not raised, so the caller can log and count them and go on).
Misuse on our side raises :class:`LocalProtocolError`. This module composes
``framing``, ``signing`` and ``messages`` and re-exports their names, so the
firmware and the host both say ``codec.OBSERVE``, ``codec.seq_delta``.

>>> d = Decoder()
>>> [f.fields for f in d.feed(encode(ACK, {"ack_seq": 7}, reader=2, seq=1))]
[{'ack_seq': 7}]

Signing is optional (protocol.md section 2a): with a shared key,
:func:`encode` appends a stamp and a truncated HMAC-SHA256 and sets
``FLAG_SIGNED``; a ``Decoder(key)`` checks them. Without a key nothing
changes: unsigned frames are byte for byte those of v1.

>>> key = bytes(range(16))
>>> wire = encode(ACK, {"ack_seq": 7}, reader=2, seq=1, key=key, stamp=5)
>>> [(f.fields, f.stamp) for f in Decoder(key).feed(wire)]
[({'ack_seq': 7}, 5)]
>>> [e.kind for e in Decoder(bytes(16)).feed(wire)]
['bad_signature']
"""

import struct

from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import (
    CRC_LEN,
    FLAG_SIGNED,
    HEADER,
    HEADER_LEN,
    INCOMPAT_MASK,
    MAX_ENCODED,
    MAX_FRAME,
    MIN_ENCODED,
    MIN_FRAME,
    PROTOCOL_VERSION,
    SUPPORTED_INCOMPAT,
    Deframer,
    cobs_decode,
    cobs_encode,
    crc32,
    header,
    pack_frame,
    seal,
    seq_delta,
    seq_next,
)
from .messages import (
    ACK,
    CALL,
    CAPABILITIES,
    CHUNK,
    CONF_SCALE,
    CONFIG,
    CONFIRM,
    FACES,
    FAULT,
    FAULT_NAMES,
    FILE,
    HEARTBEAT,
    HELLO,
    INSTALL,
    LEVELS,
    MAINT,
    MAINT_ACTIONS,
    MAX_CHUNK,
    MAX_SERIAL,
    MESSAGES,
    NO_DECK,
    NONE_BYTE,
    OBSERVE,
    RANKS,
    READER_KINDS,
    RESEND,
    SEATS,
    SEEN_KNOWN,
    STATUS,
    STRAINS,
    SUITS,
    TAG,
    TYPE_NAMES,
    UID_LEN,
    UPDATE_STATES,
    WRITE,
    ZONE_CAPABILITIES,
    ZONES,
    call_index,
    call_name,
    card_index,
    card_name,
    decode_payload,
    encode_payload,
)
from .signing import (
    MAC_LEN,
    MAX_STAMP,
    SENDERS,
    SIG_LEN,
    STAMP_LEN,
    SigningKey,
    as_key,
    check_sender,
    hmac_sha256,
    sign,
    verify,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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


def pack_signed(
    version: int, flags: int, reader: int, seq: int, mtype: int, payload: bytes,
    key: "SigningKey | bytes", stamp: int, sender: str = "reader",
) -> bytes:
    """As :func:`pack_frame`, with ``FLAG_SIGNED`` set and the signature block added."""
    head = header(version, flags | FLAG_SIGNED, reader, seq, mtype)
    return seal(sign(head + payload, key, stamp, sender))


def resign(frame: bytes, key: "SigningKey | bytes", stamp: int, sender: str = "reader") -> bytes:
    """A signed frame (as :func:`encode` made it) again, with a new stamp and MAC.

    A reader resending a kept frame signs it afresh: its old stamp may be
    stale by then (the host adopted a newer session), its seq stays.
    """
    raw = cobs_decode(frame[:-1])
    return seal(sign(raw[: -CRC_LEN - SIG_LEN], key, stamp, sender))


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
    if not isinstance(mtype, int) or mtype not in MESSAGES:
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
        check_sender(sender)
    if flags & INCOMPAT_MASK & ~supported:
        bad = flags & INCOMPAT_MASK
        raise LocalProtocolError(f"incompatible flags 0x{bad:02x} not supported")
    try:
        payload = encode_payload(mtype, fields)
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
    """Bytes in, frames and errors out, with bounded memory (framing.Deframer).

    With a ``key``, signed frames from ``sender`` (``"reader"``: the host's
    decoder; ``"host"``: a reader's) are checked (``bad_signature``) and
    unsigned ones dropped as ``unsigned`` unless ``require`` is False. Stamps
    are not checked for freshness here: the replay window is the caller's (it
    must outlive a decoder, which is made afresh when a port is opened).
    Without a key, signed frames are ``incompatible_flag``, as in plain v1.
    """

    def __init__(
        self, key: "SigningKey | bytes | None" = None, require: bool = True,
        sender: str = "reader",
    ) -> None:
        check_sender(sender)
        self.key = as_key(key)
        self.require = require and self.key is not None
        self.sender = sender
        self.counters: dict[str, int] = {}
        for name in COUNTER_NAMES:
            self.counters[name] = 0
        if self.key is not None:
            for name in SIGNED_COUNTER_NAMES:
                self.counters[name] = 0
        self._frames = Deframer(self.counters)

    @property
    def buffered(self) -> int:
        """Bytes held while waiting for the next 0x00 (at most 2 * MAX_ENCODED)."""
        return self._frames.buffered

    def feed(self, data: bytes) -> "list[Frame | RemoteProtocolError]":
        return self._parse_all(self._frames.feed(data))

    def feed_eof(self) -> "list[Frame | RemoteProtocolError]":
        """End of input: decode what is buffered as if a 0x00 had arrived."""
        return self._parse_all(self._frames.feed_eof())

    def _parse_all(
        self, items: "list[tuple[bytes, int] | RemoteProtocolError]"
    ) -> "list[Frame | RemoteProtocolError]":
        out: list[Frame | RemoteProtocolError] = []
        for item in items:
            out.append(item if isinstance(item, RemoteProtocolError) else self._parse(*item))
        return out

    def _parse(self, body: bytes, offset: int) -> "Frame | RemoteProtocolError":
        version, flags, reader, seq, mtype = struct.unpack(HEADER, body[:HEADER_LEN])
        kind = ""
        end = len(body)  # where the payload ends
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
            else:
                stamp = verify(key, self.sender, body)
                if stamp is None:
                    kind, msg = "bad_signature", "MAC does not match"
        elif self.require:
            kind, msg = "unsigned", "unsigned frame where a signature is required"
        if kind:
            pass
        elif mtype not in MESSAGES:
            kind, msg = "unknown_type", f"unknown message type {mtype}"
        else:
            try:
                fields = decode_payload(mtype, body[HEADER_LEN:end])
            except ValueError as e:
                kind, msg = "bad_payload", f"{TYPE_NAMES[mtype]}: {e}"
        if kind:
            self.counters[kind] += 1
            return RemoteProtocolError(kind, msg, offset)
        self.counters["frames"] += 1
        return Frame(mtype, fields, reader, seq, flags, version, stamp)
