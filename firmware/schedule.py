"""One scan's schedule: which antenna next, how long it may take, and when to wait.

The field model (hardware/coupling.py) decides what may overlap: a seat's own
antennas never (one PN5180 behind its multiplexer), the sense mats' loops of
different seats always (their fields at each other's tags are 30 dB and more
under a tag's own), the floor mats only opposite seats' (N with S, E with W).
So only the floor mat keeps to the table's time slots (``SLOTTED``, slots.py:
two slots, each as long as a floor mat's read); the trick and table loops are
read whenever the board is ready, each board on its own.

A scan (one ``Scan``, then the reader's ``finish_scan``):

1. the trick antenna, every scan: that is where cards land, and the debouncer
   needs its fresh reads (a reading kept from an earlier scan is no evidence);
   its inventory is cut after ``TRICK_MS`` (a heap of four fits) and goes on
   in the next scan;
2. then the other antennas, oldest reading first, until the scan's budget is
   spent (``scan_ms`` from the scan's start; at least ``OTHER_MS`` after the trick
   once an antenna has gone ``MAX_AGE`` scans unread, so that a long trick read
   starves nothing, and the first of them always gets its field-on): an
   antenna with no tag or one is a cheap one-slot check and goes before any
   antenna with a long inventory; an inventory still running at the budget's
   end stops and goes on at that antenna's next field-on (zones.py keeps its
   earlier reading until the walk ends); an antenna whose last two complete
   walks found the same tags, two or more (dummy's table loops once spread,
   a quitted row), rests ``REST_SCANS`` scans between walks: a card taken from
   there is seen where it goes (the trick antenna), not by its absence;
3. the floor mat only when it is due and this seat's slot opens within the
   budget with room for its read (or, ``2 * MAX_AGE`` scans unread, within a
   cycle): the board waits for it; stopped before the slot's guard.
"""

from ticks import ticks_diff

SLOTTED = ("floor",)  # fields that couple with another seat's: only in this seat's slot
TRICK_MS = 45  # the trick antenna's field-on is cut after this (a heap of four: ~40 ms)
OTHER_MS = 30  # an antenna MAX_AGE scans old gets at least this long after the trick
MAX_AGE = 4  # scans
CHUNK_EVERY = 2  # a new long inventory starts in one scan of two at most; one under
# way goes on every scan (something on the antenna changed: its reading waits for the walk)
STOP_MS = 5  # an inventory stops when less than this is left (one tag's slot: 4.6 ms)
SLOT_STOP_MS = 8  # in a slot: a tag's slot or a block READ (7.4 ms) must end before the guard
REST_SCANS = 2  # scans between walks of an antenna whose tags stay the same
FLOOR_EVERY = 2  # the floor mat is due once its reading is this many scans old


class Scan:
    """The steps of one scan. ``next()`` gives (antenna, ms to wait first) or None;
    after a step's ``begin``/settle the reader calls ``scanner.read(i, scan.stop)``."""

    def __init__(self, scanner, slots, clock, scan_ms):
        self.sc = scanner
        self.slots = slots
        self.clock = clock
        self.start = clock()
        self.scan_ms = scan_ms
        self.tried = []  # antennas read (or passed over) in this scan
        self.end = None  # ms: the other antennas' budget ends (after the trick)
        self.deadline = 0  # ms: the current step stops before this (unless slotted)
        self.slotted = False  # the current step is in this seat's slot
        self._waited = -1  # the antenna last waited for (its slot)

    def next(self):
        sc = self.sc
        now = self.clock()
        if not self.tried:
            t = sc.trick
            if t >= 0:
                self.tried.append(t)
                self._step(now, now + TRICK_MS, False)
                return t, 0
        if self.end is None:
            self.end = self.start + self.scan_ms
            starved = max(sc.age) >= MAX_AGE
            if starved and ticks_diff(self.end, now + OTHER_MS) < 0:
                self.end = now + OTHER_MS
        left = ticks_diff(self.end, now)
        best = -1
        best_key = None
        for i in range(sc.antenna_count):
            if i in self.tried or not self._due(i):
                continue
            key = (sc.is_cheap(i), sc.age[i])  # cheap checks first, then the oldest
            if best_key is None or key > best_key:
                best, best_key = i, key
        if best < 0:
            return None
        i = best
        need = sc.first_ms(i)
        if sc.antennas[i][0] in SLOTTED and self.slots.slots > 1:
            wait = self.slots.wait_ms(need)
            if wait > 0:
                if (wait + need > left and sc.age[i] < 2 * MAX_AGE) or self._waited == i:
                    self.tried.append(i)  # not in this scan: its slot is not near
                    return self.next()
                self._waited = i
                return i, wait
            self.tried.append(i)
            self._step(now, 0, True)
            return i, 0
        self.tried.append(i)
        first = len(self.tried) == 1 + (sc.trick >= 0)
        if not sc.is_cheap(i):  # a long inventory: a chunk worth its settle time, or none
            if not first or (sc.age[i] < CHUNK_EVERY and not sc.walking(i)):
                return self.next()
            self._step(now, now + max(left, OTHER_MS), False)
            return i, 0
        if need > left and not (first and sc.age[i] >= MAX_AGE):
            return None  # the budget is spent
        self._step(now, now + max(left, sc.whole_ms(i) + STOP_MS), False)
        return i, 0

    def _due(self, i):
        sc = self.sc
        if sc.antennas[i][0] in SLOTTED:
            return sc.age[i] >= FLOOR_EVERY
        return sc.age[i] >= (REST_SCANS if sc.resting(i) else 1)

    def _step(self, now, deadline, slotted):
        self.deadline = deadline
        self.slotted = slotted

    def stop(self):
        """True when the step in progress must end before its next exchange."""
        if self.slotted:
            return self.slots.left_ms() < SLOT_STOP_MS
        return ticks_diff(self.deadline, self.clock()) < STOP_MS
