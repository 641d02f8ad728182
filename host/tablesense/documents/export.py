"""Export: each board of a journal as PBN 2.1 or as BBO LIN (vugraph), rulings included.

Pure: lines in, text out. :func:`export_lines` follows the steps of
:func:`tablesense.documents.replay.replay_steps`, the loop ``replay`` itself runs (one
engine per table, open incidents flushed when a board event comes and at the
end), and keeps, beside it, what a hand record needs and the engine
does not remember: when each ruling was made relative to the calls and cards
counted so far, the claim or concession in force, the declarer the auction
named. A board's state is captured from ``engine.board`` when the table's
next ``board`` event has replaced it, or at the end of the journal.

PBN (export format of PBN 2.1): the fifteen tags of the mandatory tag set,
an Auction section (4 calls a line from the dealer; an unfinished auction
ends with ``*``) and a Play section (a line per trick, columns from the
opening leader, ``-`` for a card not played, ``^L`` before a lead by the
wrong player, ``*`` after a claim or concession). ``Result`` is the number of
tricks declarer took on a finished board: after thirteen tricks, or after a
claim or concession that names how many (``tricks``). A board that is not
finished (the journal stops mid-play, a claim that names no number) has
``Result "?"`` and a comment saying how many tricks declarer had so far: a
scorer must never take a partial count for a final result. Each ruling is a
``{ ... }`` comment (id, kind, citation, text) placed after the call or card
that preceded it, or after the Auction tag when it came before the first call
or during an earlier deal of the board.

LIN (BBO vugraph): one line per board, ``qx|o<board>|pn|S,W,N,E|st||md|...|
rh||ah|Board n|sv|...|`` then ``mb|`` per call, ``pc|`` per card played with
``pg||`` after each trick, ``mc|`` for a claim's total when known, and each
ruling as ``nt|text|pg||`` in the same place as in PBN.

Whist-era codes (a trump declaration instead of an auction) have no PBN
contract: ``Contract`` is ``?`` and a comment says what was declared.
"""

from __future__ import annotations

import datetime as _dt
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tablesense.contract.cards import RANKS, SEAT_NAMES, SEATS, SUITS, is_bid, lho, side
from tablesense.contract.events import Claim, Concede, Event, Object
from tablesense.documents.replay import replay_steps
from tablesense.engine import Ruling
from tablesense.engine.board import Board

FORMATS = ("pbn", "lin")
LIN_SEATS = ("S", "W", "N", "E")
LIN_DEALER = {"S": "1", "W": "2", "N": "3", "E": "4"}
LIN_VUL = {"None": "o", "NS": "n", "EW": "e", "All": "b"}
PBN_VUL = {"None": "None", "NS": "NS", "EW": "EW", "All": "All"}
_EPOCH_2000_MS = 946_684_800_000  # journal times from a daemon are wall-clock ms


@dataclass(frozen=True)
class Claimed:
    """A claim or concession in force when the board ended (not objected to)."""

    kind: str  # "claim" or "concede"
    seat: str
    tricks: int | None  # of the remaining tricks; None = not said
    done: int  # tricks completed when it was made


@dataclass(frozen=True)
class Mark:
    """Where a ruling goes: after ``calls`` calls and ``cards`` cards of the final deal;
    ``earlier_deal`` when it was made before the board was dealt again."""

    calls: int
    cards: int
    earlier_deal: bool = False


