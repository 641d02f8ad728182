"""The storm bound: does one irregular board replay to a sane number of alerts?

Issue 13's measure of the engine: on a board with ``n`` injected incidents,
the penalty and director rulings (what reaches the director as alerts) must
number at most ``2 * n + 3``; the board must end (13 tricks quitted, or a
claim); and its journal must replay to the same bytes every time. A board
that breaks the bound is a *storm*: the engine's idea of the trick drifted
away from the cards on the table.

``judge`` replays a board of ``tablesense.proving.irregular`` and says which of these
hold; for a storm it names the first ruling that a table's director would
call false, with what the table showed at that moment (``first_false``).

>>> from tablesense.proving.irregular import irregular_board
>>> v = judge(irregular_board(3, "duplicate-2017", kinds=["drop"]))
>>> v.bound == 2 * v.board.incidents + 3
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from tablesense.documents.replay import replay_steps
from tablesense.engine import Engine, Ruling
from tablesense.proving.irregular import IrregularBoard

# The kinds of ruling each irregularity may rightly give, under one code or another;
# a penalty or director ruling of another kind is the first sign of a drift.
EXPECTED: Final[dict[str, frozenset[str]]] = {
    "premature-defender": frozenset(("premature-play", "major-penalty-card",
                                     "minor-penalty-card", "exposed-card")),
    "premature-declarer": frozenset(("premature-play",)),
    "early-lead": frozenset(("premature-play", "major-penalty-card", "minor-penalty-card",
                             "exposed-card", "lead-out-of-turn")),
    "opening-lead-out-of-turn": frozenset(("lead-out-of-turn", "major-penalty-card",
                                           "minor-penalty-card", "exposed-card")),
    "lead-out-of-turn": frozenset(("lead-out-of-turn", "major-penalty-card",
                                   "minor-penalty-card", "exposed-card")),
    "together": frozenset(("cards-played-together", "major-penalty-card",
                           "minor-penalty-card", "exposed-card")),
    "revoke-corrected": frozenset(("revoke-corrected", "major-penalty-card", "exposed-card",
                                   "minor-penalty-card")),
    "revoke": frozenset(("revoke", "director")),
    "drop": frozenset(("major-penalty-card", "minor-penalty-card", "exposed-card",
                       "deemed-played")),
    "show": frozenset(("major-penalty-card", "minor-penalty-card", "exposed-card",
                       "deemed-played")),
    "penalty-not-played": frozenset(("major-penalty-card", "minor-penalty-card",
                                     "exposed-card", "penalty-card-not-played",
                                     "call-not-complied")),
    # the declarer is never penalised for exposing a card; under 1929 he "cannot pick the
    # cards up, but must play them from the table", and the director hears if he does
    "declarer-exposed": frozenset(("call-not-complied",)),
    # issue 25 (proving/mishaps.py): a card taken back and two quick cards are nothing the
    # director hears of; a lead before the option is a penalty card forfeited (info)
    "premature-taken-back": frozenset(("premature-play",)),
    "quick-follow": frozenset(),
    "lead-before-option": frozenset(("major-penalty-card", "exposed-card")),
    "hand-laid-down": frozenset(("claim", "exposed-card", "major-penalty-card")),
    "pc-suit-revoke": frozenset(("minor-penalty-card", "exposed-card", "major-penalty-card",
                                 "revoke")),
}


def expected_kinds(board: IrregularBoard) -> frozenset[str]:
    """The kinds of alert ``board``'s irregularities may rightly give."""
    return frozenset().union(*(EXPECTED[n.split(":")[0]] for n in board.injected
                               if n.split(":")[0] in EXPECTED))


State = tuple[int, frozenset[tuple[str, str]], frozenset[tuple[str, str]]]


def storm_bound(board: IrregularBoard) -> int:
    """The most alerts ``board``'s incidents may rightly give: ``2 * n + 3``."""
    return 2 * board.incidents + 3


