"""MFRC522 RFID front end: ISO 14443A inventory of NTAG213 tags (7-byte UIDs).

The driver is handed its SPI bus and chip-select pin; it never creates them.
Logic (framing, anticollision, select, halt, NTAG READ) lives in ``MFRC522``;
register access goes through ``_rd``/``_wr``/``_rd_fifo``/``_wr_fifo``, which
``MFRC522SPI`` implements for the 4-wire SPI interface.

A scan of one antenna is ``inventory()``: WUPA for the first round (it wakes
tags that were halted, so a card that never leaves the antenna is still seen),
REQA for the next ones (halted tags stay quiet), each tag found is selected
through cascade levels 1 and 2, optionally read (NTAG READ, 16 bytes from a
page), and halted (HLTA) so that the next round finds the next tag. CRC_A is
computed in software: the same code checks frames on the PC and on the board.

Waiting for an exchange is bounded by time, not by a count of register polls:
the chip's own timer (1 ms, TAuto from the end of the command) ends a wait no
tag answers; should the chip never raise an interrupt at all, the driver gives
up after the timer's period plus ``_GRACE_US`` and the chip counts as dead.
The clock is handed in (``clock_us``), so the simulator's virtual clock runs
the same path. The SPI transport's buffers are allocated once.
"""

from ticks import sleep_us, ticks_diff, ticks_us

try:
    from micropython import const
except ImportError:  # CPython tests
    const = lambda x: x  # noqa: E731

# registers (MFRC522 datasheet section 9)
_COMMAND = const(0x01)
_COMIRQ = const(0x04)
_ERROR = const(0x06)
_FIFODATA = const(0x09)
_FIFOLEVEL = const(0x0A)
_CONTROL = const(0x0C)
_BITFRAMING = const(0x0D)
_COLL = const(0x0E)
_MODE = const(0x11)
_TXCONTROL = const(0x14)
_TXASK = const(0x15)
_RFCFG = const(0x26)
_TMODE = const(0x2A)
_TPRESCALER = const(0x2B)
_TRELOADH = const(0x2C)
_TRELOADL = const(0x2D)
_VERSION = const(0x37)
# commands
_IDLE = const(0x00)
_TRANSCEIVE = const(0x0C)
_SOFTRESET = const(0x0F)
# ISO 14443A / NTAG commands
REQA = const(0x26)
WUPA = const(0x52)
SEL_CL1 = const(0x93)
SEL_CL2 = const(0x95)
HLTA = const(0x50)
NTAG_READ = const(0x30)
NTAG_WRITE = const(0xA2)
WRITE_TIMEOUT_MS = const(10)  # an NTAG WRITE answers after its EEPROM write (~4 ms)
CASCADE_TAG = const(0x88)
# transceive outcomes
OK = const(0)
NOTAG = const(1)
ERR = const(2)
COLL = const(3)

# VersionReg: 0x91/0x92 NXP MFRC522 v1/v2 (datasheet 9.3.4.8), 0x88 FM17522, 0xB2 FM17550;
# 0x12 is the clone found on many RC522 modules: it works, and is reported (CLONE_VERSIONS)
KNOWN_VERSIONS = (0x88, 0x91, 0x92, 0xB2, 0x12)
CLONE_VERSIONS = (0x12,)
_GRACE_US = const(4000)  # past the timer's period: a chip that never interrupts is dead
_RESET_WAIT_US = const(5000)  # oscillator start-up + 37.74 us reset phase, generously
_POLL_US = const(100)  # between ComIrqReg polls: an answer takes 0.3-2 ms of air time


class MFRC522Error(Exception):
    """The chip does not answer as an MFRC522 (wiring, power, dead module)."""


