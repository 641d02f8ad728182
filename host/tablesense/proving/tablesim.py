"""The simulated table the irregular-board generator plays on (``proving/irregular.py``).

A ``_Table`` holds what a club table knows: who holds what, where each card lies,
what each player owes (a penalty card, an exposed card), the trick in progress, and
the journal the readers and terminals would write. It plays a board trick by trick;
at each turn it asks its subclasses' irregularities (``_inject``, by plan kind) whether
one happens there. Nothing here looks at the engine.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Final

from tablesense.contract.cards import (
    SEATS,
    SUITS,
    lho,
    partner,
    rank_value,
    side,
    suit,
    trick_winner,
)
from tablesense.contract.vocab import Face, Zone
from tablesense.sim.robots import auction, deal, declarer_of

Event = dict[str, Any]

CODES: Final = ("duplicate-2017", "portland-1904", "american-1907", "auction-1913",
                "auction-1929")
WHIST: Final = frozenset(("portland-1904", "american-1907"))
# Dummy is spread on any opening lead, in turn or not (Portland L62; 1929 inherits it).
DUMMY_DOWN_ON_ANY_LEAD: Final = frozenset(("portland-1904", "auction-1929"))
STEP_MS: Final = 1500
GESTURE_MS: Final = 40  # between the cards of one gesture (a spread, a quit)
TOGETHER_MS: Final = 50  # two cards arriving together


@dataclass(frozen=True)
class IrregularBoard:
    """One generated board: its journal events, the incidents injected and what they were."""

    seed: int
    code: str
    events: tuple[Event, ...]
    incidents: int
    injected: tuple[str, ...]
    # the table before each event: tricks completed, and the cards counted in the trick
    # in progress (a trick of four counts as completed); for diagnoses
    truth: tuple[tuple[int, tuple[tuple[str, str], ...]], ...] = ()
    at: tuple[int, ...] = ()  # the event at which each of ``injected`` was made
    tricks: tuple[tuple[tuple[str, str], ...], ...] = ()  # each trick as the table played it
    # the play stopped at a claim the table made without a claim event (under 2017 a
    # defender laying his whole hand face up: the director settles it)
    claimed: bool = False

    def lines(self) -> list[str]:
        """The journal, one compact JSON object a line (no newline)."""
        return [json.dumps(e, separators=(",", ":")) for e in self.events]


@dataclass
class _Plan:
    kind: str
    trick: int  # the first trick at which it may happen (-1: before the opening lead)
    stage: int = 0
    target: tuple[str, str] | None = None  # (seat, card) a later stage is about
    done: bool = False


@dataclass
class _Fix:
    """A revoke to correct once ``after`` more cards have joined the trick."""

    seat: str
    card: str
    plays: int


@dataclass
class _Sim:
    rng: random.Random
    code: str
    table: str
    number: int
    t: int = 0
    events: list[Event] = field(default_factory=list)
    truth: list[tuple[int, tuple[tuple[str, str], ...]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    at: list[int] = field(default_factory=list)
    tricks: list[tuple[tuple[str, str], ...]] = field(default_factory=list)
    incidents: int = 0
    trick_no: int = -1
    trick: list[tuple[str, str]] = field(default_factory=list)

    # -- the journal ---------------------------------------------------------
    def ev(self, obj: Event, gap: int = STEP_MS) -> None:
        self.events.append({"v": 1, "t": self.t, **obj})
        done = max(self.trick_no, 0)
        self.truth.append((done + 1, ()) if len(self.trick) == 4 else (done, tuple(self.trick)))
        self.t += gap

    def obs(self, seat: str, card: str, zone: Zone, face: Face = "up", gap: int = STEP_MS,
            seen_by: list[str] | None = None) -> None:
        ev: Event = {"type": "observe", "seat": seat, "card": card, "zone": zone,
                     "face": face, "level": "at"}
        if seen_by is not None:
            ev["seen_by"] = seen_by
        self.ev(ev, gap)

    def decide(self, option: str, **extra: str) -> None:
        self.ev({"type": "decide", "option": option, **extra})

    def note(self, kind: str, text: str, incidents: int = 1) -> None:
        self.incidents += incidents
        self.notes.append(f"{kind}: {text}")
        self.at.append(len(self.events) - 1)


class _Table(_Sim):
    """The physical table: who holds what, where the cards lie, what the players owe."""

    def __init__(self, rng: random.Random, code: str, table: str, number: int,
                 plans: list[_Plan]) -> None:
        super().__init__(rng, code, table, number)
        self.plans = plans
        self.old = code != "duplicate-2017"
        self.hands: dict[str, set[str]] = {}
        self.faceup: dict[str, list[str]] = {s: [] for s in SEATS}  # not dummy's display
        self.owed: dict[str, list[str]] = {s: [] for s in SEATS}  # to play at first chance
        self.major: set[str] = set()
        self.waiting: dict[str, str] = {}  # a premature card lying in its trick zone
        self.lead_call: dict[str, str] = {}  # side -> suit to lead when that side next leads
        self.fix: _Fix | None = None
        self.spread = False
        self.dummy_seen = False  # a card of dummy's was exposed before the opening lead
        self.declarer = self.dummy = ""
        self.trumps: str | None = None
        self.skip_option = False  # the next lead comes before declarer chose (50D2)
        self.claimed = False

    # -- the board ---------------------------------------------------------------
    def run(self) -> None:
        dealer = SEATS[(self.number - 1) % 4]
        board: Event = {"type": "board", "table": self.table, "board": self.number,
                        "dealer": dealer, "vul": "None", "code": self.code}
        self.ev(board)
        hands, calls = self._deal_and_bid(dealer)
        self.hands = {s: set(h) for s, h in hands.items()}
        self.ev({"type": "dealt", "hands": hands})
        if self.code in WHIST:
            strain = calls[0][1]
            self.declarer = dealer
            self.ev({"type": "declare", "seat": dealer, "strain": strain})
            self.ev({"type": "call", "seat": lho(dealer), "call": "P"}, 2000)
        else:
            for seat, call in calls:
                self.ev({"type": "call", "seat": seat, "call": call}, 2000)
            contract = declarer_of(calls)
            assert contract is not None
            self.declarer, strain = contract
        self.trumps = None if strain == "N" else strain
        self.dummy = partner(self.declarer)
        self._before_lead()
        leader = lho(self.declarer)
        claim_at = self.rng.randrange(9, 13) if self.rng.random() < 0.1 else 99
        for trick_no in range(13):
            if trick_no == claim_at and all(p.done for p in self.plans) and not self.waiting:
                self.ev({"type": "claim", "seat": self.declarer})
                return
            leader = self._trick(trick_no, leader)

    def _deal_and_bid(self, dealer: str) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
        while True:
            hands = deal(self.rng)
            if self.code in WHIST:
                h = hands[dealer]
                longest = max(SUITS, key=lambda s: (sum(1 for c in h if suit(c) == s), s))
                n = sum(1 for c in h if suit(c) == longest)
                return hands, [(dealer, longest if n >= 5 else "N")]
            calls = auction(hands, dealer, self.rng)
            if declarer_of(calls) is not None:
                return hands, calls

    # -- holdings ----------------------------------------------------------------
    def holding(self, seat: str) -> list[str]:
        return sorted(self.hands[seat] | set(self.faceup[seat]), key=_order)

    def legal(self, seat: str, led: str | None) -> list[str]:
        cards = self.holding(seat)
        same = [c for c in cards if led is not None and suit(c) == led]
        return same or cards

    def choose(self, seat: str, led: str | None) -> str:
        """The card a player at a club table would play: what he owes first."""
        legal = self.legal(seat, led)
        if led is None:
            # a suit the declarer called for this lead comes first: a card owed (exposed,
            # liable to be called) of another suit waits (led against the call, it would
            # be a failure to comply)
            want = self.lead_call.pop(side(seat), None)
            legal = [c for c in legal if suit(c) == want] or legal
        for c in self.owed[seat]:
            if c in legal:
                return c
        return legal[-1] if self.rng.random() < 0.5 else legal[0]

    def take(self, seat: str, card: str) -> None:
        self.hands[seat].discard(card)
        if card in self.faceup[seat]:
            self.faceup[seat].remove(card)
        if card in self.owed[seat]:
            self.owed[seat].remove(card)

    def owe(self, seat: str, card: str, major: bool, on_table: bool) -> None:
        self.owed[seat].append(card)
        if major:
            self.major.add(card)
        if on_table:
            self.hands[seat].discard(card)
            self.faceup[seat].append(card)

    def put_back(self, seat: str, card: str) -> None:
        """A card taken back into the hand (dummy's: into the display)."""
        if seat == self.dummy and self.spread:
            self.obs(seat, card, "table", "up")
        else:
            self.obs(seat, card, "hand", "down")
        self.hands[seat].add(card)

    def defender(self, seat: str) -> bool:
        return side(seat) != side(self.declarer)

    def play(self, seat: str, card: str, gap: int = STEP_MS) -> None:
        self.take(seat, card)
        self.obs(seat, card, "trick", gap=gap)

    def spread_dummy(self) -> None:
        if self.spread:
            return
        self.spread = True
        for c in sorted(self.hands[self.dummy], key=_order):
            if c not in self.faceup[self.dummy]:
                self.obs(self.dummy, c, "table", gap=GESTURE_MS)
        for c in self.faceup[self.dummy]:  # an exposed card left face up: now displayed
            self.hands[self.dummy].add(c)
        self.faceup[self.dummy] = []
        self.owed[self.dummy] = []
        self.t += STEP_MS - GESTURE_MS

    # -- one trick -----------------------------------------------------------------
    def _trick(self, trick_no: int, leader: str) -> str:
        self.trick = []
        self.trick_no = trick_no
        seat = leader
        while len(self.trick) < 4:
            if seat in self.waiting:
                self.trick.append((seat, self.waiting.pop(seat)))
                seat = lho(seat)
                continue
            if not self.holding(seat):
                raise _Stuck(f"{seat} has no card at trick {trick_no + 1}")
            nxt = self._inject(trick_no, seat)
            if nxt is None:
                if not self.trick:
                    self._before_lead_by(seat)
                led = suit(self.trick[0][1]) if self.trick else None
                card = self.choose(seat, led)
                if trick_no == 0 and not self.trick and not self.old and self.rng.random() < 0.5:
                    self.take(seat, card)  # 2017 Law 41A: the opening lead face down first
                    self.obs(seat, card, "trick", "down")
                    self.obs(seat, card, "trick")
                else:
                    self.play(seat, card)
                self.trick.append((seat, card))
                nxt = lho(seat)
            if trick_no == 0 and self.trick:
                self.spread_dummy()
            self._maybe_fix()
            seat = nxt
        self._maybe_fix(final=True)
        self.tricks.append(tuple(self.trick))
        for s, c in self.trick:
            self.obs(s, c, "table", "down", gap=GESTURE_MS)
        self.t += STEP_MS - GESTURE_MS
        return trick_winner(self.trick, self.trumps)

    def _before_lead_by(self, seat: str) -> None:
        """2017 Law 50D2: declarer's lead options, each time the partner of a major
        penalty card's holder is to lead; the table's director hears 'it remains'."""
        if self.old:
            return
        if self.skip_option:
            self.skip_option = False  # he leads before declarer has chosen
            return
        if any(c in self.major for c in self.owed[partner(seat)]) and self.defender(seat):
            self.decide("pc-remains")  # the withdrawn card of a revoke too (62B1)

    def _maybe_fix(self, final: bool = False) -> None:
        f = self.fix
        if f is None or (len(self.trick) < f.plays and not final):
            return
        self.fix = None
        led = suit(self.trick[0][1])
        idx = self.trick.index((f.seat, f.card))
        self.put_back(f.seat, f.card)
        del self.trick[idx]
        right = self.choose(f.seat, led)
        self.play(f.seat, right)
        self.trick.insert(idx, (f.seat, right))
        if self.defender(f.seat):  # 2017 Law 62B1 major penalty card; old codes: exposed
            self.owed[f.seat].append(f.card)
            self.major.add(f.card)
        # 2017 Law 62C1 (and the old codes' like rule): a non-offender who played after
        # the revoke may take his card back and play another
        for i in range(idx + 1, len(self.trick)):
            s, c = self.trick[i]
            # his other legal cards once c is back in his hand: c may be his only card of
            # the suit led, and another card then a revoke
            held = [*self.holding(s), c]
            same = [x for x in held if suit(x) == led]
            others = [x for x in (same or held) if x in self.hands[s] and x != c]
            if side(s) == side(f.seat) or not others or self.owed[s] or self.rng.random() < 0.6:
                continue
            self.put_back(s, c)
            del self.trick[i]
            other = self.rng.choice(others)
            self.play(s, other)
            self.trick.insert(i, (s, other))
            self.notes[-1] += f"; {s} took back {c} and played {other}"

    def _before_lead(self) -> None:
        """Irregularities before the opening lead (a subclass's)."""

    def _due(self, trick_no: int) -> list[_Plan]:
        return [p for p in self.plans if not p.done and 0 <= p.trick <= trick_no]

    def _inject(self, trick_no: int, seat: str) -> str | None:
        """Inject what is due at ``seat``'s turn; returns the next seat to play when the
        irregularity took the turn (a card played, a lead out of turn), else None."""
        for p in self._due(trick_no):
            fn = getattr(self, "_" + p.kind.replace("-", "_"))
            nxt: str | None = fn(p, trick_no, seat)
            if p.done or nxt is not None:
                return nxt
        return None

    def _later(self, seat: str, kinds: str) -> list[str]:
        """Seats still to play to this trick after ``seat``, of ``kinds`` (defenders or
        declarer's side), with no card waiting."""
        out, s = [], lho(seat)
        while s != self.trick[0][0]:
            if s not in self.waiting and self.defender(s) == (kinds == "defender"):
                out.append(s)
            s = lho(s)
        return out

class _Ended(Exception):
    """The play stopped at a claim made without a claim event (the journal ends)."""


class _Stuck(Exception):
    """The simulated play cannot go on (a bug of the generator, not of the engine)."""


def _order(card: str) -> tuple[int, int]:
    return SUITS.index(suit(card)), -rank_value(card)



__all__ = ["CODES", "DUMMY_DOWN_ON_ANY_LEAD", "GESTURE_MS", "STEP_MS", "TOGETHER_MS", "WHIST",
           "Event", "IrregularBoard", "_Ended", "_Fix", "_Plan", "_Stuck", "_Table", "_order"]
