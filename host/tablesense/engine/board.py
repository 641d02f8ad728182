"""Board state: phases, auction, roles and tricks.

Rule 1 (after h11): every phase change lives in ``NEXT_PHASE`` and every
event a phase accepts in ``ALLOWED``; nothing else moves ``Board.phase``.
The board knows bridge mechanics only; what is an irregularity and what it
costs is for the law codes.
"""

from __future__ import annotations

from typing import Final

from tablesense.contract.cards import SEATS, is_bid, lho, partner, rho, side, suit, trick_winner
from tablesense.contract.vocab import PHASES, Phase, Role
from tablesense.engine.errors import InvalidEvent

_LHO: Final = {s: lho(s) for s in SEATS}
_SIDE: Final = {s: side(s) for s in SEATS}
_ANY_TIME = frozenset(("board", "observe", "decide", "resolve", "reopen",
                        "named"))
ALLOWED: Final[dict[str, frozenset[str]]] = {
    "idle": frozenset(("board",)),
    "setup": _ANY_TIME | {"setup", "dealt"},
    "auction": _ANY_TIME | {"setup", "dealt", "call", "declare"},
    "lead": _ANY_TIME | {"setup", "claim", "concede"},
    "play": _ANY_TIME | {"claim", "concede", "object"},
    "claim": _ANY_TIME | {"claim", "concede", "object"},
    "end": _ANY_TIME | {"setup"},
}
NEXT_PHASE: Final[dict[tuple[str, str], Phase]] = {
    ("idle", "board"): "setup",
    **{(p, "board"): "setup" for p in PHASES},
    **{(p, "setup"): "setup" for p in ("setup", "auction", "lead", "end")},
    ("setup", "dealt"): "auction",
    ("auction", "auction-over"): "lead",
    ("auction", "passed-out"): "end",
    ("lead", "lead-faced"): "play",
    ("lead", "claim"): "claim",
    ("lead", "concede"): "claim",
    ("play", "claim"): "claim",
    ("play", "concede"): "claim",
    ("claim", "claim"): "claim",
    ("claim", "concede"): "claim",
    ("claim", "object"): "play",
    ("play", "last-trick"): "end",
}


