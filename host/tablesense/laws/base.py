"""The law code base class: the hooks the engine calls, and what codes share.

A code is a class with a few ``ClassVar`` switches and hook methods; later
codes subclass the code they refine (as python-chess does with its variants).
The engine detects *what happened* (a card dropped, a lead out of turn, cards
played together); the code decides *what it costs*: it reads the table through
a read-only ``TableView``, makes rulings with ``TableView.emit`` and asks for
every other change with a typed effect (``TableView.do``). Every hook is a few lines that ask small
predicates, so a code that differs in one predicate overrides only that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from tablesense.contract.cards import SEAT_NAMES, SUIT_NAMES, describe_cards, partner, side
from tablesense.engine.effects import TakeBack
from tablesense.engine.ruling import Draft
from tablesense.laws.state import CodeState

if TYPE_CHECKING:
    from tablesense.contract.events import Call, Claim, Concede, Decide, Declare, Named, Observe
    from tablesense.contract.vocab import Kind, Option, Severity, Until
    from tablesense.engine.ruling import Ruling
    from tablesense.engine.tracker import Position
    from tablesense.engine.view import BoardView, TableView


# One answer closes rulings of these kinds for further `decide` events (LawCode.closes).
ONE_ANSWER = frozenset(("lead-out-of-turn", "penalty-card-not-played", "premature-play",
                        "cards-played-together", "new-deal", "exposed-card", "misnamed-card"))


def name(seat: str | None) -> str:
    return SEAT_NAMES.get(seat or "", "the player")


def cards_text(cards: tuple[str, ...] | list[str]) -> str:
    return describe_cards(list(cards))


def suit_name(s: str) -> str:
    return SUIT_NAMES[s]


def trick_no(b: BoardView) -> int:
    """The number of the trick being played (from 0), a complete one not yet quitted
    included."""
    return len(b.tricks) - (len(b.trick) == 4)


def played_after(b: BoardView, seat: str, card: str) -> list[str]:
    """The seats that played to the current trick after ``seat``'s ``card``."""
    seats = [s for s, _ in b.trick]
    return seats[seats.index(seat) + 1:] if (seat, card) in b.trick else []


StateT = TypeVar("StateT", bound=CodeState)


