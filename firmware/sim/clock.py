"""The simulated hardware's time: a virtual clock in microseconds, and the radio's shared air.

Every SPI transaction and every RF exchange advances the clock by what it
would take on the bench build (10 MHz SPI; ISO/IEC 14443A at 106 kbit/s,
9.44 us a bit, a byte 9 bits with its parity; hardware/README.md, section 6),
so the driver's waits, the chip's timer and a scan's length come out of the
same arithmetic as on a board. ``Air`` is the space the fields share: while
two of its chips have their field on, no tag decodes a command.
"""

SPI_BYTE_US = 0.8  # 8 bits at 10 MHz
SPI_CALL_US = 20  # a MicroPython register access on the RP2040 (estimate, to be measured)
BIT_US = 9.44  # ISO/IEC 14443A, 106 kbit/s
FDT_US = 91  # frame delay time, PCD to PICC answer (1236/fc)


def frame_us(nbytes, last_bits=0):
    """Air time of a frame: start bit, 9 bits a byte (8 + parity), end; a short frame of
    ``last_bits`` (REQA/WUPA: 7) has no parity."""
    if nbytes == 1 and last_bits:
        return (1 + last_bits + 1) * BIT_US
    return (1 + 9 * nbytes + 1) * BIT_US


class SimClock:
    def __init__(self, us=0):
        self.us = us

    def advance(self, us):
        self.us += us

    def ticks_us(self):
        return int(self.us)

    def ticks_ms(self):
        return int(self.us // 1000)

    def sleep_us(self, us):
        self.us += us


class Air:
    """The chips whose fields share one space (a seat's, or a table's).

    Each chip may run on its own clock (the four boards of a table, simulated one
    after another, each on its own virtual time from one epoch): the air keeps
    every field's on-time as an interval, and an exchange clashes when a coupled
    chip's field was on at that moment of its clock, whichever ran first.

    Which fields couple: ``coupled`` None, every two (the conservative model: a
    seat's own loops, or chips with no place at the table); else a set of
    ``(seat, zone, seat, zone)`` pairs, sorted, from the field model (sim/layout.py,
    hardware/coupling.py): two antennas of different seats clash only when listed;
    two of one seat always do. A chip says where its field is by ``air_key()``
    ((seat, zone); seat None: unplaced, couples with everything).
    """

    PAST = 64  # field intervals kept (a ring: no allocation per field switch)

    def __init__(self, coupled=None):
        self.chips = []
        self.coupled = coupled
        self.clashes = 0  # exchanges lost to two coupled fields on at once
        self._on = {}  # chip -> (us its field went on, its antenna key) (open interval)
        self._past = [None] * self.PAST  # (chip, key, on us, off us), the latest ones
        self._pi = 0

    def join(self, chip):
        self.chips.append(chip)
        chip.air = self

    def field(self, chip, on):
        t = chip.clock.us
        if on:
            self._on[chip] = (t, _key(chip))
            return
        o = self._on.pop(chip, None)
        if o is not None:
            self._past[self._pi] = (chip, o[1], o[0], t)
            self._pi = (self._pi + 1) % self.PAST

    def couples(self, a, b):
        """True when fields on antennas ``a`` and ``b`` ((seat, zone) each) disturb each other."""
        if self.coupled is None or a[0] is None or b[0] is None or a[0] == b[0]:
            return True
        return ((a + b) if a < b else (b + a)) in self.coupled

    def others_on(self, chip):
        t = chip.clock.us
        me = _key(chip)
        for c, o in self._on.items():
            if c is not chip and o[0] <= t and self.couples(me, o[1]):
                return True
        for p in self._past:
            if p is not None and p[0] is not chip and p[2] <= t <= p[3] and \
                    self.couples(me, p[1]):
                return True
        return False


def _key(chip):
    k = getattr(chip, "air_key", None)
    return k() if k is not None else (None, None)
