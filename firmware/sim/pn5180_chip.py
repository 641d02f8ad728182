"""A PN5180 behind NSS and BUSY, its antennas behind a multiplexer, ICODE SLIX2 tags in the field.

What the firmware driver (firmware/pn5180.py) uses is modelled from the chip's side of
the host interface: SPI frames delimited by NSS, the command executed when NSS rises,
BUSY high from the end of a frame until the command is done, an answer clocked out by
a second frame; registers (SYSTEM_CONFIG, IRQ_STATUS/IRQ_CLEAR, TIMER1, RX_STATUS,
TX_CONFIG), the EEPROM's version bytes, LOAD_RF_CONFIG, RF_ON/RF_OFF (TX_RFON/TX_RFOFF
IRQ), SEND_DATA/READ_DATA in Transceive. A command the data sheet forbids in the
chip's state (SEND_DATA without Transceive armed) raises GENERAL_ERROR_IRQ.

The RF side speaks ISO/IEC 15693 at 26.48 kbit/s both ways (sim/clock.py for the
figures): INVENTORY with 16 slots (an EOF alone moves the tags to the next slot; two
or more answers in a slot collide: RX_STATUS collision and integrity error), and the
addressed READ SINGLE BLOCK (with the option flag: the block's lock status first),
WRITE SINGLE BLOCK and LOCK BLOCK, answered after the write time.

Time: every SPI frame and every exchange advances the virtual clock; a request's
answer (RX_IRQ) appears only once the clock has passed the request's air time, t1
and the answer's air time; when no tag answers, TIMER1, started when the request has
gone out, fires at its reload value (848 kHz ticks) and raises TIMER1_IRQ: the
driver's timeout path. Without a tag's answer and with TIMER1 off nothing ends the
wait (the driver's own bound must).

The antennas (``ports``): the multiplexer's select pins choose which one the field
goes to. Each port holds its tags like an MFRC522 antenna does (sim/rc522.py): a
height above the loop and the inlays overlapping it, giving the chance a tag answers
this field-on (``read_probability``), and a ``hook`` for the world's noise. A port
that is broken (``alive = False``: a cut cable, a dead multiplexer channel) never
reports its field up (no TX_RFON_IRQ): the driver times out and the scanner holds
that antenna's zone. A chip that is not there (``present = False``) leaves BUSY low
and MISO high.

Two fields: while another chip of the same ``Air`` has its field on, no tag decodes a
request: the exchange times out (counted in ``air.clashes``).
"""

from pollnoise import RX_THRESHOLD, SIGNAL_ON

from sim.clock import SPI_CALL_US, Air, SimClock
from sim.rc522 import REACH_MM, Antenna, read_probability
from sim.tags import SLIX2

SPI_BYTE_US = 8 / 7  # 7 Mbit/s, the PN5180's SPI limit
BUSY_US = 10  # a register command's processing while BUSY is high (estimate)
RF_SWITCH_US = 100  # RF_ON/RF_OFF to TX_RFON/TX_RFOFF (estimate, to be measured)
ETU_US = 37.76  # ISO/IEC 15693 at 26.48 kbit/s: 1 out of 4 down, high rate single subcarrier up
VCD_SOF_US = 75.52
VCD_EOF_US = 37.76
VICC_SOF_US = 151.04  # 56.64 us unmodulated, 24 pulses (56.64 us), a logic 1
VICC_EOF_US = 151.04
T1_US = 320.9  # 4352/fc: nominal time from the request's EOF to the answer
T2_US = 309.2  # 4192/fc: the next EOF no sooner than this after an answer
WRITE_US = 4000  # a block's EEPROM write before the answer (assumption: to be measured)
TIMER_TICK_US = 16 / 13.56  # TIMER1 with the 848 kHz prescaler
RX_GAIN_DB = 33  # the receiver's fixed gain in the signal model (pollnoise)
TX_CONFIG_15693 = 0x540  # TX_DATA_ENABLE, a start and a stop symbol (illustrative value)


def request_us(nbytes):
    """Air time of a request of ``nbytes`` (CRC16 added): SOF, 8 bits a byte, EOF."""
    return VCD_SOF_US + (nbytes + 2) * 8 * ETU_US + VCD_EOF_US


