"""PN5180 NFC front end: ISO/IEC 15693 inventory of ICODE SLIX2 tags, one antenna at a time.

The table build's reader chip (hardware/README.md, sections 2 and 10). The driver is
handed its SPI bus, chip-select (NSS) and BUSY pins, and the antenna multiplexer; it
never creates them. ``PN5180`` speaks the chip's host interface and ISO/IEC 15693;
``PN5180Port`` is one antenna behind the RF multiplexer, with the surface the zone
scanner (zones.py) drives: ``init``, ``version``, ``field``, ``inventory``,
``identities``, ``write_identity`` and an ``errors`` count.

Sources (cited by tag in the comments below):

- [DS] NXP PN5180 data sheet (PN5180A0XX_C3_C4), 11.4 host interface: SPI mode 0
  (CPOL 0, CPHA 0) at up to 7 Mbit/s, extended by a BUSY line; a command is one SPI
  frame (command code, then its parameters, 32-bit values little endian), a command
  with an answer a second frame that clocks the answer out. BUSY handshake: NSS low,
  exchange, wait for BUSY high, NSS high, wait for BUSY low. Command codes 11.4.3.3:
  WRITE_REGISTER 0x00, WRITE_REGISTER_OR_MASK 0x01, WRITE_REGISTER_AND_MASK 0x02,
  READ_REGISTER 0x04, READ_EEPROM 0x07, SEND_DATA 0x09 (valid bits of the last byte,
  then the data; 0 bytes with TX_DATA_ENABLE cleared sends a symbol only), READ_DATA
  0x0A, LOAD_RF_CONFIG 0x11 (ISO 15693 ASK100 26 kbit/s: TX 0x0D, RX 0x8D), RF_ON
  0x16, RF_OFF 0x17. RESET_N low for at least 10 us; the chip signals IDLE_IRQ when
  it has started. EEPROM: PRODUCT_VERSION 0x10, FIRMWARE_VERSION 0x12, EEPROM_VERSION
  0x14 (2 bytes each).
- [AN] NXP AN12650 "Using the PN5180 without library" (rev 1.0, 2020): the ISO 15693
  16-slot inventory step by step: SYSTEM_CONFIG command Idle then Transceive, SEND_DATA
  the request, per slot RX_STATUS and IRQ_STATUS, READ_DATA, then TX_CONFIG AND
  0xFFFFFB3F (no start symbol, no data) so that the next SEND_DATA sends only an EOF:
  the next slot.
- [REG] register and bit layout as NXP's NFC Reader Library (phhalHw_Pn5180_Reg.h)
  names it: SYSTEM_CONFIG 0x00 (COMMAND bits 2..0, 3 = Transceive), IRQ_STATUS 0x02
  (RX 0, TX 1, IDLE 2, TX_RFOFF 8, TX_RFON 9, TIMER1 12, RX_SOF_DET 14, GENERAL_ERROR
  17), IRQ_CLEAR 0x03, TIMER1_RELOAD 0x0C, TIMER1_CONFIG 0x0F (ENABLE 0, MODE_SEL 2
  prescaler on, PRESCALE_SEL 5..3 with 011 = 848 kHz, START_ON_TX_ENDED 11,
  STOP_ON_RX_STARTED 20), RX_STATUS 0x13 (bytes received 8..0, DATA_INTEGRITY_ERROR
  16, PROTOCOL_ERROR 17, COLLISION_DETECTED 18), TX_CONFIG 0x18 (TX_DATA_ENABLE 10,
  TX_START_SYMBOL 7..6).
- [ISO] ISO/IEC 15693-3 request format: flags (0x02 high data rate, 0x04 inventory;
  with inventory 0x20 one slot instead of 16, 0x40 option; without inventory 0x20
  addressed, 0x40 option), command, parameters, CRC16 (added and checked by the
  chip). INVENTORY 0x01 (mask length in bits, then the mask: the UID's least
  significant bits; a tag answers in the slot numbered by its next 4 UID bits),
  answered by flags, DSFID, UID (8 bytes, least significant first); READ SINGLE BLOCK
  0x20 (with the option flag the block's security status comes first: bit 0 locked),
  WRITE SINGLE BLOCK 0x21, LOCK BLOCK 0x22; an answer with flag bit 0 set carries an
  error code. A VICC answers t1 = 4320/fc..4384/fc (318.6-323.3 us) after the
  request; a write answers once it has written, within 20 ms.

Waits are bounded by time: the chip's TIMER1, started when a request has gone out and
stopped when an answer starts, ends a wait no tag answers (TIMER1_IRQ); should the chip
never raise any IRQ, or BUSY never fall, the driver gives up after its own bound and
raises ``PN5180Error`` (the scanner reports FAULT 3). The clock is handed in, so the
simulator's virtual clock runs the same path. Every buffer is allocated here, once;
UIDs are the only bytes made in a scan (one per new tag, kept by the card map), and
32-bit register values are handled as bytes so that no big integer is made either.
"""

