"""engine/fusion.py: an RFID tag and a camera sighting of one card make one position."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tablesense.contract.vocab import FACES, LEVELS, SEATS, ZONES
from tablesense.engine.fusion import CardFusion, Reading

OTHERS = ("E", "S", "W")


def rfid(seat: str, zone: str, t: int, face: str = "unknown", level: str = "at") -> Reading:
    return Reading("rfid", seat, zone, face, level, None, 1.0, t)  # type: ignore[arg-type]


def cam(seat: str, zone: str, t: int, face: str = "up", seen_by: tuple[str, ...] = OTHERS,
        conf: float = 0.9, level: str = "at") -> Reading:
    return Reading("camera", seat, zone, face, level, seen_by, conf, t)  # type: ignore[arg-type]


def test_the_tag_alone_says_where_but_not_who_could_see() -> None:
    f = CardFusion()
    p = f.observe("SA", rfid("N", "hand", 0, face="down", level="above"))
    assert p is not None
    assert (p.seat, p.zone, p.face, p.level, p.seen_by, p.sources) == (
        "N", "hand", "down", "above", None, ("rfid",))


def test_the_camera_adds_face_and_who_could_see_where_the_tag_is() -> None:
    f = CardFusion()
    f.observe("SA", rfid("N", "table", 0))
    p = f.observe("SA", cam("N", "table", 30, seen_by=("E", "S", "W"), conf=0.8))
    assert p is not None
    assert (p.face, p.seen_by, p.conf, p.sources) == ("up", ("E", "S", "W"), 0.8,
                                                       ("rfid", "camera"))
    assert f.tick(10_000) == []


def test_the_camera_refines_the_hand_antenna() -> None:
    f = CardFusion()
    f.observe("HK", rfid("E", "hand", 0, face="down", level="above"))
    p = f.observe("HK", cam("E", "floor", 20, face="up", seen_by=(), level="below"))
    assert p is not None and (p.zone, p.level, p.face) == ("floor", "below", "up")
    p = f.observe("HK", cam("E", "detached", 40, face="down", seen_by=()))
    assert p is not None and p.zone == "detached"
    assert f.tick(10_000) == []


def test_a_lasting_disagreement_is_one_conflict_and_never_a_face_meanwhile() -> None:
    f = CardFusion(conflict_ms=500)
    f.observe("SA", rfid("N", "table", 1000))
    p = f.observe("SA", cam("E", "trick", 1100))
    assert p is not None
    # where the tag is, and nothing about the face: no exposure rests on a guess
    assert (p.seat, p.zone, p.face, p.seen_by) == ("N", "table", "unknown", None)
    assert f.tick(1599) == []
    conflicts = f.tick(1600)
    assert [(c.card, c.kind, c.rfid.seat, c.camera.seat, c.since) for c in conflicts] == [
        ("SA", "seat", "N", "E", 1100)]
    assert f.tick(5000) == []  # once
    # the camera agrees again: the position has its face back, and a new disagreement
    # would be a new conflict
    p = f.observe("SA", cam("N", "table", 6000))
    assert p is not None and p.face == "up"
    f.observe("SA", cam("N", "trick", 7000))
    assert [c.kind for c in f.tick(7500)] == ["zone"]


def test_readers_a_scan_apart_are_no_conflict() -> None:
    f = CardFusion(conflict_ms=500)
    f.observe("D2", rfid("S", "hand", 0, face="down"))
    f.observe("D2", cam("S", "hand", 0, face="down", seen_by=()))
    f.observe("D2", cam("S", "trick", 2000))  # the camera sees the play first
    f.observe("D2", rfid("S", "trick", 2060, face="up"))  # the antenna a scan later
    assert f.tick(3000) == []
    p = f.position("D2")
    assert p is not None and (p.zone, p.face, p.seen_by) == ("trick", "up", OTHERS)


def test_a_weak_recognition_never_contradicts_the_tag() -> None:
    f = CardFusion(min_conf=0.6)
    f.observe("C7", rfid("W", "table", 0))
    p = f.observe("C7", cam("N", "trick", 10, conf=0.3))  # a misread elsewhere
    assert p is not None and (p.seat, p.zone, p.face) == ("W", "table", "unknown")
    assert f.tick(10_000) == []
    # where the tag is, a weak face is better than none
    p = f.observe("C7", cam("W", "table", 20, conf=0.4))
    assert p is not None and (p.face, p.conf) == ("up", 0.4)


def test_the_camera_alone_and_gone_from_both() -> None:
    f = CardFusion()
    p = f.observe("HT", cam("S", "table", 0, conf=0.7))
    assert p is not None and (p.seat, p.sources, p.conf) == ("S", ("camera",), 0.7)
    f.observe("HT", rfid("S", "table", 5))
    assert f.observe("HT", Reading("camera", "S", "gone", "unknown", "unknown", None, 1.0,
                                   10)) is not None
    assert f.observe("HT", Reading("rfid", "S", "gone", "unknown", "unknown", None, 1.0,
                                   20)) is None
    assert f.position("HT") is None and "HT" not in f.cards


reading = st.builds(
    Reading, st.sampled_from(("rfid", "camera")), st.sampled_from(SEATS),
    st.sampled_from([z for z in ZONES]), st.sampled_from(FACES), st.sampled_from(LEVELS),
    st.one_of(st.none(), st.lists(st.sampled_from(SEATS), unique=True).map(tuple)),
    st.floats(0, 1), st.integers(0, 10_000))


@given(st.lists(reading, max_size=12))
def test_while_the_readers_disagree_no_face_is_claimed(readings: list[Reading]) -> None:
    f = CardFusion()
    for r in sorted(readings, key=lambda r: r.t):
        p = f.observe("SA", r)
        c = f.cards.get("SA")
        if p is None or c is None or c.rfid is None or c.camera is None:
            continue
        cam_r = c.camera
        if cam_r.conf >= f.min_conf and (cam_r.seat != c.rfid.seat):
            assert p.face == "unknown" and p.seen_by is None and p.seat == c.rfid.seat