def board_ended(board: IrregularBoard, tricks: int, phase: str) -> bool:
    """13 tricks counted and the board over, or a claim made."""
    claimed = board.claimed or any(e["type"] in ("claim", "concede") for e in board.events)
    return (tricks == 13 and phase == "end") or (claimed and phase in ("claim", "end"))


class Measured:
    """What the storm bound asks of a replayed board (``Verdict``, ``honest.HonestVerdict``):
    the alerts it got against its bound, and whether the engine saw it end."""

    board: IrregularBoard
    tricks: int  # tricks the engine counted
    phase: str  # the engine's phase at the end of the journal
    if TYPE_CHECKING:  # a field of one, a property of the other
        @property
        def alerts(self) -> tuple[Ruling, ...]:
            """Penalty and director rulings, in order."""

    @property
    def bound(self) -> int:
        return storm_bound(self.board)

    @property
    def storm(self) -> bool:
        return len(self.alerts) > self.bound

    @property
    def ended(self) -> bool:
        return board_ended(self.board, self.tricks, self.phase)


@dataclass(frozen=True)
class Verdict(Measured):
    """What one board's replay showed against the storm bound."""

    board: IrregularBoard
    alerts: tuple[Ruling, ...]  # penalty and director rulings, in order
    tricks: int  # tricks the engine counted
    phase: str  # the engine's phase at the end of the journal
    reported: tuple[str, ...]  # lines replay reported as not valid in the board's state
    output: bytes  # what `tablesense replay` prints on standard output for the journal
    drift: int | None  # the first event after which the engine's trick is not the table's
    first_false: str | None  # a storm's first false ruling, in words

    @property
    def cause(self) -> str:
        """The irregularity the engine lost the table after: the last one injected
        before the drift (the first one of a storm without a drift)."""
        b = self.board
        if not b.injected:
            return "none"
        before = [n for n, i in zip(b.injected, b.at, strict=True)
                  if self.drift is None or i <= self.drift]
        return (before[-1] if before else b.injected[0]).split(":")[0]

    @property
    def unexpected(self) -> tuple[Ruling, ...]:
        """Alerts of a kind none of the board's irregularities gives: false, unless the
        generator made an irregularity it does not name."""
        kinds = expected_kinds(self.board)
        return tuple(r for r in self.alerts if r.kind not in kinds)


