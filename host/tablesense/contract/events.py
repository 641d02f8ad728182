"""Typed events of docs/contract.md, decoded and validated from journal lines.

Every event is a frozen ``msgspec.Struct`` with ``type`` and ``t``. Two ways in:

* :func:`decode_event` takes a journal line (bytes or text) and decodes it
  straight into its struct: msgspec parses the JSON and checks every field
  against the contract's types (``vocab.py``'s ``Literal`` types, the 52 card
  codes, the calls) in one pass, with no intermediate dict. That is the
  replay path's speed. A line it does not take as it stands (an error, or a
  value that is valid but not in canonical form, such as ``"seat": "n"`` or
  ``"card": "10h"``) goes the slow way below, so what is accepted, how it is
  normalised and how an error is worded never depend on the fast path.
* :func:`parse_event` checks a JSON object field by field and raises
  :class:`EventError` naming the field that is wrong, so a journal reader can
  say "line 12, field card: not a card: 'SX'".

``to_json`` gives back the canonical journal object (cards in canonical form).
"""

from __future__ import annotations

import json
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    Final,
    Literal,
    TypeAlias,
    TypeVar,
    Union,
)

import msgspec

from tablesense.contract import vocab
from tablesense.contract.cards import ALL_CARDS, RANKS, SEATS, SUITS, parse_call, parse_card

ZONES = vocab.ZONES
FACES = vocab.FACES
LEVELS = vocab.LEVELS
STEPS = vocab.SETUP_STEPS
VULS = vocab.VULS
STRAINS = ("C", "D", "H", "S", "N")
CALLS: Final = ("P", "X", "XX", *(f"{n}{s}" for n in "1234567" for s in STRAINS))

# The field types msgspec validates against. mypy sees ``str`` for the ones the
# engine and the law codes build events from (they hold seats and cards as
# ``str``), and the Literal for zone, face and level; at run time they are the
# contract's Literal types, so decoding checks them.
if TYPE_CHECKING:
    SeatT: TypeAlias = str
    CardT: TypeAlias = str
    ZoneT: TypeAlias = vocab.Zone  # (what the engine branches on: typed for mypy too)
    FaceT: TypeAlias = vocab.Face
    LevelT: TypeAlias = vocab.Level
    CallT: TypeAlias = str
    StepT: TypeAlias = str
    VulT: TypeAlias = str
    StrainT: TypeAlias = str
    SuitT: TypeAlias = str
    SourceT: TypeAlias = str
else:
    SeatT, ZoneT, FaceT, LevelT = vocab.Seat, vocab.Zone, vocab.Face, vocab.Level
    SourceT = vocab.Source
    StepT, VulT = vocab.SetupStep, vocab.Vul
    CardT = Literal[ALL_CARDS]
    CallT = Literal[CALLS]
    StrainT = Literal[STRAINS]
    SuitT = Literal[SUITS]
Time = Annotated[int, msgspec.Meta(ge=0)]
Tricks = Annotated[int, msgspec.Meta(ge=0, le=13)]


