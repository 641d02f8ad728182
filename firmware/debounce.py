"""Debouncing: a card's new state is reported only once it has held long enough.

A state is ``(zone, face, level, seen_by)``; ``conf`` jitter alone never makes
a change. A new state commits once it was seen in ``min_scans`` consecutive
scans spanning at least ``ms``. Leaving (``gone``) needs more evidence than
arriving, ``gone_scans`` misses over ``gone_ms``: an RFID read missed once
(a tag at the edge of the field, a collision) must not report the card gone
and back. That asymmetry is the hysteresis.
"""

from cards import card_order
from ticks import ticks_diff

GONE = ("gone", "unknown", "unknown", None)


class Debouncer:
    def __init__(self, ms=60, min_scans=2, gone_scans=3, gone_ms=None):
        self.configure(ms, min_scans, gone_scans, gone_ms)
        self.state = {}  # card -> committed state (absent = gone)
        self._pend = {}  # card -> [state, scans, first_ms]

    def configure(self, ms, min_scans=2, gone_scans=3, gone_ms=None):
        self.ms = ms
        self.min_scans = min_scans
        self.gone_scans = max(gone_scans, min_scans)
        self.gone_ms = 2 * ms if gone_ms is None else gone_ms

    def update(self, now, seen, held=()):
        """Feed one scan; returns the committed changes as [(card, obs)] in deck order.

        ``seen`` maps card -> (zone, face, level, seen_by, conf); cards whose
        committed zone is in ``held`` (a faulty sensor) keep their state.
        """
        changes = []
        cards = list(seen)
        for c in self.state:
            if c not in seen:
                cards.append(c)
        for c in self._pend:
            if c not in seen and c not in self.state:
                cards.append(c)
        for c in cards:
            obs = seen.get(c)
            new = GONE if obs is None else obs[:4]
            cur = self.state.get(c, GONE)
            if obs is None and cur[0] in held:
                self._pend.pop(c, None)
                continue
            if new == cur:
                self._pend.pop(c, None)
                continue
            p = self._pend.get(c)
            if p is None or p[0] != new:
                p = [new, 0, now]
                self._pend[c] = p
            p[1] += 1
            gone = new is GONE
            if p[1] >= (self.gone_scans if gone else self.min_scans) and ticks_diff(
                now, p[2]
            ) >= (self.gone_ms if gone else self.ms):
                del self._pend[c]
                if gone:
                    del self.state[c]
                else:
                    self.state[c] = new
                changes.append((c, obs))
        changes.sort(key=lambda ch: card_order(ch[0]))
        return changes
