"""RFID positions and camera sightings of one card, combined into one position.

The two kinds of reader know different things about a card:

* an RFID reader knows *which* card it is for certain (its tag) and *where*
  (the antenna: the hand, the table, the trick zone; the level sensor says
  below the table), but not its face: it reports ``down`` in the hand and
  ``up`` in the trick zone by convention, ``unknown`` elsewhere;
* a camera *measures* the face and who could see it (``seen_by``), and where,
  but its identity is a recognition with a confidence (``conf``).

:class:`CardFusion` keeps both readers' latest reading of each card and
gives one :class:`Position`: identity and place from the RFID reading, face,
``seen_by`` and ``conf`` from the camera when the camera puts the card in the
same place (the camera refines a place: ``detached`` and ``floor`` are on the
RFID hand antenna). When they disagree about where the card is (another seat,
or a zone the other cannot mean) for longer than ``conflict_ms`` (readers
report the same move a scan or two apart), that is a :class:`Conflict`: the
engine raises a ``sensor-conflict`` (never a penalty), and meanwhile the
position says ``face: unknown`` and ``seen_by: None``, so no exposure ruling
rests on a guess. A camera reading below ``min_conf`` never contradicts the
tag; it only fills the face when nothing better is known.

Pure: readings in, positions and conflicts out; time is the readings' ``t``.

>>> f = CardFusion()
>>> p = f.observe("SA", Reading("rfid", "N", "table", "unknown", "at", None, 1.0, 1000))
>>> p.seat, p.zone, p.face, p.seen_by, p.sources
('N', 'table', 'unknown', None, ('rfid',))
>>> f.observe("SA", Reading("camera", "N", "table", "up", "at", ("E", "S", "W"), 0.9, 1040)).face
'up'
>>> f.observe("SA", Reading("camera", "E", "trick", "up", "at", ("N", "S", "W"), 0.9, 1100)).face
'unknown'
>>> [c.kind for c in f.tick(1700)]
['seat']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tablesense.contract.vocab import Face, Level, Zone

Source = Literal["rfid", "camera"]
CONFLICT_MS = 500
MIN_CONF = 0.6
# what an RFID antenna's zone may be, seen by a camera (hand antenna: hand, detached, floor)
COMPATIBLE: dict[str, frozenset[str]] = {
    "hand": frozenset({"hand", "detached", "floor"}),
    "detached": frozenset({"hand", "detached", "floor"}),
    "floor": frozenset({"hand", "detached", "floor"}),
    "table": frozenset({"table"}),
    "trick": frozenset({"trick"}),
}


@dataclass(frozen=True)
class Reading:
    """One reader's latest observation of a card (an ``observe`` event's fields)."""

    source: Source
    seat: str
    zone: Zone
    face: Face
    level: Level
    seen_by: tuple[str, ...] | None
    conf: float
    t: int


@dataclass(frozen=True)
class Position:
    """Where a card is, as both readers together say."""

    card: str
    seat: str
    zone: Zone
    face: Face
    level: Level
    seen_by: tuple[str, ...] | None
    conf: float
    sources: tuple[Source, ...]
    t: int


@dataclass(frozen=True)
class Conflict:
    """The readers disagreed about a card for ``conflict_ms``: a ``sensor-conflict``."""

    card: str
    kind: Literal["seat", "zone"]
    rfid: Reading
    camera: Reading
    since: int


@dataclass
class _Card:
    rfid: Reading | None = None
    camera: Reading | None = None
    since: int | None = None  # when the readers began to disagree
    reported: bool = False


@dataclass
class CardFusion:
    """Both readers' latest readings of every card, and their one position."""

    conflict_ms: int = CONFLICT_MS
    min_conf: float = MIN_CONF
    cards: dict[str, _Card] = field(default_factory=dict)
    # card -> since when its readers disagree, not yet reported (what ``tick`` looks at)
    open: dict[str, int] = field(default_factory=dict)

    def observe(self, card: str, r: Reading) -> Position | None:
        """A reading of ``card``; its position now (None: no reader senses it).

        A ``gone`` forgets the reading of that kind of reader only when it was the
        same seat's: another seat's reader of that kind still senses the card (the
        engine's sensing filter rules on two seats' readers of one kind)."""
        c = self.cards.setdefault(card, _Card())
        if r.zone != "gone":
            if r.source == "rfid":
                c.rfid = r
            else:
                c.camera = r
        elif r.source == "rfid":
            if c.rfid is not None and c.rfid.seat == r.seat:
                c.rfid = None
        elif c.camera is not None and c.camera.seat == r.seat:
            c.camera = None
        kind = self._disagreement(c)
        if kind is None:
            c.since, c.reported = None, False
            self.open.pop(card, None)
        elif c.since is None:
            c.since = r.t
            self.open[card] = r.t
        if c.rfid is None and c.camera is None:
            del self.cards[card]
            return None
        return self.position(card)

    def oldest(self) -> tuple[int, str] | None:
        """The disagreement not yet reported that began first: (since, card)."""
        if not self.open:
            return None
        card = min(self.open, key=self.open.__getitem__)
        return self.open[card], card

    def conflict(self, card: str) -> Conflict | None:
        """``card``'s disagreement as a conflict, now (reported once; None: none open)."""
        self.open.pop(card, None)
        c = self.cards.get(card)
        if c is None or c.since is None or c.reported:
            return None
        kind = self._disagreement(c)
        if kind is None or c.rfid is None or c.camera is None:
            return None
        c.reported = True
        return Conflict(card, kind, c.rfid, c.camera, c.since)

    def position(self, card: str) -> Position | None:
        c = self.cards.get(card)
        if c is None:
            return None
        cam = c.camera if c.camera is not None and c.camera.conf >= self.min_conf else None
        if c.rfid is None:
            r = c.camera
            assert r is not None
            return Position(card, r.seat, r.zone, r.face, r.level, r.seen_by, r.conf,
                            ("camera",), r.t)
        rf = c.rfid
        if self._disagreement(c) is not None:
            # the readers disagree: where the tag is, and nothing about its face
            return Position(card, rf.seat, rf.zone, "unknown", rf.level, None, rf.conf,
                            ("rfid",), max(rf.t, c.camera.t if c.camera else rf.t))
        if cam is None:
            weak = c.camera
            if weak is not None and weak.seat == rf.seat and weak.zone in COMPATIBLE[rf.zone] \
                    and rf.face == "unknown":
                # a weak recognition where the tag is: its face is better than nothing
                return Position(card, rf.seat, rf.zone, weak.face, rf.level, weak.seen_by,
                                weak.conf, ("rfid", "camera"), max(rf.t, weak.t))
            return Position(card, rf.seat, rf.zone, rf.face, rf.level, None, rf.conf,
                            ("rfid",), rf.t)
        level = cam.level if cam.level != "unknown" else rf.level
        return Position(card, rf.seat, cam.zone, cam.face, level, cam.seen_by, cam.conf,
                        ("rfid", "camera"), max(rf.t, cam.t))

    def tick(self, now: int) -> list[Conflict]:
        """Disagreements that have lasted ``conflict_ms`` by ``now`` (each once)."""
        out = []
        for card, since in sorted(self.open.items(), key=lambda x: x[1]):
            if now - since >= self.conflict_ms:
                found = self.conflict(card)
                if found is not None:
                    out.append(found)
        return out

    def _disagreement(self, c: _Card) -> Literal["seat", "zone"] | None:
        rf, cam = c.rfid, c.camera
        if rf is None or cam is None or cam.conf < self.min_conf:
            return None
        if rf.seat != cam.seat:
            return "seat"
        if cam.zone not in COMPATIBLE.get(rf.zone, frozenset({rf.zone})):
            return "zone"
        return None


__all__ = ["CONFLICT_MS", "CardFusion", "Conflict", "Position", "Reading"]
