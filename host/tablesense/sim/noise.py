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
stream a daemon would journal: the noise evaluation (``proving.noise_eval``,
the noise benchmark) and the tests use it. Everything is driven by the
``random.Random`` passed in, so a seed gives the same noise every time.

The same profile also drives the simulated readers *below* their firmware
(poll level: :mod:`tablesense.onboard.pollnoise`, one model for the reader firmware
in the VM and the Python camera reader of the demo). There the rates
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

from tablesense.contract.cards import ALL_CARDS, SEATS, lho

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
