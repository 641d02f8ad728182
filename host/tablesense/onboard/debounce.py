"""Debouncing: a card's new state is reported only once it has held long enough.

One module for the reader firmware and the Python reader simulator
(``tablesense.demo.pysim``): it runs under MicroPython on the board and
under CPython in the host package, so it keeps to what both run (no typing
at run time, no ``__future__``) and imports nothing of the project's.

A state is ``(zone, face, level, seen_by)``; ``conf`` jitter alone never makes
a change. Each scan's reading of a card passes three filters:

1. **Ownership** (cross-talk). ``own`` are the cards this seat has held in
   its hand (hand, detached or floor reported) since it last held nothing
   (the previous board's cards were gathered): the deal as this reader saw
   it. Once it knows ``DEAL`` of them, a card that is not its own and not
   already reported is ignored (``suppressed["foreign"]``): a neighbour's
   card read across the boundary. A reading below ``min_conf`` (an RFID tag
   that does not answer at the probe gain, zones.py) counts only for an own
   card, at face value; otherwise it is ignored (``suppressed["weak"]``).
2. **Zone hysteresis** (flicker, missed reads). A zone becomes *live* for a
   card once read in two scans no more than ``hold_ms`` (or ``HOLD_SCANS``
   scans) apart, and stays live until it has not been read for that long.
   The card is in the live zone read last: one stray read makes no zone, a
   missed read or two change nothing, and a card that moves is where it went
   as soon as it is read there twice. A card read again in a zone it had
   left *flickers* (it rests on a zone boundary, answering on either antenna
   in turn) until ``hold_ms`` after the last such return, and a card that
   has just been reported in a new zone may still be settling for
   ``hold_ms``: meanwhile it is in
   its live zone nearest the middle of the table (``RANK``), as the scanner
   does with two antennas at once, but never back in the zone it left at its
   last reported change. So a card played across the boundary reaches the
   trick zone at once, and one quitted across it leaves the trick zone once,
   when it stops answering there. ``hold_ms`` 0 turns this off (every read is
   live at once).
3. **Debounce.** A new state commits once seen in ``min_scans`` consecutive
   scans spanning at least ``ms``; ``ms + hold_ms`` for a change of face or
   level in the same zone (a camera sees a card on a boundary with its new
   face while it is still half in its old zone) and for a return to the zone
   the card left at its last reported change (undoing a change needs more
   evidence than making it). Leaving (``gone``: no zone live) needs
   more evidence than arriving, ``gone_scans`` over ``gone_ms`` (default
   the larger of twice ``ms`` and ``GONE_MS``, longer than a hand card is out
   of reach while the hand is sorted). That asymmetry is the hysteresis.

The defaults come from measurements in the VM (BENCHMARKS.md, "Noise at
the readers"). A board overrides them with ``noise.txt`` on its flash
(``tune``): lines ``hold_ms 150``, ``gone_ms 400``, ``min_conf 0.6``; the
host's CONFIG sets ``debounce_ms`` (``ms``).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Obs = tuple[Any, ...]  # (zone, face, level, seen_by, conf)
    State = tuple[Any, ...]  # (zone, face, level, seen_by)

try:
    from time import ticks_diff  # type: ignore[attr-defined]  # MicroPython: the wrapping ms clock
except ImportError:  # CPython: plain ms

    def ticks_diff(a: int, b: int) -> int:
        return a - b


GONE = ("gone", "unknown", "unknown", None)
NO_CONF = (None,)
RANK = {"trick": 4, "table": 3, "detached": 2, "hand": 1, "floor": 1}
HAND_ZONES = ("hand", "detached", "floor")
HOLD_MS = 150
HOLD_SCANS = 2
GONE_MS = 400
MIN_CONF = 0.6
DEAL = 13
_SUITS = "SHDC"
_RANKS = "AKQJT98765432"


def deck_order(card: str) -> int:
    """SA..C2 as 0..51, the order a scan's changes are reported in (the wire's card byte).

    >>> deck_order("SA"), deck_order("HT"), deck_order("C2")
    (0, 17, 51)
    """
    return _SUITS.find(card[0]) * 13 + _RANKS.find(card[1])


def tune(text: str) -> "list[int]":
    """Apply ``noise.txt`` lines (``hold_ms 150``, ``gone_ms 400``, ``min_conf 0.6``; ``#``
    comments) to this module's defaults; return the numbers of the lines not applied."""
    global HOLD_MS, GONE_MS, MIN_CONF
    bad: list[int] = []
    for no, line in enumerate(text.split("\n"), 1):
        kv = line.split("#")[0].split()
        if not kv:
            continue
        try:
            k, text_v = kv
            v = float(text_v)
            if k == "hold_ms" and v >= 0:
                HOLD_MS = int(v)
            elif k == "gone_ms" and v >= 0:
                GONE_MS = int(v)
            elif k == "min_conf" and 0 <= v <= 1:
                MIN_CONF = v
            else:
                raise ValueError
        except ValueError:
            bad.append(no)
    return bad


