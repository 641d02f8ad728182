"""How well the pipeline reads rendered frames: random table moments, scored against the truth.

:func:`moment` lays out a random moment of a board (hands, quitted tricks face
down, the trick in progress, dummy face up, and now and then a card turned
outwards, pulled out of the hand, dropped face up, or on the floor).
:func:`score` renders every camera under a condition, recognises each frame
with a calibrated :class:`~tablesense.vision.pipeline.Recogniser`, and
matches each sighting (from the face side of its region) with the card that
lies there (its left and top edges within 10 mm):

* ``identity``: of the sightings that name a card, the share naming the card
  that lies there;
* ``face``: of the sightings at a card, the share with the side (face or
  back) that is turned to that camera;
* ``zone``: of the sightings at a card, the share whose position gives that
  card's zone;
* ``false``: sightings where no card lies;
* ``read``: of the card faces turned to a reading camera, the share read
  correctly (what occlusion and glare take away).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from tablesense.contract.vocab import SEATS
from tablesense.vision import geometry as g
from tablesense.vision.deck import RANKS, SUITS
from tablesense.vision.fuse import MIN_CONF, _zone
from tablesense.vision.pipeline import (
    PLATE_HALF,
    Recogniser,
    Sighting,
    calibrate_camera,
    calibrated,
    plate_image,
    reads,
)
from tablesense.vision.render import Conditions, Renderer
from tablesense.vision.scene import Placed, Scene

DECK = [s + r for s in SUITS for r in RANKS]
NEAR_M = 0.010


def moment(rng: random.Random) -> Scene:
    """A random moment of a board, as a scene."""
    deck = DECK[:]
    rng.shuffle(deck)
    hands = {s: deck[i * 13:(i + 1) * 13] for i, s in enumerate(SEATS)}
    sc = Scene()
    for s in SEATS:
        for c in hands[s]:
            sc.move(s, c, "hand", "down")
    tricks = rng.randrange(0, 12)
    dummy = rng.choice(SEATS)
    for s in SEATS:
        for c in hands[s][:tricks]:
            sc.move(s, c, "table", "down")
    in_trick = rng.randrange(0, 4)
    for s in SEATS[:in_trick]:
        sc.move(s, hands[s][tricks], "trick", "up")
    if tricks or in_trick:
        for c in hands[dummy][tricks + 1:]:
            sc.move(dummy, c, "table", "up")
    for s in SEATS:
        if s == dummy:
            continue
        rest = hands[s][tricks + 1:]
        if len(rest) < 3:
            continue
        mishap = rng.random()
        if mishap < 0.2:
            sc.move(s, rest[-1], "hand", "up")  # turned outwards
        elif mishap < 0.35:
            sc.move(s, rest[-1], "detached", "down")
        elif mishap < 0.5:
            sc.move(s, rest[-1], "table", "up")  # dropped face up
        elif mishap < 0.6:
            sc.move(s, rest[-1], "floor", rng.choice(("up", "down")))
    return sc


@dataclass
class Score:
    frames: int = 0
    sightings: int = 0
    named: int = 0
    named_right: int = 0
    at_card: int = 0
    face_right: int = 0
    zone_right: int = 0
    false: int = 0
    legible: int = 0
    read: int = 0
    wrong: list[tuple[str, str]] = field(default_factory=list)  # (read as, truth)

    def add(self, o: Score) -> None:
        for k in ("frames", "sightings", "named", "named_right", "at_card", "face_right",
                  "zone_right", "false", "legible", "read"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.wrong.extend(o.wrong)

    def ratios(self) -> dict[str, float]:
        def r(a: int, b: int) -> float:
            return a / b if b else float("nan")
        return {"identity": r(self.named_right, self.named),
                "face": r(self.face_right, self.at_card),
                "zone": r(self.zone_right, self.at_card), "read": r(self.read, self.legible),
                "false_per_frame": r(self.false, self.frames)}


def calibrated_recognisers(renderer: Renderer) -> dict[str, Recogniser]:
    plate = plate_image()
    out = {}
    for name, cam in renderer.cameras.items():
        check = calibrate_camera(cam, np.asarray(renderer.render_plate(name, plate, PLATE_HALF)))
        out[name] = Recogniser(calibrated(cam, check))
    return out


def _turned_to(cam: g.Camera, p: Placed) -> str:
    r = next(x for x in g.ALL_REGIONS if (x.seat, x.kind) == (p.seat, p.region))
    centre = r.plane.point(p.u + g.CARD_W / 2, p.w - g.CARD_H / 2)
    return "face" if float((cam.C - centre) @ r.plane.normal) * p.facing > 0 else "back"


def _zone_of(p: Placed, scene: Scene) -> str:
    return scene.truth[p.card][1].zone


def score_frame(name: str, cam: g.Camera, sightings: list[Sighting], placed: list[Placed],
                scene: Scene) -> Score:
    sc = Score(frames=1)
    own_regions = {(r.seat, r.kind) for r, own in reads(name) if own}
    here = [p for p in placed if (p.seat, p.region) in own_regions]
    for s in sightings:
        if not s.own:
            continue
        sc.sightings += 1
        at = [p for p in here if p.seat == s.seat and p.region == s.region
              and abs(p.u - s.u) < NEAR_M and abs(p.w - s.w) < NEAR_M]
        if s.card is not None and s.conf >= MIN_CONF:
            sc.named += 1
            if any(p.card == s.card for p in at):
                sc.named_right += 1
            else:
                sc.wrong.append((s.card, at[0].card if at else "-"))
        if not at:
            sc.false += 1
            continue
        p = at[0]
        sc.at_card += 1
        sc.face_right += _turned_to(cam, p) == s.side
        zone = _zone_of(p, scene)
        sc.zone_right += _zone(s) == zone
    # faces turned to this camera whose index is not covered by a card on top of it
    for p in here:
        if _turned_to(cam, p) != "face" or not _index_visible(p, here):
            continue
        sc.legible += 1
        if any(s.own and s.card == p.card and s.conf >= MIN_CONF and s.seat == p.seat
               and abs(s.u - p.u) < NEAR_M for s in sightings):
            sc.read += 1
    return sc


def _index_visible(p: Placed, here: list[Placed]) -> bool:
    x0 = p.u + 0.0015 if p.facing > 0 else p.u + g.CARD_W - 0.0135
    x1 = x0 + 0.012
    for q in here:
        if q is p or q.region != p.region or q.seat != p.seat or q.layer <= p.layer:
            continue
        if q.u < x1 and q.u + g.CARD_W > x0 and q.w > p.w - 0.037 and q.w - g.CARD_H < p.w:
            return False
    return True


def score(conditions: Conditions, frames: int, seed: int = 1,
          renderer: Renderer | None = None,
          recognisers: dict[str, Recogniser] | None = None) -> Score:
    """``frames`` random moments, every camera, under ``conditions``."""
    renderer = renderer or Renderer(g.rig())
    recognisers = recognisers or calibrated_recognisers(renderer)
    rng = random.Random(seed)
    total = Score()
    for i in range(frames):
        scene = moment(rng)
        placed = scene.placed()
        for name, rec in recognisers.items():
            img = np.asarray(renderer.render(name, placed, conditions, frame_no=i))
            s = rec.recognise(img, force=True)
            total.add(score_frame(name, renderer.cameras[name], s, placed, scene))
    return total
