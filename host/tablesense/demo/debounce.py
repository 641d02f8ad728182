"""The reader firmware's debouncer (firmware/debounce.py), in typed CPython for the Python reader.

The Python simulated reader (pysim.py) must absorb the same poll-level noise
as the firmware, the same way: this is a line-for-line port (ownership
filter, zone hysteresis, debounce; see the firmware module for the why).
``tests/test_noise_readers.py`` feeds both the same noisy scans and checks
that they commit the same changes, so the two stay in step.
"""

from __future__ import annotations

from typing import Any

from tablesense.codec import card_index

Obs = tuple[Any, ...]  # (zone, face, level, seen_by, conf)
State = tuple[Any, ...]  # (zone, face, level, seen_by)

GONE: State = ("gone", "unknown", "unknown", None)
RANK = {"trick": 4, "table": 3, "detached": 2, "hand": 1, "floor": 1}
HAND_ZONES = ("hand", "detached", "floor")
HOLD_MS = 150
HOLD_SCANS = 2
GONE_MS = 400
MIN_CONF = 0.6
DEAL = 13


class Debouncer:
    def __init__(self, ms: int = 60, min_scans: int = 2, gone_scans: int = 3,
                 gone_ms: int | None = None, hold_ms: int | None = None,
                 min_conf: float = MIN_CONF) -> None:
        self.min_conf = min_conf
        self.configure(ms, min_scans, gone_scans, gone_ms, hold_ms)
        self.state: dict[str, State] = {}
        self._pend: dict[str, list[Any]] = {}  # card -> [state, scans, first_ms]
        # card -> {zone: [obs, last ms, last scan, reads]}; key None: [zone last read,
        # flickering until, zone it left at its last report]
        self._zones: dict[str, dict[str | None, list[Any]]] = {}
        self.own: dict[str, bool] = {}
        self.scans = 0
        self.suppressed = {"foreign": 0, "weak": 0}

    def configure(self, ms: int, min_scans: int = 2, gone_scans: int = 3,
                  gone_ms: int | None = None, hold_ms: int | None = None) -> None:
        self.ms = ms
        self.min_scans = min_scans
        self.gone_scans = max(gone_scans, min_scans)
        if gone_ms is None:
            gone_ms = max(2 * ms, GONE_MS) if ms > 0 else 0
        self.gone_ms = gone_ms
        self.hold_ms = (HOLD_MS if ms > 0 else 0) if hold_ms is None else hold_ms

    def _reading(self, c: str, obs: Obs) -> Obs | None:
        weak = obs[4] is not None and obs[4] < self.min_conf
        if c not in self.own:
            if weak:
                self.suppressed["weak"] += 1
                return None
            if len(self.own) >= DEAL and c not in self.state:
                self.suppressed["foreign"] += 1
                return None
        elif weak:
            return (*obs[:4], None)
        return obs

    def _live(self, c: str, obs: Obs | None, now: int) -> Obs | None:
        zs = self._zones.get(c)
        if zs is None:
            if obs is None:
                return None
            zs = self._zones[c] = {None: [None, now - 1, None]}
        m = zs[None]
        if obs is not None:
            z = obs[0]
            e = zs.get(z)
            if e is None or self._stale(e, now):
                zs[z] = [obs, now, self.scans, 1]
            else:
                if m[0] != z:
                    m[1] = now + self.hold_ms
                e[0], e[1], e[2] = obs, now, self.scans
                e[3] += 1
            m[0] = z
        restless = m[1] - now >= 0
        cur = self.state.get(c)
        best: tuple[tuple[bool, int, int], Obs] | None = None
        for z in list(zs):
            if z is None:
                continue
            e = zs[z]
            if self._stale(e, now):
                del zs[z]
            elif e[3] >= 2:
                key = (restless and z != m[2], RANK.get(z, 0) if restless else 0, e[2])
                if best is None or key > best[0]:
                    best = (key, e[0])
        if len(zs) == 1:
            del self._zones[c]
        if best is None:
            return None
        if restless and cur is not None and best[1][0] == cur[0]:
            return (*cur, None)  # flickering in its zone: nothing else about it changes either
        return best[1]

    def _stale(self, e: list[Any], now: int) -> bool:
        return bool(now - e[1] > self.hold_ms and self.scans - e[2] > HOLD_SCANS)

    def update(self, now: int, seen: dict[str, Obs],
               held: tuple[str, ...] = ()) -> list[tuple[str, Obs | None]]:
        """Feed one scan; the committed changes as [(card, obs or None = gone)], deck order."""
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
            if p[1] >= (self.gone_scans if gone else self.min_scans) and (
                    now - p[2] >= (self.gone_ms if gone else ms)):
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
            self.own = {}
        changes.sort(key=lambda ch: card_index(ch[0]))
        return changes