class Board:
    """One board at one table: phase, auction, roles, play."""

    def __init__(self, table: str, number: int, dealer: str | None, vul: str | None,
                 code: str | None, whist: bool) -> None:
        self.table = table
        self.number = number
        self.dealer = dealer
        self.vul = vul
        self.code = code
        self.whist = whist
        self.phase: Phase = "setup"
        self.step: str | None = None
        self.reset_deal()

    def setup_step(self, step: str | None) -> None:
        """The setup's step under way (draw, shuffle, cut, deal); None once dealt."""
        self.step = step

    def reset_deal(self) -> None:
        self.dealt = False
        self.hands: dict[str, set[str]] = {s: set() for s in SEATS}
        self.deal: dict[str, tuple[str, ...]] = {}
        self.calls: list[tuple[str, str]] = []
        self.turn: str | None = None
        self.declarer: str | None = None
        self.strain: str | None = None
        self.contract: str | None = None
        self.doubled = 0
        self.whist_declared = False
        self.trick: list[tuple[str, str]] = []
        self.trick_leader: str | None = None
        self.tricks: list[tuple[tuple[tuple[str, str], ...], str]] = []
        self.quitted = True
        self.won = {"NS": 0, "EW": 0}
        self.opening_lead_faced = False
        self.withdrawn: dict[str, int] = {}
        # the table contradicted the deal (engine/fouling.py): holdings are not known
        self.fouled = False

    # -- the state machine -------------------------------------------------
    def check(self, event: str) -> None:
        if event not in ALLOWED[self.phase]:
            raise InvalidEvent(self.phase, event, f"a {event} event cannot come in {self.phase}")

    def move(self, trigger: str) -> None:
        nxt = NEXT_PHASE.get((self.phase, trigger))
        if nxt is None:
            raise InvalidEvent(self.phase, trigger, "no such transition")
        self.phase = nxt

    # -- roles ---------------------------------------------------------------
    @property
    def dummy(self) -> str | None:
        return partner(self.declarer) if self.declarer else None

    @property
    def leader(self) -> str | None:
        return lho(self.declarer) if self.declarer else None

    def role(self, seat: str) -> Role | None:
        if self.declarer is None:
            return None
        roles: dict[str, Role] = {self.declarer: "declarer", partner(self.declarer): "dummy",
                lho(self.declarer): "leader", rho(self.declarer): "leaders-partner"}
        return roles[seat]

    def is_defender(self, seat: str) -> bool:
        return self.declarer is not None and side(seat) != side(self.declarer)

    def controller(self, seat: str) -> str:
        """Who is responsible for a seat's cards in play: declarer for dummy's."""
        if self.declarer is not None and seat == partner(self.declarer) and self.phase in (
                "play", "claim", "end"):
            return self.declarer
        return seat

    # -- deal ------------------------------------------------------------------
    def set_deal(self, hands: dict[str, tuple[str, ...]], dealer: str | None) -> None:
        if dealer is not None:
            self.dealer = dealer
        if self.dealer is None:
            raise InvalidEvent(self.phase, "dealt", "no dealer: give it in board or dealt")
        self.deal = dict(hands)
        self.hands = {s: set(c) for s, c in hands.items()}
        self.dealt = True
        self.turn = self.dealer

    def refound(self, card: str, was: str, seat: str) -> None:
        """The table has ``card`` at ``seat``, not at ``was`` as the deal said (a fouled
        board): it is in ``seat``'s hand from now on, and holdings are known no more.
        ``deal`` stays as it was given (the hand record)."""
        self.hands[was].discard(card)
        self.hands[seat].add(card)
        self.fouled = True

    # -- auction ---------------------------------------------------------------
    def call(self, seat: str, call: str) -> str:
        """Record a call; returns 'continue', 'over' or 'passed-out'."""
        if self.whist:
            return self._whist_call(seat, call)
        if seat != self.turn:
            raise InvalidEvent(self.phase, "call",
                               f"{seat} called out of turn; {self.turn} to call")
        self.calls.append((seat, call))
        self.turn = lho(seat)
        if is_bid(call):
            self.contract, self.doubled = call, 0
        elif call == "X":
            self.doubled = 1
        elif call == "XX":
            self.doubled = 2
        bids = [c for _, c in self.calls if is_bid(c)]
        passes = 0
        for _, c in reversed(self.calls):
            if c != "P":
                break
            passes += 1
        if not bids and passes == 4:
            return "passed-out"
        if bids and passes == 3:
            last_seat = next(s for s, c in reversed(self.calls) if is_bid(c))
            self.strain = bids[-1][1]
            self.declarer = next(s for s, c in self.calls
                                 if is_bid(c) and c[1] == self.strain
                                 and side(s) == side(last_seat))
            self.turn = lho(self.declarer)
            return "over"
        return "continue"

    def declare(self, seat: str, strain: str) -> None:
        """Whist-era trump declaration by the dealer or (passed to him) dummy."""
        if not self.whist:
            raise InvalidEvent(self.phase, "declare", "this code has an auction, not a declaration")
        if self.whist_declared:
            raise InvalidEvent(self.phase, "declare", "trumps were already declared")
        assert self.dealer is not None
        if seat not in (self.dealer, partner(self.dealer)):
            raise InvalidEvent(self.phase, "declare", f"{seat} may not declare trumps")
        self.whist_declared = True
        self.declarer = self.dealer
        self.strain = strain
        self.contract = strain
        self.turn = lho(self.dealer)

    def _whist_call(self, seat: str, call: str) -> str:
        if not self.whist_declared:
            raise InvalidEvent(self.phase, "call", "no trump declaration yet")
        assert self.declarer is not None
        defenders_turn = self.doubled % 2 == 0
        if defenders_turn == (side(seat) == side(self.declarer)):
            raise InvalidEvent(self.phase, "call", f"not {seat}'s side's turn to double")
        self.calls.append((seat, call))
        if call == "P":
            self.turn = lho(self.declarer)
            return "over"
        if call not in ("X", "XX"):
            raise InvalidEvent(self.phase, "call", f"{call} is no call in a whist-era code")
        self.doubled += 1
        return "continue"

    # -- play ------------------------------------------------------------------
    @property
    def trumps(self) -> str | None:
        return None if self.strain in (None, "N") else self.strain

    def led_suit(self) -> str | None:
        return suit(self.trick[0][1]) if self.trick else None

    def trick_complete(self) -> bool:
        return len(self.trick) == 4

    # The members below run a few times for every card played: trick_complete() and
    # lho() are written out in them.
    def next_to_play(self) -> str | None:
        if self.phase != "play" and self.phase != "lead":
            return None
        trick = self.trick
        if not trick or len(trick) == 4:
            return self.turn
        return _LHO[trick[-1][0]]

    def holds_suit(self, seat: str, s: str) -> bool:
        """As far as the deal tells; a fouled deal tells nothing (no revoke on it)."""
        return not self.fouled and any(c[0] == s for c in self.hands[seat])  # (suit(c))

    def is_legal(self, seat: str, card: str) -> bool:
        trick = self.trick
        if not trick or len(trick) == 4:
            return True  # nothing led
        led = trick[0][1][0]
        return card[0] == led or not self.holds_suit(seat, led)

    def start_new_trick(self) -> None:
        if self.trick_complete():
            self.quit_trick()

    def quit_trick(self) -> None:
        if len(self.trick) == 4:
            self.trick = []
        self.quitted = True

    def add_play(self, seat: str, card: str) -> str | None:
        """A card played by ``seat`` (in turn); returns the trick's winner when complete."""
        if len(self.trick) == 4:
            self.quit_trick()
            self.withdrawn.clear()
        trick = self.trick
        if not trick:
            self.trick_leader = seat
            self.quitted = False
        self.hands[seat].discard(card)
        if self.withdrawn and seat in self.withdrawn:
            # back in his place in rotation from the trick's leader (several players may
            # have taken back their cards, each leaving a place)
            del self.withdrawn[seat]
            lead = SEATS.index(self.trick_leader or seat)
            mine = (SEATS.index(seat) - lead) % 4
            trick.insert(sum((SEATS.index(s) - lead) % 4 < mine for s, _ in trick),
                         (seat, card))
        else:
            trick.append((seat, card))
        if len(trick) < 4:
            self.turn = _LHO[trick[-1][0]]
            return None
        strain = self.strain
        winner = trick_winner(trick, None if strain == "N" else strain)  # (self.trumps)
        self.tricks.append((tuple(trick), winner))
        self.won[_SIDE[winner]] += 1
        self.turn = winner
        return winner

    def take_back(self, seat: str, card: str, keep_place: bool = True) -> bool:
        """Withdraw ``seat``'s card from the current trick, a complete one not yet
        quitted included (its result is undone).

        With ``keep_place`` a card that ``seat`` then plays takes the withdrawn
        card's place.
        """
        if (seat, card) not in self.trick:
            return False
        complete = self.trick_complete()
        if complete:
            if self.quitted or not self.tricks:
                return False
            _, winner = self.tricks.pop()
            self.won[side(winner)] -= 1
        idx = self.trick.index((seat, card))
        del self.trick[idx]
        self.hands[seat].add(card)
        if keep_place:
            self.withdrawn[seat] = idx
            if idx == len(self.trick):
                self.turn = seat
            elif complete:
                self.turn = lho(self.trick[-1][0])
        return True

    def set_aside_trick(self) -> None:
        """An incomplete trick the table has quitted: its cards stay played, the trick
        is not counted (the engine could not place all four; the director decides)."""
        for seat, _ in self.trick:
            self.withdrawn.pop(seat, None)
        self.trick = []
        self.quitted = True

    def accept_lead(self, seat: str) -> None:
        """A lead out of turn stands: ``seat`` leads the trick (the last one is quitted)."""
        if self.trick_complete():
            self.quit_trick()
        self.turn = seat

    def swap_declarer(self) -> None:
        """2017 Law 54A: declarer's partner becomes declarer."""
        assert self.declarer is not None
        self.declarer = partner(self.declarer)

    def face_opening_lead(self) -> None:
        self.opening_lead_faced = True
        self.move("lead-faced")

    def all_played(self) -> bool:
        return len(self.tricks) == 13