def answer_us(nbytes):
    """Air time of a tag's answer of ``nbytes`` (CRC16 added)."""
    return VICC_SOF_US + (nbytes + 2) * 8 * ETU_US + VICC_EOF_US


PIN_US = 2  # a GPIO read from MicroPython on the RP2040 (estimate)


class BusyPin:
    def __init__(self, chip):
        self.chip = chip

    def value(self, v=None):
        self.chip.clock.advance(PIN_US)
        return self.chip.busy()


class MuxPin:
    """One of the multiplexer's select lines, as the driver's ``Pin`` sees it."""

    def __init__(self, chip, bit):
        self.chip = chip
        self.bit = bit
        self._v = 0

    def value(self, v=None):
        if v is None:
            return self._v
        self._v = 1 if v else 0
        c = self.chip
        c.channel = (c.channel & ~(1 << self.bit)) | (self._v << self.bit)
        return None


class SimPort(Antenna):
    """One antenna: its tags, their height and stacking, its noise hook."""

    tag_class = SLIX2

    def __init__(self, chip, name):
        self.chip = chip
        self.name = name
        self.reach_mm = REACH_MM
        self.tags = []
        self.height = {}
        self.stack = {}
        self.hook = None  # port -> [(tag, signal dB)] answering this poll (noise), or None
        self.live = None
        self.alive = True

    @property
    def frames(self):
        return self.chip.frames

    @property
    def clock(self):
        return self.chip.clock

    def _powers_placed(self):
        return self.chip.field_on and self.chip.port is self

    def poll(self):
        """The tags answering this field-on, with their signal."""
        base = self.hook(self) if self.hook is not None else [(t, SIGNAL_ON) for t in self.tags]
        rng = self.chip.rng
        out = []
        for t, sig in base:
            p = read_probability(self.height.get(t, 2), self.stack.get(t, 1), self.reach_mm)
            if p >= 1 or (p > 0 and (rng.random() if rng is not None else 0.5) < p):
                out.append((t, sig))
        return out