@dataclass(frozen=True)
class BoardRecord:
    """One board as it stood when it ended."""

    table: str
    number: int
    code: str | None
    whist: bool
    t: int
    dealer: str | None
    vul: str | None
    deal: Mapping[str, tuple[str, ...]]
    calls: tuple[tuple[str, str], ...]
    phase: str
    declarer: str | None
    auction_declarer: str | None
    strain: str | None
    contract: str | None
    doubled: int
    tricks: tuple[tuple[tuple[str, str], ...], ...]  # finished tricks, (seat, card) in order
    winners: tuple[str, ...]  # who won each finished trick
    trick: tuple[tuple[str, str], ...]  # the unfinished trick, in play order
    won: Mapping[str, int]
    claim: Claimed | None
    rulings: tuple[Ruling, ...] = ()
    marks: tuple[Mark, ...] = ()

    @property
    def passed_out(self) -> bool:
        return (not self.whist and self.declarer is None and len(self.calls) >= 4
                and all(c == "P" for _, c in self.calls))

    @property
    def played(self) -> list[tuple[str, str]]:
        """Every card counted as played, in order."""
        return [p for plays in self.tricks for p in plays] + list(self.trick)

    @property
    def opening_leader(self) -> str | None:
        return lho(self.declarer) if self.declarer else None

    @property
    def finished(self) -> bool:
        """Is there a final result: passed out, thirteen tricks, or a claim or
        concession naming its tricks?"""
        return self.passed_out or (self.declarer is not None and (
            len(self.tricks) == 13 or (self.claim is not None and self.claim.tricks is not None)))

    def final_tricks(self) -> int | None:
        """Declarer's tricks on a finished board; None while it is not finished."""
        return self.declarer_tricks() if self.finished else None

    def declarer_tricks(self) -> int | None:
        """Declarer's tricks when the board ended; None when it cannot be told."""
        if self.declarer is None:
            return None
        mine = self.won[side(self.declarer)]
        if len(self.tricks) == 13:
            return mine
        if self.claim is not None:
            c = self.claim
            if c.tricks is None:
                return None
            left = 13 - c.done
            k = max(0, min(c.tricks, left))
            gives_declarer = (c.kind == "claim") == (side(c.seat) == side(self.declarer))
            return mine + (k if gives_declarer else left - k)
        return mine if self.played else None


class Recorder:
    """What the export keeps about one Board object while the engine runs it."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.gen = 0
        self._calls = board.calls
        self.times: list[int] = []
        self.states: list[tuple[int, int, int]] = []  # (gen, calls, cards) after each event
        self.rulings: list[Ruling] = []
        self.claim: Claimed | None = None
        self.auction_declarer: str | None = None
        self.record: BoardRecord | None = None

    def after(self, event: Event) -> None:
        """Called after ``event`` was applied without error."""
        b = self.board
        if b.calls is not self._calls:  # a new deal of this board (setup reset it)
            self.gen += 1
            self._calls = b.calls
            self.claim = None
            self.auction_declarer = None
        if self.auction_declarer is None and b.declarer is not None:
            self.auction_declarer = b.declarer
        if isinstance(event, Claim | Concede) and not getattr(event, "current", None):
            self.claim = Claimed(event.type, event.seat, event.tricks, len(b.tricks))
        elif isinstance(event, Object):
            self.claim = None
        self.times.append(event.t)
        self.states.append((self.gen, len(b.calls), _cards_counted(b)))

    def capture(self) -> BoardRecord:
        if self.record is not None:
            return self.record
        b = self.board
        trick = () if b.trick_complete() else tuple(b.trick)
        marks = []
        played = sum(len(p) for p, _ in b.tricks) + len(trick)
        for r in self.rulings:
            i = bisect_right(self.times, r.t) - 1
            gen, calls, cards = self.states[i] if i >= 0 else (0, 0, 0)
            if gen != self.gen:
                marks.append(Mark(0, 0, earlier_deal=True))
            else:
                marks.append(Mark(min(calls, len(b.calls)), min(cards, played)))
        self.record = record_of(b, self.times[0] if self.times else 0, self.auction_declarer,
                                self.claim, tuple(self.rulings), tuple(marks))
        return self.record


def record_of(b: Board, t: int, auction_declarer: str | None, claim: Claimed | None,
              rulings: tuple[Ruling, ...] = (), marks: tuple[Mark, ...] = ()) -> BoardRecord:
    """A board as it stands now (the export at a board's end; the daemon's live play
    feed, daemon/feeds.py, at every change)."""
    trick = () if b.trick_complete() else tuple(b.trick)
    return BoardRecord(
        table=b.table, number=b.number, code=b.code, whist=b.whist, t=t, dealer=b.dealer,
        vul=b.vul, deal=dict(b.deal), calls=tuple(b.calls), phase=b.phase,
        declarer=b.declarer, auction_declarer=auction_declarer, strain=b.strain,
        contract=b.contract, doubled=b.doubled, tricks=tuple(plays for plays, _ in b.tricks),
        winners=tuple(w for _, w in b.tricks), trick=trick, won=dict(b.won), claim=claim,
        rulings=rulings, marks=marks)


def _cards_counted(b: Board) -> int:
    return sum(len(p) for p, _ in b.tricks) + (0 if b.trick_complete() else len(b.trick))


@dataclass
class Exported:
    boards: list[BoardRecord] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "line N: field F: ...", as replay says


def export_lines(lines: Iterable[str], code: str | None = None) -> Exported:
    """Replay ``lines`` and return every board (in the order they started) and every
    line that was invalid or not valid in the board's state."""
    out = Exported()
    recorders: dict[int, Recorder] = {}  # id(engine) -> the recorder of its board
    order: list[Recorder] = []

    def take(rulings: list[Ruling], rec: Recorder | None) -> None:
        if rec is not None:
            rec.rulings.extend(rulings)

    for step in replay_steps(lines, code):
        if step.error is not None:
            out.errors.append(step.error)
            continue
        current = step.engine
        assert current is not None
        before = recorders.get(id(current))
        if step.event is None:  # a flush: incidents the board left open
            take(step.rulings, before)
            continue
        rulings = step.rulings
        board = current.board
        assert board is not None
        if before is not None:
            take(rulings, before)  # a board event's rulings close the board before it
            rulings = []
        if before is None or before.board is not board:
            if before is not None:
                before.capture()  # the next board has started: this one is over
            rec = Recorder(board)
            recorders[id(current)] = rec
            order.append(rec)
        rec = recorders[id(current)]
        rec.after(step.event)
        take(rulings, rec)
    out.boards = [r.capture() for r in order]
    return out


