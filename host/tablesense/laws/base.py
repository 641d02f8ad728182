"""The law code base class: the hooks the engine calls, and what codes share.

A code is a class with a few ``ClassVar`` switches and hook methods; later
codes subclass the code they refine (see ../shared/style.md on python-chess
variants). The engine detects *what happened* (a card dropped, a lead out of
turn, cards played together); the code decides *what it costs* and emits
rulings through ``Engine.emit``. Every hook is a few lines that ask small
predicates, so a code that differs in one predicate overrides only that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tablesense.cards import SEAT_NAMES, SUIT_NAMES, describe_cards, partner, side
from tablesense.engine.ruling import Draft

if TYPE_CHECKING:
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.table import Engine
    from tablesense.engine.tracker import Position
    from tablesense.events import Call, Claim, Concede, Decide, Declare, Named, Observe


# One answer closes rulings of these kinds for further `decide` events (LawCode.closes).
ONE_ANSWER = frozenset(("lead-out-of-turn", "penalty-card-not-played", "premature-play",
                        "cards-played-together", "new-deal", "exposed-card", "misnamed-card"))


class UnknownCode(KeyError):
    def __init__(self, code_id: str, known: list[str]) -> None:
        super().__init__(code_id)
        self.code_id = code_id
        self.known = known

    def __str__(self) -> str:
        return f"unknown law code {self.code_id!r} (known: {', '.join(self.known)})"


def name(seat: str | None) -> str:
    return SEAT_NAMES.get(seat or "", "the player")


def cards_text(cards: tuple[str, ...] | list[str]) -> str:
    return describe_cards(list(cards))


def suit_name(s: str) -> str:
    return SUIT_NAMES[s]


class LawCode:
    """Base of every law code. Hooks default to 'nothing to rule'."""

    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    year: ClassVar[int] = 0
    source: ClassVar[str] = ""
    whist: ClassVar[bool] = False  # dealer declares trumps and is always the declarer
    # situation -> what this code rules (``tablesense explain``, docs/laws/compare.md)
    rules: ClassVar[dict[str, str]] = {}

    # -- helpers shared by codes -------------------------------------------------
    def draft(self, kind: str, citation: str, text: str, *, severity: str = "penalty",
              offender: str | None = None, cards: tuple[str, ...] = (),
              options: tuple[str, ...] = (), until: str | None = None,
              supersedes: tuple[str, ...] | list[str] = ()) -> Draft:
        return Draft(kind=kind, citation=citation, text=text, severity=severity,
                     offender=offender, cards=tuple(cards), options=tuple(options), until=until,
                     supersedes=tuple(supersedes))

    def sensor_conflict(self, eng: Engine, o: Observe) -> None:
        prev = eng.tracker.where(o.card)
        other = prev.seat if prev else "another seat"
        eng.emit(self.draft(
            "sensor-conflict", "none (sensor fault)",
            f"The {o.card} is sensed at {name(o.seat)}'s seat while {name(other)}'s reader "
            f"still senses it: check the readers; this is never a penalty.",
            severity="director", cards=(o.card,)), o.t)

    def establish_revokes(self, eng: Engine, seat: str | None, t: int) -> None:
        """Rule on revokes that the play (or a claim, when ``seat`` is None) establishes."""
        b = eng.b
        for rseat, (card, trick_no) in list(eng.ob.revokes.items()):
            if seat is None or (len(b.tricks) > trick_no and side(seat) == side(rseat)):
                del eng.ob.revokes[rseat]
                self.revoke(eng, rseat, card, t)

    def revoke(self, eng: Engine, seat: str, card: str, t: int) -> None:
        """An established revoke by the holder of ``seat``."""

    # -- hooks -----------------------------------------------------------------
    def setup_exposure(self, eng: Engine, o: Observe) -> None: ...
    def exposure(self, eng: Engine, seat: str, cards: tuple[str, ...], how: str, vis: str,
                 t: int, obs: list[Observe]) -> None: ...
    def thrown_hand(self, eng: Engine, seat: str, cards: tuple[str, ...], vis: str, t: int,
                    obs: list[Observe]) -> None:
        self.exposure(eng, seat, cards, "thrown", vis, t, obs)

    def claim_exposure(self, eng: Engine, seat: str, cards: tuple[str, ...], vis: str,
                       t: int) -> None: ...
    def named(self, eng: Engine, e: Named) -> None: ...
    def arrival(self, eng: Engine, seat: str, o: Observe) -> None: ...
    def played_together(self, eng: Engine, seat: str, obs: list[Observe]) -> None: ...
    def withdrawn(self, eng: Engine, o: Observe) -> None: ...
    def before_play(self, eng: Engine, seat: str, card: str, leading: bool, t: int) -> None: ...
    def after_play(self, eng: Engine, seat: str, card: str, leading: bool, t: int) -> None: ...
    def before_call(self, eng: Engine, e: Call) -> None: ...
    def after_call(self, eng: Engine, e: Call) -> None: ...
    def after_declare(self, eng: Engine, e: Declare) -> None: ...
    def auction_end(self, eng: Engine, t: int) -> None: ...
    def on_claim(self, eng: Engine, e: Claim | Concede) -> None:
        self.establish_revokes(eng, None, e.t)

    def end_of_play(self, eng: Engine, t: int) -> None: ...
    def decide(self, eng: Engine, r: Ruling, d: Decide) -> None: ...
    def closes(self, r: Ruling, option: str) -> bool:
        """Does answering ``r`` with ``option`` close it for further decides?"""
        return r.kind in ONE_ANSWER

    def observed(self, eng: Engine, o: Observe, prev: Position | None) -> None:
        """Every observation, after the tracker has recorded it (before any incident)."""

    def after_dealt(self, eng: Engine, t: int) -> None: ...
    def quitted(self, eng: Engine, t: int) -> None:
        """A complete trick was turned face down (quitted)."""


def partner_of(seat: str) -> str:
    return partner(seat)
