"""Noise profiles: what imperfect readers add to the observations a host receives.

A profile (TOML, ``version = 1``) gives the rates of the glitches that get past
the readers' own debouncing: a card reported for one poll in the neighbouring
zone (``flicker``) or at the neighbouring seat (``crosstalk``), a card
reported gone for a moment (a run of ``missed_read`` polls, or a hand being
re-sorted: ``sort_dropout``), a camera's wrong card at low confidence
(``misread``), receipt-time ``jitter_ms`` and frames of two readers delivered
in the other order (``reorder``). ``clean``, ``club`` and ``hostile`` ship in
``tablesense/data/noise/``; ``load_profile`` also takes a path.

``NoiseModel.apply`` turns one board's clean journal events into the noisy
stream a daemon would journal: the simulated readers and the noise benchmark
use it. Everything is driven by the ``random.Random`` passed in, so a seed
gives the same noise every time.

The same profile also drives the simulated readers *below* their firmware
(poll level: firmware/sim/noise.py for the reader firmware in the VM,
:class:`PollNoise` for the Python camera reader of the demo). There the rates
are raw, per poll of the sensor, and the readers' own debouncing and
cross-talk rejection must absorb them:

- ``missed_read``: per poll and card, the tag (or face) does not answer;
- ``crosstalk``: per ``poll_ms`` and card lying in a neighbouring seat's
  ``table`` or ``trick`` zone, a cross-talk episode starts: the card also
  answers on this seat's antenna of that zone, weaker, for ``crosstalk_ms``
  (0: one poll); ``crosstalk_strong`` of the episodes are as strong as a card
  lying on the antenna (a card right across the boundary);
- ``flicker``: per move of a card between two zones of one seat, the chance
  it rests on the boundary of its new zone for ``flicker_ms`` (0: one poll),
  answering on that zone's antenna or on the one next to it on the side it
  came from (hand, table and trick lie in that order), at random each poll;
- ``sort_dropout``: per hand card, each time its seat plays a card, the chance
  it is not sensed at all for 0.5 to 1.5 times ``sort_dropout_ms``;
- ``misread`` (camera readers): per poll and card, it is recognised as
  another card, with ``conf`` uniform in ``misread_conf`` +/-
  ``misread_conf_spread`` (so some misreads clear the camera's threshold);
- ``jitter_ms``: each frame reaches the host 0..``jitter_ms`` late (a
  reader's frames stay in order);
- ``reorder``: per frame, the chance it is lost on the wire (bad CRC): the
  host's link asks for a RESEND and the frame arrives after newer frames of
  the other readers.
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any

from tablesense.cards import ALL_CARDS, SEATS, lho

Event = dict[str, Any]
PROFILES = ("clean", "club", "hostile")
NEIGHBOUR_ZONE = {"hand": "table", "table": "trick", "trick": "table", "detached": "hand",
                  "floor": "table"}


class ProfileError(ValueError):
    pass


@dataclass(frozen=True)
class Profile:
    name: str
    description: str = ""
    poll_ms: int = 50
    missed_read: float = 0.0
    crosstalk: float = 0.0
    flicker: float = 0.0
    sort_dropout: float = 0.0
    sort_dropout_ms: int = 300
    misread: float = 0.0
    misread_conf: float = 0.4
    jitter_ms: int = 0
    reorder: float = 0.0
    # poll level only (the simulated readers; see the module docstring)
    flicker_ms: int = 0
    crosstalk_ms: int = 0
    crosstalk_strong: float = 0.0
    misread_conf_spread: float = 0.0

    def poll_level(self) -> dict[str, Any]:
        """The numbers the simulated readers need, as JSON-able values."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("name", "description")}