class EventError(ValueError):
    """An event object that is not valid; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"field {field}: {message}")
        self.field = field
        self.message = message


class _Versioned(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    # keyword-only, so it comes after every event's own fields: ``Observe(t, seat, ...)``
    v: Literal[1] = 1


class Event(_Versioned, frozen=True):
    type: ClassVar[str] = ""
    t: Time

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": 1, "t": self.t, "type": self.type}
        for name in self.__struct_fields__:
            if name in ("t", "v"):
                continue
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


class Observe(Event, frozen=True, tag="observe"):
    type: ClassVar[str] = "observe"
    seat: SeatT
    card: CardT
    zone: ZoneT
    face: FaceT = "unknown"
    level: LevelT = "unknown"
    seen_by: tuple[SeatT, ...] | None = None
    conf: Annotated[float, msgspec.Meta(ge=0, le=1)] | None = None
    rt: Time | None = None
    # the kind of reader that sensed it (``rfid``, ``camera``: its HELLO), journaled by
    # the daemon; absent: not known (then the engine takes the reading as it stands)
    source: SourceT | None = None

    def to_json(self) -> dict[str, Any]:
        # Event.to_json spelled out for the most common line (the same object)
        out: dict[str, Any] = {"v": 1, "t": self.t, "type": "observe", "seat": self.seat,
                               "card": self.card, "zone": self.zone, "face": self.face,
                               "level": self.level}
        if self.seen_by is not None:
            out["seen_by"] = list(self.seen_by)
        if self.conf is not None:
            out["conf"] = self.conf
        if self.rt is not None:
            out["rt"] = self.rt
        if self.source is not None:
            out["source"] = self.source
        return out


class BoardStart(Event, frozen=True, tag="board"):
    type: ClassVar[str] = "board"
    table: Annotated[str, msgspec.Meta(min_length=1)]
    board: Annotated[int, msgspec.Meta(ge=1)]
    dealer: SeatT | None = None
    vul: VulT | None = None
    code: str | None = None


class Setup(Event, frozen=True, tag="setup"):
    type: ClassVar[str] = "setup"
    step: StepT


class Dealt(Event, frozen=True, tag="dealt"):
    type: ClassVar[str] = "dealt"
    hands: dict[SeatT, tuple[CardT, ...]] | None = None
    dealer: SeatT | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.hands is not None:
            out["hands"] = {s: list(c) for s, c in self.hands.items()}
        return out


class Call(Event, frozen=True, tag="call"):
    type: ClassVar[str] = "call"
    seat: SeatT
    call: CallT


class Declare(Event, frozen=True, tag="declare"):
    type: ClassVar[str] = "declare"
    seat: SeatT
    strain: StrainT


class Claim(Event, frozen=True, tag="claim"):
    type: ClassVar[str] = "claim"
    seat: SeatT
    tricks: Tricks | None = None


class Concede(Event, frozen=True, tag="concede"):
    type: ClassVar[str] = "concede"
    seat: SeatT
    tricks: Tricks | None = None
    current: bool | None = None


class Object(Event, frozen=True, tag="object"):
    type: ClassVar[str] = "object"
    seat: SeatT


class Named(Event, frozen=True, tag="named"):
    type: ClassVar[str] = "named"
    seat: SeatT
    card: CardT


class Decide(Event, frozen=True, tag="decide"):
    type: ClassVar[str] = "decide"
    option: Annotated[str, msgspec.Meta(min_length=1)]
    alert: str | None = None
    card: CardT | None = None
    suit: SuitT | None = None
    seat: SeatT | None = None


class Resolve(Event, frozen=True, tag="resolve"):
    type: ClassVar[str] = "resolve"
    alert: str
    note: str = ""


class Reopen(Event, frozen=True, tag="reopen"):
    """A director takes back the answer to an alert (a wrong button, a ruling
    reconsidered): the alert is open again and takes a new decision."""

    type: ClassVar[str] = "reopen"
    alert: str
    note: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (Observe, BoardStart, Setup, Dealt, Call, Declare, Claim, Concede, Object, Named,
                Decide, Resolve, Reopen)
}
COMMAND_TYPES = frozenset(
    ("board", "setup", "call", "declare", "claim", "concede", "object", "named", "decide",
     "resolve", "reopen")
)
# commands taken only under a director's login (``<base>/<table>/cmd/by/<login>``)
DIRECTOR_COMMAND_TYPES = frozenset(("dealt",))


def _get(obj: dict[str, Any], name: str, required: bool = True) -> Any:
    if name not in obj or obj[name] is None:
        if required:
            raise EventError(name, "missing")
        return None
    return obj[name]


_S = TypeVar("_S", bound=str)


def _choice(obj: dict[str, Any], name: str, allowed: tuple[_S, ...], required: bool = True,
            upper: bool = False) -> _S | None:
    value = _get(obj, name, required)
    if value is None:
        return None
    if not isinstance(value, str):
        raise EventError(name, f"expected one of {', '.join(allowed)}, got {value!r}")
    v = value.upper() if upper else value
    if v not in allowed:
        raise EventError(name, f"expected one of {', '.join(allowed)}, got {value!r}")
    return allowed[allowed.index(v)]  # (the value, typed as one of ``allowed``)


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
_CARDS = frozenset(ALL_CARDS)
_ZONES, _FACES, _LEVELS = frozenset(ZONES), frozenset(FACES), frozenset(LEVELS)
_PLAIN_OBSERVE = frozenset(("v", "t", "type", "seat", "card", "zone", "face", "level", "rt",
                            "source"))
_SOURCES = frozenset(vocab.SOURCES)
_SEAT_ORDER = {s: i for i, s in enumerate(SEATS)}
assert len(RANKS) == 13 and len(_CARDS) == 52


def _fast_observe(obj: dict[str, Any]) -> Observe | None:
    """The common case, canonical and complete, without the field-by-field checks."""
    t, seat, card, zone = obj.get("t"), obj.get("seat"), obj.get("card"), obj.get("zone")
    face, level, rt = obj.get("face"), obj.get("level", "unknown"), obj.get("rt")
    source = obj.get("source")
    if (type(t) is int and t >= 0 and type(seat) is str and seat in _SEATS
            and type(card) is str and card in _CARDS and type(zone) is str and zone in _ZONES
            and type(face) is str and face in _FACES and type(level) is str
            and level in _LEVELS and (rt is None or (type(rt) is int and rt >= 0))
            and (source is None or source in _SOURCES)
            and obj.get("v", 1) == 1 and _PLAIN_OBSERVE.issuperset(obj)):
        return Observe(t, seat, card, zone, face, level, rt=rt, source=source)
    return None


_DECODER = msgspec.json.Decoder(
    Union[Observe, BoardStart, Setup, Dealt, Call, Declare, Claim, Concede,  # noqa: UP007
          Object, Named, Decide, Resolve, Reopen])


def _canonical(event: Event) -> bool:
    """Is a decoded event exactly what :func:`parse_event` makes of the same line?

    The types already admit only canonical values; what they cannot say is
    left to the slow path: a missing ``face`` (required unless the card is
    ``gone``, and the default otherwise), ``seen_by`` out of seat order or
    repeated, and a deal that is not four hands of 13 different cards.
    """
    if type(event) is Observe:
        if event.face == "unknown" and event.zone != "gone":
            return False  # given as "unknown", or missing: parse_event tells
        seen = event.seen_by
        return seen is None or list(seen) == sorted(set(seen), key=_SEAT_ORDER.__getitem__)
    if type(event) is Dealt and event.hands is not None:
        hands = event.hands
        return (tuple(hands) == SEATS and all(len(c) == 13 for c in hands.values())
                and len({c for cards in hands.values() for c in cards}) == 52)
    return True


# The decoder and the canonical test of ``fast_event``, for ``journal.parse_lines``,
# which spells ``fast_event`` out (a season of journals is millions of lines).
DECODER = _DECODER
canonical = _canonical


def fast_event(line: bytes | str) -> Event | None:
    """A journal line decoded straight into its event, or None: then ask
    :func:`parse_event` (the line is invalid, not an event, or not canonical)."""
    try:
        event: Event = _DECODER.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    return event if _canonical(event) else None


def decode_event(line: bytes | str) -> Event:
    """One journal line (JSON text) to its typed event.

    Raises :class:`EventError` for a line that is valid JSON but not a valid
    event, ``ValueError`` (``json.JSONDecodeError``) for one that is not JSON;
    the messages are :func:`parse_event`'s and ``json``'s, whichever way the
    line was read.
    """
    event = fast_event(line)
    return event if event is not None else parse_event(json.loads(line))


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
                       _int(obj, "rt", False), _choice(obj, "source", vocab.SOURCES, False))
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
    # resolve, reopen
    alert = _get(obj, "alert")
    note = obj.get("note", "")
    if not isinstance(alert, str):
        raise EventError("alert", f"expected an alert id, got {alert!r}")
    if not isinstance(note, str):
        raise EventError("note", f"expected text, got {note!r}")
    return Resolve(t, alert, note) if kind == "resolve" else Reopen(t, alert, note)


def _req(value: Any) -> Any:
    assert value is not None
    return value
