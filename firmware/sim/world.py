"""The simulated table at one seat, driven by a scenario (JSON lines).

Scenario lines (all times ``t`` in ms after the reader boots; lines for other
seats, and journal lines whose ``type`` is not ``observe``, are skipped):

    {"t": 100, "seat": "N", "card": "SA", "zone": "hand", "face": "down", "level": "above"}
    {"t": 900, "seat": "N", "card": "SA", "zone": "trick", "face": "up",
     "seen_by": ["E"], "conf": 0.9}                                  # (one line in the file)
    {"t": 1500, "seat": "N", "fault": "antenna", "zone": "trick"}     # that MFRC522 stops answering
    {"t": 2500, "seat": "N", "fault": "clear", "zone": "trick"}
    {"t": 3000, "seat": "N", "fault": "level"}                        # level sensor railed
    {"t": 3500, "seat": "N", "fault": "camera"}                       # camera read fails

The world puts each card's NTAG213 on the antenna its zone is over (hand,
detached and floor: the hand antenna; table; trick), holds the seat's level
sensor ``below`` while any card of the seat is on the floor, and answers the
simulated camera with the cards' true zone, face, level, seen_by and conf.
"""

import json

from sim.tags import NTAG213, card_uid

ANTENNA_OF_ZONE = {"hand": "hand", "detached": "hand", "floor": "hand", "table": "table",
                   "trick": "trick"}


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


class World:
    def __init__(self, seat, events, chips=None):
        self.seat = seat
        self.events = events
        self.next = 0
        self.chips = chips or {}  # antenna zone -> SimMFRC522
        self.cards = {}  # card -> event dict (its current truth)
        self.tags = {}  # card -> NTAG213
        self.level_fault = False
        self.camera_fault = False

    def due(self):
        """ms of the next event, or None when the scenario is over."""
        return self.events[self.next].get("t", 0) if self.next < len(self.events) else None

    def advance(self, now):
        while self.next < len(self.events) and self.events[self.next].get("t", 0) <= now:
            self.apply(self.events[self.next])
            self.next += 1

    def apply(self, e):
        fault = e.get("fault")
        if fault is not None:
            on = fault != "clear"
            zone = e.get("zone")
            if fault == "level":
                self.level_fault = True
            elif fault == "camera":
                self.camera_fault = True
            elif zone in self.chips:
                self.chips[zone].alive = not on
            if not on and zone is None:
                self.level_fault = self.camera_fault = False
            return
        card = e["card"].upper()
        zone = e.get("zone", "gone")
        tag = self.tags.get(card)
        if tag is None:
            tag = self.tags[card] = NTAG213(card_uid(card), card)
        for chip in self.chips.values():
            chip.remove(tag)
        if zone == "gone":
            self.cards.pop(card, None)
            return
        self.cards[card] = e
        chip = self.chips.get(ANTENNA_OF_ZONE.get(zone, ""))
        if chip is not None:
            chip.place(tag)

    def below(self):
        return any(e.get("zone") == "floor" for e in self.cards.values())

    def camera_view(self):
        if self.camera_fault:
            raise OSError(5)
        out = []
        for card, e in self.cards.items():
            out.append((card, e.get("zone"), e.get("face", "unknown"), e.get("level", "unknown"),
                        e.get("seen_by"), e.get("conf")))
        return out


class SimADC:
    """The seat's IR distance sensor as its ADC sees it (read_u16)."""

    def __init__(self, world):
        self.world = world

    def read_u16(self):
        if self.world.level_fault:
            return 65535
        return 40000 if self.world.below() else 12000


class SimCamera:
    def __init__(self, world):
        self.world = world

    def recognise(self):
        return self.world.camera_view()


class WDT:
    """machine.WDT stand-in: counts feeds (the unix port has no watchdog)."""

    def __init__(self, timeout=0):
        self.timeout = timeout
        self.fed = 0

    def feed(self):
        self.fed += 1
