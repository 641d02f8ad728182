"""Simulated tags: NTAG213 (ISO/IEC 14443-3 type A, 7-byte UID, cascade level 2) for the bench
build, ICODE SLIX2 (ISO/IEC 15693, 8-byte UID, 16-slot inventory) for the table build."""

from mfrc522 import crc_a

IDLE = 0
READY1 = 1
READY2 = 2
ACTIVE = 3
HALT = 4


def bcc(b):
    return b[0] ^ b[1] ^ b[2] ^ b[3]


def card_uid(card):
    """A stable, distinct 7-byte NXP UID (04 ...) for a card code, as the sim deals them."""
    s = "SHDC".index(card[0])
    r = "AKQJT98765432".index(card[1])
    return bytes((0x04, 0x5A, 0x10 + s, r * 7 + 3, 0x80 | (r * 13 % 64), s * 37 + r, 0x81))


class NTAG213:
    """One tag: UID, 45 pages of 4 bytes, and the anticollision state."""

    def __init__(self, uid, card=None, deck=None):
        self.uid = bytes(uid)
        u = self.uid
        cl1 = bytes((0x88, u[0], u[1], u[2]))
        cl2 = u[3:7]
        self.cl = (cl1 + bytes((bcc(cl1),)), cl2 + bytes((bcc(cl2),)))
        self.mem = bytearray(45 * 4)
        self.mem[0:3] = u[0:3]
        self.mem[3] = 0x88 ^ u[0] ^ u[1] ^ u[2]
        self.mem[4:8] = u[3:7]
        self.mem[8] = u[3] ^ u[4] ^ u[5] ^ u[6]
        if card:
            self.mem[16:20] = b"TS" + card.encode()  # page 4: the card code
            if deck is not None:
                self.mem[20:22] = bytes((deck & 0xFF, deck >> 8))  # page 5: the deck id
        self.state = IDLE
        self.woke_halted = False

    @classmethod
    def for_card(cls, card, written, deck):
        return cls(card_uid(card), written, deck)

    def lock_identity(self):
        self.mem[10] |= 0x30  # static lock bits L4, L5

    def power_up(self):
        self.state = IDLE
        self.woke_halted = False

    def _back(self):
        self.state = HALT if self.woke_halted else IDLE

    def on_short(self, cmd):
        """REQA/WUPA: True when the tag answers ATQA."""
        if self.state == IDLE or (cmd == 0x52 and self.state == HALT):
            self.woke_halted = self.state == HALT
            self.state = READY1
            return True
        if self.state in (READY1, READY2, ACTIVE):
            self._back()
        return False

    def level(self):
        return 0 if self.state == READY1 else 1 if self.state == READY2 else -1

    def select(self, lvl, uid5):
        """SELECT at cascade level lvl: the SAK, or -1 if not this tag."""
        if self.level() != lvl:
            return -1
        if bytes(uid5) != self.cl[lvl]:
            self._back()
            return -1
        if lvl == 0:
            self.state = READY2
            return 0x04
        self.state = ACTIVE
        return 0x00

    def halt(self):
        if self.state == ACTIVE:
            self.state = HALT
            self.woke_halted = False

    def write(self, page, data):
        """NTAG WRITE: True (ACK) or False (NAK: not selected, out of range, or locked).

        Page 2 ORs its bytes 2-3 into the static lock bytes (bits only ever set);
        lock byte 0 bits 4-7 lock pages 4-7, lock byte 1 bits 0-7 pages 8-15.
        """
        if self.state != ACTIVE or not 2 <= page <= 39 or len(data) != 4:
            return False
        if page == 2:
            self.mem[10] |= data[2]
            self.mem[11] |= data[3]
            return True
        if page < 4 or self.locked(page):
            return False
        self.mem[page * 4 : page * 4 + 4] = bytes(data)
        return True

    def locked(self, page):
        if 4 <= page <= 7:
            return bool(self.mem[10] & (1 << page))
        if 8 <= page <= 15:
            return bool(self.mem[11] & (1 << (page - 8)))
        return False

    def read(self, page):
        if self.state != ACTIVE or page > 44:
            return None
        out = bytearray(16)
        for i in range(16):
            out[i] = self.mem[(page * 4 + i) % len(self.mem)]
        return bytes(out) + crc_a(out)


def card_uid15693(card):
    """A stable, distinct ISO/IEC 15693 UID for a card: E0 (ISO 15693), 04 (NXP), 01
    (ICODE SLIX family), then 5 serial bytes, as the sim deals them. The least
    significant byte (the first 8 bits an inventory's mask and slots look at) repeats
    every 16 cards in its low nibble, so a full table stack collides in the first round
    and the anticollision has to go deeper."""
    s = "SHDC".index(card[0])
    r = "AKQJT98765432".index(card[1])
    n = s * 13 + r
    return bytes((0xE0, 0x04, 0x01, 0x50 + s, r * 11 + 1, (n * 37) & 0xFF, 0x80 | r, n))


class SLIX2:
    """An ICODE SLIX2 label (ISO/IEC 15693): 64-bit UID, 79 blocks of 4 bytes (2528 bits of
    user memory, NXP's ICODE selection table), a lock bit per block (LOCK BLOCK)."""

    BLOCKS = 79

    def __init__(self, uid, card=None, deck=None):
        self.uid = bytes(uid)
        self.uid_lsb = bytes(reversed(self.uid))  # as sent on air: least significant first
        self.mem = bytearray(self.BLOCKS * 4)
        self.locked = bytearray(self.BLOCKS)
        if card:
            self.mem[0:4] = b"TS" + card.encode()  # block 0: the card code
            if deck is not None:
                self.mem[4:6] = bytes((deck & 0xFF, deck >> 8))  # block 1: the deck id
            else:
                self.mem[4:6] = b"\xff\xff"
        else:
            self.mem[4:6] = b"\xff\xff"
        self.powered = False

    @classmethod
    def for_card(cls, card, written, deck):
        return cls(card_uid15693(card), written, deck)

    def lock_identity(self):
        self.locked[0] = self.locked[1] = 1

    def power_up(self):
        self.powered = True

    def slot(self, mlen, mask):
        """INVENTORY with a mask of ``mlen`` bits (``mask``: bytes, LSB first): the slot this
        tag answers in (its UID's 4 bits after the mask), or -1 when the mask differs."""
        u = self.uid_lsb
        for i in range(mlen):
            if (u[i >> 3] >> (i & 7)) & 1 != (mask[i >> 3] >> (i & 7)) & 1:
                return -1
        return (u[mlen >> 3] >> (mlen & 7)) & 0x0F

    def read(self, block):
        """(locked, 4 bytes) or None when the block does not exist."""
        if not 0 <= block < self.BLOCKS:
            return None
        return self.locked[block], bytes(self.mem[block * 4 : block * 4 + 4])

    def write(self, block, data):
        """0, or the ISO 15693 error code: 0x10 no such block, 0x12 locked."""
        if not 0 <= block < self.BLOCKS:
            return 0x10
        if self.locked[block]:
            return 0x12
        self.mem[block * 4 : block * 4 + 4] = bytes(data)
        return 0

    def lock(self, block):
        """0, or 0x10 no such block, 0x11 already locked."""
        if not 0 <= block < self.BLOCKS:
            return 0x10
        if self.locked[block]:
            return 0x11
        self.locked[block] = 1
        return 0
