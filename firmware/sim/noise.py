"""Poll-level noise under the unmodified firmware: what real antennas and cameras do.

The host's noise profile (``tablesense.noise.Profile.poll_level()``, as JSON
from the launcher; see that module for what each rate means at this level)
and a seed drive it. The world asks it, once per poll of the sensors:

- which own cards do not answer (``missed_read``; ``sort_dropout``: a hand
  card out of the antenna's reach for a while after its seat played a card);
- on which antenna a card resting on a zone boundary answers this time
  (``flicker``: after a move, the new zone's or the one next to it on the
  side it came from, at random; hand, table and trick lie in that order);
- which cards of the neighbouring seats (left and right) lying in their
  ``table`` or ``trick`` zone also answer on this seat's antenna of that
  zone (``crosstalk``), with what signal;
- for a camera, which card is recognised as another one, at a low ``conf``
  (``misread``).

Signal strength: the MFRC522 has no RSSI register. The sim gives each tag
in a field a signal in dB, and the chip decodes a tag's answer when signal +
receiver gain (RFCfgReg RxGain, 18..48 dB) >= ``RX_THRESHOLD``. A card lying
on its antenna answers at any gain; a cross-talking card over the
neighbour's antenna answers at the reset gain (33 dB) the scan runs at, but
not at the 23 dB the firmware probes with (zones.py); a "strong" cross-talk
(a card right across the boundary) does. These numbers are the model's
assumptions, to be calibrated on a real table top.

Delivery: ``NoisyOut`` wraps the reader's output stream: each frame is held
0..``jitter_ms`` (in order), and with probability ``reorder`` one byte is
corrupted on the wire, so the host's CRC drops it, sees the gap and asks
for a RESEND (the frame then arrives after newer frames of other readers).
A resent frame (byte for byte one written before) is not corrupted again:
line noise comes in rare bursts. (Were it lost too, the host's Sequencer
would take the next resent frame for the start of the reader's buffer and
give up the ones before it.)

Everything is drawn from one seeded RNG, per poll: a run repeats exactly
only as far as the VM's scans fall at the same times.
"""

import random

SEATS = "NESW"
SIGNAL_ON = 30  # dB: a card lying on its antenna
SIGNAL_EDGE = 27  # a card resting on the boundary of two of the seat's antennas
SIGNAL_XTALK = 20  # a card over the neighbouring seat's antenna
SIGNAL_XTALK_STRONG = 28  # ... lying right across the boundary
RX_THRESHOLD = 48
NEAR_ZONES = ("table", "trick")  # antennas that lie near a neighbouring seat's
CARDS = [s + r for s in "SHDC" for r in "AKQJT98765432"]
HAND_ZONES = ("hand", "detached")


# Zones along the path from the hand to the middle: a card can rest on the boundary of
# two neighbouring ones (the floor is the level sensor's business, not an antenna's).
PATH = {"hand": 0, "detached": 0, "table": 1, "trick": 2}
ON_PATH = ("hand", "table", "trick")
LEVEL_AT = {"hand": "above", "detached": "above", "table": "at", "trick": "at"}


def boundary(old, new):
    """The event a card moving from ``old`` to ``new`` shows when it rests on the boundary of
    its new zone, on the side it came from (None: no boundary to rest on)."""
    oz = old.get("zone") if old else None
    nz = new.get("zone") if new else None
    if oz not in PATH or nz not in PATH or oz == nz:
        return None
    a, b = PATH[oz], PATH[nz]
    z = oz if a == b else ON_PATH[b - 1 if a < b else b + 1]
    e = dict(new)
    e["zone"] = z
    e["level"] = LEVEL_AT[z]
    return e


def neighbours(seat):
    """The seats whose table and trick antennas lie next to ``seat``'s (left, right)."""
    i = SEATS.index(seat)
    return SEATS[(i + 1) % 4], SEATS[(i + 3) % 4]


