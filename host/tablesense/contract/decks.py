"""Deck files: which tag (UID) is which card of which deck, and checking a deck against one.

A deck file is the reader firmware's ``deck.txt`` format (``cards.CardMap``):
``UID CARD`` a line, ``#`` comments; ``tablesense deck enroll`` writes a header
``# deck N`` with the deck's id (the id written into each tag's page 5; in a
duplicate event, one deck per board: the board number). Pure: text in,
values out; errors name the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

SUITS = "SHDC"
RANKS = "AKQJT98765432"
DECK = tuple(s + r for s in SUITS for r in RANKS)


class DeckError(ValueError):
    """A deck file that cannot be read: names the file, line and field."""


@dataclass
class Deck:
    deck_id: int | None
    cards: dict[str, str] = field(default_factory=dict)  # UID (hex, upper) -> card
    source: str = ""

    def missing(self) -> list[str]:
        have = set(self.cards.values())
        return [c for c in DECK if c not in have]

    def duplicates(self) -> dict[str, list[str]]:
        by_card: dict[str, list[str]] = {}
        for uid, card in self.cards.items():
            by_card.setdefault(card, []).append(uid)
        return {c: sorted(u) for c, u in by_card.items() if len(u) > 1}

    def text(self) -> str:
        """The deck file, in deck order (SA .. C2)."""
        head = [f"# deck {self.deck_id}"] if self.deck_id is not None else []
        order = sorted(self.cards.items(), key=lambda kv: (DECK.index(kv[1]), kv[0]))
        return "\n".join([*head, *(f"{uid} {card}" for uid, card in order)]) + "\n"


def parse(text: str, source: str = "<deck>") -> Deck:
    deck = Deck(None, {}, source)
    for n, raw in enumerate(text.splitlines(), 1):
        comment = raw.partition("#")[2].strip().split()
        if len(comment) == 2 and comment[0] == "deck":
            try:
                deck.deck_id = int(comment[1])
            except ValueError:
                raise DeckError(f"{source}:{n}: deck: {comment[1]!r} is not a number") from None
        line = raw.split("#")[0].replace(",", " ").strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise DeckError(f"{source}:{n}: want UID CARD, got {line!r}")
        uid, card = parts[0].upper(), parts[1].upper()
        if card[1:] == "10":
            card = card[0] + "T"
        if len(uid) not in (8, 14, 16) or any(ch not in "0123456789ABCDEF" for ch in uid):
            raise DeckError(f"{source}:{n}: uid: {parts[0]!r} is not 8, 14 or 16 hex digits")
        if card not in DECK:
            raise DeckError(f"{source}:{n}: card: {parts[1]!r} is not a card")
        if uid in deck.cards:
            raise DeckError(f"{source}:{n}: uid: {uid} is listed twice")
        deck.cards[uid] = card
    return deck


def load(path: str | Path) -> Deck:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise DeckError(f"{p}: {exc.strerror or exc}") from None
    return parse(text, str(p))


@dataclass(frozen=True)
class Tag:
    """A tag as a reader in enrolment mode reports it (TAG frame)."""

    uid: str
    card: str | None
    deck: int | None
    locked: bool


@dataclass
class Verdict:
    seen: int
    missing: list[str]  # cards of the deck no tag of the deck claims
    duplicates: dict[str, list[str]]  # card -> the UIDs of this deck claiming it
    foreign: list[Tag]  # tags of another deck, or blank
    mismatched: list[Tag]  # tags of this deck that the deck file lists otherwise (or not)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.duplicates or self.foreign or self.mismatched)


def verify(deck: Deck, tags: Iterable[Tag]) -> Verdict:
    """Compare the tags a reader saw (what is written in them) with the deck file.

    >>> d = parse("# deck 3\\n04000000000001 SA\\n")
    >>> v = verify(d, [Tag("04000000000001", "SA", 3, True), Tag("04000000000002", "SA", 3, True),
    ...                Tag("04000000000003", "HK", 4, True)])
    >>> len(v.missing), v.duplicates, [t.uid for t in v.foreign], [t.uid for t in v.mismatched]
    (51, {'SA': ['04000000000001', '04000000000002']}, ['04000000000003'], ['04000000000002'])
    """
    seen: dict[str, Tag] = {t.uid: t for t in tags}
    foreign: list[Tag] = []
    mismatched: list[Tag] = []
    claimed: dict[str, list[str]] = {}
    for uid, t in sorted(seen.items()):
        if t.card is None or t.deck != deck.deck_id:
            foreign.append(t)
            continue
        claimed.setdefault(t.card, []).append(uid)
        if deck.cards.get(uid) != t.card:
            mismatched.append(t)
    dups = {c: u for c, u in claimed.items() if len(u) > 1}
    missing = [c for c in DECK if c not in claimed]
    return Verdict(len(seen), missing, dups, foreign, mismatched)


def summary(decks: Mapping[str, Deck]) -> list[dict[str, object]]:
    """One row per deck file: its id, cards, and what a complete deck still lacks."""
    rows: list[dict[str, object]] = []
    for name, d in sorted(decks.items()):
        rows.append({"file": name, "deck": d.deck_id, "cards": len(d.cards),
                     "missing": d.missing(), "duplicates": d.duplicates()})
    return rows