class SimPN5180:
    def __init__(self, zones, clock=None, air=None, rng=None, product=0x0305, firmware=0x0305):
        self.clock = clock if clock is not None else SimClock()
        self.air = None
        self.seat = None  # the seat whose board it is, at a simulated table (Air.couples)
        (air if air is not None else Air()).join(self)
        self.rng = rng
        self.ports = [SimPort(self, z) for z in zones]
        self.channel = 0  # the multiplexer's selection
        self.busy_pin = BusyPin(self)
        self.mux_pins = [MuxPin(self, 0), MuxPin(self, 1)]
        self.present = True
        self.irq_wait = False  # jump the clock to the end of an exchange on an IRQ_STATUS poll
        self.frames = 0  # requests sent (EOFs included)
        self.timeouts = 0
        self.eeprom = bytearray(256)
        self.eeprom[0x10:0x12] = bytes((product & 0xFF, product >> 8))
        self.eeprom[0x12:0x14] = bytes((firmware & 0xFF, firmware >> 8))
        self.eeprom[0x14:0x16] = b"\x00\x01"
        self.regs = [0] * 0x40
        self.regs[0x02] = 0x04  # IDLE_IRQ: started
        self.field_on = False
        self.port = None  # the port whose field is on
        self.rf_config = (0xFF, 0xFF)
        self.busy_until = 0
        self._low = False
        self._buf = bytearray()
        self._out = b""  # the answer the next read frame clocks out
        self._oi = 0
        self._reading = False  # the next frame is the answer's (READ_REGISTER, _EEPROM, _DATA)
        self._pending = None  # (rx start us, done us, answer bytes or None, collided)
        self._rxbuf = b""
        self._last_rx_end = -1e9
        self._inv = None  # the INVENTORY in progress: (mask length, mask bytes), slot
        self._slot = 0
        self.live = []

    def air_key(self):
        """Where the field is: (seat, the selected antenna's zone), for the air's coupling."""
        return (self.seat, self.port.name if self.port is not None else None)

    # -- pins and SPI --------------------------------------------------------------------
    def busy(self):
        if not self.present:
            return 0
        if self._low:
            return 1 if self._buf else 0
        return 1 if self.clock.us < self.busy_until else 0

    def cs_low(self):
        self._low = True
        self._buf = bytearray()
        self._oi = 0
        self.clock.advance(SPI_CALL_US)

    def xfer(self, b):
        self.clock.advance(SPI_BYTE_US)
        if not self.present:
            return 0xFF
        self._buf.append(b)
        if self._oi < len(self._out):
            v = self._out[self._oi]
            self._oi += 1
            return v
        return 0xFF

    def cs_high(self):
        self._low = False
        if not self.present or not self._buf:
            return
        if self._reading:  # the second frame: the answer has been clocked out
            self._reading = False
            self._out = b""
            self._oi = 0
            self.busy_until = self.clock.us + BUSY_US
            return
        self._command(bytes(self._buf))
        self.busy_until = self.clock.us + BUSY_US

    # -- registers -----------------------------------------------------------------------
    def _settle(self):
        p = self._pending
        if p is None:
            return
        if self.irq_wait and p[1] != float("inf"):
            self.clock.us = max(self.clock.us, p[1])
        if self.clock.us < p[1]:
            return
        self._pending = None
        ans, coll = p[2], p[3]
        if ans is None:
            self.regs[0x02] |= 0x1000  # TIMER1_IRQ
            self.timeouts += 1
            return
        self._rxbuf = ans
        self._last_rx_end = p[1]
        st = len(ans)
        if coll:
            st |= 0x040000 | 0x010000  # collision, integrity error
        self.regs[0x13] = st
        self.regs[0x02] |= 0x01  # RX_IRQ

    def _read_reg(self, reg):
        if reg == 0x02:
            self._settle()
        return self.regs[reg] & 0xFFFFFFFF

    def _write_reg(self, reg, v):
        if reg == 0x03:  # IRQ_CLEAR
            self.regs[0x02] &= ~v
            return
        self.regs[reg] = v & 0xFFFFFFFF

    def _command(self, f):
        code = f[0]
        if code in (0x00, 0x01, 0x02) and len(f) >= 6:
            v = f[2] | (f[3] << 8) | (f[4] << 16) | (f[5] << 24)
            if code == 0x01:
                v |= self.regs[f[1]]
            elif code == 0x02:
                v &= self.regs[f[1]]
            self._write_reg(f[1], v)
        elif code == 0x04 and len(f) >= 2:
            v = self._read_reg(f[1])
            self._out = bytes((v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, v >> 24))
            self._reading = True
        elif code == 0x07 and len(f) >= 3:
            self._out = bytes(self.eeprom[f[1] : f[1] + f[2]])
            self._reading = True
        elif code == 0x0A:
            self._out = self._rxbuf
            self._reading = True
        elif code == 0x11 and len(f) >= 3:
            self.rf_config = (f[1], f[2])
            if f[1] == 0x0D:
                self.regs[0x18] = TX_CONFIG_15693
        elif code == 0x16:
            self._rf(True)
        elif code == 0x17:
            self._rf(False)
        elif code == 0x09 and len(f) >= 2:
            self._send(bytes(f[2:]))
        else:
            self.regs[0x02] |= 0x020000  # GENERAL_ERROR_IRQ: a command it does not take

    # -- RF ------------------------------------------------------------------------------
    def _rf(self, on):
        if on:
            port = self.ports[self.channel] if self.channel < len(self.ports) else None
            if port is None or not port.alive:
                return  # the field never comes up: no TX_RFON_IRQ
            if not self.field_on:
                self.field_on = True
                self.port = port
                self.air.field(self, True)
                self.live = port.poll()
                for t in port.tags:
                    t.power_up()
            self.busy_until = self.clock.us + BUSY_US
            self.regs[0x02] |= 0x0200  # TX_RFON_IRQ (the clock moves on while polled)
            self.clock.advance(RF_SWITCH_US)
            return
        if self.field_on:
            self.air.field(self, False)
            for p in self.ports:
                for t in p.tags:
                    t.powered = False
        self.field_on = False
        self.port = None
        self._pending = None
        self._inv = None
        self.regs[0x02] |= 0x0100  # TX_RFOFF_IRQ
        self.clock.advance(RF_SWITCH_US)

    def _heard(self):
        return [t for t, s in self.live if s + RX_GAIN_DB >= RX_THRESHOLD]

    def _send(self, data):
        if self.regs[0x00] & 7 != 3:
            self.regs[0x02] |= 0x020000  # SEND_DATA needs Transceive armed
            return
        eof_only = not self.regs[0x18] & 0x0400
        now = max(self.clock.us, self._last_rx_end + T2_US)
        self.frames += 1
        if eof_only:
            end_tx = now + VCD_EOF_US
            if self._inv is None:
                self._schedule(end_tx, None, False)
                return
            self._slot += 1
            self._slot_answer(end_tx)
            return
        end_tx = now + request_us(len(data))
        self._inv = None
        clash = self.air.others_on(self)
        if clash:
            self.air.clashes += 1
        if not self.field_on or clash or self.rf_config != (0x0D, 0x8D) or len(data) < 2:
            self._schedule(end_tx, None, False)
            return
        flags, cmd = data[0], data[1]
        if flags & 0x04 and cmd == 0x01 and len(data) >= 3:
            mlen = data[2]
            self._inv = (mlen, data[3 : 3 + (mlen + 7) // 8] + bytes(8))
            self._slot = 0
            if flags & 0x20:  # one slot: every matching tag answers at once
                self._inv = None
                mask = data[3:] + bytes(8)
                tags = [t for t in self._heard() if t.powered and t.slot(mlen, mask) >= 0]
                self._answer_of(end_tx, tags)
                return
            self._slot_answer(end_tx)
            return
        if flags & 0x20 and len(data) >= 11:
            uid_lsb = bytes(data[2:10])
            self._addressed(end_tx, flags, cmd, uid_lsb, data[10:])
            return
        self._schedule(end_tx, None, False)

    def _schedule(self, end_tx, answer, coll, extra_us=0):
        if answer is not None:
            start = end_tx + T1_US + extra_us
            self._pending = (start, start + answer_us(len(answer)), answer, coll)
            return
        cfg = self.regs[0x0F]
        if cfg & 0x01 and cfg & 0x0800:  # TIMER1 enabled, started when the request has gone
            ticks = self.regs[0x0C] + 1
            self._pending = (float("inf"), end_tx + ticks * TIMER_TICK_US, None, False)
        else:
            self._pending = (float("inf"), float("inf"), None, False)

    def _slot_answer(self, end_tx):
        if self._slot > 15 or self.air.others_on(self):
            if self._slot <= 15:
                self.air.clashes += 1
            self._schedule(end_tx, None, False)
            return
        mlen, mask = self._inv
        tags = [t for t in self._heard() if t.powered and t.slot(mlen, mask) == self._slot]
        self._answer_of(end_tx, tags)

    def _answer_of(self, end_tx, tags):
        if not tags:
            self._schedule(end_tx, None, False)
            return
        t = tags[0]
        ans = b"\x00\x00" + t.uid_lsb  # flags, DSFID, UID
        self._schedule(end_tx, ans, len(tags) > 1)

    def _addressed(self, end_tx, flags, cmd, uid_lsb, rest):
        here = [t for t, _ in self.live if t.powered and t.uid_lsb == uid_lsb]
        if not here:
            self._schedule(end_tx, None, False)
            return
        tag = here[0]
        heard = tag in self._heard()
        ans = None
        extra = 0
        block = rest[0] if rest else -1
        if cmd == 0x20:
            r = tag.read(block)
            if r is None:
                ans = b"\x01\x10"
            elif flags & 0x40:
                ans = bytes((0, r[0])) + r[1]
            else:
                ans = b"\x00" + r[1]
        elif cmd == 0x21 and len(rest) >= 5:
            err = tag.write(block, rest[1:5])
            ans = bytes((1, err)) if err else b"\x00"
            extra = WRITE_US
        elif cmd == 0x22:
            err = tag.lock(block)
            ans = bytes((1, err)) if err else b"\x00"
            extra = WRITE_US
        else:
            ans = b"\x01\x01"  # command not supported
        self._schedule(end_tx, ans if heard else None, False, extra)