class Noise:
    def __init__(self, cfg, seed=1):
        g = cfg.get
        self.missed = g("missed_read", 0) or 0
        self.xtalk = g("crosstalk", 0) or 0
        self.xtalk_ms = g("crosstalk_ms", 0) or 0
        self.xtalk_strong = g("crosstalk_strong", 0) or 0
        self.flicker = g("flicker", 0) or 0
        self.flicker_ms = g("flicker_ms", 0) or 0
        self.dropout = g("sort_dropout", 0) or 0
        self.dropout_ms = g("sort_dropout_ms", 0) or 0
        self.misread = g("misread", 0) or 0
        self.misread_conf = g("misread_conf", 0.4)
        self.misread_spread = g("misread_conf_spread", 0) or 0
        self.jitter_ms = g("jitter_ms", 0) or 0
        self.reorder = g("reorder", 0) or 0
        self.poll_ms = g("poll_ms", 50) or 50
        if hasattr(random, "Random"):  # CPython: a private generator
            self.rng = random.Random(seed)
        else:  # MicroPython: the module's one generator (one reader per VM)
            random.seed(seed)
            self.rng = random
        self.flick = {}  # card -> [event on the boundary, until ms, polls left]
        self.drop = {}  # card -> (from ms, until ms)
        self.xt = {}  # card -> [until ms, signal, polls left] (neighbours' cards)
        self._last = None  # ms of the previous poll
        self.counts = {"missed": 0, "flicker": 0, "dropout": 0, "crosstalk": 0,
                       "misread": 0, "lost": 0}

    def active(self):
        return (self.missed or self.xtalk or self.flicker or self.dropout or self.misread
                or self.jitter_ms or self.reorder)

    def chance(self, p):
        return p > 0 and self.rng.random() < p

    def _uniform(self, a, b):
        return a + (b - a) * self.rng.random()

    # -- the truth changes --------------------------------------------------------
    def moved(self, card, old, new, now, cards):
        """An own card moved from event ``old`` to ``new`` (either None: not sensed)."""
        self.flick.pop(card, None)
        nz = new.get("zone") if new else None
        edge = boundary(old, new)
        if edge is not None and self.chance(self.flicker):
            self.flick[card] = [edge, now + self.flicker_ms, 1]
            self.counts["flicker"] += 1
        if nz == "trick" and self.dropout > 0:
            for c in cards:
                if c != card and cards[c].get("zone") in HAND_ZONES and self.chance(self.dropout):
                    start = now + int(self._uniform(0, 200))
                    self.drop[c] = (start, start + int(self.dropout_ms * self._uniform(0.5, 1.5)))
                    self.counts["dropout"] += 1

    # -- one poll -----------------------------------------------------------------
    def sensed(self, card, e, now):
        """The event ``card`` answers as this poll (``e`` or the one it flickers from),
        with its signal; None when it does not answer."""
        d = self.drop.get(card)
        if d is not None:
            if now >= d[1]:
                del self.drop[card]
            elif now >= d[0]:
                return None, 0
        sig = SIGNAL_ON
        f = self.flick.get(card)
        if f is not None:
            if now >= f[1] and f[2] <= 0:
                del self.flick[card]
            else:
                f[2] -= 1
                sig = SIGNAL_EDGE
                if self.rng.random() < 0.5:
                    e = f[0]
        if self.chance(self.missed):
            self.counts["missed"] += 1
            return None, 0
        return e, sig

    def crosstalk(self, now, others):
        """[(card, event at the neighbour, signal)] answering here this poll.

        ``others`` maps each neighbouring seat's card to its event (table/trick only).
        """
        dt = self.poll_ms if self._last is None else max(1, now - self._last)
        self._last = now
        out = []
        if self.xtalk <= 0:
            return out
        start = min(1.0, self.xtalk * dt / self.poll_ms)
        for card in list(self.xt):
            if card not in others:
                del self.xt[card]
        for card, e in others.items():
            x = self.xt.get(card)
            if x is not None and now >= x[0] and x[2] <= 0:
                del self.xt[card]
                x = None
            if x is None:
                if not self.chance(start):
                    continue
                strong = self.chance(self.xtalk_strong)
                x = self.xt[card] = [now + self.xtalk_ms,
                                     SIGNAL_XTALK_STRONG if strong else SIGNAL_XTALK, 1]
                self.counts["crosstalk"] += 1
            x[2] -= 1
            if not self.chance(self.missed):
                out.append((card, e, x[1]))
        return out

    def misread_as(self, card):
        """Another card and a low conf when ``card`` is misrecognised this poll, else None."""
        if not self.chance(self.misread):
            return None
        self.counts["misread"] += 1
        other = card
        while other == card:
            other = CARDS[int(self.rng.random() * 52) % 52]
        return other, self.low_conf()

    def low_conf(self):
        c = self._uniform(self.misread_conf - self.misread_spread,
                          self.misread_conf + self.misread_spread)
        return min(0.99, max(0.01, c))


class NoisyOut:
    """The reader's output stream through a noisy wire: late frames, lost frames.

    ``write`` takes one whole frame (the reader writes a frame at a time).
    ``pump`` (an asyncio task) writes each held frame when it is due.
    """

    def __init__(self, out, noise, clock):
        self.out = out
        self.noise = noise
        self.clock = clock
        self.q = []  # [(due ms, bytes)], due never decreasing
        self._last_due = 0
        self._recent = []  # the last frames written: a resend of one goes through

    def write(self, data):
        n = self.noise
        data = bytes(data)
        again = data in self._recent
        if not again:
            self._recent.append(data)
            if len(self._recent) > 80:
                self._recent.pop(0)
        if not again and n.chance(n.reorder) and len(data) > 4:
            b = bytearray(data)
            i = len(b) // 2
            b[i] = b[i] ^ 0x01 if b[i] != 0x01 else 0x02  # never a 0x00: the frame stays one
            data = bytes(b)
            n.counts["lost"] += 1
        if n.jitter_ms <= 0:
            self._emit(data)
            return len(data)
        due = self.clock() + int(n.rng.random() * (n.jitter_ms + 1))
        if due < self._last_due:
            due = self._last_due
        self._last_due = due
        self.q.append((due, data))
        return len(data)

    def flush(self):
        pass

    def _emit(self, data):
        self.out.write(data)
        f = getattr(self.out, "flush", None)
        if f is not None:
            f()

    def due(self, now):
        """Write the frames due by ``now``; ms until the next one (or None)."""
        while self.q and self.q[0][0] <= now:
            self._emit(self.q.pop(0)[1])
        return self.q[0][0] - now if self.q else None
