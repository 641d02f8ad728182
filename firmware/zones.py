"""The RFID zone scanner: one antenna's field at a time, and only what RFID senses.

Every scanner has the same surface, so the reader loop does not care whether
cards are sensed by RFID antennas or by a camera:

- ``antenna_count``: the steps of one scan; for each step ``i`` the loop
  calls ``begin(i)`` (returns how many ms to wait before reading: the field's
  settle time) and then ``read(i)``; the loop may spread the steps over its
  time slots (slots.py);
- ``scan()`` returns ``{card: (zone, face, level, seen_by, conf)}`` for every
  card sensed (``seen_by`` None = not known, ``conf`` None = 1): for the RFID
  scanner, each antenna's latest reading, so an antenna the loop could not
  read this time (its slot was spent) keeps its last one;
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

from mfrc522 import MFRC522Error
from pn5180 import PN5180Error

CHIP_ERRORS = (MFRC522Error, PN5180Error)
FAULT_CHIP = 3  # rfid-chip-timeout: the chip does not answer (version, BUSY, IRQ, field)
FAULT_CLONE = 9  # rfid-chip-clone: version 0x12, used but reported once

# The level each antenna's reach implies; an antenna zone not listed gives `unknown`.
LEVEL_OF_ZONE = {"table": "at", "trick": "at", "floor": "below"}
# A card sensed by two antennas at once is in the zone nearer the middle of the table.
PRIORITY = {"trick": 3, "table": 2, "floor": 1, "hand": 1}
# Cross-talk: the table and trick antennas lie near the neighbouring seats'. A tag newly
# read there is probed once at a lower receiver gain (MFRC522.answers); one that is not
# heard there is weak (over the edge of the field) and is reported to the debouncer with
# conf WEAK_CONF, which counts it only for a card of this seat's own deal (debounce.py).
PROBE_ZONES = ("table", "trick")
PROBE_GAIN = 1  # RxGain 23 dB, 10 dB under the 33 dB the scan runs at
WEAK_CONF = 0.3
# Air time (hardware/README.md, section 6; BENCHMARKS.md, simulated): per tag found
# (with its collision steps), the empty final request; a chip may say its own
# (``tag_ms``, ``empty_ms``: the PN5180 port's ISO 15693 figures)
TAG_MS = 8
EMPTY_MS = 2
MAX_TAGS = 20  # tags an inventory reads at most


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
        self.antennas = antennas  # [(zone, MFRC522 or PN5180Port)], antenna index = position
        self.antenna_count = len(antennas)
        self.cards = cards
        self.settle_ms = settle_ms
        self.capabilities = capabilities_of([z for z, _ in antennas])
        self.dead = [False] * len(antennas)
        self.found = [0] * len(antennas)  # tags found at the last read (air time estimate)
        self.reads = 0
        self.errors = 0
        self.overruns = 0  # inventories cut short (their time was over): resumed later
        self._faults = []
        self._on = -1  # the antenna whose field is on, or -1
        n = len(antennas)
        self._reads: list = [None] * n  # per antenna: [(card, obs)], its latest reading
        self._done: list = [None] * n  # per antenna: {card: obs} of its last complete walk
        self._walk: list = [None] * n  # per antenna: {card: obs} of the walk in progress
        self._same = [0] * n  # complete walks in a row that found the same cards
        self.age = [0] * n  # scans since each antenna was last read
        self.trick = -1  # the trick antenna's index (read every scan: schedule.py)
        for i in range(n):
            if antennas[i][0] == "trick" and self.trick < 0:
                self.trick = i
        self._strong = {}  # (antenna, uid) -> heard at PROBE_GAIN, while read every time

    def init(self):
        for i in range(len(self.antennas)):
            self._try_init(i)

    def _try_init(self, i):
        zone, chip = self.antennas[i]
        try:
            chip.init()
        except CHIP_ERRORS:
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

    def first_ms(self, i):
        """The shortest read of antenna ``i`` worth a field-on: its settle time, and its
        one-slot check with the tag it had (or, for a long inventory, its first tag)."""
        chip = self.antennas[i][1]
        return self.settle_ms + getattr(chip, "empty_ms", EMPTY_MS) + \
            (getattr(chip, "tag_ms", TAG_MS) if self.found[i] else 0)

    def whole_ms(self, i):
        """The time antenna ``i``'s read may take once begun: a chip that cannot go on with
        a walk at its next field-on (the MFRC522: its tags forget HLTA when the field
        goes) is given a whole inventory of as many tags as a read takes (a cut read
        would only lose what it did not reach); a resumable one its first step."""
        chip = self.antennas[i][1]
        if getattr(chip, "resumable", False):
            return self.first_ms(i)
        return self.settle_ms + getattr(chip, "empty_ms", EMPTY_MS) + \
            getattr(chip, "tag_ms", TAG_MS) * MAX_TAGS

    def is_cheap(self, i):
        """Antenna ``i`` had no tag or one at its last complete walk, and none is under way:
        its read is a one-slot check."""
        return self.found[i] <= 1 and self._walk[i] is None

    def walking(self, i):
        """An inventory walk of antenna ``i`` is under way (cut short, to go on)."""
        return self._walk[i] is not None

    def resting(self, i):
        """Antenna ``i``'s last complete walks found the same two tags or more (a spread
        dummy, a quitted row), and no walk is under way: it may be read less often."""
        return self._same[i] >= 2 and self.found[i] >= 2 and self._walk[i] is None

    def begin(self, i=0):
        """Field of antenna ``i`` on (every other one off first); ms to settle, or -1 if dead."""
        self._off()
        if self.dead[i] and not self._try_init(i):
            return -1
        try:
            self.antennas[i][1].field(True)
        except CHIP_ERRORS:
            self._mark_dead(i)
            return -1
        self._on = i
        return self.settle_ms

    def _off(self):
        if self._on >= 0:
            try:
                self.antennas[self._on][1].field(False)
            except CHIP_ERRORS:
                self._mark_dead(self._on)
            self._on = -1

    def _mark_dead(self, i):
        self._reads[i] = None
        self._done[i] = self._walk[i] = None
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

    def read(self, i=0, stop=None):
        """Inventory of antenna ``i`` (its field on since ``begin(i)``), then its field off.

        ``stop()`` True cuts the inventory short before its next exchange (the time given
        to this antenna is over): counted in ``overruns``. A walk cut short goes on at
        the antenna's next read; until it ends, the antenna's reading is its last complete
        one with what this walk has found so far (a tag not yet reached is not gone)."""
        if self._on != i or self.dead[i]:
            return
        zone, chip = self.antennas[i]
        before = chip.errors
        try:
            # a version register that stops answering is a dead chip, not an empty antenna
            v = chip.version()
            if v == 0 or v == 0xFF:
                raise MFRC522Error("no version")  # caught below with the others
            found = chip.inventory(self.cards.wants_pages, max_tags=MAX_TAGS, stop=stop)
            complete = getattr(chip, "complete", True)
            if not complete:
                self.overruns += 1
                # a chip that cannot go on at its next field-on (the MFRC522: HLTA is
                # forgotten with the field) starts afresh each time: what it read is its
                # reading, the other branch of its tree taken first next time
                complete = not getattr(chip, "resumable", False) or complete
            strong = {}
            probing = zone in PROBE_ZONES and getattr(chip, "probe", True)
            if probing:
                for uid, _ in found:
                    k = (i, uid)
                    s = self._strong.get(k)  # a new tag is probed now, whatever the time:
                    strong[k] = chip.answers(uid, PROBE_GAIN) if s is None else s  # ~1 ms
            self._off()
        except CHIP_ERRORS:
            self._on = -1
            self._mark_dead(i)
            return
        for k in [k for k in self._strong if k[0] == i]:
            del self._strong[k]
        self._strong.update(strong)
        self.age[i] = 0
        self.errors += chip.errors - before
        level = LEVEL_OF_ZONE.get(zone, "unknown")
        walk = self._walk[i]
        if walk is None:
            walk = {}
        for uid, pages in found:
            card = self.cards.card(uid, pages)
            if card is None:
                if pages is not None:
                    self.errors += 1  # its memory holds no card
                continue  # else not learned yet: its block is read at the next field-on
            self.reads += 1
            conf = None if strong.get((i, uid), True) else WEAK_CONF
            walk[card] = (zone, "unknown", level, None, conf)
        if complete:
            old = self._done[i]
            same = old is not None and len(old) == len(walk) and all(c in old for c in walk)
            self._same[i] = self._same[i] + 1 if same else 0
            self._done[i] = walk
            self._walk[i] = None
            self.found[i] = len(walk)
            self._reads[i] = list(walk.items())
            return
        self._walk[i] = walk
        seen = dict(self._done[i] or {})  # a tag not reached yet is not gone
        seen.update(walk)
        self._reads[i] = list(seen.items())

    # -- enrolment (tablesense deck): tags as they are, and writing them ----------------
    def enrol_read(self, i):
        """[(uid, (card, deck, locked))] on antenna ``i`` (field on since begin(i)), field off."""
        if self._on != i or self.dead[i]:
            return []
        try:
            found = self.antennas[i][1].identities()
            self._off()
        except CHIP_ERRORS:
            self._on = -1
            self._mark_dead(i)
            return []
        return found

    def write_tag(self, i, uid, card, deck):
        """Write ``card`` and ``deck`` into tag ``uid`` on antenna ``i`` and lock them.

        The field of ``i`` must be on (begin(i)). True when every write was acknowledged.
        """
        if self._on != i or self.dead[i]:
            return False
        try:
            ok = self.antennas[i][1].write_identity(uid, card, deck)
            self._off()
        except CHIP_ERRORS:
            self._on = -1
            self._mark_dead(i)
            return False
        return ok

    def scan(self):
        """Every antenna's latest reading, merged: a card on two antennas is where it was
        read strongly, then in the zone nearer the middle."""
        self._off()
        seen: dict = {}
        for i in range(len(self.antennas)):
            self.age[i] += 1
            for card, obs in self._reads[i] or ():
                old = seen.get(card)
                if old is None or (obs[4] is None, PRIORITY.get(obs[0], 0)) > (
                        old[4] is None, PRIORITY.get(old[0], 0)):
                    seen[card] = obs
        return seen

    def take_faults(self):
        f = self._faults
        self._faults = []
        return f

