"""An MFRC522 behind a chip-select: registers, FIFO, timer IRQ, and the RF side.

Only what the firmware driver and ISO 14443A inventory need is modelled: soft
reset, TxControl (field on/off powers the tags up and down), Transceive with
TxLastBits/RxAlign bit framing, bitwise collisions (CollErr, CollReg CollPos
counted from bit 0 of the first received byte), a timer IRQ when no tag
answers. A dead chip (``alive = False``) reads all registers as 0x00, as a
module with MISO floating low does.

Signal: each tag in the field has a signal in dB (``SIGNAL_ON`` for a tag
placed on the antenna); the receiver decodes a tag's answer only when its
signal plus the receiver gain (RFCfgReg RxGain, reset 33 dB) reaches
``RX_THRESHOLD``. A quieter tag still hears and obeys the commands; its
answer just is not heard (nor does it collide). With a ``hook`` (the
world's noise), the tags in the field are asked afresh each time the field
goes on: one poll.

Time (sim/clock.py): the chip runs on a virtual clock. A Transceive takes its
air time: the command, the frame delay and the answer; its result (FIFO,
RxIRq/IdleIRq) appears only when the clock has passed its end, read by the
driver's polls, which advance the clock too. When no tag answers, the timer
started at the end of the command (TModeReg TAuto) fires after
(TReload + 1) x (2 x TPrescaler + 1) / 13.56 MHz and raises TimerIRq; with
TAuto off nothing ever ends the wait (the driver's own bound must).

Distance and stacks: each tag lies ``height_mm`` above the antenna and
overlaps ``stack`` inlays (1 = alone). At each field on, a tag answers this
poll with probability 1 up to 80 % of ``reach_mm``, falling linearly to 0 at
the reach, divided by (stack - 1) for 3 or more overlapping inlays (detuned;
an assumption until measurement M4 of hardware/README.md). ``rng`` draws it.

Two fields: while another chip of the same ``Air`` has its field on, a
command is not decoded by any tag: the exchange times out.
"""

from mfrc522 import crc_a
from pollnoise import RX_THRESHOLD, SIGNAL_ON

from sim.clock import FDT_US, SPI_BYTE_US, SPI_CALL_US, Air, SimClock, frame_us
from sim.tags import NTAG213

WRITE_US = 4100  # NTAG213 EEPROM programming before the ACK (data sheet: tPROG 4.1 ms)
REACH_MM = 25  # the design's reach over a sense-mat loop (hardware/README.md, section 2)

_REGS_RESET = {0x01: 0x20, 0x0A: 0x00, 0x14: 0x80, 0x26: 0x48, 0x37: 0x92}
RX_GAIN_DB = (18, 23, 18, 23, 33, 38, 43, 48)  # RFCfgReg bits 6..4


def read_probability(height_mm, stack=1, reach_mm=REACH_MM):
    """Chance a tag answers one poll (see the module docstring).

    >>> read_probability(2), read_probability(25), read_probability(22.5), read_probability(2, 4)
    (1.0, 0.0, 0.5, 0.3333333333333333)
    """
    full = 0.8 * reach_mm
    if height_mm >= reach_mm:
        return 0.0
    p = 1.0 if height_mm <= full else (reach_mm - height_mm) / (reach_mm - full)
    if stack >= 3:
        p /= stack - 1
    return p


class Antenna:
    """The tags over one antenna (``tags``, ``height``, ``stack``): placing and removing
    them. A tag placed is powered up when ``_powers_placed`` says the field is on it."""

    def _powers_placed(self):
        return True

    def place(self, tag, height_mm=2, stack=1):
        self.height[tag] = height_mm
        self.stack[tag] = stack
        if tag not in self.tags:
            self.tags.append(tag)
            if self._powers_placed():
                tag.power_up()

    def remove(self, tag):
        if tag in self.tags:
            self.tags.remove(tag)
        self.height.pop(tag, None)
        self.stack.pop(tag, None)


