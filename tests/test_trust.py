"""The host believes an observation only as far as its reader's HELLO capabilities go."""

from __future__ import annotations

import doctest

from tablesense.daemon import trust
from tablesense.daemon.trust import trusted

RFID = ["level", "floor", "resend", "table", "trick"]  # firmware 0.3.0's HELLO
CAMERA = ["face", "level", "seen_by", "conf", "floor", "detached", "resend", "hand", "table",
          "trick"]


def test_doctests() -> None:
    assert doctest.testmod(trust).failed == 0


def test_an_rfid_reader_cannot_tell_a_face_nor_a_hand() -> None:
    fields, why = trusted({"seat": "N", "card": "SA", "zone": "trick", "face": "up",
                           "level": "at", "seen_by": ["E"], "conf": 0.7, "t": 5}, RFID)
    assert fields == {"seat": "N", "card": "SA", "zone": "trick", "face": "unknown",
                      "level": "at", "t": 5}
    assert why == ["unclaimed-face", "unclaimed-seen_by", "unclaimed-conf"]
    assert trusted({"zone": "hand", "face": "down", "level": "above"}, RFID) == (
        None, ["unclaimed-zone"])
    assert trusted({"zone": "detached", "face": "unknown", "level": "unknown"}, RFID)[0] is None
    # leaving is always believed: gone is no claim about where the card is
    assert trusted({"zone": "gone", "face": "unknown", "level": "unknown"}, RFID) == (
        {"zone": "gone", "face": "unknown", "level": "unknown"}, [])


def test_a_camera_is_believed_for_all_it_claims_and_old_readers_as_before() -> None:
    obs = {"zone": "hand", "face": "up", "level": "above", "seen_by": ["W"], "conf": 0.8}
    assert trusted(obs, CAMERA) == (obs, [])
    # no zone bits: a reader before firmware 0.3.0 (or the demo's Python readers)
    old = ["level", "floor", "resend"]
    assert trusted(obs, old) == (obs, [])
    assert trusted(obs, []) == (obs, [])
