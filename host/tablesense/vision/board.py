"""What a camera board does with its frames, simulated or real: read, fuse, debounce, report.

Both boards, the simulated one (:mod:`.reader`: frames rendered from a
scenario) and the real one (:mod:`.live`: frames from cameras), run this:

* :class:`Reading`: each camera's frame through its
  :class:`~tablesense.vision.pipeline.Recogniser` (only the regions whose
  pixels changed are read again), the sightings of all cameras fused into
  one observation per card (:class:`~tablesense.vision.fuse.Fuser`), kept
  as what each seat's cards look like (:data:`Seen`);
* :func:`observe_fields`: that view through the firmware's debouncer, one
  per seat as four seat readers on one board would have, into the fields of
  the OBSERVE frames that name each card's holder.
"""

from __future__ import annotations

from typing import Any

from tablesense.contract.vocab import SEATS
from tablesense.onboard.debounce import Debouncer
from tablesense.vision.fuse import Fuser
from tablesense.vision.pipeline import U8, Recogniser, Sighting

Seen = dict[str, dict[str, tuple[Any, ...]]]  # seat -> card -> (zone, face, level, seen_by, conf)
SURE = 0.998  # a confidence at least this is reported as none (certain)


class Reading:
    """One table's recognisers and fuser: frames in, what each seat's cards look like out."""

    def __init__(self, recognisers: dict[str, Recogniser]) -> None:
        self.recognisers = recognisers
        self.fuser = Fuser()
        self.reads = 0  # card observations made so far

    def read(self, frames: dict[str, U8]) -> Seen:
        """Each camera's frame (RGB; a camera without one this time keeps its last
        sightings out), recognised and fused."""
        sightings: list[Sighting] = []
        for name, frame in frames.items():
            # the recogniser tells a changed region from a still one by its pixels alone
            sightings.extend(self.recognisers[name].recognise(frame))
        fused = self.fuser.fuse(sightings)
        seen: Seen = {s: {} for s in SEATS}
        for card, o in fused.items():
            seen[o.seat][card] = (o.zone, o.face, o.level, o.seen_by,
                                  None if o.conf >= SURE else round(o.conf, 3))
        self.reads += len(fused)
        return seen


def debouncers(debounce_ms: int) -> dict[str, Debouncer]:
    return {s: Debouncer(debounce_ms) for s in SEATS}


def observe_fields(debouncers: dict[str, Debouncer], now: int, seen: Seen
                   ) -> list[dict[str, Any]]:
    """The OBSERVE fields of the changes the seats' debouncers commit at ``now``."""
    out: list[dict[str, Any]] = []
    for seat, deb in debouncers.items():
        for card, obs in deb.update(now, seen.get(seat, {})):
            f: dict[str, Any] = {"seat": seat, "card": card, "t": now & 0xFFFFFFFF}
            if obs is None:
                f.update(zone="gone", face="unknown", level="unknown")
            else:
                f.update(zone=obs[0], face=obs[1], level=obs[2])
                if obs[3] is not None:
                    f["seen_by"] = [s for s in obs[3] if s != seat]
                if obs[4] is not None and obs[4] < 1:
                    f["conf"] = obs[4]
            out.append(f)
    return out