class SimMFRC522(Antenna):
    tag_class = NTAG213
    def __init__(self, name="", clock=None, air=None, rng=None, version=0x92):
        self.name = name
        self.clock = clock if clock is not None else SimClock()
        self.air = None
        self.seat = None  # the seat whose board it is, at a simulated table (Air.couples)
        (air if air is not None else Air()).join(self)
        self.rng = rng  # .random() for partial read probabilities (None: p >= 0.5 answers)
        self.version_reg = version
        self.reach_mm = REACH_MM
        self.height = {}  # tag -> mm above the antenna (default 2: on the cloth)
        self.stack = {}  # tag -> overlapping inlays
        self._pending = None  # (done at us, rx bytes or None) of a running Transceive
        self._write_us = 0  # programming time before the answer to a WRITE
        self.irq_wait = False  # jump the clock to the end of an exchange on a ComIrq poll
        self.timeouts = 0  # exchanges ended by the timer
        self.tags = []  # NTAG213 in this antenna's field
        self.hook = None  # chip -> [(tag, signal)] answering this poll (noise), or None
        self.live = None  # that list for the current poll (None: self.tags, all SIGNAL_ON)
        self.alive = True
        self.frames = 0  # transceives since power up (for timing budgets)
        self._reset()
        self._addr = -1
        self._read = False


    def air_key(self):
        """Where this chip's field is: (seat, antenna zone), for the air's coupling model."""
        return (self.seat, self.name)
    def _reset(self):
        self.regs = bytearray(64)
        for r in _REGS_RESET:
            self.regs[r] = _REGS_RESET[r]
        self.regs[0x37] = getattr(self, "version_reg", 0x92)
        self.fifo = bytearray()
        self._pending = None

    def field_on(self):
        return bool(self.regs[0x14] & 0x03)

    # -- tags: place and remove are Antenna's ----------------------------------

    def _answers_poll(self, tag):
        p = read_probability(self.height.get(tag, 2), self.stack.get(tag, 1), self.reach_mm)
        if p >= 1:
            return True
        if p <= 0:
            return False
        return (self.rng.random() if self.rng is not None else 0.5) < p

    # -- SPI byte level ------------------------------------------------------
    def cs_low(self):
        self._addr = -1
        self.clock.advance(SPI_CALL_US)

    def xfer(self, b):
        """One byte in on MOSI, one byte out on MISO."""
        self.clock.advance(SPI_BYTE_US)
        if not self.alive:
            return 0
        if self._addr < 0:
            self._addr = (b >> 1) & 0x3F
            self._read = bool(b & 0x80)
            return 0
        if self._read:
            out = self._rd(self._addr)
            self._addr = (b >> 1) & 0x3F
            return out
        self._wr(self._addr, b)
        return 0

    def _settle(self):
        """A running Transceive ends once the clock has passed its end."""
        p = self._pending
        if p is None or self.clock.us < p[0]:
            return
        self._pending = None
        rx = p[1]
        self.regs[1] = 0  # back to Idle
        if rx is None:
            self.regs[4] |= 0x01  # TimerIRq
            self.timeouts += 1
            return
        self.fifo = bytearray(rx)
        self.regs[4] |= 0x30  # RxIRq | IdleIRq

    def _rd(self, reg):
        p = self._pending
        if reg == 0x04 and self.irq_wait and p is not None and p[0] != float("inf"):
            # the driver's poll loop, jumped: as if it had polled until the interrupt
            # (fewer Python SPI calls; the same outcome, and the timeout path still runs)
            self.clock.us = max(self.clock.us, p[0])
        self._settle()
        if reg == 0x09:
            if self.fifo:
                v = self.fifo[0]
                self.fifo = self.fifo[1:]
                return v
            return 0
        if reg == 0x0A:
            return len(self.fifo)
        return self.regs[reg]

    def _wr(self, reg, v):
        if reg == 0x01:
            if v & 0x0F == 0x0F:
                if self.air is not None and self.field_on():
                    self.air.field(self, False)
                self._reset()
                for t, _ in self._field():
                    t.power_up()
                return
            self.regs[1] = v & 0x3F
        elif reg == 0x04:
            if v & 0x80:
                self.regs[4] |= v & 0x7F
            else:
                self.regs[4] &= ~v & 0x7F
        elif reg == 0x09:
            if len(self.fifo) < 64:
                self.fifo.append(v)
        elif reg == 0x0A:
            if v & 0x80:
                self.fifo = bytearray()
        elif reg == 0x0D:
            self.regs[0x0D] = v & 0x7F
            if v & 0x80 and self.regs[1] & 0x0F == 0x0C:
                self._transceive(v & 0x07)
        elif reg == 0x14:
            was = self.field_on()
            self.regs[0x14] = v
            if self.air is not None and self.field_on() != was:
                self.air.field(self, not was)
            if self.field_on() and not was:
                base = self.hook(self) if self.hook is not None else [
                    (t, SIGNAL_ON) for t in self.tags]
                self.live = [(t, sig) for t, sig in base if self._answers_poll(t)]
                for t, _ in self._field():
                    t.power_up()
        else:
            self.regs[reg] = v

    # -- RF side -------------------------------------------------------------
    def _field(self):
        """[(tag, signal dB)] in the field this poll."""
        if self.live is not None:
            return self.live
        return [(t, SIGNAL_ON) for t in self.tags]

    def _heard(self):
        """The tags whose answers the receiver decodes at its current gain."""
        gain = RX_GAIN_DB[(self.regs[0x26] >> 4) & 7]
        return [t for t, s in self._field() if s + gain >= RX_THRESHOLD]

    def _transceive(self, tx_bits):
        data = bytes(self.fifo)
        self.fifo = bytearray()
        self.frames += 1
        self.regs[0x06] = 0
        self.regs[0x0E] = 0x20
        self.regs[0x0C] = 0
        rx = None
        if self.field_on() and data:
            if self.air is not None and self.air.others_on(self):
                self.air.clashes += 1  # two carriers: no tag decodes the command
            else:
                rx = self._answer(data, tx_bits)
        end_tx = self.clock.us + frame_us(len(data), tx_bits)
        if rx is not None:
            done = end_tx + FDT_US + self._write_us + frame_us(len(rx))
            self._write_us = 0
        elif self.regs[0x2A] & 0x80:  # TAuto: the timer starts at the end of the command
            ticks = ((self.regs[0x2C] << 8) | self.regs[0x2D]) + 1
            prescaler = ((self.regs[0x2A] & 0x0F) << 8) | self.regs[0x2B]
            done = end_tx + ticks * (2 * prescaler + 1) / 13.56
        else:
            done = float("inf")  # nothing ends the wait
        self._pending = (done, rx)

    def _answer(self, data, tx_bits):
        cmd = data[0]
        tags = [t for t, _ in self._field()]
        heard = self._heard()
        if tx_bits == 7 and len(data) == 1 and cmd in (0x26, 0x52):
            ans = [t for t in tags if t.on_short(cmd)]
            return b"\x44\x00" if any(t in heard for t in ans) else None
        if cmd in (0x93, 0x95) and len(data) >= 2:
            lvl = 0 if cmd == 0x93 else 1
            if data[1] == 0x70:
                if len(data) != 9 or crc_a(data, 7) != data[7:9]:
                    return None
                sak = -1
                for t in tags:
                    s = t.select(lvl, data[2:7])
                    if s >= 0 and t in heard:
                        sak = s
                if sak < 0:
                    return None
                return bytes((sak,)) + crc_a(bytes((sak,)))
            return self._anticoll(lvl, data, tx_bits, heard)
        if len(data) < 3 or crc_a(data, len(data) - 2) != data[-2:]:
            return None
        if cmd == 0x50:
            for t in tags:
                t.halt()
            return None
        if cmd == 0x30:
            for t in heard:
                r = t.read(data[1])
                if r is not None:
                    return r
        if cmd == 0xA2 and len(data) == 8:
            ack = None
            for t in tags:  # every selected tag writes; the heard one answers
                ok = t.write(data[1], data[2:6])
                if t in heard and t.state == 3:
                    ack = ok
            if ack is None:
                return None
            self.regs[0x0C] = 4  # RxLastBits: a 4-bit ACK/NAK
            self._write_us = WRITE_US
            return b"\x0a" if ack else b"\x00"
        return None

    def _anticoll(self, lvl, data, tx_bits, heard):
        nvb = data[1]
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if known < 0 or known >= 40:
            return None
        prefix = data[2:]
        cands = []
        for t in heard:
            if t.level() != lvl:
                continue
            u = t.cl[lvl]
            ok = True
            for i in range(known):
                if (u[i >> 3] >> (i & 7)) & 1 != (prefix[i >> 3] >> (i & 7)) & 1:
                    ok = False
                    break
            if ok:
                cands.append(u)
        if not cands:
            return None
        first = known >> 3
        out = bytearray(5 - first)
        coll = -1
        for i in range(known, 40):
            bits = 0
            for u in cands:
                bits |= 1 << ((u[i >> 3] >> (i & 7)) & 1)
            if bits == 3 and coll < 0:
                coll = i
            if bits & 2:
                out[(i >> 3) - first] |= 1 << (i & 7)
        if coll >= 0:
            pos = coll - first * 8 + 1
            self.regs[0x06] |= 0x08  # CollErr
            self.regs[0x0E] = pos & 0x1F  # 32 reads as 0
        return out
