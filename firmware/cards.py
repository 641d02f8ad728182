"""Card identity: tag UID -> card code.

Two sources, both cheap at scan time: a deck file provisioned per deck
(``04A1B2C3D4E5F6 SA`` a line, ``#`` comments; ``,`` also separates), and the
code written into the tag itself: user memory page 4 holds ``b"TS"`` and the
two-character card code (NTAG READ, 16 bytes from page 4). A UID learned from
tag memory is cached, so each tag is READ once while it is remembered: at most
``MAX_LEARNED`` UIDs, the oldest forgotten first (a session of many decks
would otherwise fill the RAM; a forgotten tag is just READ again).
"""

MAX_LEARNED = 128

SUITS = "SHDC"
RANKS = "AKQJT98765432"
MAGIC = b"TS"


def card_ok(c):
    return len(c) == 2 and c[0] in SUITS and c[1] in RANKS


def decode_pages(pages):
    """The card code in 16 bytes read from page 4, or None.

    >>> decode_pages(b"TSHT" + bytes(12))
    'HT'
    """
    if pages is None or len(pages) < 4 or pages[0:2] != MAGIC:
        return None
    try:
        c = bytes(pages[2:4]).decode()
    except (UnicodeError, ValueError):
        return None
    return c if card_ok(c) else None


def encode_pages(card):
    """Page 4 contents that provision a tag for ``card`` (4 bytes)."""
    return MAGIC + card.encode()


def tag_state(raw):
    """(card or None, deck or None, locked) from 16 bytes READ at page 2 (pages 2-5).

    Page 2 bytes 2-3 are the static lock bytes (L4, L5: bits 4, 5 of byte 2);
    page 4 holds "TS" + the card, page 5 the deck id (u16 LE; 0xFFFF none).
    """
    card = decode_pages(raw[8:12])
    deck = raw[12] | (raw[13] << 8)
    return card, (None if card is None or deck == 0xFFFF else deck), raw[2] & 0x30 == 0x30


class CardMap:
    def __init__(self, uids=None, learn=True, max_learned=MAX_LEARNED):
        self._m = dict(uids) if uids else {}
        self.learn_from_tags = learn
        self.unknown = 0  # tags seen that map to no card
        self._learned = [None] * max(1, max_learned)  # ring of UIDs learned from tags
        self._li = 0

    def load_lines(self, lines):
        """Read a deck file's lines; raises ValueError naming the bad line."""
        n = 0
        for raw in lines:
            n += 1
            line = raw.split("#")[0].replace(",", " ").strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2:
                raise ValueError(f"deck line {n}: want UID CARD")
            uid_hex, card = parts[0], parts[1].upper()
            if card[1:] == "10":
                card = card[0] + "T"
            if not card_ok(card) or len(uid_hex) not in (8, 14, 16):
                raise ValueError(f"deck line {n}: bad UID or card")
            self._m[bytes(int(uid_hex[i : i + 2], 16) for i in range(0, len(uid_hex), 2))] = card
        return self

    def load(self, path):
        with open(path) as f:
            return self.load_lines(f)

    def __len__(self):
        return len(self._m)

    def wants_pages(self, uid):
        """True when the UID is unknown and may be learned by reading the tag."""
        return self.learn_from_tags and uid not in self._m

    def card(self, uid, pages=None):
        c = self._m.get(uid)
        if c is None:
            c = decode_pages(pages)
            if c is None:
                self.unknown += 1
                return None
            old = self._learned[self._li]
            if old is not None:
                self._m.pop(old, None)
            self._learned[self._li] = uid
            self._li = (self._li + 1) % len(self._learned)
            self._m[uid] = c
        return c
