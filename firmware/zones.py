"""The RFID zone scanner: one antenna's field at a time, and only what RFID senses.

Every scanner has the same surface, so the reader loop does not care whether
cards are sensed by RFID antennas or by a camera:

- ``antenna_count``: the steps of one scan; for each step ``i`` the loop
  calls ``begin(i)`` (returns how many ms to wait before reading: the field's
  settle time) and then ``read(i)``; the loop may spread the steps over its
  time slots (slots.py);
- ``scan()`` returns ``{card: (zone, face, level, seen_by, conf)}`` for every
  card sensed since the last ``scan()`` (``seen_by`` None = not known, ``conf``
  None = 1);
- ``take_faults()`` returns and clears new ``(code, zone, antenna)`` faults;
- ``held()`` names zones whose sensor is faulty, where nothing is known:
  cards last seen there are neither moved nor reported gone;
- ``capabilities``: what the reader senses, for its HELLO;
- counters ``reads`` (tags/faces sensed) and ``errors``.

What an RFID antenna senses (hardware/README.md, section 1): which tags lie
within its short reach, nothing else. So the zone is the antenna's, the face
is always ``unknown``, and the level is the one its reach implies: ``at`` for
the loops in the sense mat under the cloth (a tag is powered only within
~30 mm of them), ``below`` for the floor mat. No antenna reads a card held in
the hand. The capabilities list exactly the zones of the antennas fitted.
"""

from cards import card_order, encode_pages
from mfrc522 import MFRC522Error

FAULT_CHIP = 3  # rfid-chip-timeout: the MFRC522 does not answer (version register)
FAULT_CLONE = 9  # rfid-chip-clone: version 0x12, used but reported once

# The level each antenna's reach implies; an antenna zone not listed gives `unknown`.
LEVEL_OF_ZONE = {"table": "at", "trick": "at", "floor": "below"}
ZONE_CAPS = ("hand", "detached", "table", "trick", "floor")
# A card sensed by two antennas at once is in the zone nearer the middle of the table.
PRIORITY = {"trick": 3, "table": 2, "floor": 1, "hand": 1}
# Cross-talk: the table and trick antennas lie near the neighbouring seats'. A tag newly
# read there is probed once at a lower receiver gain (MFRC522.answers); one that is not
# heard there is weak (over the edge of the field) and is reported to the debouncer with
# conf WEAK_CONF, which counts it only for a card of this seat's own deal (debounce.py).
PROBE_ZONES = ("table", "trick")
PROBE_GAIN = 1  # RxGain 23 dB, 10 dB under the 33 dB the scan runs at
WEAK_CONF = 0.3
# Air time (hardware/README.md, section 6): per tag found, the empty final request
TAG_MS = 6
EMPTY_MS = 2


def capabilities_of(zones):
    """HELLO capabilities of a reader with antennas for ``zones``.

    >>> capabilities_of(["trick", "table", "table"])
    ('level', 'resend', 'table', 'trick')
    """
    caps = []
    if any(z in LEVEL_OF_ZONE for z in zones):
        caps.append("level")
    if "floor" in zones:
        caps.append("floor")
    if "detached" in zones:
        caps.append("detached")
    caps.append("resend")
    for z in ("hand", "table", "trick"):
        if z in zones:
            caps.append(z)
    return tuple(caps)


