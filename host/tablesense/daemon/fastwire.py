"""The host's frame decoder: :class:`tablesense.onboard.wire.codec.Decoder`, quicker on CPython.

The wire codec is shared with the reader firmware, so it keeps to what
MicroPython runs, and it decodes a frame field by field from the message
table: too slow on CPython for the line-rate goal (BENCHMARKS.md, "Now"),
which the link's decoding must keep. Here the same decoder takes a shortcut
for what a room sends most, a well-formed unsigned frame: the stream is
split on 0x00 with ``bytes.find``, the COBS blocks joined as slices, the CRC
checked, and OBSERVE and HEARTBEAT payloads read with one precompiled
``struct`` and lookup tables. Anything off that path (a chunk that does not
decode as it stands, a value out of range, a signed frame, another type, a
frame left half-read by the last chunk) is handed to the shared codec
itself, so errors, their messages, offsets and counters are the codec's own.
The codec stays the reference: ``tests/test_fastwire.py`` checks that both
give the same frames, errors and counters on every golden vector and on
random streams.

>>> from tablesense.onboard.wire import codec
>>> wire = codec.encode(codec.OBSERVE, {"seat": "N", "card": "SA", "zone": "hand",
...                     "face": "down", "level": "at", "t": 9}, reader=1, seq=4)
>>> d = FastDecoder()
>>> [f.fields for f in d.feed(wire[:5]) + d.feed(wire[5:])]
[{'seat': 'N', 'card': 'SA', 'zone': 'hand', 'face': 'down', 'level': 'at', 't': 9}]
"""

from __future__ import annotations

import struct
from binascii import crc32
from typing import Any

from tablesense.onboard.wire import codec

_OBSERVE = struct.Struct("<BBBBBBI")
_HEARTBEAT = struct.Struct("<IIII")
_OBSERVE_END = codec.HEADER_LEN + _OBSERVE.size
_HEARTBEAT_END = codec.HEADER_LEN + _HEARTBEAT.size
_CARDS = tuple(codec.card_name(i) for i in range(52))
_SEEN = tuple(tuple(s for n, s in enumerate(codec.SEATS) if v & (1 << n)) for v in range(16))
_CONF = tuple(round(v / codec.CONF_SCALE, 4) for v in range(256))
_SEATS, _ZONES, _FACES, _LEVELS = codec.SEATS, codec.ZONES, codec.FACES, codec.LEVELS
_VERSION, _OBS, _BEAT = codec.PROTOCOL_VERSION, codec.OBSERVE, codec.HEARTBEAT
_MIN_ENC, _MAX_ENC = codec.MIN_ENCODED, codec.MAX_ENCODED
_MIN_FRAME, _MAX_FRAME = codec.MIN_FRAME, codec.MAX_FRAME
_INCOMPAT, _SEEN_KNOWN, _NO_CONF = codec.INCOMPAT_MASK, codec.SEEN_KNOWN, codec.CONF_SCALE


def unstuff(chunk: bytes) -> bytes | None:
    """COBS-decode ``chunk`` (the bytes between two 0x00, so none of them 0x00);
    None where :func:`~tablesense.onboard.wire.framing.cobs_decode` raises."""
    n = len(chunk)
    parts = []
    i = 0
    while True:
        code = chunk[i]
        end = i + code
        if end > n:
            return None
        parts.append(chunk[i + 1:end])
        if end >= n:
            return b"".join(parts)
        if code < 0xFF:
            parts.append(b"\x00")
        i = end


class FastDecoder(codec.Decoder):
    """A :class:`~tablesense.onboard.wire.codec.Decoder` (same arguments, same results)."""

    def feed(self, data: bytes) -> list[codec.Frame | codec.RemoteProtocolError]:
        if self.key is not None:  # signed links: the codec checks every MAC
            return super().feed(data)
        deframer = self._frames
        out: list[codec.Frame | codec.RemoteProtocolError] = []
        i = 0
        if deframer.buffered or deframer._count:  # finish the chunk the last read cut
            j = data.find(b"\x00")
            if j < 0:
                return super().feed(data)
            out = super().feed(data[:j + 1])
            i = j + 1
        base = deframer._pos - i  # the stream offset of data[0]
        counters = self.counters
        n = len(data)
        while i < n:
            j = data.find(b"\x00", i)
            if j < 0:
                break
            if j > i:
                frame = self._quick(data[i:j]) if _MIN_ENC <= j - i <= _MAX_ENC else None
                if frame is None:  # the codec's own way, errors and all
                    deframer._pos = base + i
                    out += super().feed(data[i:j + 1])
                else:
                    counters["frames"] += 1
                    out.append(frame)
            i = j + 1
        deframer._pos = base + i
        if i < n:  # a frame still arriving
            out += super().feed(data[i:])
        return out

    @staticmethod
    def _quick(chunk: bytes) -> codec.Frame | None:
        """The frame in ``chunk`` if it is a well-formed unsigned OBSERVE or HEARTBEAT."""
        raw = unstuff(chunk)
        if raw is None or not _MIN_FRAME <= len(raw) <= _MAX_FRAME:
            return None
        body = raw[:-4]
        if crc32(body) != int.from_bytes(raw[-4:], "little"):
            return None
        if body[0] != _VERSION or body[1] & _INCOMPAT:
            return None
        mtype = body[5]
        fields: dict[str, Any]
        if mtype == _OBS and len(body) >= _OBSERVE_END:
            seat, card, zone, fl, seen, conf, t = _OBSERVE.unpack_from(body, 6)
            if seat > 3 or card > 51 or zone > 5 or fl & 3 == 3:
                return None
            fields = {"seat": _SEATS[seat], "card": _CARDS[card], "zone": _ZONES[zone],
                      "face": _FACES[fl & 3], "level": _LEVELS[(fl >> 2) & 3], "t": t}
            if seen & _SEEN_KNOWN:
                if seen & (1 << seat):
                    return None
                fields["seen_by"] = list(_SEEN[seen & 0x0F])
            if conf != _NO_CONF:
                fields["conf"] = _CONF[conf]
        elif mtype == _BEAT and len(body) >= _HEARTBEAT_END:
            up, reads, errors, dropped = _HEARTBEAT.unpack_from(body, 6)
            fields = {"uptime": up, "reads": reads, "errors": errors, "dropped": dropped}
        else:
            return None
        return codec.Frame(mtype, fields, body[2], body[3] | body[4] << 8, body[1], _VERSION)