from ticks import sleep_us, ticks_diff, ticks_us

try:
    from micropython import const
except ImportError:  # CPython tests
    const = lambda x: x  # noqa: E731

# host interface commands [DS 11.4.3.3]
WRITE_REGISTER = const(0x00)
WRITE_REGISTER_OR_MASK = const(0x01)
WRITE_REGISTER_AND_MASK = const(0x02)
READ_REGISTER = const(0x04)
READ_EEPROM = const(0x07)
SEND_DATA = const(0x09)
READ_DATA = const(0x0A)
LOAD_RF_CONFIG = const(0x11)
RF_ON = const(0x16)
RF_OFF = const(0x17)
# registers [REG]
SYSTEM_CONFIG = const(0x00)
IRQ_STATUS = const(0x02)
IRQ_CLEAR = const(0x03)
TIMER1_RELOAD = const(0x0C)
TIMER1_CONFIG = const(0x0F)
RX_STATUS = const(0x13)
TX_CONFIG = const(0x18)
# IRQ_STATUS bits [REG]
IRQ_RX = const(0x000001)
IRQ_IDLE = const(0x000004)
IRQ_TX_RFOFF = const(0x000100)
IRQ_TX_RFON = const(0x000200)
IRQ_TIMER1 = const(0x001000)
IRQ_GENERAL_ERROR = const(0x020000)
IRQ_ALL = const(0x0FFFFF)
# RX_STATUS bits [REG]
RX_LEN_MASK = const(0x1FF)
RX_INTEGRITY_ERROR = const(0x010000)
RX_PROTOCOL_ERROR = const(0x020000)
RX_COLLISION = const(0x040000)
# TIMER1: enabled, prescaler 848 kHz (1.18 us a tick), started when a request has gone
# out, stopped when an answer starts [REG]
TIMER1_RX_TIMEOUT = const(0x0010081D)
TIMER1_TICK_NS = 1180
# ISO 15693 RF configuration: ASK100, 26.48 kbit/s both ways [DS LOAD_RF_CONFIG]
RF_TX_15693 = const(0x0D)
RF_RX_15693 = const(0x8D)
# EEPROM addresses [DS]
EE_PRODUCT_VERSION = const(0x10)
EE_FIRMWARE_VERSION = const(0x12)
# ISO/IEC 15693-3 [ISO]
FLAGS_INVENTORY_16 = const(0x06)  # inventory, high data rate, 16 slots
FLAGS_INVENTORY_1 = const(0x26)  # the same in one slot
FLAGS_ADDRESSED = const(0x22)  # addressed, high data rate
FLAG_OPTION = const(0x40)
INVENTORY = const(0x01)
READ_SINGLE_BLOCK = const(0x20)
WRITE_SINGLE_BLOCK = const(0x21)
LOCK_BLOCK = const(0x22)
UID_LEN = const(8)
BLOCK_LEN = const(4)  # ICODE SLIX2: 4-byte blocks
# Time bounds
SLOT_TIMEOUT_US = const(500)  # t1 (323.3 us at most) and the answer's start, with margin
WRITE_TIMEOUT_US = const(20000)  # a write or lock answers within 20 ms [ISO]
_GRACE_US = const(8000)  # past TIMER1: an answer lasts < 6 ms; no IRQ by then: dead chip
_BUSY_US = const(10000)  # BUSY stuck past this: the chip is dead (or absent)
_BOOT_US = const(10000)  # after RESET_N: IDLE_IRQ by then, or the chip is not there
_RF_US = const(5000)  # RF_ON/RF_OFF: TX_RFON/TX_RFOFF IRQ by then
_POLL_US = const(50)  # between IRQ_STATUS polls: a slot is 0.4-4.4 ms of air time
# TX_CONFIG AND mask: TX_DATA_ENABLE and TX_START_SYMBOL cleared, the next SEND_DATA
# sends only the EOF that moves the tags to the next slot [AN]
_EOF_ONLY = b"\x3f\xfb\xff\xff"
_IDLE_MASK = b"\xf8\xff\xff\xff"  # SYSTEM_CONFIG COMMAND := 0 (Idle)
_TRANSCEIVE = b"\x03\x00\x00\x00"  # SYSTEM_CONFIG COMMAND |= 3 (Transceive)
_STACK = const(40)  # inventory masks waiting (a collision pushes one, a cut round <= 15)
ONE_SLOT = const(0x80)  # a stack entry's length byte: a one-slot round
# outcomes of one exchange
OK = const(0)
NOTAG = const(1)
ERR = const(2)
COLL = const(3)
# identity blocks written at deck enrolment (tablesense deck; cards.py)
CARD_BLOCK = const(0)  # "TS" + the card's two characters
DECK_BLOCK = const(1)  # the deck id, u16 LE, then two zero bytes


