"""Typed events of domain.md, parsed and validated from journal objects.

Every event is a frozen dataclass with ``type`` and ``t``; ``parse_event``
checks each field and raises :class:`EventError` naming the field that is
wrong, so a journal reader can say "line 12, field card: not a card: 'SX'".
``to_json`` gives back the canonical journal object (cards in canonical form).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from tablesense.cards import SEATS, SUITS, parse_call, parse_card

ZONES = ("hand", "detached", "table", "trick", "floor", "gone")
FACES = ("up", "down", "unknown")
LEVELS = ("above", "at", "below", "unknown")
STEPS = ("draw", "shuffle", "cut", "deal")
VULS = ("None", "NS", "EW", "All")
STRAINS = ("C", "D", "H", "S", "N")


class EventError(ValueError):
    """An event object that is not valid; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"field {field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = ""
    t: int

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": 1, "t": self.t, "type": self.type}
        for name, value in self.__dict__.items():
            if name == "t" or value is None:
                continue
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, frozenset):
                value = sorted(value)
            out[name] = value
        return out


@dataclass(frozen=True)
class Observe(Event):
    type: ClassVar[str] = "observe"
    seat: str
    card: str
    zone: str
    face: str = "unknown"
    level: str = "unknown"
    seen_by: tuple[str, ...] | None = None
    conf: float | None = None
    rt: int | None = None


@dataclass(frozen=True)
class BoardStart(Event):
    type: ClassVar[str] = "board"
    table: str
    board: int
    dealer: str | None = None
    vul: str | None = None
    code: str | None = None


@dataclass(frozen=True)
class Setup(Event):
    type: ClassVar[str] = "setup"
    step: str


@dataclass(frozen=True)
class Dealt(Event):
    type: ClassVar[str] = "dealt"
    hands: dict[str, tuple[str, ...]] | None = field(default=None, hash=False)
    dealer: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.hands is not None:
            out["hands"] = {s: list(c) for s, c in self.hands.items()}
        return out


@dataclass(frozen=True)
class Call(Event):
    type: ClassVar[str] = "call"
    seat: str
    call: str


@dataclass(frozen=True)
class Declare(Event):
    type: ClassVar[str] = "declare"
    seat: str
    strain: str


@dataclass(frozen=True)
class Claim(Event):
    type: ClassVar[str] = "claim"
    seat: str
    tricks: int | None = None


@dataclass(frozen=True)
class Concede(Event):
    type: ClassVar[str] = "concede"
    seat: str
    tricks: int | None = None
    current: bool | None = None


@dataclass(frozen=True)
class Object(Event):
    type: ClassVar[str] = "object"
    seat: str


@dataclass(frozen=True)
class Named(Event):
    type: ClassVar[str] = "named"
    seat: str
    card: str


@dataclass(frozen=True)
class Decide(Event):
    type: ClassVar[str] = "decide"
    option: str
    alert: str | None = None
    card: str | None = None
    suit: str | None = None
    seat: str | None = None


@dataclass(frozen=True)
class Resolve(Event):
    type: ClassVar[str] = "resolve"
    alert: str
    note: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (Observe, BoardStart, Setup, Dealt, Call, Declare, Claim, Concede, Object, Named,
                Decide, Resolve)
}
COMMAND_TYPES = frozenset(
    ("board", "setup", "call", "declare", "claim", "concede", "object", "named", "decide",
     "resolve")
)


def _get(obj: dict[str, Any], name: str, required: bool = True) -> Any:
    if name not in obj or obj[name] is None:
        if required:
            raise EventError(name, "missing")
        return None
    return obj[name]


def _choice(obj: dict[str, Any], name: str, allowed: tuple[str, ...], required: bool = True,
            upper: bool = False) -> str | None:
    value = _get(obj, name, required)
    if value is None:
        return None
    if not isinstance(value, str):
        raise EventError(name, f"expected one of {', '.join(allowed)}, got {value!r}")
    v = value.upper() if upper else value
    if v not in allowed:
        raise EventError(name, f"expected one of {', '.join(allowed)}, got {value!r}")
    return v


def _seat(obj: dict[str, Any], name: str = "seat", required: bool = True) -> str | None:
    return _choice(obj, name, SEATS, required, upper=True)


def _card(obj: dict[str, Any], name: str = "card", required: bool = True) -> str | None:
    value = _get(obj, name, required)
    if value is None:
        return None
    if not isinstance(value, str):
        raise EventError(name, f"expected a card such as 'SA', got {value!r}")
    try:
        return parse_card(value)
    except ValueError as exc:
        raise EventError(name, str(exc)) from None


def _int(obj: dict[str, Any], name: str, required: bool = True, lo: int = 0,
         hi: int | None = None) -> int | None:
    value = _get(obj, name, required)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventError(name, f"expected an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise EventError(name, f"out of range: {value}")
    return value


def _seat_list(obj: dict[str, Any], name: str) -> tuple[str, ...] | None:
    value = _get(obj, name, False)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(s, str) and s.upper() in SEATS
                                              for s in value):
        raise EventError(name, f"expected a list of seats, got {value!r}")
    return tuple(sorted({s.upper() for s in value}, key=SEATS.index))


