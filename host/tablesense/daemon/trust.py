"""What the host believes of an observation: only what its reader's HELLO says it senses.

A reader's HELLO capabilities (hardware/protocol.md section 3) name the zones
it has sensors for (``hand``, ``detached``, ``table``, ``trick``, ``floor``) and
whether it measures ``face``, ``level``, ``seen_by`` and ``conf``. An RFID
reader, for instance, senses which antenna a tag lies on and nothing about its
face (hardware/README.md). So an OBSERVE is taken at its capabilities' word:

- a zone the reader does not claim (other than ``gone``) is refused: the whole
  observation is dropped (``unclaimed-zone``);
- a face, level, seen_by or conf it does not claim is reduced to ``unknown``
  (face, level) or left out (seen_by, conf), and the observation goes on.

Readers that claim none of ``hand``, ``table``, ``trick`` predate the zone bits
(reader firmware before 0.3.0, the demo's Python readers): they are trusted as
before. Pure: fields in, fields (or None) and the reasons out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tablesense.onboard.wire import codec

ZONE_BITS = ("hand", "table", "trick")


def claims_zones(capabilities: Iterable[str]) -> bool:
    """Does this reader say which zones it senses (firmware 0.3.0 on)?"""
    if isinstance(capabilities, (set, frozenset)):  # a link's, every frame: no generator
        return not capabilities.isdisjoint(ZONE_BITS)
    return any(c in ZONE_BITS for c in capabilities)


def trusted(fields: dict[str, Any], capabilities: Iterable[str]
            ) -> tuple[dict[str, Any] | None, list[str]]:
    """``fields`` of an OBSERVE reduced to what ``capabilities`` claim; None: refused.

    >>> trusted({"zone": "trick", "face": "up", "level": "at"}, ["level", "table", "trick"])
    ({'zone': 'trick', 'face': 'unknown', 'level': 'at'}, ['unclaimed-face'])
    >>> trusted({"zone": "hand", "face": "down", "level": "above"}, ["level", "table"])
    (None, ['unclaimed-zone'])
    """
    caps = capabilities if isinstance(capabilities, (set, frozenset)) else set(capabilities)
    if not claims_zones(caps):
        return fields, []
    zone = fields.get("zone")
    if zone != "gone" and (zone not in caps or zone not in codec.ZONE_CAPABILITIES):
        return None, ["unclaimed-zone"]
    why = [f"unclaimed-{key}" for key in ("face", "level")
           if fields.get(key, "unknown") != "unknown" and key not in caps]
    why += [f"unclaimed-{key}" for key in ("seen_by", "conf") if key in fields and key not in caps]
    if not why:  # all of it claimed (the common case): the fields as they came
        return fields, why
    out = dict(fields)
    for reason in why:
        key = reason[len("unclaimed-"):]
        if key in ("face", "level"):
            out[key] = "unknown"
        else:
            del out[key]
    return out, why