# -- shared helpers -------------------------------------------------------------------

@dataclass(frozen=True)
class Meta:
    """What the journal does not say: event, site, scoring, player names by seat."""

    event: str | None = None
    site: str = "?"
    scoring: str = "?"
    players: Mapping[str, str] = field(default_factory=dict)

    def player(self, seat: str) -> str:
        return self.players.get(seat) or SEAT_NAMES[seat]


def _holding(cards: Iterable[str], s: str) -> str:
    ranks = {c[1] for c in cards if c[0] == s}
    return "".join(r for r in RANKS if r in ranks)


def _contract(rec: BoardRecord) -> str:
    if rec.passed_out:
        return "Pass"
    if rec.whist or rec.contract is None or not is_bid(rec.contract):
        return "?"
    level, strain = rec.contract[0], rec.contract[1]
    return level + ("NT" if strain == "N" else strain) + "X" * rec.doubled


def _ruling_text(r: Ruling) -> str:
    cite = f" ({r.citation})" if r.citation else ""
    return f"{r.id} {r.kind}{cite}: {r.text}"


def _placed(rec: BoardRecord) -> dict[tuple[str, int], list[Ruling]]:
    """Rulings by where they go: ("start", 0), ("call", i) or ("card", i)."""
    where: dict[tuple[str, int], list[Ruling]] = {}
    for r, m in zip(rec.rulings, rec.marks, strict=True):
        if m.earlier_deal or (m.calls == 0 and m.cards == 0):
            key = ("start", 0)
        elif m.cards > 0:
            key = ("card", m.cards - 1)
        else:
            key = ("call", m.calls - 1)
        where.setdefault(key, []).append(r)
    return where


def _date(t: int) -> str:
    if t < _EPOCH_2000_MS:
        return "????.??.??"
    return _dt.datetime.fromtimestamp(t / 1000).strftime("%Y.%m.%d")


# -- PBN ------------------------------------------------------------------------------

def _pbn_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _pbn_comment(text: str) -> str:
    return "{" + text.replace("{", "(").replace("}", ")") + "}"


