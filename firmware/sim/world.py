"""The simulated table at one seat, driven by a scenario (JSON lines).

Scenario lines (all times ``t`` in ms after the reader boots; lines for other
seats, and journal lines whose ``type`` is not ``observe``, are skipped):

    {"t": 100, "seat": "N", "card": "SA", "zone": "hand", "face": "down", "level": "above"}
    {"t": 900, "seat": "N", "card": "SA", "zone": "trick", "face": "up",
     "seen_by": ["E"], "conf": 0.9}                                  # (one line in the file)
    {"t": 1500, "seat": "N", "fault": "antenna", "zone": "trick"}     # that MFRC522 stops answering
    {"t": 2500, "seat": "N", "fault": "clear", "zone": "trick"}
    {"t": 3500, "seat": "N", "fault": "camera"}                       # camera read fails

The world puts each card's tag (NTAG213 or ICODE SLIX2, as the chips read) on
the antenna its zone lies on (table, trick, and the floor mat for floor),
``height_mm`` above it (default 2: a card on the cloth) overlapping ``stack``
inlays (default 1), both optional fields of a scenario line. A card in the hand
(or detached from it) is on no
antenna: RFID does not sense it. The simulated camera is answered with the
cards' true zone, face, level, seen_by and conf.

With a ``noise`` (sim/noise.py) the truth reaches the sensors through it,
poll by poll: each chip asks ``rfid_poll`` at field on which tags answer
this poll, with what signal, and ``camera_view`` what the camera
recognises. Cross-talk needs the neighbouring seats' cards: ``others`` are
their scenario lines (``load_others``), followed by time.
"""

import json

from pollnoise import NEAR_ZONES, neighbours

from sim.tags import NTAG213

ANTENNA_OF_ZONE = {"floor": "floor", "table": "table", "trick": "trick"}


def load(path, seat):
    events = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] == "#":
                continue
            e = json.loads(line)
            if e.get("type", "observe") != "observe" or e.get("seat", seat) != seat:
                continue
            events.append(e)
    events.sort(key=lambda e: e.get("t", 0))
    return events


def load_others(path, seat):
    """The scenario's card lines of the seats next to ``seat`` (for cross-talk)."""
    out = []
    for s in neighbours(seat):
        out.extend(e for e in load(path, s) if e.get("seat") == s and "card" in e)
    out.sort(key=lambda e: e.get("t", 0))
    return out


class World:
    def __init__(self, seat, events, chips=None, noise=None, others=None, clock=None):
        self.seat = seat
        self.events = events
        self.next = 0
        self.chips = chips or {}  # antenna zone -> SimMFRC522
        self.cards = {}  # card -> event dict (its current truth)
        self.tags = {}  # card -> its tag (NTAG213 or SLIX2, as the antennas' chip reads)
        self.tag_class = NTAG213
        for chip in self.chips.values():
            self.tag_class = getattr(chip, "tag_class", NTAG213)
        self.camera_fault = False
        self.noise = noise if noise is not None and noise.active() else None
        self.others = others or []  # neighbours' card lines, by time
        self._onext = 0
        self.near = {}  # neighbours' cards in their table/trick zones -> event
        self.clock = clock  # ms, the reader's clock (the scenario's time base)
        self.polls = None  # () -> poll number (the reader's scans); else the clock
        self._plan_id = None
        self._plan = {}
        if self.noise is not None:
            for chip in self.chips.values():
                chip.hook = self.rfid_poll

    def due(self):
        """ms of the next event, or None when the scenario is over."""
        return self.events[self.next].get("t", 0) if self.next < len(self.events) else None

    def advance(self, now):
        while self.next < len(self.events) and self.events[self.next].get("t", 0) <= now:
            self.apply(self.events[self.next])
            self.next += 1

    def now(self):
        return self.clock() if self.clock is not None else 0

    def _follow_others(self, now):
        while self._onext < len(self.others) and self.others[self._onext].get("t", 0) <= now:
            e = self.others[self._onext]
            self._onext += 1
            card = e["card"].upper()
            if e.get("zone") in NEAR_ZONES:
                self.near[card] = e
            else:
                self.near.pop(card, None)

    def _tag(self, card, e=None):
        """The card's tag, made the first time the card appears. A scenario line may say
        what was written in it (for ``tablesense deck``): ``"blank": true`` nothing;
        ``"deck": N`` a provisioned tag of deck N (its pages locked); ``"as": "SA"`` the
        card written in it, when not this one (a wrongly enrolled card)."""
        tag = self.tags.get(card)
        if tag is None:
            e = e or {}
            written = None if e.get("blank") else e.get("as", card).upper()
            tag = self.tags[card] = self.tag_class.for_card(card, written, e.get("deck"))
            if e.get("deck") is not None:
                tag.lock_identity()
        return tag

    def rfid_poll(self, chip):
        """[(tag, signal dB)] answering on ``chip`` this poll (its field just went on)."""
        pid = self.polls() if self.polls is not None else self.now()
        if pid != self._plan_id:
            self._plan_id = pid
            self._plan = self._rfid_plan(self.now())
        return self._plan.get(chip.name, [])

    def _rfid_plan(self, now):
        n = self.noise
        self._follow_others(now)
        plan = {}
        for card, e in self.cards.items():
            ev, sig = n.sensed(card, e, now)
            ant = ANTENNA_OF_ZONE.get(ev.get("zone", "")) if ev is not None else None
            if ant is not None:
                plan.setdefault(ant, []).append((self._tag(card), sig))
        for card, e, sig in n.crosstalk(now, self.near):
            if card not in self.cards:
                plan.setdefault(e.get("zone"), []).append((self._tag(card), sig))
        return plan

    def apply(self, e):
        fault = e.get("fault")
        if fault is not None:
            on = fault != "clear"
            zone = e.get("zone")
            if fault == "camera":
                self.camera_fault = True
            elif zone in self.chips:
                self.chips[zone].alive = not on
            if not on and zone is None:
                self.camera_fault = False
            return
        card = e["card"].upper()
        zone = e.get("zone", "gone")
        tag = self._tag(card, e)
        for chip in self.chips.values():
            chip.remove(tag)
        old = self.cards.get(card)
        if self.noise is not None:
            self.noise.moved(card, old, None if zone == "gone" else e, self.now(), self.cards)
        if zone == "gone":
            self.cards.pop(card, None)
            return
        self.cards[card] = e
        chip = self.chips.get(ANTENNA_OF_ZONE.get(zone, ""))
        if chip is not None:
            chip.place(tag, e.get("height_mm", 2), e.get("stack", 1))

    def camera_view(self):
        if self.camera_fault:
            raise OSError(5)
        n = self.noise
        if n is None:
            return [_detection(card, e, e.get("conf")) for card, e in self.cards.items()]
        now = self.now()
        self._follow_others(now)
        return [_detection(c, e, conf) for c, e, conf in n.camera(self.cards, self.near, now)]


def _detection(card, e, conf):
    return (card, e.get("zone"), e.get("face", "unknown"), e.get("level", "unknown"),
            e.get("seen_by"), conf)


class SimCamera:
    def __init__(self, world):
        self.world = world

    def recognise(self):
        return self.world.camera_view()


class WDT:
    """machine.WDT stand-in (the unix port has no watchdog): feeding it does nothing."""

    def __init__(self, timeout=0):
        self.timeout = timeout

    def feed(self):
        pass
