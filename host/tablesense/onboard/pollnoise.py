"""Noise at the poll level: what real antennas and cameras do under a reader's filters.

One model for both simulated readers: the firmware's simulated hardware in
the MicroPython VM (``firmware/sim/``, which imports it from the reader's work
directory, where ``tablesense.firmware.build`` places the onboard modules) and
the Python camera reader of the demo (``tablesense.demo.pysim``).
So it keeps to what MicroPython runs (no typing at run time, no
``__future__``) and imports nothing of the project's. The rates come from a
noise profile (``tablesense.sim.noise.Profile.poll_level()``, which says what
each means) and everything is drawn from one seeded generator, per poll.
Asked once per poll of the sensors, :class:`Noise` says:

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

Signal strength: the MFRC522 has no RSSI register. The sim gives each tag in
a field a signal in dB, and the chip decodes a tag's answer when signal +
receiver gain (RFCfgReg RxGain, 18..48 dB) >= ``RX_THRESHOLD``. A card lying
on its antenna answers at any gain; a cross-talking card over the
neighbour's antenna answers at the reset gain (33 dB) the scan runs at, but
not at the 23 dB the firmware probes with (zones.py); a "strong" cross-talk
(a card right across the boundary) does. These numbers are the model's
assumptions, to be calibrated on a real table top.

>>> boundary({"zone": "hand"}, {"zone": "trick", "face": "up", "level": "at"})["zone"]
'table'
>>> neighbours("N")
('E', 'W')
"""

import random

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Event = dict[str, Any]

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


def boundary(old: "Event | None", new: "Event | None") -> "Event | None":
    """The event a card moving from ``old`` to ``new`` shows when it rests on the boundary of
    its new zone, on the side it came from (None: no boundary to rest on)."""
    oz = old.get("zone") if old else None
    nz = new.get("zone") if new else None
    if new is None or oz not in PATH or nz not in PATH or oz == nz:
        return None
    a, b = PATH[str(oz)], PATH[str(nz)]
    z = str(oz) if a == b else ON_PATH[b - 1 if a < b else b + 1]
    e = dict(new)
    e["zone"] = z
    e["level"] = LEVEL_AT[z]
    return e


def neighbours(seat: str) -> "tuple[str, str]":
    """The seats whose table and trick antennas lie next to ``seat``'s (left, right)."""
    i = SEATS.index(seat)
    return SEATS[(i + 1) % 4], SEATS[(i + 3) % 4]


def _generator(seed: int) -> "Any":
    if hasattr(random, "Random"):  # CPython: a private generator
        return random.Random(seed)
    random.seed(seed)  # MicroPython: the module's one generator (one reader per VM)
    return random


class Noise:
    """The poll-level rates of ``cfg`` (a profile's ``poll_level()``), drawn from ``seed``."""

    def __init__(self, cfg: "dict[str, Any]", seed: int = 1) -> None:
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
        self.rng = _generator(seed)
        self.flick: dict[str, list[Any]] = {}  # card -> [event on the boundary, until, polls]
        self.drop: dict[str, tuple[int, int]] = {}  # card -> (from ms, until ms)
        self.xt: dict[str, list[Any]] = {}  # neighbour's card -> [until ms, signal, polls]
        self._last: int | None = None  # ms of the previous poll
        self.counts = {"missed": 0, "flicker": 0, "dropout": 0, "crosstalk": 0,
                       "misread": 0, "lost": 0}

    def active(self) -> bool:
        return bool(self.missed or self.xtalk or self.flicker or self.dropout or self.misread
                    or self.jitter_ms or self.reorder)

    def chance(self, p: float) -> bool:
        return bool(p > 0 and self.rng.random() < p)

    # -- the truth changes --------------------------------------------------------
    def moved(self, card: str, old: "Event | None", new: "Event | None", now: int,
              cards: "dict[str, Event]") -> None:
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
                    start = now + int(200 * self.rng.random())
                    self.drop[c] = (start, start + int(self.dropout_ms * (0.5 + self.rng.random())))
                    self.counts["dropout"] += 1

    # -- one poll -----------------------------------------------------------------
    def sensed(self, card: str, e: "Event", now: int) -> "tuple[Event | None, int]":
        """The event ``card`` answers as this poll (``e`` or the one it flickers from),
        with its signal; (None, 0) when it does not answer."""
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

    def crosstalk(self, now: int, others: "dict[str, Event]") -> "list[tuple[str, Event, int]]":
        """[(card, event at the neighbour, signal)] answering here this poll.

        ``others`` maps each neighbouring seat's card to its event (table/trick only).
        """
        dt = self.poll_ms if self._last is None else max(1, now - self._last)
        self._last = now
        out: list[tuple[str, Event, int]] = []
        if self.xtalk <= 0:
            return out
        start = min(1.0, self.xtalk * dt / self.poll_ms)
        for card in [c for c in self.xt if c not in others]:
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

    def camera(self, cards: "dict[str, Event]", near: "dict[str, Event]",
               now: int) -> "list[tuple[str, Event, float | None]]":
        """What a camera recognises this poll: (card, event shown, conf; None = 1) for its
        own ``cards`` and, at the edge of its picture, the neighbours' ``near`` ones."""
        out: list[tuple[str, Event, float | None]] = []
        for card, e in cards.items():
            ev, _ = self.sensed(card, e, now)
            if ev is None:
                continue
            wrong = self.misread_as(card)
            if wrong is not None:
                out.append((wrong[0], ev, wrong[1]))
            else:
                out.append((card, ev, ev.get("conf")))
        for card, e, sig in self.crosstalk(now, near):
            if card not in cards:  # a neighbour's card at the edge of the picture
                out.append((card, e, None if sig > SIGNAL_ON - 5 else self.low_conf()))
        return out

    def misread_as(self, card: str) -> "tuple[str, float] | None":
        """Another card and a low conf when ``card`` is misrecognised this poll, else None."""
        if not self.chance(self.misread):
            return None
        self.counts["misread"] += 1
        return self.rng.choice([c for c in CARDS if c != card]), self.low_conf()

    def low_conf(self) -> float:
        c = self.misread_conf + self.misread_spread * (2 * self.rng.random() - 1)
        return float(min(0.99, max(0.01, c)))