def crc_a(data, n=-1):
    """ISO/IEC 14443-3 CRC_A of ``data[:n]`` as two bytes, low byte first.

    >>> bytes(crc_a(b"\\x50\\x00"))
    b'W\\xcd'
    """
    crc = 0x6363
    if n < 0:
        n = len(data)
    for i in range(n):
        b = (data[i] ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return bytes((crc & 0xFF, crc >> 8))


def hard_reset(rst, chips, sleep=sleep_us, clock_us=ticks_us):
    """Pulse the shared NRSTPD line and wait for every chip to leave power-down.

    Datasheet 8.8.1: NRSTPD low for at least 100 ns resets the chip; after the
    rising edge the oscillator starts and the reset phase takes 37.74 us. We
    hold it low 10 us, then poll each chip's CommandReg PowerDown bit (bit 4)
    until it clears, up to ``_RESET_WAIT_US``. Returns the chips still not up.
    """
    rst.value(0)
    sleep(10)
    rst.value(1)
    sleep(40)
    t0 = clock_us()
    late = list(chips)
    while late and ticks_diff(clock_us(), t0) < _RESET_WAIT_US:
        late = [c for c in late if c._rd(_COMMAND) & 0x10]
    return late


class MFRC522:
    """Chip logic; subclasses provide register transport."""

    def __init__(self, timeout_ms=1, clock_us=ticks_us, sleep=sleep_us):
        self.timeout_ms = timeout_ms
        self.clock_us = clock_us
        self.sleep_us = sleep
        self.errors = 0  # frames lost to CRC/protocol/BCC errors since boot
        self.clone = False  # version 0x12: a clone chip (works; reported once)
        self.branch = 1  # anticollision: which branch to take at a collision
        self.complete = True  # the last inventory read every tag there (not cut short)

    # transport, provided by a subclass
    def _rd(self, reg):
        raise NotImplementedError

    def _wr(self, reg, val):
        raise NotImplementedError

    def _rd_fifo(self, n):
        raise NotImplementedError

    def _wr_fifo(self, data):
        raise NotImplementedError

    # setup
    def version(self):
        return self._rd(_VERSION)

    def init(self):
        """Soft reset and configure; raises MFRC522Error when the chip is absent."""
        self._wr(_COMMAND, _SOFTRESET)
        t0 = self.clock_us()
        while self._rd(_COMMAND) & 0x10:  # PowerDown bit clears after the reset phase
            if ticks_diff(self.clock_us(), t0) > _RESET_WAIT_US:
                break
        v = self.version()
        if v not in KNOWN_VERSIONS:
            raise MFRC522Error(f"version register {v:#04x}")
        self.clone = v in CLONE_VERSIONS
        # timer: 13.56 MHz / (2*169+1) = 40 kHz, 25 us a tick; TAuto starts it on send
        self._wr(_TMODE, 0x80)
        self._wr(_TPRESCALER, 0xA9)
        self._timer(self.timeout_ms)
        self._wr(_TXASK, 0x40)  # 100 % ASK
        self._wr(_MODE, 0x3D)  # CRC preset 0x6363 (unused: CRC in software)
        self.field(False)
        return v

    def _timer(self, ms):
        ticks = ms * 40
        self._wr(_TRELOADH, ticks >> 8)
        self._wr(_TRELOADL, ticks & 0xFF)

    def field(self, on):
        """Antenna drivers TX1/TX2 on or off. Off unpowers every tag (back to IDLE)."""
        v = self._rd(_TXCONTROL)
        self._wr(_TXCONTROL, (v | 0x03) if on else (v & 0xFC))

    # one frame out, one frame in
    def transceive(self, data, tx_bits=0, rx_align=0):
        """Send ``data`` (last byte ``tx_bits`` bits long, 0 = 8); return (status, bytes, collpos).

        ``collpos`` is the 1-based position of the first collided bit counted
        from bit 0 of the first received byte (CollReg), 0 without a collision.
        """
        self._wr(_COMMAND, _IDLE)
        self._wr(_COMIRQ, 0x7F)
        self._wr(_FIFOLEVEL, 0x80)
        self._wr_fifo(data)
        framing = (rx_align << 4) | tx_bits
        self._wr(_BITFRAMING, framing)
        self._wr(_COMMAND, _TRANSCEIVE)
        self._wr(_BITFRAMING, 0x80 | framing)
        t0 = self.clock_us()
        limit = self.timeout_ms * 1000 + _GRACE_US
        # nothing can be back before our own frame is out and the frame delay has passed:
        # 9.44 us a bit, 9 bits a byte, + start/end, + 91 us (ISO/IEC 14443-3 FDT)
        self.sleep_us(len(data) * 85 + 110)
        while True:
            irq = self._rd(_COMIRQ)
            if irq & 0x30:  # RxIRq | IdleIRq
                break
            if irq & 0x01:  # TimerIRq: nobody answered
                return NOTAG, b"", 0
            if ticks_diff(self.clock_us(), t0) > limit:
                raise MFRC522Error("transceive never finished")
            self.sleep_us(_POLL_US)
        self._wr(_BITFRAMING, framing)
        err = self._rd(_ERROR)
        n = self._rd(_FIFOLEVEL) & 0x7F
        rx = self._rd_fifo(n) if n else b""
        if err & 0x08:
            coll = self._rd(_COLL)
            pos = 0 if coll & 0x20 else ((coll & 0x1F) or 32)
            return COLL, rx, pos
        if err & 0x13:  # BufferOvfl | ParityErr | ProtocolErr
            self.errors += 1
            return ERR, rx, 0
        return OK, rx, 0

    def _anticoll(self, sel):
        """Resolve one UID-CLn (4 bytes + BCC) among the tags answering at this level."""
        uid = bytearray(5)
        known = 0  # bits of uid already fixed
        while known < 40:
            nbytes = known >> 3
            nb = known & 7
            frame = bytearray((sel, ((2 + nbytes) << 4) | nb))
            frame.extend(uid[: nbytes + (1 if nb else 0)])
            st, rx, pos = self.transceive(frame, nb, nb)
            if st in (NOTAG, ERR) or not rx:
                return None
            for i in range(len(rx)):
                j = nbytes + i
                if j >= 5:
                    break
                if i == 0 and nb:
                    low = (1 << nb) - 1
                    uid[j] = (uid[j] & low) | (rx[0] & ~low & 0xFF)
                else:
                    uid[j] = rx[i]
            if st == COLL:
                bit = nbytes * 8 + pos - 1  # absolute bit index in uid
                if pos == 0 or bit < known:
                    self.errors += 1
                    return None
                if self.branch:  # take the branch with a 1 (or, every other round, a 0)
                    uid[bit >> 3] |= 1 << (bit & 7)
                else:
                    uid[bit >> 3] &= ~(1 << (bit & 7)) & 0xFF
                uid[bit >> 3] &= (2 << (bit & 7)) - 1  # bits after it unknown
                known = bit + 1
                continue
            known = 40
        if uid[0] ^ uid[1] ^ uid[2] ^ uid[3] != uid[4]:
            self.errors += 1
            return None
        return uid

    def _select(self, sel, uid5):
        frame = bytearray((sel, 0x70))
        frame.extend(uid5)
        frame.extend(crc_a(frame))
        st, rx, _ = self.transceive(frame)
        if st != OK or len(rx) != 3 or crc_a(rx, 1) != rx[1:3]:
            self.errors += 1
            return -1
        return rx[0]

    def read_uid(self, wake=True):
        """Wake (WUPA) or request (REQA) one tag, select it; return its UID or None."""
        st, _, _ = self.transceive(bytes((WUPA if wake else REQA,)), 7)
        if st == NOTAG:
            return None
        # ATQA of several NTAGs collide harmlessly (identical bits); go on
        cl1 = self._anticoll(SEL_CL1)
        if cl1 is None:
            return None
        sak = self._select(SEL_CL1, cl1)
        if sak < 0:
            return None
        if cl1[0] != CASCADE_TAG:  # 4-byte UID
            return bytes(cl1[:4])
        if not sak & 0x04:  # cascade bit should be set
            self.errors += 1
            return None
        cl2 = self._anticoll(SEL_CL2)
        if cl2 is None or self._select(SEL_CL2, cl2) < 0:
            return None
        return bytes(cl1[1:4]) + bytes(cl2[:4])

    def halt(self):
        """HLTA: the selected tag goes quiet until the next WUPA or field reset."""
        frame = bytearray((HLTA, 0x00))
        frame.extend(crc_a(frame))
        self.transceive(frame)  # no answer is the success case

    def read_pages(self, page):
        """NTAG READ: 16 bytes (4 pages) from ``page`` of the selected tag, or None."""
        frame = bytearray((NTAG_READ, page))
        frame.extend(crc_a(frame))
        st, rx, _ = self.transceive(frame)
        if st != OK or len(rx) != 18 or crc_a(rx, 16) != rx[16:18]:
            self.errors += 1
            return None
        return rx[:16]

    def answers(self, uid, gain):
        """Does tag ``uid`` still answer with the receiver gain lowered to ``gain``?

        ``gain`` is an RxGain code (RFCfgReg bits 6..4: 1 = 23 dB, 4 = 33 dB, the
        reset value, 7 = 48 dB). The MFRC522 has no RSSI register; a tag well
        coupled to this antenna is still heard at a low gain, one at the edge
        of its field (over a neighbour's antenna) only at the gain the scan runs
        with. WUPA wakes the halted tags, SELECT at both cascade levels picks
        this one, HLTA puts it back; ~4.5 ms of air time. Not counted as errors.
        """
        old = self._rd(_RFCFG)
        errors = self.errors
        self._wr(_RFCFG, (old & 0x8F) | ((gain & 7) << 4))
        ok = self.select_uid(uid)
        if ok:
            self.halt()
        self._wr(_RFCFG, old)
        self.errors = errors
        return ok

    def select_uid(self, uid):
        """WUPA, then SELECT tag ``uid`` at each cascade level; True when it answered."""
        if self.transceive(bytes((WUPA,)), 7)[0] == NOTAG:
            return False
        parts = ((SEL_CL1, bytes((CASCADE_TAG,)) + uid[:3]), (SEL_CL2, uid[3:7])) \
            if len(uid) == 7 else ((SEL_CL1, uid[:4]),)
        for sel, part in parts:
            cl = bytearray(part)
            cl.append(cl[0] ^ cl[1] ^ cl[2] ^ cl[3])
            if self._select(sel, cl) < 0:
                return False
        return True

    def write_page(self, page, data):
        """NTAG WRITE of 4 bytes to ``page`` of the selected tag; True on its ACK."""
        frame = bytearray((NTAG_WRITE, page))
        frame.extend(data)
        frame.extend(crc_a(frame))
        self._timer(WRITE_TIMEOUT_MS)
        try:
            st, rx, _ = self.transceive(frame)
        finally:
            self._timer(self.timeout_ms)
        return st == OK and len(rx) == 1 and rx[0] & 0x0F == 0x0A

    def identities(self):
        """Enrolment: [(uid, (card, deck, locked))] of the tags on the antenna (pages 2-5)."""
        from cards import tag_state

        return [(u, tag_state(p)) for u, p in self.inventory(lambda uid: True, 2)
                if p is not None]

    def write_identity(self, uid, card, deck):
        """Write ``card`` (page 4) and ``deck`` (page 5) into tag ``uid`` and set the static
        lock bits of pages 4 and 5; True when every WRITE was acknowledged."""
        from cards import encode_pages

        ok = self.select_uid(uid) and self.write_page(4, encode_pages(card)) \
            and self.write_page(5, bytes((deck & 0xFF, deck >> 8, 0, 0))) \
            and self.write_page(2, b"\x00\x00\x30\x00")  # lock pages 4 and 5
        self.halt()
        return ok

    def inventory(self, want_pages=None, page=4, max_tags=20, stop=None):
        """All tags on the antenna: list of (uid, pages or None).

        ``want_pages(uid)`` says whether to READ ``page``.. of that tag (for a
        UID the card map does not know yet). The field must be on and settled.
        ``stop()`` True ends the round before the next tag (the time given to this antenna
        is over): ``complete`` is then False (the tags not reached are not known absent).
        """
        found: list = []
        self.complete = False
        wake = True
        self.branch ^= 1  # alternate ends of the UID tree: a round cut short (stop) misses
        while len(found) < max_tags:  # other tags next time, never the same ones
            if found and stop is not None and stop():
                break
            uid = self.read_uid(wake)
            wake = False
            if uid is None:
                self.complete = True
                break
            data = None
            if want_pages is not None and want_pages(uid):
                data = self.read_pages(page)
            self.halt()
            found.append((uid, data))
        if len(found) >= max_tags:
            self.complete = True  # as many as the caller takes: the rest is not its business
        return found


class MFRC522SPI(MFRC522):
    """SPI transport: address byte ``0 a5..a0 0`` (bit 7 set to read), mode 0, <= 10 MHz."""

    def __init__(self, spi, cs, timeout_ms=1, clock_us=ticks_us, sleep=sleep_us):
        super().__init__(timeout_ms, clock_us, sleep)
        self._spi = spi
        self._cs = cs
        self._b2 = bytearray(2)
        self._r2 = bytearray(2)
        self._tx = bytearray(65)  # FIFO transfers: address byte + up to 64 bytes
        self._rx = bytearray(65)
        self._txv = memoryview(self._tx)
        self._rxv = memoryview(self._rx)
        cs.value(1)

    def _wr(self, reg, val):
        b = self._b2
        b[0] = (reg << 1) & 0x7E
        b[1] = val
        self._cs.value(0)
        self._spi.write(b)
        self._cs.value(1)

    def _rd(self, reg):
        b = self._b2
        b[0] = ((reg << 1) & 0x7E) | 0x80
        b[1] = 0
        self._cs.value(0)
        self._spi.write_readinto(b, self._r2)
        self._cs.value(1)
        return self._r2[1]

    def _rd_fifo(self, n):
        n = min(n, 64)
        a = ((_FIFODATA << 1) & 0x7E) | 0x80
        tx = self._tx
        for i in range(n):
            tx[i] = a
        tx[n] = 0
        self._cs.value(0)
        self._spi.write_readinto(self._txv[: n + 1], self._rxv[: n + 1])
        self._cs.value(1)
        return bytes(self._rxv[1 : n + 1])

    def _wr_fifo(self, data):
        n = min(len(data), 64)
        tx = self._tx
        tx[0] = (_FIFODATA << 1) & 0x7E
        for i in range(n):
            tx[i + 1] = data[i]
        self._cs.value(0)
        self._spi.write(self._txv[: n + 1])
        self._cs.value(1)
