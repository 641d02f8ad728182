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
    """The chips whose fields share one space (a seat's, or a table's)."""

    def __init__(self):
        self.chips = []
        self.clashes = 0  # exchanges lost to two fields on at once

    def join(self, chip):
        self.chips.append(chip)
        chip.air = self

    def others_on(self, chip):
        return any(c is not chip and c.field_on() for c in self.chips)