class LawCode(Generic[StateT]):
    """Base of every law code. Hooks default to 'nothing to rule'.

    ``state`` is the code's own state for the deal being played, of the type its
    code makes (``new_state``): the code alone reads and changes it, and may replace
    it (a new round of the setup); the engine starts it afresh with ``new_deal`` and
    reads it for the table's state topic only (engine/obligations.py)."""

    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    year: ClassVar[int] = 0
    source: ClassVar[str] = ""
    whist: ClassVar[bool] = False  # dealer declares trumps and is always the declarer
    # duplicate boards, numbered: Law 2 gives each its dealer and vulnerability
    numbered_boards: ClassVar[bool] = False
    # situation -> what this code rules (``tablesense explain``, docs/laws/compare.md)
    rules: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self.state: StateT = self.new_state()

    def new_state(self) -> StateT:
        """This code's own state for a new deal."""
        raise NotImplementedError

    def new_deal(self) -> None:
        """A new board, or a new round of its setup: nothing owed carries over."""
        self.state = self.new_state()

    # -- helpers shared by codes -------------------------------------------------
    def draft(self, kind: Kind, citation: str, text: str, *, severity: Severity = "penalty",
              offender: str | None = None, cards: tuple[str, ...] = (),
              options: tuple[Option, ...] = (), until: Until | None = None,
              supersedes: tuple[str, ...] | list[str] = ()) -> Draft:
        return Draft(kind=kind, citation=citation, text=text, severity=severity,
                     offender=offender, cards=tuple(cards), options=tuple(options), until=until,
                     supersedes=tuple(supersedes))

    def sensor_conflict(self, tv: TableView, o: Observe) -> None:
        prev = tv.where(o.card)
        other = prev.seat if prev else "another seat"
        if prev is not None and prev.seat == o.seat:  # a tag and a camera, one seat apart
            text = (f"The {o.card} is sensed in {name(o.seat)}'s {o.zone} zone by one "
                    f"reader and in his {prev.zone} zone by another: check the readers; "
                    "this is never a penalty.")
        else:
            text = (f"The {o.card} is sensed at {name(o.seat)}'s seat while {name(other)}'s "
                    "reader still senses it: check the readers; this is never a penalty.")
        tv.emit(self.draft("sensor-conflict", "none (sensor fault)", text,
                           severity="director", cards=(o.card,)), o.t)

    # what the code says of a deal the table contradicts (2017: Law 87, a fouled board)
    fouled_citation: ClassVar[str] = "none (the hand record is contradicted)"

    def fouled_board(self, tv: TableView, card: str, record: str, seat: str, t: int) -> None:
        """The table has ``card`` at ``seat``; the hand record gives it to ``record``."""
        text = (f"The {card} is sensed at {name(seat)}'s seat, but the hand record gives it "
                f"to {name(record)}: the board may be fouled. The director decides how it is "
                "played and scored; the play is followed as the table shows it, and nothing "
                "is ruled on the record's holdings. This is never a penalty.")
        tv.emit(self.draft("fouled-board", self.fouled_citation, text, severity="director",
                           cards=(card,)), t)

    def establish_revokes(self, tv: TableView, seat: str | None, t: int) -> None:
        """Rule on revokes that the play (or a claim, when ``seat`` is None) establishes."""
        b = tv.b
        for rseat, (card, trick_no) in list(self.state.revokes.items()):
            if seat is None or (len(b.tricks) > trick_no and side(seat) == side(rseat)):
                del self.state.revokes[rseat]
                self.revoke(tv, rseat, card, t)

    def revoke(self, tv: TableView, seat: str, card: str, t: int) -> None:
        """An established revoke by the holder of ``seat``."""

    # -- hooks -----------------------------------------------------------------
    def setup_exposure(self, tv: TableView, o: Observe, prev: Position | None) -> None:
        """A card face up before the auction; ``prev``: where the readers had it before."""
    def exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], how: str, vis: str,
                 t: int, obs: list[Observe]) -> None: ...
    def thrown_hand(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str, t: int,
                    obs: list[Observe]) -> None:
        self.exposure(tv, seat, cards, "thrown", vis, t, obs)

    def claim_exposure(self, tv: TableView, seat: str, cards: tuple[str, ...], vis: str,
                       t: int) -> None: ...
    def named(self, tv: TableView, e: Named) -> None: ...
    def arrival(self, tv: TableView, seat: str, o: Observe) -> None: ...
    def plain_play(self, tv: TableView, seat: str, card: str) -> bool:
        """Would ``arrival``, ``before_play`` and ``after_play`` of ``seat``'s ``card``,
        sensed in his trick zone at his turn during the play (no opening lead), do nothing
        but count it as played (the effect ``Play``), this code's state left as it is?
        Then the engine counts it without calling them (its fast path for a play). A code
        answers from its own obligations; False, the safe answer, calls them all."""
        return False

    def played_together(self, tv: TableView, seat: str, obs: list[Observe]) -> None: ...
    def withdrawn(self, tv: TableView, o: Observe) -> None: ...
    def before_play(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None: ...
    def after_play(self, tv: TableView, seat: str, card: str, leading: bool, t: int) -> None: ...
    def before_call(self, tv: TableView, e: Call) -> None: ...
    def after_call(self, tv: TableView, e: Call) -> None: ...
    def after_declare(self, tv: TableView, e: Declare) -> None: ...
    def auction_end(self, tv: TableView, t: int) -> None: ...
    def on_claim(self, tv: TableView, e: Claim | Concede) -> None:
        self.establish_revokes(tv, None, e.t)

    def end_of_play(self, tv: TableView, t: int) -> None: ...
    def decide(self, tv: TableView, r: Ruling, d: Decide) -> None: ...
    def closes(self, r: Ruling, option: str) -> bool:
        """Does answering ``r`` with ``option`` close it for further decides?"""
        return r.kind in ONE_ANSWER

    # Who may take back a card played after a revoke corrected in the trick: the
    # non-offending side (2017 Law 62C1), or (the old codes' Law 94) everyone.
    either_side_after_revoke: ClassVar[bool] = False

    def took_back_after_revoke(self, tv: TableView, seat: str, card: str, t: int) -> bool:
        """``seat`` took back the card he played after a revoke corrected in this trick, as
        the law lets him (``CodeState.after_revoke``): it leaves the trick, his place kept
        for the card he plays instead, and it is no exposed card."""
        b = tv.b
        after = self.state.after_revoke
        if (after is None or after[0] != trick_no(b) or seat not in after[1] or b.quitted
                or (seat, card) not in b.trick or not tv.do(TakeBack(seat, card), t)):
            return False
        after[1].discard(seat)
        return True

    def revoke_taken_back(self, tv: TableView, seat: str, card: str, t: int) -> bool:
        """``seat`` took back ``card``, his revoke in this trick (the code rules on the
        correction): withdrawn, and those who played after him may take theirs back
        (``CodeState.after_revoke``). False: not a revoke of his, or not withdrawn."""
        b = tv.b
        rev = self.state.revokes.get(seat)
        if rev is None or rev[0] != card:
            return False
        after = played_after(b, seat, card)
        if not tv.do(TakeBack(seat, card), t):
            return False
        del self.state.revokes[seat]
        self.state.after_revoke = (trick_no(b), {
            s for s in after if self.either_side_after_revoke or side(s) != side(seat)})
        return True

    def observed(self, tv: TableView, o: Observe, prev: Position | None) -> None:
        """Every observation, after the tracker has recorded it (before any incident).
        Only when ``observes``: a code that overrides this hook says so by doing it."""

    # Does ``observed`` do anything? Set for every code class from whether it overrides
    # the hook: the engine skips the call (nearly every observation) when it does not.
    observes: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.observes = cls.observed is not LawCode.observed

    def after_dealt(self, tv: TableView, t: int) -> None:
        """The deal is complete: a later exposure in a new setup may be ruled again."""
        self.state.redeal_ruled = False
    def quitted(self, tv: TableView, t: int) -> None:
        """A complete trick was turned face down (quitted)."""

    def holds_back(self, tv: TableView, seat: str, card: str) -> bool:
        """Is ``seat``'s card lying in his trick zone kept from counting as his play at
        his turn (an answer it waits for, a law that takes it back)?"""
        return False

    def out_of_step(self, tv: TableView, facts: str, t: int) -> None:
        """The readers show what no legal sequence explains: one ruling for the director."""
        tv.emit(self.draft(
            "out-of-step", "none (the table and the engine disagree)",
            f"{facts} The engine follows the cards on the table from here; the director "
            "should check the trick and rule on what really happened.",
            severity="director"), t)


def partner_of(seat: str) -> str:
    return partner(seat)