def _pbn_call(call: str) -> str:
    if call == "P":
        return "Pass"
    if is_bid(call) and call[1] == "N":
        return call[0] + "NT"
    return call


def pbn_deal(rec: BoardRecord) -> str:
    """``<first>:<hand> <hand> <hand> <hand>``, clockwise from the dealer (N if unknown)."""
    first = rec.dealer or "N"
    i = SEATS.index(first)
    hands = []
    for k in range(4):
        seat = SEATS[(i + k) % 4]
        cards = rec.deal.get(seat)
        hands.append(".".join(_holding(cards, s) for s in SUITS) if cards else "-")
    return f"{first}:" + " ".join(hands)


def pbn_board(rec: BoardRecord, meta: Meta = Meta()) -> str:
    where = _placed(rec)
    declarer = rec.declarer or ("" if rec.passed_out else "?")
    if rec.declarer and rec.auction_declarer and rec.declarer != rec.auction_declarer:
        declarer = "^" + rec.declarer  # declarer and dummy swapped (e.g. Law 54A)
    result = "" if rec.passed_out else (
        "?" if (n := rec.final_tricks()) is None else str(n))
    tags = [
        ("Event", meta.event if meta.event is not None else f"tablesense table {rec.table}"),
        ("Site", meta.site), ("Date", _date(rec.t)), ("Board", str(rec.number)),
        ("West", meta.player("W")), ("North", meta.player("N")),
        ("East", meta.player("E")), ("South", meta.player("S")),
        ("Dealer", rec.dealer or "?"), ("Vulnerable", PBN_VUL.get(rec.vul or "", "?")),
        ("Deal", pbn_deal(rec)), ("Scoring", meta.scoring), ("Declarer", declarer),
        ("Contract", _contract(rec)), ("Result", result),
    ]
    lines = [f'[{name} "{_pbn_value(value)}"]' for name, value in tags]
    if not rec.finished and not rec.passed_out and rec.declarer is not None:
        so_far = rec.won.get(side(rec.declarer), 0)
        lines.append(_pbn_comment(
            f"board not finished: no result (declarer's side had {so_far} tricks so far)"))
    start = [_pbn_comment(_ruling_text(r)) for r in where.get(("start", 0), [])]
    if rec.whist:
        if rec.strain:
            lines.append(_pbn_comment(
                f"whist-era code {rec.code}: {SEAT_NAMES.get(rec.declarer or '', '?')} "
                f"declares, trumps {'no trumps' if rec.strain == 'N' else rec.strain}, "
                + ("not doubled" if rec.doubled == 0 else f"doubled {rec.doubled}x")))
        lines += start
        start = []
        for i in range(len(rec.calls)):
            lines += [_pbn_comment(_ruling_text(r)) for r in where.get(("call", i), [])]
    elif rec.dealer is not None and (rec.calls or rec.deal):
        lines.append(f'[Auction "{rec.dealer}"]')
        lines += start
        start = []
        lines += _pbn_rows([_pbn_call(c) for _, c in rec.calls], where, "call")
        if rec.declarer is None and not rec.passed_out:
            lines.append("*")
    lines += start
    leader = rec.opening_leader
    if leader is not None and (rec.played or rec.claim):
        lines.append(f'[Play "{leader}"]')
        lines += _pbn_play(rec, leader, where)
    return "\n".join(lines) + "\n"


def _pbn_rows(tokens: list[str], where: dict[tuple[str, int], list[Ruling]],
              kind: str) -> list[str]:
    """Calls 4 a line; a ruling comment follows its call and ends the line."""
    lines, row = [], []
    for i, tok in enumerate(tokens):
        row.append(tok)
        notes = where.get((kind, i), [])
        if notes:
            row += [_pbn_comment(_ruling_text(r)) for r in notes]
            lines.append(" ".join(row))
            row = []
        elif (i + 1) % 4 == 0:
            lines.append(" ".join(row))
            row = []
    if row:
        lines.append(" ".join(row))
    return lines


