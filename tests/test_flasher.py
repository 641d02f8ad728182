"""The host side of a firmware update against a scripted reader: what it sends, and which
answer it takes (no VM: tests/test_firmware_update.py runs the real firmware)."""

from __future__ import annotations

from typing import Any

import pytest

from tablesense.firmware.bundle import Bundle, BundleFile
from tablesense.firmware.flasher import Flasher, Link, UpdateError
from tablesense.onboard.wire import codec


class ScriptedPort:
    """A port whose reader answers each host frame with the frames ``answer`` gives."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.inbox = bytearray()
        self.sent: list[codec.Frame] = []
        self.seq = 0

    @property
    def in_waiting(self) -> int:
        return len(self.inbox)

    def read(self, n: int) -> bytes:
        out = bytes(self.inbox[:n])
        del self.inbox[:n]
        return out

    def write(self, data: bytes) -> int:
        for f in codec.Decoder(sender="host").feed(data):
            assert isinstance(f, codec.Frame)
            self.sent.append(f)
            for mtype, fields in self.answer(f):
                self.inbox += codec.encode(mtype, fields, 1, self.seq)
                self.seq += 1
        return len(data)


BUNDLE = Bundle("1.0.1", (BundleFile("reader.py", b'FIRMWARE = "1.0.1"\n'),))


def status(k: int, have: int, state: str) -> tuple[int, dict[str, Any]]:
    return codec.STATUS, {"file": k, "have": have, "state": state}


def test_a_late_status_of_the_manifest_is_not_taken_for_the_install_s_answer() -> None:
    def reader(f: codec.Frame) -> list[tuple[int, dict[str, Any]]]:
        if f.mtype == codec.MAINT:
            return [(codec.HELLO, {"kind": "rfid", "firmware": "1.0.0", "serial": "S",
                                   "capabilities": []})]
        if f.mtype == codec.FILE:
            return [status(f.fields["file"], f.fields["size"], "verified")]
        if f.mtype == codec.INSTALL:  # a duplicate of the manifest's answer, then its own
            return [status(0, 40, "verified"), status(0, 1, "bad-signature")]
        return []

    port = ScriptedPort(reader)
    with pytest.raises(UpdateError, match=r"install refused \(bad-signature"):
        Flasher(Link(port, 1, None), BUNDLE, lambda m: None, timeout=0.2).run()  # type: ignore[arg-type]
    assert [f.name for f in port.sent] == ["MAINT", "FILE", "FILE", "INSTALL"]


def test_a_chunk_window_and_a_reader_that_asks_from_where_it_is() -> None:
    data = bytes(range(200))
    bundle = Bundle("1.0.1", (BundleFile("reader.py", data),))
    got = bytearray()

    def reader(f: codec.Frame) -> list[tuple[int, dict[str, Any]]]:
        if f.mtype == codec.MAINT:
            return [(codec.HELLO, {"kind": "rfid", "firmware": "1.0.0", "serial": "S",
                                   "capabilities": []})]
        if f.mtype == codec.FILE:
            if f.fields["file"] == 0:
                return [status(0, f.fields["size"], "verified")]
            return [status(1, len(got), "receiving")]
        if f.mtype == codec.CHUNK:
            if f.fields["offset"] != len(got):
                return [status(1, len(got), "receiving")]
            got.extend(bytes.fromhex(f.fields["data"]))
            return [status(1, len(got), "verified" if len(got) == 200 else "receiving")]
        if f.mtype == codec.INSTALL:
            return [status(0, 1, "write-failed")]
        return []

    port = ScriptedPort(reader)
    with pytest.raises(UpdateError, match="write-failed"):
        Flasher(Link(port, 1, None), bundle, lambda m: None, timeout=0.2).run()  # type: ignore[arg-type]
    assert bytes(got) == data
    chunks = [f for f in port.sent if f.mtype == codec.CHUNK]
    assert [c.fields["offset"] for c in chunks] == list(range(0, 200, codec.MAX_CHUNK))
