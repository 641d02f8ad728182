"""The contract's vocabulary (docs/contract.md) as types mypy checks.

Every bare string of the contract that code branches on has one definition
here: a ``Literal`` type for annotations and a tuple of its values, in the
contract's order, for validation and iteration. Other modules import these;
none declares its own copy.

>>> SEATS
('N', 'E', 'S', 'W')
>>> "trick" in ZONES and "lead" in PHASES
True
"""

from __future__ import annotations

from typing import Final, Literal, get_args

Seat = Literal["N", "E", "S", "W"]
Side = Literal["NS", "EW"]
Phase = Literal["setup", "auction", "lead", "play", "claim", "end"]
Zone = Literal["hand", "detached", "table", "trick", "floor", "gone"]
Face = Literal["up", "down", "unknown"]
Level = Literal["above", "at", "below", "unknown"]
Role = Literal["declarer", "dummy", "leader", "leaders-partner"]
Severity = Literal["info", "penalty", "director"]
Until = Literal["next-call", "next-lead", "lead-retained", "played", "hand"]
SetupStep = Literal["draw", "shuffle", "cut", "deal"]
Vul = Literal["None", "NS", "EW", "All"]
# the kind of reader an observation came from (its HELLO), where the journal says
Source = Literal["rfid", "camera"]

Kind = Literal[
    "not-exposed", "no-rectification", "exposed-card", "auction-exposure",
    "major-penalty-card", "minor-penalty-card", "lead-out-of-turn", "premature-play",
    "cards-played-together", "deemed-played", "new-deal", "redeal", "draw-again",
    "partner-must-pass", "forfeit-double", "penalty-card-not-played", "call-not-complied",
    "revoke", "revoke-corrected", "claim", "claim-exposure", "hands-abandoned",
    "misnamed-card", "sensor-conflict", "reader-offline", "out-of-step", "fouled-board",
]
Option = Literal[
    "call-card", "call-suit", "require-highest", "require-lowest", "require-win",
    "require-not-win", "treat-as-exposed", "demand-new-deal", "designate-card",
    "accept-lead", "refuse-lead", "become-dummy", "accept-play", "refuse-play",
    "require-lead-suit", "forbid-lead-suit", "pc-remains", "require-other-suit",
    "forbid-other-suit", "withdraw-substitute",
]

SEATS: Final[tuple[Seat, ...]] = get_args(Seat)
SIDES: Final[tuple[Side, ...]] = get_args(Side)
PHASES: Final[tuple[Phase, ...]] = get_args(Phase)
ZONES: Final[tuple[Zone, ...]] = get_args(Zone)
FACES: Final[tuple[Face, ...]] = get_args(Face)
LEVELS: Final[tuple[Level, ...]] = get_args(Level)
ROLES: Final[tuple[Role, ...]] = get_args(Role)
SEVERITIES: Final[tuple[Severity, ...]] = get_args(Severity)
UNTILS: Final[tuple[Until, ...]] = get_args(Until)
SETUP_STEPS: Final[tuple[SetupStep, ...]] = get_args(SetupStep)
VULS: Final[tuple[Vul, ...]] = get_args(Vul)
SOURCES: Final[tuple[Source, ...]] = get_args(Source)
KINDS: Final[tuple[Kind, ...]] = get_args(Kind)
OPTIONS: Final[tuple[Option, ...]] = get_args(Option)

__all__ = [
    "FACES",
    "KINDS",
    "LEVELS",
    "OPTIONS",
    "PHASES",
    "ROLES",
    "SEATS",
    "SETUP_STEPS",
    "SEVERITIES",
    "SIDES",
    "SOURCES",
    "UNTILS",
    "VULS",
    "ZONES",
    "Face",
    "Kind",
    "Level",
    "Option",
    "Phase",
    "Role",
    "Seat",
    "SetupStep",
    "Severity",
    "Side",
    "Source",
    "Until",
    "Vul",
    "Zone",
]
