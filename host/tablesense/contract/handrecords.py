"""An event's hand records: the deal of each board, read from a PBN 2.1 file.

Dealing machines and scoring programs exchange the boards of a session as
PBN (Portable Bridge Notation, version 2.1): one *game* a board, each a run
of tag pairs such as ``[Board "3"]``, ``[Dealer "S"]``, ``[Vulnerable "EW"]``
and ``[Deal "N:AKQ2.J4.T98.AK3 ..."]``, games separated by an empty line.
This reader takes what a table needs from each game and nothing else:

- ``Board``: a positive integer;
- ``Deal``: ``<seat>:`` and the four hands clockwise from that seat, each
  ``spades.hearts.diamonds.clubs`` with ranks ``AKQJT98765432``; all four
  hands given (``-``, an unknown hand, is not a deal a table can play), 52
  different cards, 13 a hand;
- ``Dealer`` (``N`` ``E`` ``S`` ``W``) and ``Vulnerable`` (``None``, ``Love``
  or ``-``; ``NS``; ``EW``; ``All`` or ``Both``): where a game leaves one out,
  it follows the board number as Law 2 gives it (:mod:`.boards`).

The rest of the notation is read only so as to be skipped exactly: comments
(``;`` to the end of the line, ``{`` to ``}`` across lines), escape lines (a
``%`` in the first column), strings with their escapes (``\\"`` and ``\\\\``),
the auction and play sections and supplemental tables, and a tag value ``#``
(the value the previous game gave the same tag, PBN's tag value inheritance).
Games without a ``Deal`` (a file's header game, say) are no hand records.

Every error names the file, the line and the tag (the *field*)::

    hands.pbn:14: Deal: the SK is dealt twice

>>> try:
...     parse_pbn('[Board "2"]\\n[Deal "E:- - - -"]\\n', "t.pbn")
... except HandRecordError as exc:
...     print(exc)
t.pbn:2: Deal: East's hand is not given ('-'); a table needs all four
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tablesense.contract.boards import dealer_of, vul_of
from tablesense.contract.cards import RANKS, SUITS
from tablesense.contract.vocab import SEATS, Seat, Vul

SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}
VULNERABLE: dict[str, Vul] = {"NONE": "None", "LOVE": "None", "-": "None", "NS": "NS",
                              "EW": "EW", "ALL": "All", "BOTH": "All"}


class HandRecordError(ValueError):
    """A hand-record file that cannot be used: ``str()`` is ``file:line: field: problem``."""

    def __init__(self, source: str, line: int, field: str, problem: str) -> None:
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {field}: {problem}" if field else f"{where}: {problem}")
        self.source = source
        self.line = line
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class HandRecord:
    """One board's record: its deal (N, E, S, W: 13 cards each, as the contract
    writes cards), dealer and vulnerability; ``line``: where its game began."""

    board: int
    dealer: Seat
    vul: Vul
    hands: dict[Seat, tuple[str, ...]]
    line: int


@dataclass(frozen=True)
class HandRecords:
    """The hand records of one file, by board number."""

    source: str
    boards: dict[int, HandRecord]

    def get(self, board: int) -> HandRecord | None:
        return self.boards.get(board)

    def __len__(self) -> int:
        return len(self.boards)


# -- the notation's tokens ------------------------------------------------------------
@dataclass(frozen=True)
class _Tag:
    name: str
    value: str
    line: int


def _tags(text: str, source: str) -> Iterator[_Tag | None]:
    """The tag pairs of ``text`` in order, and None at each game's end (an empty line
    outside a comment, and the end of the file)."""
    in_brace = 0  # the line a brace comment began on, or 0
    for n, line in enumerate(text.splitlines(), 1):
        if not in_brace:
            if line.startswith("%"):
                continue  # an escape line
            if not line.strip():
                yield None
                continue
        i = 0
        while i < len(line):
            c = line[i]
            if in_brace:
                end = line.find("}", i)
                if end < 0:
                    break
                in_brace, i = 0, end + 1
            elif c == "{":
                in_brace, i = n, i + 1
            elif c == ";":
                break
            elif c == '"':
                _, i = _string(line, i, source, n, "(string)")
            elif c == "[":
                tag, i = _tag(line, i, source, n)
                yield tag
            else:
                i += 1
    if in_brace:
        raise HandRecordError(source, in_brace, "(comment)", "a { comment is never closed")
    yield None


def _string(line: str, i: int, source: str, n: int, field: str) -> tuple[str, int]:
    """The string token starting at ``line[i]`` (a ``"``), unescaped, and the index after it."""
    out: list[str] = []
    j = i + 1
    while j < len(line):
        c = line[j]
        if c == "\\" and j + 1 < len(line) and line[j + 1] in '"\\':
            out.append(line[j + 1])
            j += 2
        elif c == '"':
            return "".join(out), j + 1
        else:
            out.append(c)
            j += 1
    raise HandRecordError(source, n, field, "a string is not closed on its line")


def _tag(line: str, i: int, source: str, n: int) -> tuple[_Tag, int]:
    """The tag pair ``[Name "value"]`` starting at ``line[i]``."""
    j = i + 1
    while j < len(line) and line[j].isspace():
        j += 1
    k = j
    while k < len(line) and (line[k].isalnum() or line[k] == "_"):
        k += 1
    name = line[j:k]
    if not name:
        raise HandRecordError(source, n, "(tag)", f"expected a tag name after '[', got "
                              f"{line[j:j + 10]!r}")
    while k < len(line) and line[k].isspace():
        k += 1
    if k >= len(line) or line[k] != '"':
        raise HandRecordError(source, n, name, 'expected the tag value as a "string"')
    value, k = _string(line, k, source, n, name)
    while k < len(line) and line[k].isspace():
        k += 1
    if k >= len(line) or line[k] != "]":
        raise HandRecordError(source, n, name, "expected ']' after the tag value")
    return _Tag(name, value, n), k + 1


# -- the tags a table needs -------------------------------------------------------------
def parse_deal(value: str, source: str = "<deal>", line: int = 0) -> dict[Seat, tuple[str, ...]]:
    """A ``Deal`` tag's value as four hands (N, E, S, W), checked whole.

    >>> h = parse_deal("W:AT6.Q4.T632.K873 J843.A85.AQJ84.2 KQ9.T963.97.T965 752.KJ72.K5.AQJ4")
    >>> h["N"][:5], len(h["W"]), h["W"][-1]
    (('SJ', 'S8', 'S4', 'S3', 'HA'), 13, 'C3')
    """
    field = "Deal"
    first, colon, rest = value.strip().partition(":")
    seat = first.strip().upper()
    if not colon or seat not in SEATS:
        raise HandRecordError(source, line, field, "expected '<first seat>:' (N, E, S or W), "
                              f"then four hands, got {value!r}")
    given = rest.split()
    if len(given) != 4:
        raise HandRecordError(source, line, field,
                              f"expected four hands after {first}:, got {len(given)}")
    at = SEATS.index(seat)
    hands: dict[Seat, tuple[str, ...]] = {}
    seen: set[str] = set()
    for k, text in enumerate(given):
        holder = SEATS[(at + k) % 4]
        who = SEAT_NAMES[holder]
        if text == "-":
            raise HandRecordError(source, line, field,
                                  f"{who}'s hand is not given ('-'); a table needs all four")
        suits = text.split(".")
        if len(suits) != 4:
            raise HandRecordError(source, line, field, f"{who}'s hand {text!r}: expected "
                                  "four suits (spades.hearts.diamonds.clubs)")
        cards: list[str] = []
        for s, ranks in zip(SUITS, suits, strict=True):
            for r in ranks.upper():
                card = s + r
                if r not in RANKS:
                    raise HandRecordError(source, line, field,
                                          f"{who}'s hand {text!r}: {r!r} is not a rank "
                                          f"({''.join(RANKS)})")
                if card in seen:
                    raise HandRecordError(source, line, field, f"the {card} is dealt twice")
                seen.add(card)
                cards.append(card)
        if len(cards) != 13:
            raise HandRecordError(source, line, field,
                                  f"{who} holds {len(cards)} cards, not 13")
        hands[holder] = tuple(cards)
    return {s: hands[s] for s in SEATS}


def _record(tags: dict[str, _Tag], source: str, start: int) -> HandRecord | None:
    deal = tags.get("Deal")
    if deal is None:
        return None
    board_tag = tags.get("Board")
    if board_tag is None:
        raise HandRecordError(source, deal.line, "Board",
                              "missing: a game with a Deal needs its board number")
    if not board_tag.value.strip().isdigit() or int(board_tag.value) < 1:
        raise HandRecordError(source, board_tag.line, "Board",
                              f"expected a board number from 1, got {board_tag.value!r}")
    board = int(board_tag.value)
    hands = parse_deal(deal.value, source, deal.line)
    dealer: Seat = dealer_of(board)
    if "Dealer" in tags:
        d = tags["Dealer"]
        if d.value.strip().upper() not in SEATS:
            raise HandRecordError(source, d.line, "Dealer",
                                  f"expected N, E, S or W, got {d.value!r}")
        dealer = SEATS[SEATS.index(d.value.strip().upper())]
    vul: Vul = vul_of(board)
    if "Vulnerable" in tags:
        v = tags["Vulnerable"]
        if v.value.strip().upper() not in VULNERABLE:
            raise HandRecordError(source, v.line, "Vulnerable",
                                  "expected None, Love, -, NS, EW, All or Both, got "
                                  f"{v.value!r}")
        vul = VULNERABLE[v.value.strip().upper()]
    return HandRecord(board, dealer, vul, hands, start)


def parse_pbn(text: str, source: str = "<pbn>") -> HandRecords:
    """Every game with a ``Deal`` in ``text``, by board; :class:`HandRecordError` on the
    first problem, naming ``source``, the line and the tag."""
    boards: dict[int, HandRecord] = {}
    previous: dict[str, str] = {}  # tag -> the value the previous game gave it
    tags: dict[str, _Tag] = {}
    start = 0
    for tag in _tags(text, source):
        if tag is not None:
            if not tags:
                start = tag.line
            if tag.name in tags:
                continue  # PBN: a tag pair repeated within a game is ignored
            if tag.value == "#":
                if tag.name not in previous:
                    raise HandRecordError(source, tag.line, tag.name, "'#' (the previous "
                                          "game's value), but no earlier game gave one")
                tag = _Tag(tag.name, previous[tag.name], tag.line)
            tags[tag.name] = tag
            continue
        if not tags:
            continue
        record = _record(tags, source, start)
        previous = {name: t.value for name, t in tags.items()}
        tags = {}
        if record is None:
            continue
        if record.board in boards:
            raise HandRecordError(source, record.line, "Board",
                                  f"board {record.board} again (first at line "
                                  f"{boards[record.board].line})")
        boards[record.board] = record
    if not boards:
        raise HandRecordError(source, 0, "", "no game with a Deal tag: not a hand record")
    return HandRecords(source, boards)


def load_hand_records(path: str | os.PathLike[str]) -> HandRecords:
    """Read a PBN file; an unreadable file is a :class:`HandRecordError` too."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise HandRecordError(str(p), 0, "", f"cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # PBN 2.1's character set is ISO 8859-1
    return parse_pbn(text, str(p))


__all__ = ["HandRecord", "HandRecordError", "HandRecords", "load_hand_records", "parse_deal",
           "parse_pbn"]
