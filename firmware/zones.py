"""Zone scanners: one scan turns the sensors into {card: observation} for the seat.

Every scanner has the same surface, so the reader loop does not care whether
cards are sensed by RFID antennas or by a camera:

- ``begin()`` prepares a scan and returns how many ms to wait before ``scan()``;
- ``scan()`` returns ``{card: (zone, face, level, seen_by, conf)}`` for every
  card it senses now (``seen_by`` None = not known, ``conf`` None = 1);
- ``take_faults()`` returns and clears new ``(code, zone, antenna)`` faults;
- ``held()`` names zones whose sensor is faulty, where nothing is known:
  cards last seen there are neither moved nor reported gone;
- counters ``reads`` (tags/faces sensed) and ``errors``.
"""

from cards import card_order
from level import BELOW, UNKNOWN
from mfrc522 import MFRC522Error

FAULT_CHIP = 3  # rfid-chip-timeout: the MFRC522 does not answer (version register)
FAULT_LEVEL = 6  # level-sensor

# RFID cannot see a card's face. By the conventions of domain.md a card held
# in the hand is face down and a card in the trick zone has been faced; the
# RFID reader reports those, and `unknown` elsewhere (only a camera measures face).
FACE_POLICY = {"hand": "down", "trick": "up"}
LEVEL_OF_ZONE = {"hand": "above", "floor": "below", "table": "at", "trick": "at"}
# A card sensed by two antennas at once is in the zone nearer the middle of the table.
PRIORITY = {"trick": 3, "table": 2, "hand": 1, "floor": 1}
# Cross-talk: the table and trick antennas lie near the neighbouring seats'. A tag newly
# read there is probed once at a lower receiver gain (MFRC522.answers); one that is not
# heard there is weak (over the edge of the field) and is reported to the debouncer with
# conf WEAK_CONF, which counts it only for a card of this seat's own deal (debounce.py).
PROBE_ZONES = ("table", "trick")
PROBE_GAIN = 1  # RxGain 23 dB, 10 dB under the 33 dB the scan runs at
WEAK_CONF = 0.3


class RfidScanner:
    kind = "rfid"
    capabilities = ("level", "floor", "resend")

    def __init__(self, antennas, cards, level=None, settle_ms=5, face_policy=None):
        self.antennas = antennas  # [(zone, MFRC522)], antenna index = position
        self.cards = cards
        self.level = level
        self.settle_ms = settle_ms
        self.face_policy = FACE_POLICY if face_policy is None else face_policy
        self.dead = [False] * len(antennas)
        self.reads = 0
        self.errors = 0
        self._faults = []
        self._level_fault = False
        self._strong = {}  # (antenna, uid) -> heard at PROBE_GAIN, while read every scan

    def init(self):
        for i in range(len(self.antennas)):
            self._try_init(i)

    def _try_init(self, i):
        zone, chip = self.antennas[i]
        try:
            chip.init()
        except MFRC522Error:
            if not self.dead[i]:
                self._faults.append((FAULT_CHIP, zone, i))
                self.errors += 1
            self.dead[i] = True
            return False
        self.dead[i] = False
        return True

    def begin(self):
        """Fields on (all at once, so one settle time covers every antenna)."""
        for i in range(len(self.antennas)):
            if self.dead[i] and not self._try_init(i):
                continue
            try:
                self.antennas[i][1].field(True)
            except MFRC522Error:
                self._mark_dead(i)
        return self.settle_ms

    def _mark_dead(self, i):
        if not self.dead[i]:
            self.dead[i] = True
            self.errors += 1
            self._faults.append((FAULT_CHIP, self.antennas[i][0], i))

    def held(self):
        out = [self.antennas[i][0] for i in range(len(self.antennas)) if self.dead[i]]
        if "hand" in out:
            out.append("floor")
        return out

    def _level(self):
        if self.level is None:
            return "above"
        s = self.level.read()
        if s == UNKNOWN:
            if not self._level_fault:
                self._faults.append((FAULT_LEVEL, "floor", 255))
                self.errors += 1
            self._level_fault = True
            return self.level.state  # last good reading
        self._level_fault = False
        return s

    def scan(self):
        below = self._level() == BELOW
        seen: dict = {}
        strong = {}
        for i in range(len(self.antennas)):
            if self.dead[i]:
                continue
            zone, chip = self.antennas[i]
            before = chip.errors
            try:
                # a version register that stops answering is a dead chip, not an empty antenna
                v = chip.version()
                if v == 0 or v == 0xFF:
                    raise MFRC522Error("no version")
                found = chip.inventory(self.cards.wants_pages)
                if zone in PROBE_ZONES:
                    for uid, _ in found:
                        k = (i, uid)
                        s = self._strong.get(k)
                        strong[k] = chip.answers(uid, PROBE_GAIN) if s is None else s
                chip.field(False)
            except MFRC522Error:
                self._mark_dead(i)
                continue
            self.errors += chip.errors - before
            if zone == "hand" and below:
                zone = "floor"
            for uid, pages in found:
                card = self.cards.card(uid, pages)
                if card is None:
                    self.errors += 1
                    continue
                self.reads += 1
                old = seen.get(card)
                conf = None if strong.get((i, uid), True) else WEAK_CONF
                # a strong read beats a weak one; among equals, the zone nearer the middle
                if old is None or (conf is None, PRIORITY.get(zone, 0)) > (
                        old[4] is None, PRIORITY.get(old[0], 0)):
                    seen[card] = (
                        zone,
                        self.face_policy.get(zone, "unknown"),
                        LEVEL_OF_ZONE.get(zone, "unknown"),
                        None,
                        conf,
                    )
        self._strong = strong
        return seen

    def take_faults(self):
        f = self._faults
        self._faults = []
        return f


def sort_cards(cards):
    return sorted(cards, key=card_order)