def load_profile(name_or_path: str) -> Profile:
    """A shipped profile by name, or a TOML file; errors name the file and the key."""
    if name_or_path in PROFILES:
        src = resources.files("tablesense") / "data" / "noise" / f"{name_or_path}.toml"
        label, text = f"{name_or_path}.toml", src.read_text()
    else:
        path = Path(name_or_path)
        try:
            label, text = str(path), path.read_text()
        except OSError as exc:
            raise ProfileError(f"{path}: cannot read noise profile: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{label}: not TOML: {exc}") from None
    if data.pop("version", None) != 1:
        raise ProfileError(f"{label}: version: expected 1")
    known = {f.name: f.type for f in fields(Profile)}
    for key, value in data.items():
        if key not in known:
            raise ProfileError(f"{label}: {key}: unknown key (known: {', '.join(known)})")
        if key in ("name", "description"):
            if not isinstance(value, str):
                raise ProfileError(f"{label}: {key}: expected text, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ProfileError(f"{label}: {key}: expected a number >= 0, got {value!r}")
        elif not key.endswith("_ms") and key != "misread_conf" and value > 1:
            raise ProfileError(f"{label}: {key}: a rate must be at most 1, got {value!r}")
    if "name" not in data:
        raise ProfileError(f"{label}: name: missing")
    return Profile(**data)


class NoiseModel:
    def __init__(self, profile: Profile, rng: random.Random) -> None:
        self.p = profile
        self.rng = rng

    def _chance(self, rate: float) -> bool:
        return rate > 0 and self.rng.random() < rate

    def apply(self, events: list[Event]) -> list[Event]:
        """The noisy stream for one board's clean events (time stays monotonic)."""
        p, rng = self.p, self.rng
        out: list[Event] = []
        hands: dict[str, set[str]] = {s: set() for s in SEATS}
        # a run of polls long enough for the firmware to report a card gone
        dropout = min(1.0, (1000 / max(p.poll_ms, 1)) * p.missed_read ** 3)
        for ev in events:
            if ev.get("type") == "dealt" and isinstance(ev.get("hands"), dict):
                hands = {s: set(ev["hands"][s]) for s in SEATS}
            if ev.get("type") != "observe":
                out.append(ev)
                continue
            seat, card, zone, t = ev["seat"], ev["card"], ev["zone"], ev["t"]
            if zone != "gone" and self._chance(p.flicker):
                out.append({**ev, "zone": NEIGHBOUR_ZONE.get(zone, "table"), "face": "up",
                            "t": t})
                t += p.poll_ms
            out.append({**ev, "t": t})
            if zone == "trick":
                hands[seat].discard(card)
                for other in sorted(hands[seat]):
                    if self._chance(p.sort_dropout):
                        out.append(_obs(seat, other, "gone", t + 20))
                        out.append(_obs(seat, other, "hand", t + 20 + p.sort_dropout_ms,
                                        "down"))
            if zone != "gone" and self._chance(min(1.0, p.crosstalk * 5)):
                near = lho(seat) if rng.random() < 0.5 else lho(lho(lho(seat)))
                out.append(_obs(near, card, zone, t + 10, "down"))
                out.append(_obs(near, card, "gone", t + 10 + p.poll_ms))
            if zone in ("hand", "table") and self._chance(dropout):
                out.append(_obs(seat, card, "gone", t + 30))
                out.append({**ev, "t": t + 30 + 3 * p.poll_ms})
            if self._chance(p.misread):
                wrong = rng.choice([c for c in ALL_CARDS if c != card])
                out.append({**_obs(seat, wrong, "table", t + 15, "up"),
                            "conf": p.misread_conf})
                out.append({**_obs(seat, wrong, "gone", t + 15 + p.poll_ms),
                            "conf": p.misread_conf})
        return self._deliver(out)

    def _deliver(self, out: list[Event]) -> list[Event]:
        """Receipt times: jitter per reader, frames of one reader kept in order."""
        p, rng = self.p, self.rng
        last_seat: dict[str, int] = {}
        for ev in out:
            if ev.get("type") == "observe" and p.jitter_ms:
                t = ev["t"] + rng.randrange(p.jitter_ms + 1)
                ev["t"] = max(t, last_seat.get(ev["seat"], 0))
                last_seat[ev["seat"]] = ev["t"]
        out.sort(key=lambda e: e["t"])  # stable: a reader's own frames stay in order
        for i in range(len(out) - 1):
            a, b = out[i], out[i + 1]
            if (a.get("type") == b.get("type") == "observe" and a["seat"] != b["seat"]
                    and b["t"] - a["t"] < 100 and self._chance(p.reorder)):
                # two readers' frames delivered the other way round
                a["t"], b["t"] = b["t"], a["t"]
                out[i], out[i + 1] = b, a
        return out


def _obs(seat: str, card: str, zone: str, t: int, face: str = "unknown") -> Event:
    ev: Event = {"v": 1, "t": t, "type": "observe", "seat": seat, "card": card, "zone": zone}
    if zone != "gone":
        ev["face"] = face
        ev["level"] = "at"
    return ev


# -- poll level: under a simulated reader's debouncing ---------------------------------

POLL_NEAR_ZONES = ("table", "trick")  # zones whose sensors lie near a neighbouring seat's
SIGNAL_ON, SIGNAL_EDGE, SIGNAL_XTALK, SIGNAL_XTALK_STRONG = 30, 27, 20, 28


POLL_PATH = {"hand": 0, "detached": 0, "table": 1, "trick": 2}
POLL_LEVEL_AT = {"hand": "above", "detached": "above", "table": "at", "trick": "at"}


def poll_boundary(old: Event | None, new: Event | None) -> Event | None:
    """What a card moving from ``old`` to ``new`` shows while it rests on the boundary of its
    new zone, on the side it came from: hand, table and trick lie in that order (None: no
    boundary; the floor is the level sensor's business). As firmware/sim/noise.py."""
    oz = old.get("zone") if old else None
    nz = new.get("zone") if new else None
    if new is None or oz not in POLL_PATH or nz not in POLL_PATH or oz == nz:
        return None
    a, b = POLL_PATH[str(oz)], POLL_PATH[str(nz)]
    z = str(oz) if a == b else ("hand", "table", "trick")[b - 1 if a < b else b + 1]
    return {**new, "zone": z, "level": POLL_LEVEL_AT[z]}


def poll_neighbours(seat: str) -> tuple[str, str]:
    """The seats whose table and trick zones lie next to ``seat``'s (left, right)."""
    return lho(seat), lho(lho(lho(seat)))


class PollNoise:
    """The profile at the poll level, for the Python camera reader (demo/pysim.py).

    The same model as the reader firmware's simulated hardware
    (firmware/sim/noise.py; see there, and this module's docstring, for what
    each rate means): decisions per poll from ``rng``. A camera sees a
    neighbour's card at the edge of its picture (cross-talk) at a low
    ``conf``, or at full confidence for a "strong" episode.
    """

    def __init__(self, profile: Profile, rng: random.Random) -> None:
        self.p = profile
        self.rng = rng
        self.flick: dict[str, list[Any]] = {}  # card -> [event on the boundary, until, polls]
        self.drop: dict[str, tuple[int, int]] = {}  # card -> (from, until)
        self.xt: dict[str, list[Any]] = {}  # neighbour card -> [until, signal, polls]
        self._last: int | None = None
        self.counts = {"missed": 0, "flicker": 0, "dropout": 0, "crosstalk": 0, "misread": 0,
                       "lost": 0}

    def active(self) -> bool:
        p = self.p
        return any((p.missed_read, p.crosstalk, p.flicker, p.sort_dropout, p.misread,
                    p.jitter_ms, p.reorder))

    def chance(self, rate: float) -> bool:
        return rate > 0 and self.rng.random() < rate

    def moved(self, card: str, old: Event | None, new: Event | None, now: int,
              cards: dict[str, Event]) -> None:
        """An own card moved from ``old`` to ``new`` (None: not sensed)."""
        p = self.p
        self.flick.pop(card, None)
        edge = poll_boundary(old, new)
        if edge is not None and self.chance(p.flicker):
            self.flick[card] = [edge, now + p.flicker_ms, 1]
            self.counts["flicker"] += 1
        if new is not None and new.get("zone") == "trick" and p.sort_dropout > 0:
            for c, e in cards.items():
                if c != card and e.get("zone") in ("hand", "detached") and self.chance(
                        p.sort_dropout):
                    start = now + int(200 * self.rng.random())
                    length = int(p.sort_dropout_ms * (0.5 + self.rng.random()))
                    self.drop[c] = (start, start + length)
                    self.counts["dropout"] += 1

    def sensed(self, card: str, e: Event, now: int) -> Event | None:
        """What ``card`` shows this poll: ``e``, the event it flickers from, or None."""
        d = self.drop.get(card)
        if d is not None:
            if now >= d[1]:
                del self.drop[card]
            elif now >= d[0]:
                return None
        f = self.flick.get(card)
        if f is not None:
            if now >= f[1] and f[2] <= 0:
                del self.flick[card]
            else:
                f[2] -= 1
                if self.rng.random() < 0.5:
                    e = f[0]
        if self.chance(self.p.missed_read):
            self.counts["missed"] += 1
            return None
        return e

    def crosstalk(self, now: int, near: dict[str, Event]) -> list[tuple[str, Event, int]]:
        """Neighbours' cards (``near``: card -> event, table/trick only) sensed here this poll."""
        p = self.p
        dt = p.poll_ms if self._last is None else max(1, now - self._last)
        self._last = now
        out: list[tuple[str, Event, int]] = []
        if p.crosstalk <= 0:
            return out
        start = min(1.0, p.crosstalk * dt / max(1, p.poll_ms))
        for card in [c for c in self.xt if c not in near]:
            del self.xt[card]
        for card, e in near.items():
            x = self.xt.get(card)
            if x is not None and now >= x[0] and x[2] <= 0:
                del self.xt[card]
                x = None
            if x is None:
                if not self.chance(start):
                    continue
                strong = self.chance(p.crosstalk_strong)
                x = self.xt[card] = [now + p.crosstalk_ms,
                                     SIGNAL_XTALK_STRONG if strong else SIGNAL_XTALK, 1]
                self.counts["crosstalk"] += 1
            x[2] -= 1
            if not self.chance(p.missed_read):
                out.append((card, e, x[1]))
        return out

    def misread_as(self, card: str) -> tuple[str, float] | None:
        """Another card and a low conf when ``card`` is misrecognised this poll."""
        if not self.chance(self.p.misread):
            return None
        self.counts["misread"] += 1
        return self.rng.choice([c for c in ALL_CARDS if c != card]), self.low_conf()

    def low_conf(self) -> float:
        p = self.p
        c = p.misread_conf + p.misread_conf_spread * (2 * self.rng.random() - 1)
        return min(0.99, max(0.01, c))
