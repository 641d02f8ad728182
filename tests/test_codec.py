"""The codec against the golden vectors (hardware/protocol/vectors.json), under CPython."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablesense.onboard.wire import codec as c

ROOT = Path(__file__).resolve().parent.parent
VECTORS = json.loads((ROOT / "hardware" / "protocol" / "vectors.json").read_text())


def as_expect(items: list[c.Frame | c.RemoteProtocolError]) -> list[dict[str, Any]]:
    return [
        {"frame": i.to_dict()} if isinstance(i, c.Frame) else {"error": i.kind, "offset": i.offset}
        for i in items
    ]


def test_vectors_header() -> None:
    assert VECTORS["protocol_version"] == c.PROTOCOL_VERSION == 1
    assert VECTORS["max_frame"] == c.MAX_FRAME
    assert {v["mtype"] for v in VECTORS["good"]} == set(c.TYPE_NAMES)


def test_vectors_file_is_up_to_date() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_vectors.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("v", VECTORS["good"], ids=lambda v: v["name"])
def test_good_vector_encodes_exactly(v: dict[str, Any]) -> None:
    f = v["frame"]
    data = c.encode(v["mtype"], f["fields"], f["reader"], f["seq"], f["flags"])
    assert data.hex() == v["hex"]
    assert data.endswith(b"\x00") and b"\x00" not in data[:-1]
    assert len(data) <= c.MAX_ENCODED + 1


@pytest.mark.parametrize("v", VECTORS["good"], ids=lambda v: v["name"])
def test_good_vector_decodes_exactly(v: dict[str, Any]) -> None:
    dec = c.Decoder()
    items = dec.feed(bytes.fromhex(v["hex"]))
    assert as_expect(items) == [{"frame": v["frame"]}]
    frame = items[0]
    assert isinstance(frame, c.Frame)
    assert frame.name == v["frame"]["type"] == c.TYPE_NAMES[v["mtype"]]
    assert frame.encode().hex() == v["hex"]
    assert json.loads(json.dumps(frame.to_dict())) == v["frame"]
    assert dec.counters == dict.fromkeys(c.COUNTER_NAMES, 0) | {"frames": 1}


@pytest.mark.parametrize("v", VECTORS["bad"], ids=lambda v: v["name"])
@pytest.mark.parametrize("chunk", [0, 1, 7])
def test_bad_vector(v: dict[str, Any], chunk: int) -> None:
    data = bytes.fromhex(v["hex"])
    dec = c.Decoder()
    items: list[c.Frame | c.RemoteProtocolError] = []
    if chunk == 0:
        items += dec.feed(data)
    else:
        for i in range(0, len(data), chunk):
            items += dec.feed(data[i : i + chunk])
            assert dec.buffered <= 2 * c.MAX_ENCODED
    items += dec.feed_eof()
    assert as_expect(items) == v["expect"]
    assert dec.counters == v["counters"]
    for i in items:
        if isinstance(i, c.RemoteProtocolError):
            assert i.kind in c.COUNTER_NAMES and dec.counters[i.kind] > 0
            assert isinstance(i, c.ProtocolError) and i.message


def test_bad_vectors_cover_every_error_kind() -> None:
    kinds = {e["error"] for v in VECTORS["bad"] for e in v["expect"] if "error" in e}
    assert kinds == set(c.COUNTER_NAMES) - {"frames", "resyncs"}


@pytest.mark.parametrize("v", VECTORS["encode_errors"], ids=lambda v: v["name"])
def test_encode_refuses(v: dict[str, Any]) -> None:
    with pytest.raises(c.LocalProtocolError):
        c.encode(v["mtype"], v["fields"], v["reader"], v["seq"], v["flags"])


def test_all_good_vectors_as_one_stream() -> None:
    data = b"".join(bytes.fromhex(v["hex"]) for v in VECTORS["good"])
    items = c.Decoder().feed(data)
    assert as_expect(items) == [{"frame": v["frame"]} for v in VECTORS["good"]]


def test_encode_canonicalises_input_forms() -> None:
    fields = {"seat": "S", "card": "d10", "zone": "table", "t": 5}
    (frame,) = c.Decoder().feed(c.encode(c.OBSERVE, fields, 1, 0))
    assert isinstance(frame, c.Frame)
    # face/level default to unknown; seen_by and conf stay absent (unknown, 1).
    assert frame.fields == {
        "seat": "S",
        "card": "DT",
        "zone": "table",
        "face": "unknown",
        "level": "unknown",
        "t": 5,
    }


def test_conf_quantised_to_255ths() -> None:
    def conf_of(conf: float) -> object:
        fields = {"seat": "S", "card": "SA", "zone": "table", "conf": conf, "t": 5}
        (frame,) = c.Decoder().feed(c.encode(c.OBSERVE, fields, 1, 0))
        assert isinstance(frame, c.Frame)
        return frame.fields.get("conf", "absent")

    assert conf_of(1.0) == "absent"
    assert conf_of(0.999) == "absent"  # rounds to 255/255
    assert conf_of(0.5) == round(128 / 255, 4)
    assert conf_of(0) == 0.0


def test_seq_helpers_wrap() -> None:
    assert c.seq_next(65535) == 0
    assert c.seq_delta(2, 65534) == 4
    assert c.seq_delta(65534, 2) == -4


def test_cobs_known_answers() -> None:
    assert c.cobs_encode(b"") == b"\x01"
    assert c.cobs_encode(b"\x00") == b"\x01\x01"
    assert c.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    long = bytes(range(1, 256))
    assert c.cobs_encode(long)[0] == 0xFF
    for data in (b"", b"\x00", b"\x00\x00", long, long + b"\x00" + long):
        assert c.cobs_decode(c.cobs_encode(data)) == data
    with pytest.raises(ValueError):
        c.cobs_decode(b"\x05\x01")


def test_protocol_md_worked_example_is_what_the_codec_sends() -> None:
    text = (ROOT / "hardware" / "protocol.md").read_text()
    (wire,) = [ln for ln in text.splitlines() if ln.startswith("wire:    02")]
    fields = {
        "seat": "E",
        "card": "HQ",
        "zone": "trick",
        "face": "up",
        "level": "at",
        "seen_by": [],
        "t": 83456,
    }
    data = c.encode(c.OBSERVE, fields, reader=2, seq=300)
    assert bytes.fromhex(wire.removeprefix("wire:")) == data
    assert c.crc32(b"123456789") == 0xCBF43926
