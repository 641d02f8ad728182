"""Seats, cards, suits and calls: the vocabulary of docs/contract.md, with canonical forms.

>>> parse_card("h10")
'HT'
>>> partner("N"), lho("N"), rho("N")
('S', 'E', 'W')
"""

from __future__ import annotations

from typing import Final

from tablesense.contract import vocab

# the one definition of the seats (vocab), in play order; typed as str for the callers
# that still pass plain strings (the engine, the events)
SEATS: Final[tuple[str, ...]] = vocab.SEATS
SUITS: Final = ("S", "H", "D", "C")
RANKS: Final = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")
HONOURS: Final = frozenset("AKQJT")
STRAINS: Final = ("C", "D", "H", "S", "N")
SEAT_NAMES: Final = {"N": "North", "E": "East", "S": "South", "W": "West"}
SUIT_NAMES: Final = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
ALL_CARDS: Final = tuple(s + r for s in SUITS for r in RANKS)
_RANK_VALUE: Final = {r: 14 - i for i, r in enumerate(RANKS)}


def parse_card(text: str) -> str:
    """Canonical two-character card code; accepts lower case and ``10``.

    Raises ValueError naming the input when it is not a card.
    """
    t = text.strip().upper()
    if len(t) == 3 and t[1:] == "10":
        t = t[0] + "T"
    if len(t) != 2 or t[0] not in SUITS or t[1] not in RANKS:
        raise ValueError(f"not a card: {text!r}")
    return t


def suit(card: str) -> str:
    return card[0]


def rank_value(card: str) -> int:
    """2..14 (ace high)."""
    return _RANK_VALUE[card[1]]


def is_honour(card: str) -> bool:
    return card[1] in HONOURS


_TURN: Final = {s: i for i, s in enumerate(SEATS)}


def lho(seat: str) -> str:
    """The seat on the left: next in clockwise rotation."""
    return SEATS[(_TURN[seat] + 1) & 3]


def rho(seat: str) -> str:
    return SEATS[(_TURN[seat] + 3) & 3]


def partner(seat: str) -> str:
    return SEATS[(_TURN[seat] + 2) & 3]


def side(seat: str) -> str:
    return "NS" if seat in ("N", "S") else "EW"


def is_bid(call: str) -> bool:
    return len(call) == 2 and call[0] in "1234567" and call[1] in STRAINS


def parse_call(text: str) -> str:
    t = text.strip().upper()
    aliases = {"PASS": "P", "DBL": "X", "RDBL": "XX", "D": "X", "R": "XX"}
    t = aliases.get(t, t)
    if len(t) == 3 and t[1:] == "NT":
        t = t[0] + "N"
    if t in ("P", "X", "XX") or is_bid(t):
        return t
    raise ValueError(f"not a call: {text!r}")


def describe_cards(cards: list[str] | tuple[str, ...]) -> str:
    """'SA', 'SA and H3', 'SA, H3 and C2'."""
    if not cards:
        return "no card"
    if len(cards) == 1:
        return cards[0]
    return ", ".join(cards[:-1]) + " and " + cards[-1]


def trick_winner(plays: list[tuple[str, str]], trumps: str | None) -> str:
    """Seat winning a trick of ``(seat, card)`` plays; the first play is the lead.

    >>> trick_winner([("N", "S2"), ("E", "SK"), ("S", "H2"), ("W", "SA")], "H")
    'S'
    """
    # (one loop: a trick is won once for every four cards played) The highest trump, or
    # else the highest card of the suit led; the first of equals, as max() would take
    led = plays[0][1][0]
    winner, best = plays[0][0], -1
    for seat, card in plays:
        s = card[0]
        strength = (100 + _RANK_VALUE[card[1]] if s == trumps
                    else _RANK_VALUE[card[1]] if s == led else 0)
        if strength > best:
            winner, best = seat, strength
    return winner
