"""The reader <-> host wire protocol: the modules the reader board runs too.

Every module here is shared verbatim by the host (CPython 3.11) and the
reader firmware (MicroPython 1.2x), so each keeps to the subset both run: no
dataclasses, no runtime ``typing`` import, no ``__future__``, only ``struct``,
``binascii`` and ``hashlib`` from the standard library, relative imports
between these modules. Annotations that name typing-only things are strings.
``tablesense.firmware.build`` copies them, with the rest of ``onboard/``, for the
board (``build``), the VM and the tests (``place_shared``).

- ``errors``: whose fault a problem is (ours, or the peer's).
- ``framing``: the header, CRC-32, COBS and splitting a byte stream into frames.
- ``signing``: the optional HMAC-SHA256 signature block.
- ``messages``: the message types and the one table of their fields.
- ``codec``: the composition: ``encode`` a message, ``Decoder`` of a stream.

The format is specified in ``hardware/protocol.md``; the golden vectors in
``hardware/protocol/vectors.json`` pin it down byte for byte.
"""