class RfidScanner:
    kind = "rfid"

    def __init__(self, antennas, cards, settle_ms=5):
        self.antennas = antennas  # [(zone, MFRC522)], antenna index = position
        self.antenna_count = len(antennas)
        self.cards = cards
        self.settle_ms = settle_ms
        self.capabilities = capabilities_of([z for z, _ in antennas])
        self.dead = [False] * len(antennas)
        self.found = [0] * len(antennas)  # tags found at the last read (air time estimate)
        self.reads = 0
        self.errors = 0
        self._faults = []
        self._on = -1  # the antenna whose field is on, or -1
        self._seen = {}
        self._strong = {}  # (antenna, uid) -> heard at PROBE_GAIN, while read every scan
        self._strong_now = {}

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
        if chip.clone and not getattr(chip, "_clone_reported", False):
            chip._clone_reported = True
            self._faults.append((FAULT_CLONE, zone, i))
        self.dead[i] = False
        return True

    def estimate_ms(self, i):
        """Air time antenna ``i`` will likely take: its settle time and the tags it had."""
        return self.settle_ms + EMPTY_MS + TAG_MS * self.found[i]

    def begin(self, i=0):
        """Field of antenna ``i`` on (every other one off first); ms to settle, or -1 if dead."""
        self._off()
        if self.dead[i] and not self._try_init(i):
            return -1
        try:
            self.antennas[i][1].field(True)
        except MFRC522Error:
            self._mark_dead(i)
            return -1
        self._on = i
        return self.settle_ms

    def _off(self):
        if self._on >= 0:
            try:
                self.antennas[self._on][1].field(False)
            except MFRC522Error:
                self._mark_dead(self._on)
            self._on = -1

    def _mark_dead(self, i):
        if not self.dead[i]:
            self.dead[i] = True
            self.errors += 1
            self._faults.append((FAULT_CHIP, self.antennas[i][0], i))

    def held(self):
        out = []
        for i in range(len(self.antennas)):
            z = self.antennas[i][0]
            if self.dead[i] and z not in out:
                out.append(z)
        return out

    def read(self, i=0):
        """Inventory of antenna ``i`` (its field on since ``begin(i)``), then its field off."""
        if self._on != i or self.dead[i]:
            return
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
                    self._strong_now[k] = chip.answers(uid, PROBE_GAIN) if s is None else s
            self._off()
        except MFRC522Error:
            self._on = -1
            self._mark_dead(i)
            return
        self.found[i] = len(found)
        self.errors += chip.errors - before
        level = LEVEL_OF_ZONE.get(zone, "unknown")
        seen = self._seen
        for uid, pages in found:
            card = self.cards.card(uid, pages)
            if card is None:
                self.errors += 1
                continue
            self.reads += 1
            old = seen.get(card)
            conf = None if self._strong_now.get((i, uid), True) else WEAK_CONF
            # a strong read beats a weak one; among equals, the zone nearer the middle
            if old is None or (conf is None, PRIORITY.get(zone, 0)) > (
                    old[4] is None, PRIORITY.get(old[0], 0)):
                seen[card] = (zone, "unknown", level, None, conf)

    # -- enrolment (tablesense deck): tags as they are, and writing them ----------------
    def enrol_read(self, i):
        """[(uid, 16 bytes from page 2)] on antenna ``i`` (field on since begin(i)), field off."""
        if self._on != i or self.dead[i]:
            return []
        try:
            found = self.antennas[i][1].inventory(lambda uid: True, 2)
            self._off()
        except MFRC522Error:
            self._on = -1
            self._mark_dead(i)
            return []
        return [(u, p) for u, p in found if p is not None]

    def write_tag(self, i, uid, card, deck):
        """Write ``card`` and ``deck`` into tag ``uid`` on antenna ``i`` and lock those pages.

        The field of ``i`` must be on (begin(i)). True when every WRITE was acknowledged.
        """
        if self._on != i or self.dead[i]:
            return False
        chip = self.antennas[i][1]
        try:
            ok = chip.select_uid(uid) and chip.write_page(4, encode_pages(card)) \
                and chip.write_page(5, bytes((deck & 0xFF, deck >> 8, 0, 0))) \
                and chip.write_page(2, b"\x00\x00\x30\x00")  # lock pages 4 and 5
            chip.halt()
            self._off()
        except MFRC522Error:
            self._on = -1
            self._mark_dead(i)
            return False
        return ok

    def scan(self):
        """What the reads since the last scan() sensed."""
        self._off()
        seen = self._seen
        self._seen = {}
        self._strong = self._strong_now
        self._strong_now = {}
        return seen

    def take_faults(self):
        f = self._faults
        self._faults = []
        return f


def sort_cards(cards):
    return sorted(cards, key=card_order)