def _hands(obj: dict[str, Any]) -> dict[str, tuple[str, ...]] | None:
    value = _get(obj, "hands", False)
    if value is None:
        return None
    if not isinstance(value, dict) or sorted(k.upper() for k in value) != sorted(SEATS):
        raise EventError("hands", "expected an object with the four seats N, E, S, W")
    hands: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for seat, cards in value.items():
        where = f"hands.{seat}"
        if not isinstance(cards, list) or len(cards) != 13:
            raise EventError(where, "expected a list of 13 cards")
        parsed = []
        for c in cards:
            try:
                card = parse_card(c) if isinstance(c, str) else parse_card(repr(c))
            except ValueError as exc:
                raise EventError(where, str(exc)) from None
            if card in seen:
                raise EventError(where, f"card {card} dealt twice")
            seen.add(card)
            parsed.append(card)
        hands[seat.upper()] = tuple(parsed)
    return {s: hands[s] for s in SEATS}


_SEATS = frozenset(SEATS)
_CARDS = frozenset(s + r for s in SUITS for r in "AKQJT98765432")
_ZONES, _FACES, _LEVELS = frozenset(ZONES), frozenset(FACES), frozenset(LEVELS)
_PLAIN_OBSERVE = frozenset(("v", "t", "type", "seat", "card", "zone", "face", "level"))


def _fast_observe(obj: dict[str, Any]) -> Observe | None:
    """The common case, canonical and complete, without the field-by-field checks."""
    t, seat, card, zone = obj.get("t"), obj.get("seat"), obj.get("card"), obj.get("zone")
    face, level = obj.get("face"), obj.get("level", "unknown")
    if (type(t) is int and t >= 0 and type(seat) is str and seat in _SEATS
            and type(card) is str and card in _CARDS and type(zone) is str and zone in _ZONES
            and type(face) is str and face in _FACES and type(level) is str
            and level in _LEVELS and obj.get("v", 1) == 1 and _PLAIN_OBSERVE.issuperset(obj)):
        return Observe(t, seat, card, zone, face, level)
    return None


def parse_event(obj: Any) -> Event:
    """Validate one journal object and return its typed event."""
    if type(obj) is dict and obj.get("type") == "observe":
        fast = _fast_observe(obj)
        if fast is not None:
            return fast
    if not isinstance(obj, dict):
        raise EventError("(line)", "expected a JSON object")
    if "v" in obj and obj["v"] != 1:
        raise EventError("v", f"unsupported version {obj['v']!r} (expected 1)")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise EventError("type", f"unknown event type {kind!r}")
    t = _int(obj, "t")
    assert t is not None
    if kind == "observe":
        zone = _choice(obj, "zone", ZONES)
        face = _choice(obj, "face", FACES, required=zone != "gone") or "unknown"
        level = _choice(obj, "level", LEVELS, required=False) or "unknown"
        conf = _get(obj, "conf", False)
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, (int, float))
                                 or not 0 <= conf <= 1):
            raise EventError("conf", f"expected a number from 0 to 1, got {conf!r}")
        return Observe(t, _req(_seat(obj)), _req(_card(obj)), _req(zone), face, level,
                       _seat_list(obj, "seen_by"), None if conf is None else float(conf),
                       _int(obj, "rt", False))
    if kind == "board":
        table = _get(obj, "table")
        if not isinstance(table, (str, int)) or isinstance(table, bool) or str(table) == "":
            raise EventError("table", f"expected a table name, got {table!r}")
        code = _get(obj, "code", False)
        if code is not None and not isinstance(code, str):
            raise EventError("code", f"expected a law code id, got {code!r}")
        return BoardStart(t, str(table), _req(_int(obj, "board", lo=1)),
                          _seat(obj, "dealer", False), _choice(obj, "vul", VULS, False), code)
    if kind == "setup":
        return Setup(t, _req(_choice(obj, "step", STEPS)))
    if kind == "dealt":
        return Dealt(t, _hands(obj), _seat(obj, "dealer", False))
    if kind == "call":
        raw = _get(obj, "call")
        try:
            call = parse_call(raw) if isinstance(raw, str) else parse_call(repr(raw))
        except ValueError as exc:
            raise EventError("call", str(exc)) from None
        return Call(t, _req(_seat(obj)), call)
    if kind == "declare":
        return Declare(t, _req(_seat(obj)), _req(_choice(obj, "strain", STRAINS, upper=True)))
    if kind == "claim":
        return Claim(t, _req(_seat(obj)), _int(obj, "tricks", False, 0, 13))
    if kind == "concede":
        current = _get(obj, "current", False)
        if current is not None and not isinstance(current, bool):
            raise EventError("current", f"expected true or false, got {current!r}")
        return Concede(t, _req(_seat(obj)), _int(obj, "tricks", False, 0, 13), current)
    if kind == "object":
        return Object(t, _req(_seat(obj)))
    if kind == "named":
        return Named(t, _req(_seat(obj)), _req(_card(obj)))
    if kind == "decide":
        option = _get(obj, "option")
        if not isinstance(option, str) or not option:
            raise EventError("option", f"expected an option name, got {option!r}")
        alert = _get(obj, "alert", False)
        if alert is not None and not isinstance(alert, str):
            raise EventError("alert", f"expected an alert id, got {alert!r}")
        return Decide(t, option, alert, _card(obj, "card", False),
                      _choice(obj, "suit", SUITS, False, upper=True), _seat(obj, "seat", False))
    # resolve
    alert = _get(obj, "alert")
    note = obj.get("note", "")
    if not isinstance(alert, str):
        raise EventError("alert", f"expected an alert id, got {alert!r}")
    if not isinstance(note, str):
        raise EventError("note", f"expected text, got {note!r}")
    return Resolve(t, alert, note)


def _req(value: Any) -> Any:
    assert value is not None
    return value