def _pbn_play(rec: BoardRecord, leader: str, where: dict[tuple[str, int], list[Ruling]]
              ) -> list[str]:
    cols = [SEATS[(SEATS.index(leader) + k) % 4] for k in range(4)]
    lines: list[str] = []
    n = 0  # index of the first card of this trick in play order
    expected = leader
    tricks = [*rec.tricks, rec.trick] if rec.trick else list(rec.tricks)
    for t, plays in enumerate(tricks):
        by_seat = {s: (c, n + k) for k, (s, c) in enumerate(plays)}
        row: list[str] = []
        for seat in cols:
            if seat not in by_seat:
                row.append("-")
                continue
            card, idx = by_seat[seat]
            wrong = idx == n and seat != expected
            row.append(("^L " if wrong else "") + card)
            notes = where.get(("card", idx), [])
            if notes:
                row += [_pbn_comment(_ruling_text(r)) for r in notes]
                lines.append(" ".join(row))
                row = []
        if row:
            lines.append(" ".join(row))
        if t < len(rec.winners):
            expected = rec.winners[t]
        n += len(plays)
    if rec.claim is not None and len(rec.tricks) < 13:
        lines.append("*")
    return lines


def to_pbn(boards: Iterable[BoardRecord], meta: Meta = Meta()) -> str:
    parts = ["% PBN 2.1\n% EXPORT\n"]
    parts += [pbn_board(b, meta) for b in boards]
    return "\n".join(parts)


# -- LIN ------------------------------------------------------------------------------

def _lin_text(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def _lin_call(call: str) -> str:
    return {"P": "p", "X": "d", "XX": "r"}.get(call, call)


def lin_board(rec: BoardRecord, meta: Meta = Meta()) -> str:
    where = _placed(rec)
    names = ",".join(_lin_text(meta.player(s)).replace(", ", " ").replace(",", " ")
                     for s in LIN_SEATS)
    hands = ",".join(
        "".join(s + _holding(rec.deal.get(seat, ()), s) for s in SUITS)
        if rec.deal.get(seat) else "" for seat in LIN_SEATS)
    md = LIN_DEALER.get(rec.dealer or "", "") + hands
    out = [f"qx|o{rec.number}|pn|{names}|st||md|{md}|rh||ah|Board {rec.number}|"
           f"sv|{LIN_VUL.get(rec.vul or '', 'o')}|"]

    def notes(key: tuple[str, int]) -> None:
        for r in where.get(key, []):
            out.append(f"nt|{_lin_text(_ruling_text(r))}|pg||")

    def page() -> None:
        if out[-1] != "pg||" and not out[-1].endswith("|pg||"):
            out.append("pg||")

    notes(("start", 0))
    if rec.whist:
        for i, _ in enumerate(rec.calls):
            notes(("call", i))
    else:
        for i, (_, call) in enumerate(rec.calls):
            out.append(f"mb|{_lin_call(call)}|")
            notes(("call", i))
        if rec.calls and (rec.declarer is not None or rec.passed_out):
            page()
    idx = 0
    for plays in [*rec.tricks, rec.trick] if rec.trick else rec.tricks:
        for _, card in plays:
            out.append(f"pc|{card}|")
            notes(("card", idx))
            idx += 1
        if len(plays) == 4:
            page()
    n = rec.declarer_tricks()
    if rec.claim is not None and n is not None:
        out.append(f"mc|{n}|")
    return "".join(out)


def to_lin(boards: Iterable[BoardRecord], meta: Meta = Meta()) -> str:
    return "".join(lin_board(b, meta) + "\n" for b in boards)


def export_text(lines: Iterable[str], fmt: str, meta: Meta = Meta(),
                code: str | None = None) -> tuple[str, list[str]]:
    """The whole file in ``fmt`` ("pbn" or "lin"), and the journal's error messages."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    done = export_lines(lines, code=code)
    text = to_pbn(done.boards, meta) if fmt == "pbn" else to_lin(done.boards, meta)
    return text, done.errors
