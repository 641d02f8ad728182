"""The wire codec's errors, split by whose fault they are (as h11 does)."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ProtocolError(Exception):
    """Base of the codec's errors."""


class LocalProtocolError(ProtocolError):
    """We misused the codec: unknown type, bad field value, oversize frame."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something we drop. Returned by ``Decoder.feed``, not raised.

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