class Debouncer:
    def __init__(self, ms: int = 60, min_scans: int = 2, gone_scans: int = 3,
                 gone_ms: "int | None" = None, hold_ms: "int | None" = None,
                 min_conf: "float | None" = None) -> None:
        self.min_conf = MIN_CONF if min_conf is None else min_conf
        self.configure(ms, min_scans, gone_scans, gone_ms, hold_ms)
        self.state: dict[str, State] = {}  # card -> committed state (absent = gone)
        self._pend: dict[str, list[Any]] = {}  # card -> [state, scans, first_ms]
        # card -> {zone: [obs, last ms, last scan, reads]}; key None: [zone last read,
        # flickering until, zone it left at its last report]
        self._zones: dict[str, dict[str | None, list[Any]]] = {}
        self.own: dict[str, bool] = {}  # card -> True: this seat's deal
        self.scans = 0
        self.suppressed = {"foreign": 0, "weak": 0}

    def configure(self, ms: int, min_scans: int = 2, gone_scans: int = 3,
                  gone_ms: "int | None" = None, hold_ms: "int | None" = None) -> None:
        """``gone_ms`` and ``hold_ms`` None: the defaults (0 when ``ms`` is 0: no debounce)."""
        self.ms = ms
        self.min_scans = min_scans
        self.gone_scans = max(gone_scans, min_scans)
        if gone_ms is None:
            gone_ms = max(2 * ms, GONE_MS) if ms > 0 else 0
        self.gone_ms = gone_ms
        self.hold_ms = (HOLD_MS if ms > 0 else 0) if hold_ms is None else hold_ms

    def _reading(self, c: str, obs: "Obs") -> "Obs | None":
        """The reading after the ownership filter (None: ignored)."""
        weak = obs[4] is not None and obs[4] < self.min_conf
        if c not in self.own:
            if weak:
                self.suppressed["weak"] += 1
                return None
            if len(self.own) >= DEAL and c not in self.state:
                self.suppressed["foreign"] += 1
                return None
        elif weak:
            return tuple(obs[:4]) + NO_CONF  # our card, only read weakly: at face value
        return obs

    def _live(self, c: str, obs: "Obs | None", now: int) -> "Obs | None":
        """The card's reading through the zone hysteresis."""
        zs = self._zones.get(c)
        if zs is None:
            if obs is None:
                return None
            # None: [zone last read, flickering until, zone it left at its last report]
            zs = self._zones[c] = {None: [None, now - 1, None]}
        m = zs[None]
        if obs is not None:
            z = obs[0]
            e = zs.get(z)
            if e is None or self._stale(e, now):
                zs[z] = [obs, now, self.scans, 1]
            else:
                if m[0] != z:  # back to a zone read before: it flickers
                    m[1] = now + self.hold_ms
                e[0], e[1], e[2] = obs, now, self.scans
                e[3] += 1
            m[0] = z
        restless = ticks_diff(m[1], now) >= 0
        cur = self.state.get(c)
        best: tuple[tuple[bool, int, int], Obs] | None = None
        for z in list(zs):
            if z is None:
                continue
            e = zs[z]
            if self._stale(e, now):
                del zs[z]
            elif e[3] >= 2:
                # flickering: nearer the middle wins, the zone it left last loses
                key = (restless and z != m[2], RANK.get(z, 0) if restless else 0, e[2])
                if best is None or key > best[0]:
                    best = (key, e[0])
        if len(zs) == 1:
            del self._zones[c]
        if best is None:
            return None
        if restless and cur is not None and best[1][0] == cur[0]:
            return cur + NO_CONF  # flickering in its zone: nothing else about it changes either
        return best[1]

    def _stale(self, e: "list[Any]", now: int) -> bool:
        return bool(ticks_diff(now, e[1]) > self.hold_ms and self.scans - e[2] > HOLD_SCANS)

    def update(self, now: int, seen: "dict[str, Obs]",
               held: "tuple[str, ...]" = ()) -> "list[tuple[str, Obs | None]]":
        """Feed one scan; returns the committed changes as [(card, obs)] in deck order.

        ``seen`` maps card -> (zone, face, level, seen_by, conf); cards whose
        committed zone is in ``held`` (a faulty sensor) keep their state.
        """
        self.scans += 1
        changes: list[tuple[str, Obs | None]] = []
        cards = set(seen)
        for d in (self.state, self._pend, self._zones):
            cards.update(d)
        for c in cards:
            obs = seen.get(c)
            if obs is not None:
                obs = self._reading(c, obs)
            if self.hold_ms > 0:
                obs = self._live(c, obs, now)
            new: State = GONE if obs is None else obs[:4]
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
            ms = self.ms
            zs = self._zones.get(c)
            if new[0] == cur[0] or (zs is not None and zs[None][2] == new[0]):
                ms += self.hold_ms  # turned where it lies, or back where it was: more evidence
            if p[1] >= (self.gone_scans if gone else self.min_scans) and ticks_diff(
                now, p[2]
            ) >= (self.gone_ms if gone else ms):
                del self._pend[c]
                if gone:
                    del self.state[c]
                else:
                    self.state[c] = new
                    if new[0] in HAND_ZONES:
                        self.own[c] = True
                    zs = self._zones.get(c)
                    if zs is not None and cur[0] != new[0]:
                        if cur is not GONE:
                            zs[None][1] = now + self.hold_ms  # it may still be settling
                        zs[None][2] = cur[0]
                changes.append((c, obs))
        if not self.state and self.own:
            self.own = {}  # the cards were gathered: the next deal is another
        changes.sort(key=lambda ch: deck_order(ch[0]))
        return changes
