"""Simple robot players: whole boards as journal events, for the demo, the
benchmarks and property tests.

A robot deals, bids a plausible contract, and plays legal cards (following
suit when it can), producing exactly the events the readers and terminals of
a real table would: ``board``, ``dealt``, ``call``, and ``observe`` events
for every card led, played, spread as dummy and turned over at the end of a
trick. Now and then (``mishaps``) a robot errs the way people do: it drops a
card face up, leads out of turn, or shows a card to its partner.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterator
from typing import Any

from tablesense.contract.boards import dealer_of, vul_of
from tablesense.contract.cards import ALL_CARDS, SEATS, lho, partner, rank_value, suit, trick_winner

MISHAPS = ("drop", "lead-out-of-turn", "show")
Event = dict[str, Any]


def deal(rng: random.Random) -> dict[str, list[str]]:
    cards = list(ALL_CARDS)
    rng.shuffle(cards)
    return {s: sorted(cards[i * 13:(i + 1) * 13], key=ALL_CARDS.index)
            for i, s in enumerate(SEATS)}


def hcp(hand: list[str]) -> int:
    return sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[1], 0) for c in hand)


def auction(hands: dict[str, list[str]], dealer: str, rng: random.Random) -> list[tuple[str, str]]:
    """A short, legal auction: the strongest hand opens its longest suit (or NT), its
    partner may raise to game, everyone else passes. Passed out when nobody has 12."""
    calls: list[tuple[str, str]] = []
    seat = dealer
    opener = None
    for _ in range(4):
        if opener is None and hcp(hands[seat]) >= 12:
            opener = seat
            break
        calls.append((seat, "P"))
        seat = lho(seat)
    if opener is None:
        return calls
    longest = max("SHDC", key=lambda s: (sum(1 for c in hands[opener] if c[0] == s), s))
    length = sum(1 for c in hands[opener] if c[0] == longest)
    strain = longest if length >= 5 else "N"
    opening = "1" + strain
    calls.append((opener, opening))
    seat = lho(opener)
    final = opening
    raised = False
    passes = 0
    while passes < 3:
        if seat == partner(opener) and not raised:
            raised = True
            if hcp(hands[seat]) + hcp(hands[opener]) >= 25:
                game = "3N" if strain == "N" else "4" + strain
                final = game if rng.random() < 0.9 else "2" + strain
                calls.append((seat, final))
                passes = 0
                seat = lho(seat)
                continue
        calls.append((seat, "P"))
        passes += 1
        seat = lho(seat)
    return calls


def declarer_of(calls: list[tuple[str, str]]) -> tuple[str, str] | None:
    bids = [(s, c) for s, c in calls if c not in ("P", "X", "XX")]
    if not bids:
        return None
    last_seat, last = bids[-1]
    strain = last[1]
    side = {last_seat, partner(last_seat)}
    first = next(s for s, c in bids if c[1] == strain and s in side)
    return first, strain


def choose(hand: set[str], led: str | None, rng: random.Random) -> str:
    # sorted on the card too: a set's order changes from one process to the next
    same = sorted((c for c in hand if led is not None and suit(c) == led),
                  key=lambda c: (rank_value(c), c))
    pool = same or sorted(hand, key=lambda c: (rank_value(c), c))
    return pool[-1] if rng.random() < 0.5 else pool[0]


class Board:
    """Events of one board, generated lazily; ``t`` advances by ``step`` ms a card."""

    def __init__(self, table: str, number: int, rng: random.Random, t0: int = 0,
                 step: int = 1500, code: str | None = None, mishap: str | None = None,
                 dealer: str | None = None) -> None:
        self.table, self.number, self.rng = table, number, rng
        self.t = t0
        self.step = step
        self.code = code
        self.mishap = mishap
        self.dealer = dealer or dealer_of(number)  # Law 2, as the vulnerability

    def _ev(self, obj: Event, gap: int | None = None) -> Event:
        out: Event = {"v": 1, "t": self.t, **obj}
        self.t += self.step if gap is None else gap
        return out

    def _obs(self, seat: str, card: str, zone: str, face: str = "up",
             gap: int | None = None, **extra: Any) -> Event:
        return self._ev({"type": "observe", "seat": seat, "card": card, "zone": zone,
                         "face": face, "level": "at", **extra}, gap)

    def events(self) -> Iterator[Event]:
        rng = self.rng
        board: Event = {"type": "board", "table": self.table, "board": self.number,
                        "dealer": self.dealer, "vul": vul_of(self.number)}
        if self.code:
            board["code"] = self.code
        yield self._ev(board)
        hands = deal(rng)
        yield self._ev({"type": "dealt", "hands": hands})
        calls = auction(hands, self.dealer, rng)
        for seat, call in calls:
            yield self._ev({"type": "call", "seat": seat, "call": call})
        contract = declarer_of(calls)
        if contract is None:
            return
        declarer, strain = contract
        trumps = None if strain == "N" else strain
        dummy = partner(declarer)
        held = {s: set(h) for s, h in hands.items()}
        leader = lho(declarer)
        when = rng.randrange(1, 12) if self.mishap else -1
        pcs: dict[str, str] = {}  # a defender's penalty card, played at his first chance
        for trick_no in range(13):
            first: tuple[str, str] | None = None
            if trick_no == when:
                first = yield from self._mishap(held, leader, declarer, pcs)
            plays: list[tuple[str, str]] = []
            seat = leader
            if first is not None:
                plays.append(first)
                held[first[0]].discard(first[1])
                seat = lho(first[0])
            while len(plays) < 4:
                led = suit(plays[0][1]) if plays else None
                if not plays and is_major(pcs.get(partner(seat))):
                    yield self._ev({"type": "decide", "option": "pc-remains"})
                card = pcs.get(seat)
                if card is None or not (led is None or suit(card) == led
                                        or all(suit(c) != led for c in held[seat])):
                    card = choose(held[seat], led, rng)
                if pcs.get(seat) == card:
                    del pcs[seat]
                held[seat].discard(card)
                plays.append((seat, card))
                yield self._obs(seat, card, "trick")
                if trick_no == 0 and len(plays) == 1:
                    for c in sorted(held[dummy], key=ALL_CARDS.index):
                        yield self._obs(dummy, c, "table", gap=40)
                seat = lho(seat)
            for seat, card in plays:
                yield self._obs(seat, card, "table", "down", gap=40)
            leader = trick_winner(plays, trumps)
            self.t += self.step

    def _mishap(self, held: dict[str, set[str]], leader: str, declarer: str,
                pcs: dict[str, str]) -> Generator[Event, None, tuple[str, str] | None]:
        """Yields the mishap's events; returns the first play of the trick when it
        changes who leads (a lead out of turn, accepted)."""
        rng = self.rng
        defenders = [s for s in SEATS if s not in (declarer, partner(declarer))]
        if self.mishap in ("drop", "show"):
            seat = rng.choice(defenders)
            card = choose(held[seat], None, rng)
            if self.mishap == "drop":
                yield self._obs(seat, card, "table", seen_by=[s for s in SEATS if s != seat])
            else:
                yield self._obs(seat, card, "hand", seen_by=[partner(seat)])
                yield self._obs(seat, card, "table")
            pcs[seat] = card
            return None
        wrong = partner(leader) if leader in defenders else rng.choice(defenders)
        card = choose(held[wrong], None, rng)
        if card == pcs.get(wrong):
            return None
        yield self._obs(wrong, card, "trick")
        yield self._ev({"type": "decide", "option": "accept-lead"})
        return wrong, card


def is_major(card: str | None) -> bool:
    return card is not None and card[1] in "AKQJT"


def session(tables: int, boards: int, seed: int, step: int = 1500,
            mishap_rate: float = 0.0) -> Iterator[tuple[str, Event]]:
    """``(table, event)`` for ``boards`` boards at each of ``tables`` tables."""
    rng = random.Random(seed)
    t = 0
    for n in range(1, boards + 1):
        for tb in range(1, tables + 1):
            mishap = rng.choice(MISHAPS) if rng.random() < mishap_rate else None
            b = Board(str(tb), n, random.Random(rng.random()), t0=t, step=step, mishap=mishap)
            for ev in b.events():
                yield str(tb), ev
            t = b.t
