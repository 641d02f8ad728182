"""Frames on the wire: header, CRC-32, COBS, and a stream split into frames.

A frame is ``header | payload | [signature] | CRC-32``, COBS-encoded and
ended by one 0x00 byte (protocol.md sections 1-2). This module knows nothing
of what a payload means.

>>> cobs_encode(b"\\x11\\x00\\x22").hex()
'02110222'
>>> cobs_decode(bytes.fromhex("02110222"))
b'\\x11\\x00"'
>>> seq_delta(1, 65535)
2
"""

import binascii
import struct

from .errors import RemoteProtocolError

PROTOCOL_VERSION = 1

# Header: version, flags, reader, seq (u16 LE), type. Trailer: CRC-32 (u32 LE).
HEADER = "<BBBHB"
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
INCOMPAT_MASK = 0x0F  # the high nibble, compatible flags, needs no mask: unknown bits pass
# The frame carries a signature block (signing.py). Only a receiver given the
# key supports it: a Decoder without one drops signed frames as
# ``incompatible_flag``, and encode() sets it only with a key.
FLAG_SIGNED = 0x01
SUPPORTED_INCOMPAT = 0x00  # without a key; with one, FLAG_SIGNED too


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


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` without any 0x00 byte."""
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


def header(version: int, flags: int, reader: int, seq: int, mtype: int) -> bytes:
    return struct.pack(HEADER, version, flags, reader, seq, mtype)


def seal(body: bytes) -> bytes:
    """``body`` (header, payload, any signature) with its CRC, COBS-encoded, 0x00-ended."""
    return cobs_encode(body + struct.pack("<I", crc32(body))) + b"\x00"


def pack_frame(
    version: int, flags: int, reader: int, seq: int, mtype: int, payload: bytes
) -> bytes:
    """Header + payload + CRC, COBS-encoded, with the trailing 0x00.

    No checks beyond byte ranges: this is the raw layer under ``codec.encode``,
    also used to build deliberately bad frames for tests.
    """
    return seal(header(version, flags, reader, seq, mtype) + payload)


class Deframer:
    """Bytes in; each frame's checked content (header to CRC) out, with bounded memory.

    Frames end at each 0x00. Bytes between delimiters are collected, but
    never more than the last ``2 * MAX_ENCODED``; a chunk that does not
    decode is searched for a valid frame at its tail, so line noise in front
    of a frame (or a lost delimiter) costs only the noise. ``counters`` (a
    dict the caller owns) counts ``truncated``, ``oversize``, ``bad_crc``,
    ``garbage_bytes`` and ``resyncs``.

    >>> d = Deframer({"truncated": 0, "oversize": 0, "bad_crc": 0, "garbage_bytes": 0,
    ...               "resyncs": 0})
    >>> noise, (raw, at) = d.feed(b"\\x07junk" + pack_frame(1, 0, 2, 3, 18, b""))
    >>> noise.kind, raw.hex(), at
    ('garbage_bytes', '010002030012', 5)
    >>> d.counters["garbage_bytes"], d.counters["resyncs"]
    (5, 1)
    """

    def __init__(self, counters: "dict[str, int]") -> None:
        self.counters = counters
        self._buf = bytearray()
        self._count = 0  # bytes of the current chunk, including any discarded
        self._start = 0  # stream offset of the current chunk
        self._pos = 0  # stream offset of the next byte fed

    @property
    def buffered(self) -> int:
        """Bytes held while waiting for the next 0x00 (at most 2 * MAX_ENCODED)."""
        return len(self._buf)

    def feed(self, data: bytes) -> "list[tuple[bytes, int] | RemoteProtocolError]":
        """Frames (content without the CRC, and stream offset) and errors, in stream order."""
        out: list[tuple[bytes, int] | RemoteProtocolError] = []
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

    def feed_eof(self) -> "list[tuple[bytes, int] | RemoteProtocolError]":
        """End of input: what is buffered, as if a 0x00 had arrived."""
        out: list[tuple[bytes, int] | RemoteProtocolError] = []
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

    def _end_chunk(self, out: "list[tuple[bytes, int] | RemoteProtocolError]") -> None:
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
            out.append((raw[:-CRC_LEN], start + dropped))
            return
        if count > len(buf):
            first_kind = "oversize"
            first_msg = f"{count} bytes between delimiters: over the maximum frame"
        self.counters[first_kind] += 1
        self.counters["garbage_bytes"] += count
        out.append(RemoteProtocolError(first_kind, first_msg, start))