def _views(buf):
    """[memoryview of buf[:n] for n = 0 .. len(buf)], made once."""
    mv = memoryview(buf)
    return [mv[:n] for n in range(len(buf) + 1)]


class Walk:
    """An inventory in progress on one antenna: the masks still to inventory (a stack of
    entries: length in bits with ONE_SLOT for a one-slot round, then 8 mask bytes).
    ``many``: the last complete walk found two tags or more, so the next one starts with
    16 slots (a one-slot round would only collide). Allocated once per antenna."""

    def __init__(self):
        self.stack = bytearray(_STACK * 9)
        self.depth = 0
        self.many = False


class PN5180Error(Exception):
    """The chip does not answer as a PN5180 (wiring, power, dead module, broken port)."""


def hard_reset(rst, sleep=sleep_us):
    """RESET_N low for 10 us (the minimum [DS]), then high; ``PN5180.init`` waits for the
    chip's IDLE_IRQ."""
    rst.value(0)
    sleep(10)
    rst.value(1)


class PN5180:
    """Host interface and ISO 15693 over SPI. ``nss`` and ``busy`` are pins (``value()``)."""

    def __init__(self, spi, nss, busy, clock_us=ticks_us, sleep=sleep_us):
        self._spi = spi
        self._nss = nss
        self._busy = busy
        self.clock_us = clock_us
        self.sleep_us = sleep
        self.errors = 0  # frames lost to CRC/protocol errors since boot
        self.timeouts = 0  # exchanges no tag answered (TIMER1)
        self.ready = False
        self.complete = True  # the last inventory's walk ended (not stopped)
        self.product = 0  # PRODUCT_VERSION, major * 256 + minor
        self.firmware = 0
        # buffers, and a view of each length used (slicing a memoryview allocates)
        self._cmd = bytearray(6)  # command frames: code, address, 4 bytes
        self._cmdv = _views(self._cmd)
        self._ff = _views(bytearray(b"\xff" * 16))  # clocked out to read an answer
        self._in = bytearray(16)
        self._inv = _views(self._in)
        self._tx = bytearray(2 + 16)  # SEND_DATA: code, last bits, request (<= 16 bytes)
        self._txv = _views(self._tx)
        self._rx = bytearray(16)  # READ_DATA: the answer (<= 16 bytes used)
        self._rxv = _views(self._rx)
        self._txcfg = bytearray(4)  # TX_CONFIG as loaded by the RF configuration
        nss.value(1)

    # -- the host interface [DS 11.4] ------------------------------------------------
    def _wait_busy(self, level):
        t0 = self.clock_us()
        while self._busy.value() != level:
            if ticks_diff(self.clock_us(), t0) > _BUSY_US:
                self._nss.value(1)
                raise PN5180Error("BUSY stuck")

    def _frame(self, out, into=None):
        """One SPI frame with the BUSY handshake: NSS low, exchange, BUSY high, NSS high,
        BUSY low."""
        self._wait_busy(0)
        self._nss.value(0)
        if into is None:
            self._spi.write(out)
        else:
            self._spi.write_readinto(out, into)
        self._wait_busy(1)
        self._nss.value(1)
        self._wait_busy(0)

    def _command(self, code, a=0, b=None, n=2):
        c = self._cmd
        c[0] = code
        c[1] = a
        if b is not None:
            for i in range(4):
                c[2 + i] = b[i]
            n = 6
        self._frame(self._cmdv[n])

    def write_register(self, reg, value):
        """WRITE_REGISTER: a 32-bit value (an int below 2**30, or 4 bytes LE)."""
        c = self._cmd
        c[0] = WRITE_REGISTER
        c[1] = reg
        if isinstance(value, int):
            for i in range(4):
                c[2 + i] = (value >> (8 * i)) & 0xFF
        else:
            for i in range(4):
                c[2 + i] = value[i]
        self._frame(self._cmdv[6])

    def or_mask(self, reg, mask4):
        self._command(WRITE_REGISTER_OR_MASK, reg, mask4)

    def and_mask(self, reg, mask4):
        self._command(WRITE_REGISTER_AND_MASK, reg, mask4)

    def _answer(self, n):
        """The second frame of a command: clock ``n`` answer bytes out."""
        self._frame(self._ff[n], self._inv[n])
        return self._inv[n]

    def read_register(self, reg):
        """READ_REGISTER; bits 30-31 are dropped (none used here) so no big int is made."""
        self._command(READ_REGISTER, reg)
        b = self._answer(4)
        return b[0] | (b[1] << 8) | (b[2] << 16) | ((b[3] & 0x3F) << 24)

    def read_register_bytes(self, reg, into):
        self._command(READ_REGISTER, reg)
        b = self._answer(4)
        for i in range(4):
            into[i] = b[i]

    def read_eeprom(self, addr, n):
        c = self._cmd
        c[0] = READ_EEPROM
        c[1] = addr
        c[2] = n
        self._frame(self._cmdv[3])
        return self._answer(n)

    def load_rf_config(self, tx, rx):
        c = self._cmd
        c[0] = LOAD_RF_CONFIG
        c[1] = tx
        c[2] = rx
        self._frame(self._cmdv[3])

    def _wait_irq(self, bits, bound_us):
        t0 = self.clock_us()
        while True:
            irq = self.read_register(IRQ_STATUS)
            if irq & bits:
                return irq
            if ticks_diff(self.clock_us(), t0) > bound_us:
                raise PN5180Error("no IRQ")
            self.sleep_us(_POLL_US)

    def rf_on(self):
        """RF_ON; the chip raises TX_RFON_IRQ once its field is up."""
        self.write_register(IRQ_CLEAR, IRQ_ALL)
        self._command(RF_ON, 0)
        self._wait_irq(IRQ_TX_RFON, _RF_US)

    def rf_off(self):
        self.write_register(IRQ_CLEAR, IRQ_ALL)
        self._command(RF_OFF, 0)
        self._wait_irq(IRQ_TX_RFOFF, _RF_US)

    # -- setup ----------------------------------------------------------------------
    def init(self):
        """After the reset pulse: wait for IDLE_IRQ, read the versions, load the ISO 15693
        configuration. Raises ``PN5180Error`` when no PN5180 answers."""
        self.ready = False
        t0 = self.clock_us()
        while True:
            try:
                irq = self.read_register(IRQ_STATUS)
            except PN5180Error:
                irq = 0
            if irq & IRQ_IDLE and irq != 0x3FFFFFFF:  # MISO floating high reads all ones
                break
            if ticks_diff(self.clock_us(), t0) > _BOOT_US:
                raise PN5180Error("no IDLE_IRQ after reset")
            self.sleep_us(500)
        v = self.read_eeprom(EE_PRODUCT_VERSION, 2)
        self.product = (v[1] << 8) | v[0]
        v = self.read_eeprom(EE_FIRMWARE_VERSION, 2)
        self.firmware = (v[1] << 8) | v[0]
        if self.product in (0, 0xFFFF):
            raise PN5180Error(f"product version {self.product:#06x}")
        self.load_rf_config(RF_TX_15693, RF_RX_15693)
        self.read_register_bytes(TX_CONFIG, self._txcfg)
        self.write_register(TIMER1_CONFIG, TIMER1_RX_TIMEOUT)
        self._timeout(SLOT_TIMEOUT_US)
        self.write_register(IRQ_CLEAR, IRQ_ALL)
        self.ready = True
        return self.product

    def version(self):
        """FIRMWARE_VERSION's major byte (0 or 0xFF: the chip stopped answering)."""
        return self.read_eeprom(EE_FIRMWARE_VERSION, 2)[1]

    def _timeout(self, us):
        self.write_register(TIMER1_RELOAD, us * 1000 // TIMER1_TICK_NS)

    # -- one ISO 15693 exchange [AN] ------------------------------------------------------
    def _send(self, n, eof_only=False):
        """SEND_DATA of ``self._tx[2:2 + n]`` (or an EOF alone), Transceive armed first."""
        self.write_register(IRQ_CLEAR, IRQ_ALL)
        self.and_mask(SYSTEM_CONFIG, _IDLE_MASK)
        self.or_mask(SYSTEM_CONFIG, _TRANSCEIVE)
        if eof_only:
            self.and_mask(TX_CONFIG, _EOF_ONLY)
        else:
            self.write_register(TX_CONFIG, self._txcfg)
        t = self._tx
        t[0] = SEND_DATA
        t[1] = 0  # every bit of the last byte
        self._frame(self._txv[2 + n])

    def _receive(self, bound_us):
        """Wait for the answer (RX_IRQ) or TIMER1; (outcome, bytes received)."""
        irq = self._wait_irq(IRQ_RX | IRQ_TIMER1 | IRQ_GENERAL_ERROR, bound_us + _GRACE_US)
        if not irq & IRQ_RX:
            if irq & IRQ_GENERAL_ERROR:
                self.errors += 1
                return ERR, 0
            self.timeouts += 1
            return NOTAG, 0
        st = self.read_register(RX_STATUS)
        n = st & RX_LEN_MASK
        if st & RX_COLLISION:
            return COLL, n
        if st & (RX_INTEGRITY_ERROR | RX_PROTOCOL_ERROR):
            return COLL, n  # two tags' answers garbled in one slot look like this
        if n > len(self._rx):
            self.errors += 1
            return ERR, 0
        if n:
            self._command(READ_DATA, 0)
            self._frame(self._ff[n], self._rxv[n])
        return OK, n

    def transceive(self, n, timeout_us=SLOT_TIMEOUT_US):
        """One addressed request of ``n`` bytes in ``self._tx[2:]``; (outcome, length)."""
        if timeout_us != SLOT_TIMEOUT_US:
            self._timeout(timeout_us)
        try:
            self._send(n)
            return self._receive(timeout_us)
        finally:
            if timeout_us != SLOT_TIMEOUT_US:
                self._timeout(SLOT_TIMEOUT_US)

    # -- inventory with 16-slot anticollision [ISO, AN] ----------------------------------
    def inventory(self, found, max_tags=20, stop=None, walk=None):
        """Tags in the field, by INVENTORY rounds of 16 slots: a slot where answers collide
        becomes a mask 4 bits longer, inventoried in a later round, so a stack of tags is
        all read. Appends new UIDs (8 bytes, most significant first: E0 04 ..) to
        ``found``. The field must be on and settled.

        ``stop()`` True ends it before the next request (the time given to this antenna
        is over). A ``Walk`` keeps the masks not yet inventoried across calls (and field
        switches: a mask selects by UID, whatever the tags' state), so the next call
        with the same walk goes on where this one stopped; without one the walk starts
        afresh and what is left is lost. Returns ``found``; ``complete`` then says
        whether the walk ended: every tag in the field answered since it began (absence
        is known only then)."""
        if walk is None:
            walk = Walk()
        st = walk.stack
        if not walk.depth:  # a new walk: an antenna with few tags is done in one exchange
            st[0] = 0 if walk.many else ONE_SLOT
            walk.depth = 1
        t = self._tx
        while walk.depth and len(found) < max_tags:
            if stop is not None and stop():
                self.complete = False  # the masks left are inventoried at the next call
                return found
            walk.depth -= 1
            base = walk.depth * 9
            one = st[base] & ONE_SLOT
            mlen = st[base] & 0x7F
            nb = (mlen + 7) >> 3
            t[2] = FLAGS_INVENTORY_1 if one else FLAGS_INVENTORY_16
            t[3] = INVENTORY
            t[4] = mlen
            for i in range(nb):
                t[5 + i] = st[base + 1 + i]
            self._send(3 + nb)
            for slot in range(1 if one else 16):
                if slot:
                    if stop is not None and stop():
                        self._rest(walk, mlen, slot)  # the slots not reached: next time
                        self.write_register(TX_CONFIG, self._txcfg)
                        self.complete = False
                        return found
                    self._send(0, True)  # EOF: the tags move to the next slot
                outcome, n = self._receive(SLOT_TIMEOUT_US)
                if outcome == COLL:
                    if mlen + 4 > 64 or walk.depth >= _STACK:
                        self.errors += 1  # identical UIDs, or a stack too deep: give up
                        continue
                    self._push(walk, mlen, -1 if one else slot)
                elif outcome == OK and n == 2 + UID_LEN and not self._rx[0] & 1:
                    u = bytearray(UID_LEN)
                    for i in range(UID_LEN):
                        u[i] = self._rx[2 + UID_LEN - 1 - i]  # sent LSB first
                    uid = bytes(u)
                    if uid not in found:
                        found.append(uid)
                elif outcome == OK:
                    self.errors += 1
            self.write_register(TX_CONFIG, self._txcfg)
        self.complete = not walk.depth
        return found

    def _rest(self, walk, mlen, slot):
        """A 16-slot round stopped before ``slot``: the slots it did not reach become
        one-slot rounds of masks 4 bits longer (the round again, in 16 slots, if the
        stack has no room for them all or the mask is full)."""
        if mlen + 4 > 64 or walk.depth + 16 - slot > _STACK:
            if walk.depth < _STACK:
                self._push(walk, mlen, -1)
            return
        for s in range(15, slot - 1, -1):
            self._push(walk, mlen, s, True)

    def _push(self, walk, mlen, slot, one=False):
        """A stack entry on top of ``walk``: the mask of the round just sent
        (``self._tx[5:]``, mlen bits) followed by the 4 bits of ``slot`` (-1: the same
        mask, in 16 slots); ``one``: inventoried in one slot."""
        st = walk.stack
        base = walk.depth * 9
        walk.depth += 1
        nb = (mlen + 7) >> 3
        for i in range(8):
            st[base + 1 + i] = self._tx[5 + i] if i < nb else 0
        if slot < 0:
            st[base] = mlen
            return
        i = base + 1 + (mlen >> 3)
        if mlen & 7:  # mlen is a multiple of 4: the slot fills the byte's high nibble
            st[i] = (st[i] & 0x0F) | (slot << 4)
        else:
            st[i] = slot
        st[base] = (mlen + 4) | (ONE_SLOT if one else 0)

    # -- addressed commands ------------------------------------------------------------
    def _addressed(self, flags, cmd, uid, block):
        t = self._tx
        t[2] = flags
        t[3] = cmd
        for i in range(UID_LEN):
            t[4 + i] = uid[UID_LEN - 1 - i]  # least significant byte first
        t[12] = block
        return 11

    def read_block(self, uid, block, into):
        """READ SINGLE BLOCK with its security status: the block's 4 bytes into ``into``;
        returns 1 if locked, 0 if not, -1 if the tag did not answer correctly."""
        n = self._addressed(FLAGS_ADDRESSED | FLAG_OPTION, READ_SINGLE_BLOCK, uid, block)
        outcome, m = self.transceive(n)
        r = self._rx
        if outcome != OK or m != 2 + BLOCK_LEN or r[0] & 1:
            if outcome != NOTAG:
                self.errors += 1
            return -1
        for i in range(BLOCK_LEN):
            into[i] = r[2 + i]
        return r[1] & 1

    def write_block(self, uid, block, data):
        """WRITE SINGLE BLOCK; True when the tag answered without an error flag."""
        n = self._addressed(FLAGS_ADDRESSED, WRITE_SINGLE_BLOCK, uid, block)
        for i in range(BLOCK_LEN):
            self._tx[2 + n + i] = data[i]
        outcome, m = self.transceive(n + BLOCK_LEN, WRITE_TIMEOUT_US)
        return outcome == OK and m >= 1 and not self._rx[0] & 1

    def lock_block(self, uid, block):
        """LOCK BLOCK: the block can never be written again."""
        n = self._addressed(FLAGS_ADDRESSED, LOCK_BLOCK, uid, block)
        outcome, m = self.transceive(n, WRITE_TIMEOUT_US)
        return outcome == OK and m >= 1 and not self._rx[0] & 1


class Mux:
    """The RF multiplexer's select lines (hardware/README.md, section 10: GP10, GP11)."""

    def __init__(self, pins):
        self.pins = pins
        self.channel = -1

    def select(self, channel):
        for i in range(len(self.pins)):
            self.pins[i].value((channel >> i) & 1)
        self.channel = channel


class PN5180Port:
    """One antenna of a PN5180 behind the multiplexer: what the zone scanner drives.

    The chip is shared by the seat's antennas; only the selected one can carry the field,
    so two of a seat's fields are never on at once."""

    resumable = True  # an inventory stopped goes on at the next field-on (Walk)
    probe = False  # no cross-talk probe: the PN5180 driver has no receiver-gain switch yet
    # the air time the scanner plans its time slot with (hardware/README.md, section 6): a
    # tag in its slot (t1 0.32 ms, its 12-byte answer 3.93 ms, t2 0.31 ms, register polls)
    # and an empty antenna's one-slot INVENTORY (request 1.62 ms, TIMER1 0.5 ms)
    tag_ms = 6
    empty_ms = 3

    def __init__(self, chip, mux, channel):
        self.chip = chip
        self.mux = mux
        self.channel = channel
        self.clone = False
        self._found: list = []  # preallocated list reused by every inventory
        self._unread: list = []  # UIDs found without time left to read their block
        self._walk = Walk()  # this antenna's inventory in progress
        self._walked = 0  # tags found since its walk began
        self.complete = True  # the last inventory ended its walk
        self._blk = bytearray(BLOCK_LEN)

    @property
    def errors(self):
        return self.chip.errors

    def init(self):
        if not self.chip.ready:
            self.chip.init()
        return self.chip.product

    def version(self):
        return self.chip.version()

    def field(self, on):
        """Field on this antenna (the multiplexer switched while the field is off)."""
        if on:
            self.mux.select(self.channel)
            self.chip.rf_on()
        else:
            self.chip.rf_off()

    def inventory(self, want_pages=None, block=CARD_BLOCK, max_tags=20, stop=None):
        """[(uid, 4 bytes of ``block`` or None)] for the tags on the antenna this call
        reached: the block is read for a UID ``want_pages(uid)`` asks for (one the card
        map does not know). ``complete`` says afterwards whether the antenna's walk ended
        (every tag on it answered since the walk began); when ``stop()`` cut it short the
        next call goes on with the masks left (``Walk``).

        A UID found when there was no time left for its READ is read first at the next
        field-on, before the inventory (an answered READ is a tag present): an antenna
        full of new tags is learned over a few field-ons."""
        out: list = []
        if self._unread:
            for uid in self._unread:
                if want_pages is not None and want_pages(uid) and \
                        (stop is None or not stop()) and \
                        self.chip.read_block(uid, block, self._blk) >= 0:
                    out.append((uid, bytes(self._blk)))
            del self._unread[:]
        found = self._found
        del found[:]
        w = self._walk
        if not w.depth:
            self._walked = 0
        self.chip.inventory(found, max_tags, stop, w)
        self.complete = self.chip.complete
        self._walked += len(found)
        if self.complete:
            w.many = self._walked >= 2
        for uid in found:
            if any(u == uid for u, _ in out):
                continue
            data = None
            if want_pages is not None and want_pages(uid):
                if stop is not None and stop():
                    self._unread.append(uid)  # no time left: read at the next field-on
                elif self.chip.read_block(uid, block, self._blk) >= 0:
                    data = bytes(self._blk)
            out.append((uid, data))
        return out

    def identities(self):
        """Enrolment: [(uid, (card, deck, locked))] of the tags on the antenna."""
        from cards import decode_pages

        out = []
        found = self._found
        del found[:]
        self.chip.inventory(found)
        for uid in found:
            lock0 = self.chip.read_block(uid, CARD_BLOCK, self._blk)
            if lock0 < 0:
                continue
            card = decode_pages(self._blk)
            lock1 = self.chip.read_block(uid, DECK_BLOCK, self._blk)
            if lock1 < 0:
                continue
            deck = self._blk[0] | (self._blk[1] << 8)
            out.append((uid, (card, None if card is None or deck == 0xFFFF else deck,
                              bool(lock0 and lock1))))
        return out

    def write_identity(self, uid, card, deck):
        """Write ``card`` (block 0: "TS" + card) and ``deck`` (block 1) into tag ``uid``
        and lock both blocks; True when every write and lock was acknowledged."""
        from cards import encode_pages

        c = self.chip
        return c.write_block(uid, CARD_BLOCK, encode_pages(card)) \
            and c.write_block(uid, DECK_BLOCK, bytes((deck & 0xFF, deck >> 8, 0, 0))) \
            and c.lock_block(uid, CARD_BLOCK) and c.lock_block(uid, DECK_BLOCK)
