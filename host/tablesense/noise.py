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