def render(lines: Iterable[str]) -> bytes:
    """The bytes ``tablesense replay`` writes on standard output for ``lines``."""
    return "".join(json.dumps(r.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
                   for st in replay_steps(lines) for r in st.rulings).encode()


def _normal(done: int, trick: Iterable[tuple[str, str]],
            before: frozenset[tuple[str, str]]) -> State:
    """(tricks done, the trick in progress, the cards of the tricks done); a trick of
    four counts as done."""
    cards = frozenset(trick)
    return (done + 1, frozenset(), before | cards) if len(cards) == 4 else (done, cards, before)


def _engine_state(eng: Engine) -> State | None:
    """The same, as the engine sees it (None when the engine keeps it under other names:
    no drift detection then)."""
    b = eng.board
    tricks, trick = getattr(b, "tricks", None), getattr(b, "trick", None)
    if not isinstance(tricks, list) or not isinstance(trick, list):
        return None
    done = frozenset(p for plays, _ in tricks for p in plays)
    if len(trick) == 4:
        return (len(tricks), frozenset(), done)
    return (len(tricks), frozenset(trick), done)


def _table_states(board: IrregularBoard) -> list[State]:
    before = [frozenset[tuple[str, str]]()]
    for plays in board.tricks:
        before.append(before[-1] | frozenset(plays))
    return [_normal(d, tr, before[min(d, len(before) - 1)]) for d, tr in board.truth]


def judge(board: IrregularBoard) -> Verdict:
    """Replay ``board`` and measure it against the bound."""
    lines = board.lines()
    truth = _table_states(board)
    rulings: list[tuple[int, Ruling]] = []
    reported: list[str] = []
    tricks, phase = 0, "idle"
    index = -1
    seen_at: list[tuple[int, State | None]] = []
    for st in replay_steps(lines):
        if st.event is not None or st.error is not None:
            index += 1
        if st.error is not None:
            reported.append(st.error)
        rulings.extend((max(index, 0), r) for r in st.rulings)
        eng = st.engine
        if eng is None or eng.board is None:
            continue
        tricks, phase = len(getattr(eng.board, "tricks", ())), str(eng.board.phase)
        if st.event is not None:
            seen_at.append((index, _engine_state(eng)))
    drift = _drift(truth, seen_at)
    engine_then = next((s for i, s in seen_at if i == drift), None)
    alerts = [(i, r) for i, r in rulings if r.severity in ("penalty", "director")]
    first = (_first_false(board, alerts, drift, engine_then)
             if len(alerts) > 2 * board.incidents + 3 else None)
    return Verdict(board, tuple(r for _, r in alerts), tricks, phase, tuple(reported),
                   render(lines), drift, first)


def _drift(truth: list[State], seen_at: list[tuple[int, State | None]]) -> int | None:
    """The first event after which the engine's trick is not the table's and does not
    come back to it before the table has finished the next trick. The engine closes an
    incident at the next event and may wait for a decision or a false lead's followers:
    it may lag the table a little without having lost it."""
    def ok(i: int, seen: State | None) -> bool:
        return seen is None or seen in truth[i:i + 3]

    for k, (i, seen) in enumerate(seen_at):
        if ok(i, seen) or i >= len(truth):
            continue
        horizon = truth[i][0] + 1
        if not any(ok(j, s) for j, s in seen_at[k + 1:] if j < len(truth)
                   and truth[j][0] <= horizon):
            return i
    return None


def _first_false(board: IrregularBoard, alerts: list[tuple[int, Ruling]],
                 drift: int | None, engine_then: State | None) -> str:
    """The first alert of a kind none of the board's irregularities gives, or the first
    one made once the engine's trick drifted from the table's, whichever comes first;
    else the first beyond two per incident. With the event that made it, and the trick
    as the table showed it then."""
    kinds = expected_kinds(board)
    odd = next(((i, r) for i, r in alerts if r.kind not in kinds), None)
    late = next(((i, r) for i, r in alerts if drift is not None and i >= drift), None)
    picks = [p for p in (odd, late) if p is not None]
    i, r = min(picks, key=lambda p: p[0]) if picks else alerts[
        min(2 * board.incidents, len(alerts) - 1)]
    text = (f"{r.id} {r.kind} ({r.offender} {' '.join(r.cards)}) at "
            f"{_event_words(board, i)}; the table then: {_table_words(board, i)}; "
            f"the engine: {r.text}")
    if drift is not None:
        text += (f" [the trick first drifted at {_event_words(board, drift)}: the table "
                 f"then: {_table_words(board, drift + 1)}; the engine: "
                 f"{_state_words(engine_then)}]")
    return text


def _state_words(state: State | None) -> str:
    if state is None:
        return "?"
    done, trick, _ = state
    plays = " ".join(f"{s}:{c}" for s, c in sorted(trick))
    return f"{done} tricks done, trick {done + 1}: {plays or 'no card yet'}"


def _table_words(board: IrregularBoard, i: int) -> str:
    if i >= len(board.truth):
        return "board over"
    done, trick = board.truth[i]
    plays = " ".join(f"{s}:{c}" for s, c in trick)
    return f"{done} tricks done, trick {done + 1}: {plays or 'no card yet'}"


def _event_words(board: IrregularBoard, i: int) -> str:
    ev = board.events[i] if i < len(board.events) else {}
    if ev.get("type") == "observe":
        return f"t={ev['t']} {ev['seat']} {ev['card']} to {ev['zone']} face {ev['face']}"
    return f"t={ev.get('t')} {ev.get('type')} " + " ".join(
        f"{k}={v}" for k, v in ev.items() if k not in ("v", "t", "type", "hands"))


__all__ = ["EXPECTED", "Measured", "State", "Verdict", "board_ended", "expected_kinds",
           "judge", "render", "storm_bound"]
