"""The optional signature block (protocol.md section 2a, as MAVLink 2 signs).

Between the payload and the CRC of a signed frame: ``stamp`` (u48 LE,
strictly increasing per sender and key) and ``mac`` (8 bytes), where
``mac = HMAC-SHA256(key, direction | header | payload | stamp)[:8]`` and
``direction`` is ``b"R"`` for a frame a reader sends and ``b"H"`` for one the
host sends (so a frame cannot be reflected back to its sender).

>>> hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog").hex()[:16]
'f7bc83f430538424'
"""

import hashlib
import struct

from .errors import LocalProtocolError

STAMP_LEN = 6
MAC_LEN = 8
SIG_LEN = STAMP_LEN + MAC_LEN
MAX_STAMP = 0xFFFFFFFFFFFF
SENDERS = ("reader", "host")
_DIRECTION = {"reader": b"R", "host": b"H"}


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


def check_sender(sender: str) -> None:
    if sender not in _DIRECTION:
        raise LocalProtocolError(f"sender={sender!r}: expected reader or host")


def sign(body: bytes, key: "SigningKey | bytes", stamp: int, sender: str) -> bytes:
    """``body`` (header and payload) followed by its signature block."""
    k = as_key(key)
    assert k is not None
    body += struct.pack("<IH", stamp & 0xFFFFFFFF, stamp >> 32)
    return body + k.mac(sender, body)


def verify(key: SigningKey, sender: str, body: bytes) -> "int | None":
    """The stamp of ``body`` (header, payload, signature block) if its MAC is right.

    None when the MAC does not match.
    """
    end = len(body) - SIG_LEN
    if not same_bytes(key.mac(sender, body[: end + STAMP_LEN]), body[end + STAMP_LEN :]):
        return None
    lo, hi = struct.unpack("<IH", body[end : end + STAMP_LEN])
    return int(lo | (hi << 32))


def same_bytes(a: bytes, b: bytes) -> bool:
    """Compare without stopping at the first difference (no timing hint)."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0
