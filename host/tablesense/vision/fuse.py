"""One table's sightings, from all its cameras, as one observation per card.

A card's identity comes from its index, read where a camera sees its face
from the face side of its region (the overhead camera on the table and the
floor; the holder's eye-line camera in his hand). A back carries no
identity: it keeps the one it had where it lay last frame (within 12 mm),
or takes the card of that seat which vanished meanwhile (a card quitted face
down, or turned outwards in a hand, is the card that was face up there).

Then, as the contract's ``observe`` says:

* ``zone`` from where it lies: the hand (``detached`` when pulled up), the
  table top (``trick`` when its top edge is in the inner zone, else
  ``table``), the floor;
* ``face``: ``up`` when others can see it (a face on the table or floor; a
  back in the holder's own view of his hand, i.e. a card turned outwards);
* ``level``: hand ``above``, table ``at``, floor ``below``;
* ``seen_by``: a face on the table or the floor, the seats whose eye line
  reaches it (geometry: above the table top, within 75 degrees of the face,
  not through the table); a card turned outwards in a hand, the seats whose
  camera saw a face at its place; a face turned to its holder or a back, nobody;
* ``conf``: the classifier's confidence in the index that gave the identity.

A face whose index was seen but not named (below the classifier's calibrated
confidence) is tracked as a back is: where a card lay, it is that card, face
up, with the low confidence of the read, so the engine moves it and makes no
ruling on its face. A named face that contradicts the deal (``deal``: the
hand record, or ``dealt``; a card seen at a seat it was not dealt to) is
reported with :data:`CONTRADICTS` confidence: the engine takes it as a sensor
conflict, never as a ruling on that identity.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from tablesense.contract.vocab import SEATS, Face, Level, Seat, Zone
from tablesense.vision import geometry as g
from tablesense.vision.pipeline import Sighting

TRACK_M = 0.012  # a back within this of where a card lay is that card
STRIP_M = 0.010  # a face seen from behind a hand, this close to a card's place, is its face
MIN_CONF = 0.6  # below this an index does not name a card (firmware/camera.py's floor)
CONTRADICTS = 0.3  # the confidence of a card seen where the deal says it cannot be


@dataclass(frozen=True)
class CardObs:
    seat: Seat
    zone: Zone
    face: Face
    level: Level
    seen_by: tuple[str, ...]
    conf: float
    region: str
    u: float
    w: float
    side: str


def _zone(s: Sighting) -> Zone:
    if s.region == "hand":
        return "detached" if s.w > g.CARD_H + g.DETACH_RAISE / 2 else "hand"
    if s.region == "floor":
        return "floor"
    return g.table_zone_at(s.w)


LEVEL: dict[str, Level] = {"hand": "above", "table": "at", "floor": "below"}
_PLANES = {(r.seat, r.kind): r.plane for r in g.ALL_REGIONS}


def _flat_seen_by(s: Sighting) -> tuple[str, ...]:
    return _seen_from(s.seat, s.region, s.u, s.w)


@lru_cache(maxsize=1024)
def _seen_from(seat: Seat, region: str, u: float, w: float) -> tuple[str, ...]:
    """The seats whose eye line reaches the face of a card lying at ``u, w`` (geometry
    alone: the same place gives the same answer, so it is worked out once)."""
    plane = _PLANES[(seat, region)]
    at = plane.point(u + g.CARD_W / 2, w - g.CARD_H / 2)
    return tuple(x for x in SEATS if x != seat and g.visible_from(x, plane, at, 1.0))


class Fuser:
    """Keeps where each card was, so backs keep their identity frame to frame."""

    def __init__(self, min_conf: float = MIN_CONF, deal: dict[str, Seat] | None = None
                 ) -> None:
        self.min_conf = min_conf
        self.cards: dict[str, CardObs] = {}
        self.deal: dict[str, Seat] = dict(deal or {})  # card -> the seat dealt it

    def fuse(self, sightings: list[Sighting]) -> dict[str, CardObs]:
        best: dict[str, Sighting] = {}
        backs: list[Sighting] = []
        behind: list[Sighting] = []  # faces seen from a hand's back side
        for s in sightings:
            if not s.own:
                if s.side == "face":
                    behind.append(s)
                continue
            if s.side == "back" or s.card is None or s.conf < self.min_conf:
                backs.append(s)  # no identity: a back, or an index seen and not named
                continue
            card = s.card
            dealt = self.deal.get(card)
            if dealt is not None and dealt != s.seat:
                s = replace(s, conf=min(s.conf, CONTRADICTS))
            old = best.get(card)
            if old is None or s.conf > old.conf:
                best[card] = s
        placed: dict[str, tuple[Sighting, float]] = {c: (s, s.conf) for c, s in best.items()}
        # backs: where a card lay, or a card of that seat that vanished
        free = []
        for b in backs:
            match = None
            for card, o in self.cards.items():
                if (card not in placed and o.seat == b.seat and o.region == b.region
                        and abs(o.u - b.u) < TRACK_M and abs(o.w - b.w) < TRACK_M):
                    match = card
                    break
            if match is not None:
                placed[match] = (b, _tracked_conf(b, self.cards[match].conf))
            else:
                free.append(b)
        for b in free:
            gone = [(abs(o.u - b.u) + abs(o.w - b.w) + (0 if o.region == b.region else 1), c)
                    for c, o in self.cards.items() if c not in placed and o.seat == b.seat]
            if gone:
                _, card = min(gone)
                placed[card] = (b, _tracked_conf(b, self.cards[card].conf))
        out: dict[str, CardObs] = {}
        for card, (s, conf) in placed.items():
            out[card] = self._observe(s, conf, behind)
        self.cards = out
        return out

    def _observe(self, s: Sighting, conf: float, behind: list[Sighting]) -> CardObs:
        zone = _zone(s)
        if s.region == "hand":
            turned = s.side == "back"  # the holder sees its back: it faces the others
            face: Face = "up" if turned else "down"
            seen: tuple[str, ...] = ()
            if turned:
                seen = tuple(x for x in SEATS if x != s.seat and any(
                    f.camera == x and f.seat == s.seat and f.region == "hand"
                    and abs(f.u - s.u) < STRIP_M for f in behind))
        else:
            face = "up" if s.side == "face" else "down"
            seen = _flat_seen_by(s) if face == "up" else ()
        return CardObs(s.seat, zone, face, LEVEL[s.region], seen, conf, s.region, s.u, s.w,
                       s.side)


def _tracked_conf(s: Sighting, was: float) -> float:
    """The confidence of a card known by where it lay: a back keeps the one it had; a face
    not named is only as sure as its read."""
    return was if s.side == "back" else min(was, s.conf)
